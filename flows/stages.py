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

Deployments (infra/prefect.yaml): `<stage>/cuda` for the GPU stages.
Test: tests/test_flows.py.
"""

from __future__ import annotations

from typing import Any

from prefect import flow, runtime
from prefect.deployments import run_deployment
from prefect.logging import get_run_logger

import tasks.stages as stage_tasks
from tritonrl import pipeline
from tritonrl.config import Config, load_config
from tritonrl.tracking import Tracker, log_summary

CUDA_DEPLOYMENT = "cuda"  # every GPU stage flow's deployment on the cuda pool: `<stage>/cuda`


def stage_config(profile: str, config_file: str, overrides: list[str]) -> Config:
    """The resolved config a flow works with; also prepares the process (Triton interpreter on cpu)."""
    config, _ = load_config(profile or None, config_file or None, overrides)
    pipeline.prepare_environment(config)
    return config


def run_stage(stage: str, config: Config, parent_run_id: str, task, **inputs: str) -> dict[str, Any]:
    """Run one stage's task inside its MLflow stage run; returns the summary dict."""
    with Tracker(config).stage(stage, parent_run_id, params=pipeline.stage_params(config, stage)) as run:
        state = task(config, **inputs, return_state=True)
        summary = pipeline.StageSummary.from_dict(state.result())
        reused = state.name == "Cached"
        if reused and not pipeline.outputs_exist(config, summary):
            state = task.with_options(refresh_cache=True)(config, **inputs, return_state=True)
            summary, reused = pipeline.StageSummary.from_dict(state.result()), False
        log_summary(run, summary, reused)
    result = {**summary.to_dict(), "reused": reused}
    pipeline.publish_summary(config, str(runtime.flow_run.id), result)
    return result


@flow(name="suite-check")
def suite_check_flow(profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None,
                     parent_run_id: str = "") -> dict[str, Any]:
    """Every built-in reference answer through the verifier: the gate before any data is made."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("suite-check", config, parent_run_id, stage_tasks.suite_check)


@flow(name="distill")
def distill_flow(profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None,
                 parent_run_id: str = "") -> dict[str, Any]:
    """Teacher samples for every problem → the raw samples dataset."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("distill", config, parent_run_id, stage_tasks.distill)


@flow(name="filter")
def filter_flow(samples: str, profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None,
                parent_run_id: str = "") -> dict[str, Any]:
    """Execution filtering: accepted and rejected datasets from the raw samples."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("filter", config, parent_run_id, stage_tasks.filter_samples, samples=samples)


@flow(name="augment")
def augment_flow(accepted: str, profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None,
                 parent_run_id: str = "") -> dict[str, Any]:
    """Shape variants of the accepted tasks → SFT pairs and RL tasks."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("augment", config, parent_run_id, stage_tasks.augment, accepted=accepted)


@flow(name="sft")
def sft_flow(pairs: str, profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None,
             parent_run_id: str = "") -> dict[str, Any]:
    """Supervised fine-tuning of the student on the SFT pairs → a training output URI."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("sft", config, parent_run_id, stage_tasks.sft, pairs=pairs)


@flow(name="grpo")
def grpo_flow(tasks: str, model: str, profile: str = "tiny", config_file: str = "",
              overrides: list[str] | None = None, parent_run_id: str = "") -> dict[str, Any]:
    """HRD-GRPO from the SFT model on the RL tasks → a training output URI."""
    config = stage_config(profile, config_file, overrides or [])
    return run_stage("grpo", config, parent_run_id, stage_tasks.grpo, tasks=tasks, model=model)


@flow(name="evaluate")
def evaluate_flow(model: str, profile: str = "tiny", config_file: str = "", overrides: list[str] | None = None,
                  parent_run_id: str = "", fresh: bool = False) -> dict[str, Any]:
    """Generate with a model, verify, report; `fresh` ignores a cached evaluation (the nightly run)."""
    config = stage_config(profile, config_file, overrides or [])
    task = stage_tasks.evaluate.with_options(refresh_cache=True) if fresh else stage_tasks.evaluate
    return run_stage("evaluate", config, parent_run_id, task, model=model)


STAGE_FLOWS = {
    "suite-check": suite_check_flow, "distill": distill_flow, "filter": filter_flow, "augment": augment_flow,
    "sft": sft_flow, "grpo": grpo_flow, "evaluate": evaluate_flow,
}


class PipelineRunFailed(RuntimeError):
    """A stage sent to the cuda pool did not complete."""


def call_stage(stage: str, config: Config, config_params: dict[str, Any], parent_run_id: str, gpu_deployments: bool,
               **inputs: Any) -> dict[str, Any]:
    """Run `stage` in this process (a subflow) or, for GPU stages with `gpu_deployments`, on the cuda pool.

    Remote stages go through `run_deployment("<stage>/cuda")` with URIs as
    parameters; their summary comes back through the artifact store.
    """
    parameters = {**config_params, "parent_run_id": parent_run_id, **inputs}
    logger = get_run_logger()
    where = f"deployment {stage}/{CUDA_DEPLOYMENT}" if gpu_deployments and stage in pipeline.GPU_STAGES else "in-process"
    logger.info("stage %s: starting (%s)", stage, where)
    if gpu_deployments and stage in pipeline.GPU_STAGES:
        flow_run = run_deployment(f"{stage}/{CUDA_DEPLOYMENT}", parameters=parameters, timeout=None)
        if not flow_run.state or not flow_run.state.is_completed():
            state = flow_run.state.name if flow_run.state else "unknown"
            raise PipelineRunFailed(
                f"stage {stage} (deployment {stage}/{CUDA_DEPLOYMENT}, flow run {flow_run.id}) ended {state}; "
                "see its logs in the Prefect UI or `prefect flow-run logs <id>`"
            )
        summary = pipeline.read_summary(config, str(flow_run.id))
    else:
        summary = STAGE_FLOWS[stage](**parameters)
    logger.info("stage %s: %s%s", stage, "reused: " if summary.get("reused") else "", summary["line"])
    return summary
