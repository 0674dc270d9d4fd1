"""One Prefect flow per stage, and `call_stage`, which runs a stage here or on the `cuda` pool.

Every stage flow takes the config as `profile`, `config_file` and
`overrides` (JSON-able, so a deployment can carry them), its input URIs, and
the MLflow parent run id; it opens the stage's nested MLflow run, runs the
stage's task (tasks/stages.py: cached, retried on I/O), logs the summary
(tritonrl.tracking.log_summary) and publishes it under
`<artifact_root>/flow-runs/<flow run id>.json`, where a parent flow on another
machine reads it back after `run_deployment`.

A cached result is trusted only while its outputs still exist in the store;
otherwise the stage is recomputed (someone cleaned the artifact root).

Filter and evaluate shard when `shards.filter` / `shards.evaluate` > 1
(tritonrl/artifacts/shards.py): the stage flow stays where it was called (with
`gpu_deployments`, the full flow's `cpu` worker), opens the stage's MLflow
run, starts one `<stage>-shard` flow run per shard — all at once on the
`cuda` pool through `run_deployment`, or one after another in this process
without it — waits for every one, and merges their output URIs into the
stage's usual outputs. Shard runs nest under the stage's MLflow run.

Deployments (infra/prefect.yaml): `<stage>/cuda` for the GPU stages and the
shard flows (`filter-shard/cuda`, `evaluate-shard/cuda`).
Test: tests/test_flows.py.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from prefect import flow, runtime
from prefect.client.orchestration import get_client
from prefect.deployments import run_deployment
from prefect.logging import get_run_logger

import tasks.stages as stage_tasks
from tritonrl.config import Config, load_config
from tritonrl.stages import registry
from tritonrl.stages.pipeline import prepare_environment
from tritonrl.stages.summary import StageSummary, outputs_exist, publish_summary, read_summary
from tritonrl.tracking import Tracker, log_summary

CUDA_DEPLOYMENT = "cuda"  # every GPU stage flow's deployment on the cuda pool: `<stage>/cuda`
SHARD_POLL_S = 2  # how often a sharded stage asks the server whether its shard flow runs have finished


def stage_config(profile: str, config_file: str, overrides: list[str]) -> Config:
    """The resolved config a flow works with; also prepares the process (Triton interpreter on cpu)."""
    config, _ = load_config(profile or None, config_file or None, overrides)
    prepare_environment(config)
    return config


def run_stage(
    stage: str,
    config: Config,
    parent_run_id: str,
    task,
    run_name: str = "",
    fan_out: Callable[[str], list[dict[str, Any]]] | None = None,
    **inputs: Any,
) -> dict[str, Any]:
    """Run one stage's task inside its MLflow stage run (named `run_name`, default the stage); returns the summary dict.

    `fan_out`, for a sharded stage, runs the shards given this stage run's id
    (their parent) and returns their summaries; `task` is then the merge
    step and gets their output URIs as `shard_uris`.
    """
    with Tracker(config).stage(run_name or stage, parent_run_id, params=registry.stage_params(config, stage)) as run:
        shard_summaries = fan_out(run.run_id) if fan_out else []
        if fan_out:
            inputs = {**inputs, "shard_uris": [s["outputs"]["shard"] for s in shard_summaries]}
        state = task(config, **inputs, return_state=True)
        summary = StageSummary.from_dict(state.result())
        reused = state.name == "Cached"
        if reused and not outputs_exist(config, summary):
            state = task.with_options(refresh_cache=True)(config, **inputs, return_state=True)
            summary, reused = StageSummary.from_dict(state.result()), False
        log_summary(run, summary, reused)
    result = {**summary.to_dict(), "reused": reused}
    if fan_out:
        result["shards"] = [
            {"line": s["line"], "reused": s["reused"], "outputs": s["outputs"]} for s in shard_summaries
        ]
    publish_summary(config, str(runtime.flow_run.id), result)
    return result


@flow(name="suite-check")
def suite_check_flow(
    profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None, parent_run_id: str = ""
) -> dict[str, Any]:
    """Every built-in reference answer through the verifier: the gate before any data is made."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("suite-check", config, parent_run_id, stage_tasks.suite_check)


@flow(name="distill")
def distill_flow(
    profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None, parent_run_id: str = ""
) -> dict[str, Any]:
    """Teacher samples for every problem → the raw samples dataset."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("distill", config, parent_run_id, stage_tasks.distill)


@flow(name="filter")
def filter_flow(
    samples: str,
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    parent_run_id: str = "",
    gpu_deployments: bool = False,
) -> dict[str, Any]:
    """Execution filtering: accepted and rejected datasets from the raw samples (sharded: see the module docstring)."""
    params = {"profile": profile, "config_file": config_file, "overrides": list(overrides or [])}
    config = stage_config(**params)
    return run_maybe_sharded(
        "filter",
        config,
        params,
        parent_run_id,
        gpu_deployments,
        stage_tasks.filter_samples,
        stage_tasks.filter_merge,
        samples=samples,
    )


@flow(name="filter-shard")
def filter_shard_flow(
    samples: str,
    shard: int,
    shards: int,
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    parent_run_id: str = "",
) -> dict[str, Any]:
    """One shard of execution filtering: its problems' samples verified → a shard dataset."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage(
        "filter-shard",
        config,
        parent_run_id,
        stage_tasks.filter_shard,
        run_name=f"filter-shard-{shard + 1}of{shards}",
        samples=samples,
        shard=shard,
        shards=shards,
    )


@flow(name="augment")
def augment_flow(
    accepted: str,
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    parent_run_id: str = "",
) -> dict[str, Any]:
    """Shape variants of the accepted tasks → SFT pairs and RL tasks."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("augment", config, parent_run_id, stage_tasks.augment, accepted=accepted)


@flow(name="sft")
def sft_flow(
    pairs: str,
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    parent_run_id: str = "",
) -> dict[str, Any]:
    """Supervised fine-tuning of the student on the SFT pairs → a training output URI."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("sft", config, parent_run_id, stage_tasks.sft, pairs=pairs)


@flow(name="grpo")
def grpo_flow(
    tasks: str,
    model: str,
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    parent_run_id: str = "",
) -> dict[str, Any]:
    """HRD-GRPO from the SFT model on the RL tasks → a training output URI."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("grpo", config, parent_run_id, stage_tasks.grpo, tasks=tasks, model=model)


@flow(name="evaluate")
def evaluate_flow(
    model: str,
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    parent_run_id: str = "",
    fresh: bool = False,
    gpu_deployments: bool = False,
    compare: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Generate with a model, verify, report; `fresh` ignores a cached evaluation (the nightly run).

    `compare` ({name: model URI}: the pipeline's base and SFT models) gets the same evaluation beside `model`.
    """
    params = {"profile": profile, "config_file": config_file, "overrides": list(overrides or [])}
    config = stage_config(**params)
    task, merge = stage_tasks.evaluate, stage_tasks.evaluate_merge
    if fresh:
        task, merge = task.with_options(refresh_cache=True), merge.with_options(refresh_cache=True)
    return run_maybe_sharded(
        "evaluate",
        config,
        params,
        parent_run_id,
        gpu_deployments,
        task,
        merge,
        shard_inputs={"fresh": fresh},
        model=model,
        compare=compare or {},
    )


@flow(name="evaluate-shard")
def evaluate_shard_flow(
    model: str,
    shard: int,
    shards: int,
    profile: str = "tiny",
    config_file: str = "",
    overrides: list[str] | None = None,
    parent_run_id: str = "",
    fresh: bool = False,
    compare: dict[str, str] | None = None,
) -> dict[str, Any]:
    """One shard of the evaluation: answers for its problems generated and verified → a shard dataset."""
    config = stage_config(profile, config_file, overrides or [])
    task = stage_tasks.evaluate_shard.with_options(refresh_cache=True) if fresh else stage_tasks.evaluate_shard
    return run_stage(
        "evaluate-shard",
        config,
        parent_run_id,
        task,
        run_name=f"evaluate-shard-{shard + 1}of{shards}",
        model=model,
        shard=shard,
        shards=shards,
        compare=compare or {},
    )


STAGE_FLOWS = {
    "suite-check": suite_check_flow,
    "distill": distill_flow,
    "filter": filter_flow,
    "augment": augment_flow,
    "sft": sft_flow,
    "grpo": grpo_flow,
    "evaluate": evaluate_flow,
    "filter-shard": filter_shard_flow,
    "evaluate-shard": evaluate_shard_flow,
}


class PipelineRunFailed(RuntimeError):
    """A stage (or a shard of one) sent to the cuda pool or run as a subflow did not complete."""


class PipelineInterrupted(KeyboardInterrupt):
    """The pipeline stopped on Ctrl-C or SIGTERM; says which stages had finished (a rerun reuses them) and which ran."""

    def __init__(self, finished: list[str], running: str) -> None:
        super().__init__(f"interrupted during {running}" if running else "interrupted")
        self.finished, self.running = finished, running


def _failure(what: str, flow_run, advice: str = "") -> PipelineRunFailed | None:
    """The error for a remote flow run that did not complete, or None when it did."""
    if flow_run.state and flow_run.state.is_completed():
        return None
    state = flow_run.state.name if flow_run.state else "unknown"
    return PipelineRunFailed(
        f"{what} (flow run {flow_run.id}) ended {state}; see its logs in the Prefect UI or "
        f"`prefect flow-run logs {flow_run.id}`{advice}"
    )


def run_maybe_sharded(
    stage: str,
    config: Config,
    config_params: dict[str, Any],
    parent_run_id: str,
    gpu_deployments: bool,
    task,
    merge_task,
    shard_inputs: dict[str, Any] | None = None,
    **inputs: Any,
) -> dict[str, Any]:
    """`task` as the stage, or with `shards.<stage>` > 1 its shards (see `run_shards`) and then `merge_task`."""
    if registry.shard_count(config, stage) == 1:
        return run_stage(stage, config, parent_run_id, task, **inputs)
    return run_stage(
        stage,
        config,
        parent_run_id,
        merge_task,
        **inputs,
        fan_out=lambda stage_run_id: run_shards(
            stage, config, config_params, stage_run_id, gpu_deployments, **inputs, **(shard_inputs or {})
        ),
    )


def run_shards(
    stage: str, config: Config, config_params: dict[str, Any], stage_run_id: str, gpu_deployments: bool, **inputs: Any
) -> list[dict[str, Any]]:
    """Every shard of `stage` as a `<stage>-shard` flow run; returns their summaries, in shard order.

    With `gpu_deployments` all shard runs start at once on the cuda pool
    (`run_deployment`), so each idle `cuda` worker takes one; otherwise they
    run here one after another (the verifier pool already fills this machine).
    Any shard that does not complete fails the stage, naming the shard; its
    finished siblings are cached, so a rerun repeats only the failed ones.
    """
    count = registry.shard_count(config, stage)
    shard_stage = registry.SHARD_STAGES[stage]
    logger = get_run_logger()
    parameters = [
        {**config_params, "parent_run_id": stage_run_id, **inputs, "shard": index, "shards": count}
        for index in range(count)
    ]
    advice = "; rerun the pipeline: finished shards are reused, only failed ones run again"
    if not gpu_deployments:
        summaries = []
        for index, shard_parameters in enumerate(parameters):
            try:
                summaries.append(STAGE_FLOWS[shard_stage](**shard_parameters))
            except Exception as exc:
                raise PipelineRunFailed(
                    f"stage {stage}: shard {index + 1}/{count} failed ({type(exc).__name__}: {exc}){advice}"
                ) from exc
            logger.info("stage %s: %s", stage, summaries[-1]["line"])
        return summaries
    deployment = f"{shard_stage}/{CUDA_DEPLOYMENT}"
    started = [
        run_deployment(
            deployment, parameters=shard_parameters, timeout=0, flow_run_name=f"{shard_stage}-{index + 1}of{count}"
        )
        for index, shard_parameters in enumerate(parameters)
    ]
    logger.info("stage %s: %d shard runs of %s started", stage, count, deployment)
    finished = _wait_for(started)
    failures = [
        error
        for index, run in enumerate(finished)
        if (error := _failure(f"stage {stage}: shard {index + 1}/{count} (deployment {deployment})", run))
    ]
    if failures:
        raise PipelineRunFailed("\n".join(str(error) for error in failures) + advice)
    summaries = [read_summary(config, str(run.id)) for run in finished]
    for summary in summaries:
        logger.info("stage %s: %s", stage, summary["line"])
    return summaries


def _wait_for(flow_runs: list) -> list:
    """The flow runs, read again once every one is in a final state (completed, failed, crashed, cancelled)."""
    with get_client(sync_client=True) as client:
        while True:
            current = [client.read_flow_run(run.id) for run in flow_runs]
            if all(run.state and run.state.is_final() for run in current):
                return current
            time.sleep(SHARD_POLL_S)


def call_stage(
    stage: str, config: Config, config_params: dict[str, Any], parent_run_id: str, gpu_deployments: bool, **inputs: Any
) -> dict[str, Any]:
    """Run `stage` in this process (a subflow) or, for GPU stages with `gpu_deployments`, on the cuda pool.

    Remote stages go through `run_deployment("<stage>/cuda")` with URIs as
    parameters; their summary comes back through the artifact store. A
    sharded stage runs here and sends its shards instead (`run_shards`).
    """
    parameters = {**config_params, "parent_run_id": parent_run_id, **inputs}
    logger = get_run_logger()
    shards = registry.shard_count(config, stage)
    remote = gpu_deployments and stage in registry.GPU_STAGES and shards == 1
    if shards > 1:
        where = f"{shards} shards " + (
            f"on deployment {registry.SHARD_STAGES[stage]}/{CUDA_DEPLOYMENT}"
            if gpu_deployments
            else "in-process, one after another"
        )
    else:
        where = f"deployment {stage}/{CUDA_DEPLOYMENT}" if remote else "in-process"
    logger.info("stage %s: starting (%s)", stage, where)
    if remote:
        flow_run = run_deployment(f"{stage}/{CUDA_DEPLOYMENT}", parameters=parameters, timeout=None)
        error = _failure(f"stage {stage} (deployment {stage}/{CUDA_DEPLOYMENT})", flow_run)
        if error:
            raise error
        summary = read_summary(config, str(flow_run.id))
    elif stage in registry.SHARD_STAGES:
        summary = STAGE_FLOWS[stage](**parameters, gpu_deployments=gpu_deployments)
    else:
        summary = STAGE_FLOWS[stage](**parameters)
    logger.info("stage %s: %s%s", stage, "reused: " if summary.get("reused") else "", summary["line"])
    return summary
