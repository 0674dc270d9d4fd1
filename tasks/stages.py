"""Prefect tasks over the stage steps (tritonrl/stages/pipeline.py; evaluate.py for evaluate): retries, caching, artifacts.

Each task is a few lines: call the step with `stage_log()` as its log (the
run logger, copied to the pipeline's flow run) and `ProgressArtifacts` for
its progress (a Prefect progress artifact per loop over problems,
`<stage>-progress`), publish a Markdown artifact with the stage summary,
return the summary as a dict (JSON-able, so results persist and cross
machines).

- **Caching** (resume): the key is what the stage reads of the config
  (its `registry.Stage` record), where its artifacts go, its input URIs and a digest of the
  package's files (`tritonrl/stages/registry.py`), so rerunning a killed
  pipeline reuses every stage that finished, a changed `grpo.*` key reruns
  GRPO and what follows it but reuses SFT, and a change of the library's code
  recomputes (a docs-only commit does not). Results persist under Prefect's
  local storage ($PREFECT_HOME/storage). The flows check that a cached
  result's outputs still exist before trusting it (flows/stages.py).
- **Retries** only for I/O failures that may pass (storage, network: `OSError`;
  a `StorageError` only when `transient`: an endpoint down or overloaded, not
  missing credentials or bucket); a stage that fails on its own terms (bad data,
  a failed suite check, a crashed training run) fails at once.

Test: tests/test_flows.py.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from prefect import runtime, task
from prefect.artifacts import create_markdown_artifact, create_progress_artifact, update_progress_artifact
from prefect.logging import get_run_logger
from prefect.logging.handlers import APILogHandler

from tritonrl.artifacts.store import StorageError
from tritonrl.config import Config
from tritonrl.stages import pipeline
from tritonrl.stages.evaluate import evaluate_model, evaluate_model_shard, merge_model_shards
from tritonrl.stages.registry import stage_cache_key
from tritonrl.stages.summary import Log, StageSummary, markdown

IO_RETRIES = 2
IO_RETRY_DELAY_S = 10


def _cache_key(context, parameters: dict[str, Any]) -> str:
    """The stage's cache key (tritonrl/stages/registry.py): the task is named after its stage."""
    inputs = {k: v for k, v in parameters.items() if k != "config"}
    return stage_cache_key(context.task.name, parameters["config"], inputs)


def _io_failure(task, task_run, state) -> bool:
    """Retry storage and network failures (OSError), of StorageErrors the transient ones only; nothing else."""
    error = state.result(raise_on_failure=False)
    return error.transient if isinstance(error, StorageError) else isinstance(error, OSError)


def _stage_task(name: str):
    return task(
        name=name,
        cache_key_fn=_cache_key,
        persist_result=True,
        retries=IO_RETRIES,
        retry_delay_seconds=IO_RETRY_DELAY_S,
        retry_condition_fn=_io_failure,
    )


# The pipeline run's copy of a stage's lines: to the API only, so a terminal that shows the stage's shows each line once.
_pipeline_log = logging.getLogger("tritonrl.stage")
_pipeline_log.addHandler(APILogHandler())
_pipeline_log.setLevel(logging.INFO)
_pipeline_log.propagate = False


def stage_log() -> Log:
    """A stage's log: its task run's, and, when the stage runs in a subflow, the pipeline's flow run's as well.

    `prefect deployment run --watch` and a flow run's page show that run's own logs, not its subflows', and every
    stage runs in a subflow of the pipeline (on the cuda pool, a flow run of its own under it).
    """
    logger = get_run_logger()
    root = runtime.flow_run.root_flow_run_id
    if root == runtime.flow_run.id:
        return logger.info

    def log(line: str) -> None:
        logger.info(line)
        _pipeline_log.info(line, extra={"flow_run_id": root})

    return log


class ProgressArtifacts:
    """A stage's `on_progress` (tritonrl/stages/progress.py): each count a progress artifact, updated as it goes.

    Made in the task's thread (updates may come from a stage's worker threads, which have no run context). An
    artifact the server does not take is logged, never a failed stage: the lines in the run's log say the same.
    """

    def __init__(self) -> None:
        self._ids: dict[str, Any] = {}
        self._logger = get_run_logger()

    def __call__(self, stage: str, done: int, total: int, line: str) -> None:
        percent = 100.0 * done / total if total else 100.0
        try:
            if done == 0 or stage not in self._ids:  # a new count: its own artifact, the key's latest version
                key = re.sub(r"[^a-z0-9]+", "-", stage.lower()).strip("-") + "-progress"
                self._ids[stage] = create_progress_artifact(percent, key=key, description=line)
            else:
                update_progress_artifact(self._ids[stage], percent, description=line)
        except Exception as exc:  # progress is for people watching; the stage's own work must go on
            self._logger.warning("progress artifact for %s not updated: %s", stage, exc)


def _finish(summary: StageSummary) -> dict[str, Any]:
    get_run_logger().info("%s: %s", summary.stage, summary.line)
    create_markdown_artifact(
        markdown(summary), key=f"{summary.stage}-summary", description=f"TritonRL {summary.stage} stage"
    )
    return summary.to_dict()


@_stage_task("suite-check")
def suite_check(config: Config) -> dict[str, Any]:
    return _finish(pipeline.suite_check(config, stage_log(), ProgressArtifacts()))


@_stage_task("distill")
def distill(config: Config) -> dict[str, Any]:
    return _finish(pipeline.distill(config, stage_log(), ProgressArtifacts()))


@_stage_task("filter")
def filter_samples(config: Config, samples: str) -> dict[str, Any]:
    return _finish(pipeline.filter(config, samples, stage_log(), ProgressArtifacts()))


@_stage_task("filter-shard")
def filter_shard(config: Config, samples: str, shard: int, shards: int) -> dict[str, Any]:
    return _finish(pipeline.filter_shard(config, samples, shard, shards, stage_log(), ProgressArtifacts()))


@_stage_task("filter-merge")
def filter_merge(config: Config, samples: str, shard_uris: list[str]) -> dict[str, Any]:
    return _finish(pipeline.filter_merge(config, samples, shard_uris, stage_log()))


@_stage_task("augment")
def augment(config: Config, accepted: str) -> dict[str, Any]:
    return _finish(pipeline.augment(config, accepted, stage_log(), ProgressArtifacts()))


@_stage_task("sft")
def sft(config: Config, pairs: str) -> dict[str, Any]:
    return _finish(pipeline.sft(config, pairs, stage_log()))


@_stage_task("grpo")
def grpo(config: Config, tasks: str, model: str) -> dict[str, Any]:
    return _finish(pipeline.grpo(config, tasks, model, stage_log()))


@_stage_task("evaluate")
def evaluate(config: Config, model: str, compare: dict[str, str] | None = None) -> dict[str, Any]:
    return _finish(evaluate_model(config, model, stage_log(), compare=compare, on_progress=ProgressArtifacts()))


@_stage_task("evaluate-shard")
def evaluate_shard(
    config: Config, model: str, shard: int, shards: int, compare: dict[str, str] | None = None
) -> dict[str, Any]:
    return _finish(
        evaluate_model_shard(
            config, model, shard, shards, stage_log(), compare=compare, on_progress=ProgressArtifacts()
        )
    )


@_stage_task("evaluate-merge")
def evaluate_merge(
    config: Config, model: str, shard_uris: list[str], compare: dict[str, str] | None = None
) -> dict[str, Any]:
    return _finish(merge_model_shards(config, model, shard_uris, stage_log(), compare=compare))
