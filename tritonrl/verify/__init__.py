"""The verifier: parse a model response, run the candidate, judge it."""

import os


def use_interpreter_on(device: str) -> None:
    """On cpu, Triton kernels run in its interpreter; call before triton is first imported in the process."""
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
