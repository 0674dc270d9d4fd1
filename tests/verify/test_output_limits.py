"""What a candidate's output may cost the verifier: an amplified return is refused from its header."""

import textwrap

import pytest
import torch

from tritonrl.verify import handoff
from tritonrl.verify.handoff import Inbox, send_outputs

from tests.support.candidates import candidate


def _counting_memfds(monkeypatch) -> list:
    created = []
    make = handoff._memfd_create
    monkeypatch.setattr(handoff, "_memfd_create", lambda *args: created.append(args) or make(*args))
    return created


def test_outputs_beyond_the_limit_are_refused_before_they_are_copied(tmp_path, monkeypatch):
    created = _counting_memfds(monkeypatch)
    received = {}
    with Inbox(tmp_path, "cpu", lambda label, tensors: received.update({label: [t.clone() for t in tensors]}), 1 << 20) as box:
        big = torch.ones(1)[:1].expand(1 << 29)  # 2 GiB as a copy, 4 bytes of memory
        with pytest.raises(RuntimeError, match="did not take outputs 0"):
            send_outputs(0, [torch.ones(4), big, big, big, big], str(box.path))
        assert created == [] and received == {}
        assert box.errors == {"0": f"outputs of {16 + 4 * (2 << 30)} bytes exceed the {1 << 20} bytes expected at most"}
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
    assert any("could not be handed over" in r.message and "bytes expected at most" in r.message for r in verdict.reasons), verdict.reasons
