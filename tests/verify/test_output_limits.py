"""What a candidate's output may cost the verifier: a print flood keeps a small log, an amplified return is refused
from its header, and the job folders of a verifier that was killed are swept by the next one."""

import os
import signal
import subprocess
import sys
import tempfile
import textwrap

import pytest
import torch

from tritonrl.verify import handoff
from tritonrl.verify.handoff import Inbox, send_outputs
from tritonrl.verify.sandbox import LOG_KEEP_BYTES, VERIFIER_FOLDER_PREFIX, claim_verifier_folder
from tritonrl.verify.verifier import Verifier, VerifierSettings

from tests.support.candidates import candidate

FLOOD = 'chunk = "A" * (1 << 20)\nfor _ in range(50):\n    print(chunk)\nprint("the flood is over")'  # 50 MiB a call


@pytest.fixture
def log_sizes(monkeypatch):
    """The size of each child log the verifier read a tail of (the job folder is gone once the verdict is made)."""
    sizes = []
    read_tail = Verifier._log_tail
    monkeypatch.setattr(
        Verifier,
        "_log_tail",
        staticmethod(lambda job_dir: sizes.append((job_dir / "child.log").stat().st_size) or read_tail(job_dir)),
    )
    return sizes


def test_a_print_flood_keeps_the_log_small_and_its_end(verifier, builtin_problems, log_sizes):
    relu = builtin_problems["01_relu.py"]
    crashed = verifier.verify(relu.source, candidate(FLOOD + "\nimport os\nos._exit(3)"))
    assert "crashed" in crashed.codes, crashed.reasons
    assert "the flood is over" in crashed.reasons[-1].message  # the end of the output, where a traceback would be
    assert log_sizes and max(log_sizes) <= 2 * LOG_KEEP_BYTES + 200  # of 50 MiB printed
    flooded = verifier.verify(relu.source, candidate(FLOOD))
    assert flooded.correct, flooded.reasons  # the verdict its outputs earn; the verifier carries on


def _counting_memfds(monkeypatch) -> list:
    created = []
    make = handoff._memfd_create
    monkeypatch.setattr(handoff, "_memfd_create", lambda *args: created.append(args) or make(*args))
    return created


def test_outputs_beyond_the_limit_are_refused_before_they_are_copied(tmp_path, monkeypatch):
    created = _counting_memfds(monkeypatch)
    received = {}
    with Inbox(
        tmp_path, "cpu", lambda label, tensors: received.update({label: [t.clone() for t in tensors]}), 1 << 20
    ) as box:
        big = torch.ones(1)[:1].expand(1 << 29)  # 2 GiB as a copy, 4 bytes of memory
        with pytest.raises(RuntimeError, match="did not take outputs 0"):
            send_outputs(0, [torch.ones(4), big, big, big, big], str(box.path))
        assert created == [] and received == {}
        assert box.errors == {
            "0": f"outputs of {16 + 4 * (2 << 30)} bytes exceed what this job's outputs may hold (a few times the reference's)"
        }
        send_outputs(1, [torch.ones(4)], str(box.path))  # within the limit: copied and delivered
    assert len(created) == 1 and torch.equal(received[1][0], torch.ones(4))


def test_an_amplified_return_is_refused_with_the_limit_not_out_of_memory(verifier, builtin_problems):
    """Four 8 GiB broadcast views: copying one would exceed the child's 8 GiB address-space limit."""
    body = textwrap.dedent("""\
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
        big = out.reshape(-1)[:1].expand(1 << 31)
        return out, big, big, big, big""")
    verdict = verifier.verify(builtin_problems["01_relu.py"].source, candidate(body))
    assert "out_of_memory" not in verdict.codes and not verdict.correct
    assert any("could not be handed over" in r.message and "may hold" in r.message for r in verdict.reasons), (
        verdict.reasons
    )


KILLED_VERIFIER = """
import os, signal, sys
from tritonrl.verify.verifier import Verifier, VerifierSettings
verifier = Verifier(VerifierSettings(device="cpu"))
print(verifier._root, flush=True)
sys.stdin.readline()
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("owner", ["killed", "alive"])
def test_a_new_verifier_sweeps_the_folders_of_killed_ones_only(tmp_path, monkeypatch, owner):
    monkeypatch.setenv("TRITONRL_JOB_ROOT", str(tmp_path))
    other = subprocess.Popen(
        [sys.executable, "-c", KILLED_VERIFIER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        folder = other.stdout.readline().strip()
        assert os.path.basename(folder).startswith(f"{VERIFIER_FOLDER_PREFIX}{other.pid}-")
        os.mkdir(os.path.join(folder, "candidate-left-behind"))
        if owner == "killed":
            other.communicate("\n", timeout=30)
            assert other.returncode == -signal.SIGKILL
        with Verifier(VerifierSettings(device="cpu")) as verifier:
            assert os.path.isdir(folder) is (owner == "alive")
            assert verifier._root.is_dir()
        assert not verifier._root.exists()
    finally:
        other.kill()
        other.wait()


def test_a_folder_swept_before_it_was_locked_is_replaced(tmp_path, monkeypatch):
    """Verifiers starting together: one's sweep can remove another's new folder before its lock (seen on a 16-core host)."""
    made = []
    mkdtemp = tempfile.mkdtemp

    def swept_once(**kwargs):
        folder = mkdtemp(**kwargs)
        made.append(folder)
        if len(made) == 1:
            os.rmdir(folder)  # what a concurrent verifier's sweep does to a folder nobody holds yet
        return folder

    monkeypatch.setattr(tempfile, "mkdtemp", swept_once)
    folder, fd = claim_verifier_folder(tmp_path)
    try:
        assert len(made) == 2 and str(folder) == made[1] and folder.is_dir()
    finally:
        os.close(fd)
