"""The fork server: preload torch and triton once, then fork one sandboxed child per job.

Protocol (one JSON object per line): the client writes a request
`{"job_dir", "device", "timeout_s", "memory_bytes", "max_processes", "max_file_bytes", "shared"}`
to stdin; the server forks, waits at most `timeout_s` (then kills the
child's process group), and answers with a `ProcessOutcome` as JSON on
stdout. The server never initialises CUDA itself, so children can. Its one
argument is a JSON object: `exposure` (sandbox.Exposure, what children may
read) and `run_as` (a uid to drop to after preloading, or null).

Started by `tritonrl.verify.sandbox.ForkServer`; run by hand with
`python -P -m tritonrl.verify.forkserver '{"exposure": {}, "run_as": null}'`
for debugging.
"""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import signal
import sys
import time
from pathlib import Path

import torch  # noqa: F401  (preloaded for the children)
import torch._dynamo  # noqa: F401  (a candidate's first call imports it: a second or more in every child otherwise)
import triton  # noqa: F401
import triton.language  # noqa: F401

from tritonrl.verify import child, namespaces
from tritonrl.verify.sandbox import Exposure, Limits, ProcessOutcome, run_sandboxed

POLL_S = 0.005
PR_SET_DUMPABLE = 4


def _serve_one(request: dict, exposure: Exposure, user_namespace: bool) -> ProcessOutcome:
    job_dir = Path(request["job_dir"])
    limits = Limits(
        timeout_s=request["timeout_s"],
        memory_bytes=request["memory_bytes"],
        max_processes=request["max_processes"],
        max_file_bytes=request["max_file_bytes"],
    )
    started = time.monotonic()
    server_pid = os.getpid()
    pid = os.fork()
    if pid == 0:
        exposure = dataclasses.replace(exposure, read_only=[*exposure.read_only, *request["shared"]])
        run_sandboxed(server_pid, job_dir, limits, request["device"], exposure, user_namespace, child.run_job)

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


def _drop_to(uid: int) -> None:
    """Become `uid` (gid alike) for good, as an ordinary user's server would run."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)
    # Changing uid made the process non-dumpable, which would leave its /proc
    # files (uid_map among them) owned by root; an ordinary process is dumpable.
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)


def main() -> None:
    config = json.loads(sys.argv[1])
    exposure = Exposure(**config["exposure"])
    if config["run_as"] is not None:
        _drop_to(config["run_as"])
    user_namespace = namespaces.user_namespace_works()  # probed once, before serving
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not corrupt the protocol
    out.write("ready\n")
    out.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        outcome = _serve_one(json.loads(line), exposure, user_namespace)
        out.write(json.dumps(dataclasses.asdict(outcome)) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
