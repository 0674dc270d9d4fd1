"""Ctrl-C and SIGTERM during `tritonrl run`: it stops within seconds, leaves no process behind, marks its MLflow
runs KILLED and ends with one line saying what had finished and how to resume.

Ctrl-C is SIGINT to the whole process group, as a terminal sends it; SIGTERM goes to the run's process alone,
as a Prefect worker, Kubernetes or systemd send it. Slow: each case runs the pipeline up to a stage.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from mlflow import MlflowClient

from tritonrl.config import load_config

from tests.support.flows import SMALL
from tests.support.paths import REPO
from tests.support.processes import processes_left

TRITONRL = Path(sys.executable).parent / "tritonrl"
STOP_WITHIN_S = 20  # measured 6 s on 2 busy cores


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "to_group", "marker", "stage"),
    [
        (signal.SIGINT, True, "stage filter: starting", "filter"),
        (signal.SIGTERM, False, "torch.distributed.run", "sft"),
    ],
)
def test_an_interrupted_run_stops_within_seconds_with_one_line(
    tritonrl_home, tmp_path, monkeypatch, signum, to_group, marker, stage
):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    log = tmp_path / "run.log"
    with log.open("w") as out:
        # SIGINT back to its default in the child: a CI shell running tests in the background ignores it, and the
        # run would inherit that (a terminal's run never has it ignored).
        proc = subprocess.Popen(
            [str(TRITONRL), "run", "--profile", "tiny", *(a for s in SMALL for a in ("--set", s))],
            cwd=REPO,
            env={**os.environ},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        deadline = time.monotonic() + 400
        while marker not in log.read_text(errors="replace"):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.3)
        time.sleep(2)  # into the stage
        before = len(log.read_text(errors="replace").splitlines())
        sent = time.monotonic()
        (os.killpg if to_group else os.kill)(proc.pid, signum)
        code = proc.wait(timeout=120)
        took = time.monotonic() - sent
    after = log.read_text(errors="replace").splitlines()[before:]
    assert code == 130 and took < STOP_WITHIN_S, (code, took, after[-30:])
    assert "Traceback" not in "\n".join(after), after
    assert after[-1].startswith(f"interrupted during {stage} (finished: suite-check, distill")
    assert after[-1].endswith("run the same command again to resume: finished stages are reused")
    assert processes_left(tritonrl_home) == []  # Prefect server, training launcher, verifier: all gone

    config, _ = load_config("tiny", None, SMALL)
    client = MlflowClient(config.tracking_uri)
    runs = client.search_runs([client.get_experiment_by_name("tritonrl").experiment_id])
    statuses = {
        r.info.run_name.split("-")[0] if "mlflow.parentRunId" not in r.data.tags else r.info.run_name: r.info.status
        for r in runs
    }
    assert statuses["tritonrl"] == "KILLED" and statuses[stage] == "KILLED" and statuses["distill"] == "FINISHED"
