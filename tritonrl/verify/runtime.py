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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import torch
from torch.multiprocessing.reductions import StorageWeakRef
from torch.utils._python_dispatch import TorchDispatchMode

from tritonrl.verify.child_patches import launched_tensors, pin_autotuning_for_interpreter
from tritonrl.verify.draws import build_candidate, build_reference, make_inputs
from tritonrl.verify.precision import HeldData, significand
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
# A trial's atol grows by this times the reference's own rounding on its inputs (rounding.py): an honest kernel rounds
# another way, and its largest stray over an output passes the tolerance by up to 3.2 times the reference's (chained
# LayerNorms on rows constant to 1e-4, 600 draws; 0.2 times on rows constant to 1e-3, as draws makes them now).
ROUNDING_FACTOR = 4.0


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


# Glue whose result holds values no tensor held (`fill_` with a number counts too).
CONSTANT_GLUE = frozenset(
    {
        "zeros",
        "zeros_like",
        "new_zeros",
        "ones",
        "ones_like",
        "new_ones",
        "full",
        "full_like",
        "new_full",
        "zero_",
        "arange",
        "lift_fresh",
        "lift_fresh_copy",
    }
)
# The glue ops that write values read from tensors (`fill_` only with a tensor's value; `copy_` not onto the same
# memory, as the interpreter's argument copies are). Free where the problem computes; where the reference itself
# only moves, casts or views data (a transpose, a dtype cast: `reference_only_glue`), they are the computation.
# Allocation and views stay free everywhere.
DATA_MOVING_GLUE = frozenset({"copy_", "clone", "_to_copy", "contiguous", "cat", "stack", "fill_"})
# Aten ops a candidate's forward may run itself: allocation, layout, views,
# copies and casts ("glue"). Everything else is computation that must happen
# in Triton kernels. Names are overload-packet names (`aten.<name>`).
GLUE_OPS = (
    CONSTANT_GLUE
    | DATA_MOVING_GLUE
    | frozenset(
        {
            "empty",
            "empty_like",
            "empty_strided",
            "new_empty",
            "new_empty_strided",
            "view",
            "_unsafe_view",
            "reshape",
            "as_strided",
            "t",
            "transpose",
            "permute",
            "expand",
            "unsqueeze",
            "squeeze",
            "select",
            "slice",
            "narrow",
            "split",
            "split_with_sizes",
            "chunk",
            "unbind",
            "detach",
            "alias",
            "unfold",
            "diagonal",
            "view_as_real",
            "view_as_complex",
            "resize_",
            "set_",
            "_reshape_alias",
        }
    )
)


def compute_ops(ops: dict[str, int]) -> dict[str, int]:
    """The ops among `ops` (name -> count, as AtenTrace records them) that are computation rather than glue."""
    return {name: n for name, n in ops.items() if name not in GLUE_OPS}


def reference_only_glue(ops: dict[str, int]) -> bool:
    """Whether a reference whose forward dispatched `ops` computes nothing: its answer is a layout or cast op."""
    return not compute_ops(ops)


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


def scaled_atol(expected: torch.Tensor, device: str, precision: str = "strict") -> float:
    """The absolute tolerance of an output: its dtype's atol times the reference output's RMS."""
    return tolerance(expected.dtype, precision)[0] * output_scale(expected, device)


def _compare_tensor(
    expected: torch.Tensor, actual: torch.Tensor, device: str, precision: str, rounding: float
) -> tuple[ReasonCode | None, float]:
    """Chunked element-wise comparison in float64 on `device`; returns (reason or None, max abs error)."""
    atol = scaled_atol(expected, device, precision) + ROUNDING_FACTOR * rounding
    rtol = tolerance(expected.dtype, precision)[1]
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
    expected: list, actual: list, device: str = "cpu", precision: str = "strict", rounding: Sequence[float] = ()
) -> tuple[ReasonCode | None, float, str]:
    """Compare flat output lists (on `device`, for speed); returns (reason or None, max_abs_error, message).

    `precision` is the verifier's tl.dot policy (precision.py): under "tf32" fp32 outputs get TF32's tolerance.
    `rounding`, per output, is how far the reference's own rounding moved it on these inputs (rounding.py).
    """
    if len(actual) != len(expected):
        return ReasonCode.SHAPE_MISMATCH, float("inf"), f"{len(actual)} outputs, expected {len(expected)}"
    worst = 0.0
    for index, (e, a) in enumerate(zip(expected, actual)):
        where = f"output {index}: " if len(expected) > 1 else ""
        if not isinstance(a, torch.Tensor):
            return ReasonCode.WRONG_RESULT, float("inf"), f"{where}expected a tensor, got {type(a).__name__}"
        if a.shape != e.shape:
            return (
                ReasonCode.SHAPE_MISMATCH,
                float("inf"),
                f"{where}shape {tuple(a.shape)} != expected {tuple(e.shape)}",
            )
        if a.dtype != e.dtype:
            return ReasonCode.DTYPE_MISMATCH, float("inf"), f"{where}dtype {a.dtype} != expected {e.dtype}"
        stray = rounding[index] if index < len(rounding) else 0.0
        code, err = _compare_tensor(e, a, device, precision, stray)
        worst = max(worst, err)
        if code is ReasonCode.NON_FINITE:
            return code, worst, f"{where}NaN/inf where the reference has none (or the reverse)"
        if code is not None:
            atol, rtol = tolerance(e.dtype, precision)
            scale = output_scale(e, device)
            own = (
                f" + {ROUNDING_FACTOR:g} × the reference's own rounding {stray:.3g}"
                if stray > 1e-2 * atol * scale
                else ""
            )
            return (
                code,
                worst,
                (
                    f"{where}max abs error {worst:.3g} exceeds the tolerance "
                    f"(atol={atol} × output RMS {scale:.3g}{own}, rtol={rtol})"
                ),
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
    """'float32->float16' for a host cast or copy of floats to a float that keeps fewer significand bits (`x.half()`,
    `w.float()` of fp64 data), 'float32->int16' for one of floats to integers (fixed point: `.to(torch.int32)` of
    scaled weights), 'float32->int16 view' for a view of fp32 (or wider) floats as narrower elements
    (`x.view(torch.int16)`), or of any elements as 16-bit or narrower ones (the last step of
    float32->int64->int32->int16). Integers cast or viewed as narrower integers (int64 indices as int32) and
    floats to bools are not ones.

    precision.py judges these against the problem's data: the kernel then computes on the rounded data.
    """
    if name == "view" and len(args) > 1 and isinstance(args[1], torch.dtype) and isinstance(args[0], torch.Tensor):
        source, target = args[0].dtype, args[1]  # `x.view(torch.int16)`: the data read in narrower pieces
        floats = source.is_floating_point and source.itemsize >= 4
        if target.itemsize < source.itemsize and (floats or target.itemsize <= 2):
            return f"{str(source).removeprefix('torch.')}->{str(target).removeprefix('torch.')} view"
        return None
    cast = _cast(name, args, kwargs)
    if cast is None:
        return None
    source, target = (str(dtype).removeprefix("torch.") for dtype in cast)
    if significand(target) < significand(source) and target != "bool":
        return f"{source}->{target}"
    return None


def _cast(name: str, args: tuple, kwargs: dict) -> tuple[torch.dtype, torch.dtype] | None:
    """(source, target) dtypes of a host cast (`x.to(dtype)`: aten._to_copy) or copy between tensors (copy_)."""
    if name == "_to_copy" and kwargs.get("dtype") is not None and isinstance(args[0], torch.Tensor):
        return args[0].dtype, kwargs["dtype"]
    if name == "copy_" and len(args) > 1 and isinstance(args[1], torch.Tensor):
        return args[1].dtype, args[0].dtype
    return None


def _rounds_to_integers(name: str, args: tuple, kwargs: dict) -> bool:
    """A host cast or copy of floats to integers or bools (`x.long()`): it rounds, which is computation
    (`x.to(torch.int32).to(x.dtype)` is torch.trunc), not glue."""
    cast = _cast(name, args, kwargs)
    return cast is not None and _fractional(cast[0]) and not _fractional(cast[1])


def _fractional(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point or dtype.is_complex


def _moves_data(name: str, args: tuple) -> bool:
    """Whether a DATA_MOVING_GLUE op wrote values read from a tensor: `fill_` with a scalar writes a constant."""
    if name == "fill_":
        return len(args) > 1 and isinstance(args[1], torch.Tensor)
    return not (name == "copy_" and copy_onto_itself(args))


def copy_onto_itself(args: tuple) -> bool:
    """A copy_ of a tensor onto the very same memory, as the interpreter copies a kernel's arguments back to
    themselves after a launch on CPU: it writes nothing."""
    target, source = args[0], args[1] if len(args) > 1 else None
    return (
        isinstance(source, torch.Tensor)
        and source.data_ptr() == target.data_ptr()
        and (source.dtype, source.shape, source.stride()) == (target.dtype, target.shape, target.stride())
    )


# What reads a tensor element into a host Python value: float(t), int(t), bool(t), t.item(), `if t:`.
_HOST_READS = frozenset({"_local_scalar_dense"})
# Single elements taken out of a larger tensor (`list(x)`, `x[i]`, `x.split(1)`: unbind, select, split...)
# and a tensor built from Python data (`torch.tensor([...], dtype=...)`: lift_fresh, which reads those
# elements with no op of its own) together move tensor data through Python objects. Either alone is glue:
# `scale[c]` handed to a launch per channel, an index table built from sizes. Counted over a whole trial.
PYTHON_ELEMENTS_LIMIT = 64
_TAKING_OPS = frozenset(
    {"select", "unbind", "split", "split_with_sizes", "chunk", "narrow", "slice", "as_strided", "unfold", "diagonal"}
)


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
        self.data_moves: dict[str, int] = {}  # DATA_MOVING_GLUE ops that wrote values read from tensors
        self.held = HeldData()  # storages holding float data as other elements (x.view(torch.int32)), for DotWatch

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
            elif _rounds_to_integers(name, args, kwargs):
                name += "[float to integer]"
            self.ops[name] = self.ops.get(name, 0) + 1
            if name in DATA_MOVING_GLUE and _moves_data(name, args):
                self.data_moves[name] = self.data_moves.get(name, 0) + 1
        out = func(*args, **kwargs)
        self.held.note(func.overloadpacket.__name__, args, kwargs, out)
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
        return compute_ops(self.ops)


class LaunchCounter:
    """Counts top-level Triton kernel launches.

    Patches `run` on every Triton launcher class (compiled, interpreted,
    autotuned, heuristics), so `kernel[grid](...)` and `kernel.run(...)` are
    both seen. Nested runs (an autotuner calling its kernel) count once.
    Also notes the storage of every tensor a launch is handed (`handed`).
    """

    def __init__(self) -> None:
        self.launches = 0
        self.kernels: dict[str, int] = {}
        self._handed: dict[int, StorageWeakRef] = {}  # storage identity -> a weak reference keeping it reserved
        self._depth = 0
        self._saved: list[tuple[type, object]] = []

    def handed(self, tensor: torch.Tensor) -> bool:
        """Whether `tensor`'s storage was handed to a launch while counting.

        Storages are told apart by identity, not address: the weak reference
        keeps a handed storage's identity from being reused, so a tensor
        allocated in the memory of a buffer freed after its launch (a stale
        `torch.empty`) is not taken for it.
        """
        return _untyped_storage(tensor)._cdata in self._handed

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
                for tensor in launched_tensors(kernel, args, kwargs):
                    storage = _untyped_storage(tensor)
                    counter._handed.setdefault(storage._cdata, StorageWeakRef(storage))
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
