"""The stage registry: one record per step the pipeline runs, everything else about stages derives from it.

A record names the step (its Prefect flow, task, deployment and MLflow run carry the name), the config it
reads, whether it needs the accelerator, the step that runs one of its shards, and its `tritonrl` command.
tests/stages/test_registry.py checks the flows, the tasks, the CLI's stage commands and infra/prefect.yaml's
deployments against these records; tests/stages/test_stage_reads.py checks what each step reads.
"""

from __future__ import annotations

import functools
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tritonrl
from tritonrl.config import Config


@dataclass(frozen=True)
class Stage:
    name: str
    # The config it reads: whole sections, or single `section.key`s. This is its cache key (with its inputs and
    # the package's source) and its MLflow params. Where outputs go (storage, tracking) is not listed: the artifact
    # root is in the key; so is not `shards.*`: a sharded run publishes what an unsharded one does.
    reads: tuple[str, ...]
    gpu: bool = False  # needs the accelerator on a real run: the verifier or training (a `<name>/cuda` deployment)
    shard_step: str = ""  # the step that runs one shard when `shards.<name>` > 1
    in_pipeline: bool = True  # False: a shard or merge step of a sharded stage
    command: str = ""  # the `tritonrl` command that runs it alone, if any


RECORDS = (
    Stage("suite-check", ("problems", "verify"), gpu=True),
    Stage("distill", ("problems", "teacher"), command="distill"),
    # the teacher repairs rejected answers (teacher.repair_turns), asking again with the problem's source
    Stage("filter", ("problems", "teacher", "verify"), gpu=True, shard_step="filter-shard", command="filter"),
    Stage("augment", ("augment", "verify"), gpu=True, command="augment"),
    Stage("sft", ("student", "sft"), gpu=True, command="sft"),
    # rewards are verdicts; a turn ends where an evaluation's would
    Stage("grpo", ("grpo", "verify", "evaluate.stop_speedup"), gpu=True, command="grpo"),
    Stage("evaluate", ("evaluate", "verify"), gpu=True, shard_step="evaluate-shard", command="eval"),
    Stage("filter-shard", ("problems", "teacher", "verify"), gpu=True, in_pipeline=False),
    Stage("filter-merge", ("teacher", "verify"), in_pipeline=False),
    Stage("evaluate-shard", ("evaluate", "verify"), gpu=True, in_pipeline=False),
    Stage("evaluate-merge", ("evaluate",), in_pipeline=False),
)
BY_NAME = {stage.name: stage for stage in RECORDS}
STAGES = tuple(stage.name for stage in RECORDS if stage.in_pipeline)
GPU_STAGES = tuple(stage.name for stage in RECORDS if stage.gpu)
SHARD_STAGES = {stage.name: stage.shard_step for stage in RECORDS if stage.shard_step}


def config_digest(config: Config) -> str:
    """Identity of a resolved config (plus where its artifacts go), for cache keys and run tags."""
    payload = json.dumps({"config": config.to_dict(), "artifact_root": config.artifact_root}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def shard_count(config: Config, stage: str) -> int:
    """How many shards `stage` runs in (1 for a stage that does not shard)."""
    return getattr(config.shards, stage) if stage in SHARD_STAGES else 1


def stage_params(config: Config, stage: str) -> dict[str, Any]:
    """What a stage reads of the config (its record's `reads`), as nested values: its MLflow params and part of its cache key."""
    data = config.to_dict()
    params: dict[str, Any] = {}
    for name in BY_NAME[stage].reads:
        section, _, key = name.partition(".")
        if key:
            params.setdefault(section, {})[key] = data[section][key]
        else:
            params[section] = data[section]
    return params


@functools.cache
def source_digest(package: Path = Path(tritonrl.__file__).parent) -> str:
    """Digest of the package's files, code and data: the code part of a stage's cache key.

    A cached stage result is reused until the code that computes it changes: a commit that touches only docs,
    tests or the orchestration reuses everything, and an uncommitted edit of the library does not."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(f"{path.relative_to(package)}\0".encode() + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def stage_cache_key(stage: str, config: Config, inputs: dict[str, Any]) -> str:
    """What a stage's result depends on: what it reads of the config, where artifacts go, its inputs, the code."""
    payload = [stage, stage_params(config, stage), config.artifact_root, inputs, source_digest()]
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
