import os

import pytest

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.verifier import Verifier, VerifierSettings


@pytest.fixture(scope="session")
def builtin_problems():
    return {p.name: p for p in load_builtin()}


@pytest.fixture(scope="session")
def verifier():
    """One verifier (and fork server) shared by the verifier tests; 2 trials keep them quick.

    CPU by default; TRITONRL_TEST_DEVICE=cuda runs the same tests on a GPU host.
    """
    device = os.environ.get("TRITONRL_TEST_DEVICE", "cpu")
    with Verifier(VerifierSettings(device=device, trials=2, timeout_s=30 if device == "cpu" else 120)) as v:
        yield v
