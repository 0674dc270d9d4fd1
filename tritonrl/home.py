"""Where this machine keeps TritonRL's local state: artifacts, databases, models, caches."""

from __future__ import annotations

import os
from pathlib import Path


def state_dir() -> Path:
    """$TRITONRL_HOME, or ./.tritonrl."""
    return Path(os.environ.get("TRITONRL_HOME") or ".tritonrl").resolve()
