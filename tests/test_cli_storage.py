"""Every command's storage failure is one line naming the URI and the endpoint, exit 2 (no traceback)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tritonrl.cli import app

runner = CliRunner()
DATASET = "s3://tritonrl-cli-bucket/datasets/distill-0123456789ab"


def _filter(endpoint: str):
    return runner.invoke(
        app, ["filter", "--input", DATASET, "--profile", "tiny", "--set", f"storage.s3_endpoint_url={endpoint}"]
    )


def _one_error_line(result) -> str:
    lines = result.output.strip().splitlines()
    assert result.exit_code == 2, result.output
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {DATASET}/manifest.json: "), result.output
    return lines[0]


def test_filter_against_a_dead_endpoint_says_cannot_reach_not_no_manifest(dead_s3_endpoint, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    line = _one_error_line(_filter(dead_s3_endpoint))
    assert f"cannot reach {dead_s3_endpoint}" in line
    assert "check that the endpoint is up" in line


def test_filter_without_credentials_names_the_variables(dead_s3_endpoint, no_aws_credentials):
    line = _one_error_line(_filter(dead_s3_endpoint))
    assert f"no usable S3 credentials for {dead_s3_endpoint}" in line
    assert "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY" in line


@pytest.mark.integration
def test_filter_on_a_missing_bucket_names_the_bucket(s3_endpoint):
    line = _one_error_line(_filter(s3_endpoint))
    assert f"bucket 'tritonrl-cli-bucket' does not exist at {s3_endpoint}: create the bucket first" in line


@pytest.mark.integration
def test_filter_on_a_missing_dataset_still_says_no_manifest(s3_endpoint, bucket):
    result = runner.invoke(
        app,
        [
            "filter",
            "--input",
            f"s3://{bucket}/distill-x",
            "--profile",
            "tiny",
            "--set",
            f"storage.s3_endpoint_url={s3_endpoint}",
        ],
    )
    assert result.exit_code == 2, result.output
    assert f"s3://{bucket}/distill-x is not a complete dataset (no manifest.json)" in result.output


@pytest.mark.slow
def test_the_pipeline_against_a_dead_endpoint_ends_in_one_error_line_and_keeps_the_traceback_in_a_file(
    dead_s3_endpoint, tritonrl_home, monkeypatch
):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_MAX_ATTEMPTS": "1"}
    result = subprocess.run(
        [
            str(Path(sys.executable).with_name("tritonrl")),
            "run",
            "--profile",
            "tiny",
            "--set",
            "problems.limit=1",
            "--set",
            "storage.artifact_root=s3://nowhere/tritonrl",
            "--set",
            f"storage.s3_endpoint_url={dead_s3_endpoint}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2, result.stderr[-3000:]
    assert lines[-1].startswith("error: s3://nowhere/tritonrl/") and f"cannot reach {dead_s3_endpoint}" in lines[-1]
    assert "Traceback" not in result.stderr and "│" not in result.stderr  # no plain or rich tracebacks
    (log,) = (tritonrl_home / "logs").glob("run-*.log")
    assert "EndpointConnectionError" in log.read_text() and f"(traceback in {log})" in result.stderr
