"""End to end through the stack: `tritonrl stack up`, `tritonrl deploy`, `prefect deployment run tritonrl/full`.

The full flow runs on the `cpu` worker and sends every GPU stage to its
`<stage>/cuda` deployment, picked up by the `cuda` worker; artifacts go to the
stack's S3 endpoint and runs to its MLflow server. Asserts what issue 7's
"Done when" lists: every stage completed, the MLflow parent and stage runs,
logged datasets, a `tritonrl-coder` version with alias `candidate`, the S3
bucket's datasets, checkpoints and report, and the nightly schedule.
Filter and evaluate run in two shards each (scale-out): their shard flow runs
go through `run_deployment` to the `cuda` worker, nest under the stage's
MLflow run, and their shard datasets are merged into the usual outputs.

Slow and integration: starts real servers on loopback; a few minutes on 2 cores.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import boto3
import pytest
from mlflow import MlflowClient

from tritonrl import stack

from tests.support.flows import SMALL, STAGES
from tests.support.paths import REPO

TRITONRL = Path(sys.executable).parent / "tritonrl"
PREFECT = Path(sys.executable).parent / "prefect"
# Two evaluation problems, so each evaluate shard has one; the single filter problem leaves one filter shard empty.
SHARDED = [*SMALL, "shards.filter=2", "shards.evaluate=2", "evaluate.limit=2"]


@pytest.fixture
def running_stack(tritonrl_home, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    up = subprocess.run([str(TRITONRL), "stack", "up"], capture_output=True, text=True, timeout=300)
    try:
        assert up.returncode == 0, up.stderr[-3000:]
        yield stack.read_state()
    finally:
        subprocess.run([str(TRITONRL), "stack", "down"], capture_output=True, text=True, timeout=120)


@pytest.mark.slow
@pytest.mark.integration
def test_full_deployment_through_the_workers(running_stack, tritonrl_home):
    state = running_stack
    status = subprocess.run([str(TRITONRL), "stack", "status"], capture_output=True, text=True, timeout=60)
    assert status.returncode == 0, status.stdout
    assert {line.split()[0] for line in status.stdout.splitlines()} == {"s3", "mlflow", "prefect", "worker-cpu", "worker-cuda"}

    deployed = subprocess.run([str(TRITONRL), "deploy"], capture_output=True, text=True, timeout=300)
    assert deployed.returncode == 0, deployed.stderr[-3000:]
    env = {**os.environ, **stack.environment(state)}
    run = subprocess.run(
        [str(PREFECT), "deployment", "run", "tritonrl/full", "--params", json.dumps({"overrides": SHARDED}), "--watch",
         "--watch-timeout", "900"],
        capture_output=True, text=True, timeout=960, env=env, cwd=REPO,
    )
    assert run.returncode == 0 and "Completed" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]

    client = MlflowClient(state["mlflow_url"], state["mlflow_url"])
    experiment = client.get_experiment_by_name("tritonrl")
    runs = client.search_runs([experiment.experiment_id])
    (parent,) = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert parent.info.status == "FINISHED"
    children = {r.info.run_name: r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id}
    assert set(children) == STAGES and all(r.info.status == "FINISHED" for r in children.values())
    logged = {d.dataset.name.rsplit("-", 1)[0] for r in children.values() for d in r.inputs.dataset_inputs}
    assert logged == {"distill", "filter-accepted", "filter-rejected", "augment-pairs", "augment-tasks"}
    version = client.get_model_version_by_alias("tritonrl-coder", "candidate")
    assert version.source.startswith("s3://tritonrl/artifacts/checkpoints/grpo-")
    assert "report/report.md" in [a.path for a in client.list_artifacts(children["evaluate"].info.run_id, "report")]
    assert children["evaluate"].data.metrics["shards"] == 2.0 and children["evaluate"].data.metrics["samples"] == 2.0
    for stage in ("filter", "evaluate"):
        shard_runs = {r.info.run_name: r.info.status for r in runs
                      if r.data.tags.get("mlflow.parentRunId") == children[stage].info.run_id}
        assert shard_runs == {f"{stage}-shard-1of2": "FINISHED", f"{stage}-shard-2of2": "FINISHED"}
        listed = subprocess.run([str(PREFECT), "flow-run", "ls", "--flow-name", f"{stage}-shard", "-o", "json"],
                                capture_output=True, text=True, timeout=120, env=env)
        assert listed.returncode == 0, listed.stderr[-2000:]
        shard_flow_runs = json.loads(listed.stdout)
        assert sorted(r["name"] for r in shard_flow_runs) == [f"{stage}-shard-1of2", f"{stage}-shard-2of2"]
        assert all(r["work_pool_name"] == "cuda" and r["state"]["type"] == "COMPLETED" for r in shard_flow_runs)

    s3 = boto3.client("s3", endpoint_url=state["s3_endpoint_url"], region_name="us-east-1",
                      aws_access_key_id=stack.S3_ENV["AWS_ACCESS_KEY_ID"],
                      aws_secret_access_key=stack.S3_ENV["AWS_SECRET_ACCESS_KEY"])
    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket="tritonrl")
            for o in page.get("Contents", [])]
    datasets = {k.split("/")[2].rsplit("-", 1)[0] for k in keys if k.startswith("artifacts/datasets/") and k.endswith("manifest.json")}
    assert datasets == {"distill", "filter-accepted", "filter-rejected", "augment-pairs", "augment-tasks"}
    assert any(k.startswith("artifacts/checkpoints/sft-") and k.endswith("/model/config.json") for k in keys)
    assert f"{version.source.removeprefix('s3://tritonrl/')}/manifest.json" in keys
    assert any(k.startswith("artifacts/evaluations/") and k.endswith("/report.json") for k in keys)
    shard_manifests = [k.split("/")[2:4] for k in keys if k.startswith("artifacts/shards/") and k.endswith("manifest.json")]
    assert sorted((stage.rsplit("-", 1)[0], shard.rsplit("-", 1)[0]) for stage, shard in shard_manifests) == [
        ("evaluate", "shard-1of2"), ("evaluate", "shard-2of2"), ("filter", "shard-1of2"), ("filter", "shard-2of2")]
    assert any(k.startswith("mlflow/") for k in keys), "MLflow artifacts belong in the bucket"

    nightly = subprocess.run([str(PREFECT), "deployment", "inspect", "nightly-evaluation/nightly"],
                             capture_output=True, text=True, timeout=120, env=env)
    assert nightly.returncode == 0, nightly.stderr[-2000:]
    assert "'cron': '0 2 * * *'" in nightly.stdout and "'timezone': 'UTC'" in nightly.stdout


def test_deploy_without_a_checkout_says_which_variable_to_set(tritonrl_home, monkeypatch, tmp_path):
    """An installed wheel has no infra/prefect.yaml: the stack still runs, deploy names TRITONRL_REPO."""
    assert stack.checkout() == REPO
    monkeypatch.setenv("TRITONRL_REPO", str(tmp_path))
    assert stack.checkout() is None and "TRITONRL_REPO" not in stack.environment(
        {"prefect_api_url": "", "s3_endpoint_url": "", "config_file": ""})
    stack.stack_dir().mkdir(parents=True)
    (stack.stack_dir() / "state.json").write_text(json.dumps({"services": [{"name": "me", "pid": os.getpid(), "log": "", "health": ""}]}))
    with pytest.raises(stack.StackError, match="set TRITONRL_REPO"):
        stack.deploy()
