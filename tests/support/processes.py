"""Which processes a test's run left behind."""

import time
from pathlib import Path


def processes_of(home: Path) -> list[str]:
    """Command lines of the live processes started for the run under `home` (they carry it in their environment)."""
    marker = f"TRITONRL_HOME={home}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and marker in (proc / "environ").read_bytes().split(b"\0"):
                found.append((proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
        except OSError:
            continue
    return found


def processes_left(home: Path, within_s: float = 30.0) -> list[str]:
    """`processes_of(home)` once it is empty, or at the end of `within_s`: a loaded machine reaps slowly."""
    deadline = time.monotonic() + within_s
    while (found := processes_of(home)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return found
