"""The reference job's choices of what trials draw: which distributions hide small errors, which integers change."""

import torch

from tritonrl.verify.child import _masking, _moves_data_only, _varied_integers
from tritonrl.verify.draws import build_reference, make_inputs


def _problem(model_class, init=(), shape=(16, 512)) -> type:
    return type(
        "Problem",
        (),
        {
            "Model": model_class,
            "get_init_inputs": staticmethod(lambda: list(init)),
            "get_inputs": staticmethod(lambda: [torch.randn(*shape)]),
        },
    )


class _RowSum(torch.nn.Module):
    def forward(self, x):
        return x.sum(dim=1)


class _RowNorm(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.layer_norm(x, x.shape[-1:])


_SEEDS = [("zeros_and_ties", 1), ("offset", 2), ("normal", 3)]


def test_distributions_that_inflate_the_output_stay_at_the_primary_shapes():
    """Constant rows of -0.5 make row sums in the hundreds, so an element read past a row's end is within a
    tolerance relative to the output (the CI failure of 2026-12-04); a LayerNorm's rows stay O(1)."""
    assert _masking(_problem(_RowSum), _RowSum(), [True], _SEEDS, "cpu") == {"zeros_and_ties", "offset"}
    assert _masking(_problem(_RowNorm), _RowNorm(), [True], _SEEDS, "cpu") == set()


class _Divide(torch.nn.Module):
    def __init__(self, dim, divisor, groups):
        super().__init__()
        self.dim, self.divisor, self.norm = dim, divisor, torch.nn.GroupNorm(groups, 16)

    def forward(self, x):
        return self.norm(x / self.divisor).sum(dim=self.dim)


def test_integers_the_reference_uses_change_and_axes_do_not():
    problem = _problem(_Divide, init=(2, 2, 8), shape=(4, 16, 8))
    inputs = make_inputs(problem, 1, "cpu")
    changed = _varied_integers(problem, 1, "cpu", "signed", inputs, [True])
    assert set(changed) == {"1", "2"} and changed["1"] != 2 and 16 % changed["2"] == 0  # groups must divide channels
    model = build_reference(problem, 1, "cpu", "signed", 1, changed)
    assert model.dim == 2 and model.divisor == changed["1"]


class _Apply(torch.nn.Module):
    def __init__(self, function):
        super().__init__()
        self.function = function

    def forward(self, x):
        return self.function(x)


def test_a_reference_that_only_moves_values_is_told_by_what_it_does_not_by_its_ops_name():
    """A roll, a flip, a triangle, a concatenation or padding: every output element is an input element or 0 at a
    place that does not depend on the values, so an answer's torch copies are the computation (red team B: roll
    by cat, tril by row copies, flip by stack passed with a decoy kernel). Rounding, ReLU, max-pool, sort do not."""
    x = [torch.randn(8, 16)]
    moving = [
        lambda x: torch.roll(x, 3, 1),
        lambda x: x.flip(1),
        torch.tril,
        lambda x: torch.cat([x, x], 1),
        lambda x: torch.nn.functional.pad(x, (1, 1)),
        lambda x: x.t().contiguous(),
    ]
    computing = [
        torch.relu,
        torch.trunc,
        torch.abs,
        lambda x: -x,
        lambda x: x.sort(1).values,
        lambda x: x.clamp(-3, 3),
        lambda x: torch.nn.functional.max_pool1d(x[None], 2)[0],
        lambda x: x.cumsum(1),
    ]
    assert all(_moves_data_only(_Apply(f), x, "cpu") for f in moving)
    assert not any(_moves_data_only(_Apply(f), x, "cpu") for f in computing)
