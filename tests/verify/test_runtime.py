"""The correctness runner tells right from wrong (the full anti-hack verifier builds on it)."""

import pytest

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.response import parse_response
import torch

from tritonrl.verify.result import ReasonCode
from tritonrl.verify.runtime import check_correctness, compare_outputs, split_init_inputs

RELU = next(p for p in load_builtin() if p.name == "01_relu.py")
RELU_CODE = parse_response(RELU.reference_response).code


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("tl.maximum(x, 0.0)", "tl.maximum(x, 0.1)"), "exceeds the tolerance"),
        (("torch.empty_like(x)", "torch.empty(x.shape[0], x.shape[1] + 1)"), "shape"),
        (("torch.empty_like(x)", "torch.empty_like(x, dtype=torch.float64)"), "dtype"),
        (("tl.maximum(x, 0.0)", "x / 0.0"), "NaN/inf"),
    ],
)
def test_wrong_candidates_are_rejected_with_the_reason(edit, message):
    code = RELU_CODE.replace(*edit)
    assert code != RELU_CODE
    result = check_correctness(RELU.source, code)
    assert not result.correct
    assert message in result.message


def test_reference_passes_with_zero_error():
    result = check_correctness(RELU.source, RELU_CODE, trials=3)
    assert result.correct and result.trials == 3 and result.max_abs_error == 0.0


def test_kernelbook_args_kwargs_form_of_init_inputs():
    assert split_init_inputs([[], {}]) == ([], {})
    assert split_init_inputs([[3], {"eps": 1e-5}]) == ([3], {"eps": 1e-5})
    assert split_init_inputs([64, 3]) == ([64, 3], {})


def test_tolerance_scales_with_the_output_so_tiny_outputs_are_checked_too():
    expected = [torch.full((1000,), 2.5e-6)]
    assert compare_outputs(expected, [expected[0] * 1.0005])[0] is None
    code, _, message = compare_outputs(expected, [torch.zeros(1000)])  # fixed atol=1e-3 would accept this
    assert code is ReasonCode.WRONG_RESULT and "output RMS" in message
