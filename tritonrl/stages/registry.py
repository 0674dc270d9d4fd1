"""The stage registry: each stage's name, the config sections it reads, whether it runs on a GPU, its shard step.

flows/ and tasks/ are built over these names, the MLflow params of a stage
run are its sections, and tests/stages/test_registry.py checks
infra/prefect.yaml's deployments against GPU_STAGES.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from tritonrl.config import Config

STAGES = ("suite-check", "distill", "filter", "augment", "sft", "grpo", "evaluate")
# Stages that need the accelerator on a real run: the verifier (filter, augment, evaluate) and training.
GPU_STAGES = ("suite-check", "filter", "augment", "sft", "grpo", "evaluate", "filter-shard", "evaluate-shard")
# Stages that can split their problems into shards (`shards.<stage>`), and the step that runs one shard.
SHARD_STAGES = {"filter": "filter-shard", "evaluate": "evaluate-shard"}
# The config sections each stage reads, logged as its MLflow params.
STAGE_SECTIONS = {
    "suite-check": ("problems", "verify"),
    "distill": ("problems", "teacher"),
    "filter": ("verify", "shards"),
    "filter-shard": ("verify",),
    "augment": ("augment", "verify"),
    "sft": ("student", "sft"),
    "grpo": ("grpo",),
    "evaluate": ("evaluate", "verify", "shards"),
    "evaluate-shard": ("evaluate", "verify"),
}


def config_digest(config: Config) -> str:
    """Identity of a resolved config (plus where its artifacts go), for cache keys and run tags."""
    payload = json.dumps({"config": config.to_dict(), "artifact_root": config.artifact_root}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def shard_count(config: Config, stage: str) -> int:
    """How many shards `stage` runs in (1 for a stage that does not shard)."""
    return getattr(config.shards, stage) if stage in SHARD_STAGES else 1


def stage_params(config: Config, stage: str) -> dict[str, Any]:
    """The config sections a stage reads, as nested values (its MLflow params)."""
    data = config.to_dict()
    return {section: data[section] for section in STAGE_SECTIONS[stage]}
