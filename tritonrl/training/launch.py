"""Start a training stage's worker module on every process through torchrun, and watch it as a subprocess.

SFT and GRPO launch their workers the same way: one node is `--standalone`
(torchrun picks a free local port, so parallel runs never collide); several
nodes meet at a c10d rendezvous on `<section>.rdzv_endpoint`, every node
running the same command. The launcher's output streams to the stage's log
line by line; an interrupted stage kills the launcher's whole process group,
and a failed one raises the stage's error with the command and the last
lines of output, so the stage publishes nothing.

Test: tests/training/test_launch.py (and the stages' multi-process tests).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Callable

from tritonrl.config import GRPOConfig, SFTConfig, launch_mistakes


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
        nodes = [f"--nnodes={settings.nnodes}", "--rdzv-backend=c10d", f"--rdzv-endpoint={settings.rdzv_endpoint}",
                 f"--rdzv-id=tritonrl-{section}-{spec_path.parent.name}"]
    else:
        nodes = ["--standalone", "--nnodes=1"]
    return [sys.executable, "-m", "torch.distributed.run", *nodes, f"--nproc_per_node={settings.nproc_per_node}",
            "-m", module, "--spec", str(spec_path)]


def run_launcher(command: list[str], cwd: Path, on_log: Callable[[str], None], error: type[Exception]) -> None:
    """Run `command` in `cwd`, streaming its output to `on_log`; raise `error` unless it exits 0."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "TOKENIZERS_PARALLELISM": "false"}
    tail: deque[str] = deque(maxlen=30)
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True)
    try:
        for line in process.stdout:
            tail.append(line.rstrip())
            on_log(line.rstrip())
        code = process.wait()
    except BaseException:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise
    if code != 0:
        raise error(f"training failed (launcher exit code {code}); nothing published. Command: {' '.join(command)}\n"
                    "Last output:\n" + "\n".join(tail))
