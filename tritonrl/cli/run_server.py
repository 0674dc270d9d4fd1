"""The Prefect server of one `tritonrl run`, in a session of its own, and the run's answer to Ctrl-C and SIGTERM.

Why not Prefect's temporary server: Prefect starts it as a child in the
caller's process group, so a terminal's Ctrl-C (SIGINT to the whole group)
stopped the server first, and the interrupted flow then spent minutes
retrying its API calls and printing hundreds of lines of ConnectError
tracebacks. This server runs in its own session: a signal reaches the run
alone, which marks its Prefect and MLflow runs and stops its children while
the server still answers; the server is stopped last, and dies with the
run if the run is killed outright. The stage children
(training launchers, the verifier's fork server) already have sessions of
their own and are stopped by the code that started them.

SIGTERM (what a Prefect worker, Kubernetes or systemd send before SIGKILL)
is turned into the same KeyboardInterrupt as Ctrl-C, so both end the same
way: within seconds, with one line saying what to do.

Test: tests/test_interrupts.py.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tritonrl.stack import HOST, START_TIMEOUT_S, free_port, healthy
from tritonrl.training.launch import stop_with_parent

STOP_GRACE_S = 5  # the server gets this long to stop after SIGTERM before SIGKILL


def start_server(home: Path) -> str:
    """Start a Prefect API server (no UI, no services) on a free loopback port; returns its API URL.

    It is stopped when this process exits, after Prefect's own exit handlers
    (registered later, so run earlier) have sent the last logs and states.
    """
    port = free_port()
    api = f"http://{HOST}:{port}/api"
    log = home / "server.log"
    env = {**os.environ, "PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}
    env.pop("PREFECT_API_URL", None)
    with log.open("ab") as out:
        server = subprocess.Popen(
            [
                str(Path(sys.executable).with_name("prefect")),
                "server",
                "start",
                "--host",
                HOST,
                "--port",
                str(port),
                "--no-ui",
                "--no-services",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
            preexec_fn=stop_with_parent(os.getpid()),
        )
    atexit.register(_stop, server)
    _wait_until_up(server, api, log)
    return api


def _wait_until_up(server: subprocess.Popen, api: str, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while not healthy(f"{api}/health"):
        if server.poll() is not None:
            raise RuntimeError(
                f"the run's Prefect server exited while starting; its log {log} ends:\n"
                + log.read_text(errors="replace")[-2000:]
            )
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"the run's Prefect server did not answer {api}/health within {START_TIMEOUT_S} s; see {log}"
            )
        time.sleep(0.3)


def _stop(server: subprocess.Popen) -> None:
    try:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
    except ProcessLookupError:
        server.wait()


@contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt in the main thread, as Ctrl-C does."""

    def interrupt(signum, frame):
        raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
