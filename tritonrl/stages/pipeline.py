"""The pipeline's stages as uniform steps: config + input URIs in, a `StageSummary` (tritonrl/stages/summary.py) out.

Each stage module returns its own result type; the functions here call the
stage's `run` and turn its result into that one shape, so flows, tasks,
tracking and the CLI stay stage-agnostic. The evaluate stage's steps live in
tritonrl/stages/evaluate.py with the rest of evaluation.

Filter also comes as a shard step (`filter_shard`: one shard of the problems
→ a shard dataset) and a merge step (`filter_merge`: all shard URIs → the
stage's usual summary and outputs); tritonrl/artifacts/shards.py says why and
how stages split.

Never imports prefect. Test: tests/test_flows.py runs these through the flows;
tests/test_tracking.py covers the logging of summaries.
"""

from __future__ import annotations

import os
from typing import Any

from tritonrl.config import Config
from tritonrl.stages.progress import Progress, Update
from tritonrl.stages.summary import Log, PipelineError, StageSummary
from tritonrl.verify import use_interpreter_on


def prepare_environment(config: Config) -> None:
    """Set up the process for a stage: Triton's interpreter on cpu (before triton is first imported), and quiet
    libraries where their messages are expected. Through the environment, so workers started from here inherit it.

    DeepSpeed (imported by transformers, to save a model or train) warns when it finds no GPU. On a run configured
    for cpu with none visible, that is expected: it is told it runs on CPU (what it would choose anyway). A cuda
    run that sees no GPU still gets the warning.
    """
    import torch  # imports no triton

    from tritonrl.training.progress_bars import quiet_progress_bars

    use_interpreter_on(config.verify.device)
    quiet_progress_bars()
    if config.verify.device == "cpu" and torch.cuda.device_count() == 0:  # device_count creates no CUDA context
        os.environ.setdefault("DS_ACCELERATOR", "cpu")


def suite_check(config: Config, on_log: Log, on_progress: Update | None = None) -> StageSummary:
    from tritonrl.stages import suite_check as stage

    report_uri, checks = stage.run(config, Progress(on_log, on_progress))
    passed = sum(c.correct for c in checks)
    if passed != len(checks):
        failed = [c.problem for c in checks if not c.correct]
        raise PipelineError(
            f"suite check: {len(failed)} reference answers failed the verifier ({failed}); see {report_uri}"
        )
    return StageSummary(
        "suite-check",
        {},
        {"report": report_uri},
        {"checked": len(checks), "correct": passed},
        f"{passed}/{len(checks)} reference checks correct; report {report_uri}",
    )


def distill(config: Config, on_log: Log, on_progress: Update | None = None) -> StageSummary:
    from tritonrl.generation import build_teacher
    from tritonrl.stages import distill as stage

    result = stage.run(config, teacher=build_teacher(config.teacher), progress=Progress(on_log, on_progress))
    uri = result.dataset.uri
    return StageSummary(
        "distill",
        {"problems": config.problems.source},
        {"samples": uri},
        {
            "problems": result.problems,
            "samples": result.samples,
            "failures": result.failures,
            "resumed_problems": result.resumed_problems,
        },
        f"{result.samples} samples ({result.failures} failed) → {uri}",
        datasets=(uri,),
    )


def filter(
    config: Config,
    samples_uri: str,
    on_log: Log,  # noqa: A001 - the stage's name
    on_progress: Update | None = None,
) -> StageSummary:
    from tritonrl.stages import filter as stage

    return _filter_summary(samples_uri, stage.run(config, samples_uri, progress=Progress(on_log, on_progress)), {})


def filter_shard(
    config: Config, samples_uri: str, shard: int, shards: int, on_log: Log, on_progress: Update | None = None
) -> StageSummary:
    """Verify one shard's problems of the samples dataset → a shard dataset (input to `filter_merge`)."""
    from tritonrl.artifacts.shards import Shard
    from tritonrl.stages import filter as stage

    part = Shard(shard, shards)
    result = stage.run_shard(config, samples_uri, part, Progress(on_log, on_progress))
    uri = result.dataset.uri
    return StageSummary(
        "filter-shard",
        {"samples": samples_uri},
        {"shard": uri},
        {
            "shard": part.index + 1,
            "shards": part.count,
            "problems": result.problems,
            "samples": result.dataset.rows,
            "accepted": result.accepted,
        },
        f"shard {part.label}: {result.accepted}/{result.dataset.rows} accepted over {result.problems} problems → {uri}",
        datasets=(samples_uri, uri),
    )


def filter_merge(config: Config, samples_uri: str, shard_uris: list[str], on_log: Log) -> StageSummary:
    """The filter's summary and datasets from all its shard datasets (what `filter` would publish)."""
    from tritonrl.stages import filter as stage

    return _filter_summary(samples_uri, stage.merge(config, samples_uri, shard_uris), {"shards": len(shard_uris)})


def _filter_summary(samples_uri: str, result, extra_metrics: dict[str, Any]) -> StageSummary:
    return StageSummary(
        "filter",
        {"samples": samples_uri},
        {"accepted": result.accepted.uri, "rejected": result.rejected.uri},
        {
            "samples": result.samples,
            "accepted": result.accepted.rows,
            "acceptance_rate": result.acceptance_rate,
            "rejected_by_reason": result.reasons,
            **extra_metrics,
        },
        f"{result.accepted.rows}/{result.samples} accepted ({result.acceptance_rate:.0%}); "
        f"rejections {result.reasons or '{}'} → {result.accepted.uri}",
        datasets=(samples_uri, result.accepted.uri, result.rejected.uri),
    )


def augment(config: Config, accepted_uri: str, on_log: Log, on_progress: Update | None = None) -> StageSummary:
    from tritonrl.stages import augment as stage

    result = stage.run(config, accepted_uri, progress=Progress(on_log, on_progress))
    return StageSummary(
        "augment",
        {"accepted": accepted_uri},
        {"pairs": result.pairs.uri, "tasks": result.tasks.uri},
        {
            "problems": result.problems,
            "variants_proposed": result.variants_proposed,
            "variants_kept": result.variants_kept,
            "variant_pairs": result.variant_pairs,
            "pairs": result.pairs.rows,
            "tasks": result.tasks.rows,
        },
        f"{result.variants_kept}/{result.variants_proposed} variants kept, {result.pairs.rows} SFT pairs → "
        f"{result.pairs.uri}; {result.tasks.rows} RL tasks → {result.tasks.uri}",
        datasets=(accepted_uri, result.pairs.uri, result.tasks.uri),
    )


def sft(config: Config, pairs_uri: str, on_log: Log) -> StageSummary:
    from tritonrl.stages import sft as stage

    result = stage.run(config, pairs_uri, on_log=on_log)
    first, last = result.loss_curve[0][1], result.loss_curve[-1][1]
    return StageSummary(
        "sft",
        {"pairs": pairs_uri, "base_model": config.student.base_model},
        {"output": result.output_uri},
        {
            "steps": result.steps,
            "train_rows": result.train_rows,
            "eval_rows": result.eval_rows,
            "dropped_rows": result.dropped_rows,
            "train_tokens": result.train_tokens,
            "world_size": result.world_size,
            "final_loss": last,
            "seconds": result.seconds,
        },
        f"{result.steps} steps, loss {first:.3f} → {last:.3f} → {result.output_uri}",
        datasets=(pairs_uri,),
        curves={"loss": result.loss_curve, "eval_loss": result.eval_curve},
    )


def grpo(config: Config, tasks_uri: str, model_uri: str, on_log: Log) -> StageSummary:
    from tritonrl.stages import grpo as stage

    result = stage.run(config, tasks_uri, model_uri, on_log=on_log)
    curves: dict[str, list[tuple[int, float]]] = {}
    for entry in result.history:  # one dict of numbers per step: rewards, loss, KL, timings
        for key, value in entry.items():
            if key != "step" and isinstance(value, (int, float)) and not isinstance(value, bool):
                curves.setdefault(key, []).append((int(entry["step"]), float(value)))
    return StageSummary(
        "grpo",
        {"tasks": tasks_uri, "model": model_uri},
        {"output": result.output_uri},
        {"steps": result.steps, "seconds": result.seconds},
        f"{result.steps} steps → {result.output_uri}",
        datasets=(tasks_uri,),
        curves=curves,
    )
