"""The sandbox contains what candidates do: environment, network, time, crashes."""

import socket

import pytest

from tritonrl.verify.verifier import Verifier, VerifierSettings

RELU_SOURCE_HEAD = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
{body}
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        return out
"""


def candidate(body: str) -> str:
    return RELU_SOURCE_HEAD.format(body="\n".join("        " + line for line in body.splitlines()))


def test_child_sees_no_credentials(monkeypatch, builtin_problems):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s3cr3t-value")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    with Verifier(VerifierSettings(trials=1, timeout_s=30)) as verifier:
        verdict = verifier.verify(
            builtin_problems["01_relu.py"].source,
            candidate("import os\nraise RuntimeError('ENV=' + repr(sorted(os.environ.items())))"),
        )
    message = " ".join(r.message for r in verdict.reasons)
    assert "ENV=" in message
    assert "s3cr3t-value" not in message and "sk-should-not-leak" not in message
    assert "AWS_SECRET_ACCESS_KEY" not in message


def test_child_cannot_reach_a_loopback_server(verifier, builtin_problems):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    verdict = verifier.verify(
        builtin_problems["01_relu.py"].source,
        candidate(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'leak')"),
    )
    listener.setblocking(False)
    with pytest.raises(BlockingIOError):
        listener.accept()  # a connection the candidate made would be waiting in the backlog
    listener.close()
    assert "env_or_network" in verdict.codes
    assert not verdict.correct


def test_timeout_kills_the_child_and_the_verifier_survives(builtin_problems):
    with Verifier(VerifierSettings(trials=1, timeout_s=5)) as verifier:
        hung = verifier.verify(builtin_problems["01_relu.py"].source, candidate("while True:\n    pass"))
        assert "timeout" in hung.codes
        again = verifier.verify(builtin_problems["01_relu.py"].source, candidate("pass"))
    assert again.correct, again.reasons
    assert hung.seconds < 15


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ("import ctypes\nctypes.string_at(0)", "crashed"),
        ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "crashed"),
        ("import os\nos._exit(0)", "crashed"),
        ("x = torch.empty(10**12)", "out_of_memory"),
        ("raise SystemExit(3)", "runtime_error"),
    ],
)
def test_faults_come_back_as_verdicts(verifier, builtin_problems, body, code):
    verdict = verifier.verify(builtin_problems["01_relu.py"].source, candidate(body))
    assert code in verdict.codes, verdict.reasons
    assert not verdict.correct
