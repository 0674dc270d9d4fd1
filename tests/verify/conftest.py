import pytest

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.verifier import Verifier, VerifierSettings


@pytest.fixture(scope="session")
def builtin_problems():
    return {p.name: p for p in load_builtin()}


@pytest.fixture(scope="session")
def verifier():
    """One CPU verifier (and fork server) shared by the verifier tests; 2 trials keep them quick."""
    with Verifier(VerifierSettings(device="cpu", trials=2, timeout_s=30)) as v:
        yield v
