"""Run a candidate `ModelNew` next to the reference `Model` and compare outputs.

The building blocks of the verifier's runtime layer: import sources as real
files (Triton's `@jit` reads function source from disk), build both models
with identical seeded weights, make inputs from a seed, compare outputs under
per-dtype tolerances, and watch what the candidate does while it runs (an
aten-level trace and a Triton launch counter).

`check_correctness` is the *naive* harness (in-process, no anti-hack layers):
it is what a plain KernelBench-style check would say, kept for the
robust-vs-naive comparison and for quick checks of trusted code. Untrusted
code goes through `tritonrl.verify.verifier`, which runs these pieces inside
the sandbox.

On CPU, set TRITON_INTERPRET=1 before triton is imported so kernels run in
the Triton interpreter.

Test: tests/verify/test_runtime.py.
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
import tempfile
import weakref
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import TorchDispatchMode

from tritonrl.verify.child_patches import pin_autotuning_for_interpreter
from tritonrl.verify.result import ReasonCode

# (atol, rtol) per output dtype; an element passes when
#   |actual - expected| <= atol * scale + rtol * |expected|,
# where scale is the RMS of the reference output (1 if it is all zeros).
# Scaling atol by the output's own size keeps tiny-by-nature outputs honest:
# a softmax over 400k columns is ~1e-6, where KernelBench's fixed atol=1e-2
# would pass an all-zero answer, and a bf16 softmax (0.4% error) slips
# through any fixed atol. fp32: 1e-3 rejects bf16 computation (~4e-3) and
# TF32 tl.dot where its error shows (fp32 references are not TF32: the
# downgrade would buy speed the reference does not get); half types get
# their own rounding step on top (~1e-3 fp16, ~8e-3 bf16).
TOLERANCES: dict[torch.dtype, tuple[float, float]] = {
    torch.float32: (1e-3, 1e-3),
    torch.float64: (1e-7, 1e-7),
    torch.float16: (1e-2, 1e-2),
    torch.bfloat16: (2e-2, 2e-2),
}
# fp32 outputs under `verify.precision=tf32`: TF32 dots round operands to a 10-bit mantissa, an
# error of about 0.5% of the output's RMS at K=64 (measured on the H200), like fp16's step.
TF32_TOLERANCE = (1e-2, 1e-2)


def tolerance(dtype: torch.dtype, precision: str = "strict") -> tuple[float, float]:
    """(atol, rtol) for an output dtype; fp32 gets the TF32 step when the precision policy allows TF32."""
    if dtype.is_complex:
        dtype = dtype.to_real()  # compared component by component (`_components`)
    if dtype == torch.float32 and precision == "tf32":
        return TF32_TOLERANCE
    return TOLERANCES.get(dtype, (0.0, 0.0))


def _components(tensor: torch.Tensor) -> torch.Tensor:
    """Real and imaginary parts side by side for a complex tensor (a cast to float64 would drop the imaginary part)."""
    return torch.view_as_real(tensor.detach().resolve_conj()) if tensor.is_complex() else tensor.detach()

# Aten ops a candidate's forward may run itself: allocation, layout, views,
# copies and casts ("glue"). Everything else is computation that must happen
# in Triton kernels. Names are overload-packet names (`aten.<name>`).
GLUE_OPS = frozenset(
    {
        "empty", "empty_like", "empty_strided", "new_empty", "new_empty_strided",
        "zeros", "zeros_like", "new_zeros", "ones", "ones_like", "new_ones", "full", "full_like", "new_full",
        "zero_", "fill_", "copy_", "clone", "_to_copy", "lift_fresh", "lift_fresh_copy", "arange",
        "view", "_unsafe_view", "reshape", "as_strided", "t", "transpose", "permute", "expand", "unsqueeze",
        "squeeze", "select", "slice", "narrow", "split", "split_with_sizes", "chunk", "unbind", "detach",
        "alias", "unfold", "diagonal", "view_as_real", "view_as_complex", "cat", "stack", "resize_",
        "set_", "_reshape_alias", "contiguous",
    }
)

_module_counter = itertools.count()


@dataclass(frozen=True)
class CorrectnessResult:
    """Outcome of the naive comparison of candidate and reference over all trials."""

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


def split_init_inputs(values: list) -> tuple[list, dict]:
    """Constructor (args, kwargs) from `get_init_inputs()`.

    KernelBench returns positional args; KernelBook returns `[args, kwargs]`
    (exactly a list and a dict), which is taken as that form.
    """
    if len(values) == 2 and isinstance(values[0], (list, tuple)) and isinstance(values[1], dict):
        return list(values[0]), dict(values[1])
    return list(values), {}


# The constant each varied tensor of a reference was built with, by name: what an answer's own
# `nn.Parameter(torch.ones(n))` is matched against.
_BUILT_CONSTANTS: weakref.WeakKeyDictionary[torch.nn.Module, dict[str, float]] = weakref.WeakKeyDictionary()


def seed_everything(seed: int) -> None:
    """Seed every generator a problem's `get_inputs` or `Model` may draw from: torch's, Python's `random`, numpy's.

    Seeding torch alone left `np.random`/`random` inputs the same in every
    verification (not secret) and different between the reference's and the
    candidate's processes (an honest kernel judged wrong).
    """
    import random

    torch.manual_seed(seed)
    random.seed(seed)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(seed % 2**32)


def build_reference(problem: ModuleType, seed: int, device: str) -> torch.nn.Module:
    """`Model(*init_inputs)` with weights drawn from `seed`, constant-initialised ones varied too."""
    seed_everything(seed)
    args, kwargs = split_init_inputs(problem.get_init_inputs())
    seed_everything(seed)
    model = problem.Model(*args, **kwargs)
    constants = _vary_constant_weights(model, seed)
    model = model.to(device).eval()
    _BUILT_CONSTANTS[model] = constants
    return model


def _vary_constant_weights(model: torch.nn.Module, seed: int) -> dict[str, float]:
    """Give parameters and buffers that start constant (LayerNorm's ones and zeros, a BatchNorm's
    running stats) seeded values, so an answer that skips them because they are 1 or 0 is wrong;
    returns the constants they had, by name.

    A nonzero constant is scaled elementwise by U(0.5, 1.5), keeping its sign (a variance stays
    positive); a zero one becomes U(-0.5, 0.5). Randomly initialised weights are left as drawn.
    """
    generator = torch.Generator().manual_seed(seed)
    constants = {}
    with torch.no_grad():
        for name, value in model.state_dict(keep_vars=True).items():
            if not value.is_floating_point() or value.numel() < 2 or not bool((value == value.flatten()[0]).all()):
                continue
            constants[name] = float(value.flatten()[0])
            noise = torch.rand(value.shape, generator=generator, dtype=value.dtype)
            value.copy_(noise - 0.5 if constants[name] == 0 else value * (noise + 0.5))
    return constants


def build_candidate(problem: ModuleType, solution: ModuleType, reference: torch.nn.Module, seed: int, device: str):
    """`ModelNew` with the reference's constructor arguments and the reference's weights (see `_shared_weights`)."""
    seed_everything(seed)
    args, kwargs = split_init_inputs(problem.get_init_inputs())
    seed_everything(seed)
    candidate = solution.ModelNew(*args, **kwargs).to(device).eval()
    shared = _shared_weights(reference.state_dict(), _BUILT_CONSTANTS.get(reference, {}), candidate.state_dict())
    candidate.load_state_dict(shared, strict=False)
    return candidate


def _shared_weights(reference: dict, constants: dict[str, float], candidate: dict) -> dict:
    """The reference's weights under the candidate's names, each reference tensor given out once.

    First to a candidate tensor that was built with the values a reference tensor was built with,
    as they are or transposed: the same seeded draws (another name, a pre-transposed copy) or the
    same constant (`nn.Parameter(torch.ones(n))` for LayerNorm's weight); the transposed get the
    reference's values transposed. Among several such, the same name is preferred, then the same
    last name part (`weight` for `ln.weight`; `gamma`, `scale` too), then declaration order.
    Tensors left over get the tensor of the same name and shape, then one of the same last name
    part, shape and dtype, then the next of the same shape and dtype.
    """
    claimed: set[str] = set()
    shared: dict = {}

    def give(name: str, pick) -> None:
        found = {k: value for k in reference if k not in claimed and (value := pick(k)) is not None}
        if found:
            best = min(found, key=lambda k: (k != name, _last_part(k) != _last_part(name)))
            claimed.add(best)
            shared[name] = found[best]

    for name, mine in candidate.items():
        give(name, lambda k: _as_built(mine, reference[k], constants.get(k)))
    for rule in (
        lambda mine, theirs, a, b: a == b and mine.shape == theirs.shape,
        lambda mine, theirs, a, b: _last_part(a) == _last_part(b) and _same_kind(mine, theirs),
        lambda mine, theirs, a, b: _same_kind(mine, theirs),
    ):
        for name, mine in candidate.items():
            if name not in shared:
                give(name, lambda k: reference[k] if rule(mine, reference[k], name, k) else None)
    return shared


# Last name parts that mean the same parameter (`scale`/`gamma` for a norm's `weight`).
_SYNONYMS = {
    name: group for group in ({"weight", "gamma", "scale", "w"}, {"bias", "beta", "shift", "b"}) for name in group
}


def _last_part(name: str) -> str:
    last = name.rsplit(".", 1)[-1]
    return min(_SYNONYMS.get(last.lower(), {last}))


def _same_kind(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype


def _as_built(mine: torch.Tensor, theirs: torch.Tensor, constant: float | None):
    """`theirs` in `mine`'s layout when `mine` holds what `theirs` was built with (`constant` if it was
    varied), as it is or transposed; else None."""
    if mine.dtype != theirs.dtype or mine.device != theirs.device:
        return None
    for layout in (theirs, theirs.t() if theirs.dim() == 2 else None):
        if layout is None or layout.shape != mine.shape:
            continue
        built = torch.full_like(layout, constant) if constant is not None else layout
        if torch.equal(mine, built):
            return layout.contiguous()
    return None


PROBLEM_DISTRIBUTION = "problem"  # get_inputs() exactly as the problem wrote it


def _heavy_tailed(shape: torch.Size, device: torch.device) -> torch.Tensor:
    """Student's t with 2 degrees of freedom (normal / sqrt(Exp(1))): outliers hundreds of times the typical value."""
    scale = -torch.log1p(-torch.rand(shape, device=device))
    return torch.randn(shape, device=device) / scale.clamp_min(1e-4).sqrt()


def _zeros_and_ties(shape: torch.Size, device: torch.device) -> torch.Tensor:
    """Values in {-1, -0.5, 0, 0.5, 1}; with two or more rows (last dimension) some rows are all 0 and some all -0.5.

    Constant rows are what a missing eps (0/0 variance or norm) or a max
    started at 0 instead of -inf gets wrong; random data never has them.
    """
    values = torch.randint(-2, 3, shape, device=device) / 2
    rows = values.view(-1, shape[-1]) if values.dim() and values.numel() else values.view(1, -1)
    if rows.shape[0] >= 2:
        kind = torch.randint(0, 8, (rows.shape[0],), device=device)  # a quarter of the rows constant, at least two
        kind[torch.randperm(rows.shape[0], device=device)[:2]] = torch.tensor([0, 1], device=device)
        rows[kind == 0] = 0.0
        rows[kind == 1] = -0.5
    return values


# Other float distributions for trials, by name, most telling first (trials
# take them in this order, skipping those the reference is not finite on;
# the alternate-shape trial takes the next one, so it never gets the constant
# rows, which could hide a skipped tail): exact zeros, ties and constant rows,
# signs and magnitudes that overflow an unguarded exp or leave a clamped
# range, outliers among ordinary values, all of
# which the problem's own (often non-negative torch.rand) inputs may never show.
DISTRIBUTIONS: dict[str, Callable[[torch.Size, torch.device], torch.Tensor]] = {
    "zeros_and_ties": _zeros_and_ties,
    "large_magnitude": lambda shape, device: (torch.rand(shape, device=device) * 2 - 1) * 1e3,
    "heavy_tailed": _heavy_tailed,
    "normal": lambda shape, device: torch.randn(shape, device=device),
    "signed_uniform": lambda shape, device: torch.rand(shape, device=device) * 2 - 1,
}
_REDRAWN = frozenset({torch.rand, torch.randn, torch.rand_like, torch.randn_like})


class _Redraw(TorchFunctionMode):
    """Refills what torch.rand/randn(_like) return inside get_inputs() from another distribution.

    Replacing the draws, not the finished inputs, keeps what get_inputs builds
    from them (symmetric or triangular matrices, softmaxed probabilities), and
    leaves integer, bool and index inputs alone.
    """

    def __init__(self, draw: Callable[[torch.Size, torch.device], torch.Tensor]) -> None:
        super().__init__()
        self.draw = draw
        self.replaced = 0  # draws refilled: none when get_inputs draws with numpy or Python's random

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if func in _REDRAWN and out.is_floating_point():
            with torch.no_grad():
                out.copy_(self.draw(out.shape, out.device))
            self.replaced += 1
        return out


def draw_inputs(problem: ModuleType, seed: int, device: str, distribution: str = PROBLEM_DISTRIBUTION) -> tuple[list, int]:
    """`make_inputs`, and how many of get_inputs' torch.rand/randn draws `distribution` replaced (0 for the problem's
    own): a distribution that replaced none drew the problem's own inputs."""
    seed_everything(seed)
    redraw = None if distribution == PROBLEM_DISTRIBUTION else _Redraw(DISTRIBUTIONS[distribution])
    with torch.device(device), redraw or nullcontext():
        values = problem.get_inputs()
    return [v.to(device) if isinstance(v, torch.Tensor) else v for v in values], redraw.replaced if redraw else 0


def make_inputs(problem: ModuleType, seed: int, device: str, distribution: str = PROBLEM_DISTRIBUTION) -> list:
    """`get_inputs()` drawn from `seed` (and `distribution`), created directly on `device` (no host round trip)."""
    return draw_inputs(problem, seed, device, distribution)[0]


def _same_value(a, b) -> bool:
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)) or (a.shape, a.dtype) != (b.shape, b.dtype):
            return False
        if a.is_floating_point() or a.is_complex():
            return torch.allclose(a, b, rtol=0, atol=0, equal_nan=True)
        return torch.equal(a, b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a == b or (a != a and b != b)  # NaN equals NaN here


def reproducible_inputs(problem: ModuleType, seed: int, device: str) -> tuple[list, int | None]:
    """`get_inputs()` drawn from `seed`, and the index of the first input a second draw from it gives otherwise (None:
    none does).

    The candidate's process draws its inputs from the same seed as the reference's: inputs the seed does not decide
    (an unseeded `np.random.default_rng()`, the clock) differ there, and an honest kernel would be judged wrong.
    """
    first, second = make_inputs(problem, seed, device), make_inputs(problem, seed, device)
    if len(first) != len(second):
        return first, min(len(first), len(second))
    return first, next((i for i, (a, b) in enumerate(zip(first, second)) if not _same_value(a, b)), None)


def clone_values(values: list) -> list:
    return [v.clone() if isinstance(v, torch.Tensor) else v for v in values]


def flatten_outputs(output) -> list:
    """A trusted model's output as a flat list (a tensor, or a tuple/list of them); candidates go through `plain_outputs`."""
    return list(output) if isinstance(output, (tuple, list)) else [output]


# Bound before any candidate code runs, so an instance attribute or a later patch cannot stand in for them.
_detach = torch.Tensor.detach
_untyped_storage = torch.Tensor.untyped_storage
_storage_data_ptr = torch.UntypedStorage.data_ptr


def _plain(value) -> bool:
    """An exact, dense torch.Tensor that owns real memory; checking it runs none of the candidate's code."""
    if type(value) is not torch.Tensor or value.layout is not torch.strided or value.is_nested:
        return False
    try:
        _storage_data_ptr(_untyped_storage(value))  # wrappers, fake and functional tensors have no storage to read
    except (RuntimeError, NotImplementedError):
        return False
    return True


def plain_outputs(output) -> tuple[list[torch.Tensor], list[str]]:
    """A candidate's output as detached plain tensors, and the type names of whatever is not one.

    Accepts exactly a tensor or an exact tuple/list of tensors. Only exact
    types are inspected, so no container __iter__, tensor-subclass
    __torch_function__, numpy __array__ or method-shadowing instance
    attribute of the candidate's runs here or later. Call it inside the
    traced window: whatever the candidate still does then is recorded.
    """
    items = list(output) if type(output) in (tuple, list) else [output]
    foreign = [type(o).__name__ for o in items if not _plain(o)]
    return ([] if foreign else [_detach(o) for o in items]), foreign


COMPARE_CHUNK = 1 << 24  # elements per float64 chunk: full KernelBench outputs (~1.6 G elements) fit in memory


def _chunks(flat: torch.Tensor, device: str):
    for start in range(0, flat.numel(), COMPARE_CHUNK):
        yield flat[start : start + COMPARE_CHUNK].to(device).double()


def output_scale(expected: torch.Tensor, device: str) -> float:
    """RMS of the finite elements of the reference output; 1.0 when that is zero."""
    total, count = 0.0, 0
    for e in _chunks(_components(expected).reshape(-1), device):
        finite = e[torch.isfinite(e)]
        total += float((finite * finite).sum())
        count += finite.numel()
    rms = (total / count) ** 0.5 if count else 0.0
    return rms if rms > 0 else 1.0


def _compare_tensor(
    expected: torch.Tensor, actual: torch.Tensor, device: str, precision: str
) -> tuple[ReasonCode | None, float]:
    """Chunked element-wise comparison in float64 on `device`; returns (reason or None, max abs error)."""
    atol, rtol = tolerance(expected.dtype, precision)
    atol *= output_scale(expected, device)
    worst = 0.0
    pairs = zip(_chunks(_components(expected).reshape(-1), device), _chunks(_components(actual).reshape(-1), device))
    for e, a in pairs:
        finite = torch.isfinite(e)
        if not torch.equal(finite, torch.isfinite(a)):
            return ReasonCode.NON_FINITE, worst
        if finite.any():
            worst = max(worst, float((a[finite] - e[finite]).abs().max()))
        if not torch.allclose(a, e, atol=atol, rtol=rtol, equal_nan=True):
            return ReasonCode.WRONG_RESULT, worst
    return None, worst


def compare_outputs(
    expected: list, actual: list, device: str = "cpu", precision: str = "strict"
) -> tuple[ReasonCode | None, float, str]:
    """Compare flat output lists (on `device`, for speed); returns (reason or None, max_abs_error, message).

    `precision` is the verifier's tl.dot policy (precision.py): under "tf32" fp32 outputs get TF32's tolerance.
    """
    if len(actual) != len(expected):
        return ReasonCode.SHAPE_MISMATCH, float("inf"), f"{len(actual)} outputs, expected {len(expected)}"
    worst = 0.0
    for index, (e, a) in enumerate(zip(expected, actual)):
        where = f"output {index}: " if len(expected) > 1 else ""
        if not isinstance(a, torch.Tensor):
            return ReasonCode.WRONG_RESULT, float("inf"), f"{where}expected a tensor, got {type(a).__name__}"
        if a.shape != e.shape:
            return ReasonCode.SHAPE_MISMATCH, float("inf"), f"{where}shape {tuple(a.shape)} != expected {tuple(e.shape)}"
        if a.dtype != e.dtype:
            return ReasonCode.DTYPE_MISMATCH, float("inf"), f"{where}dtype {a.dtype} != expected {e.dtype}"
        code, err = _compare_tensor(e, a, device, precision)
        worst = max(worst, err)
        if code is ReasonCode.NON_FINITE:
            return code, worst, f"{where}NaN/inf where the reference has none (or the reverse)"
        if code is not None:
            atol, rtol = tolerance(e.dtype, precision)
            scale = output_scale(e, device)
            return code, worst, (
                f"{where}max abs error {worst:.3g} exceeds the tolerance "
                f"(atol={atol} × output RMS {scale:.3g}, rtol={rtol})"
            )
    return None, worst, "ok"


def _transfer(name: str, args: tuple, kwargs: dict) -> str | None:
    """'to host' or 'to device' for a copy or cast that moves data between devices (e.g. `.cpu()` on a CUDA tensor)."""
    if name == "_to_copy" and kwargs.get("device") is not None:
        source, target = args[0].device, torch.device(kwargs["device"])
    elif name == "copy_" and len(args) > 1 and isinstance(args[1], torch.Tensor):
        source, target = args[1].device, args[0].device
    else:
        return None
    if source.type == target.type:
        return None
    return "to host" if target.type == "cpu" else "to device"


def _narrowing(name: str, args: tuple, kwargs: dict) -> str | None:
    """'float32->float16' for a host cast or copy that rounds fp32/fp64 data to fp16/bf16/fp8 (e.g. `x.half()`),
    'float32->int16 view' for a view of fp32 (or wider) floats as narrower elements (`x.view(torch.int16)`), or of
    any elements as 16-bit or narrower ones (the last step of float32->int64->int32->int16). An int64->int32 view
    of indices reads integers in halves, not floats: it is not one.

    precision.py judges these in fp32 problems: the kernel then computes on the rounded data.
    """
    if name == "view" and len(args) > 1 and isinstance(args[1], torch.dtype) and isinstance(args[0], torch.Tensor):
        source, target = args[0].dtype, args[1]  # `x.view(torch.int16)`: the data read in narrower pieces
        floats = source.is_floating_point and source.itemsize >= 4
        if target.itemsize < source.itemsize and (floats or target.itemsize <= 2):
            return f"{str(source).removeprefix('torch.')}->{str(target).removeprefix('torch.')} view"
        return None
    if name == "_to_copy" and kwargs.get("dtype") is not None and isinstance(args[0], torch.Tensor):
        source, target = args[0].dtype, kwargs["dtype"]
    elif name == "copy_" and len(args) > 1 and isinstance(args[1], torch.Tensor):
        source, target = args[1].dtype, args[0].dtype
    else:
        return None
    if source.is_floating_point and source.itemsize >= 4 and target.is_floating_point and target.itemsize <= 2:
        return f"{str(source).removeprefix('torch.')}->{str(target).removeprefix('torch.')}"
    return None


# What reads a tensor element into a host Python value: float(t), int(t), bool(t), t.item(), `if t:`.
_HOST_READS = frozenset({"_local_scalar_dense"})
# Single elements taken out of a larger tensor (`list(x)`, `x[i]`, `x.split(1)`: unbind, select, split...)
# and a tensor built from Python data (`torch.tensor([...], dtype=...)`: lift_fresh, which reads those
# elements with no op of its own) together move tensor data through Python objects. Either alone is glue:
# `scale[c]` handed to a launch per channel, an index table built from sizes. Counted over a whole trial.
PYTHON_ELEMENTS_LIMIT = 64
_TAKING_OPS = frozenset({"select", "unbind", "split", "split_with_sizes", "chunk", "narrow", "slice", "as_strided",
                         "unfold", "diagonal"})


class AtenTrace(TorchDispatchMode):
    """Records every aten op dispatched while active; reads of device data by the host are kept apart.

    Nothing is ever paused: the candidate's Python runs inside Triton's
    launch (grid callables, heuristics, hooks, prune functions, argument
    objects' data_ptr/__index__), and what Triton's own launch glue
    dispatches (the interpreter's argument copies, the autotuner's cache
    flush and restore copies) is all in GLUE_OPS.
    """

    def __init__(self) -> None:
        super().__init__()
        self.ops: dict[str, int] = {}
        self.host_reads: dict[str, int] = {}
        self.narrowings: dict[str, int] = {}  # 'aten._to_copy float32->float16' -> count, for precision.py
        self.python_elements = 0  # single elements taken out of larger tensors
        self.python_built = 0  # elements of tensors built from Python data

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.overloadpacket.__name__
        narrowing = _narrowing(name, args, kwargs)
        if narrowing is not None:
            key = f"aten.{name} {narrowing}"
            self.narrowings[key] = self.narrowings.get(key, 0) + 1
        transfer = _transfer(name, args, kwargs)
        if name in _HOST_READS or transfer == "to host":
            key = name if transfer is None else f"{name}[to host]"
            self.host_reads[key] = self.host_reads.get(key, 0) + 1
        else:
            if transfer is not None:
                name += "[cross-device]"  # an upload is not glue either
            self.ops[name] = self.ops.get(name, 0) + 1
        out = func(*args, **kwargs)
        source = args[0] if args else None
        if name in _TAKING_OPS and isinstance(source, torch.Tensor) and source.numel() > 1:
            pieces = out if isinstance(out, (list, tuple)) else [out]
            self.python_elements += sum(isinstance(p, torch.Tensor) and p.numel() == 1 for p in pieces)
        elif name in ("lift_fresh", "lift_fresh_copy") and isinstance(out, torch.Tensor):
            self.python_built += out.numel()
        if min(self.python_elements, self.python_built) > PYTHON_ELEMENTS_LIMIT:
            self.host_reads["element views[rebuilt from Python objects]"] = self.python_elements
        return out

    def compute_ops(self) -> dict[str, int]:
        """Ops that are computation rather than glue."""
        return {name: n for name, n in self.ops.items() if name not in GLUE_OPS}


class LaunchCounter:
    """Counts top-level Triton kernel launches.

    Patches `run` on every Triton launcher class (compiled, interpreted,
    autotuned, heuristics), so `kernel[grid](...)` and `kernel.run(...)` are
    both seen. Nested runs (an autotuner calling its kernel) count once.
    """

    def __init__(self) -> None:
        self.launches = 0
        self.kernels: dict[str, int] = {}
        self._depth = 0
        self._saved: list[tuple[type, object]] = []

    def _launcher_classes(self) -> list[type]:
        from triton.runtime.autotuner import Autotuner, Heuristics
        from triton.runtime.interpreter import InterpretedFunction
        from triton.runtime.jit import JITFunction

        return [JITFunction, InterpretedFunction, Autotuner, Heuristics]

    def __enter__(self) -> LaunchCounter:
        for cls in self._launcher_classes():
            original = cls.__dict__["run"]
            self._saved.append((cls, original))
            setattr(cls, "run", self._wrap(original))
        return self

    def __exit__(self, *exc) -> None:
        for cls, original in reversed(self._saved):
            setattr(cls, "run", original)
        self._saved.clear()

    def _wrap(self, original):
        counter = self

        def run(kernel, *args, **kwargs):
            top_level = counter._depth == 0 and not kwargs.get("warmup", False)
            if top_level:
                counter.launches += 1
                name = getattr(kernel, "__name__", None) or getattr(getattr(kernel, "fn", None), "__name__", "?")
                counter.kernels[name] = counter.kernels.get(name, 0) + 1
            counter._depth += 1
            try:
                return original(kernel, *args, **kwargs)
            finally:
                counter._depth -= 1

        return run


def check_correctness(
    problem_source: str, solution_code: str, *, seed: int = 0, trials: int = 2, device: str = "cpu"
) -> CorrectnessResult:
    """Naive check: run reference and candidate in this process on `trials` input sets and compare."""
    if device == "cpu":
        pin_autotuning_for_interpreter()
    with tempfile.TemporaryDirectory(prefix="tritonrl-run-") as tmp:
        problem = import_source(problem_source, "problem", Path(tmp))
        solution = import_source(solution_code, "solution", Path(tmp))
        reference = build_reference(problem, seed, device)
        candidate = build_candidate(problem, solution, reference, seed, device)
        worst = 0.0
        with torch.no_grad():
            for trial in range(trials):
                inputs = make_inputs(problem, seed + 1 + trial, device)
                expected = flatten_outputs(reference(*clone_values(inputs)))
                actual = flatten_outputs(candidate(*clone_values(inputs)))
                code, err, message = compare_outputs(expected, actual)
                worst = max(worst, err)
                if code is not None:
                    return CorrectnessResult(False, trial + 1, worst, f"trial {trial}: {message}")
        return CorrectnessResult(True, trials, worst, "ok")
