"""What runs inside a sandboxed child: the reference job and the candidate job.

Both read `job.json` from their (already isolated) working directory and
write `result.json`; every trial's outputs go to the verifier through the
job's socket (handoff.py: GPU memory stays on the GPU, nothing is written
to a file). The result is rewritten after every step, so when the child
dies the caller still knows how far it got. Failures are classified here,
where they happen, into reason codes.

reference job: shrink shapes for the CPU interpreter if needed, build
`Model` from the weight seed, run it on every trial's inputs: the first on
the problem's own ones (drawn twice from its seed first: inputs the seed
does not decide fail the problem), the others (the alternate-shape trial
too) on other input distributions where it stays finite on them and that
replaced one of get_inputs' draws (trials.py plans the shapes and judges
the distributions); the aten ops one call dispatches are recorded too.
candidate job: import the candidate, build `ModelNew` with the reference's
weights, run every trial under the aten trace and the Triton launch counter,
and record behaviour (launches, compute ops, data-moving glue, input
mutation, aliasing, threads, output types, each tl.dot's precision, output
elements no kernel made: kernel_writes.py), handing over every
trial's outputs and those of the timed calls checked at random. Comparison with the reference
happens in the caller, which alone holds it.

Test: tests/verify/test_verifier.py (through the sandbox).
"""

from __future__ import annotations

import copy
import json
import math
import random
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from functools import partial
from itertools import count
from pathlib import Path
from typing import Any

import torch

from tritonrl.problems.shapes import ShapeError, shape_sites, with_shapes
from tritonrl.verify.variants import unmoved_sizes
from tritonrl.verify.child_patches import (
    combine_whole_blocks_in_interpreter,
    count_loops_as_compiled_triton,
    hide_tensor_values,
    multiply_bf16_values_in_interpreter,
    pin_autotuning_for_interpreter,
    run_device_functions_only_in_programs,
    run_libdevice_in_interpreter,
    run_programs_in_secret_order,
)
from tritonrl.verify.harness import FROZEN, GRAD, INPUTS_GRAD, TRAINING
from tritonrl.verify.gpu_lock import GpuLock
from tritonrl.verify.handoff import send_outputs
from tritonrl.verify.kernel_writes import KernelWrites
from tritonrl.verify.precision import DotWatch
from tritonrl.verify.result import ReasonCode
from tritonrl.verify.rounding import reference_rounding
from tritonrl.verify.draws import (
    AS_BUILT,
    AT_OTHER_SHAPES,
    LATER,
    ORDINARY,
    STAY_SIDE,
    MASKING,
    MIXED,
    PROBLEM_DISTRIBUTION,
    RANGE_HALVINGS,
    RANGE_MARGIN,
    RANGE_TOPS,
    build_candidate,
    build_reference,
    range_name,
    changed_weights,
    changes_weights,
    constructor_integers,
    count_draws,
    init_arguments,
    integer_alternatives,
    draw_inputs,
    make_inputs,
    positive_tensors,
    reproducible_inputs,
)
from tritonrl.verify.runtime import (
    AtenTrace,
    LaunchCounter,
    clone_values,
    flatten_outputs,
    import_source,
    plain_outputs,
)
from tritonrl.verify.shrink import element_count, shrink_overrides
from tritonrl.verify.speed_of_light import measure_peaks, measure_work
from tritonrl.verify.timing import TIMED_OUTPUTS_BYTES, Timer
from tritonrl.verify.trials import OWN_SIZE_FACTOR, SHAPE_PLANS, unfit_distribution, untried_own_sizes


class _Failed(Exception):
    """A classified failure: stops the job and is recorded with its code."""

    def __init__(self, code: ReasonCode, message: str) -> None:
        super().__init__(message)
        self.code = code


def _describe(exc: BaseException) -> str:
    last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" (at {Path(last[0].filename).name}:{last[0].lineno})" if last else ""
    return f"{type(exc).__name__}: {exc}"[:1500] + where


def _classify(exc: BaseException, default: ReasonCode) -> _Failed:
    """Name the failure at the point it happened."""
    accelerator_error = getattr(torch, "AcceleratorError", ())
    if isinstance(exc, (MemoryError, torch.OutOfMemoryError)):
        return _Failed(ReasonCode.OUT_OF_MEMORY, _describe(exc))
    # The CPU allocator has no exception type of its own; its message is fixed.
    if isinstance(exc, RuntimeError) and "can't allocate memory" in str(exc):
        return _Failed(ReasonCode.OUT_OF_MEMORY, _describe(exc))
    if accelerator_error and isinstance(exc, accelerator_error):
        return _Failed(ReasonCode.CUDA_ERROR, _describe(exc))
    try:
        from triton.compiler.errors import CompilationError
    except ImportError:  # pragma: no cover - layout of older tritons
        CompilationError = ()
    if CompilationError and isinstance(exc, CompilationError):
        return _Failed(ReasonCode.COMPILE_ERROR, _describe(exc))
    if isinstance(exc, SyntaxError):
        return _Failed(ReasonCode.SYNTAX_ERROR, _describe(exc))
    return _Failed(default, _describe(exc))


# Bound before any candidate code runs, like the timing functions.
_monotonic = time.monotonic
MAX_SINGLE_DRAWS = 8  # get_inputs draws tried one at a time when a distribution breaks the reference on all together
AGAIN_CALLS = (
    4  # calls right after one trial in its tensors: its draw again, the widest range, offsets, ordinary values
)
AGAIN_OUTPUTS_BYTES = (
    2 << 30
)  # the verifier holds every trial's reference outputs: a 6.4 GB problem gets no again trial
MASKING_RATIO = 2.0  # a distribution whose reference output RMS exceeds normal inputs' this often hides small errors


class _Result:
    """result.json, rewritten atomically after every step; also the time spent in each stage."""

    def __init__(self, job_dir: Path, **fields: Any) -> None:
        self.path = job_dir / "result.json"
        self.data: dict[str, Any] = {"stage": "start", "reasons": [], "trials": [], "stage_seconds": {}, **fields}
        self._stage_started = _monotonic()
        self.save()

    def save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.data))
        tmp.replace(self.path)

    def stage(self, name: str) -> None:
        now = _monotonic()
        group = self.data["stage"].rstrip("0123456789 ")  # "trial 2" counts as "trial"
        seconds = self.data["stage_seconds"]
        seconds[group] = round(seconds.get(group, 0.0) + now - self._stage_started, 4)
        self._stage_started = now
        self.data["stage"] = name
        self.save()

    def fail(self, failure: _Failed) -> None:
        self.data["reasons"].append({"code": failure.code.value, "message": str(failure)})
        self.save()


def _gpu_lock(job: dict):
    """The GPU's sharing lock (gpu_lock.py) for cuda jobs; a no-op lock on CPU."""
    return GpuLock(**job["gpu_lock"]) if job.get("gpu_lock") else _NoLock()


class _NoLock:
    @contextmanager
    def shared(self):
        yield

    exclusive = shared


def _sync(device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()


def run_job(job_dir: Path, isolation: dict[str, bool]) -> int:
    """Entry point in the forked child; returns the exit status."""
    job_file = job_dir / "job.json"
    job = json.loads(job_file.read_text())
    job_file.unlink()  # its secrets (every trial's seed, the weight seed) are not left for the candidate to read
    result = _Result(job_dir, kind=job["kind"], isolation=isolation)
    try:
        if job["kind"] == "reference":
            _reference_job(job, job_dir, result)
        else:
            _candidate_job(job, job_dir, result)
        result.stage("done")
    except _Failed as failure:
        result.fail(failure)
    except (MemoryError, torch.OutOfMemoryError) as exc:
        # The harness's own allocations (a trial's inputs and their pristine copy) meet a GPU that
        # other jobs share; the pool runs a job that ran out of memory again, alone.
        result.fail(_classify(exc, ReasonCode.OUT_OF_MEMORY))
    return 0


def _reference_outputs(model, inputs: list, device: str) -> list[torch.Tensor]:
    with torch.no_grad():
        outputs = flatten_outputs(model(*inputs))
    if not all(type(o) is torch.Tensor for o in outputs):
        raise _Failed(ReasonCode.REFERENCE_FAILED, "the reference Model returned something other than tensors")
    _sync(device)
    return [o.detach() for o in outputs]


def _training_agrees(model, inputs: list, outputs: list[torch.Tensor], device: str) -> bool:
    """Whether a copy of the reference in training mode (as nn.Module builds it and KernelBench's harness calls it)
    gives `outputs`, its outputs in eval mode, exactly: then the candidate may be called in either mode, and is in
    some trials; a BatchNorm's or a Dropout's problem is judged in eval mode only."""
    try:
        trained = _reference_outputs(copy.deepcopy(model).train(), clone_values(inputs), device)
    except Exception:  # a model that cannot be copied or does not run in training mode: eval mode only
        return False
    return len(trained) == len(outputs) and all(
        a.shape == b.shape and a.dtype == b.dtype and torch.equal(a.nan_to_num(), b.nan_to_num())
        for a, b in zip(trained, outputs)
    )


def _aten_ops(model, inputs: list) -> dict[str, int]:
    """The aten ops one call of the reference dispatches: the verifier tells from them a problem whose answer is a
    layout or cast op (a transpose, `x.to(torch.float16)`), where the candidate's copies and casts are the computation."""
    with torch.no_grad(), AtenTrace() as trace:
        model(*inputs)
    return trace.ops


def _moves_data_only(model, inputs: list, device: str) -> bool:
    """Whether the reference only moves its inputs' values (a roll, a flip, a triangle, a concatenation): each output
    element is an input element, or 0, at a place that does not depend on the values. Then its answer's copies
    are the computation, whatever ops it calls them with.

    Measured on two fillings of the float inputs with distinct signed half-integers (±1.5, ±2.5, ...: exact in
    fp32 and fp64 below 2^22, and no rounding op's fixed points): the places found on the first must give the
    second's output too. A ReLU or a max-pool picks places by value, and a weight or an arithmetic op makes
    values no input held.
    """
    floats = [i for i, v in enumerate(inputs) if isinstance(v, torch.Tensor) and v.is_floating_point() and v.numel()]
    sizes = [inputs[i].numel() for i in floats]
    total = sum(sizes)
    if not floats or total >= 1 << 22 or any(inputs[i].dtype not in (torch.float32, torch.float64) for i in floats):
        return False

    def filled(seed: int) -> tuple[list, torch.Tensor]:
        generator = torch.Generator().manual_seed(seed)
        values = (torch.randperm(total, generator=generator) + 1.5).double()
        values *= torch.where(torch.rand(total, generator=generator) < 0.5, -1.0, 1.0).double()
        new = clone_values(inputs)
        for i, piece in zip(floats, values.split(sizes)):
            new[i] = piece.view(inputs[i].shape).to(inputs[i].dtype).to(device)
        return new, values

    try:
        runs = []
        for seed in (1, 2):
            new, values = filled(seed)
            found = _reference_outputs(model, new, device)
            if not found or not all(o.is_floating_point() for o in found):
                return False
            runs.append((values, torch.cat([o.detach().double().flatten().cpu() for o in found])))
    except Exception:  # the reference does not take these values (a log of a negative)
        return False
    (first, out_first), (second, out_second) = runs
    whole = out_first.abs().floor()
    held = (out_first.abs() - whole == 0.5) & (whole >= 1) & (whole <= total)
    if not bool((held | (out_first == 0)).all()):
        return False
    place = torch.empty(total, dtype=torch.long)
    place[first.abs().floor().long() - 1] = torch.arange(total)
    index = torch.where(held, place[whole.clamp(1, total).long() - 1], -1)
    if not torch.equal(first[index.clamp(min=0)][held], out_first[held]):  # the same magnitude, another sign
        return False
    expected = torch.where(index >= 0, second[index.clamp(min=0)], torch.zeros((), dtype=second.dtype))
    return bool(torch.equal(expected, out_second))


def _reference_job(job: dict, job_dir: Path, result: _Result) -> None:
    original, device = job["problem_source"], job["device"]
    result.data["original_shapes"] = shape_sites(original)
    overrides: dict[str, int] = {}
    if job.get("shrink_budget"):
        result.stage("shrink")
        try:
            overrides = shrink_overrides(original, job["shrink_budget"])
        except ShapeError as exc:
            raise _Failed(ReasonCode.SHAPES_UNSUPPORTED, str(exc)) from exc
        except Exception as exc:
            raise _Failed(
                ReasonCode.REFERENCE_FAILED, f"measuring the problem's sizes failed: {_describe(exc)}"
            ) from exc
    source = with_shapes(original, overrides)
    result.data["shapes"] = shape_sites(source)
    if overrides and (own := untried_own_sizes(original, job["shrink_budget"], job_dir)) is not None:
        result.data["untried"] = [
            f"the problem's own sizes ({own} elements; a CPU trial takes at most "
            f"{OWN_SIZE_FACTOR * job['shrink_budget']}): judged at them on a GPU only"
        ]
    failure_code = ReasonCode.SHAPES_UNSUPPORTED if overrides else ReasonCode.REFERENCE_FAILED
    lock = _gpu_lock(job)
    distributions = [tuple(d) for d in job.get("distributions", [])]  # what later trials draw from, most telling first
    try:
        result.stage("wait for the GPU")  # not part of the trial time the candidate's limit grows with
        with lock.shared():
            result.stage("draws")  # what the trials draw: not trial time, which the candidate's limit grows with
            problem = import_source(source, "problem", job_dir)
            first, *more = job["input_seeds"]
            inputs, differs = reproducible_inputs(problem, first, device)
            if differs is not None:
                raise _Failed(
                    ReasonCode.REFERENCE_FAILED,
                    (
                        f"the problem's get_inputs() is not reproducible from the seed: two draws from one seed differ in "
                        f"input {differs}, so the candidate's process would get other inputs than the reference's; draw "
                        "with torch (torch.randn, ...), numpy's global np.random functions or Python's random, which the "
                        "verifier seeds, not an unseeded generator such as np.random.default_rng()"
                    ),
                )
            mode, model, outputs, own_finite, built = _draw_mode(problem, job["weight_seed"], inputs, device)
            result.data["draw_mode"] = mode
            result.data["aten_ops"] = _aten_ops(model, inputs)
            result.data["moves_data"] = _moves_data_only(model, inputs, device)
            result.data["contiguous_outputs"] = [o.is_contiguous() for o in outputs]
            result.data["model_dtypes"] = sorted(
                {str(v.dtype).removeprefix("torch.") for v in model.state_dict().values()}
            )
            result.data["training_agrees"] = _training_agrees(model, inputs, outputs, device)
            integers = _varied_integers(problem, job["weight_seed"], device, mode, inputs, own_finite)
            result.data["varied_integers"] = integers
            models = _variant_models(problem, job["weight_seed"], device, mode, model, inputs, own_finite, integers)
            masking = _masking(problem, model, own_finite, distributions, device)
            at_other_shapes = sorted(
                ((name, seed) for name, seed in distributions if name not in masking),
                key=lambda d: AT_OTHER_SHAPES.index(d[0]),
            )
            # the first trial: the problem as written, its own inputs, weights and arguments (the timed calls too)
            result.stage("reference")
            _save_trial(
                result,
                problem,
                built,
                device,
                first,
                overrides,
                _Draw(),
                _reference_outputs(built, inputs, device),
                "the problem's own inputs",
                AS_BUILT,
            )
            del inputs
            # the primary shapes meet the distributions that do not mask first: a row sum missing two columns is
            # within tolerance of sums in the thousands (rows of -0.5, an offset), as is a ReLU cut at -0.25; offsets
            # come in the again trial's tensors, after other values
            at_primary = sorted((d for d in distributions if d[0] not in LATER), key=lambda d: d[0] in masking)
            for seed in more:
                result.stage("other distributions")
                _values_trial(result, problem, models, overrides, own_finite, at_primary, seed, mode, device)
            if job.get("again_seed") is not None:
                _again_trial(
                    result,
                    problem,
                    {**dict(models.values()), AS_BUILT: built},
                    overrides,
                    job["again_seed"],
                    job["weight_seed"],
                    device,
                    own_finite,
                    mode,
                )
            timed_bytes = 0
            for check, seed in enumerate(job.get("timed_seeds") or []):  # one input set per checked timed call
                outputs = _reference_outputs(built, make_inputs(problem, seed, device), device)
                timed_bytes += sum(o.numel() * o.element_size() for o in outputs)
                if check and timed_bytes > TIMED_OUTPUTS_BYTES:
                    break  # the verifier holds these while it judges the problem's candidates: fewer checks, not its memory
                send_outputs(f"timed {check}", outputs)
            if job.get("work"):
                result.stage("work")
                result.data["work"] = _work(job, result, problem, model, device)
        if job.get("timing") or job.get("measure_peaks"):
            result.stage("wait for the GPU alone")
            with lock.exclusive():
                if job.get("measure_peaks"):
                    result.stage("GPU peaks")
                    result.data["peaks"] = measure_peaks(device).to_dict()
                if job.get("timing"):
                    result.stage("baseline timing")
                    result.data["baseline"] = _time_model(model, problem, device, job["timing"], job["fresh_seed"])
                    if job["timing"].get("compile"):
                        compiled = torch.compile(model)
                        result.data["baseline_compile"] = _time_model(
                            compiled, problem, device, job["timing"], job["fresh_seed"]
                        )
    except _Failed:
        raise
    except Exception as exc:
        shapes = f" at shapes {result.data['shapes']}" if overrides else ""
        raise _Failed(failure_code, f"the reference Model failed{shapes}: {_describe(exc)}") from exc

    # the first at other shapes takes the problem as written too, so the first trial's instance serves other shapes;
    # the odd variant meets large values (a changed cap of 6), and ragged sizes besides the one-by-one plan's
    variants = (AS_BUILT, 0, models[1][0], models[1][0])
    for index, (plan, seed) in enumerate(zip(SHAPE_PLANS, job.get("alt_seeds") or [])):
        result.stage("wait for the GPU")
        with lock.shared():
            result.stage("alternate shapes")
            _shapes_trial(
                job,
                job_dir,
                result,
                original,
                overrides,
                own_finite,
                at_other_shapes,
                plan,
                seed,
                mode,
                integers,
                variants[index % len(variants)],
            )
    if job.get("alt_seeds") and all(trial["overrides"] == overrides for trial in result.data["trials"]):
        result.data.setdefault("untried", []).append(unmoved_sizes(original))


@dataclass(frozen=True)
class _Draw:
    """How a trial's inputs are drawn beyond its seed (draws.draw_inputs): the candidate's process repeats it."""

    distribution: str = PROBLEM_DISTRIBUTION
    kept: tuple[int, ...] = ()  # draws left as the problem drew them (another distribution broke the reference there)
    scalars: str = "built"  # how get_inputs' non-tensor values are varied (draws.DRAW_MODES)
    positive: bool = False  # the distribution's magnitudes only: the reference's domain is positive (a log)
    weights: int = 0  # a seed: the model's weights changed in place for the call (draws.changed_weights); 0: none

    def inputs(self, problem, seed: int, device: str) -> tuple[list, int]:
        return draw_inputs(problem, seed, device, self.distribution, frozenset(self.kept), self.scalars, self.positive)


def _fitting(
    problem,
    seed: int,
    device: str,
    mode: str,
    own_finite: list[bool],
    inputs: list,
    variant: int = 0,
    integers: dict | None = None,
) -> tuple[torch.nn.Module, list] | None:
    """The reference built from `seed` in `mode`, `variant` and `integers` (draws.build_reference), and its outputs on
    `inputs`, where it builds, runs and stays finite there; else None (its model does not take these values)."""
    try:
        model = build_reference(problem, seed, device, mode, variant, integers)
        outputs = _reference_outputs(model, clone_values(inputs), device)
    except Exception:  # an argument out of the model's range, a group count that divides nothing
        return None
    return (model, outputs) if unfit_distribution(own_finite, outputs) is None else None


def _draw_mode(problem, seed: int, inputs: list, device: str) -> tuple[str, torch.nn.Module, list, list[bool], Any]:
    """The first of draws.DRAW_MODES whose model the reference stays finite with, that model, its outputs on
    `inputs`, which outputs are finite as the problem builds its model (the domain every later draw keeps), and
    that model as built (draws.AS_BUILT)."""
    built = build_reference(problem, seed, device, variant=AS_BUILT)
    own_finite = [bool(torch.isfinite(o).all()) for o in _reference_outputs(built, clone_values(inputs), device)]

    def fits(mode: str):
        found = _fitting(problem, seed, device, mode, own_finite, inputs)
        return (mode, *found, own_finite, built) if found is not None else None

    if (drawn := fits("signed")) is not None:
        return drawn
    kept = positive_tensors(built)
    if kept and (drawn := fits(MIXED + ",".join(kept))) is not None:
        for name in list(kept):  # as few kept as the reference needs: a norm's gain signed, its variance kept
            trial = fits(MIXED + ",".join(k for k in kept if k != name))
            if trial is not None:
                kept.remove(name)
                drawn = trial
        return drawn
    if (drawn := fits("kept_sign")) is not None:
        return drawn
    return "built", built, _reference_outputs(built, clone_values(inputs), device), own_finite, built


def _varied_integers(problem, seed: int, device: str, mode: str, inputs: list, own_finite: list[bool]) -> dict:
    """Constructor integers (draws.constructor_integers) the odd variant changes: for each, the first other value
    (draws.integer_alternatives) at which the reference builds, stays finite, keeps its output shapes (not a size)
    and computes something else on the problem's own inputs or large ones (the argument is used). A divisor of 2,
    8 groups or a cap of 6 baked into an answer is then wrong in half of the trials."""
    rng = random.Random(seed)
    chosen: dict[str, int] = {}
    try:  # large values too: a cap of 6 changes nothing on torch.rand inputs
        wide, replaced = _Draw("large_magnitude").inputs(problem, seed, device)
    except Exception:
        wide, replaced = [], 0

    def outputs(integers: dict) -> list | None:
        found = _fitting(problem, seed, device, mode, own_finite, inputs, 1, integers)
        if found is None:
            return None
        try:
            return found[1] + (_reference_outputs(found[0], clone_values(wide), device) if replaced else [])
        except Exception:  # the model does not take large values: the problem's own inputs decide
            return found[1]

    try:
        candidates = constructor_integers(problem)
    except Exception:  # get_init_inputs or the constructor's signature cannot be read: nothing to change
        return chosen
    before = outputs(chosen) if candidates else None
    for key, value in candidates if before is not None else ():
        for other in integer_alternatives(value, rng):
            after = outputs({**chosen, key: other})
            if (
                after is not None
                and [o.shape for o in after] == [o.shape for o in before]
                and not all(torch.equal(a, b) for a, b in zip(after, before))
            ):
                chosen[key], before = other, after
                break
    return chosen


def _masking(problem, model, own_finite: list[bool], distributions: list, device: str) -> set[str]:
    """Which of draws.MASKING hide a small error for this problem: those whose reference output RMS is over
    MASKING_RATIO times its RMS on normal inputs (constant rows of -0.5 make row sums in the thousands, so an
    element read past a row end is within tolerance), or cannot be measured. The others (under a LayerNorm every
    row is O(1)) go to trials at other shapes too, where a path taken at other widths meets them."""
    seeds = dict(distributions)

    def rms(name: str) -> float | None:
        draw = _Draw(name)
        try:
            inputs, replaced = draw.inputs(problem, seeds.get(name, 0), device)
            found = _reference_outputs(model, inputs, device) if replaced else None
        except Exception:
            return None
        if found is None or unfit_distribution(own_finite, found) is not None:
            return None
        return max(
            (float(o.double().pow(2).mean().sqrt()) for o in found if o.is_floating_point() and o.numel()), default=None
        )

    normal = rms("normal")
    return {
        name for name in MASKING if normal is None or (spread := rms(name)) is None or spread > MASKING_RATIO * normal
    }


def _variant_models(
    problem, seed: int, device: str, mode: str, model, inputs: list, own_finite: list[bool], integers: dict
) -> dict:
    """variant -> (the variant it is, its model): 1 negates the signed draws, draws one-element weights and float
    arguments above 1 and takes `integers` (draws.VARIANTS), where the reference stays finite on it; else
    STAY_SIDE, the same with the arguments on their side of 1; else trials of variant 1 take variant 0's model."""
    for odd in (1, STAY_SIDE):
        if (other := _fitting(problem, seed, device, mode, own_finite, inputs, odd, integers)) is not None:
            return {0: (0, model), 1: (odd, other[0])}
    return {0: (0, model), 1: (0, model)}


def _values_trial(
    result: _Result,
    problem,
    models: dict,
    overrides: dict,
    own_finite: list[bool],
    distributions: list,
    seed: int,
    mode: str,
    device: str,
) -> None:
    """One trial at the primary shapes on the next distribution the reference stays finite on, with the model of
    this trial's variant or else the other's (a negated eps is no eps on constant rows); the problem's own inputs
    with its scalars varied when none is left. The first takes variant 0 (negative one-element weights), whose
    trial the again trial most often repeats with extreme magnitudes: variant 1 meets large values at other shapes."""
    turn = (len(result.data["trials"]) + 1) % 2
    choices = list(dict.fromkeys([models[turn], models[1 - turn]]))
    while distributions:
        name, draw_seed = distributions.pop(0)
        for variant, model in choices:
            fitting = _fitting_draw(result, problem, model, own_finite, name, draw_seed, mode, device)
            if fitting is not None:
                _save_trial(
                    result,
                    problem,
                    model,
                    device,
                    draw_seed,
                    overrides,
                    *fitting,
                    _inputs_purpose(name, fitting[0]),
                    variant,
                )
                return
    variant, model = choices[0]
    _save_trial(
        result,
        problem,
        model,
        device,
        seed,
        overrides,
        *_own_draw(problem, model, own_finite, seed, mode, device),
        "the problem's own inputs, other scalars",
        variant,
    )


def _again_trial(
    result: _Result,
    problem,
    models: dict,
    overrides: dict,
    seed: int,
    weight_seed: int,
    device: str,
    own_finite: list[bool],
    mode: str,
) -> None:
    """The inputs of the calls a candidate gets right after one primary trial, in that trial's very tensors: its draw
    again from `seed` with the weights changed in place, then extreme magnitudes (draws.RANGE_TOPS), then values far
    from 0 (draws.LATER), then ordinary values (draws.ORDINARY) with the second call's weights. Which
    trial is drawn here (a zeros-and-ties one, else an edge-value one, where there is one): a result memoised by the
    tensors' identity or address is stale, an eps applied on some calls only is wrong on one of the first two, and
    state kept for the shapes (a row max, a centre from the first call) meets other values; the primary shapes meet
    the extremes, whatever the answer tells them by."""
    trials = result.data["trials"]
    ties = [t for t in trials if t["distribution"] == "zeros_and_ties"]  # a ReLU of two offsets may be 0 twice
    edges = [t for t in trials if t["distribution"] in MASKING]
    first = random.Random(weight_seed ^ seed).choice(ties or edges or trials)
    index, variant = trials.index(first), first["variant"]
    model, seeds = models[variant], random.Random(seed)
    # the weights change on the first trial's kind of values, not at an offset (where doubled gains took an honest
    # LayerNorm past the tolerance)
    change = seeds.getrandbits(31) | 1
    weighted = changes_weights(model, change)
    change = change if weighted else 0
    draw = _Draw(first["distribution"], tuple(first["kept"]), first["scalars"], first["positive"], change)
    with changed_weights(model, change):
        outputs = _reference_outputs(model, draw.inputs(problem, seed, device)[0], device)
    size = sum(o.numel() * o.element_size() for o in outputs)
    if size > AGAIN_OUTPUTS_BYTES:
        result.data.setdefault("untried", []).append(
            "a second call in a trial's tensors refilled: its outputs would not fit beside the others on the GPU"
        )
        return
    _save_trial(
        result,
        problem,
        model,
        device,
        seed,
        overrides,
        draw,
        outputs,
        f"{first['purpose']}, again in the same tensors" + (", the weights changed in place" if weighted else ""),
        variant,
        again_of=index,
    )
    # the third call changes the weights the second left as they were (draws.changed_weights)
    others = -change if changes_weights(model, -change) else 0
    # a fifth on ordinary values with the second's weights: each harness state meets a weight change both right
    # after itself and right after the other state (harness.CHAIN_PATTERN)
    calls = (("a third call", None, others), ("a fourth call", LATER, 0), ("a fifth call", ORDINARY, change))
    for held, (call, names, weights) in enumerate(calls, start=1):
        draw_seed = seeds.getrandbits(31)
        if size * (held + 1) > AGAIN_OUTPUTS_BYTES:
            result.data.setdefault("untried", []).append(
                f"{call} in a trial's tensors refilled: its outputs would not fit beside the others on the GPU"
            )
            return
        with changed_weights(model, weights):
            found = (
                _widest_range(result, problem, model, own_finite, draw_seed, mode, device)
                if names is None
                else next(
                    (
                        (name, fitting)
                        for name in names
                        if (fitting := _fitting_draw(result, problem, model, own_finite, name, draw_seed, mode, device))
                        is not None
                    ),
                    None,
                )
            )
        if found is not None:
            name, (draw, outputs) = found
            _save_trial(
                result,
                problem,
                model,
                device,
                draw_seed,
                overrides,
                replace(draw, weights=weights),
                outputs,
                f"{_inputs_purpose(name, draw)} in the same tensors as trial {index}, {call}"
                + (f", the {'other ' * (weights == others)}weights changed in place" if weights else ""),
                variant,
                again_of=index,
            )


def _widest_range(result: _Result, problem, model, own_finite: list[bool], seed: int, mode: str, device: str):
    """(name, (draw, outputs)) of the widest range of magnitudes (draws.RANGE_TOPS) the reference stays finite on,
    or None; the tops it is not finite on are not recorded as dropped distributions (they are a search)."""

    def attempt(top: float):
        found = _fitting_draw(result, problem, model, own_finite, range_name(top), seed, mode, device)
        result.data["dropped_distributions"].pop(range_name(top), None)
        return found

    above = None
    for top in RANGE_TOPS:
        if (best := attempt(top)) is not None:
            break
        above = top
    else:
        return None
    if above is not None:
        low, high = math.log10(top), math.log10(above)
        for _ in range(RANGE_HALVINGS):
            middle = (low + high) / 2
            if attempt(10**middle) is not None:
                low = middle
            else:
                high = middle
        inside = 10 ** (low - RANGE_MARGIN * max(0.0, low - 2))
        if (found := attempt(inside)) is not None:
            best, top = found, inside
    return range_name(top), best


def _inputs_purpose(name: str, draw: _Draw) -> str:
    return f"{name} inputs" + (" (magnitudes only)" if draw.positive else "")


def _own_draw(problem, model, own_finite: list[bool], seed: int, mode: str, device: str) -> tuple[_Draw, list]:
    """The problem's own distribution with its scalars varied where the reference stays finite on them."""
    for scalars in dict.fromkeys((mode, "built")):
        draw = _Draw(scalars=scalars)
        try:
            outputs = _reference_outputs(model, draw.inputs(problem, seed, device)[0], device)
        except Exception:  # an integer moved out of the reference's range (a dim): the problem's own scalars
            if scalars == "built":
                raise
            continue
        if scalars == "built" or unfit_distribution(own_finite, outputs) is None:
            return draw, outputs
    raise AssertionError("the problem's own draw is always taken")


def _fitting_draw(
    result: _Result, problem, model, own_finite: list[bool], name: str, seed: int, mode: str, device: str
) -> tuple[_Draw, list] | None:
    """A draw from distribution `name` the reference stays finite on, refilling as many of get_inputs' draws as it
    can: all of them, then all without varied scalars, then those that keep the reference finite one at a time,
    then all of them with their magnitudes only. None (the reason recorded in `dropped_distributions`) when none
    does or it replaces nothing."""
    dropped = result.data.setdefault("dropped_distributions", {})
    why = None

    def attempt(draw: _Draw) -> list | None:
        nonlocal why
        try:
            inputs, replaced = draw.inputs(problem, seed, device)
            if not replaced:
                why = "get_inputs draws nothing it replaces (torch.rand/randn/randint): the problem's own inputs"
                return None
            outputs = _reference_outputs(model, inputs, device)
        except Exception as exc:
            why = f"the reference fails on them: {_describe(exc)}"
            return None
        why = unfit_distribution(own_finite, outputs)
        return outputs if why is None else None

    for scalars in dict.fromkeys((mode, "built")):
        draw = _Draw(name, (), scalars)
        if (outputs := attempt(draw)) is not None:
            return draw, outputs
    first_why, total = why, count_draws(problem, seed, device)
    if total > 1:
        every = set(range(total))
        alone = [
            i
            for i in range(min(total, MAX_SINGLE_DRAWS))
            if attempt(_Draw(name, tuple(sorted(every - {i})))) is not None
        ]
        for replaced in ([*alone], alone[:1]) if alone else ():
            draw = _Draw(name, tuple(sorted(every - set(replaced))))
            if (outputs := attempt(draw)) is not None:
                return draw, outputs
    if (outputs := attempt(draw := _Draw(name, positive=True))) is not None:  # a log's inputs: magnitudes only
        return draw, outputs
    dropped[name] = first_why
    return None


def _shapes_trial(
    job: dict,
    job_dir: Path,
    result: _Result,
    original: str,
    overrides: dict,
    own_finite: list[bool],
    distributions: list,
    plan,
    seed: int,
    mode: str,
    integers: dict,
    variant: int,
) -> None:
    """One trial at other shapes (trials.SHAPE_PLANS), on the next distribution left that does not mask a small error
    (the problem's own, scalars varied, when none is), drawn from this trial's seed; the first shape set the
    reference runs at is taken, in `variant` where the reference stays finite there, else in variant 0."""
    device, budget = job["device"], job.get("shrink_budget") or 0
    source = with_shapes(original, overrides)
    try:
        primary = 0 if budget else element_count(source, job_dir)
        proposals = plan.proposals(original, source, overrides, primary, budget, seed, job_dir)
    except Exception:  # the problem cannot be measured on the meta device: no size limit to plan within
        return
    for shapes, purpose in proposals:
        try:
            alt = import_source(with_shapes(original, shapes), "problem", job_dir)
            variant, model = _fitting_variant(
                alt, job["weight_seed"], device, mode, integers, own_finite, seed, variant
            )
        except Exception:  # the problem has constraints these shapes break: try the next set
            continue
        while distributions:
            name, _ = distributions.pop(0)
            fitting = _fitting_draw(result, alt, model, own_finite, name, seed, mode, device)
            if fitting is not None:
                _save_trial(
                    result,
                    alt,
                    model,
                    device,
                    seed,
                    shapes,
                    *fitting,
                    f"{purpose}, {_inputs_purpose(name, fitting[0])}",
                    variant,
                )
                return
        _save_trial(
            result,
            alt,
            model,
            device,
            seed,
            shapes,
            *_own_draw(alt, model, own_finite, seed, mode, device),
            purpose,
            variant,
        )
        return


def _fitting_variant(
    problem, weight_seed: int, device: str, mode: str, integers: dict, own_finite: list[bool], seed: int, variant: int
) -> tuple[int, torch.nn.Module]:
    """(variant, reference model) for a trial at other shapes: `variant` where the reference builds and stays finite
    on the problem's own inputs there, else variant 0 (which raises when these shapes do not build at all)."""
    inputs = make_inputs(problem, seed, device)
    if variant and (found := _fitting(problem, weight_seed, device, mode, own_finite, inputs, variant, integers)):
        return variant, found[0]
    model = build_reference(problem, weight_seed, device, mode)
    _reference_outputs(model, inputs, device)
    return 0, model


def _work(job: dict, result: _Result, problem, model, device: str) -> dict | None:
    """What one call of the reference moves and computes (speed_of_light.measure_work), from the trials' seeds.

    The problem's own distribution gives the two sets (the timed inputs are
    drawn from it), the first trial's and the timing's first. None when it
    cannot be measured (out of memory, a model the measurement cannot run):
    the verdicts then carry no bound.
    """
    try:
        work = measure_work(
            model,
            make_inputs(problem, result.data["trials"][0]["seed"], device),
            make_inputs(problem, job["fresh_seed"], device),
        )
    except Exception as exc:  # never a reason to fail the reference; recorded for the report
        result.data["work_error"] = _describe(exc)
        return None
    finally:
        if device == "cuda":
            torch.cuda.empty_cache()
    return work.to_dict()


def _fresh_inputs(problem, device: str, first_seed: int):
    """New input sets for timing, each from the next seed: no repetition sees the data of another."""
    seeds = count(first_seed)
    return lambda: make_inputs(problem, next(seeds), device)


def _time_model(model, problem, device: str, settings: dict, fresh_seed: int) -> dict:
    """Time `model` on fresh inputs every repetition (see timing.py)."""
    fresh = _fresh_inputs(problem, device, fresh_seed)
    timer = Timer(device, budget_s=settings.get("budget_s", 2.0))
    timing, _ = timer.time(model, fresh(), fresh)
    return asdict(timing)


def _save_trial(
    result: _Result,
    problem,
    model,
    device: str,
    seed: int,
    overrides: dict,
    draw: _Draw,
    outputs: list,
    purpose: str,
    variant: int,
    again_of: int | None = None,
) -> None:
    """Hand over a trial's reference outputs with how far the reference's own rounding moved them (its inputs drawn
    again: the reference may have written into the ones it took)."""
    send_outputs(len(result.data["trials"]), outputs)
    with changed_weights(model, draw.weights):
        rounding = reference_rounding(model, draw.inputs(problem, seed, device)[0], outputs)
    result.data["trials"].append(
        {
            "seed": seed,
            "overrides": overrides,
            "purpose": purpose,
            "variant": variant,
            "again_of": again_of,
            "rounding": rounding,
            **asdict(draw),
        }
    )
    result.save()


def _storage(value) -> tuple[int, int] | None:
    """(start, end) byte range of the storage behind a tensor; None for an empty one or a non-tensor."""
    if not isinstance(value, torch.Tensor) or not value.untyped_storage().nbytes():
        return None
    start = value.untyped_storage().data_ptr()
    return start, start + value.untyped_storage().nbytes()


def _overlapping(values: list, others: list) -> list[int]:
    """Indices of `values` whose storage shares bytes with the storage of any of `others`."""
    taken = [r for r in map(_storage, others) if r is not None]
    return [
        i
        for i, mine in enumerate(map(_storage, values))
        if mine is not None and any(mine[0] < end and start < mine[1] for start, end in taken)
    ]


def _poison(device: str, numels: list[int]) -> None:
    """Fill soon-to-be-reused allocator blocks with NaN, so returning uninitialised memory never looks right."""
    if device == "cuda":
        blocks = [torch.full((n,), float("nan"), device=device) for n in numels if n]
        del blocks


def _candidate_job(job: dict, job_dir: Path, result: _Result) -> None:
    device = job["device"]
    hide_tensor_values()
    if device == "cpu":
        pin_autotuning_for_interpreter()
        run_programs_in_secret_order(job["weight_seed"])
        run_device_functions_only_in_programs()
        run_libdevice_in_interpreter()
        count_loops_as_compiled_triton()
        combine_whole_blocks_in_interpreter()
        multiply_bf16_values_in_interpreter()
    result.stage("import")
    try:
        solution = import_source(job["candidate_code"], "candidate", job_dir)
    except BaseException as exc:  # SystemExit at import is a failure to import too
        raise _classify(exc, ReasonCode.IMPORT_ERROR) from exc

    mode = job.get("draw_mode", "built")
    integers = job.get("varied_integers") or {}
    references: dict[
        tuple[str, int], tuple
    ] = {}  # (problem source, variant) -> (problem module, reference, sharing key)
    instances: dict[int, tuple] = {}  # the verifier's instance number -> (sharing key, candidate)

    def prepare(spec: dict):
        """The problem and the candidate instance for a trial: the instance the verifier's schedule names, built on
        first use and shared by its trials where they build the same model (constructor arguments and weights)."""
        source, variant = spec["problem_source"], int(spec.get("variant", 0))
        if (source, variant) not in references:
            result.stage("init")
            try:
                problem = import_source(source, "problem", job_dir)
                reference = build_reference(problem, job["weight_seed"], device, mode, variant, integers)
            except Exception as exc:
                raise _Failed(
                    ReasonCode.REFERENCE_FAILED, f"the reference Model does not build: {_describe(exc)}"
                ) from exc
            key = (
                repr(init_arguments(problem, job["weight_seed"], mode, variant, integers)),
                variant,
                tuple((name, tuple(value.shape)) for name, value in reference.state_dict().items()),
            )
            references[(source, variant)] = (problem, reference, key)
        problem, reference, key = references[(source, variant)]
        held = instances.get(spec.get("instance", -1 - spec["label"]))
        if held is None or held[0] != key:
            result.stage("init")
            try:
                held = (
                    key,
                    build_candidate(problem, solution, reference, job["weight_seed"], device, mode, variant, integers),
                )
            except BaseException as exc:
                raise _classify(exc, ReasonCode.INIT_ERROR) from exc
            instances[spec.get("instance", -1 - spec["label"])] = held
        return problem, held[1]

    timed = bool(job.get("timing")) and device == "cuda"
    lock = _gpu_lock(job)
    with lock.shared():
        for spec in job["trials"]:  # in a secret order the verifier drew
            label = spec["label"]
            problem, candidate = prepare(spec)
            result.stage(f"trial {label}")
            draw = _Draw(
                spec["distribution"],
                tuple(spec.get("kept", ())),
                spec.get("scalars", "built"),
                bool(spec.get("positive")),
                spec.get("weights", 0),
            )
            inputs = draw.inputs(problem, spec["seed"], device)[0]
            autograd = _set_harness(candidate, inputs, spec["calls"][0])
            pristine = clone_values(inputs)
            _poison(device, spec.get("output_numels", []))
            threads_before = threading.active_count()
            trace = AtenTrace()
            counter = LaunchCounter()
            dots = DotWatch(device, trace.held, [candidate, *inputs])
            writes = KernelWrites(device, counter, inputs, inputs_made=not job.get("only_glue", True))
            try:
                # The outputs are checked and synchronised inside the traced window, so whatever
                # they still compute on access (or on the device) is seen as the candidate's work.
                with torch.set_grad_enabled(autograd), counter, trace, dots, writes:
                    outputs, foreign = plain_outputs(candidate(*inputs))
                    _sync(device)
            except BaseException as exc:
                raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
            trial = {
                "label": label,
                **_observe(outputs, foreign, inputs, pristine, device, counter, trace, threads_before),
            }
            trial["precision"] = dots.observation(inputs, trace.narrowings)
            if not foreign:
                try:
                    # refuses outputs larger than the job's limit before any copy
                    send_outputs(label, outputs)
                except Exception as exc:
                    raise _classify(exc, ReasonCode.CRASHED) from exc
            trial["unwritten_outputs"] = writes.unwritten_outputs(outputs)
            held = [outputs]  # every output this trial's calls returned stays alive: no honest allocation reuses it
            for call, follow in enumerate(spec.get("again", []), start=1):
                follow_draw = _Draw(
                    follow["distribution"],
                    tuple(follow["kept"]),
                    follow["scalars"],
                    bool(follow["positive"]),
                    follow["weights"],
                )
                refill = follow_draw.inputs(problem, follow["seed"], device)[0]
                reference = references[(spec["problem_source"], int(spec.get("variant", 0)))][1]
                with changed_weights(candidate, follow_draw.weights, reference):
                    launches, again = _repeat_launches(candidate, inputs, refill, device, spec["calls"][call])
                trial.setdefault("repeat_launches", launches)
                again, strange = plain_outputs(again)
                if _overlapping(again, [o for outputs_before in held for o in outputs_before]):
                    trial.setdefault("reused_outputs", []).append(f"call {len(held) + 1}")
                held.append(again)
                if not foreign and not strange:
                    send_outputs(follow["label"], again)
            result.data["trials"].append(trial)
            result.save()
            del inputs, pristine, outputs, held  # a 6.4 GB trial's tensors go before the next trial's are made
        if device == "cuda":
            torch.cuda.empty_cache()  # while this job waits for the GPU alone, others may use the memory

    if timed and result.data["trials"] and not any(t["non_tensor_outputs"] for t in result.data["trials"]):
        spec = next(t for t in job["trials"] if t["label"] == 0)  # the problem's own inputs, at the primary shapes
        problem, candidate = prepare(spec)
        torch.nn.Module.train(candidate, False)
        kernels = {name for t in result.data["trials"] for name in t["kernels"]}
        result.stage("wait for the GPU alone")
        with lock.exclusive():
            result.stage("timing")
            try:
                timing, checked, foreign = _time_candidate(candidate, problem, job, kernels)
                # Handed over while the GPU is still this job's alone: the caller compares each with the reference's.
                for check, outputs in enumerate([] if foreign else checked):
                    send_outputs(f"timed {check}", outputs)  # a label is taken once
            except BaseException as exc:
                raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
        result.data["timing"] = {
            **timing,
            "timed_output_error": f"returned {foreign}, not plain tensors" if foreign else None,
        }
        result.save()


def _time_candidate(candidate, problem, job: dict, kernels: set[str]) -> tuple[dict, list[list], list[str]]:
    """Time the candidate like the baseline; the timed calls checked at random, for the caller, run on inputs no trial used.

    Every repetition gets fresh inputs, so a cache keyed by a few input
    elements never hits; checked call n runs on the inputs of `timed_seeds[n]`,
    whose reference outputs only the caller holds, so a candidate that
    computes only while it believes it is watched is caught there.
    """
    fresh = _fresh_inputs(problem, "cuda", job["fresh_seed"])
    known = [partial(make_inputs, problem, seed, "cuda") for seed in job.get("timed_seeds") or []]
    timer = Timer("cuda", budget_s=job["timing"].get("budget_s", 2.0))
    timing, checked = timer.time(candidate, fresh(), fresh, known, kernels)
    plain = [plain_outputs(output) for output in checked]
    foreign = next((names for _, names in plain if names), [])
    return {**asdict(timing), "escaped_current_stream": timing.escaped_current_stream}, [o for o, _ in plain], foreign


def _observe(
    outputs: list[torch.Tensor],
    foreign: list[str],
    inputs: list,
    pristine: list,
    device: str,
    counter: LaunchCounter,
    trace: AtenTrace,
    threads_before: int,
) -> dict:
    """What the candidate did during one call, for the caller to judge."""
    return {
        "launches": counter.launches,
        "kernels": counter.kernels,
        "compute_ops": trace.compute_ops(),
        "data_moves": trace.data_moves,
        "host_reads": trace.host_reads,
        "threads_left": threading.active_count() - threads_before,
        "mutated_inputs": [
            i
            for i, (now, before) in enumerate(zip(inputs, pristine))
            if isinstance(now, torch.Tensor) and not torch.equal(now, before)
        ],
        "non_tensor_outputs": foreign,
        "wrong_device": [str(o.device) for o in outputs if o.device.type != torch.device(device).type],
        "strided_outputs": [i for i, o in enumerate(outputs) if not o.is_contiguous()],
        "aliased_outputs": _overlapping(outputs, inputs),
    }


def _set_harness(candidate, inputs: list, state: dict[str, bool]) -> bool:
    """Put the candidate and its inputs in a call's harness state (harness.py): training or eval mode, parameters
    frozen or not, float inputs requiring grad or not. Returns whether the call runs with autograd on."""
    torch.nn.Module.train(candidate, state.get(TRAINING, False))  # not its own train(): ours
    for parameter in torch.nn.Module.parameters(candidate):
        if parameter.is_floating_point() or parameter.is_complex():  # an int8 one never requires grad
            torch.Tensor.requires_grad_(parameter, not state[FROZEN])
    for value in inputs:
        if isinstance(value, torch.Tensor) and value.is_floating_point() and value.is_leaf:
            torch.Tensor.requires_grad_(value, state[INPUTS_GRAD])
    return state[GRAD]


def _repeat_launches(candidate, inputs: list, refill: list, device: str, state: dict[str, bool]) -> tuple[int, Any]:
    """Kernel launches and output of a second call on the same input tensors, refilled with `refill`'s values (and
    its other arguments), in harness state `state` (_set_harness): a memoising candidate launches none or answers the
    first call's inputs, and one that kept state from the first call (an output zeroed once, a snapshot of the
    weights taken under another harness state) answers otherwise.

    The very same tensors, as a timing loop re-feeds them, so a cache keyed
    by address or tensor identity hits as well as one keyed by contents.
    """
    if [getattr(v, "shape", None) for v in inputs] != [getattr(v, "shape", None) for v in refill]:
        raise _Failed(ReasonCode.REFERENCE_FAILED, "get_inputs() drew other shapes from another seed")
    with torch.no_grad():  # a leaf requiring grad is refilled in place only so
        for value, new in zip(inputs, refill):
            if isinstance(value, torch.Tensor):
                torch.Tensor.copy_(value, new)  # not value.copy_: the candidate may have set attributes on it
    arguments = [value if isinstance(value, torch.Tensor) else new for value, new in zip(inputs, refill)]
    autograd = _set_harness(candidate, inputs, state)
    counter = LaunchCounter()
    try:
        with torch.set_grad_enabled(autograd), counter:
            output = candidate(*arguments)
        _sync(device)
    except BaseException as exc:
        raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
    return counter.launches, output
