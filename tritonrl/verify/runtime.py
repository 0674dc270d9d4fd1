"""Run a candidate `ModelNew` next to the reference `Model` and compare outputs.

This is the functional core of the verifier's runtime layer: import both
sources as real files (Triton's `@jit` reads function source from disk),
build both models with identical seeded weights, feed them the same fresh
inputs for several trials and compare outputs under per-dtype tolerances.
It runs in the calling process; isolation is the sandbox's job.

On CPU, set TRITON_INTERPRET=1 before triton is imported so kernels run in
the Triton interpreter.

Test: tests/problems/test_builtin_suite.py runs every reference solution.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch

# (atol, rtol) per output dtype. fp32 admits TF32 accumulation in tl.dot
# (relative error ~1e-3 at K≤4096) yet rejects computing in bf16 (~4e-3);
# half-precision outputs get their own rounding step (~1e-3 fp16, ~8e-3 bf16).
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float32: (1e-3, 1e-3),
    torch.float64: (1e-7, 1e-7),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (2e-2, 2e-2),
}

_module_counter = itertools.count()


@dataclass(frozen=True)
class CorrectnessResult:
    """Outcome of comparing candidate and reference over all trials."""

    correct: bool
    trials: int
    max_abs_error: float
    message: str


def import_source(source: str, stem: str, directory: Path) -> ModuleType:
    """Write `source` to `directory/<stem>_<n>.py` and import it as a fresh module."""
    name = f"{stem}_{next(_module_counter)}"
    path = directory / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _to_device(values: list, device: str) -> list:
    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values]


def _clone(values: list) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def split_init_inputs(values: list) -> tuple[list, dict]:
    """Constructor (args, kwargs) from `get_init_inputs()`.

    KernelBench returns positional args; KernelBook returns `[args, kwargs]`
    (exactly a list and a dict), which is taken as that form.
    """
    if len(values) == 2 and isinstance(values[0], (list, tuple)) and isinstance(values[1], dict):
        return list(values[0]), dict(values[1])
    return list(values), {}


def build_models(problem: ModuleType, solution: ModuleType, seed: int, device: str):
    """Construct `Model` and `ModelNew` with the same init inputs and weights."""
    torch.manual_seed(seed)
    args, kwargs = split_init_inputs(problem.get_init_inputs())
    torch.manual_seed(seed)
    reference = problem.Model(*args, **kwargs).to(device).eval()
    torch.manual_seed(seed)
    candidate = solution.ModelNew(*args, **kwargs).to(device).eval()
    # Same-named parameters/buffers get the reference's values, so a candidate
    # that creates its parameters in another order is still compared fairly.
    reference_state = reference.state_dict()
    shared = {
        k: v for k, v in reference_state.items()
        if k in candidate.state_dict() and candidate.state_dict()[k].shape == v.shape
    }
    candidate.load_state_dict(shared, strict=False)
    return reference, candidate


def compare_outputs(expected, actual) -> tuple[bool, float, str]:
    """Compare (possibly nested) outputs; returns (ok, max_abs_error, message)."""
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            return False, float("inf"), f"expected a sequence of {len(expected)} outputs"
        worst = 0.0
        for e, a in zip(expected, actual):
            ok, err, msg = compare_outputs(e, a)
            worst = max(worst, err)
            if not ok:
                return False, worst, msg
        return True, worst, "ok"
    if not isinstance(actual, torch.Tensor):
        return False, float("inf"), f"expected a tensor, got {type(actual).__name__}"
    if actual.shape != expected.shape:
        return False, float("inf"), f"shape {tuple(actual.shape)} != expected {tuple(expected.shape)}"
    if actual.dtype != expected.dtype:
        return False, float("inf"), f"dtype {actual.dtype} != expected {expected.dtype}"
    if expected.numel() == 0:
        return True, 0.0, "ok"
    diff = (actual.double() - expected.double()).abs()
    max_err = float(diff.max())
    if not torch.isfinite(actual).all() and torch.isfinite(expected).all():
        return False, max_err, "output holds NaN or inf where the reference is finite"
    atol, rtol = TOLERANCES.get(expected.dtype, (0.0, 0.0))
    if not torch.allclose(actual.double(), expected.double(), atol=atol, rtol=rtol, equal_nan=True):
        return False, max_err, f"max abs error {max_err:.3g} exceeds atol={atol}, rtol={rtol}"
    return True, max_err, "ok"


def check_correctness(
    problem_source: str, solution_code: str, *, seed: int = 0, trials: int = 2, device: str = "cpu"
) -> CorrectnessResult:
    """Run reference and candidate on `trials` fresh input sets and compare them."""
    with tempfile.TemporaryDirectory(prefix="tritonrl-run-") as tmp:
        problem = import_source(problem_source, "problem", Path(tmp))
        solution = import_source(solution_code, "solution", Path(tmp))
        reference, candidate = build_models(problem, solution, seed, device)
        worst = 0.0
        with torch.no_grad():
            for trial in range(trials):
                torch.manual_seed(seed + 1 + trial)
                inputs = _to_device(problem.get_inputs(), device)
                expected = reference(*_clone(inputs))
                actual = candidate(*_clone(inputs))
                ok, err, message = compare_outputs(expected, actual)
                worst = max(worst, err)
                if not ok:
                    return CorrectnessResult(False, trial + 1, worst, f"trial {trial}: {message}")
        return CorrectnessResult(True, trials, worst, "ok")
