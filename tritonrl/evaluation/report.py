"""The KernelBench evaluation report: JSON, Markdown and two figures in one folder.

`write_report(metrics, per_problem, out_dir)` takes the dict from
`tritonrl.evaluation.metrics.compute_metrics` and the rows from
`tritonrl.evaluation.metrics.per_problem_rows`, and writes into out_dir:

  report.json        {"title", "metrics", "per_problem"}: the numbers, machine-readable
  report.md          a table per level plus "all" (with the median and p90 share of the speed of light
                     that correct samples reach), the robust-vs-naive gap, a table per problem
  speedup_hist.png   histogram of the speed-ups of correct samples (log x axis)
  per_level.png      grouped bars per level: valid / compiled / correct / naive correct / fast_1
  turns.png          with multi-turn refinement (a "turns" block): correct@t and fast_1@t against the turn t,
                     beside report.md's table of them and of the conversations answering at each turn

Every file is written atomically (temporary sibling, then rename; via
tritonrl.artifacts.store), so a reader never sees half a report. Figures use
matplotlib's Agg backend (no display needed); matplotlib is imported only
when a report is written.

Test: `.venv/bin/python -m pytest tests/evaluation/test_report.py -q`.
"""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

from tritonrl.artifacts.store import ArtifactStore
from tritonrl.evaluation.metrics import NO_LEVEL

_PER_PROBLEM_KEYS = ("problem", "level", "samples", "correct", "best_speedup", "best_sol_fraction", "top_reason")
# Bars in per_level.png: (block key, legend label).
_BAR_METRICS = (
    ("valid", "valid"),
    ("compiled", "compiled"),
    ("correct", "correct"),
    ("naive_correct", "naive correct"),
    ("fast_1", "fast_1"),
)
_NONE = "–"  # shown for a value that does not exist (no samples, no speed-up measured)
PER_PROBLEM_HEADING = "## Per problem"


def write_report(
    metrics: dict, per_problem: list[dict], out_dir: Path, title: str = "KernelBench evaluation"
) -> dict[str, Path]:
    """Write report.json, report.md, speedup_hist.png, per_level.png (and turns.png); return their paths by name."""
    _check_inputs(metrics, per_problem)
    out_dir = Path(out_dir)
    paths = {
        "json": out_dir / "report.json",
        "markdown": out_dir / "report.md",
        "speedup_hist": out_dir / "speedup_hist.png",
        "per_level": out_dir / "per_level.png",
    }
    if "turns" in metrics:
        paths["turns"] = out_dir / "turns.png"
    document = {"title": title, "metrics": metrics, "per_problem": per_problem}
    # Render everything before writing anything, so bad input or a plotting error leaves no partial report.
    # allow_nan=False: NaN/inf are not JSON; compute_metrics never produces them, so one here is a bug.
    contents = {
        "json": (json.dumps(document, indent=2, allow_nan=False) + "\n").encode(),
        "markdown": render_markdown(metrics, per_problem, title).encode(),
        "speedup_hist": _speedup_hist_png(_speedups(metrics), title),
        "per_level": _per_level_png(metrics, title),
    }
    if "turns" in metrics:
        contents["turns"] = _turns_png(metrics["turns"], title)
    out_dir.mkdir(parents=True, exist_ok=True)
    store = ArtifactStore()
    for name, data in contents.items():
        # As a file:// URI, so a directory name with ':' or '%' cannot be misread as a URI scheme.
        store.write_bytes(paths[name].resolve().as_uri(), data)
    return paths


def render_markdown(metrics: dict, per_problem: list[dict], title: str = "KernelBench evaluation") -> str:
    """The report.md text (also usable on its own, e.g. as an MLflow run description)."""
    _check_inputs(metrics, per_problem)
    overall = metrics["overall"]
    # One pass@k column for a k that every row has: overall's largest k is the smallest of all levels' largest k.
    ks = [int(k) for k in overall.get("pass_at_k") or {}]
    k_extra = max(ks) if ks and max(ks) > 1 else None

    header = [
        "level",
        "problems",
        "samples",
        "valid",
        "compiled",
        "correct",
        "naive correct",
        "fast_1",
        "fast_2",
        "pass@1",
    ]
    header += [f"pass@{k_extra}"] if k_extra else []
    header += ["mean speed-up", "geomean speed-up", "median SoL", "p90 SoL"]
    rows = [
        _level_row(level_label(name, in_level_column=True), block, k_extra)
        for name, block in metrics["per_level"].items()
    ]
    rows.append(_level_row("all", overall, k_extra))

    lines = [f"# {title}", "", _table(header, rows, numeric_from=1), "", _robust_sentence(overall), ""]
    if "turns" in metrics:
        lines += _turns_section(metrics["turns"])
    lines += [PER_PROBLEM_HEADING, ""]
    if per_problem:
        problem_header = ["problem", "level", "samples", "correct", "best speed-up", "best SoL", "top reason"]
        problem_rows = [
            [
                str(row["problem"]),
                level_label(NO_LEVEL if row["level"] is None else str(row["level"]), in_level_column=True),
                str(row["samples"]),
                str(row["correct"]),
                _speedup(row["best_speedup"]),
                _percent(row["best_sol_fraction"]),
                _NONE if row["top_reason"] is None else f"`{row['top_reason']}`",
            ]
            for row in per_problem
        ]
        lines += [_table(problem_header, problem_rows, numeric_from=2, numeric_to=6)]
    else:
        lines += ["No problems were evaluated."]
    return "\n".join(lines) + "\n"


def overall_section(markdown: str) -> str:
    """A report.md's tables without its title and sections: the level table, the robust-vs-naive sentence (and the
    refinement table); what a summary elsewhere (a registry description, another report) quotes."""
    return markdown.split("\n## ", 1)[0].split("\n", 1)[-1].strip()


def level_label(key: str, in_level_column: bool = False) -> str:
    """How the table (under its `level` header: `1`) and the plot (`level 1`) name a per-level block; `no level` in both."""
    if key == NO_LEVEL:
        return "no level"
    return key if in_level_column else f"level {key}"


def _check_inputs(metrics: dict, per_problem: list[dict]) -> None:
    if (
        not isinstance(metrics, dict)
        or not isinstance(metrics.get("overall"), dict)
        or not isinstance(metrics.get("per_level"), dict)
    ):
        raise ValueError(
            "metrics must be the dict from tritonrl.evaluation.metrics.compute_metrics (with 'overall' and 'per_level' blocks)"
        )
    if not isinstance(per_problem, list):
        raise ValueError(f"per_problem must be a list of rows, got {type(per_problem).__name__}")
    for i, row in enumerate(per_problem):
        if not isinstance(row, dict):
            raise ValueError(f"per_problem row {i}: expected a dict, got {type(row).__name__}")
        for key in _PER_PROBLEM_KEYS:
            if key not in row:
                raise ValueError(
                    f"per_problem row {i}: missing key {key!r} (rows come from tritonrl.evaluation.metrics.per_problem_rows)"
                )


def _speedups(metrics: dict) -> list[float]:
    """The correct samples' speed-ups that compute_metrics lists under "speedups"."""
    speedups = metrics.get("speedups")
    if speedups is None:
        if metrics["overall"].get("mean_speedup") is not None:
            # A mean without the values: the histogram would wrongly claim nothing was measured.
            raise ValueError(
                "metrics has a mean speed-up but no 'speedups' list; build it with tritonrl.evaluation.metrics.compute_metrics"
            )
        return []
    return [float(s) for s in speedups]


def _percent(share: float | None) -> str:
    return _NONE if share is None else f"{100 * share:.1f}%"


def _speedup(value: float | None) -> str:
    return _NONE if value is None else f"{value:.2f}×"


def _level_row(name: str, block: dict, k_extra: int | None) -> list[str]:
    pass_k = block.get("pass_at_k") or {}
    row = [
        name,
        str(block.get("problems", 0)),
        str(block.get("samples", 0)),
        *(_percent(block.get(key)) for key in ("valid", "compiled", "correct", "naive_correct", "fast_1", "fast_2")),
        _percent(pass_k.get("1")),
    ]
    row += [_percent(pass_k.get(str(k_extra)))] if k_extra else []
    row += [_speedup(block.get("mean_speedup")), _speedup(block.get("geomean_speedup"))]
    row += [_percent(block.get("median_sol_fraction")), _percent(block.get("p90_sol_fraction"))]
    return row


def _turns_section(turns: dict) -> list[str]:
    """report.md's refinement table: per turn, the conversations answering and the best-so-far shares.

    Above the per-problem section, without a heading of its own, so the registry's model description (report.md up to
    its first `##`) keeps it.
    """
    rows = [
        [t, str(turns["answered"][t]), _percent(turns["correct"][t]), _percent(turns["fast_1"][t])]
        for t in turns["correct"]
    ]
    return [
        "**Refinement turns:** each sample is a conversation; an answer not yet correct and fast enough gets the "
        "verifier's feedback and is asked again. correct@t and fast_1@t count each sample's best answer within its "
        "first t turns.",
        "",
        _table(["turn", "answered", "correct@t", "fast_1@t"], rows, numeric_from=0),
        "",
    ]


def _robust_sentence(overall: dict) -> str:
    samples = overall.get("samples", 0)
    if not samples or overall.get("correct") is None or overall.get("naive_correct") is None:
        return "**Robust vs naive:** no samples were evaluated."
    # Shares are count / samples, so rounding recovers the exact counts.
    naive = round(overall["naive_correct"] * samples)
    correct = round(overall["correct"] * samples)
    gap = 100 * (overall["naive_correct"] - overall["correct"])
    return (
        f"**Robust vs naive:** a naive harness that only compares outputs would count {_percent(overall['naive_correct'])} "
        f"of samples correct ({naive} of {samples}); the robust verifier counts {_percent(overall['correct'])} ({correct}), "
        f"a gap of {gap:.1f} percentage points."
    )


def _cell(text: str) -> str:
    """A Markdown table cell: pipes escaped, no line breaks."""
    return text.replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]], numeric_from: int, numeric_to: int | None = None) -> str:
    """A Markdown table; columns numeric_from..numeric_to-1 are right-aligned."""
    end = len(header) if numeric_to is None else numeric_to
    align = ["---:" if numeric_from <= i < end else "---" for i in range(len(header))]
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _pyplot():
    """matplotlib.pyplot on the Agg backend (files only, no display), imported on first use."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> bytes:
    plt = _pyplot()
    try:
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=120, bbox_inches="tight")
        return buffer.getvalue()
    finally:
        plt.close(fig)


def _message_png(plt, text: str, title: str) -> bytes:
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=13, transform=ax.transAxes)
    ax.set_title(title)
    return _png(fig)


def _speedup_hist_png(speedups: list[float], title: str) -> bytes:
    plt = _pyplot()
    if not speedups:
        return _message_png(plt, "no speed-ups measured (CPU run or no correct samples)", f"{title}: speed-up")
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    # Bins evenly spaced in log space (speed-ups are ratios), spanning the data and 1x so parity is on the axis.
    lo, hi = math.log10(min(min(speedups), 1.0)), math.log10(max(max(speedups), 1.0))
    pad = max(0.35, 0.05 * (hi - lo))  # at least ~0.45x..2.2x around a single value, so the axis has ticks
    n_bins = max(
        10, min(40, 2 * math.ceil(math.sqrt(len(speedups))))
    )  # ~2 sqrt(n): readable for 10 to 1000s of samples
    edges = [10 ** (lo - pad + (hi - lo + 2 * pad) * i / n_bins) for i in range(n_bins + 1)]
    geomean = math.exp(sum(math.log(s) for s in speedups) / len(speedups))

    fig, ax = plt.subplots(figsize=(7, 4))
    counts, _, _ = ax.hist(speedups, bins=edges, color="tab:blue", edgecolor="white")
    ax.set_ylim(0, 1.25 * max(counts) + 0.5)  # headroom so the legend never covers a bar
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1, label="1× (baseline)")
    ax.axvline(geomean, color="tab:orange", linewidth=1.5, label=f"geomean {geomean:.2f}×")
    # 1-2-5 ticks over up to 3 decades; beyond that only powers of ten, or the labels collide.
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if hi - lo + 2 * pad <= 3.0 else (1.0,)))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}×"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.set_xlabel("speed-up (log scale)")
    ax.set_ylabel("correct samples")
    ax.set_title(f"{title}: speed-up of correct samples (n={len(speedups)})")
    ax.legend()
    return _png(fig)


def _per_level_png(metrics: dict, title: str) -> bytes:
    plt = _pyplot()
    groups = [(level_label(name), block) for name, block in metrics["per_level"].items()]
    groups.append(("all", metrics["overall"]))
    groups = [(label, block) for label, block in groups if block.get("samples")]
    if not groups:
        return _message_png(plt, "no samples evaluated", f"{title}: per level")

    width = 0.8 / len(_BAR_METRICS)
    fig, ax = plt.subplots(figsize=(max(6.0, 1.6 * len(groups) + 2), 4))
    for j, (key, label) in enumerate(_BAR_METRICS):
        xs = [i + (j - (len(_BAR_METRICS) - 1) / 2) * width for i in range(len(groups))]
        # A metric missing from a block (e.g. fast_1 with other thresholds) is drawn as 0, labelled "–".
        values = [100 * (block.get(key) or 0.0) for _, block in groups]
        bars = ax.bar(xs, values, width, label=label)
        # One decimal, like report.md, so the figure and the table show the same numbers.
        labels = [f"{v:.1f}" if block.get(key) is not None else _NONE for v, (_, block) in zip(values, groups)]
        ax.bar_label(bars, labels=labels, fontsize=6, padding=1)
    ax.set_xticks(range(len(groups)), [f"{label}\n({block['samples']} samples)" for label, block in groups])
    ax.set_ylim(0, 110)
    ax.set_ylabel("% of samples")
    ax.set_title(f"{title}: per level")
    ax.legend(ncols=len(_BAR_METRICS), loc="upper center", bbox_to_anchor=(0.5, -0.18), frameon=False, fontsize=8)
    return _png(fig)


def _turns_png(turns: dict, title: str) -> bytes:
    plt = _pyplot()
    ts = [int(t) for t in turns["correct"]]
    fig, ax = plt.subplots(figsize=(6, 4))
    for key, label in (("correct", "correct@t"), ("fast_1", "fast_1@t")):
        values = [100 * (turns[key][str(t)] or 0.0) for t in ts]
        ax.plot(ts, values, marker="o", label=label)
        for t, v in zip(ts, values):
            ax.annotate(f"{v:.1f}", (t, v), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=7)
    ax.set_xticks(ts, [f"{t}\n({turns['answered'][str(t)]} answered)" for t in ts])
    ax.set_ylim(0, 110)
    ax.set_xlabel("turn")
    ax.set_ylabel("% of samples (best answer so far)")
    ax.set_title(f"{title}: refinement turns")
    ax.legend()
    return _png(fig)
