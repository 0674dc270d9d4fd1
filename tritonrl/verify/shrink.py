"""Shrink a problem's shape constants until it fits the Triton CPU interpreter.

KernelBench shapes are sized for an H100 (inputs of up to ~1.6 G elements);
the interpreter is ~1000× slower than a GPU, so CPU verification first
halves the largest shape constants (tuple elements too, shapes.py) until
inputs + weights + outputs hold at most `budget` elements; sites that share
an original value are halved together, as they may be tied (HingeLoss's
`batch_size` and `input_shape:0` broadcast against each other). Sizes are
measured on PyTorch's `meta` device, so no memory is allocated and no
compute runs. Constants ≤ `MIN_VALUE` (kernel sizes, strides, small channel
counts, reduction dims) are never touched.
Halving keeps powers of two, so divisibility constraints usually survive;
when they do not, the reference fails at the new shapes and the verdict
says so (`shapes_unsupported`).

Runs inside the sandbox (it executes the problem's module code).
Test: tests/verify/test_shrink.py.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch

from tritonrl.problems.shapes import ShapeError, shape_constants, with_shapes
from tritonrl.verify.draws import split_init_inputs
from tritonrl.verify.runtime import flatten_outputs, import_source

MIN_VALUE = 8  # constants at or below this are structural (kernel size, stride, dim index), not sizes
DEFAULT_BUDGET = 1 << 18  # elements: a few seconds per candidate in the interpreter on one core


def _numel(values) -> int:
    return sum(v.numel() for v in values if isinstance(v, torch.Tensor))


def element_count(source: str, workdir: Path) -> int:
    """Elements in inputs, parameters/buffers and outputs, measured on the meta device."""
    problem = import_source(source, "shrink_probe", workdir)
    with torch.device("meta"):
        inputs = problem.get_inputs()
        args, kwargs = split_init_inputs(problem.get_init_inputs())
        model = problem.Model(*args, **kwargs)
        total = _numel(inputs) + _numel(model.parameters()) + _numel(model.buffers())
        try:
            with torch.no_grad():
                total += _numel(flatten_outputs(model(*inputs)))
        except Exception:  # some ops have no meta kernel; inputs and weights still bound the size
            pass
    return total


def shrink_overrides(source: str, budget: int = DEFAULT_BUDGET) -> dict[str, int]:
    """Shape overrides (possibly empty) that bring the problem within `budget` elements."""
    original = shape_constants(source)
    current = dict(original)
    with tempfile.TemporaryDirectory(prefix="tritonrl-shrink-") as tmp:
        while element_count(with_shapes(source, current), Path(tmp)) > budget:
            shrinkable = [name for name, value in current.items() if value > MIN_VALUE]
            if not shrinkable:
                raise ShapeError(
                    f"cannot shrink below {budget} elements: every shape constant is already ≤ {MIN_VALUE} ({current})"
                )
            largest = max(shrinkable, key=current.__getitem__)
            for name in [n for n in current if original[n] == original[largest]]:
                current[name] = max(MIN_VALUE, current[name] // 2)
    return {name: value for name, value in current.items() if value != original[name]}
