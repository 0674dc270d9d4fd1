"""The fork server: preload torch and triton once, then fork one sandboxed child per job.

Protocol (one JSON object per line): the client writes a request
`{"job_dir", "device", "timeout_s", "memory_bytes", "max_processes", "max_file_bytes"}`
to stdin; the server forks, waits at most `timeout_s` (then kills the
child's process group), and answers with a `ProcessOutcome` as JSON on
stdout. The server never initialises CUDA itself, so children can.

Started by `tritonrl.verify.sandbox.ForkServer`; run by hand with
`python -m tritonrl.verify.forkserver` for debugging.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sys
import time
from pathlib import Path

import torch  # noqa: F401  (preloaded for the children)
import triton  # noqa: F401
import triton.language  # noqa: F401

from tritonrl.verify import child
from tritonrl.verify.sandbox import Limits, ProcessOutcome, interpreter_world_readable, isolate_child

POLL_S = 0.005


def _serve_one(request: dict) -> ProcessOutcome:
    job_dir = Path(request["job_dir"])
    limits = Limits(
        timeout_s=request["timeout_s"],
        memory_bytes=request["memory_bytes"],
        max_processes=request["max_processes"],
        max_file_bytes=request["max_file_bytes"],
    )
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        code = 70  # EX_SOFTWARE: the harness itself failed
        try:
            log_fd = os.open(job_dir / "child.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(log_fd, 1)
            os.dup2(log_fd, 2)
            os.close(0)
            isolation = isolate_child(job_dir, limits, request["device"])
            code = child.run_job(job_dir, isolation)
        finally:
            os._exit(code)

    deadline = started + limits.timeout_s
    timed_out = False
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            timed_out = True
            _kill_group(pid)
            _, status, usage = os.wait4(pid, 0)
            break
        time.sleep(POLL_S)
    _kill_group(pid)  # stragglers the child left in its group
    seconds = time.monotonic() - started
    if timed_out:
        return ProcessOutcome("timeout", None, signal.SIGKILL, seconds, usage.ru_maxrss)
    if os.WIFSIGNALED(status):
        return ProcessOutcome("signaled", None, os.WTERMSIG(status), seconds, usage.ru_maxrss)
    return ProcessOutcome("exited", os.WEXITSTATUS(status), None, seconds, usage.ru_maxrss)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def main() -> None:
    interpreter_world_readable()  # decide once, before forking, whether children can drop privileges
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not corrupt the protocol
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        outcome = _serve_one(json.loads(line))
        out.write(json.dumps(dataclasses.asdict(outcome)) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
