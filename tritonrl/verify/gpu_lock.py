"""Machine-wide sharing rule for one GPU: many jobs may compute on it at once; a timed run has it alone.

Several verifier workers share a GPU so that one candidate's start-up,
correctness trials and output transfers overlap with another's; but a timed
run next to someone else's 6 GB copy measures the copy. So every job holds
the GPU's lock *shared* while it uses the GPU, and timing takes it
*exclusive*. A turnstile gives waiting exclusive holders priority: a new
shared holder first passes the turnstile, which a waiting exclusive holder
keeps closed, so a steady stream of correctness runs cannot starve timing.

`flock` locks belong to an open file, so each acquisition opens its own
file: threads of one process (the verifier pool's comparisons) and
separate processes (sandboxed children) take part alike, and a lock dies
with its process. Files live in the job root, readable by children that
dropped privileges.

Test: tests/verify/test_gpu_lock.py.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# Bound at import, before any candidate code runs in a child.
_flock = fcntl.flock
_open = os.open
_close = os.close


class GpuLock:
    def __init__(self, directory: str | Path, gpu: str) -> None:
        self.directory, self.gpu = str(directory), gpu
        name = re.sub(r"[^A-Za-z0-9_-]", "_", gpu)
        self.run_path = Path(directory) / f"tritonrl-gpu-{name}.lock"
        self.turnstile_path = Path(directory) / f"tritonrl-gpu-{name}.turnstile"

    def create(self) -> GpuLock:
        """Create the lock files, openable by any user (children may run as `nobody`)."""
        for path in (self.run_path, self.turnstile_path):
            if not path.exists():
                handle = _open(path, os.O_CREAT | os.O_WRONLY, 0o666)
                os.fchmod(handle, 0o666)
                _close(handle)
        return self

    @contextmanager
    def _held(self, path: Path, mode: int) -> Iterator[None]:
        handle = _open(path, os.O_RDONLY)
        try:
            _flock(handle, mode)
            yield
        finally:
            _close(handle)  # closing releases the lock

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._held(self.turnstile_path, fcntl.LOCK_EX):
            pass
        with self._held(self.run_path, fcntl.LOCK_SH):
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._held(self.turnstile_path, fcntl.LOCK_EX), self._held(self.run_path, fcntl.LOCK_EX):
            yield

    def to_job(self) -> dict[str, str]:
        """What a child needs to take the same lock: `GpuLock(**lock.to_job())`."""
        return {"directory": self.directory, "gpu": self.gpu}
