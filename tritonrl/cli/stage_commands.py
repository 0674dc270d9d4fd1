"""One command per pipeline stage, each printing the JSON summary the next stage's `--input` takes."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Optional

import typer

from tritonrl.cli.app import (
    ConfigFileOption,
    ProfileOption,
    SetOption,
    app,
    console,
    fail,
    keys_help,
    print_json,
    stage_config,
)

OutOption = typer.Option(None, "--out", help="Root URI for the output dataset (default: <artifact_root>/datasets).")
InputOption = typer.Option(..., "--input", help="URI of the input dataset, as printed by the previous stage.")


def _log(line: str) -> None:
    console.print(line, highlight=False, markup=False)


def _progress():
    """Per-problem progress lines (tritonrl/stages/progress.py) on stderr."""
    from tritonrl.stages.progress import Progress

    return Progress(_log)


@app.command("distill")
def distill(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = OutOption,
) -> None:
    """Teacher distillation: N samples per problem of `problems.source` from the configured teacher.

    Resumable: rerunning with the same settings skips problems already done.
    Prints a JSON summary with the dataset URI for `tritonrl filter --input`.
    """
    from tritonrl.generation import build_teacher
    from tritonrl.problems import ProblemError
    from tritonrl.stages import distill as stage

    config = stage_config(profile, config_file, overrides)
    try:
        teacher = build_teacher(config.teacher)
        result = stage.run(config, out, teacher, _progress())
    except (ProblemError, ValueError) as exc:
        raise fail(str(exc)) from exc
    print_json(
        {
            "dataset": result.dataset.uri,
            "problems": result.problems,
            "samples": result.samples,
            "failures": result.failures,
            "resumed_problems": result.resumed_problems,
        }
    )


def _run_stage(module: str, profile, config_file, overrides, *inputs, **options):
    """Run `tritonrl.stages.<module>.run(config, *inputs, **options)`; bad inputs and failed launches exit 2."""
    from tritonrl.artifacts.datasets_io import DatasetError
    from tritonrl.training.launch import TrainingError
    from tritonrl.training.models import ModelError

    config = stage_config(profile, config_file, overrides)
    stage = importlib.import_module(f"tritonrl.stages.{module}")
    try:
        return stage.run(config, *inputs, **options)
    except (DatasetError, ModelError, TrainingError) as exc:
        raise fail(str(exc)) from exc


@app.command("filter")
def filter_(
    input_uri: str = InputOption,
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = OutOption,
) -> None:
    """Execution filtering: verify every distilled sample; publish accepted and rejected (with reasons) datasets.

    Progress goes to stderr, a line per problem verified (at most one every few seconds).
    """
    result = _run_stage("filter", profile, config_file, overrides, input_uri, out, progress=_progress())
    print_json(
        {
            "accepted": result.accepted.uri,
            "rejected": result.rejected.uri,
            "samples": result.samples,
            "accepted_count": result.accepted.rows,
            "acceptance_rate": result.acceptance_rate,
            "reasons": result.reasons,
        }
    )


@app.command("augment")
def augment(
    input_uri: str = InputOption,
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = OutOption,
) -> None:
    """Shape augmentation: variants of each accepted task (augment.variants_per_task), solutions re-verified on each.

    Progress goes to stderr, a line per problem whose variants are verified (at most one every few seconds).
    """
    result = _run_stage("augment", profile, config_file, overrides, input_uri, out, progress=_progress())
    print_json(
        {
            "pairs": result.pairs.uri,
            "tasks": result.tasks.uri,
            "problems": result.problems,
            "variants_proposed": result.variants_proposed,
            "variants_kept": result.variants_kept,
            "variant_pairs": result.variant_pairs,
            "pair_rows": result.pairs.rows,
            "task_rows": result.tasks.rows,
        }
    )


SFT_HELP = f"""Supervised fine-tuning of student.base_model on (prompt, response) pairs, loss on response tokens only.

Training runs under the launcher in a subprocess; progress goes to stderr. The output holds model/ (transformers format), checkpoint-N/ and manifest.json, written last. Prints a JSON summary with the output URI.

Settings (--set sft.KEY=VALUE; `tritonrl config show` prints the resolved values):

{keys_help("sft")}
"""


@app.command("sft", help=SFT_HELP)
def sft(
    input_uri: str = typer.Option(
        ...,
        "--input",
        help="URI of an augment-pairs dataset (columns prompt, response), as printed by `tritonrl augment`.",
    ),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = typer.Option(
        None,
        "--out",
        help="Output URI or path for checkpoints and the final model (default: <artifact_root>/checkpoints/sft-<input digest>-<time>).",
    ),
) -> None:
    result = _run_stage("sft", profile, config_file, overrides, input_uri, out, on_log=_log)
    print_json(
        {
            "output": result.output_uri,
            "model": result.model_uri,
            "checkpoints": result.checkpoints,
            "train_rows": result.train_rows,
            "eval_rows": result.eval_rows,
            "dropped_rows": result.dropped_rows,
            "steps": result.steps,
            "world_size": result.world_size,
            "loss_curve": result.loss_curve,
            "eval_curve": result.eval_curve,
            "seconds": result.seconds,
        }
    )


GRPO_HELP = f"""HRD-GRPO: sample groups from the policy, reward them with the verifier, update plan and code tokens separately.

r_code = valid and correct; r_plan = the speed-up of a correct kernel (on CPU, where timing is meaningless, r_plan = r_code). Progress goes to stderr, one line per step; prints a JSON summary with the output URI.

Data parallel: grpo.nproc_per_node processes per node (one per GPU), started by torchrun as for SFT; for several nodes grpo.nnodes with grpo.rdzv_endpoint, and the torchrun command this logs run on every other node (the output directory, or $TRITONRL_HOME for s3://, on a filesystem they share). Every process keeps a full copy of the policy and verifies on its own GPU. The output is published once every process has finished.

Settings (--set grpo.KEY=VALUE; `tritonrl config show` prints the resolved values):

{keys_help("grpo")}
"""


@app.command("grpo", help=GRPO_HELP)
def grpo(
    tasks_uri: str = typer.Option(
        ...,
        "--tasks",
        help="URI of an augment-tasks dataset (columns problem, problem_source), as printed by `tritonrl augment`.",
    ),
    model: Optional[str] = typer.Option(
        None,
        "--model",
        help="Starting policy: an SFT output URI (as printed by `tritonrl sft`), a hub id or a local directory (default: student.base_model).",
    ),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
    out: Optional[str] = typer.Option(
        None,
        "--out",
        help="Output URI or path for checkpoints and the final model (default: <artifact_root>/checkpoints/grpo-<time>).",
    ),
) -> None:
    result = _run_stage("grpo", profile, config_file, overrides, tasks_uri, model, out, on_log=_log)
    print_json(
        {
            "output": result.output_uri,
            "model": result.model_uri,
            "steps": result.steps,
            "world_size": result.world_size,
            "history": result.history,
            "seconds": result.seconds,
        }
    )
