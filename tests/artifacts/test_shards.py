"""Sharded filter and evaluate: the merged outputs are the unsharded ones; bad shard sets are refused by name."""

import json

import pytest

from tritonrl.artifacts.datasets_io import read_dataset, read_manifest
from tritonrl.artifacts.shards import Shard, ShardError, assign
from tritonrl.artifacts.store import ArtifactStore
from tritonrl.config import ConfigError, load_config
from tritonrl.stages import distill, evaluate, pipeline

from tests.support.teachers import CountingTeacher

pytestmark = pytest.mark.xdist_group(__name__)  # one pytest worker builds this module's fixtures


def _config(*overrides):
    return load_config("tiny", None, ["verify.trials=1", *overrides])[0]


def _quiet(line: str) -> None:
    pass


def test_assign_balances_work_deterministically_and_covers_every_problem():
    weights = {"a": 5, "b": 1, "c": 3, "d": 3, "e": 0}
    groups = assign(weights, 2)
    assert [sorted(g) for g in groups] == [sorted(g) for g in assign(dict(reversed(weights.items())), 2)]
    assert sorted(name for group in groups for name in group) == sorted(weights)
    loads = [sum(weights[name] for name in group) for group in groups]
    assert sorted(loads) == [6, 6]
    assert all(group == [n for n in weights if n in group] for group in groups), "groups keep the input order"
    assert assign(weights, 8)[5:] == [[], [], []]  # more shards than problems: the extra ones are empty
    with pytest.raises(ShardError, match=">= 1"):
        assign(weights, 0)


def test_shard_and_config_bounds_are_checked():
    assert Shard(1, 4).label == "2/4"
    with pytest.raises(ShardError, match="0..3"):
        Shard(4, 4)
    with pytest.raises(ConfigError, match="shards.evaluate=0: must be >= 1"):
        load_config("tiny", None, ["shards.evaluate=0"])


@pytest.fixture(scope="module")
def samples(tmp_path_factory):
    """Three problems, two samples each; one problem's teacher requests failed (rejected without running)."""
    home = tmp_path_factory.mktemp("shards-home")
    mp = pytest.MonkeyPatch()
    mp.setenv("TRITONRL_HOME", str(home))
    config = _config("problems.limit=3", "teacher.samples_per_task=2")
    uri = distill.run(config, teacher=CountingTeacher(fail_on="02_gelu.py")).dataset.uri
    yield config, uri
    mp.undo()


@pytest.mark.slow
def test_merged_filter_shards_publish_the_unsharded_datasets(samples):
    config, uri = samples
    unsharded = pipeline.filter(config, uri, _quiet)
    # Five shards for three problems: two shards are empty and must still be told apart.
    parts = [pipeline.filter_shard(config, uri, index, 5, _quiet) for index in range(5)]
    assert [p.metrics["problems"] for p in parts] == [1, 1, 1, 0, 0]
    assert sum(p.metrics["samples"] for p in parts) == 6
    assert len({p.outputs["shard"] for p in parts}) == 5
    merged = pipeline.filter_merge(config, uri, [p.outputs["shard"] for p in reversed(parts)], _quiet)
    assert merged.outputs == unsharded.outputs  # same records, so the same content-addressed URIs
    assert merged.metrics == {**unsharded.metrics, "shards": 5}
    assert unsharded.metrics["rejected_by_reason"] == {"teacher_error": 2}

    store = ArtifactStore()
    assert [r["problem"] for r in read_dataset(store, merged.outputs["accepted"])] == [
        "01_relu.py",
        "01_relu.py",
        "03_silu.py",
        "03_silu.py",
    ]
    with pytest.raises(ShardError, match=r"missing \[2, 3, 4, 5\]"):
        pipeline.filter_merge(config, uri, [parts[0].outputs["shard"]], _quiet)
    with pytest.raises(ShardError, match=r"repeated \[1\]"):
        pipeline.filter_merge(
            config, uri, [p.outputs["shard"] for p in parts[:4]] + [parts[0].outputs["shard"]], _quiet
        )
    with pytest.raises(ShardError, match="was made from"):
        pipeline.filter_merge(config, "file:///elsewhere/distill-0", [p.outputs["shard"] for p in parts], _quiet)
    assert read_manifest(store, parts[1].outputs["shard"])["shards"] == 5


@pytest.mark.slow
def test_merged_evaluate_shards_report_what_the_unsharded_evaluation_reports():
    config = _config("evaluate.limit=3", "evaluate.max_tokens=8")
    unsharded = evaluate.evaluate_model(config, "tiny-local", _quiet)
    parts = [evaluate.evaluate_model_shard(config, "tiny-local", index, 2, _quiet) for index in range(2)]
    merged = evaluate.merge_model_shards(config, "tiny-local", [p.outputs["shard"] for p in parts], _quiet)
    assert merged.metrics == {**unsharded.metrics, "shards": 2}

    store = ArtifactStore()

    def report(summary):
        document = json.loads(store.read_text(summary.outputs["report"]))
        responses = store.read_text(summary.outputs["report"].replace("report.json", "responses.jsonl"))
        return document, responses

    (merged_report, merged_responses), (plain_report, plain_responses) = report(merged), report(unsharded)
    assert merged_report == plain_report
    assert merged_responses == plain_responses and len(merged_responses.splitlines()) == 3
    with pytest.raises(ShardError, match=r"missing \[1\]"):
        evaluate.merge_model_shards(config, "tiny-local", [parts[1].outputs["shard"]], _quiet)
