"""Every stage reads only the config keys the registry declares for it: they are its cache key and MLflow params.

A stage that read an undeclared key would be reused from the cache after that key changed, and its MLflow run
would not show the value it ran with. Each step runs here in-process on a recording config (tests/support/).
"""

from __future__ import annotations

import pytest

from tests.support.recorded_config import recorded
from tritonrl.config import load_config
from tritonrl.stages import pipeline, registry
from tritonrl.stages.evaluate import evaluate_model, evaluate_model_shard, merge_model_shards

SMALL = [
    "problems.limit=2",
    "teacher.samples_per_task=1",
    "verify.trials=1",
    "augment.variants_per_task=1",
    "sft.max_steps=2",
    "sft.logging_steps=1",
    "grpo.steps=1",
    "grpo.group_size=2",
    "grpo.tasks_per_step=1",
    "grpo.max_new_tokens=8",
    "evaluate.limit=2",
    "evaluate.max_tokens=4",
    "evaluate.compare=[]",
]
# Where a stage's outputs and runs go, not what it computes: in the key as the artifact root, not as settings.
INFRASTRUCTURE = ("profile", "storage.", "tracking.")


def _undeclared(stage: str, reads: set[str]) -> list[str]:
    declared = registry.BY_NAME[stage].reads
    return sorted(
        key
        for key in reads
        if not key.startswith(INFRASTRUCTURE) and key not in declared and key.split(".")[0] not in declared
    )


@pytest.mark.slow
def test_each_stage_reads_only_what_the_registry_declares(tritonrl_home):
    config, _ = load_config("tiny", None, SMALL)
    undeclared, seen = {}, set()

    def run(stage, step, *args, **kwargs):
        copy, reads = recorded(config)
        summary = step(copy, *args, lambda line: None, **kwargs)
        undeclared[stage] = _undeclared(stage, reads)
        seen.add(stage)
        return summary.outputs

    pipeline.prepare_environment(config)
    run("suite-check", pipeline.suite_check)
    samples = run("distill", pipeline.distill)["samples"]
    run("filter", pipeline.filter, samples)
    shards = [run("filter-shard", pipeline.filter_shard, samples, n, 2)["shard"] for n in range(2)]
    accepted = run("filter-merge", pipeline.filter_merge, samples, shards)["accepted"]
    augmented = run("augment", pipeline.augment, accepted)
    model = run("sft", pipeline.sft, augmented["pairs"])["output"]
    final = run("grpo", pipeline.grpo, augmented["tasks"], model)["output"]
    run("evaluate", evaluate_model, final)
    shards = [run("evaluate-shard", evaluate_model_shard, final, n, 2)["shard"] for n in range(2)]
    run("evaluate-merge", merge_model_shards, final, shards)

    assert seen == set(registry.BY_NAME), "a stage the registry names was not run here, or the reverse"
    missing = {stage: keys for stage, keys in undeclared.items() if keys}
    assert not missing, (
        f"reads the registry does not declare (tritonrl/stages/registry.py, the records' reads): {missing}"
    )
