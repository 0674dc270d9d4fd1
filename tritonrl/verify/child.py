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
the distributions).
candidate job: import the candidate, build `ModelNew` with the reference's
weights, run every trial under the aten trace and the Triton launch counter,
and record behaviour (launches, compute ops, input mutation, aliasing,
threads, output types, each tl.dot's precision), handing over every
trial's outputs and those of the timed calls checked at random. Comparison with the reference
happens in the caller, which alone holds it.

Test: tests/verify/test_verifier.py (through the sandbox).
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import asdict
from functools import partial
from itertools import count
from pathlib import Path
from typing import Any

import torch

from tritonrl.problems.shapes import ShapeError, shape_sites, with_shapes
from tritonrl.verify.child_patches import (
    hide_tensor_values,
    pin_autotuning_for_interpreter,
    run_device_functions_only_in_programs,
    run_libdevice_in_interpreter,
    run_programs_in_secret_order,
)
from tritonrl.verify.gpu_lock import GpuLock
from tritonrl.verify.handoff import send_outputs
from tritonrl.verify.precision import DotWatch
from tritonrl.verify.result import ReasonCode
from tritonrl.verify.runtime import (
    PROBLEM_DISTRIBUTION,
    AtenTrace,
    LaunchCounter,
    build_candidate,
    build_reference,
    clone_values,
    draw_inputs,
    flatten_outputs,
    import_source,
    make_inputs,
    plain_outputs,
    reproducible_inputs,
)
from tritonrl.verify.shrink import element_count, shrink_overrides
from tritonrl.verify.speed_of_light import measure_peaks, measure_work
from tritonrl.verify.timing import TIMED_OUTPUTS_BYTES, Timer
from tritonrl.verify.trials import alternate_budget, alternate_shapes, unfit_distribution


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
            raise _Failed(ReasonCode.REFERENCE_FAILED, f"measuring the problem's sizes failed: {_describe(exc)}") from exc
    source = with_shapes(original, overrides)
    result.data["shapes"] = shape_sites(source)
    failure_code = ReasonCode.SHAPES_UNSUPPORTED if overrides else ReasonCode.REFERENCE_FAILED
    lock = _gpu_lock(job)
    try:
        result.stage("wait for the GPU")  # not part of the trial time the candidate's limit grows with
        with lock.shared():
            result.stage("reference")
            problem = import_source(source, "problem", job_dir)
            model = build_reference(problem, job["weight_seed"], device)
            first, *more = job["input_seeds"]
            inputs, differs = reproducible_inputs(problem, first, device)
            if differs is not None:
                raise _Failed(ReasonCode.REFERENCE_FAILED, (
                    f"the problem's get_inputs() is not reproducible from the seed: two draws from one seed differ in "
                    f"input {differs}, so the candidate's process would get other inputs than the reference's; draw "
                    "with torch (torch.randn, ...), numpy's global np.random functions or Python's random, which the "
                    "verifier seeds, not an unseeded generator such as np.random.default_rng()"))
            outputs = _reference_outputs(model, inputs, device)
            del inputs
            _save_trial(result, job_dir, first, overrides, PROBLEM_DISTRIBUTION, outputs)
            own_finite = [bool(torch.isfinite(o).all()) for o in outputs]
            distributions = iter(job.get("distributions", []))  # what later trials draw from, most telling first
            for seed in more:
                result.stage("other distributions")
                if not _distribution_trial(job_dir, result, problem, model, overrides, own_finite, distributions, device):
                    outputs = _reference_outputs(model, make_inputs(problem, seed, device), device)  # no other distribution left
                    _save_trial(result, job_dir, seed, overrides, PROBLEM_DISTRIBUTION, outputs)
            timed_bytes = 0
            for check, seed in enumerate(job.get("timed_seeds") or []):  # one input set per checked timed call
                outputs = _reference_outputs(model, make_inputs(problem, seed, device), device)
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

    if job.get("alt_seed") is not None:
        result.stage("wait for the GPU")
        with lock.shared():
            result.stage("alternate shapes")
            _alternate_trial(job, job_dir, result, source, overrides, own_finite, distributions)


def _distribution_trial(
    job_dir: Path, result: _Result, problem, model, overrides: dict, own_finite: list[bool], distributions, device: str
) -> bool:
    """Save one trial on the next distribution the reference stays finite on; False when none is left.

    A distribution the reference fails on, or turns non-finite on, is
    outside the problem's domain: dropped, with the reason recorded; so is
    one that replaced none of get_inputs' draws (numpy or Python's random).
    """
    dropped = result.data.setdefault("dropped_distributions", {})
    for name, seed in distributions:
        try:
            inputs, replaced = draw_inputs(problem, seed, device, name)
            if not replaced:
                dropped[name] = "get_inputs draws nothing it replaces (torch.rand/randn): the problem's own inputs"
                continue
            outputs = _reference_outputs(model, inputs, device)
        except Exception as exc:
            dropped[name] = f"the reference fails on them: {_describe(exc)}"
            continue
        why = unfit_distribution(own_finite, outputs)
        if why is not None:
            dropped[name] = why
            continue
        _save_trial(result, job_dir, seed, overrides, name, outputs)
        return True
    return False


def _alternate_trial(
    job: dict, job_dir: Path, result: _Result, source: str, overrides: dict, own_finite: list[bool], distributions
) -> None:
    """One trial at other shapes: larger than the primary (on CPU: shrunk) ones unless too large (trials.alternate_budget).

    It draws from the next distribution left (the problem's own when none
    is), so a small trial count still sees two other distributions.
    """
    try:
        limit, grow = alternate_budget(0 if job.get("shrink_budget") else element_count(source, job_dir),
                                       job.get("shrink_budget"))
    except Exception:  # the problem cannot be measured on the meta device: no size limit to plan within
        return
    for variant in alternate_shapes(source, limit, grow, job["alt_seed"]):
        try:
            alt = import_source(with_shapes(source, variant), "problem", job_dir)
            model = build_reference(alt, job["weight_seed"], job["device"])
            outputs = _reference_outputs(model, make_inputs(alt, job["alt_seed"], job["device"]), job["device"])
        except Exception:  # the problem has constraints these shapes break: try the next set
            continue
        shapes = {**overrides, **variant}
        if not _distribution_trial(job_dir, result, alt, model, shapes, own_finite, distributions, job["device"]):
            _save_trial(result, job_dir, job["alt_seed"], shapes, PROBLEM_DISTRIBUTION, outputs)
        return


def _work(job: dict, result: _Result, problem, model, device: str) -> dict | None:
    """What one call of the reference moves and computes (speed_of_light.measure_work), from the trials' seeds.

    The problem's own distribution gives the two sets (the timed inputs are
    drawn from it), the first trial's and the timing's first. None when it
    cannot be measured (out of memory, a model the measurement cannot run):
    the verdicts then carry no bound.
    """
    try:
        work = measure_work(model, make_inputs(problem, result.data["trials"][0]["seed"], device),
                            make_inputs(problem, job["fresh_seed"], device))
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


def _save_trial(result: _Result, job_dir: Path, seed: int, overrides: dict, distribution: str, outputs: list) -> None:
    send_outputs(len(result.data["trials"]), outputs)
    result.data["trials"].append({"seed": seed, "overrides": overrides, "distribution": distribution})
    result.save()


def _storages(values: list) -> list[tuple[int, int]]:
    """(start, end) byte ranges of the storages behind tensors."""
    ranges = []
    for v in values:
        if isinstance(v, torch.Tensor) and v.untyped_storage().nbytes():
            start = v.untyped_storage().data_ptr()
            ranges.append((start, start + v.untyped_storage().nbytes()))
    return ranges


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
    result.stage("import")
    try:
        solution = import_source(job["candidate_code"], "candidate", job_dir)
    except BaseException as exc:  # SystemExit at import is a failure to import too
        raise _classify(exc, ReasonCode.IMPORT_ERROR) from exc

    built: dict[str, tuple] = {}  # problem source -> (problem module, candidate model)

    def prepare(source: str):
        if source not in built:
            result.stage("init")
            try:
                problem = import_source(source, "problem", job_dir)
                reference = build_reference(problem, job["weight_seed"], device)
            except Exception as exc:
                raise _Failed(ReasonCode.REFERENCE_FAILED, f"the reference Model does not build: {_describe(exc)}") from exc
            try:
                built[source] = (problem, build_candidate(problem, solution, reference, job["weight_seed"], device))
            except BaseException as exc:
                raise _classify(exc, ReasonCode.INIT_ERROR) from exc
        return built[source]

    timed = bool(job.get("timing")) and device == "cuda"
    lock = _gpu_lock(job)
    with lock.shared():
        for index, spec in enumerate(job["trials"]):
            problem, candidate = prepare(spec["problem_source"])
            result.stage(f"trial {index}")
            inputs = make_inputs(problem, spec["seed"], device, spec["distribution"])
            pristine = clone_values(inputs)
            _poison(device, spec.get("output_numels", []))
            threads_before = threading.active_count()
            trace = AtenTrace()
            counter = LaunchCounter()
            dots = DotWatch(device)
            try:
                # The outputs are checked and synchronised inside the traced window, so whatever
                # they still compute on access (or on the device) is seen as the candidate's work.
                with torch.no_grad(), counter, trace, dots:
                    outputs, foreign = plain_outputs(candidate(*inputs))
                    _sync(device)
            except BaseException as exc:
                raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
            trial = _observe(outputs, foreign, inputs, pristine, device, counter, trace, threads_before)
            trial["precision"] = dots.observation(inputs, trace.narrowings)
            if not foreign:
                try:
                    send_outputs(index, outputs)
                except Exception as exc:
                    raise _classify(exc, ReasonCode.CRASHED) from exc
            if index == 0:
                trial["repeat_launches"] = _repeat_launches(candidate, inputs, pristine, device)
            result.data["trials"].append(trial)
            result.save()
            del inputs, pristine, outputs  # a 6.4 GB trial's tensors go before the next trial's are made
        if device == "cuda":
            torch.cuda.empty_cache()  # while this job waits for the GPU alone, others may use the memory

    if timed and result.data["trials"] and not result.data["trials"][0]["non_tensor_outputs"]:
        spec = job["trials"][0]
        problem, candidate = prepare(spec["problem_source"])
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
        result.data["timing"] = {**timing, "timed_output_error": f"returned {foreign}, not plain tensors" if foreign else None}
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
    outputs: list[torch.Tensor], foreign: list[str], inputs: list, pristine: list, device: str,
    counter: LaunchCounter, trace: AtenTrace, threads_before: int,
) -> dict:
    """What the candidate did during one call, for the caller to judge."""
    input_ranges = _storages(inputs)
    return {
        "launches": counter.launches,
        "kernels": counter.kernels,
        "compute_ops": trace.compute_ops(),
        "host_reads": trace.host_reads,
        "threads_left": threading.active_count() - threads_before,
        "mutated_inputs": [
            i for i, (now, before) in enumerate(zip(inputs, pristine))
            if isinstance(now, torch.Tensor) and not torch.equal(now, before)
        ],
        "non_tensor_outputs": foreign,
        "wrong_device": [str(o.device) for o in outputs if o.device.type != torch.device(device).type],
        "aliased_outputs": [
            i for i, (start, end) in enumerate(_storages(outputs))
            if any(start < in_end and in_start < end for in_start, in_end in input_ranges)
        ],
    }


def _repeat_launches(candidate, inputs: list, pristine: list, device: str) -> int:
    """Kernel launches of a second call on the same input tensors, restored: a memoising candidate launches none.

    The very same tensors, as a timing loop re-feeds them, so a cache keyed
    by address or tensor identity hits as well as one keyed by contents.
    """
    for value, original in zip(inputs, pristine):
        if isinstance(value, torch.Tensor):
            torch.Tensor.copy_(value, original)  # not value.copy_: the candidate may have set attributes on it
    counter = LaunchCounter()
    try:
        with torch.no_grad(), counter:
            candidate(*inputs)
        _sync(device)
    except BaseException as exc:
        raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
    return counter.launches
