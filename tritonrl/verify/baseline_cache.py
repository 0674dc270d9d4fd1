"""PyTorch baseline timings kept across runs, keyed by problem, GPU model and software versions.

A baseline (eager and, when asked, torch.compile) depends only on the
problem's source at its shapes, the GPU model, the torch/triton/CUDA
versions and the timing settings; nightly evaluations and repeated filter
runs would otherwise re-time the same references every time. A problem's
entry also keeps what one call of it moves and computes ("work",
speed_of_light.measure_work), and one entry per GPU model keeps the GPU's
measured peaks ("peaks", `peaks_key`). Entries are JSON files written
atomically; a damaged entry counts as missing.

Test: tests/verify/test_baseline_cache.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import torch
import triton

# Bump when what an entry holds is computed differently (2: the speed-of-light floor counts per input set; 3: its
# distinct values), so entries of an earlier rule are not reused.
ENTRY_FORMAT = 3


def software_versions() -> dict[str, str]:
    return {"torch": torch.__version__, "triton": triton.__version__, "cuda": str(torch.version.cuda)}


class BaselineCache:
    """A directory of `<key>.json` baseline entries."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)

    @staticmethod
    def key(problem_source: str, gpu_name: str, timing_settings: dict) -> str:
        material = json.dumps(
            {
                "source": problem_source,
                "gpu": gpu_name,
                "versions": software_versions(),
                "timing": timing_settings,
                "format": ENTRY_FORMAT,
            },
            sort_keys=True,
        )
        return hashlib.sha256(material.encode()).hexdigest()[:32]

    @staticmethod
    def peaks_key(gpu_name: str) -> str:
        """The key of the GPU model's measured peaks (one entry per GPU model and software versions)."""
        return BaselineCache.key("", gpu_name, {"peaks": True})

    def get(self, key: str, required: str = "baseline") -> dict | None:
        """The entry under `key` when it holds `required` ("baseline", or "peaks" under `peaks_key`)."""
        try:
            entry = json.loads((self.directory / f"{key}.json").read_text())
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and required in entry else None

    def put(self, key: str, entry: dict) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            json.dump(entry, out)
        os.replace(tmp, self.directory / f"{key}.json")
