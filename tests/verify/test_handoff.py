"""Outputs handed from a child to the verifier by descriptor: exact values, and malformed messages refused."""

import array
import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import torch

from tritonrl.verify.handoff import ACCEPTED, DESCRIPTORS, Inbox, send_outputs


@pytest.fixture
def inbox(tmp_path):
    received: dict = {}

    def keep(label, tensors):
        received[label] = [t.clone() for t in tensors]

    with Inbox(tmp_path, "cpu", keep, limit=1 << 20) as box:
        box.received = received
        yield box


def _send_raw(path, header, fds=()):
    """A hand-written handover, as a candidate that reached the socket could send it: the header, then the
    descriptors if the verifier accepted it; returns the last reply byte."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
        connection.settimeout(10)
        connection.connect(str(path))
        connection.send(json.dumps(header).encode())
        reply = connection.recv(1)
        if reply == ACCEPTED:
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))] if fds else []
            connection.sendmsg([DESCRIPTORS], rights)
            reply = connection.recv(1)
        return reply


def _bits(tensor):
    return tensor.resolve_conj().contiguous().reshape(-1).view(torch.uint8)


def test_outputs_arrive_exactly_whatever_their_dtype_and_layout(inbox):
    outputs = [
        torch.randn(3, 5).t(),  # not contiguous
        torch.randn(4, dtype=torch.bfloat16),
        torch.tensor([True, False, True]),
        torch.arange(6, dtype=torch.int64).reshape(2, 3),
        torch.empty(0, 7),
        torch.randn(4).to(torch.float8_e4m3fn),
        torch.arange(5, dtype=torch.int32).to(torch.uint16),
        torch.randn(3, dtype=torch.complex64).conj(),  # a conjugate view
        torch.tensor(2.5),  # 0-dim
    ]
    send_outputs(0, outputs, str(inbox.path))
    send_outputs("timed", outputs[:1], str(inbox.path))
    got = inbox.received[0]
    assert [(g.dtype, g.shape) for g in got] == [(o.dtype, o.shape) for o in outputs]
    assert all(torch.equal(_bits(g), _bits(o)) for g, o in zip(got, outputs))  # bit for bit (fp8 has no ==)
    assert torch.equal(inbox.received["timed"][0], outputs[0])
    assert inbox.errors == {}


def test_a_second_message_for_the_same_trial_is_refused(inbox):
    send_outputs(0, [torch.ones(2)], str(inbox.path))
    with pytest.raises(RuntimeError, match="did not take outputs 0"):
        send_outputs(0, [torch.zeros(2)], str(inbox.path))
    assert torch.equal(inbox.received[0][0], torch.ones(2))
    assert "sent twice" in inbox.errors["0"]


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("test")
    os.write(fd, data)
    return fd


@pytest.mark.parametrize(
    "case",
    [
        "pipe instead of a file",
        "fewer descriptors than tensors",
        "bytes do not match the shape",
        "larger than the limit",
        "together larger than the limit",
        "unknown dtype",
        "not json",
    ],
)
def test_malformed_messages_are_refused_without_blocking_the_verifier(inbox, case):
    spec = {"dtype": "float32", "shape": [2], "nbytes": 8}
    fds = []
    if case == "pipe instead of a file":
        read_end, write_end = os.pipe()  # a verifier reading it would wait forever
        fds = [read_end]
    elif case == "larger than the limit":
        spec = {"dtype": "uint8", "shape": [2 << 20], "nbytes": 2 << 20}
        fds = [_memfd(bytes(2 << 20))]
    elif case == "together larger than the limit":  # each under it: all of a message is imported at once
        spec = {"dtype": "uint8", "shape": [600 << 10], "nbytes": 600 << 10}
        fds = [_memfd(bytes(600 << 10)), _memfd(bytes(600 << 10))]
    elif case == "bytes do not match the shape":
        spec = {**spec, "nbytes": 4}
        fds = [_memfd(bytes(8))]
    elif case == "unknown dtype":
        spec = {**spec, "dtype": "object"}
        fds = [_memfd(bytes(8))]
    elif case != "fewer descriptors than tensors":
        fds = [_memfd(bytes(8))]
    header = "{not json" if case == "not json" else {"label": 0, "tensors": [spec] * max(len(fds), 1)}
    if case == "not json":
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as connection:
            connection.settimeout(10)
            connection.connect(str(inbox.path))
            connection.send(header.encode())
            reply = connection.recv(1)
    else:
        reply = _send_raw(inbox.path, header, fds)
    assert reply == b"\x00"
    assert inbox.errors and 0 not in inbox.received
    for fd in fds:
        os.close(fd)
    send_outputs(1, [torch.ones(1)], str(inbox.path))  # the inbox still serves
    assert 1 in inbox.received


def test_a_handler_failure_is_recorded_not_raised(tmp_path):
    def refuse(label, tensors):
        raise ValueError("no such trial")

    with Inbox(tmp_path, "cpu", refuse, limit=1 << 20) as box:
        with pytest.raises(RuntimeError):
            send_outputs(3, [torch.ones(1)], str(box.path))
    assert box.errors == {"3": "no such trial"}


@pytest.mark.gpu
def test_gpu_outputs_cross_a_pid_namespace_and_stay_on_the_device(tmp_path):
    """The child runs in its own user and PID namespaces, where legacy CUDA IPC handles fail."""
    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    received = {}
    with Inbox(tmp_path, "cuda:0", lambda label, ts: received.update({label: [t.clone() for t in ts]}), 1 << 34) as box:
        child = textwrap.dedent(f"""
            import torch
            from tritonrl.verify.handoff import send_outputs
            torch.manual_seed(0)
            send_outputs(0, [torch.randn(4096, 4096, device="cuda"), torch.arange(7, device="cuda").half()], {str(box.path)!r})
        """)
        command = [sys.executable, "-c", child]
        namespaces = ["unshare", "--user", "--map-current-user", "--pid", "--fork", "--mount", "--mount-proc"]
        if subprocess.run([*namespaces, "true"]).returncode == 0:
            command = [*namespaces, *command]
        env = {**os.environ, "PYTHONPATH": os.getcwd()}
        subprocess.run(command, check=True, env=env, timeout=120)
    torch.manual_seed(0)
    expected = torch.randn(4096, 4096, device="cuda")
    assert box.errors == {}
    assert received[0][0].is_cuda and torch.equal(received[0][0], expected)
    assert torch.equal(received[0][1], torch.arange(7, device="cuda").half())


def test_inbox_stops_cleanly_when_nothing_was_sent(tmp_path):
    with Inbox(tmp_path, "cpu", lambda *a: None, limit=1) as box:
        assert box.path.exists()
    assert not any(t.name.startswith("inbox-") for t in threading.enumerate())


def test_connections_a_dead_job_left_open_do_not_hold_the_verifier(tmp_path):
    idle = []
    started = time.monotonic()
    with Inbox(tmp_path, "cpu", lambda *a: None, limit=1 << 20) as box:
        for _ in range(5):  # connected, never sending: one is being read, the others wait in the backlog
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            connection.connect(str(box.path))
            idle.append(connection)
        time.sleep(0.2)
    assert time.monotonic() - started < 5  # not 30 s per connection
    for connection in idle:
        connection.close()
