"""The verifier's defaults, cheap to import: the app's config (tritonrl/config.py) takes its `verify` section's
defaults from here, so the verifier needs nothing of the app to run."""

from __future__ import annotations

from typing import Literal, get_args

Device = Literal["cpu", "cuda"]
Precision = Literal["strict", "tf32"]
PRECISIONS: tuple[str, ...] = get_args(Precision)

DEVICE: Device = "cpu"
TRIALS = 3
TIMEOUT_S = 45.0
PRECISION: Precision = "strict"
JUDGE_API_KEY_ENV = "OPENAI_API_KEY"
JUDGE_TIMEOUT_S = 120.0
