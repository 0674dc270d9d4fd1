"""The readable verdict report (`tritonrl verify` without --json)."""

from tritonrl.verify.report import HINTS
from tritonrl.verify.result import ReasonCode


def test_every_reason_code_has_a_hint_for_the_readable_report():
    assert [code for code in ReasonCode if code not in HINTS] == []
