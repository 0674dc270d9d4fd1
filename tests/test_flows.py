"""The full flow through `tritonrl run`: kill it in the middle of SFT, rerun, and the finished stages are reused.

Also checks what a user would look for afterwards: every stage's summary
line, the suite check's one report, the datasets, a coherent MLflow run
tree (the killed run closed as KILLED, the rerun's parent with all seven
stage runs, reused ones tagged), the logged datasets, the registered model
with its aliases, no half-written training output published; then the
nightly evaluation flow on the registered model.

Slow: two pipeline runs on tiny settings, a few minutes on 2 cores.
"""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mlflow import MlflowClient

from tritonrl.stages.registry import STAGES
from tritonrl.config import load_config

from tests.support.flows import SMALL
from tests.support.paths import REPO
from tests.support.processes import processes_left

TRITONRL = Path(sys.executable).parent / "tritonrl"


@pytest.fixture
def env(tritonrl_home, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    (tritonrl_home / "prefect").mkdir(parents=True)  # the temporary server's database goes there
    monkeypatch.setenv("PREFECT_HOME", str(tritonrl_home / "prefect"))
    return {**os.environ}


def _run_command():
    return [str(TRITONRL), "run", "--profile", "tiny", *(a for item in SMALL for a in ("--set", item))]


def _kill_when(log: Path, proc: subprocess.Popen, marker: str, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while marker not in log.read_text(errors="replace"):
        assert proc.poll() is None, f"the run ended before {marker!r}:\n{log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"no {marker!r} within {timeout_s}s:\n{log.read_text()[-3000:]}"
        time.sleep(0.5)
    time.sleep(2)  # into the stage: its torchrun worker is starting
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()  # reaped, so the rerun sees the process gone


@pytest.mark.slow
def test_killed_mid_sft_then_rerun_reuses_finished_stages(env, tritonrl_home, tmp_path):
    log = tmp_path / "first.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            _run_command(), cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        _kill_when(log, proc, "torch.distributed.run", timeout_s=400)
    checkpoints = tritonrl_home / "artifacts" / "checkpoints"
    assert not list(checkpoints.glob("*/manifest.json")), "a killed SFT run must not publish a complete output"
    assert processes_left(tritonrl_home) == []  # its Prefect server and training launcher died with it

    second = subprocess.run(_run_command(), cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr[-4000:]
    output = second.stdout + second.stderr
    for stage in ("suite-check", "distill", "filter", "augment"):
        assert f"stage {stage}: reused:" in output, stage
    for stage in ("sft", "grpo", "evaluate"):
        assert f"stage {stage}: reused:" not in output, stage
    assert "2/2 reference checks correct" in output and "1/1 accepted (100%)" in output and "2 steps, loss" in output
    assert "registered:   models:/tritonrl-coder@candidate" in output
    assert "promotion:    not champion: correct = 0; a model that solves nothing is never promoted" in output
    assert "learning (the same evaluation for each model):" in output  # base, sft and grpo rows follow
    assert "mlflow ui --backend-store-uri sqlite:///" in output
    assert "; at the problems' own shapes: correct 0% of 1 answers" in output  # held-out shapes, then the problem's own
    (sft_output,) = [p.parent for p in checkpoints.glob("sft-*/manifest.json")]
    assert (sft_output / "model" / "config.json").is_file()
    (suite_report,) = (tritonrl_home / "artifacts" / "suite-check").glob("*/report.json")
    report = json.loads(suite_report.read_text())
    assert (
        report["checked"] == 2 and report["correct"] == 2
    )  # the problem's reference at its own and its alternate shapes
    assert (suite_report.parent / "config.yaml").is_file()
    datasets = sorted(p.name.rsplit("-", 1)[0] for p in (tritonrl_home / "artifacts" / "datasets").iterdir())
    assert datasets == ["augment-pairs", "augment-tasks", "distill", "filter-accepted", "filter-rejected"]

    config, _ = load_config("tiny", None, SMALL)
    client = MlflowClient(config.tracking_uri, config.tracking_uri)
    experiment = client.get_experiment_by_name("tritonrl")
    runs = client.search_runs([experiment.experiment_id])
    parents = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert sorted(r.info.status for r in parents) == ["FINISHED", "KILLED"]
    (killed,) = [r for r in parents if r.info.status == "KILLED"]
    (finished,) = [r for r in parents if r.info.status == "FINISHED"]
    assert finished.data.tags["tritonrl.resumed_after"] == killed.info.run_id
    children = {r.info.run_name: r for r in runs if r.data.tags.get("mlflow.parentRunId") == finished.info.run_id}
    assert set(children) == set(STAGES)
    assert all(r.info.status == "FINISHED" for r in children.values())
    reused = {name for name, r in children.items() if r.data.tags["tritonrl.reused"] == "true"}
    assert reused == {"suite-check", "distill", "filter", "augment"}
    killed_children = [r for r in runs if r.data.tags.get("mlflow.parentRunId") == killed.info.run_id]
    assert {r.info.run_name: r.info.status for r in killed_children}["sft"] == "KILLED"
    datasets = {
        (d.dataset.name.rsplit("-", 1)[0], t.value) for d in children["filter"].inputs.dataset_inputs for t in d.tags
    }
    assert datasets == {("distill", "input"), ("filter-accepted", "output"), ("filter-rejected", "output")}
    assert children["sft"].data.metrics["steps"] == 2.0
    report = [a.path for a in client.list_artifacts(children["evaluate"].info.run_id, "report")]
    assert "report/report.md" in report and "report/responses.jsonl" in report
    assert {"base.correct", "sft.correct", "grpo.correct", "original_shapes.correct"} <= set(finished.data.metrics)
    assert "report-original-shapes/report.md" in [
        a.path for a in client.list_artifacts(finished.info.run_id, "report-original-shapes")
    ]
    assert all(
        r.data.tags["mlflow.source.name"].startswith("tritonrl run --profile tiny") and r.data.tags["mlflow.user"]
        for r in [finished, *children.values()]
    )
    assert [a.path for a in client.list_artifacts(finished.info.run_id, "learning")] == [
        "learning/learning.md",
        "learning/learning.png",
    ]

    version = client.get_model_version_by_alias("tritonrl-coder", "candidate")
    assert version.source.startswith("models:/m-")  # a logged MLflow model; its tag names the training output
    assert version.tags["tritonrl.model_uri"].startswith(
        (tritonrl_home / "artifacts" / "checkpoints").as_uri() + "/grpo-"
    )
    assert version.run_id == finished.info.run_id and "correct" in finished.data.metrics
    assert "metric.correct" in version.tags and "metric.original_shapes.correct" in version.tags
    assert "### The same model at the problems' own shapes" in version.description
    logged = client.get_logged_model(version.source.removeprefix("models:/"))
    assert json.loads(logged.tags["mlflow.modelVersions"]) == [
        {"name": "tritonrl-coder", "version": int(version.version)}
    ]

    from flows.nightly import nightly_evaluation_flow

    # In this process, like the flow tests below, which then find its temporary Prefect server running.
    result = nightly_evaluation_flow(overrides=SMALL)
    assert "champion" not in result and result["candidate"]["version"] == str(
        version.version
    )  # nothing solved: no champion
    tagged = client.get_model_version("tritonrl-coder", version.version).tags
    assert tagged["nightly.correct"] == repr(float(result["candidate"]["metrics"]["correct"]))


@pytest.mark.slow
def test_a_cached_stage_whose_output_was_deleted_is_recomputed(env):
    import shutil

    from flows.stages import distill_flow

    overrides = ["problems.limit=1", "teacher.samples_per_task=1"]
    first = distill_flow(overrides=overrides)
    assert first["reused"] is False
    again = distill_flow(overrides=overrides)
    assert again["reused"] is True and again["outputs"] == first["outputs"]
    dataset = Path(first["outputs"]["samples"].removeprefix("file://"))
    shutil.rmtree(dataset)
    third = distill_flow(overrides=overrides)
    assert third["reused"] is False and (dataset / "manifest.json").is_file()
    changed = distill_flow(overrides=[*overrides, "teacher.samples_per_task=2"])
    assert changed["reused"] is False and changed["metrics"]["samples"] == 2


@pytest.mark.slow
def test_a_sharded_filter_runs_its_shards_in_process_nested_under_the_stage_run(env):
    from flows.stages import PipelineRunFailed, distill_flow, filter_flow

    overrides = ["problems.limit=2", "teacher.samples_per_task=1", "verify.trials=1", "shards.filter=2"]
    samples = distill_flow(overrides=overrides)["outputs"]["samples"]
    first = filter_flow(samples=samples, overrides=overrides)
    assert first["metrics"]["shards"] == 2 and first["metrics"]["accepted"] == 2 and not first["reused"]
    assert [s["line"].split(":")[0] for s in first["shards"]] == ["shard 1/2", "shard 2/2"]
    again = filter_flow(samples=samples, overrides=overrides)
    assert again["reused"] and all(s["reused"] for s in again["shards"]) and again["outputs"] == first["outputs"]

    config, _ = load_config("tiny", None, overrides)
    client = MlflowClient(config.tracking_uri, config.tracking_uri)
    runs = client.search_runs([client.get_experiment_by_name("tritonrl").experiment_id])
    stage_runs = [r for r in runs if r.info.run_name == "filter"]
    assert len(stage_runs) == 2
    for stage_run in stage_runs:
        shard_runs = {
            r.info.run_name: r.info.status
            for r in runs
            if r.data.tags.get("mlflow.parentRunId") == stage_run.info.run_id
        }
        assert shard_runs == {"filter-shard-1of2": "FINISHED", "filter-shard-2of2": "FINISHED"}

    with pytest.raises(
        PipelineRunFailed, match=r"stage filter: shard 1/2 failed \(DatasetError.*finished shards are reused"
    ):
        filter_flow(samples=samples.replace("distill-", "distill-gone-"), overrides=overrides)
