"""A trial's tolerance allows for the reference's own rounding where its inputs are ill-conditioned, and only there."""

import torch

from tritonrl.verify.result import ReasonCode
from tritonrl.verify.rounding import reference_rounding
from tritonrl.verify.runtime import ROUNDING_FACTOR, compare_outputs, tolerance


class _TwoNorms(torch.nn.Module):
    """A normalisation of a normalisation: rounding in the first is amplified by the second."""

    def __init__(self, features: int):
        super().__init__()
        self.first, self.second = torch.nn.LayerNorm(features), torch.nn.LayerNorm(features)
        with torch.no_grad():
            self.first.bias.uniform_(-0.1, 0.1, generator=torch.Generator().manual_seed(1))

    def forward(self, x):
        return self.second(torch.relu(self.first(x)))


class _SquareNorm(torch.nn.Module):
    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


class _RowMax(torch.nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=-1).float()


def _atol(output: torch.Tensor) -> float:
    return tolerance(output.dtype)[0] * float(output.double().pow(2).mean().sqrt())


def _measure(model, x):
    model = model.eval()
    output = model(x)
    return output, reference_rounding(model, [x], [output])[0]


def test_well_conditioned_inputs_keep_the_full_tolerance():
    x = torch.randn(32, 256, generator=torch.Generator().manual_seed(0))
    for model in (_TwoNorms(256), torch.nn.Linear(256, 64), torch.nn.Softmax(-1)):
        output, rounding = _measure(model, x)
        assert ROUNDING_FACTOR * rounding < 0.05 * _atol(output), model


def test_ill_conditioned_inputs_widen_it_by_what_the_reference_itself_strays():
    generator = torch.Generator().manual_seed(0)
    x = 1000 + 0.5 * torch.randn(32, 256, generator=generator)  # values 2000 times their spread
    output, rounding = _measure(_TwoNorms(256), x)
    wide = _TwoNorms(256).double().eval()(x.double())
    assert rounding <= float((output.double() - wide).abs().max())  # never more than the reference really strays
    assert rounding > 0.05 * _atol(output)


def test_float32_overflow_and_broken_ties_are_not_taken_for_rounding():
    huge = torch.tensor([[1e30, 2e30, -1e30, 5e29]])  # squares overflow in float32 (not in float64)
    output, rounding = _measure(_SquareNorm(), huge)
    assert rounding < 1e-5 * float(output.abs().max() + 1)
    ties = torch.tensor([[1.0, 1.0, 0.5, 1.0]] * 4)  # nudged by one step, argmax moves (not in float64)
    assert _measure(_RowMax(), ties)[1] == 0.0


def test_the_reference_inputs_are_left_as_they_were():
    x = 1000 + torch.randn(8, 64)
    before = x.clone()
    _measure(_TwoNorms(64), x)
    assert torch.equal(x, before)


def test_compare_outputs_allows_the_rounding_and_says_so():
    expected = [torch.ones(1000)]
    off = [expected[0] + 3e-3]  # three times fp32's atol at an RMS of 1 (and over its rtol)
    code, _, message = compare_outputs(expected, off)
    assert code is ReasonCode.WRONG_RESULT and "own rounding" not in message
    assert compare_outputs(expected, off, rounding=[3e-3 / ROUNDING_FACTOR])[0] is None
    code, _, message = compare_outputs(expected, [expected[0] + 1e-2], rounding=[3e-3 / ROUNDING_FACTOR])
    assert code is ReasonCode.WRONG_RESULT and "the reference's own rounding" in message
