"""Start a training stage's worker module on every process through torchrun, and watch it as a subprocess.

SFT and GRPO launch their workers the same way: one node is `--standalone`
(torchrun picks a free local port, so parallel runs never collide); several
nodes meet at a c10d rendezvous on `<section>.rdzv_endpoint`, every node
running the same command. The launcher's output streams to the stage's log
line by line; an interrupted stage stops the launcher (SIGTERM: torchrun
stops its workers, then SIGKILL), a launcher whose stage process dies gets
SIGTERM (parent-death signal), and a failed one raises the stage's error with the command and the last
lines of output, so the stage publishes nothing.

Test: tests/training/test_launch.py (and the stages' multi-process tests).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Callable

from tritonrl.config import GRPOConfig, SFTConfig, launch_mistakes

PR_SET_PDEATHSIG = 1  # prctl(2)
STOP_GRACE_S = 10  # an interrupted launcher's time to stop its workers before SIGKILL


class TrainingError(RuntimeError):
    """A training stage could not start or did not finish; nothing was published as complete."""


def torchrun_command(
    section: str, settings: SFTConfig | GRPOConfig, module: str, spec_path: Path, error: type[Exception]
) -> list[str]:
    """`python -m torch.distributed.run … -m <module> --spec <spec_path>` for `settings` (the `section` config keys)."""
    problems = launch_mistakes(section, settings)
    if problems:
        raise error("; ".join(problems))
    if settings.nnodes > 1:
        nodes = [
            f"--nnodes={settings.nnodes}",
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={settings.rdzv_endpoint}",
            f"--rdzv-id=tritonrl-{section}-{spec_path.parent.name}",
        ]
    else:
        nodes = ["--standalone", "--nnodes=1"]
    return [
        sys.executable,
        "-m",
        "torch.distributed.run",
        *nodes,
        f"--nproc_per_node={settings.nproc_per_node}",
        "-m",
        module,
        "--spec",
        str(spec_path),
    ]


def stop_with_parent(parent: int, signum: int = signal.SIGTERM) -> Callable[[], None]:
    """A child's pre-exec step: `signum` when process `parent` dies, even by SIGKILL, so nothing is left orphaned."""

    def arm() -> None:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the line above
            os._exit(1)

    return arm


def run_launcher(command: list[str], cwd: Path, on_log: Callable[[str], None], error: type[Exception]) -> None:
    """Run `command` in `cwd`, streaming its output to `on_log`; raise `error` unless it exits 0."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"}
    tail: deque[str] = deque(maxlen=30)
    process = subprocess.Popen(
        command,
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
        preexec_fn=stop_with_parent(os.getpid()),
    )
    try:
        for line in process.stdout:
            tail.append(line.rstrip())
            on_log(line.rstrip())
        code = process.wait()
    except BaseException:
        _stop(process)
        raise
    if code != 0:
        raise error(
            f"training failed (launcher exit code {code}); nothing published. Command: {' '.join(command)}\n"
            "Last output:\n" + "\n".join(tail)
        )


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to the launcher, which stops its workers (torchrun starts each in a session of its own, out of reach
    of a signal to the launcher's group); SIGKILL to its group after STOP_GRACE_S."""
    try:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        pass
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
