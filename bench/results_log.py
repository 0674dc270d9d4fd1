"""The results file of a CPU learning benchmark: each line printed and appended as soon as it is measured.

A header names the machine, versions, command and config overrides, so a
shortened or interrupted run still records what it measured and how.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path


def gpu_run_facts() -> dict[str, str]:
    """Date, GPU, versions and command at the head of a GPU benchmark's JSON results."""
    import torch
    import triton

    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(0),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "command": " ".join(sys.argv),
    }


def results_log(path: str, title: str, overrides: list[str]) -> Callable[[str], None]:
    import torch
    import transformers

    results = Path(path)
    results.parent.mkdir(parents=True, exist_ok=True)

    def record(line: str) -> None:
        print(line, flush=True)
        with results.open("a") as handle:
            handle.write(line + "\n")

    record(f"# {title}, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC\n")
    record(f"- machine: {platform.machine()}, {os.cpu_count()} CPU cores, {platform.platform()}")
    record(
        f"- versions: python {platform.python_version()}, torch {torch.__version__}, triton {metadata.version('triton')}, "
        f"numpy {metadata.version('numpy')}, transformers {transformers.__version__}"
    )
    record(f"- command: `{' '.join([sys.executable.rsplit('/', 1)[-1], *sys.argv])}`")
    record(f"- overrides: {' '.join(overrides)}\n")
    return record
