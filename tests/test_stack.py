"""End to end through the stack: `tritonrl stack up`, `tritonrl deploy`, `prefect deployment run tritonrl/full`.

The full flow runs on the `cpu` worker and sends every GPU stage to its
`<stage>/cuda` deployment, picked up by the `cuda` worker; artifacts go to the
stack's S3 endpoint and runs to its MLflow server. Asserts what a user of
the stack relies on: every stage completed, the MLflow parent and stage runs,
logged datasets, a `tritonrl-coder` version with alias `candidate`, the S3
bucket's datasets, checkpoints and report, and the nightly schedule.
Filter and evaluate run in two shards each (scale-out): their shard flow runs
go through `run_deployment` to the `cuda` worker, nest under the stage's
MLflow run, and their shard datasets are merged into the usual outputs.

Slow and integration: starts real servers on loopback; a few minutes on 2 cores.
"""

import importlib
import json
import os
import shutil
import subprocess
import sys
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import boto3
import pytest
import yaml
from mlflow import MlflowClient
from typer.testing import CliRunner

from tritonrl import stack
from tritonrl.stages.registry import STAGES
from tritonrl.cli import app

from tests.support.flows import SMALL
from tests.support.paths import REPO

pytestmark = pytest.mark.xdist_group(__name__)  # one pytest worker builds this module's fixtures

TRITONRL = Path(sys.executable).parent / "tritonrl"
PREFECT = Path(sys.executable).parent / "prefect"
# Two evaluation problems, so each evaluate shard has one; the single filter problem leaves one filter shard empty.
SHARDED = [*SMALL, "shards.filter=2", "shards.evaluate=2", "evaluate.limit=2"]
# Logs the Prefect server's heartbeat error twice, as the server does, through Prefect's logging set-up: once for SQLite's
# write lock held by another connection, once for another failure.
HEARTBEAT_ERRORS = """
import logging, sqlite3, sys
from prefect.logging.configuration import setup_logging
setup_logging()
holder = sqlite3.connect(sys.argv[1], isolation_level=None)
holder.execute("create table t (x)")
holder.execute("begin immediate")
logger = logging.getLogger("prefect.server.utilities.worker_channel")
for fail in (lambda: sqlite3.connect(sys.argv[1], timeout=0).execute("insert into t values (1)"), lambda: 1 / 0):
    try:
        fail()
    except Exception:
        logger.exception("Worker channel heartbeat persistence failed: work_pool=%s worker_name=%s", "cpu", "w")
"""
BROWSER = next(filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None)


@pytest.fixture(scope="module")
def deployed_stack(tmp_path_factory):
    """One stack for this module (starting one takes ~1 min on 2 cores), infra/prefect.yaml applied; its environment
    and `tritonrl deploy`'s output."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    env["TRITONRL_HOME"] = str(tmp_path_factory.mktemp("stack-home"))
    up = subprocess.run([str(TRITONRL), "stack", "up"], capture_output=True, text=True, timeout=300, env=env)
    try:
        assert up.returncode == 0, up.stderr[-3000:]
        deployed = subprocess.run([str(TRITONRL), "deploy"], capture_output=True, text=True, timeout=300, env=env)
        assert deployed.returncode == 0, deployed.stderr[-3000:]
        yield env, deployed.stdout
    finally:
        subprocess.run([str(TRITONRL), "stack", "down"], capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture
def running_stack(deployed_stack, monkeypatch):
    """The module's stack, seen from this process: its state, and `tritonrl deploy`'s output."""
    env, deploy_output = deployed_stack
    monkeypatch.setenv("TRITONRL_HOME", env["TRITONRL_HOME"])
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    return stack.read_state(), deploy_output


def _declared() -> dict[tuple[str, str], dict]:
    """infra/prefect.yaml's deployments by (flow name, deployment name), as Prefect and its UI name them."""
    deployments = {}
    for deployment in yaml.safe_load((REPO / "infra" / "prefect.yaml").read_text())["deployments"]:
        path, function = deployment["entrypoint"].split(":")
        flow = getattr(importlib.import_module(path.removesuffix(".py").replace("/", ".")), function)
        deployments[flow.name, deployment["name"]] = deployment
    return deployments


def _api(state: dict, path: str) -> list[dict]:
    request = urllib.request.Request(
        f"{state['prefect_api_url']}/{path}", data=b"{}", method="POST", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


@pytest.mark.slow
@pytest.mark.integration
def test_full_deployment_through_the_workers(running_stack):
    state, _ = running_stack
    status = subprocess.run([str(TRITONRL), "stack", "status"], capture_output=True, text=True, timeout=60)
    assert status.returncode == 0, status.stdout
    assert {line.split()[0] for line in status.stdout.splitlines()} == {
        "s3",
        "mlflow",
        "prefect",
        "worker-cpu",
        "worker-cuda",
    }

    env = {**os.environ, **stack.environment(state)}
    run = subprocess.run(
        [
            str(PREFECT),
            "deployment",
            "run",
            "tritonrl/full",
            "--params",
            json.dumps({"overrides": SHARDED}),
            "--watch",
            "--watch-timeout",
            "900",
        ],
        capture_output=True,
        text=True,
        timeout=960,
        env=env,
        cwd=REPO,
    )
    assert run.returncode == 0 and "Completed" in run.stdout, run.stdout[-3000:] + run.stderr[-3000:]

    client = MlflowClient(state["mlflow_url"], state["mlflow_url"])
    experiment = client.get_experiment_by_name("tritonrl")
    runs = client.search_runs([experiment.experiment_id])
    (parent,) = [r for r in runs if "mlflow.parentRunId" not in r.data.tags]
    assert parent.info.status == "FINISHED"
    children = {r.info.run_name: r for r in runs if r.data.tags.get("mlflow.parentRunId") == parent.info.run_id}
    assert set(children) == set(STAGES) and all(r.info.status == "FINISHED" for r in children.values())
    logged = {d.dataset.name.rsplit("-", 1)[0] for r in children.values() for d in r.inputs.dataset_inputs}
    assert logged == {"distill", "filter-accepted", "filter-rejected", "augment-pairs", "augment-tasks"}
    version = client.get_model_version_by_alias("tritonrl-coder", "candidate")
    trained = version.tags["tritonrl.model_uri"]  # the training output the version's MLflow model was logged from
    assert version.source.startswith("models:/m-") and trained.startswith("s3://tritonrl/artifacts/checkpoints/grpo-")
    assert "report/report.md" in [a.path for a in client.list_artifacts(children["evaluate"].info.run_id, "report")]
    assert children["evaluate"].data.metrics["shards"] == 2.0 and children["evaluate"].data.metrics["samples"] == 2.0
    for stage in ("filter", "evaluate"):
        shard_runs = {
            r.info.run_name: r.info.status
            for r in runs
            if r.data.tags.get("mlflow.parentRunId") == children[stage].info.run_id
        }
        assert shard_runs == {f"{stage}-shard-1of2": "FINISHED", f"{stage}-shard-2of2": "FINISHED"}
        listed = subprocess.run(
            [str(PREFECT), "flow-run", "ls", "--flow-name", f"{stage}-shard", "-o", "json"],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
        )
        assert listed.returncode == 0, listed.stderr[-2000:]
        shard_flow_runs = json.loads(listed.stdout)
        assert sorted(r["name"] for r in shard_flow_runs) == [f"{stage}-shard-1of2", f"{stage}-shard-2of2"]
        assert all(r["work_pool_name"] == "cuda" and r["state"]["type"] == "COMPLETED" for r in shard_flow_runs)

    s3 = boto3.client(
        "s3",
        endpoint_url=state["s3_endpoint_url"],
        region_name="us-east-1",
        aws_access_key_id=stack.S3_ENV["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=stack.S3_ENV["AWS_SECRET_ACCESS_KEY"],
    )
    keys = [
        o["Key"]
        for page in s3.get_paginator("list_objects_v2").paginate(Bucket="tritonrl")
        for o in page.get("Contents", [])
    ]
    datasets = {
        k.split("/")[2].rsplit("-", 1)[0]
        for k in keys
        if k.startswith("artifacts/datasets/") and k.endswith("manifest.json")
    }
    assert datasets == {"distill", "filter-accepted", "filter-rejected", "augment-pairs", "augment-tasks"}
    assert any(k.startswith("artifacts/checkpoints/sft-") and k.endswith("/model/config.json") for k in keys)
    assert f"{trained.removeprefix('s3://tritonrl/')}/manifest.json" in keys
    assert any(k.startswith("artifacts/evaluations/") and k.endswith("/report.json") for k in keys)
    shard_manifests = [
        k.split("/")[2:4] for k in keys if k.startswith("artifacts/shards/") and k.endswith("manifest.json")
    ]
    assert sorted((stage.rsplit("-", 1)[0], shard.rsplit("-", 1)[0]) for stage, shard in shard_manifests) == [
        ("evaluate", "shard-1of2"),
        ("evaluate", "shard-2of2"),
        ("filter", "shard-1of2"),
        ("filter", "shard-2of2"),
    ]
    assert any(k.startswith("mlflow/") for k in keys), "MLflow artifacts belong in the bucket"

    nightly = subprocess.run(
        [str(PREFECT), "deployment", "inspect", "nightly-evaluation/nightly"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert nightly.returncode == 0, nightly.stderr[-2000:]
    assert "'cron': '0 2 * * *'" in nightly.stdout and "'timezone': 'UTC'" in nightly.stdout


def test_deploy_without_a_checkout_says_which_variable_to_set(tritonrl_home, monkeypatch, tmp_path):
    """An installed wheel has no infra/prefect.yaml: the stack still runs, deploy names TRITONRL_REPO."""
    assert stack.checkout() == REPO
    monkeypatch.setenv("TRITONRL_REPO", str(tmp_path))
    assert stack.checkout() is None and "TRITONRL_REPO" not in stack.environment(
        {"prefect_api_url": "", "s3_endpoint_url": "", "config_file": ""}
    )
    stack.stack_dir().mkdir(parents=True)
    (stack.stack_dir() / "state.json").write_text(
        json.dumps({"services": [{"name": "me", "pid": os.getpid(), "log": "", "health": ""}]})
    )
    with pytest.raises(stack.StackError, match="set TRITONRL_REPO"):
        stack.deploy()


def test_status_without_a_stack_is_a_normal_answer_saying_where_it_looked_and_how_to_start_one(tritonrl_home):
    """Exit 0, as docs/OPERATIONS.md says: no stack is an answer, not an error (a started stack with a service down is 1)."""
    result = CliRunner().invoke(app, ["stack", "status"])
    assert result.exit_code == 0
    assert (
        result.stdout.strip()
        == f"no stack recorded under {tritonrl_home / 'stack'}; start one with `tritonrl stack up`"
    )


def test_the_server_drops_only_the_heartbeat_error_of_a_locked_sqlite(tmp_path):
    """SQLiteHeartbeatRace on the server's logging config: the lost-lock race is silent, any other failure still logged."""
    env = {**os.environ, "PREFECT_LOGGING_SETTINGS_PATH": str(stack.server_logging_config(tmp_path))}
    logged = subprocess.run(
        [sys.executable, "-c", HEARTBEAT_ERRORS, str(tmp_path / "prefect.db")],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert logged.returncode == 0, logged.stderr[-3000:]
    assert logged.stderr.count("heartbeat persistence failed") == 1, logged.stderr
    assert "ZeroDivisionError" in logged.stderr and "database is locked" not in logged.stderr


def test_every_deployment_says_what_it_runs_and_is_tagged_with_its_stage_and_pool():
    """Tags: tritonrl, the stage (a stage flow's name; `full`, `nightly` for the pipeline and the nightly evaluation), the pool."""
    for (flow, name), deployment in _declared().items():
        stage = flow if deployment["entrypoint"].startswith("flows/stages.py:") else name
        assert deployment["description"].strip(), (flow, name)
        assert deployment["tags"] == ["tritonrl", stage, deployment["work_pool"]["name"]], (flow, name)


@pytest.mark.slow
@pytest.mark.integration
def test_the_ui_is_told_this_stacks_api_and_the_deployments_carry_descriptions_and_tags(running_stack):
    """The UI asks /ui-settings where the API is; Prefect's answer without the stack's setting is :4200, someone else's."""
    state, deploy_output = running_stack
    with urllib.request.urlopen(f"{state['prefect_ui']}/ui-settings", timeout=60) as response:
        assert json.loads(response.read())["api_url"] == state["prefect_api_url"]
    assert deploy_output.rstrip().endswith(f"deployments in the Prefect UI: {state['prefect_ui']}/deployments")

    flows = {flow["id"]: flow["name"] for flow in _api(state, "flows/filter")}
    deployed = {
        (flows[d["flow_id"]], d["name"]): (d["description"], d["tags"]) for d in _api(state, "deployments/filter")
    }
    assert deployed == {key: (d["description"], d["tags"]) for key, d in _declared().items()}


class _Text(HTMLParser):
    """The words a page shows (script and style left out)."""

    def __init__(self):
        super().__init__()
        self.words, self._hidden = [], 0

    def handle_starttag(self, tag, attrs):
        self._hidden += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._hidden -= tag in ("script", "style")

    def handle_data(self, data):
        if not self._hidden:
            self.words += data.split()


@pytest.mark.slow
@pytest.mark.integration
@pytest.mark.skipif(
    BROWSER is None, reason="no chromium on PATH to load the Prefect UI (the UI-settings test still runs)"
)
def test_the_printed_ui_url_lists_the_deployments_in_a_browser(running_stack):
    state, _ = running_stack
    page = subprocess.run(
        [
            BROWSER,
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--virtual-time-budget=30000",
            "--dump-dom",
            f"{state['prefect_ui']}/deployments",
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert page.returncode == 0, page.stderr[-2000:]
    text = _Text()
    text.feed(page.stdout)
    assert "Can't connect to Server API" not in " ".join(text.words), " ".join(text.words)[:2000]
    missing = {flow for flow, _ in _declared()} - set(text.words)
    assert not missing, f"flows {sorted(missing)} not on the page: {' '.join(text.words)[:2000]}"
