"""The stage registry: each stage's name, the config it reads, whether it runs on a GPU, its shard step.

flows/ and tasks/ are built over these names, the MLflow params of a stage
run are its sections, and tests/stages/test_registry.py checks
infra/prefect.yaml's deployments against GPU_STAGES.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import tritonrl
from tritonrl.config import Config

STAGES = ("suite-check", "distill", "filter", "augment", "sft", "grpo", "evaluate")
# Stages that need the accelerator on a real run: the verifier (filter, augment, evaluate) and training.
GPU_STAGES = ("suite-check", "filter", "augment", "sft", "grpo", "evaluate", "filter-shard", "evaluate-shard")
# Stages that can split their problems into shards (`shards.<stage>`), and the step that runs one shard.
SHARD_STAGES = {"filter": "filter-shard", "evaluate": "evaluate-shard"}
# The config each stage reads: whole sections, or single `section.key`s. This is a stage's cache key (with its
# inputs and the package's source) and its MLflow params; tests/stages/test_stage_reads.py fails on a stage that
# reads a key not listed here. Where outputs go (storage, tracking) is not listed: the artifact root is in the key.
STAGE_READS = {
    "suite-check": ("problems", "verify"),
    "distill": ("problems", "teacher"),
    "filter": ("teacher", "verify", "shards"),  # the teacher repairs rejected answers (teacher.repair_turns)
    "filter-shard": ("teacher", "verify"),
    "filter-merge": ("teacher", "verify"),
    "augment": ("augment", "verify"),
    "sft": ("student", "sft"),
    "grpo": ("grpo", "verify", "evaluate.stop_speedup"),  # rewards are verdicts; a turn ends as evaluation's do
    "evaluate": ("evaluate", "verify", "shards"),
    "evaluate-shard": ("evaluate", "verify"),
    "evaluate-merge": ("evaluate",),
}


def config_digest(config: Config) -> str:
    """Identity of a resolved config (plus where its artifacts go), for cache keys and run tags."""
    payload = json.dumps({"config": config.to_dict(), "artifact_root": config.artifact_root}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def shard_count(config: Config, stage: str) -> int:
    """How many shards `stage` runs in (1 for a stage that does not shard)."""
    return getattr(config.shards, stage) if stage in SHARD_STAGES else 1


def stage_params(config: Config, stage: str) -> dict[str, Any]:
    """What a stage reads of the config (`STAGE_READS`), as nested values: its MLflow params and part of its cache key."""
    data = config.to_dict()
    params: dict[str, Any] = {}
    for name in STAGE_READS[stage]:
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
