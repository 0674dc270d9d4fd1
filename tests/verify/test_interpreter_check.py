"""The CPU verifier refuses a Triton/numpy pair whose interpreter would fail honest kernels, saying what to install.

The versions are those a fork server imports (its scrubbed environment), not the caller's.
"""

import os

import pytest

from tritonrl.verify import interpreter
from tritonrl.verify.interpreter import InterpreterUnusable, check_interpreter


def _sandbox_has(monkeypatch, triton: str, numpy: str) -> None:
    monkeypatch.setattr(interpreter, "_sandbox_versions", lambda pythonpath: (triton, numpy))


@pytest.mark.parametrize("triton, numpy", [("3.6.0", "2.4.6"), ("3.6.0", "2.5.2"), ("3.5.1", "2.4.0.dev0")])
def test_an_old_interpreter_with_a_new_numpy_is_refused_with_the_fix(monkeypatch, triton, numpy):
    _sandbox_has(monkeypatch, triton, numpy)
    with pytest.raises(InterpreterUnusable) as raised:
        check_interpreter()
    message = str(raised.value)
    assert f"triton {triton} with numpy {numpy}" in message
    assert "numpy<2.4" in message and "triton>=3.7" in message and "verify.device=cuda" in message


@pytest.mark.parametrize(
    "triton, numpy",
    [
        ("3.6.0", "2.3.5"),
        ("3.7.0+git1234", "2.5.2"),
        ("3.9.0", "2.4.6"),
        ("3.10.0rc1", "2.6.0"),
        ("3.6rc1", "2.3rc1"),
        ("", "2.5.2"),
        ("3.6.0", ""),
        ("v3.6", "2.5"),  # unreadable or missing: unknown, not known bad
    ],
)
def test_working_or_unknown_pairs_pass(monkeypatch, triton, numpy):
    _sandbox_has(monkeypatch, triton, numpy)
    check_interpreter()


def _fake_numpy(directory) -> str:
    (directory / "numpy").mkdir(parents=True)
    (directory / "numpy" / "__init__.py").write_text("__version__ = '1.0.0'\n")
    return str(directory)


@pytest.mark.parametrize("place, seen", [("packages", "1.0.0"), ("home/pylib", "the venv's")])
def test_the_versions_are_those_the_sandbox_imports(monkeypatch, tmp_path, place, seen):
    """A package directory on PYTHONPATH counts when the sandbox passes it on, not when it hides it (the home)."""
    import numpy

    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PYTHONPATH", _fake_numpy(tmp_path / place))
    interpreter._sandbox_versions.cache_clear()
    _, version = interpreter._sandbox_versions(os.environ["PYTHONPATH"])
    assert version == ("1.0.0" if seen == "1.0.0" else numpy.__version__)


def test_a_failed_reading_lets_the_pair_through(monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("no interpreter")

    monkeypatch.setattr(interpreter.subprocess, "run", broken)
    interpreter._sandbox_versions.cache_clear()
    assert interpreter._sandbox_versions("x") == ("", "")
    check_interpreter()
    interpreter._sandbox_versions.cache_clear()


def test_a_pool_refuses_before_any_work(monkeypatch):
    from tritonrl.verify.pool import VerifierPool
    from tritonrl.verify.verifier import VerifierSettings

    _sandbox_has(monkeypatch, "3.6.0", "2.4.6")
    with pytest.raises(InterpreterUnusable):
        VerifierPool(VerifierSettings(device="cpu"))


def test_the_cli_reports_it_as_a_usage_error(monkeypatch, tmp_path, builtin_problems):
    from typer.testing import CliRunner

    from tritonrl.cli import app

    problem = tmp_path / "relu.py"
    problem.write_text(builtin_problems["01_relu.py"].source)
    _sandbox_has(monkeypatch, "3.6.0", "2.4.6")
    result = CliRunner().invoke(app, ["verify", "--problem", str(problem), "--candidate", str(problem)])
    assert result.exit_code == 2 and "numpy<2.4" in result.output, result.output
