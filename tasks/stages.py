"""Prefect tasks over the stage steps (tritonrl/stages/pipeline.py; evaluate.py for evaluate): retries, caching, artifacts.

Each task is a few lines: call the step with the run logger as its progress
callback, publish a Markdown artifact with the stage summary, return the
summary as a dict (JSON-able, so results persist and cross machines).

- **Caching** (resume): the key is the task name, the resolved config (and
  where its artifacts go), the input URIs and the code version
  (`tritonrl.artifacts.datasets_io.code_version`), so rerunning a killed pipeline
  reuses every stage that finished, while a changed setting, input or commit
  recomputes. Results persist under Prefect's local storage
  ($PREFECT_HOME/storage). The flows check that a cached result's outputs
  still exist before trusting it (flows/stages.py).
- **Retries** only for I/O failures that may pass (storage, network: `OSError`;
  a `StorageError` only when `transient`: an endpoint down or overloaded, not
  missing credentials or bucket); a stage that fails on its own terms (bad data,
  a failed suite check, a crashed training run) fails at once.

Test: tests/test_flows.py.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from prefect import task
from prefect.artifacts import create_markdown_artifact
from prefect.logging import get_run_logger

from tritonrl.artifacts.datasets_io import code_version
from tritonrl.artifacts.store import StorageError
from tritonrl.config import Config
from tritonrl.stages import pipeline
from tritonrl.stages.evaluate import evaluate_model, evaluate_model_shard, merge_model_shards
from tritonrl.stages.registry import config_digest
from tritonrl.stages.summary import StageSummary, markdown

IO_RETRIES = 2
IO_RETRY_DELAY_S = 10


def stage_cache_key(context, parameters: dict[str, Any]) -> str:
    """Task name + config digest + input URIs + code version (see the module docstring)."""
    config: Config = parameters["config"]
    inputs = {k: v for k, v in parameters.items() if k != "config"}
    payload = json.dumps([context.task.name, config_digest(config), inputs, code_version()], sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def _io_failure(task, task_run, state) -> bool:
    """Retry storage and network failures (OSError), of StorageErrors the transient ones only; nothing else."""
    error = state.result(raise_on_failure=False)
    return error.transient if isinstance(error, StorageError) else isinstance(error, OSError)


def _stage_task(name: str):
    return task(
        name=name, cache_key_fn=stage_cache_key, persist_result=True, retries=IO_RETRIES,
        retry_delay_seconds=IO_RETRY_DELAY_S, retry_condition_fn=_io_failure,
    )


def _finish(summary: StageSummary) -> dict[str, Any]:
    get_run_logger().info("%s: %s", summary.stage, summary.line)
    create_markdown_artifact(markdown(summary), key=f"{summary.stage}-summary",
                             description=f"TritonRL {summary.stage} stage")
    return summary.to_dict()


@_stage_task("suite-check")
def suite_check(config: Config) -> dict[str, Any]:
    return _finish(pipeline.suite_check(config, get_run_logger().info))


@_stage_task("distill")
def distill(config: Config) -> dict[str, Any]:
    return _finish(pipeline.distill(config, get_run_logger().info))


@_stage_task("filter")
def filter_samples(config: Config, samples: str) -> dict[str, Any]:
    return _finish(pipeline.filter(config, samples, get_run_logger().info))


@_stage_task("filter-shard")
def filter_shard(config: Config, samples: str, shard: int, shards: int) -> dict[str, Any]:
    return _finish(pipeline.filter_shard(config, samples, shard, shards, get_run_logger().info))


@_stage_task("filter-merge")
def filter_merge(config: Config, samples: str, shard_uris: list[str]) -> dict[str, Any]:
    return _finish(pipeline.filter_merge(config, samples, shard_uris, get_run_logger().info))


@_stage_task("augment")
def augment(config: Config, accepted: str) -> dict[str, Any]:
    return _finish(pipeline.augment(config, accepted, get_run_logger().info))


@_stage_task("sft")
def sft(config: Config, pairs: str) -> dict[str, Any]:
    return _finish(pipeline.sft(config, pairs, get_run_logger().info))


@_stage_task("grpo")
def grpo(config: Config, tasks: str, model: str) -> dict[str, Any]:
    return _finish(pipeline.grpo(config, tasks, model, get_run_logger().info))


@_stage_task("evaluate")
def evaluate(config: Config, model: str, compare: dict[str, str] | None = None) -> dict[str, Any]:
    return _finish(evaluate_model(config, model, get_run_logger().info, compare=compare))


@_stage_task("evaluate-shard")
def evaluate_shard(config: Config, model: str, shard: int, shards: int, compare: dict[str, str] | None = None) -> dict[str, Any]:
    return _finish(evaluate_model_shard(config, model, shard, shards, get_run_logger().info, compare=compare))


@_stage_task("evaluate-merge")
def evaluate_merge(config: Config, model: str, shard_uris: list[str], compare: dict[str, str] | None = None) -> dict[str, Any]:
    return _finish(merge_model_shards(config, model, shard_uris, get_run_logger().info, compare=compare))
