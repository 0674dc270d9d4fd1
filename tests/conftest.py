"""Shared test set-up.

Kernels run in Triton's CPU interpreter unless a GPU is present; the variable
must be set before triton is first imported, hence at conftest import time.
Every test gets its own TRITONRL_HOME so nothing leaks into the working tree.
Fixtures used by more than one module live here; other shared helpers are in tests/support/.
"""

import os
import socket
import sys

import pytest
import torch

from tests.support.paths import SHARED_KERNELBENCH

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")
# In-process flows (tests/test_flows.py) start Prefect's temporary server. Prefect reads its settings once, when the
# first test that needs it imports prefect; these are the ones `tritonrl run` gives its own server
# (pipeline.local_orchestration_env): telemetry off, as its heartbeat contends for the server's SQLite database,
# and 120 s to start, not Prefect's 20 s, which a busy 2-core machine exceeds.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")


@pytest.fixture(autouse=True)
def tritonrl_home(tmp_path, monkeypatch):
    home = tmp_path / "tritonrl-home"
    monkeypatch.setenv("TRITONRL_HOME", str(home))
    for name in ("MLFLOW_TRACKING_URI", "MLFLOW_REGISTRY_URI"):  # they would take the tracking out of the test's home
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def kernelbench_dir():
    if not SHARED_KERNELBENCH.is_dir():
        pytest.skip(f"KernelBench data not found at {SHARED_KERNELBENCH} (shared/ beside the checkout)")
    return SHARED_KERNELBENCH


@pytest.fixture(scope="module")
def s3_endpoint():
    """A real S3 API (moto's server) on a free loopback port."""
    from moto.server import ThreadedMotoServer

    os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def bucket(s3_endpoint, request):
    """A fresh bucket on `s3_endpoint`, named after the test."""
    import boto3

    name = "tritonrl-" + request.node.name.replace("_", "-")[:40].lower()
    boto3.client("s3", endpoint_url=s3_endpoint).create_bucket(Bucket=name)
    return name


@pytest.fixture
def dead_s3_endpoint():
    """An endpoint URL on loopback where nothing listens (a port just bound and released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture
def no_aws_credentials(monkeypatch, tmp_path):
    """An environment where boto3 finds no credentials anywhere (variables, files, instance metadata)."""
    monkeypatch.setattr("boto3.DEFAULT_SESSION", None)  # it keeps the credentials it found for the whole process
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "no-credentials"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "no-config"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU; this machine has none")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip_gpu)


@pytest.fixture(scope="session", autouse=True)
def prefect_stopped_while_output_is_open():
    """Stop Prefect's temporary server (in-process flow tests start it) before pytest closes the captured streams.

    Otherwise it stops at interpreter exit, and Prefect's console handler, which holds pytest's closed stderr, prints
    `--- Logging error ---` for "Stopping temporary server" after the final summary. As prefect_test_harness does:
    logs and events drained first, while the server still takes them.
    """
    yield
    if "prefect.server.api.server" not in sys.modules:  # no test used Prefect
        return
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.server.api.server import SubprocessASGIServer

    APILogWorker.drain_all()
    EventsWorker.drain_all()
    SubprocessASGIServer().stop()
