"""The verifier's public API: judge model responses for a problem, safely.

Layers, cheapest first: parse the response (plan + code), the static AST
layer, then the runtime layer in the sandbox, then (optional) an LLM judge.
The reference runs once per problem, in its own sandboxed child, with
secret seeds; its outputs stay in this process (on the GPU, for cuda) and
never reach a candidate. Each candidate runs in a fresh child, which hands
every trial's outputs over by file descriptor (handoff.py) as it goes;
they are compared here, where the candidate cannot reach.

    with Verifier(VerifierSettings(device="cpu")) as verifier:
        verdict = verifier.verify(problem_source, response_text)
        verdicts = verifier.verify_batch(problem_source, group_of_responses)

Test: tests/verify/test_verifier.py, tests/verify/test_hacks.py.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import torch

from tritonrl.home import state_dir
from tritonrl.verify import defaults
from tritonrl.problems.shapes import shape_sites, with_shapes
from tritonrl.verify import device_paths
from tritonrl.verify.baseline_cache import BaselineCache
from tritonrl.verify.draws import AS_BUILT, DISTRIBUTIONS, PROBLEM_DISTRIBUTION, value_families
from tritonrl.verify.gpu_lock import GpuLock
from tritonrl.verify.harness import Call, describe, draw_states
from tritonrl.verify.handoff import HandoffError, Inbox
from tritonrl.verify.interpreter import check_interpreter
from tritonrl.verify.judge import Judge
from tritonrl.verify.precision import check_policy, precision_reason
from tritonrl.verify.response import parse_response
from tritonrl.verify.result import Reason, ReasonCode, Verdict
from tritonrl.verify.runtime import compare_outputs, reference_only_glue
from tritonrl.verify.sandbox import ForkServer, Limits, ProcessOutcome, claim_verifier_folder, job_root
from tritonrl.verify.shrink import DEFAULT_BUDGET
from tritonrl.verify.speed_of_light import Bound, GpuPeaks, Work, bound, light_reason, sol_fraction
from tritonrl.verify.static import check_static
from tritonrl.verify.timing import CHECKS
from tritonrl.verify.trials import SHAPE_PLANS, constant_output, ragged

# A candidate runs the reference's trials once more, plus a call on the same inputs and a timed loop:
# four times the reference's own time leaves room for a kernel at half the speed of the PyTorch reference.
CANDIDATE_TIME_FACTOR = 4.0
# On CPU Triton's interpreter runs the candidate's kernels, program by program in Python: the honest catalogue's
# trials took 3 to 81 times the reference's own there (2026-12-05, 2 shared cores); this leaves room above that.
INTERPRETED_TIME_FACTOR = 100.0
REFERENCE_TIMEOUT_FACTOR = 4.0  # the reference is trusted code; its limit only catches a hung problem
_TRIAL_STAGES = ("reference", "other distributions", "alternate shapes")  # the reference child's stages that run trials
# Reasons after which running the code is pointless or impossible.
_NOT_RUNNABLE = {ReasonCode.NO_CODE, ReasonCode.SYNTAX_ERROR, ReasonCode.NO_MODELNEW}
LOG_TAIL_CHARS = 1200
# Said when the candidate's copies or casts were the computation (ReferenceRun.only_glue).
_GLUE_IS_THE_ANSWER = (
    ". For this problem the layout or cast is the computation (the reference only moves, casts or views data), so "
    "PyTorch copies, casts, clones, .contiguous(), cat and stack count as computing it and must happen in a Triton "
    "kernel instead: allocate the output (torch.empty) and write every element from the kernel; views are fine "
    "where each output keeps the reference's layout (a contiguous one where the reference's is: a transpose left "
    "to a view was not computed)"
)
# What a no_kernel_output verdict asks for (kernel_writes.py).
_WRITE_FROM_A_KERNEL = (
    "Every element of each output must be written by a store of a Triton kernel launched in the call, after any "
    "PyTorch op that writes it: allocate the output, pass it to the kernel and store every element there (a view of "
    "the kernel's buffer, a PyTorch copy or cast of the kernel's results, and zeros or other constants are fine). A "
    "kernel that writes a scratch buffer or a few blocks while PyTorch makes the output from the inputs, and memory "
    "left by a freed buffer, do not count"
)


@dataclass(frozen=True)
class VerifierSettings:
    """How a verifier checks: its only input besides the problem and the answers (`from_config` reads the app config's
    `verify` section into it)."""

    device: str = defaults.DEVICE
    # Trials at the primary shapes, each with fresh secret-seeded inputs (catches memoisation and lucky constants):
    # the first from the problem's own get_inputs(), the others with float inputs from other distributions
    # (draws.DISTRIBUTIONS, signs and outliers the problem's own may lack) where the reference stays finite.
    trials: int = defaults.TRIALS
    # Base wall-clock limit per child. A candidate also gets CANDIDATE_TIME_FACTOR × the reference's own trial
    # time (so limits grow with the problem's size); the trusted reference gets REFERENCE_TIMEOUT_FACTOR × this.
    timeout_s: float = defaults.TIMEOUT_S
    memory_bytes: int = 8 << 30
    cpu_element_budget: int = DEFAULT_BUDGET
    alternate_shapes: bool = (
        True  # trials at other shapes (trials.SHAPE_PLANS): catch specialised sizes, skipped tails, capped grids
    )
    timing: bool = True  # cuda only: time reference (eager) and candidate, report speed-up
    timing_budget_s: float = 2.0  # per timed callable; repetitions stop earlier once the median is stable
    compile_baseline: bool = False  # also time torch.compile(Model) (compiling costs tens of seconds per problem)
    baseline_cache: str | None = None  # directory keeping baselines across runs (per problem, GPU model, versions)
    precision: str = (
        defaults.PRECISION
    )  # tl.dot policy for fp32 problems (precision.py): strict needs IEEE fp32, tf32 allows TF32
    judge: Judge | None = None

    def __post_init__(self) -> None:
        """Checked where built, so every verifier, pool and command gets settings it can run with."""
        if self.device not in get_args(defaults.Device):
            raise ValueError(f"device must be 'cpu' or 'cuda', not {self.device!r}")
        check_policy(self.precision)
        if self.trials < 1 or not self.timeout_s > 0:
            raise ValueError(f"trials must be >= 1 and timeout_s > 0 (got {self.trials}, {self.timeout_s})")

    @classmethod
    def from_config(cls, verify: Any) -> VerifierSettings:
        """The settings every stage and command verifies with, so a judge configured once judges everywhere.

        `verify` is the app config's `verify` section (tritonrl.config.VerifyConfig), read by its attributes: the
        verifier imports nothing of the app. The judge's cache lives in the state directory, which no candidate's sandbox can reach."""
        judge = (
            Judge(
                verify.judge_url,
                verify.judge_model,
                state_dir() / "judge-cache",
                verify.judge_api_key_env,
                verify.judge_timeout_s,
            )
            if verify.judge_url
            else None
        )
        return cls(
            device=verify.device,
            trials=verify.trials,
            timeout_s=verify.timeout_s,
            precision=verify.precision,
            judge=judge,
        )


@dataclass(frozen=True)
class ReferenceTrial:
    """One input set: the problem source at its shapes, the secret seed, how the inputs are drawn (child._Draw), the
    reference's outputs, and what the trial is there to catch."""

    source: str
    seed: int
    shapes: dict[str, int]
    outputs: list[torch.Tensor]
    distribution: str = PROBLEM_DISTRIBUTION
    kept: tuple[int, ...] = ()
    scalars: str = "built"
    purpose: str = "the problem's own inputs"
    variant: int = 0  # how its model is drawn (draws.VARIANTS)
    positive: bool = False  # the distribution's magnitudes only (draws.draw_inputs)
    again_of: int | None = None  # a second call right after this trial, in its very tensors refilled
    weights: int = 0  # a seed: the model's weights changed in place for the call (draws.changed_weights); 0: none
    rounding: tuple[float, ...] = ()  # per output, how far the reference's own rounding moved it (rounding.py)


@dataclass
class ReferenceRun:
    """The reference's outputs for one problem, computed once and reused for every candidate.

    Trials run at the primary shapes (shrunk on CPU), first on the problem's
    own inputs, then on other input distributions the reference stays finite
    on; one more runs at an alternate shape set when the problem allows.
    """

    problem_source: str
    shapes: dict[str, int]
    original_shapes: dict[str, int]
    weight_seed: int
    trials: list[ReferenceTrial] = field(default_factory=list)
    # cuda with timing: the reference's outputs for CHECKS seeds no trial uses, the n-th the inputs of the candidate's
    # n-th timed call checked at random, each used once (a candidate cannot have kept or recognised an answer for them)
    timed: list[ReferenceTrial] | None = None
    baseline: dict | None = None  # eager Model timing (timing.Timing fields), cuda only
    baseline_compile: dict | None = None
    failure: Reason | None = None
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    baseline_cached: bool = False
    work: Work | None = None  # what one call moves and computes (speed_of_light.py), cuda with timing only
    bound: Bound | None = None  # its speed of light and floor on this GPU
    work_error: str | None = None  # why `work` could not be measured (then no verdict has a bound)
    dropped_distributions: dict[str, str] = field(
        default_factory=dict
    )  # distribution -> why the reference rules it out
    draw_mode: str = "built"  # how far weights and arguments were redrawn (draws.DRAW_MODES)
    varied_integers: dict[str, int] = field(default_factory=dict)  # constructor integers odd variants change
    untried: list[str] = field(default_factory=list)  # what no trial could reach (on CPU: the problem's own sizes)
    constant_output: bool = False  # identical reference outputs on every primary-shape input set
    aten_ops: dict[str, int] | None = None  # what one call of the reference dispatched (None: not recorded)
    moves_data: bool = False  # every output element is an input element or 0, at places not chosen by value
    contiguous_outputs: list[bool] = field(default_factory=list)  # per output of the first trial
    model_dtypes: list[str] = field(default_factory=list)  # the reference's parameter and buffer dtypes (precision.py)
    training_agrees: bool = False  # the reference computes the same in training mode (child._training_agrees)

    @property
    def only_glue(self) -> bool:
        """The reference computes nothing but layout and casts (a transpose, a dtype cast), by its ops or by what it
        does to values (a roll, a flip, a triangle: child._moves_data_only): that glue is the answer, so the
        candidate's data-moving glue is computation (runtime.DATA_MOVING_GLUE)."""
        return self.moves_data or (self.aten_ops is not None and reference_only_glue(self.aten_ops))

    @property
    def trial_seconds(self) -> float:
        """What the reference's own correctness trials took (its child's stages, no start-up, no timing)."""
        return sum(self.stage_seconds.get(stage, 0.0) for stage in _TRIAL_STAGES)

    @property
    def alt_shapes(self) -> dict[str, int]:
        return next((t.shapes for t in self.trials if t.shapes != self.shapes), {})

    @property
    def distributions(self) -> list[str]:
        """The input distributions the trials use, in trial order."""
        return list(dict.fromkeys(t.distribution for t in self.trials))

    def describe(self, index: int) -> str:
        """'trial <index>', with its input distribution and sizes where they are not the primary ones."""
        trial = self.trials[index]
        notes = [f"{trial.distribution} inputs"] if trial.distribution != PROBLEM_DISTRIBUTION else []
        if trial.again_of is not None:
            notes.append(f"called after trial {trial.again_of}, in its input tensors refilled")
        if trial.weights:
            notes.append("the model's weights changed in place (the same tensors)")
        changed = {k: v for k, v in trial.shapes.items() if self.shapes.get(k) != v}
        if changed:
            notes.append("at " + ", ".join(f"{k}={v}" for k, v in changed.items()))
        return f"trial {index}" + (f" ({', '.join(notes)})" if notes else "")


def _secret_schedule(reference: ReferenceRun, trials: list[dict]) -> list[dict]:
    """The trials in an order drawn per job, each with the candidate instance it runs on, so a candidate cannot tell
    one trial from another by its place or its instance: the trials of one model variant are paired, one at the
    primary shapes with one at ragged other shapes (trials.ragged; else any other shapes), and each pair shares an
    instance (where both build the same model), so an instance that serves the primary shapes meets sizes no block
    tiles as well: one that skips the tails on some instances only is seen."""
    # The trial the reference job drew more calls for gets them right after itself, in label order, in its very
    # tensors refilled (ReferenceTrial.again_of): a memoised answer launches nothing or answers the first call's
    # inputs, and state kept for the instance's shape meets other values.
    for again in [t for t in trials if reference.trials[t["label"]].again_of is not None]:
        trials.remove(again)
        first = next(t for t in trials if t["label"] == reference.trials[again["label"]].again_of)
        first.setdefault("again", []).append({key: again[key] for key in _DRAW_KEYS})
    chance = secrets.SystemRandom()
    instance = 0
    for variant in sorted({t["variant"] for t in trials}):
        mine = [t for t in trials if t["variant"] == variant]
        primary = [t for t in mine if reference.trials[t["label"]].shapes == reference.shapes]
        untiled = [t for t in mine if t not in primary and ragged(reference.trials[t["label"]].shapes)]
        other = [t for t in mine if t not in primary and t not in untiled]
        for group in (primary, untiled, other):
            chance.shuffle(group)
        # the rest join a pair: no instance of one kind of shapes only
        pairs = max(1, min(len(primary), len(untiled) or len(other)))
        for group in (primary, untiled + other):
            for index, trial in enumerate(group):
                trial["instance"] = instance + index % pairs
        instance += pairs
    # The harness each call runs under (harness.py): groups of calls that must each see every state on and off
    calls = [
        Call(
            i,
            index,
            (
                f"distribution {trial.distribution}",
                "primary shapes" if trial.shapes == reference.shapes else "other shapes",
                *value_families(trial.distribution),
            ),
            t["variant"] != AS_BUILT,
        )
        for i, t in enumerate(trials)
        for index, trial in enumerate(reference.trials[label] for label in _call_labels(t))
    ]
    for trial, states in zip(trials, draw_states(chance, calls, reference.training_agrees)):
        trial["calls"] = states
    chance.shuffle(trials)
    return trials


_DRAW_KEYS = ("label", "seed", "distribution", "kept", "scalars", "positive", "weights")  # a call's draw (child._Draw)


def _call_labels(trial: dict) -> list[int]:
    """A scheduled trial's reference labels: its own call's, then those of the calls right after it."""
    return [trial["label"], *(follow["label"] for follow in trial.get("again", []))]


def _call_states(trial: dict) -> list[tuple[int, str]]:
    """(label, what the harness set for it) for a scheduled trial's calls, for the purposes a verdict names."""
    return [(label, describe(state)) for label, state in zip(_call_labels(trial), trial["calls"])]


def _answered(reference: ReferenceRun, trials: list[dict]) -> set[int]:
    """The reference trials a candidate's run answered: those it ran, and the second calls right after them."""
    ran = {int(t["label"]) for t in trials}
    return ran | {i for i, t in enumerate(reference.trials) if t.again_of in ran}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class Verifier:
    """Verifies candidates; holds a fork server, so use it as a context manager (or call close())."""

    def __init__(
        self, settings: VerifierSettings = VerifierSettings(), worker_env: dict[str, str] | None = None
    ) -> None:
        if settings.device == "cpu":
            check_interpreter()
        self.settings = settings
        visible = (worker_env or {}).get("CUDA_VISIBLE_DEVICES") or os.environ.get("CUDA_VISIBLE_DEVICES") or "0"
        self.gpu = visible.split(",")[0].strip()  # the physical GPU this verifier's children use
        self.device = f"cuda:{self._ordinal()}" if settings.device == "cuda" else "cpu"  # that GPU in this process
        limits = Limits(timeout_s=settings.timeout_s, memory_bytes=settings.memory_bytes)
        self.server = ForkServer(limits, interpret=settings.device == "cpu", env=worker_env)
        self._root, self._root_lock = claim_verifier_folder(job_root())
        self.gpu_lock = GpuLock(job_root(), self.gpu).create() if settings.device == "cuda" else None
        self.peaks: GpuPeaks | None = None  # measured on this GPU by the first reference job that times (or cached)
        self._root.chmod(0o711)  # children may enter their own job dir, not list others

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        if exc_type is not None:  # interrupted or failed: no use finishing a candidate's trials first
            self.server.interrupt()
        self.close()

    def interrupt(self) -> None:
        """End the candidate running now (from any thread); `close` still follows."""
        self.server.interrupt()

    def close(self) -> None:
        self.server.stop()
        shutil.rmtree(self._root, ignore_errors=True)
        if self._root_lock is not None:
            os.close(self._root_lock)
            self._root_lock = None

    # -- reference -------------------------------------------------------

    def prepare_reference(self, problem_source: str) -> ReferenceRun:
        """Run the reference once (shrinking shapes on CPU) with fresh secret seeds."""
        started = time.perf_counter()
        run = ReferenceRun(problem_source, shapes={}, original_shapes={}, weight_seed=secrets.randbits(31))
        timing = self._timing_job_settings()
        cache_key, cached = self._cached_baseline(problem_source, timing)
        peaks_key = self._cached_peaks(timing)
        job = {
            "kind": "reference",
            "problem_source": problem_source,
            "device": self.settings.device,
            "weight_seed": run.weight_seed,
            "input_seeds": [secrets.randbits(31) for _ in range(self.settings.trials)],
            "distributions": [[name, secrets.randbits(31)] for name in DISTRIBUTIONS],
            "alt_seeds": [secrets.randbits(31) for _ in SHAPE_PLANS] if self.settings.alternate_shapes else [],
            "again_seed": secrets.randbits(31),
            "fresh_seed": secrets.randbits(31),
            "timed_seeds": [secrets.randbits(31) for _ in range(CHECKS)] if timing is not None else None,
            "shrink_budget": self.settings.cpu_element_budget if self.settings.device == "cpu" else 0,
            "timing": None if cached else timing,
            "work": timing is not None and not (cached and "work" in cached),
            "measure_peaks": timing is not None and self.peaks is None,
            "gpu_lock": self._job_lock(),
        }
        received: dict[int | str, list[torch.Tensor]] = {}

        def keep(label: int | str, tensors: list[torch.Tensor]) -> None:
            if _timed_check(label) is None and label != sum(type(k) is int for k in received):
                raise HandoffError(f"reference outputs {label!r} out of order")
            received[label] = [t.clone() for t in tensors]  # the received memory is released after this call

        timeout_s = REFERENCE_TIMEOUT_FACTOR * self.settings.timeout_s
        job_dir, outcome, result, inbox = self._run_job(job, keep, limit=1 << 62, timeout_s=timeout_s)
        try:
            run.stage_seconds = self._stage_seconds(result, time.perf_counter() - started)
            run.baseline, run.baseline_compile = result.get("baseline"), result.get("baseline_compile")
            if result.get("work"):
                run.work = Work.from_dict(result["work"])
            run.work_error = result.get("work_error")
            if result.get("peaks") and self.peaks is None:
                self.peaks = GpuPeaks.from_dict(result["peaks"])
                if peaks_key:
                    BaselineCache(self.settings.baseline_cache).put(peaks_key, {"peaks": result["peaks"]})
            run.original_shapes = result.get("original_shapes", {})
            run.shapes = result.get("shapes", run.original_shapes)
            run.dropped_distributions = dict(result.get("dropped_distributions", {}))
            run.aten_ops = result.get("aten_ops")
            run.moves_data = bool(result.get("moves_data"))
            run.contiguous_outputs = [bool(c) for c in result.get("contiguous_outputs", [])]
            run.model_dtypes = [str(d) for d in result.get("model_dtypes", [])]
            run.training_agrees = bool(result.get("training_agrees"))
            run.draw_mode = str(result.get("draw_mode", "built"))
            run.varied_integers = {str(k): int(v) for k, v in result.get("varied_integers", {}).items()}
            run.untried = [str(u) for u in result.get("untried", [])]
            if result.get("reasons"):
                reason = result["reasons"][0]
                run.failure = Reason(ReasonCode(reason["code"]), reason["message"])
            elif result.get("stage") != "done":
                run.failure = Reason(
                    ReasonCode.REFERENCE_FAILED,
                    f"the reference run ended early ({self._ending(outcome, timeout_s)}): {self._log_tail(job_dir)}",
                )
            elif inbox.errors or any(i not in received for i in range(len(result["trials"]))):
                run.failure = Reason(
                    ReasonCode.REFERENCE_FAILED, f"the reference's outputs did not arrive: {inbox.errors}"
                )
            else:
                for index, trial in enumerate(result["trials"]):
                    source = with_shapes(problem_source, trial["overrides"])
                    shapes = shape_sites(source)
                    run.trials.append(
                        ReferenceTrial(
                            source,
                            trial["seed"],
                            shapes,
                            received[index],
                            trial["distribution"],
                            tuple(trial["kept"]),
                            trial["scalars"],
                            trial["purpose"],
                            int(trial["variant"]),
                            bool(trial.get("positive")),
                            trial.get("again_of"),
                            int(trial.get("weights", 0)),
                            tuple(float(r) for r in trial.get("rounding", ())),
                        )
                    )
                # the first known sets whose outputs fit the reference job's budget (at least one)
                seeds = [seed for n, seed in enumerate(job["timed_seeds"] or []) if f"timed {n}" in received]
                if seeds and all(f"timed {n}" in received for n in range(len(seeds))):
                    first = run.trials[0]
                    run.timed = [
                        ReferenceTrial(first.source, seed, first.shapes, received[f"timed {n}"])
                        for n, seed in enumerate(seeds)
                    ]
                run.constant_output = constant_output([t.outputs for t in run.trials if t.shapes == run.shapes])
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)
        if cached:
            run.baseline, run.baseline_compile, run.baseline_cached = cached["baseline"], cached.get("compile"), True
            run.work = Work.from_dict(cached["work"]) if cached.get("work") else run.work
        if cache_key and run.failure is None and run.baseline is not None and not (cached and "work" in cached):
            entry = {"baseline": run.baseline, "compile": run.baseline_compile}
            if run.work is not None:  # not measured (out of memory): measured again next time
                entry["work"] = run.work.to_dict()
            BaselineCache(self.settings.baseline_cache).put(cache_key, entry)
        if run.work is not None and self.peaks is not None:
            run.bound = bound(run.work, self._gpu_name(), self.peaks, self.settings.precision)
        run.seconds = time.perf_counter() - started
        return run

    def _cached_baseline(self, problem_source: str, timing: dict | None) -> tuple[str | None, dict | None]:
        """(cache key, cached entry) when a baseline cache is configured and timing is on."""
        if timing is None or not self.settings.baseline_cache:
            return None, None
        key = BaselineCache.key(problem_source, self._gpu_name(), timing)
        return key, BaselineCache(self.settings.baseline_cache).get(key)

    def _cached_peaks(self, timing: dict | None) -> str | None:
        """The cache key of this GPU's measured peaks (loading them when cached), when a cache is configured and timing is on."""
        if timing is None or not self.settings.baseline_cache:
            return None
        key = BaselineCache.peaks_key(self._gpu_name())
        entry = BaselineCache(self.settings.baseline_cache).get(key, "peaks")
        if entry is not None and self.peaks is None:
            self.peaks = GpuPeaks.from_dict(entry["peaks"])
        return key

    def _ordinal(self) -> int:
        """This verifier's GPU as this process numbers it (the caller's own CUDA_VISIBLE_DEVICES may renumber it)."""
        visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
        return visible.index(self.gpu) if self.gpu in visible else int(self.gpu) if self.gpu.isdigit() else 0

    def _gpu_name(self) -> str:
        return torch.cuda.get_device_name(self._ordinal())

    def _timing_job_settings(self) -> dict | None:
        if self.settings.device != "cuda" or not self.settings.timing:
            return None
        return {"budget_s": self.settings.timing_budget_s, "compile": self.settings.compile_baseline}

    def _job_lock(self) -> dict | None:
        return self.gpu_lock.to_job() if self.gpu_lock else None

    @staticmethod
    def _stage_seconds(result: dict, wall_s: float) -> dict[str, float]:
        """The child's own stage times plus what the caller spent around it (fork, file transfer, comparison)."""
        stages = {str(k): float(v) for k, v in dict(result.get("stage_seconds", {})).items()}
        stages["outside child"] = round(max(wall_s - sum(stages.values()), 0.0), 4)
        return stages

    # -- candidates ------------------------------------------------------

    def verify(self, problem_source: str, response: str) -> Verdict:
        return self.verify_batch(problem_source, [response])[0]

    def verify_batch(self, problem_source: str, responses: list[str]) -> list[Verdict]:
        """Verify many responses for one problem, running the reference once."""
        reference = self.prepare_reference(problem_source)
        return [self.verify_against(reference, response) for response in responses]

    def verify_against(self, reference: ReferenceRun, response: str) -> Verdict:
        started = time.perf_counter()
        verdict = Verdict(
            device=self.settings.device,
            shapes=reference.shapes,
            alt_shapes=reference.alt_shapes,
            original_shapes=reference.original_shapes,
            trials=len(reference.trials),
            distributions=reference.distributions,
            trial_purposes=[t.purpose for t in reference.trials],
            other_shape_trials=[label for label, t in enumerate(reference.trials) if t.shapes != reference.shapes],
            draw_mode=reference.draw_mode,
            varied_integers=reference.varied_integers,
            untried=reference.untried,
            constant_reference=reference.constant_output,
        )
        code = parse_response(response).code
        if code is None:
            verdict.reasons.append(
                Reason(ReasonCode.NO_CODE, "the response has no Python code block defining ModelNew")
            )
        else:
            verdict.reasons.extend(check_static(code))
            if self.settings.device == "cpu":  # the interpreter runs the CPU's path only: the GPU's is not judged
                refused, untried = device_paths.on_cpu(code)
                verdict.reasons.extend(refused)
                verdict.untried = [*verdict.untried, *untried]
        runnable = code is not None and not any(r.code in _NOT_RUNNABLE for r in verdict.reasons)
        if reference.failure is not None:
            verdict.reasons.append(reference.failure)
        elif runnable:
            self._run_candidate(reference, code, verdict)
        if self.settings.judge is not None and code is not None and verdict.valid:
            review = self.settings.judge.review(reference.problem_source, code)
            verdict.judge, verdict.judge_reason = review.outcome, review.reason
            if review.rejection is not None:
                verdict.reasons.append(review.rejection)
        verdict.seconds = time.perf_counter() - started
        return verdict

    def _run_candidate(self, reference: ReferenceRun, code: str, verdict: Verdict) -> None:
        started = time.perf_counter()
        job = {
            "kind": "candidate",
            "candidate_code": code,
            "device": self.settings.device,
            "weight_seed": reference.weight_seed,
            "timing": self._timing_job_settings(),
            "gpu_lock": self._job_lock(),
            "fresh_seed": secrets.randbits(31),
            "timed_seeds": [t.seed for t in reference.timed] if reference.timed is not None else None,
            "draw_mode": reference.draw_mode,
            "varied_integers": reference.varied_integers,
            "only_glue": reference.only_glue,
            "trials": _secret_schedule(
                reference,
                [
                    {
                        "label": label,
                        "problem_source": t.source,
                        "variant": t.variant,
                        "seed": t.seed,
                        "distribution": t.distribution,
                        "kept": list(t.kept),
                        "scalars": t.scalars,
                        "positive": t.positive,
                        "weights": t.weights,
                        "output_numels": [o.numel() for o in t.outputs],
                    }
                    for label, t in enumerate(reference.trials)
                ],
            ),
        }
        compared: dict[int | str, tuple[ReasonCode | None, float, str]] = {}

        def judge(label: int | str, tensors: list[torch.Tensor]) -> None:
            """Compare as the outputs arrive, so a 6.4 GB trial's memory is released before the next is made."""
            check, trial = _timed_check(label), label if type(label) is int else None
            if check is not None and check < len(reference.timed or []):
                expected = reference.timed[check]  # the reference's on the known inputs of checked timed call n
            elif trial is not None and 0 <= trial < len(reference.trials):
                expected = reference.trials[trial]
            else:
                raise HandoffError(f"there is no trial {label!r}")
            compared[label] = compare_outputs(
                expected.outputs, tensors, self.device, self.settings.precision, expected.rounding
            )

        largest = max((sum(o.numel() * o.element_size() for o in t.outputs) for t in reference.trials), default=0)
        timeout_s = self.candidate_timeout(reference)
        for trial in job["trials"]:
            for label, state in _call_states(trial):
                verdict.trial_purposes[label] += state
        job_dir, outcome, result, inbox = self._run_job(job, judge, limit=4 * largest + (64 << 20), timeout_s=timeout_s)
        verdict.ran = True
        verdict.sandbox = {k: bool(v) for k, v in dict(result.get("isolation", {})).items()}
        try:
            stage = str(result.get("stage", "")).removeprefix(
                "trial "
            )  # a failure raised in a trial names it (prompts.py)
            at = (
                f"{reference.describe(int(stage))}: "
                if stage.isdecimal() and int(stage) < len(reference.trials)
                else ""
            )
            verdict.reasons.extend(
                Reason(ReasonCode(r["code"]), at + str(r["message"])) for r in result.get("reasons", [])
            )
            trials = result.get("trials", [])
            verdict.kernel_launches = sum(int(t["launches"]) for t in trials)
            verdict.reasons.extend(
                self._behaviour_reasons(
                    trials, reference.only_glue, [i for i, c in enumerate(reference.contiguous_outputs) if c]
                )
            )
            dtypes = [str(o.dtype).removeprefix("torch.") for t in reference.trials for o in t.outputs]
            downgrade = precision_reason(
                trials,
                dtypes,
                self.settings.precision,
                reference.model_dtypes,
                any(op.endswith("[float to integer]") for op in reference.aten_ops or {}),
            )
            if downgrade is not None:
                verdict.reasons.append(downgrade)
            finished = result.get("stage") == "done"
            if not finished and not result.get("reasons"):
                verdict.reasons.append(self._ending_reason(outcome, result, job_dir, reference))
            for label, message in inbox.errors.items():
                code = ReasonCode.OUT_OF_MEMORY if label in inbox.out_of_memory else ReasonCode.CRASHED
                verdict.reasons.append(Reason(code, f"outputs {label} could not be handed over: {message}"))
            matched = self._compare(reference, trials, compared, verdict)
            verdict.matches_reference = (
                finished and matched and _answered(reference, trials) == set(range(len(reference.trials)))
            )
            if result.get("timing"):
                timed = [compared.get(f"timed {n}") for n in range(len(reference.timed or []))]
                self._judge_timing(reference, result["timing"], timed, verdict)
            verdict.stage_seconds = self._stage_seconds(result, time.perf_counter() - started)
        except (KeyError, TypeError, ValueError, AttributeError, RuntimeError, OSError) as exc:
            # The child writes its own result file; one we cannot read was damaged by the candidate.
            verdict.matches_reference = False
            verdict.reasons.append(Reason(ReasonCode.CRASHED, f"the sandboxed run left an unreadable result ({exc})"))
        finally:
            shutil.rmtree(job_dir, ignore_errors=True)

    def _compare(self, reference: ReferenceRun, trials: list[dict], compared: dict, verdict: Verdict) -> bool:
        """Each finished trial's comparison with the reference (made as its outputs arrived); record the first mismatch."""
        worst = 0.0
        for index in sorted(_answered(reference, trials) & set(range(len(reference.trials)))):
            if index not in compared:  # not plain tensors (a behaviour reason says so), or lost on the way
                return False
            code, err, message = compared[index]
            worst = max(worst, err)
            verdict.max_abs_error = worst
            if code is not None:
                verdict.reasons.append(Reason(code, f"{reference.describe(index)}: {message}"))
                return False
        return True

    def _judge_timing(self, reference: ReferenceRun, timing: dict, timed: list[tuple | None], verdict: Verdict) -> None:
        """Record the candidate's timing; speed-ups only for candidates with nothing against them.

        `timed`: per check n, the comparison of checked timed call n's outputs (on the inputs of `reference.timed[n]`,
        a seed no trial used) with the reference's, None where none arrived.
        """
        error = timing.get("timed_output_error")
        wrong = next((c for c in timed if c is not None and c[0] is not None), None)
        if not verdict.matches_reference:
            error = None  # already wrong in the trials: the timed call adds nothing
        elif error is None and None in timed:
            error = f"the outputs of checked call {timed.index(None)} were not handed over"
        elif error is None and wrong is not None:
            error = wrong[2]
            if timing.get("checked_output_reused"):
                error = (
                    "it returns the same output tensor from call to call, so a later call overwrote a checked "
                    "call's output before it was compared; return a new tensor from each call, as the reference does"
                )
        if error:
            verdict.reasons.append(
                Reason(
                    ReasonCode.TIMED_OUTPUT_WRONG,
                    f"a timed call checked at random (among calls on fresh inputs): {error}",
                )
            )
        verdict.candidate_ms = float(timing["median_ms"])
        verdict.timing_cv = float(timing["cv"])
        verdict.triton_time_share = float(timing["triton_time_share"])
        if reference.bound is not None:
            verdict.sol_ms, verdict.sol_floor_ms = reference.bound.sol_ms, reference.bound.floor_ms
            verdict.sol_fraction = sol_fraction(reference.bound.sol_ms, verdict.candidate_ms)
            too_fast = light_reason(verdict.candidate_ms, reference.bound)
            if too_fast is not None:
                verdict.reasons.append(too_fast)
        if verdict.reasons or not verdict.matches_reference or reference.baseline is None:
            return
        verdict.baseline_ms = float(reference.baseline["median_ms"])
        verdict.speedup = verdict.baseline_ms / verdict.candidate_ms
        if reference.baseline_compile is not None:
            verdict.speedup_compile = float(reference.baseline_compile["median_ms"]) / verdict.candidate_ms

    @staticmethod
    def _behaviour_reasons(trials: list[dict], only_glue: bool, contiguous: list[int]) -> list[Reason]:
        """Runtime rules, reported once each (on the first trial that broke them).

        `only_glue`: the reference computes nothing but layout and casts (ReferenceRun.only_glue), so the
        candidate's data-moving glue is computation too, and an output left a strided view where the reference's
        (`contiguous`: those output indices) is contiguous skipped that computation.
        """
        found: dict[ReasonCode, str] = {}

        def note(code: ReasonCode, message: str) -> None:
            found.setdefault(code, message)

        for t in sorted(trials, key=lambda t: int(t["label"])):
            index = int(t["label"])
            if t["launches"] == 0:
                note(ReasonCode.NO_KERNEL_LAUNCHED, f"trial {index}: ModelNew ran without launching any Triton kernel")
            if t.get("repeat_launches") == 0:
                note(
                    ReasonCode.NO_KERNEL_LAUNCHED,
                    "a second call on the same inputs launched no kernel (a memoised result?)",
                )
            moved = t["data_moves"] if only_glue else {}
            if only_glue and (views := sorted(set(t.get("strided_outputs", [])) & set(contiguous))):
                note(
                    ReasonCode.TRACED_TORCH_COMPUTE,
                    f"trial {index}: outputs {views} are strided views where the "
                    f"reference's are contiguous{_GLUE_IS_THE_ANSWER}",
                )
            if t["compute_ops"] or moved:
                ops = ", ".join(f"aten.{name}×{n}" for name, n in sorted({**t["compute_ops"], **moved}.items()))
                note(
                    ReasonCode.TRACED_TORCH_COMPUTE,
                    f"trial {index}: PyTorch computed during ModelNew's call: {ops}"
                    + (_GLUE_IS_THE_ANSWER if moved else ""),
                )
            if t["unwritten_outputs"]:
                counts = "; ".join(
                    f"output {u['output']}: {u['unwritten']} of {u['elements']} elements"
                    for u in t["unwritten_outputs"]
                )
                note(
                    ReasonCode.NO_KERNEL_OUTPUT,
                    f"trial {index}: no Triton kernel of the call wrote these output "
                    f"elements ({counts}). {_WRITE_FROM_A_KERNEL}",
                )
            if t["host_reads"]:
                reads = ", ".join(f"aten.{name}×{n}" for name, n in sorted(t["host_reads"].items()))
                note(
                    ReasonCode.HOST_ROUNDTRIP,
                    f"trial {index}: ModelNew read tensor data back to the host ({reads}: float()/int()/bool()/.item() "
                    "on a tensor, or a copy to the CPU)",
                )
            if t["mutated_inputs"]:
                note(ReasonCode.INPUT_MUTATED, f"trial {index}: inputs {t['mutated_inputs']} were modified in place")
            if t["aliased_outputs"]:
                note(
                    ReasonCode.OUTPUT_ALIASES_INPUT,
                    f"trial {index}: outputs {t['aliased_outputs']} share memory with an input",
                )
            if t.get("reused_outputs"):
                note(
                    ReasonCode.OUTPUT_REUSED,
                    f"trial {index}: the call(s) right after it, in its tensors refilled, "
                    f"returned memory of outputs returned before and still held ({t['reused_outputs']})",
                )
            if t["non_tensor_outputs"]:
                note(
                    ReasonCode.OUTPUT_NOT_TENSOR,
                    f"trial {index}: outputs are {t['non_tensor_outputs']}, not plain torch.Tensor",
                )
            if t["wrong_device"]:
                note(ReasonCode.DEVICE_MISMATCH, f"trial {index}: outputs on {t['wrong_device']}")
            if t["threads_left"] > 0:
                note(
                    ReasonCode.THREAD_LEFT_RUNNING,
                    f"trial {index}: {t['threads_left']} Python thread(s) still running after forward returned",
                )
        return [Reason(code, message) for code, message in found.items()]

    def candidate_timeout(self, reference: ReferenceRun) -> float:
        """A candidate's wall-clock limit: the base limit plus a multiple of the reference's own trial time, a larger
        one on CPU, where the interpreter's cost grows with the work as PyTorch's does, only far faster."""
        return self.settings.timeout_s + self._time_factor() * reference.trial_seconds

    def _time_factor(self) -> float:
        return INTERPRETED_TIME_FACTOR if self.settings.device == "cpu" else CANDIDATE_TIME_FACTOR

    def _ending_reason(self, outcome: ProcessOutcome, result: dict, job_dir: Path, reference: ReferenceRun) -> Reason:
        stage = result.get("stage", "start")
        tail = self._log_tail(job_dir)
        if outcome.status == "server_lost":
            return Reason(
                ReasonCode.SANDBOX_BROKEN,
                "the fork server died or stopped answering while the candidate ran (it may have reached outside "
                "its sandbox); its results were discarded and the server restarted",
            )
        if outcome.status == "timeout":
            return Reason(
                ReasonCode.TIMEOUT,
                f"no verdict within {self.candidate_timeout(reference):.0f} s (during {stage}); killed. The limit is "
                f"verify.timeout_s ({self.settings.timeout_s:g} s, --timeout) plus {self._time_factor():g} × the "
                f"reference's own trials ({reference.trial_seconds:.1f} s); {self._slow_hint()}",
            )
        if outcome.status == "signaled" and outcome.signal == signal.SIGXCPU:
            return Reason(ReasonCode.TIMEOUT, f"CPU-time limit reached during {stage}")
        if outcome.status == "signaled":
            name = _signal_name(outcome.signal)
            hint = " (the OOM killer, or the process killed itself)" if outcome.signal == signal.SIGKILL else ""
            return Reason(ReasonCode.CRASHED, f"killed by {name}{hint} during {stage}. {tail}".strip())
        return Reason(
            ReasonCode.CRASHED,
            f"exited with status {outcome.exit_code} during {stage} before finishing. {tail}".strip(),
        )

    def _slow_hint(self) -> str:
        """What to raise, and why a candidate may need it, on this verifier's device."""
        if self.settings.device == "cpu":
            return (
                "on CPU Triton's interpreter runs the kernels, program by program in Python, far slower than a GPU "
                "(long loops in a kernel, many programs): raise verify.timeout_s to give the interpreter longer, "
                "or verify on cuda"
            )
        return "raise verify.timeout_s for a slow GPU or huge shapes"

    def _ending(self, outcome: ProcessOutcome, timeout_s: float) -> str:
        if outcome.status == "signaled":
            return f"killed by {_signal_name(outcome.signal)}"
        if outcome.status == "server_lost":
            return "the fork server died or stopped answering"
        if outcome.status == "timeout":
            return (
                f"timeout: {timeout_s:.0f} s, {REFERENCE_TIMEOUT_FACTOR:g} × verify.timeout_s "
                f"({self.settings.timeout_s:g} s, --timeout); raise it for huge shapes or a slow machine"
            )
        return f"exit status {outcome.exit_code}"

    @staticmethod
    def _log_tail(job_dir: Path) -> str:
        """The end of the child's log, read from there: the sandbox bounds the log, this bounds the read."""
        try:
            with open(job_dir / "child.log", "rb") as log:
                log.seek(
                    max(os.fstat(log.fileno()).st_size - 4 * LOG_TAIL_CHARS, 0)
                )  # UTF-8: at most 4 bytes a character
                text = log.read(4 * LOG_TAIL_CHARS).decode(errors="replace").strip()
        except OSError:
            return ""
        return f"Output: …{text[-LOG_TAIL_CHARS:]}" if text else ""

    def _run_job(self, job: dict, handler, limit: int, timeout_s: float) -> tuple[Path, ProcessOutcome, dict, Inbox]:
        """Run one job; `handler(label, tensors)` gets each handed-over trial. Also returns the inbox (failed hand-overs)."""
        job_dir = Path(tempfile.mkdtemp(prefix=f"{job['kind']}-", dir=self._root))
        (job_dir / "job.json").write_text(json.dumps(job))
        shared = [self.gpu_lock.run_path, self.gpu_lock.turnstile_path] if self.gpu_lock else []
        with Inbox(job_dir, self.device, handler, limit) as inbox:
            outcome = self.server.run(job_dir, self.settings.device, shared, timeout_s)
        if outcome.status == "server_lost":  # whatever the job left behind is not to be trusted
            return job_dir, outcome, {}, inbox
        try:
            result = json.loads((job_dir / "result.json").read_text())
        except (OSError, ValueError):
            result = {}
        if not isinstance(result, dict):
            result = {}
        return job_dir, outcome, result, inbox


def _timed_check(label: int | str) -> int | None:
    """n for the outputs of checked timed call n (label "timed <n>", as child.py sends them), else None."""
    if type(label) is str and label.startswith("timed ") and label[len("timed ") :].isdigit():
        return int(label[len("timed ") :])
    return None
