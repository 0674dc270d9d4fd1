"""What runs inside a sandboxed child: the reference job and the candidate job.

Both read `job.json` from their (already isolated) working directory and
write `result.json` plus one `.pt` file of outputs per trial. The result is
rewritten after every step, so when the child dies the caller still knows
how far it got. Failures are classified here, where they happen, into
reason codes.

reference job: shrink shapes for the CPU interpreter if needed, build
`Model` from the weight seed, run it on every trial's inputs.
candidate job: import the candidate, build `ModelNew` with the reference's
weights, run every trial under the aten trace and the Triton launch counter,
and record behaviour (launches, compute ops, input mutation, aliasing,
threads, output types). Comparison with the reference happens in the caller.

Test: tests/verify/test_verifier.py (through the sandbox).
"""

from __future__ import annotations

import json
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

import torch

from tritonrl.problems.shapes import ShapeError, shape_constants, with_shapes
from tritonrl.verify.gpu_lock import GpuLock
from tritonrl.verify.result import ReasonCode
from tritonrl.verify.runtime import (
    AtenTrace,
    compare_outputs,
    LaunchCounter,
    build_candidate,
    build_reference,
    clone_values,
    flatten_outputs,
    import_source,
    make_inputs,
    pin_autotuning_for_interpreter,
)
from tritonrl.verify.shrink import alternate_overrides, shrink_overrides


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
    job = json.loads((job_dir / "job.json").read_text())
    result = _Result(job_dir, kind=job["kind"], isolation=isolation)
    try:
        if job["kind"] == "reference":
            _reference_job(job, job_dir, result)
        else:
            _candidate_job(job, job_dir, result)
        result.stage("done")
    except _Failed as failure:
        result.fail(failure)
    return 0


def _reference_outputs(problem, model, seed: int, device: str) -> list[torch.Tensor]:
    with torch.no_grad():
        outputs = flatten_outputs(model(*make_inputs(problem, seed, device)))
    if not all(type(o) is torch.Tensor for o in outputs):
        raise _Failed(ReasonCode.REFERENCE_FAILED, "the reference Model returned something other than tensors")
    _sync(device)
    return [o.detach().cpu() for o in outputs]


def _reference_job(job: dict, job_dir: Path, result: _Result) -> None:
    original, device = job["problem_source"], job["device"]
    result.data["original_shapes"] = shape_constants(original)
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
    result.data["shapes"] = shape_constants(source)
    failure_code = ReasonCode.SHAPES_UNSUPPORTED if overrides else ReasonCode.REFERENCE_FAILED
    result.stage("reference")
    lock = _gpu_lock(job)
    try:
        with lock.shared():
            problem = import_source(source, "problem", job_dir)
            model = build_reference(problem, job["weight_seed"], device)
            for index, seed in enumerate(job["input_seeds"]):
                _save_trial(result, job_dir, index, seed, overrides, _reference_outputs(problem, model, seed, device))
        if job.get("timing"):
            result.stage("wait for the GPU alone")
            with lock.exclusive():
                result.stage("baseline timing")
                result.data["baseline"] = _time_model(model, problem, job["input_seeds"], device, job["timing"])
                if job["timing"].get("compile"):
                    compiled = torch.compile(model)
                    result.data["baseline_compile"] = _time_model(
                        compiled, problem, job["input_seeds"], device, job["timing"]
                    )
    except _Failed:
        raise
    except Exception as exc:
        shapes = f" at shapes {result.data['shapes']}" if overrides else ""
        raise _Failed(failure_code, f"the reference Model failed{shapes}: {_describe(exc)}") from exc

    if job.get("alt_seed") is not None:
        result.stage("alternate shapes")
        with lock.shared():
            for variant in alternate_overrides(source):
                try:
                    alt = import_source(with_shapes(source, variant), "problem", job_dir)
                    model = build_reference(alt, job["weight_seed"], device)
                    outputs = _reference_outputs(alt, model, job["alt_seed"], device)
                except Exception:  # the problem has constraints these shapes break: try the next set
                    continue
                _save_trial(result, job_dir, len(job["input_seeds"]), job["alt_seed"], {**overrides, **variant}, outputs)
                break


def _time_model(model, problem, seeds: list[int], device: str, settings: dict) -> dict:
    """Time `model` alternating between the first two trials' inputs (see timing.py)."""
    from tritonrl.verify.timing import Timer

    input_sets = [make_inputs(problem, seed, device) for seed in seeds[:2]]
    timer = Timer(device, budget_s=settings.get("budget_s", 2.0))
    timing, last_set, output = timer.time(model, input_sets, clone_values(input_sets[0]))
    return {**asdict(timing), "last_set": last_set}


def _save_trial(result: _Result, job_dir: Path, index: int, seed: int, overrides: dict, outputs: list) -> None:
    name = f"out_{index}.pt"
    torch.save(outputs, job_dir / name)
    result.data["trials"].append({"seed": seed, "overrides": overrides, "outputs": name})
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
    if device == "cpu":
        pin_autotuning_for_interpreter()
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
    primary = job["trials"][0]["problem_source"]
    timed_sets = [i for i, t in enumerate(job["trials"]) if t["problem_source"] == primary][:2]
    kept: dict[int, list[torch.Tensor]] = {}  # trial outputs the timed outputs are checked against
    lock = _gpu_lock(job)
    with lock.shared():
        for index, spec in enumerate(job["trials"]):
            problem, candidate = prepare(spec["problem_source"])
            result.stage(f"trial {index}")
            inputs = make_inputs(problem, spec["seed"], device)
            pristine = clone_values(inputs)
            _poison(device, spec.get("output_numels", []))
            threads_before = threading.active_count()
            trace = AtenTrace()
            counter = LaunchCounter(trace)
            try:
                with torch.no_grad(), counter, trace:
                    output = candidate(*inputs)
                _sync(device)
            except BaseException as exc:
                raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
            trial = _observe(output, inputs, pristine, device, counter, trace, threads_before)
            if not trial["non_tensor_outputs"]:
                name = f"out_{index}.pt"
                torch.save([o.detach().cpu() for o in flatten_outputs(output)], job_dir / name)
                trial["outputs"] = name
                if timed and index in timed_sets:
                    kept[index] = [o.detach().clone() for o in flatten_outputs(output)]
            if index == 0:
                trial["repeat_launches"] = _repeat_launches(candidate, pristine, device)
            result.data["trials"].append(trial)
            result.save()

    if timed and len(kept) == len(timed_sets):
        problem, candidate = prepare(primary)
        seeds = [job["trials"][i]["seed"] for i in timed_sets]
        kernels = {name for t in result.data["trials"] for name in t["kernels"]}
        result.stage("wait for the GPU alone")
        with lock.exclusive():
            result.stage("timing")
            try:
                result.data["timing"] = _time_candidate(
                    candidate, problem, seeds, [kept[i] for i in timed_sets], job["timing"], kernels
                )
            except BaseException as exc:
                raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
        result.save()


def _time_candidate(candidate, problem, seeds: list[int], kept: list, settings: dict, kernels: set[str]) -> dict:
    """Time the candidate like the baseline; check the last timed output against its own trial output.

    That trial output was already compared with the reference by the
    caller, so a candidate that caches across calls (a stale answer for
    the other input set) is caught without moving another full output.
    """
    from tritonrl.verify.timing import Timer

    input_sets = [make_inputs(problem, seed, "cuda") for seed in seeds]
    buffers = clone_values(input_sets[0])
    timer = Timer("cuda", budget_s=settings.get("budget_s", 2.0))
    timing, last_set, output = timer.time(candidate, input_sets, buffers, kernels)
    code, _, message = compare_outputs(kept[last_set], flatten_outputs(output), "cuda")
    return {
        **asdict(timing),
        "escaped_current_stream": timing.escaped_current_stream,
        "last_set": last_set,
        "timed_output_error": None if code is None else message,
    }


def _observe(output, inputs: list, pristine: list, device: str, counter: LaunchCounter, trace: AtenTrace, threads_before: int) -> dict:
    """What the candidate did during one call, for the caller to judge."""
    outputs = flatten_outputs(output)
    tensors = [o for o in outputs if type(o) is torch.Tensor]
    input_ranges = _storages(inputs)
    return {
        "launches": counter.launches,
        "kernels": counter.kernels,
        "compute_ops": trace.compute_ops(),
        "threads_left": threading.active_count() - threads_before,
        "mutated_inputs": [
            i for i, (now, before) in enumerate(zip(inputs, pristine))
            if isinstance(now, torch.Tensor) and not torch.equal(now, before)
        ],
        "non_tensor_outputs": [type(o).__name__ for o in outputs if type(o) is not torch.Tensor],
        "wrong_device": [str(o.device) for o in tensors if o.device.type != torch.device(device).type],
        "aliased_outputs": [
            i for i, (start, end) in enumerate(_storages(tensors))
            if any(start < in_end and in_start < end for in_start, in_end in input_ranges)
        ],
    }


def _repeat_launches(candidate, inputs: list, device: str) -> int:
    """Kernel launches of a second call on the same inputs: a memoising candidate launches none."""
    counter = LaunchCounter()
    try:
        with torch.no_grad(), counter:
            candidate(*clone_values(inputs))
        _sync(device)
    except BaseException as exc:
        raise _classify(exc, ReasonCode.RUNTIME_ERROR) from exc
    return counter.launches
