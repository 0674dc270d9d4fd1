"""What the pipeline's training changed: the base, SFT and final model under one evaluation, with the training curves.

The evaluate stage answers the same problems with the base model, the SFT
model and the final (GRPO) model (`evaluate.compare`); this module turns
the stage summaries of one pipeline run into the table a user reads at the
end of `tritonrl run`, the Prefect run's artifact and the MLflow parent run
shows (learning.md), and a figure of it (learning.png: correctness per model
beside the SFT loss and the GRPO reward curves). Plain data in, text and PNG
bytes out, so flows, tracking and the CLI share one rendering.

Test: tests/evaluation/test_learning.py.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

# The evaluation metrics each row shows, in order.
SHOWN_METRICS = ("correct", "valid", "compiled", "fast_1")
# At evaluate.shapes=held_out the evaluate stage also asks the final model each problem at its own shapes, under this
# name: metrics `original_shapes.<key>` (beside `compare`), output `report.original_shapes` (tritonrl/stages/evaluate.py).
ORIGINAL_SHAPES = "original_shapes"
_NONE = "–"


@dataclass(frozen=True)
class LearningRow:
    model: str  # base, sft, grpo
    uri: str
    metrics: dict[str, float | None]
    training: str  # what this model's stage did, e.g. "300 steps, loss 7.07 → 0.01"


def learning_rows(stages: dict[str, dict[str, Any]]) -> list[LearningRow]:
    """One row per evaluated model of a pipeline run (stage name → StageSummary dict); [] without a comparison."""
    evaluate = stages.get("evaluate", {})
    compared = evaluate.get("metrics", {}).get("compare") or {}
    if not compared:
        return []
    inputs = evaluate["inputs"]
    rows = [
        LearningRow(name, inputs.get(f"compare.{name}", ""), metrics, _training(name, stages))
        for name, metrics in compared.items()
    ]
    final = {k: evaluate["metrics"].get(k) for k in SHOWN_METRICS}
    return rows + [LearningRow("grpo", inputs.get("model", ""), final, _training("grpo", stages))]


def learning_metrics(rows: list[LearningRow]) -> dict[str, float]:
    """`<model>.<metric>` numbers for the MLflow parent run (e.g. base.correct, sft.correct, grpo.correct)."""
    return {
        f"{row.model}.{key}": float(value)
        for row in rows
        for key, value in row.metrics.items()
        if key in SHOWN_METRICS and value is not None
    }


def learning_markdown(rows: list[LearningRow], samples: int | None = None) -> str:
    """The table: each model's share of correct, valid, compiled and fast_1 answers, and what trained it."""
    what = f" ({samples} answers each)" if samples else ""
    lines = [
        f"### The same evaluation for each model{what}",
        "",
        "| model | " + " | ".join(SHOWN_METRICS) + " | trained by |",
        "|---|" + "---:|" * len(SHOWN_METRICS) + "---|",
    ]
    lines += [
        f"| {row.model} | " + " | ".join(_share(row.metrics.get(k)) for k in SHOWN_METRICS) + f" | {row.training} |"
        for row in rows
    ]
    return "\n".join(lines)


def learning_text(rows: list[LearningRow]) -> list[str]:
    """The table for a terminal: one aligned line per model."""
    header = f"{'model':8s}" + "".join(f"{k:>10s}" for k in SHOWN_METRICS) + "  trained by"
    return [header] + [
        f"{row.model:8s}" + "".join(f"{_share(row.metrics.get(k)):>10s}" for k in SHOWN_METRICS) + f"  {row.training}"
        for row in rows
    ]


def learning_png(rows: list[LearningRow], stages: dict[str, dict[str, Any]]) -> bytes:
    """Correctness per model, the SFT loss curve and the GRPO reward curve, side by side."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, (bars, loss, reward) = plt.subplots(1, 3, figsize=(13, 3.6))
    shares = [100 * (row.metrics.get("correct") or 0.0) for row in rows]
    bars.bar([row.model for row in rows], shares, color=["tab:gray", "tab:blue", "tab:green"][: len(rows)])
    bars.set_ylim(0, 100)
    bars.set_ylabel("correct answers (%)")
    bars.set_title("same evaluation per model")
    for x, share in enumerate(shares):
        bars.annotate(f"{share:.0f}%", (x, share), ha="center", va="bottom")
    _curve(loss, stages.get("sft", {}).get("curves", {}), ("loss", "eval_loss"), "SFT loss", "step")
    _curve(reward, stages.get("grpo", {}).get("curves", {}), ("reward_code", "correct"), "GRPO reward", "step")
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=100)
    plt.close(fig)
    return out.getvalue()


def _curve(ax, curves: dict[str, list], keys: tuple[str, ...], title: str, xlabel: str) -> None:
    for key in keys:
        points = curves.get(key) or []
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="." if len(points) < 30 else None, label=key)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    if ax.lines:
        ax.legend()
    else:
        ax.text(0.5, 0.5, "no points", ha="center", va="center", transform=ax.transAxes)


def _training(model: str, stages: dict[str, dict[str, Any]]) -> str:
    if model == "base":
        return "nothing (the model SFT starts from)"
    summary = stages.get(model, {})
    steps = summary.get("metrics", {}).get("steps")
    key = "loss" if model == "sft" else "reward_code"
    points = summary.get("curves", {}).get(key) or []
    if not points:
        return f"{steps} {model.upper()} steps" if steps is not None else _NONE
    name = "loss" if model == "sft" else "reward"
    return f"{steps} {model.upper()} steps, {name} {points[0][1]:.3f} → {points[-1][1]:.3f}"


def _share(value: float | None) -> str:
    return _NONE if value is None else f"{value:.0%}"
