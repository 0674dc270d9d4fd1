"""The CPU verifier refuses a Triton/numpy pair whose interpreter would fail honest kernels, saying what to install."""

import pytest

import tritonrl.verify as verify
from tritonrl.verify import InterpreterUnusable, check_interpreter


def _installed(monkeypatch, triton: str, numpy: str) -> None:
    monkeypatch.setattr(verify.metadata, "version", {"triton": triton, "numpy": numpy}.__getitem__)


@pytest.mark.parametrize("triton, numpy", [("3.6.0", "2.4.6"), ("3.6.0", "2.5.2"), ("3.5.1", "2.4.0")])
def test_an_old_interpreter_with_a_new_numpy_is_refused_with_the_fix(monkeypatch, triton, numpy):
    _installed(monkeypatch, triton, numpy)
    with pytest.raises(InterpreterUnusable) as raised:
        check_interpreter()
    message = str(raised.value)
    assert f"triton {triton} with numpy {numpy}" in message
    assert "numpy<2.4" in message and "triton>=3.7" in message and "verify.device=cuda" in message


@pytest.mark.parametrize("triton, numpy", [("3.6.0", "2.3.5"), ("3.7.0", "2.5.2"), ("3.9.0", "2.4.6"), ("3.10.0rc1", "2.6.0")])
def test_working_pairs_pass(monkeypatch, triton, numpy):
    _installed(monkeypatch, triton, numpy)
    check_interpreter()


def test_the_cli_reports_it_as_a_usage_error(monkeypatch, tmp_path, builtin_problems):
    from typer.testing import CliRunner

    from tritonrl.cli import app

    problem = tmp_path / "relu.py"
    problem.write_text(builtin_problems["01_relu.py"].source)
    _installed(monkeypatch, "3.6.0", "2.4.6")
    result = CliRunner().invoke(app, ["verify", "--problem", str(problem), "--candidate", str(problem)])
    assert result.exit_code == 2 and "numpy<2.4" in result.output, result.output
