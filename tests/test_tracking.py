"""MLflow tracking against a real SQLite store: the run tree, datasets, artifacts, registry aliases, stale runs."""

import json

import pytest
from mlflow import MlflowClient

from tritonrl import tracking
from tritonrl.artifacts.datasets_io import publish_dataset
from tritonrl.artifacts.store import ArtifactStore, join
from tritonrl.config import load_config
from tritonrl.stages.summary import StageSummary


@pytest.fixture
def config(tritonrl_home):
    config, _ = load_config("tiny")
    return config


def _client(config):
    return MlflowClient(tracking_uri=config.tracking_uri, registry_uri=config.tracking_uri)


def test_stage_runs_nest_under_the_pipeline_run_with_params_metrics_datasets_and_manifests(config):
    store = ArtifactStore()
    source = publish_dataset(store, join(config.artifact_root, "datasets"), "distill", [{"a": 1}, {"a": 2}], {"stage": "distill"})
    out = publish_dataset(store, join(config.artifact_root, "datasets"), "filter-accepted", [{"a": 1}], {"stage": "filter"})
    tracker = tracking.Tracker(config)
    parent = tracker.start_pipeline("pipeline-test")
    summary = StageSummary("filter", {"samples": source.uri}, {"accepted": out.uri},
                           {"samples": 2, "accepted": 1, "acceptance_rate": 0.5, "rejected_by_reason": {"static": 1}},
                           "1/2 accepted", datasets=(source.uri, out.uri), curves={"loss": [(1, 2.0), (2, 1.5)]})
    with tracker.stage("filter", parent, params={"verify": {"trials": 1}}) as run:
        tracking.log_summary(run, summary, reused=False)
    tracker.end_run(parent)

    client = _client(config)
    (child,) = client.search_runs([tracker.experiment_id], filter_string=f"tags.`mlflow.parentRunId` = '{parent}'")
    assert child.info.run_name == "filter" and child.info.status == "FINISHED"
    assert child.data.params["verify.trials"] == "1"
    assert child.data.metrics["acceptance_rate"] == 0.5
    assert child.data.metrics["rejected_by_reason.static"] == 1.0
    assert [m.value for m in client.get_metric_history(child.info.run_id, "loss")] == [2.0, 1.5]
    assert child.data.tags[tracking.REUSED_TAG] == "false"
    inputs = {(d.dataset.name, t.value) for d in child.inputs.dataset_inputs for t in d.tags}
    assert inputs == {(source.uri.rsplit("/", 1)[1], "input"), (out.uri.rsplit("/", 1)[1], "output")}
    assert {d.dataset.digest for d in child.inputs.dataset_inputs} == {source.digest[:12], out.digest[:12]}
    artifacts = {a.path for a in client.list_artifacts(child.info.run_id, "manifests")}
    assert artifacts == {"manifests/input-samples.json", "manifests/output-accepted.json"}
    parent_run = client.get_run(parent)
    assert parent_run.info.status == "FINISHED" and parent_run.data.params["sft.max_steps"] == str(config.sft.max_steps)


def test_a_failing_stage_marks_its_run_failed_with_the_error(config):
    tracker = tracking.Tracker(config)
    with pytest.raises(ValueError):
        with tracker.stage("sft"):
            raise ValueError("no rows")
    (run,) = _client(config).search_runs([tracker.experiment_id])
    assert run.info.status == "FAILED" and run.data.tags["tritonrl.error"] == "ValueError: no rows"


def test_registry_candidate_then_champion_only_when_the_metric_improves(config):
    tracker = tracking.Tracker(config)
    run = tracker.start_pipeline("p")
    first = tracking.register_model(config, "file:///models/a", run, {"correct": 0.5, "pass_at_k": {"1": 0.5}}, "correct")
    assert first.aliases == ("candidate", "champion") and first.champion_value is None
    worse = tracking.register_model(config, "file:///models/b", run, {"correct": 0.25}, "correct")
    assert worse.aliases == ("candidate",) and worse.champion_value == 0.5
    assert tracking.registry_aliases(config) == {"candidate": int(worse.version), "champion": int(first.version)}
    better = tracking.register_model(config, "file:///models/c", run, {"correct": 0.75}, "correct")
    assert better.promoted and better.champion_value == 0.5
    assert tracking.resolve_model_uri(config, "models:/tritonrl-coder@champion") == "file:///models/c"
    assert tracking.resolve_model_uri(config, f"models:/tritonrl-coder/{first.version}") == "file:///models/a"
    client = _client(config)
    assert client.get_model_version("tritonrl-coder", better.version).tags["metric.correct"] == "0.75"
    assert client.get_model_version("tritonrl-coder", first.version).tags["metric.pass_at_k.1"] == "0.5"


def test_registering_the_same_model_again_reuses_its_version(config):
    run = tracking.Tracker(config).start_pipeline("p")
    first = tracking.register_model(config, "file:///models/a", run, {"correct": 0.5}, "correct")
    again = tracking.register_model(config, "file:///models/a", run, {"correct": 0.5}, "correct")
    assert again.version == first.version and again.promoted


def test_a_model_without_the_metric_does_not_displace_the_champion(config):
    run = tracking.Tracker(config).start_pipeline("p")
    tracking.register_model(config, "file:///models/a", run, {"correct": 0.5}, "correct")
    assert not tracking.register_model(config, "file:///models/b", run, {}, "correct").promoted


def test_a_model_that_solves_nothing_is_never_champion_and_the_registration_says_why(config):
    run = tracking.Tracker(config).start_pipeline("p")
    zero = tracking.register_model(config, "file:///models/a", run, {"correct": 0.0}, "correct")
    assert zero.aliases == ("candidate",) and "solves nothing" in zero.reason
    assert "champion" not in tracking.registry_aliases(config)
    first = tracking.register_model(config, "file:///models/b", run, {"correct": 0.5}, "correct")
    assert first.promoted and first.reason == "champion: the first model with correct above 0 (0.5)"
    worse = tracking.register_model(config, "file:///models/c", run, {"correct": 0.25}, "correct")
    assert worse.reason == f"not champion: correct = 0.25 does not beat version {first.version}'s 0.5"


def test_unknown_registry_uri_names_the_store_and_what_to_do(config):
    with pytest.raises(tracking.TrackingError, match="run the pipeline first"):
        tracking.resolve_model_uri(config, "models:/tritonrl-coder@champion")
    assert tracking.resolve_model_uri(config, "s3://bucket/run") == "s3://bucket/run"


def test_close_stale_kills_leftover_runs_and_their_descendants_only(config):
    tracker = tracking.Tracker(config)
    dead = tracker.start_pipeline("dead", tags={"k": "v", "who": "dead"})
    tracker.client.create_run(tracker.experiment_id, run_name="sft", tags={"mlflow.parentRunId": dead})
    stage = tracker.client.create_run(tracker.experiment_id, run_name="filter", tags={"mlflow.parentRunId": dead})
    tracker.client.create_run(tracker.experiment_id, run_name="filter-shard-1of2",
                              tags={"mlflow.parentRunId": stage.info.run_id})
    done = tracker.client.create_run(tracker.experiment_id, run_name="filter-shard-2of2",
                                     tags={"mlflow.parentRunId": stage.info.run_id})
    tracker.client.set_terminated(done.info.run_id, status="FINISHED")
    alive = tracker.start_pipeline("alive", tags={"k": "v", "who": "alive"})
    closed = tracker.close_stale("k", "v", lambda run: run.data.tags["who"] == "dead")
    assert closed == [dead]
    client = _client(config)
    statuses = {r.info.run_name: r.info.status for r in client.search_runs([tracker.experiment_id])}
    assert statuses == {"dead": "KILLED", "sft": "KILLED", "filter": "KILLED", "filter-shard-1of2": "KILLED",
                        "filter-shard-2of2": "FINISHED", "alive": "RUNNING"}
    assert alive not in closed


def test_numeric_metrics_flattens_and_skips_non_numbers():
    assert tracking.numeric_metrics({"a": 1, "b": {"c": 0.5, "d": None}, "e": "x", "f": float("nan"), "g": True}) == {
        "a": 1.0, "b.c": 0.5, "g": 1.0
    }


def test_summary_json_is_logged_as_an_artifact(config, tmp_path):
    tracker = tracking.Tracker(config)
    summary = StageSummary("distill", {}, {}, {"samples": 3}, "3 samples")
    with tracker.stage("distill") as run:
        tracking.log_summary(run, summary, reused=True)
    local = _client(config).download_artifacts(run.run_id, "summary.json", str(tmp_path))
    assert json.loads(open(local).read())["line"] == "3 samples"
    assert _client(config).get_run(run.run_id).data.tags[tracking.REUSED_TAG] == "true"


def test_artifacts_go_under_the_artifact_root_not_the_working_directory(config, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tracker = tracking.Tracker(config)
    assert tracker.client.get_experiment(tracker.experiment_id).artifact_location == join(config.artifact_root, "mlflow")
    tracker.start_pipeline("p")
    assert not (tmp_path / "mlruns").exists()
