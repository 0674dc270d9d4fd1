"""S3 failures are one StorageError line naming the URI, the endpoint and what to check; only transient ones are retried.

Real boto3 throughout: a closed loopback port, an environment without credentials, moto's S3 server (conftest.py)
and a loopback HTTP server that answers every request with one S3 error (or hangs up), counting the requests.
"""

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tritonrl.artifacts.storage_errors import storage_error
from tritonrl.artifacts.store import ArtifactNotFound, ArtifactStore, StorageError


def _every_operation(store: ArtifactStore, root: str):
    """What each store operation raises against `root` (none may succeed or return "not there")."""
    calls = {
        "write": lambda: store.write_text(f"{root}/x.json", "{}"),
        "read": lambda: store.read_text(f"{root}/x.json"),
        "exists": lambda: store.exists(f"{root}/x.json"),
        "list": lambda: store.list(root),
    }
    errors = {}
    for name, call in calls.items():
        with pytest.raises(StorageError) as caught:
            call()
        errors[name] = caught.value
    return errors


@pytest.fixture
def some_credentials(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    monkeypatch.delenv("AWS_MAX_ATTEMPTS", raising=False)


def test_dead_endpoint_is_cannot_reach_for_every_operation_even_exists(dead_s3_endpoint, some_credentials):
    errors = _every_operation(ArtifactStore(dead_s3_endpoint), "s3://bucket/runs")
    for name, error in errors.items():
        assert not isinstance(error, ArtifactNotFound), name
        assert error.transient, name
        assert f"cannot reach {dead_s3_endpoint} (EndpointConnectionError after 3 attempts)" in str(error), name
        assert "storage.s3_endpoint_url" in str(error), name
    assert str(errors["read"]).startswith("s3://bucket/runs/x.json: ")
    assert str(errors["list"]).startswith("s3://bucket/runs: ")


@pytest.mark.parametrize("endpoint", ["dead", ""])
def test_no_credentials_names_the_variables_and_is_not_retried(endpoint, dead_s3_endpoint, no_aws_credentials):
    store = ArtifactStore(dead_s3_endpoint if endpoint == "dead" else "")
    for name, error in _every_operation(store, "s3://bucket/runs").items():
        assert "s3://bucket/runs" in str(error), name
        assert f"no usable S3 credentials for {dead_s3_endpoint if endpoint else 'AWS S3'}" in str(error), name
        assert "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in str(error), name
        assert not error.transient, name


@pytest.mark.integration
def test_missing_bucket_is_named_by_every_operation(s3_endpoint):
    errors = _every_operation(ArtifactStore(s3_endpoint), "s3://tritonrl-no-such-bucket/runs")
    for name, error in errors.items():
        assert f"bucket 'tritonrl-no-such-bucket' does not exist at {s3_endpoint}: create the bucket first" in str(
            error
        ), name
        assert not isinstance(error, ArtifactNotFound) and not error.transient, name


@pytest.mark.integration
def test_missing_object_in_an_existing_bucket_is_not_there(s3_endpoint, bucket):
    store = ArtifactStore(s3_endpoint)
    assert not store.exists(f"s3://{bucket}/nothing")
    with pytest.raises(ArtifactNotFound, match=f"s3://{bucket}/nothing: no such object"):
        store.read_bytes(f"s3://{bucket}/nothing")


@pytest.fixture
def s3_answering(monkeypatch, some_credentials):
    """Start a loopback server answering every request with (HTTP status, S3 error code), or hanging up on None."""
    servers = []

    def start(status: int | None, code: str = ""):
        requests = []

        class Answer(BaseHTTPRequestHandler):
            def do_GET(self):
                requests.append(self.path)
                if status is None:
                    self.close_connection = True  # no response at all: the client sees the connection drop
                    return
                body = f"<?xml version='1.0'?><Error><Code>{code}</Code><Message>as asked</Message></Error>".encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/xml")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}", requests

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(
    "status, code, attempts, says",
    [
        (503, "SlowDown", 2, "kept failing (SlowDown 503, 2 attempts): it is overloaded or down"),
        (500, "InternalError", 2, "kept failing (InternalError 500, 2 attempts)"),
        (None, "", 2, "(ConnectionClosedError after 2 attempts): check that the endpoint is up"),
        (
            403,
            "AccessDenied",
            1,
            "access denied by {endpoint} (AccessDenied): check that these credentials may read and write bucket 'b'",
        ),
        (
            403,
            "InvalidAccessKeyId",
            1,
            "{endpoint} rejected the credentials (InvalidAccessKeyId): check AWS_ACCESS_KEY_ID",
        ),
        (404, "NoSuchBucket", 1, "bucket 'b' does not exist at {endpoint}"),
    ],
)
def test_only_transient_failures_are_retried(s3_answering, monkeypatch, status, code, attempts, says):
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "2")  # the documented knob: keeps the throttling backoff under a second
    endpoint, requests = s3_answering(status, code)
    with pytest.raises(StorageError) as caught:
        ArtifactStore(endpoint).list("s3://b/runs")
    assert len(requests) == attempts
    assert caught.value.transient == (attempts > 1)
    assert str(caught.value).startswith("s3://b/runs: ")
    assert says.format(endpoint=endpoint) in str(caught.value)


def test_dropped_connections_are_retried_three_times_by_default(s3_answering):
    endpoint, requests = s3_answering(None)
    with pytest.raises(StorageError, match="after 3 attempts"):
        ArtifactStore(endpoint).list("s3://b/runs")
    assert len(requests) == 3


@pytest.mark.integration
def test_boto3_errors_raised_outside_the_store_become_one_line(s3_endpoint, dead_s3_endpoint, tmp_path):
    """What MLflow's own boto3 calls raise names the URI and the endpoint like the store's errors (from the traceback)."""
    import boto3
    from boto3.exceptions import S3UploadFailedError
    from botocore.exceptions import EndpointConnectionError

    (tmp_path / "a.txt").write_text("a")
    with pytest.raises(S3UploadFailedError) as upload:
        boto3.client("s3", endpoint_url=s3_endpoint).upload_file(
            str(tmp_path / "a.txt"), "no-such-mlflow-bucket", "run/a.txt"
        )
    assert str(storage_error(upload.value)) == (
        f"s3://no-such-mlflow-bucket/run/a.txt: bucket 'no-such-mlflow-bucket' "
        f"does not exist at {s3_endpoint}: create the bucket first, or check the URI"
    )
    with pytest.raises(EndpointConnectionError) as dead:
        boto3.client("s3", endpoint_url=dead_s3_endpoint).put_object(Bucket="b", Key="k", Body=b"")
    assert str(storage_error(dead.value)).startswith(
        f"s3://b/k: cannot reach {dead_s3_endpoint} (EndpointConnectionError"
    )
    assert storage_error(ValueError("not storage")) is None
    try:
        raise RuntimeError("a bug while handling it") from dead.value
    except RuntimeError as bug:
        assert storage_error(bug) is None  # only boto3's, s3transfer's and MLflow's wrappers are looked through


def test_boto3_without_credentials_outside_the_store_names_the_uri(dead_s3_endpoint, no_aws_credentials):
    import boto3
    from botocore.exceptions import NoCredentialsError

    with pytest.raises(NoCredentialsError) as caught:
        boto3.client("s3", endpoint_url=dead_s3_endpoint).put_object(Bucket="b", Key="runs/k", Body=b"")
    assert str(storage_error(caught.value)).startswith(
        f"s3://b/runs/k: no usable S3 credentials for {dead_s3_endpoint}"
    )


@pytest.mark.slow  # importing mlflow takes ~8 s here
@pytest.mark.integration
def test_mlflow_artifact_upload_to_a_missing_bucket_is_one_line(s3_endpoint, monkeypatch, tmp_path):
    from mlflow import MlflowClient

    monkeypatch.setenv("MLFLOW_S3_ENDPOINT_URL", s3_endpoint)
    client = MlflowClient(tracking_uri=f"sqlite:///{tmp_path}/mlflow.db")
    experiment = client.create_experiment("storage-errors", artifact_location="s3://no-such-mlflow-bucket/mlflow")
    run = client.create_run(experiment)
    with pytest.raises(Exception) as caught:
        client.log_text(run.info.run_id, "text", "a.txt")
    error = storage_error(caught.value)
    assert error is not None, caught.value
    assert str(error).startswith(
        f"s3://no-such-mlflow-bucket/mlflow/{run.info.run_id}/artifacts/a.txt: bucket "
        f"'no-such-mlflow-bucket' does not exist at {s3_endpoint}"
    )


def test_prefect_task_retries_only_transient_storage_errors():
    from prefect.states import Failed

    from tasks.stages import _io_failure

    def retried(error: Exception) -> bool:
        return _io_failure(None, None, Failed(data=error))

    assert retried(StorageError("s3://b/x: cannot reach http://127.0.0.1:9", transient=True))
    assert not retried(StorageError("s3://b/x: no usable S3 credentials for AWS S3"))
    assert not retried(ArtifactNotFound("s3://b/x: no such object"))
    assert retried(ConnectionResetError("peer reset"))
    assert not retried(ValueError("bad data"))
