"""Feedback on real verdicts at the other-shape trial: nothing of its sizes reaches the policy (prompts.py)."""

import re

from tritonrl.prompts import feedback_message

from tests.support.candidates import candidate


def test_an_exception_raised_only_at_the_other_shape_reaches_the_feedback_as_its_type(verifier, builtin_problems):
    """The red team's c02: the exception spells the other shape's sizes and their products in its text."""
    reference = verifier.prepare_reference(builtin_problems["01_relu.py"].source)
    body = (
        f"if x.shape[0] != {reference.shapes['batch_size']}:\n"
        '    raise ValueError(f"unsupported b{x.shape[0]}d{x.shape[1]} = {x.numel()}, tiles {x.shape[1] * 1000 + 7}")'
    )
    verdict = verifier.verify_against(reference, candidate(body))
    (reason,) = verdict.reasons
    (label,) = [n for n in verdict.other_shape_trials if reason.message.startswith(reference.describe(n) + ":")]
    batch, dim = reference.trials[label].shapes["batch_size"], reference.trials[label].shapes["dim"]
    assert reason.code.value == "runtime_error" and batch != reference.shapes["batch_size"]
    assert f"b{batch}d{dim}" in reason.message  # the verdict, read by people, keeps the details
    text = feedback_message(verdict)
    assert "- [runtime_error] 'failed at the other shape with ValueError'" in text
    assert not set(re.findall(r"\d+", text)) & {str(batch), str(dim), str(batch * dim), str(dim * 1000 + 7)}
