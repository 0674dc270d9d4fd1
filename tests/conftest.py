"""Shared test set-up.

Kernels run in Triton's CPU interpreter unless a GPU is present; the variable
must be set before triton is first imported, hence at conftest import time.
Every test gets its own TRITONRL_HOME so nothing leaks into the working tree.
Fixtures used by more than one module live here; other shared helpers are in tests/support/.
"""

import os

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


def pytest_collection_modifyitems(config, items):
    if torch.cuda.is_available():
        return
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU; this machine has none")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip_gpu)
