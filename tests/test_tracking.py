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

pytestmark = pytest.mark.xdist_group(__name__)  # one pytest worker builds this module's fixtures


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
    source = publish_dataset(
        store, join(config.artifact_root, "datasets"), "distill", [{"a": 1}, {"a": 2}], {"stage": "distill"}
    )
    out = publish_dataset(
        store, join(config.artifact_root, "datasets"), "filter-accepted", [{"a": 1}], {"stage": "filter"}
    )
    tracker = tracking.Tracker(config)
    parent = tracker.start_pipeline("pipeline-test")
    summary = StageSummary(
        "filter",
        {"samples": source.uri},
        {"accepted": out.uri},
        {"samples": 2, "accepted": 1, "acceptance_rate": 0.5, "rejected_by_reason": {"static": 1}},
        "1/2 accepted",
        datasets=(source.uri, out.uri),
        curves={"loss": [(1, 2.0), (2, 1.5)]},
    )
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
        "distill": StageSummary(
            "distill",
            {"problems": "builtin"},
            {"samples": samples.uri},
            {"samples": 2},
            "2 samples (0 failed)",
            datasets=(samples.uri,),
        ).to_dict(),
        "augment": StageSummary(
            "augment",
            {"accepted": samples.uri},
            {"pairs": pairs.uri},
            {"pairs": 1},
            "1 SFT pairs",
            datasets=(samples.uri, pairs.uri),
        ).to_dict(),
        "sft": StageSummary(
            "sft",
            {"pairs": pairs.uri, "base_model": "tiny-local"},
            {"output": sft},
            {"steps": 2},
            "2 steps, loss 7.000 → 6.000",
            datasets=(pairs.uri,),
            curves={"loss": [(1, 7.0), (2, 6.0)]},
        ).to_dict(),
        "evaluate": StageSummary(
            "evaluate",
            {"model": model, "problems": "builtin", "compare.base": "tiny-local"},
            {"report": join(config.artifact_root, "evaluations", "final", "report.json")},
            {**overall, "compare": {"base": {"correct": 0.0, "valid": 0.0, "compiled": 0.0, "fast_1": 0.0}}},
            f"correct {overall['correct']:.0%}",
        ).to_dict(),
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
    assert (
        f"| `{samples.uri.rsplit('/', 1)[1]}` | distill `samples` | augment | 2 | `sha256-{samples.digest}` |" in text
    )
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
    assert mlmodel.flavors["python_function"]["config"] == {
        "max_new_tokens": config.evaluate.max_tokens,
        "do_sample": False,
    }
    example = json.loads(local_path(join(logged.artifact_location, "input_example.json")).read_text())
    assert example["messages"] == build_messages(load_problems("builtin")[0].source)
    card = local_path(join(logged.artifact_location, "model_card.md")).read_text()
    assert card.strip() == text  # the whole description, never cut


def test_a_description_longer_than_the_registry_keeps_is_cut_between_sections_and_the_card_keeps_it_whole(
    config, tiny_model
):
    summaries = {f"stage-{i}": StageSummary(f"stage-{i}", {}, {}, {}, "x" * 900).to_dict() for i in range(8)}
    summaries.update(_evaluated({"correct": 0.5}))
    registration = tracking.register_model(
        config, _trained(config, tiny_model, "a"), tracking.Tracker(config).start_pipeline("p"), summaries
    )
    text = _client(config).get_model_version("tritonrl-coder", registration.version).description
    assert len(text) <= tracking.DESCRIPTION_LIMIT and text.endswith(
        "the whole description is the model's model_card.md)"
    )
    assert "### Stages" not in text  # the section that did not fit is left out, not cut in the middle
    card = local_path(
        join(
            _client(config).get_logged_model(registration.source.removeprefix("models:/")).artifact_location,
            "model_card.md",
        )
    ).read_text()
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
    registration = tracking.register_model(
        config, model, tracking.Tracker(config).start_pipeline("p"), _evaluated({"correct": 0.5})
    )
    assert registration.promoted
    messages = build_messages(load_problems("builtin")[0].source)
    env = {**os.environ, "MLFLOW_TRACKING_URI": config.tracking_uri}
    ran = subprocess.run(
        [sys.executable, "-c", LOAD_AND_GENERATE, "models:/tritonrl-coder@champion", json.dumps(messages)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
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
    tracker.client.create_run(
        tracker.experiment_id, run_name="filter-shard-1of2", tags={"mlflow.parentRunId": stage.info.run_id}
    )
    done = tracker.client.create_run(
        tracker.experiment_id, run_name="filter-shard-2of2", tags={"mlflow.parentRunId": stage.info.run_id}
    )
    tracker.client.set_terminated(done.info.run_id, status="FINISHED")
    alive = tracker.start_pipeline("alive", tags={"k": "v", "who": "alive"})
    closed = tracker.close_stale("k", "v", lambda run: run.data.tags["who"] == "dead")
    assert closed == [dead]
    client = _client(config)
    statuses = {r.info.run_name: r.info.status for r in client.search_runs([tracker.experiment_id])}
    assert statuses == {
        "dead": "KILLED",
        "sft": "KILLED",
        "filter": "KILLED",
        "filter-shard-1of2": "KILLED",
        "filter-shard-2of2": "FINISHED",
        "alive": "RUNNING",
    }
    assert alive not in closed


def test_numeric_metrics_flattens_and_skips_non_numbers():
    assert tracking.numeric_metrics({"a": 1, "b": {"c": 0.5, "d": None}, "e": "x", "f": float("nan"), "g": True}) == {
        "a": 1.0,
        "b.c": 0.5,
        "g": 1.0,
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
    assert tracker.client.get_experiment(tracker.experiment_id).artifact_location == join(
        config.artifact_root, "mlflow"
    )
    tracker.start_pipeline("p")
    assert not (tmp_path / "mlruns").exists()


def test_the_logged_model_knows_its_registered_version_and_runs_say_where_they_came_from(config, tiny_model):
    """Registered through MLflow's own path: the logged model's page lists the version."""
    tracker = tracking.Tracker(config)
    parent = tracker.start_pipeline("p")
    registration = tracking.register_model(
        config, _trained(config, tiny_model, "a"), parent, _evaluated({"correct": 0.5})
    )
    client = _client(config)
    model_id = registration.source.removeprefix("models:/")
    logged = client.get_logged_model(model_id)
    assert json.loads(logged.tags["mlflow.modelVersions"]) == [
        {"name": "tritonrl-coder", "version": int(registration.version)}
    ]
    (version,) = client.search_model_versions(f"name = 'tritonrl-coder' and run_id = '{parent}'")
    assert (
        str(version.version) == registration.version
        and version.run_id == parent
        and version.source == registration.source
    )
    assert version.description.startswith("TritonRL student trained by pipeline run")
    with tracker.stage("sft", parent) as stage:
        pass
    for run_id in (parent, stage.run_id):
        tags = client.get_run(run_id).data.tags
        assert tags["mlflow.source.type"] == "LOCAL" and tags["mlflow.source.name"] and tags["mlflow.user"]
        if (Path(tracking.__file__).resolve().parents[1] / ".git").exists():
            assert len(tags["mlflow.source.git.commit"]) == 40


def test_a_registry_lookup_from_another_directory_follows_mlflow_tracking_uri_and_creates_nothing(
    config, tiny_model, tmp_path, monkeypatch
):
    """As docs/OPERATIONS.md says: export MLFLOW_TRACKING_URI, then ask for the champion from anywhere."""
    model = _trained(config, tiny_model, "a")
    tracking.register_model(config, model, tracking.Tracker(config).start_pipeline("p"), _evaluated({"correct": 0.5}))
    store = config.tracking_uri
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    monkeypatch.delenv("TRITONRL_HOME")  # the default home: ./.tritonrl of this other directory
    monkeypatch.setenv("MLFLOW_TRACKING_URI", store)
    here, _ = load_config("tiny")
    assert here.tracking_uri == store and here.registry_uri == store
    assert tracking.resolve_model_uri(here, "models:/tritonrl-coder@champion") == model
    assert tracking.registry_aliases(here) == {"candidate": 1, "champion": 1}
    assert not (elsewhere / ".tritonrl").exists()

    monkeypatch.delenv("MLFLOW_TRACKING_URI")
    with pytest.raises(
        tracking.TrackingError, match=r"no MLflow database at .*elsewhere/\.tritonrl/mlflow\.db.*MLFLOW_TRACKING_URI"
    ):
        tracking.resolve_model_uri(load_config("tiny")[0], "models:/tritonrl-coder@champion")
    assert tracking.registry_aliases(load_config("tiny")[0]) == {}
    assert not (elsewhere / ".tritonrl").exists()  # a lookup never creates a database

    monkeypatch.setenv("MLFLOW_REGISTRY_URI", store)  # MLflow's registry variable alone also finds it
    assert tracking.resolve_model_uri(load_config("tiny")[0], "models:/tritonrl-coder/1") == model
    assert not (elsewhere / ".tritonrl").exists()
    # An explicit tracking.tracking_uri still wins over MLFLOW_TRACKING_URI, as mlflow.set_tracking_uri does.
    monkeypatch.setenv("MLFLOW_TRACKING_URI", "sqlite:////nowhere/mlflow.db")
    assert load_config("tiny", overrides=[f"tracking.tracking_uri={store}"])[0].tracking_uri == store


def test_a_lookup_in_a_file_store_that_is_not_there_or_a_server_that_does_not_answer_is_one_error_creating_nothing(
    tritonrl_home, tmp_path, monkeypatch
):
    """MLFLOW_TRACKING_URI may name any MLflow store: a missing file store was created by the lookup, a file store MLflow
    refuses gave a traceback, and a stopped server (the stack's, still exported) hung for minutes of retries."""
    from tritonrl.stack import free_port

    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")  # without the check: MLflow's error at once, not minutes
    missing = tmp_path / "nowhere" / "mlruns"
    monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # as a user of an old file store would have it
    for uri in (missing.as_uri(), str(missing)):
        monkeypatch.setenv("MLFLOW_TRACKING_URI", uri)
        with pytest.raises(tracking.TrackingError, match=rf"no MLflow store at {missing} .*MLFLOW_TRACKING_URI"):
            tracking.resolve_model_uri(load_config("tiny")[0], "models:/tritonrl-coder@champion")
        assert not (tmp_path / "nowhere").exists()
    missing.mkdir(parents=True)
    monkeypatch.delenv("MLFLOW_ALLOW_FILE_STORE")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", missing.as_uri())
    with pytest.raises(tracking.TrackingError, match=rf"MLflow cannot open {missing.as_uri()}: .*file"):
        tracking.resolve_model_uri(load_config("tiny")[0], "models:/tritonrl-coder@champion")
    stopped = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("MLFLOW_TRACKING_URI", stopped)
    with pytest.raises(tracking.TrackingError, match=rf"no MLflow server answers at {stopped} .*tritonrl stack up"):
        tracking.resolve_model_uri(load_config("tiny")[0], "models:/tritonrl-coder@champion")
    assert not tritonrl_home.exists()


@pytest.mark.slow
def test_the_generate_command_finds_the_champion_from_another_directory_through_mlflow_tracking_uri(
    config, tiny_model, tmp_path
):
    """The user's command, in a process of its own started in another directory with only the variable set."""
    tracking.register_model(
        config,
        _trained(config, tiny_model, "a"),
        tracking.Tracker(config).start_pipeline("p"),
        _evaluated({"correct": 0.5}),
    )
    problem = tmp_path / "relu.py"
    problem.write_text(load_problems("builtin")[0].source)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TRITONRL_HOME"} | {"MLFLOW_TRACKING_URI": config.tracking_uri}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tritonrl.cli",
            "generate",
            "--model",
            "models:/tritonrl-coder@champion",
            "--problem",
            str(problem),
            "--set",
            "evaluate.max_tokens=4",
            "--set",
            "verify.trials=1",
        ],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    # The tiny model writes no kernel in 4 tokens: the verifier's refusal (exit 1), not "not in the registry" (exit 2).
    assert done.returncode == 1 and "no kernel: the verifier rejected its answer" in done.stderr, done.stderr[-3000:]
    assert not (elsewhere / ".tritonrl" / "mlflow.db").exists()


def test_an_unknown_alias_or_version_lists_what_the_registry_has_instead_of_asking_for_a_pipeline_run(
    config, tiny_model
):
    run = tracking.Tracker(config).start_pipeline("p")
    tracking.register_model(config, _trained(config, tiny_model, "a"), run, _evaluated({"correct": 0.5}))
    with pytest.raises(tracking.TrackingError) as unknown:
        tracking.resolve_model_uri(config, "models:/tritonrl-coder@champoin")
    message = str(unknown.value)
    assert "has no alias 'champoin'" in message and "candidate (version 1), champion (version 1)" in message
    assert "run the pipeline first" not in message
    with pytest.raises(tracking.TrackingError, match=r"has no such version; its versions: 1 "):
        tracking.resolve_model_uri(config, "models:/tritonrl-coder/7")
    with pytest.raises(tracking.TrackingError, match=r"has no model named 'other'; it has tritonrl-coder"):
        tracking.resolve_model_uri(config, "models:/other@champion")


def test_the_description_metrics_and_reports_carry_the_evaluation_at_the_problems_own_shapes_too(config, tiny_model):
    """At held-out shapes the registry once said 94% while the champion failed a problem at its own shapes."""
    store = ArtifactStore()
    records = example_records()
    own = [{**record, "correct": False} for record in records]  # the same model, worse at the problems' own shapes
    reports = {}
    for name, rows in (("held-out", records), ("own", own)):
        with tempfile.TemporaryDirectory() as tmp:
            write_report(compute_metrics(rows), per_problem_rows(rows), Path(tmp))
            upload_tree(store, Path(tmp), join(config.artifact_root, "evaluations", name))
        reports[name] = join(config.artifact_root, "evaluations", name, "report.json")
    overall = {k: v for k, v in compute_metrics(records)["overall"].items() if k != "speedups"}
    own_overall = {k: v for k, v in compute_metrics(own)["overall"].items() if k != "speedups"}
    model = _trained(config, tiny_model, "grpo")
    summaries = {
        "evaluate": StageSummary(
            "evaluate",
            {"model": model, "problems": "builtin"},
            {"report": reports["held-out"], "report.original_shapes": reports["own"]},
            {**overall, "original_shapes": own_overall},
            "evaluated",
        ).to_dict()
    }
    parent = tracking.Tracker(config).start_pipeline("pipeline")
    registration = tracking.register_model(config, model, parent, summaries)

    client = _client(config)
    version = client.get_model_version("tritonrl-coder", registration.version)
    text = version.description
    assert "problems at held-out shapes (no training prompt has them)" in text
    held_out, own_shapes = text.split("### The same model at the problems' own shapes (as `tritonrl generate` asks)")
    assert f"| all | 3 | 12 | {100 * overall['valid']:.1f}%" in held_out
    assert "| all | 3 | 12 |" in own_shapes and "| 0.0% |" in own_shapes
    assert version.tags["metric.original_shapes.correct"] == "0.0" and version.tags["metric.correct"] == repr(
        overall["correct"]
    )
    metrics = client.get_run(parent).data.metrics
    assert metrics["correct"] == overall["correct"] and metrics["original_shapes.correct"] == 0.0
    artifacts = {a.path for a in client.list_artifacts(parent, "report-original-shapes")}
    assert "report-original-shapes/report.md" in artifacts
    assert registration.value == overall["correct"]  # the held-out evaluation still decides champion
