"""How far the reference's own rounding moves its outputs on a trial's inputs: the part of a difference no honest
kernel can avoid.

Some draws are ill-conditioned on purpose (rows nearly constant, values a thousand times their spread), and a model
may chain steps that amplify rounding (a normalisation of a normalisation). There an honest fp32 kernel and the
fp32 reference each stray from the exact result by about the tolerance, in different directions. The reference run
again in float64 measures its own stray; the trial's tolerance grows by runtime.ROUNDING_FACTOR times it
(runtime.compare_outputs). On well-conditioned inputs the stray is a few units in the last place, so those trials keep
their full strictness, and an answer wrong by more than rounding explains is refused on them.
"""

from __future__ import annotations

import copy

import torch

from tritonrl.verify.runtime import flatten_outputs, scaled_atol

# float64 copies of a trial's inputs and outputs above this are not made (full-size GPU trials of elementwise
# problems, well-conditioned): the tolerance stays as it is.
ROUNDING_BYTES = 2 << 30
# A stray below this share of an output's atol widens nothing that matters: the float64 measure is then taken as it is.
NEGLIGIBLE = 0.01


def _wide(value):
    if isinstance(value, torch.Tensor) and (value.is_floating_point() or value.is_complex()):
        return value.to(torch.complex128 if value.is_complex() else torch.float64)
    return value


def _nudged(value, generator: torch.Generator):
    """A float tensor with every element moved by one rounding step of its dtype, up or down at random."""
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return value
    signs = torch.randint(0, 2, value.shape, generator=generator).to(value.device, value.dtype) * 2 - 1
    return value * (1 + signs * torch.finfo(value.dtype).eps)


def _stray(narrow: torch.Tensor, other: list | None, index: int) -> float:
    """Largest |narrow − other[index]| where both are finite; 0.0 where they cannot be compared."""
    if (
        other is None
        or len(other) <= index
        or not isinstance(other[index], torch.Tensor)
        or not (narrow.is_floating_point() or narrow.is_complex())
        or other[index].shape != narrow.shape
    ):
        return 0.0
    difference = (narrow.detach().to(torch.complex128 if narrow.is_complex() else torch.float64) - other[index]).abs()
    finite = torch.isfinite(difference)
    return float(difference[finite].max()) if bool(finite.any()) else 0.0


def _atol(output: torch.Tensor) -> float:
    if not (output.is_floating_point() or output.is_complex()):
        return 0.0
    return scaled_atol(output, str(output.device))


def _run(model: torch.nn.Module, inputs: list, dtype: torch.dtype) -> list | None:
    """The model's outputs with `dtype` the default (tensors its forward makes itself follow it); None if it fails."""
    default = torch.get_default_dtype()
    try:
        torch.set_default_dtype(dtype)
        with torch.no_grad():
            return flatten_outputs(model(*inputs))
    except Exception:  # an op without a float64 kernel, out of memory: no measure
        return None
    finally:
        torch.set_default_dtype(default)


def reference_rounding(model: torch.nn.Module, inputs: list, outputs: list[torch.Tensor]) -> list[float]:
    """Per output, how far the reference's rounding moves `outputs` (its outputs on `inputs`, which are untouched:
    drawn again). The smaller of two measures: the difference to the model computed in float64, which overflow
    and underflow in float32 inflate (a row of 1e30 squared), and the difference to its outputs on inputs moved by
    one rounding step, which a tie broken the other way inflates (an argmax over equal values). Rounding moves both.
    Zeros where it cannot be measured."""
    size = sum(v.numel() * 8 for v in [*inputs, *outputs] if isinstance(v, torch.Tensor))
    if size > ROUNDING_BYTES or not any(o.is_floating_point() or o.is_complex() for o in outputs):
        return [0.0] * len(outputs)
    try:
        wide_model = copy.deepcopy(model).double()
    except Exception:  # a model that cannot be copied: no measure
        return [0.0] * len(outputs)
    wide = _run(wide_model, [_wide(v) for v in inputs], torch.float64)
    del wide_model
    strays = [_stray(o, wide, i) for i, o in enumerate(outputs)]
    if all(stray <= NEGLIGIBLE * _atol(o) for stray, o in zip(strays, outputs)):
        return strays  # the common case: no second measure needed to tell rounding from range
    generator = torch.Generator().manual_seed(0)
    nudged = _run(model, [_nudged(v, generator) for v in inputs], torch.get_default_dtype())
    return [min(stray, _stray(o, nudged, i)) for i, (o, stray) in enumerate(zip(outputs, strays))]
