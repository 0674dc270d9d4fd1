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
from pathlib import Path


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
    record(f"- versions: python {platform.python_version()}, torch {torch.__version__}, transformers {transformers.__version__}")
    record(f"- command: `{' '.join([sys.executable.rsplit('/', 1)[-1], *sys.argv])}`")
    record(f"- overrides: {' '.join(overrides)}\n")
    return record
