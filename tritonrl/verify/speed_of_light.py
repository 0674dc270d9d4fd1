"""The speed of light of a problem on a GPU, and the floor below which no correct answer can be timed.

Two numbers with two uses, kept apart on purpose:

- `sol_ms`: max(bytes / bandwidth, flops / throughput),
  with every input, parameter, buffer and output moved once and the
  reference's matmul-class flops (torch's flop formulas, per operand dtype,
  at the peak the precision policy allows). A verdict reports it and
  `sol_fraction` = sol_ms / candidate_ms; GRPO can reward it. Honest answers
  may beat it (an algebraic rewrite, the zero half of a triangular input), so
  it never rejects anything.
- `floor_ms`: the time reading, at peak HBM bandwidth, what every timed call
  must read from HBM takes: the per-call fresh input elements that vary
  between input sets and that a gradient proves the outputs depend on in
  that set, plus the part of the largest output that cannot sit in L2. timing.py flushes L2 before
  each window and gives every call its own freshly filled input set, so each
  call's inputs start in HBM; nothing a correct kernel can do reads them
  faster. A candidate timed below it (with FLOOR_SLACK for measurement) is
  `faster_than_light`: its work escaped the timing or was skipped.

Peaks: a datasheet table per GPU model, and values measured on the timing
machine (`measure_peaks`: a device-to-device copy, a matmul per dtype).
sol_ms uses the larger of the two; the floor uses the table's bandwidth, or
the measured one times UNKNOWN_GPU_MARGIN where the GPU is not in the table
or beats its row (a measured value alone could be low and raise the floor).

What is measured about a problem (`measure_work`) is measured where the
reference runs, on trusted problem code; nothing the candidate's process
reports feeds it. See docs/VERIFIER.md (Timing and the speed of light).

Test: tests/verify/test_speed_of_light.py.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import asdict, dataclass, field, fields

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry

from tritonrl.verify.result import Reason, ReasonCode

# A candidate is rejected only below this share of the floor: CUDA-event resolution, host-time overhead
# subtraction and datasheet rounding (TB vs TiB is 10%) cannot make an honest kernel look this fast.
FLOOR_SLACK = 0.9
# Copies reach 80–93% of datasheet HBM bandwidth on the A100/H100/H200; 1.5 × a measured copy is above the
# peak of any GPU whose copy reaches two thirds of it, so the floor stays below what is physically possible.
UNKNOWN_GPU_MARGIN = 1.5
MB = 1 << 20
FLOPS_CLASSES = ("fp32", "tf32", "bf16", "fp16")


@dataclass(frozen=True)
class GpuPeaks:
    """Dense (no structured sparsity) peaks of one GPU: HBM bytes/s, flop/s per class, L2 bytes."""

    bandwidth: float
    flops: dict[str, float]
    l2_bytes: int

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> GpuPeaks:
        return cls(float(data["bandwidth"]), {k: float(v) for k, v in data["flops"].items()}, int(data["l2_bytes"]))


def _peaks(gb_s: float, fp32: float, tf32: float, half: float, l2_mb: float) -> GpuPeaks:
    """From datasheet units: GB/s and dense TFLOPS (fp16 = bf16 on every GPU here), L2 in MB (taken as MiB: larger)."""
    return GpuPeaks(
        gb_s * 1e9,
        {"fp32": fp32 * 1e12, "tf32": tf32 * 1e12, "bf16": half * 1e12, "fp16": half * 1e12},
        int(l2_mb * MB),
    )


# Name tokens (of torch.cuda.get_device_name, lower-cased, '-' as space) -> dense peaks. Datasheets quote
# tensor-core TFLOPS with sparsity; the dense values here are half of those.
# A100: NVIDIA A100 Tensor Core GPU datasheet (2021): FP32 19.5, TF32 156, BF16/FP16 312 TFLOPS; 80GB SXM
#   2,039 GB/s, 80GB PCIe 1,935 GB/s, 40GB 1,555 GB/s; L2 40 MB (A100 architecture whitepaper).
# H100: NVIDIA H100 Tensor Core GPU datasheet: SXM FP32 67, TF32 989*, BF16 1,979* TFLOPS, 3.35 TB/s; PCIe
#   FP32 51, TF32 756*, BF16 1,513*, 2 TB/s; NVL FP32 60, TF32 835*, BF16 1,671*, 3.9 TB/s (* with sparsity);
#   L2 50 MB (H100 architecture whitepaper).
# H200: NVIDIA H200 Tensor Core GPU datasheet: SXM as H100 SXM with 4.8 TB/s; NVL as H100 NVL with 4.8 TB/s;
#   L2 as the H100's (the same GH100 configuration).
# B200: NVIDIA HGX B200 datasheet, per GPU (8 per board): FP32 75 (600/8), TF32 2.25 PF*, BF16 4.5 PF*, 8 TB/s.
#   L2 is not in the datasheet: 126 MB as the CUDA device property reports it (the machine's own is used when larger).
PEAK_TABLE: dict[tuple[str, ...], GpuPeaks] = {
    ("a100", "sxm4", "80gb"): _peaks(2039, 19.5, 156, 312, 40),
    ("a100", "80gb", "pcie"): _peaks(1935, 19.5, 156, 312, 40),
    ("a100", "40gb"): _peaks(1555, 19.5, 156, 312, 40),
    ("h100", "hbm3"): _peaks(3350, 67, 494.5, 989.5, 50),
    ("h100", "sxm"): _peaks(3350, 67, 494.5, 989.5, 50),
    ("h100", "pcie"): _peaks(2000, 51, 378, 756.5, 50),
    ("h100", "nvl"): _peaks(3900, 60, 417.5, 835.5, 50),
    ("h200",): _peaks(4800, 67, 494.5, 989.5, 50),
    ("h200", "nvl"): _peaks(4800, 60, 417.5, 835.5, 50),
    ("b200",): _peaks(8000, 75, 1125, 2250, 126),
}


def _max_peaks(rows: list[GpuPeaks]) -> GpuPeaks:
    """Element-wise maximum: the higher peak is the one no measurement on the GPU can beat."""
    return GpuPeaks(
        max(r.bandwidth for r in rows),
        {c: max(r.flops.get(c, 0.0) for r in rows) for c in FLOPS_CLASSES},
        max(r.l2_bytes for r in rows),
    )


def table_peaks(gpu_name: str) -> GpuPeaks | None:
    """The datasheet row for a torch.cuda.get_device_name string ("NVIDIA H100 80GB HBM3"), or None.

    The row whose tokens the name holds, the most specific first; a name that
    names a family ("NVIDIA H100") but no variant gets the family's largest
    numbers (a higher peak only lowers the floor). MIG slices get the whole GPU's.
    """
    tokens = set(gpu_name.lower().replace("-", " ").replace("_", " ").split())
    matches = [key for key in PEAK_TABLE if set(key) <= tokens]
    if matches:
        return PEAK_TABLE[max(matches, key=len)]
    family = [peaks for key, peaks in PEAK_TABLE.items() if key[0] in tokens]
    return _max_peaks(family) if family else None


def sol_peaks(table: GpuPeaks | None, measured: GpuPeaks) -> GpuPeaks:
    """What sol_ms divides by: the larger of the datasheet's and the machine's values."""
    return _max_peaks([measured] if table is None else [table, measured])


def floor_bandwidth(table: GpuPeaks | None, measured: GpuPeaks) -> float:
    """The bandwidth the floor divides by: the datasheet's, unless the GPU has no row or its copy beats the row."""
    if table is not None and table.bandwidth >= measured.bandwidth:
        return table.bandwidth
    return measured.bandwidth * UNKNOWN_GPU_MARGIN


def flops_class(dtype: str, precision: str) -> str | None:
    """The peak a dot on `dtype` operands may run at: fp32 problems at the CUDA-core fp32 peak under
    verify.precision=strict (IEEE dots), at the TF32 peak under tf32; half types at their tensor-core peak.
    None (other dtypes: the fastest peak) keeps sol_ms a lower bound."""
    if dtype == "float32" or dtype == "float64":
        return "tf32" if precision == "tf32" else "fp32"
    return {"bfloat16": "bf16", "float16": "fp16"}.get(dtype)


@dataclass(frozen=True)
class Work:
    """What one call of the reference moves and computes, at the shapes it is timed at.

    input_bytes, state_bytes, output_bytes: every tensor input, parameter and
    buffer, output once (sol_ms). flops: matmul-class flops by operand dtype.
    fresh_bytes, output_floor_bytes: what the floor counts (see
    `measure_work`); dependence: "autograd", or "none" where no gradient
    shows what the outputs depend on (the floor then counts no inputs).
    """

    input_bytes: int
    state_bytes: int
    output_bytes: int
    flops: dict[str, int] = field(default_factory=dict)
    fresh_bytes: int = 0
    output_floor_bytes: int = 0
    dependence: str = "autograd"

    @property
    def moved_bytes(self) -> int:
        return self.input_bytes + self.state_bytes + self.output_bytes

    def floor_bytes(self, l2_bytes: int) -> int:
        """Bytes each call must move to or from HBM: its fresh inputs, and what of its output exceeds L2."""
        return self.fresh_bytes + max(0, self.output_floor_bytes - l2_bytes)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Work:
        known = {f.name for f in fields(cls)}  # an entry cached by an earlier version may hold keys no longer used
        return cls(
            **{
                **{k: v for k, v in data.items() if k in known},
                "flops": {str(k): int(v) for k, v in data.get("flops", {}).items()},
            }
        )


@dataclass(frozen=True)
class Bound:
    """A problem's bounds on one GPU under one precision policy."""

    sol_ms: float
    floor_ms: float
    floor_bytes: int
    floor_bandwidth: float


def sol_ms(work: Work, peaks: GpuPeaks, precision: str) -> float:
    """max(bytes moved once / bandwidth, Σ flops per dtype / its peak), in ms."""
    fastest = max(peaks.flops.values())
    compute_s = sum(
        n / peaks.flops.get(flops_class(dtype, precision) or "", fastest) for dtype, n in work.flops.items()
    )
    return 1e3 * max(work.moved_bytes / peaks.bandwidth, compute_s)


def bound(work: Work, gpu_name: str, measured: GpuPeaks, precision: str) -> Bound:
    """sol_ms and the floor of `work` on the GPU named `gpu_name`, whose peaks were `measured`."""
    table = table_peaks(gpu_name)
    bandwidth = floor_bandwidth(table, measured)
    floor_bytes = work.floor_bytes(max(measured.l2_bytes, table.l2_bytes if table else 0))
    return Bound(
        sol_ms(work, sol_peaks(table, measured), precision), 1e3 * floor_bytes / bandwidth, floor_bytes, bandwidth
    )


def sol_fraction(sol: float, candidate_ms: float) -> float | None:
    """The share of the speed of light a candidate reaches (above 1 only where the bound is loose)."""
    return sol / candidate_ms if candidate_ms > 0 and math.isfinite(candidate_ms) else None


def faster_than_light(candidate_ms: float, floor_ms: float) -> bool:
    return candidate_ms < FLOOR_SLACK * floor_ms


def light_reason(candidate_ms: float, limits: Bound) -> Reason | None:
    """`faster_than_light` when the candidate's time per call is below the floor, else None."""
    if not faster_than_light(candidate_ms, limits.floor_ms):
        return None
    return Reason(
        ReasonCode.FASTER_THAN_LIGHT,
        f"timed at {candidate_ms:.4g} ms per call, below {limits.floor_ms:.4g} ms, the least time that reading the "
        f"{limits.floor_bytes / MB:.1f} MiB every call must read from memory (its fresh inputs) takes at the GPU's peak "
        f"bandwidth ({limits.floor_bandwidth / 1e12:.2f} TB/s). No correct kernel is that fast: its work escaped the "
        "timed calls or was skipped (an answer kept from an earlier call, work done before the call or on another "
        "stream). Compute every call's outputs from that call's own inputs, inside the call.",
    )


# -- measuring a problem (where the trusted reference runs) -------------------------------------


class _FlopCount(TorchDispatchMode):
    """Matmul-class flops by operand dtype, from torch's own flop formulas (FlopCounterMode's registry)."""

    def __init__(self) -> None:
        super().__init__()
        self.flops: dict[str, int] = defaultdict(int)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        formula = flop_registry.get(func._overloadpacket)
        if formula is not None:
            dtype = next(a.dtype for a in args if isinstance(a, torch.Tensor))
            self.flops[str(dtype).removeprefix("torch.")] += int(formula(*args, **kwargs, out_val=out))
        return out


def _nbytes(tensor: torch.Tensor, elements: int | None = None) -> int:
    """Bytes of `elements` of a tensor (all by default), at most its storage's: an expanded view is read once."""
    count = tensor.numel() if elements is None else elements
    return min(count * tensor.element_size(), tensor.untyped_storage().nbytes())


def _by_storage(tensors: list[torch.Tensor], counts: list[int]) -> int:
    """Σ bytes, one entry per storage (the largest): an input given twice is read once."""
    best: dict[int, int] = {}
    for tensor, n in zip(tensors, counts):
        key = tensor.untyped_storage().data_ptr()
        best[key] = max(best.get(key, 0), n)
    return sum(best.values())


def _outputs(model, inputs: list) -> list[torch.Tensor]:
    out = model(*inputs)
    return [o for o in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(o, torch.Tensor)]


def _same_outputs(a: list[torch.Tensor], b: list[torch.Tensor]) -> bool:
    return len(a) == len(b) and all(x.shape == y.shape and torch.equal(x, y) for x, y in zip(a, b))


def _distinct_bytes(chosen: list[tuple[torch.Tensor, torch.Tensor]]) -> int:
    """Bytes of the distinct values among the (tensor, mask) elements, per dtype.

    A value a correct answer can read (or write) once stands for every copy
    the problem's structure promises, which holds in every trial: the two
    halves of `B + B.T`, the rows of `.repeat`, `x` and `x.clone()` given as
    two inputs (a red team's honest answers the element count refused).
    """
    by_dtype: dict[torch.dtype, list[torch.Tensor]] = {}
    for tensor, mask in chosen:
        by_dtype.setdefault(tensor.dtype, []).append(tensor[mask].flatten())
    return sum(int(torch.unique(torch.cat(values)).numel()) * values[0].element_size() for values in by_dtype.values())


def _gradient_masks(model, values: list) -> list | None:
    """Per input (None for non-float ones): where the vector-Jacobian product of the float outputs on this set is nonzero.

    The cotangents are positive random weights, so no dependence cancels.
    Non-float outputs (indices) are left out: what only they depend on is not
    counted, a weaker floor, never a wrong one. None when backward is not
    possible (no float output with a gradient, an op without a derivative).
    """
    generator = torch.Generator().manual_seed(0)
    leaves = [
        v.detach().requires_grad_() if isinstance(v, torch.Tensor) and v.is_floating_point() else v for v in values
    ]
    wanted = [v for v in leaves if isinstance(v, torch.Tensor) and v.requires_grad]
    try:
        with torch.enable_grad():
            outputs = [o for o in _outputs(model, leaves) if o.is_floating_point() and o.requires_grad]
        if not outputs or not wanted:
            return None
        weights = [(torch.rand(o.shape, generator=generator) + 0.5).to(o.device, o.dtype) for o in outputs]
        grads = iter(torch.autograd.grad(outputs, wanted, weights, allow_unused=True))
    except torch.OutOfMemoryError:
        raise  # no bound at all rather than a guess
    except (RuntimeError, NotImplementedError):
        return None
    return [_nonzero(next(grads), v) if isinstance(v, torch.Tensor) and v.requires_grad else None for v in leaves]


def _nonzero(grad: torch.Tensor | None, like: torch.Tensor) -> torch.Tensor:
    if grad is None:
        return torch.zeros(like.shape, dtype=torch.bool, device=like.device)
    return (grad != 0) & grad.isfinite()


def measure_work(model, inputs: list, again: list) -> Work:
    """Bytes, flops and the floor's bytes of one call of the trusted reference `model`.

    `inputs`, `again`: two input sets from the problem's own get_inputs (what
    timing draws from). The floor counts only what a correct answer provably
    reads on every call, so an honest kernel is never refused:
    - per tensor input, the float elements that (a) differ between the two
      sets — a structural zero or constant (a triangular matrix's empty half)
      can be known without reading it — and (b) the float outputs depend on
      in that same set (a nonzero, finite gradient there: an unused input or
      slice, a softmax over a size-1 dimension, the rows a data-dependent
      select does not take count nothing); of those, the distinct values
      (`_distinct_bytes`: repeated content is read once); the smaller count
      of the two sets, since one call reads one set. Inputs without a gradient
      (integers, booleans, every input where backward is not possible) count nothing;
    - parameters and buffers nothing (an answer may keep weights it derived
      from them between calls);
    - outputs: the largest output's distinct values among its elements that
      differ between the two sets (an answer may return one tensor for two
      equal outputs, or a broadcast view for repeated values).
    """
    with torch.no_grad():
        counter = _FlopCount()
        with counter:
            outputs = _outputs(model, inputs)
        repeated = _outputs(model, again)
    tensors = [v for v in inputs if isinstance(v, torch.Tensor)]
    state = {t.untyped_storage().data_ptr(): t for t in [*model.parameters(), *model.buffers()]}
    per_set = [_gradient_masks(model, values) for values in (inputs, again)]
    known = all(masks is not None for masks in per_set)
    fresh = 0
    if known:
        fresh = min(
            _distinct_bytes(
                [(values[i], (values[i] != other[i]) & masks[i]) for i in range(len(values)) if masks[i] is not None]
            )
            for values, other, masks in ((inputs, again, per_set[0]), (again, inputs, per_set[1]))
        )
    output_floor = max(
        (_distinct_bytes([(o, o != r)]) for o, r in zip(outputs, repeated) if o.shape == r.shape), default=0
    )
    return Work(
        input_bytes=_by_storage(tensors, [_nbytes(t) for t in tensors]),
        state_bytes=sum(t.untyped_storage().nbytes() for t in state.values()),
        output_bytes=sum(_nbytes(o) for o in outputs),
        flops=dict(counter.flops),
        fresh_bytes=fresh,
        output_floor_bytes=output_floor,
        dependence="autograd" if known else "none",
    )


# -- measuring the GPU (in the reference's child, with the GPU to itself) -----------------------


def _best_ms(fn, *args, reps: int = 5) -> float:
    """The fastest of `reps` timed runs of fn(*args) after one warm-up, by CUDA events."""
    fn(*args)
    best = float("inf")
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn(*args)
        end.record()
        torch.cuda.synchronize()
        best = min(best, start.elapsed_time(end))
    return best


def _matmul_flops(n: int, dtype: torch.dtype, device: str) -> float:
    a, b = torch.randn(n, n, device=device, dtype=dtype), torch.randn(n, n, device=device, dtype=dtype)
    return 2 * n**3 / (_best_ms(torch.matmul, a, b) * 1e-3)


def measure_peaks(device: str = "cuda") -> GpuPeaks:
    """This GPU's bandwidth (a 1 GiB device-to-device copy: read + write), matmul throughput per class, L2 size."""
    src = torch.empty(1 << 28, dtype=torch.float32, device=device)
    bandwidth = 2 * src.numel() * src.element_size() / (_best_ms(torch.Tensor.copy_, torch.empty_like(src), src) * 1e-3)
    del src
    matmul = torch.backends.cuda.matmul
    saved = matmul.allow_tf32
    flops = {}
    try:
        for name, dtype, n in (
            ("fp32", torch.float32, 4096),
            ("tf32", torch.float32, 8192),
            ("bf16", torch.bfloat16, 8192),
            ("fp16", torch.float16, 8192),
        ):
            matmul.allow_tf32 = name == "tf32"
            flops[name] = _matmul_flops(n, dtype, device)
    finally:
        matmul.allow_tf32 = saved
    l2 = torch.cuda.get_device_properties(torch.device(device)).L2_cache_size
    return GpuPeaks(bandwidth, flops, int(l2))
