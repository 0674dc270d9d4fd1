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


def command() -> str:
    """The command line as run, `python -m bench.NAME ARGS` (under -m, sys.argv[0] is the module's file path)."""
    spec = sys.modules["__main__"].__spec__
    head = ["-m", spec.name] if spec else sys.argv[:1]
    return " ".join([Path(sys.executable).name, *head, *sys.argv[1:]])


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
        "command": command(),
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
    record(f"- command: `{command()}`")
    record(f"- overrides: {' '.join(overrides)}\n")
    return record
