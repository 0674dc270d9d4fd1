"""MLflow tracking against a real SQLite store: the run tree, datasets, artifacts, the registry's models, stale runs.

Registered models are training outputs holding the project's tiny model,
logged through MLflow's transformers flavour; the slow test loads one back
through MLflow's own API in a fresh process and generates with it.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from mlflow import MlflowClient
from mlflow.entities import LoggedModelStatus
from mlflow.models import Model

from tritonrl import tracking
from tritonrl.artifacts.datasets_io import publish_dataset
from tritonrl.artifacts.store import ArtifactStore, join, local_path, upload_tree
from tritonrl.artifacts.training_output import prepare_output, publish_output
from tritonrl.config import load_config
from tritonrl.evaluation.metrics import compute_metrics, per_problem_rows
from tritonrl.evaluation.report import write_report
from tritonrl.problems import load_problems
from tritonrl.prompts import build_messages
from tritonrl.stages.summary import StageSummary
from tritonrl.training.models import MODEL_DIR, generate, load_model, load_tokenizer, resolve_model_source
from tritonrl.training.tiny_model import ensure_tiny_model

from tests.support.metrics_records import example_records


@pytest.fixture
def config(tritonrl_home):
    config, _ = load_config("tiny")
    return config


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    return ensure_tiny_model(tmp_path_factory.mktemp("models"))


def _client(config):
    return MlflowClient(tracking_uri=config.tracking_uri, registry_uri=config.tracking_uri)


def _trained(config, tiny_model, name: str) -> str:
    """A completed training output holding the tiny model, published as SFT and GRPO publish theirs; its URI."""
    store = ArtifactStore()
    uri = join(config.artifact_root, "checkpoints", name)
    local, work = prepare_output(config, store, uri, RuntimeError)
    shutil.copytree(tiny_model, work / MODEL_DIR)
    publish_output(config, store, uri, local, work, {"stage": "grpo"})
    return uri


def _evaluated(metrics: dict) -> dict[str, dict]:
    """The stage summaries of a pipeline whose final evaluation found `metrics` (and wrote no report)."""
    return {"evaluate": StageSummary("evaluate", {"problems": "builtin"}, {}, metrics, "evaluated").to_dict()}


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


def test_registry_candidate_then_champion_only_when_the_metric_improves(config, tiny_model):
    tracker = tracking.Tracker(config)
    run = tracker.start_pipeline("p")
    a, b, c = (_trained(config, tiny_model, name) for name in "abc")
    first = tracking.register_model(config, a, run, _evaluated({"correct": 0.5, "pass_at_k": {"1": 0.5}}))
    assert first.aliases == ("candidate", "champion") and first.champion_value is None
    worse = tracking.register_model(config, b, run, _evaluated({"correct": 0.25}))
    assert worse.aliases == ("candidate",) and worse.champion_value == 0.5
    assert tracking.registry_aliases(config) == {"candidate": int(worse.version), "champion": int(first.version)}
    better = tracking.register_model(config, c, run, _evaluated({"correct": 0.75}))
    assert better.promoted and better.champion_value == 0.5
    assert tracking.resolve_model_uri(config, "models:/tritonrl-coder@champion") == c
    assert tracking.resolve_model_uri(config, f"models:/tritonrl-coder/{first.version}") == a
    client = _client(config)
    assert client.get_model_version("tritonrl-coder", better.version).tags["metric.correct"] == "0.75"
    assert client.get_model_version("tritonrl-coder", first.version).tags["metric.pass_at_k.1"] == "0.5"


def test_registering_the_same_model_again_reuses_its_version_and_logs_no_second_model(config, tiny_model):
    tracker = tracking.Tracker(config)
    model = _trained(config, tiny_model, "a")
    first = tracking.register_model(config, model, tracker.start_pipeline("p"), _evaluated({"correct": 0.5}))
    resumed = tracker.start_pipeline("resumed")  # every stage reused: the same training output
    again = tracking.register_model(config, model, resumed, _evaluated({"correct": 0.5}))
    assert again.version == first.version and again.source == first.source and again.promoted
    assert len(_client(config).search_logged_models([tracker.experiment_id])) == 1
    assert _client(config).get_run(resumed).data.metrics["correct"] == 0.5  # the resumed run still shows its evaluation


def test_a_model_without_the_metric_does_not_displace_the_champion(config, tiny_model):
    run = tracking.Tracker(config).start_pipeline("p")
    tracking.register_model(config, _trained(config, tiny_model, "a"), run, _evaluated({"correct": 0.5}))
    assert not tracking.register_model(config, _trained(config, tiny_model, "b"), run, _evaluated({})).promoted


def test_a_model_that_solves_nothing_is_never_champion_and_the_registration_says_why(config, tiny_model):
    run = tracking.Tracker(config).start_pipeline("p")
    zero = tracking.register_model(config, _trained(config, tiny_model, "a"), run, _evaluated({"correct": 0.0}))
    assert zero.aliases == ("candidate",) and "solves nothing" in zero.reason
    assert "champion" not in tracking.registry_aliases(config)
    first = tracking.register_model(config, _trained(config, tiny_model, "b"), run, _evaluated({"correct": 0.5}))
    assert first.promoted and first.reason == "champion: the first model with correct above 0 (0.5)"
    worse = tracking.register_model(config, _trained(config, tiny_model, "c"), run, _evaluated({"correct": 0.25}))
    assert worse.reason == f"not champion: correct = 0.25 does not beat version {first.version}'s 0.5"


def test_a_version_is_a_logged_mlflow_model_described_by_its_pipeline_whose_run_has_the_evaluation(config, tiny_model):
    store = ArtifactStore()
    datasets = join(config.artifact_root, "datasets")
    samples = publish_dataset(store, datasets, "distill", [{"a": 1}, {"a": 2}], {"stage": "distill"})
    pairs = publish_dataset(store, datasets, "augment-pairs", [{"a": 1}], {"stage": "augment"})
    sft, model = _trained(config, tiny_model, "sft"), _trained(config, tiny_model, "grpo")
    records = example_records()
    with tempfile.TemporaryDirectory() as tmp:
        write_report(compute_metrics(records), per_problem_rows(records), Path(tmp))
        upload_tree(store, Path(tmp), join(config.artifact_root, "evaluations", "final"))
    overall = {k: v for k, v in compute_metrics(records)["overall"].items() if k != "speedups"}
    summaries = {
        "distill": StageSummary("distill", {"problems": "builtin"}, {"samples": samples.uri}, {"samples": 2},
                                "2 samples (0 failed)", datasets=(samples.uri,)).to_dict(),
        "augment": StageSummary("augment", {"accepted": samples.uri}, {"pairs": pairs.uri}, {"pairs": 1},
                                "1 SFT pairs", datasets=(samples.uri, pairs.uri)).to_dict(),
        "sft": StageSummary("sft", {"pairs": pairs.uri, "base_model": "tiny-local"}, {"output": sft}, {"steps": 2},
                            "2 steps, loss 7.000 → 6.000", datasets=(pairs.uri,), curves={"loss": [(1, 7.0), (2, 6.0)]}).to_dict(),
        "evaluate": StageSummary(
            "evaluate", {"model": model, "problems": "builtin", "compare.base": "tiny-local"},
            {"report": join(config.artifact_root, "evaluations", "final", "report.json")},
            {**overall, "compare": {"base": {"correct": 0.0, "valid": 0.0, "compiled": 0.0, "fast_1": 0.0}}},
            f"correct {overall['correct']:.0%}").to_dict(),
    }
    summaries["augment"]["reused"] = True
    tracker = tracking.Tracker(config)
    parent = tracker.start_pipeline("pipeline")
    registration = tracking.register_model(config, model, parent, summaries)

    client = _client(config)
    version = client.get_model_version("tritonrl-coder", registration.version)
    model_id = version.source.removeprefix("models:/")
    assert version.source == registration.source and model_id.startswith("m-")
    assert version.tags[tracking.SOURCE_TAG] == model and version.run_id == parent
    text = version.description
    assert f"base model `{config.student.base_model}`" in text and model in text
    assert f"| `{pairs.uri.rsplit('/', 1)[1]}` | augment `pairs` | sft | 1 | `sha256-{pairs.digest}` |" in text
    assert f"| `{samples.uri.rsplit('/', 1)[1]}` | distill `samples` | augment | 2 | `sha256-{samples.digest}` |" in text
    assert "| augment | reused: 1 SFT pairs |" in text and "| sft | 2 steps, loss 7.000 → 6.000 |" in text
    assert "| all | 3 | 12 |" in text and "| p1 |" not in text  # the report's level table, not its per-problem one
    assert "| base | 0% | 0% | 0% | 0% |" in text  # the comparison with the base model
    logged = client.get_logged_model(model_id)
    assert logged.status == LoggedModelStatus.READY and logged.source_run_id == parent
    assert {m.key: m.value for m in logged.metrics}["correct"] == overall["correct"]
    run = client.get_run(parent)
    assert run.data.metrics["correct"] == overall["correct"] and "compare.base.correct" not in run.data.metrics
    assert "report/report.md" in {a.path for a in client.list_artifacts(parent, "report")}
    assert [o.model_id for o in run.outputs.model_outputs] == [model_id]

    mlmodel = Model.load(local_path(join(logged.artifact_location, "MLmodel")))
    transformers = mlmodel.flavors["transformers"]
    assert transformers["task"] == "text-generation" and transformers["inference_task"] == "llm/v1/chat"
    assert mlmodel.signature is not None
    assert mlmodel.flavors["python_function"]["config"] == {"max_new_tokens": config.evaluate.max_tokens, "do_sample": False}
    example = json.loads(local_path(join(logged.artifact_location, "input_example.json")).read_text())
    assert example["messages"] == build_messages(load_problems("builtin")[0].source)
    card = local_path(join(logged.artifact_location, "model_card.md")).read_text()
    assert card.strip() == text  # the whole description, never cut


def test_a_description_longer_than_the_registry_keeps_is_cut_between_sections_and_the_card_keeps_it_whole(config, tiny_model):
    summaries = {f"stage-{i}": StageSummary(f"stage-{i}", {}, {}, {}, "x" * 900).to_dict() for i in range(8)}
    summaries.update(_evaluated({"correct": 0.5}))
    registration = tracking.register_model(config, _trained(config, tiny_model, "a"), tracking.Tracker(config).start_pipeline("p"),
                                           summaries)
    text = _client(config).get_model_version("tritonrl-coder", registration.version).description
    assert len(text) <= tracking.DESCRIPTION_LIMIT and text.endswith("the whole description is the model's model_card.md)")
    assert "### Stages" not in text  # the section that did not fit is left out, not cut in the middle
    card = local_path(join(_client(config).get_logged_model(registration.source.removeprefix("models:/")).artifact_location,
                           "model_card.md")).read_text()
    assert card.count("x" * 900) == 8


# Run in a fresh interpreter: what a user of the registry does, knowing only the tracking URI.
LOAD_AND_GENERATE = """
import json, sys
import mlflow.pyfunc, mlflow.transformers
uri, messages = sys.argv[1], json.loads(sys.argv[2])
served = mlflow.pyfunc.load_model(uri).predict({"messages": messages, "max_tokens": 12})[0]
pipeline = mlflow.transformers.load_model(uri)
piped = pipeline(messages, max_new_tokens=12, do_sample=False)[0]["generated_text"][-1]["content"]
print(json.dumps({"served": served["choices"][0]["message"]["content"], "tokens": served["usage"]["completion_tokens"],
                  "piped": piped}))
"""


@pytest.mark.slow
def test_the_champion_loads_through_mlflow_in_a_fresh_process_and_answers_as_the_trained_model(config, tiny_model):
    model = _trained(config, tiny_model, "grpo")
    registration = tracking.register_model(config, model, tracking.Tracker(config).start_pipeline("p"), _evaluated({"correct": 0.5}))
    assert registration.promoted
    messages = build_messages(load_problems("builtin")[0].source)
    env = {**os.environ, "MLFLOW_TRACKING_URI": config.tracking_uri}
    ran = subprocess.run([sys.executable, "-c", LOAD_AND_GENERATE, "models:/tritonrl-coder@champion", json.dumps(messages)],
                         capture_output=True, text=True, timeout=600, env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    answers = json.loads(ran.stdout.strip().splitlines()[-1])
    source = resolve_model_source(model, config.home)
    (own,) = generate(load_model(source), load_tokenizer(source), [messages], max_new_tokens=12)
    assert answers["piped"] == own.text  # greedy, as the evaluation answers
    assert answers["tokens"] == 12 and answers["served"] == own.text.strip()  # the chat answer comes stripped


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
