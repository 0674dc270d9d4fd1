"""All GPU timing in one place: how long does one call of a model take, honestly?

Per repetition: refill the inputs, flush L2 (write a buffer larger than the
cache), synchronise the whole device, then time a window of back-to-back
calls, each on its own input set: one call for calls of a millisecond or
more, enough for about `WINDOW_MS` for short ones (at most `MAX_CALLS`,
input sets within `ROTATION_BYTES`), so a 12 µs kernel is timed over a
busy millisecond instead of alone between idle gaps in which the GPU's
clock drops (measured on the H200: single 12 µs calls came out bimodal,
12 or 40 µs, from run to run). Times are per call. Most repetitions
are *event repetitions*: a short GPU spin is queued first, then CUDA events
around the call. The spin keeps the GPU busy while the host queues the call
(Python and launch overhead, measured during warm-up), so the start event
fires when the call's first kernel can start and the event time is device
time, not host launch jitter. (Without it, a 20 µs kernel behind 20–40 µs of
Triton launch overhead measured 10–30% spread on the H200; the spin covers
the whole window's queueing, so its calls run back to back.) Every
`HOST_EVERY`-th repetition is a *host repetition*: no spin, the host clock
from the call to a device-wide synchronisation, minus the overhead of an
empty call. Events see only the current stream; the host clock sees
everything the device did (side streams included) plus the host's own time.
Event times are reported unless device work escaped them
(`escaped_current_stream`): either the host median is well above both the
event median and the host's own time to queue the call, or one profiled call
(all streams, CUPTI) shows more kernel time than the events saw. Then the
host times are reported, so work hidden from the events still counts: a side
stream shows up in the profile even when the host busy-waits to cover it,
and host repetitions have no spin for work to hide in. (Comparing the host
median with the event median alone flagged honest 12 µs kernels whose
launch costs more than they run.) Repetitions continue until the reported median is stable
(its standard error below `target_rel_error`) or the time budget is spent;
the first calls are warm-up and are discarded.

Before each repetition every input set is refilled with fresh inputs (new
random data, outside the timed window), so a cache keyed by input contents or
addresses never hits; tensors are copied into the set's buffers, other
arguments (a Python scalar `get_inputs` draws) replace the set's values. No
timed call can tell whether it is checked: the window's input sets are all
allocated after the warm-up (none is the set the warm-up called), single
calls run on a random one of them, and the profiled call and `CHECKED_REPS`
secretly chosen repetitions each get, in a random call of the window, a
*known* input set whose correct output the caller holds: `CHECKS` of them,
one per check, each used once (so a candidate that recognises inputs it has
seen before, a fingerprint kept on the device, has never seen a checked one;
a red-team candidate that computed only on inputs seen twice skipped 1586 of
1600 calls unseen while every check ran on one set). The sampled repetitions
are chosen at secret uniform points of the run, measured in repetitions of
the median length so far (or a share of `MAX_REPS`, whichever is further), so
no repetition is certain to be checked and a candidate cannot make the one
after a long repetition likely checked; the repetitions go on until every
known set was used (at `MAX_REPS`, the rest go to the next repetitions).
The caller keeps the known sets' reference outputs while it judges a
problem's candidates, so beyond the first only as many as fit
`TIMED_OUTPUTS_BYTES` are made (a problem with 6.4 GB outputs gets one); a
single known set goes to a secret repetition, not to the profiled call.
Those calls' outputs are copied after the window's synchronisation and
returned to be checked, so a candidate that skips work on calls it believes
unwatched (by address, by order, by count) is caught, at each check, with
about the probability of the share of calls it skips. Each repetition
keeps one call's output until it ends, checked or not, so the allocator sees
the same pattern either way. (A red-team candidate computed honestly only on
the warm-up's input set, which then served the single calls and the checked
last call, and skipped the work on the window's other sets: 5× "faster".)
Not covered: the profiled call comes at a fixed place (the first after
sizing), so it catches only skips that do not count calls; a candidate that
lengthens most repetitions (the median) moves the sampled points, but then
most of its timed calls take that long too; two points in one repetition
put the second on the next one; the loop runs until the last point, so a
stable median no longer ends it early (about 3/4 of the budget on average).

Timing functions are bound at import time, before any candidate code runs,
so patching `torch.cuda.Event`, `time.perf_counter` or the tensor methods
that flush L2 and refill the inputs later does not change what the harness
measures.

GPU only (`_Window`, which calls are checked, runs on the CPU too). Tests:
tests/verify/test_timing.py (skips without CUDA), tests/verify/test_timing_checks.py;
benchmark: bench/timing_stability.py.
"""

from __future__ import annotations

import secrets
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch

_perf_counter = time.perf_counter
_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed = torch.cuda.Event.elapsed_time
_synchronize = torch.cuda.synchronize
_spin = torch.cuda._sleep
_zero, _copy, _clone = torch.Tensor.zero_, torch.Tensor.copy_, torch.Tensor.clone  # the L2 flush and the refills
_randbelow = secrets.randbelow  # which calls are checked: not from a generator the candidate can seed or read

L2_FLUSH_BYTES = 256 << 20  # > the H100/H200 L2 (50–60 MB) several times over
WARMUP_CALLS = 3
MIN_REPS = 20
HOST_EVERY = 4  # one host-clock repetition in four
OVERHEAD_REPS = 50
CLOCK_WARMUP_CYCLES = 100_000_000  # ~50 ms at boost clock
MAX_REPS = 2000
MIN_SPIN_MS = 0.05  # covers the host side of a plain launch
MAX_SPIN_MS = 5.0  # a forward that takes longer to queue is timed with some host time in it
WINDOW_MS = 1.0  # device time per repetition that short calls are batched up to
MAX_CALLS = 32  # calls per window
ROTATION_BYTES = 2 << 30  # input sets of one window, together
CHECKED_REPS = 3  # repetitions whose checked call's output is returned, besides the profiled call
CHECKS = CHECKED_REPS + 1  # known input sets (with their reference outputs) a timing of a candidate uses, one per check
# the verifier holds the known sets' reference outputs while it judges a problem's candidates: beyond the first set,
# only as many as fit this (a problem with 6.4 GB outputs gets one check, at a secret repetition)
TIMED_OUTPUTS_BYTES = 8 << 30
_POINTS = 1 << 30  # resolution of the secret points in the run at which the sampled repetitions are checked


@dataclass(frozen=True)
class Timing:
    """Robust statistics of one callable's time per call, in milliseconds."""

    median_ms: float
    mean_ms: float
    min_ms: float
    cv: float  # robust coefficient of variation: 1.4826 × MAD / median
    reps: int
    calls_per_rep: int  # back-to-back calls in one timed window (times are per call)
    event_median_ms: float
    host_median_ms: float  # host clock to device-wide sync, overhead removed
    queue_median_ms: float  # host time to queue one call (Python + launches)
    profiled_ms: float  # kernel time on all streams in one profiled call
    triton_time_share: float  # share of that kernel time in the named Triton kernels
    checked_output_reused: bool = (
        False  # a checked call's output tensor was returned again by a later call of its window
    )

    @property
    def escaped_current_stream(self) -> bool:
        return _escaped(self.event_median_ms, self.host_median_ms, self.queue_median_ms, self.profiled_ms)


def _escaped(event_ms: float, host_ms: float, queue_ms: float, profiled_ms: float) -> bool:
    """Device work the events did not see (side streams, threads).

    Margins: host timing carries ~10–30 µs of launch/sync jitter after the
    empty-call overhead is removed, and profiled kernel times run a little
    under event times; hidden work shorter than that is noise.
    """
    return host_ms > 1.5 * max(event_ms, queue_ms) + 0.03 or profiled_ms > 1.3 * event_ms + 0.01


def _robust_cv(samples: list[float]) -> float:
    median = statistics.median(samples)
    mad = statistics.median(abs(s - median) for s in samples)
    return 1.4826 * mad / median if median > 0 else float("inf")


class Timer:
    """Times callables on one CUDA device; create once per process (it allocates the flush buffer)."""

    def __init__(self, device: str = "cuda", target_rel_error: float = 0.002, budget_s: float = 2.0) -> None:
        self.device = torch.device(device)
        self.target_rel_error = target_rel_error
        self.budget_s = budget_s
        self._flush = torch.empty(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=self.device)
        self._cycles_per_ms = self._calibrate_spin()
        self._spin_ms = MIN_SPIN_MS
        self._overhead_ms = 0.0
        self._overhead_ms = statistics.median(
            self._one(_Window(lambda: None, [], list), spin=False, single=True)[1] for _ in range(OVERHEAD_REPS)
        )

    @staticmethod
    def _calibrate_spin() -> float:
        """GPU clock cycles per millisecond of `torch.cuda._sleep`, measured with events.

        A long spin first lifts an idle GPU out of its low clock (345 MHz
        idle on the H200): the first timed calls of a fresh process measured
        2× slow without it.
        """
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        cycles = 2_000_000
        _spin(CLOCK_WARMUP_CYCLES)
        _record(start)
        _spin(cycles)
        _record(end)
        _synchronize()
        return cycles / max(_elapsed(start, end), 1e-3)

    def _one(
        self, window: _Window, spin: bool, single: bool = False, counted: bool = True
    ) -> tuple[float, float, float]:
        """One repetition: per call, (event ms, host ms to device idle, host ms to queue).

        `single`: one call, on a random input set; `counted`: a repetition whose time counts, so it may be checked.
        """
        calls = window.refill(single, counted)
        _zero(self._flush)
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        _synchronize()
        host_start = _perf_counter()
        if spin:
            _spin(int(self._spin_ms * self._cycles_per_ms))
        _record(start)
        queue_start = _perf_counter()
        window.run()
        queue_ms = (_perf_counter() - queue_start) * 1e3
        _record(end)
        _synchronize()
        host_ms = (_perf_counter() - host_start) * 1e3 - self._overhead_ms
        window.settle()
        return _elapsed(start, end) / calls, max(host_ms, 0.0) / calls, queue_ms / calls

    def _warm_up(self, window: _Window) -> None:
        """Run the first calls untimed, size the window from one call's device time, then size the spin.

        The spin is twice the host time of queueing a whole window, so the
        GPU is still spinning when the window's last call is queued.
        """
        for _ in range(WARMUP_CALLS):
            window.refill(single=True, counted=False)
            _synchronize()
            window.run()
            _synchronize()
            window.settle()
        self._spin_ms = MAX_SPIN_MS
        call_ms, _, queue_ms = self._one(window, spin=True, single=True, counted=False)
        # As many calls as fill WINDOW_MS, but no more than half the longest spin can cover the queueing of.
        calls = min(WINDOW_MS / max(call_ms, 1e-3), MAX_SPIN_MS / 2 / max(queue_ms, 1e-3))
        window.widen(min(MAX_CALLS, max(1, int(calls))))
        window.refill(single=False, counted=False)
        _synchronize()
        started = _perf_counter()
        window.run()
        queue_ms = (_perf_counter() - started) * 1e3
        _synchronize()
        window.settle()
        self._spin_ms = min(max(2 * queue_ms, MIN_SPIN_MS), MAX_SPIN_MS)

    def _measure(self, window: _Window, kernel_names: set[str] | None) -> Timing:
        """Repeat until the median is stable or the budget is spent (or MAX_REPS)."""
        self._warm_up(window)
        # The profiler's first use costs seconds; trusted callables (the PyTorch baseline) skip it.
        if kernel_names is not None:
            window.refill(single=True, counted=True, profiled=True)
            profiled_ms, own_ms = _profile(window.run, kernel_names)
            window.settle()
        else:
            profiled_ms, own_ms = 0.0, 0.0
        events: list[float] = []
        hosts: list[float] = []
        queues: list[float] = []
        deadline = _perf_counter() + self.budget_s
        window.schedule(self.budget_s)
        rep = 0
        while True:
            host_rep = rep % HOST_EVERY == HOST_EVERY - 1
            event_ms, host_ms, queue_ms = self._one(window, spin=not host_rep)
            if host_rep:
                hosts.append(host_ms)
            else:
                events.append(event_ms)
                queues.append(queue_ms)
            rep += 1
            done = rep >= MAX_REPS
            if done:
                window.hurry()
            elif rep >= MIN_REPS:
                counted = self._counted(events, hosts, queues, profiled_ms)
                # standard error of the median ≈ 1.25 σ / √n
                rel_error = 1.25 * _robust_cv(counted) / len(counted) ** 0.5
                done = rel_error <= self.target_rel_error or _perf_counter() > deadline
            if done and not window.pending:
                break
        counted = self._counted(events, hosts, queues, profiled_ms)
        return Timing(
            median_ms=statistics.median(counted),
            mean_ms=statistics.fmean(counted),
            min_ms=min(counted),
            cv=_robust_cv(counted),
            reps=rep,
            calls_per_rep=window.calls,
            event_median_ms=statistics.median(events),
            host_median_ms=statistics.median(hosts),
            queue_median_ms=statistics.median(queues),
            profiled_ms=profiled_ms,
            triton_time_share=own_ms / profiled_ms if profiled_ms > 0 else 0.0,
            checked_output_reused=window.reused,
        )

    @staticmethod
    def _counted(events: list[float], hosts: list[float], queues: list[float], profiled_ms: float) -> list[float]:
        """Event times, or host times when the device did work the events did not see."""
        medians = (statistics.median(events), statistics.median(hosts), statistics.median(queues))
        return hosts if _escaped(*medians, profiled_ms) else events

    def time(
        self,
        fn: Callable[..., object],
        buffers: list,
        fresh: Callable[[], list],
        known: Sequence[Callable[[], list]] = (),
        kernel_names: set[str] | None = None,
    ) -> tuple[Timing, list]:
        """Time `fn(*buffers)` (and of copies of `buffers`), copying a new input set `fresh()` into them before each call.

        `known`: one per check (`CHECKS` for a candidate), each draws an input
        set whose correct output the caller knows; checked call n runs on set
        n, once (none checked without them). `kernel_names`: the candidate's
        own Triton kernels; given (even empty), one call is profiled (on the
        first known set when there are several) to catch hidden work and measure `triton_time_share`.
        Leave it out only for trusted callables. Returns the timing and the
        checked calls' outputs, the n-th from known set n (each as the call
        returned it, its plain tensors copied), for the caller to compare.
        """

        with torch.no_grad():
            window = _Window(fn, buffers, fresh, known)
            timing = self._measure(window, None if kernel_names is None else set(kernel_names))
        return timing, window.checked


class _Window:
    """The calls of one repetition, each on its own input set, and which call's output is checked.

    Before each repetition `refill` draws the call whose output is kept until
    `settle` (after the device is idle) and, for a checked repetition, gives
    that call the next known input set; `run` is all that happens in the timed
    region. Drivable on the CPU (`clock` stands for the host clock there):
    tests/verify/test_timing_checks.py.
    """

    def __init__(
        self,
        fn: Callable[..., object],
        buffers: list,
        fresh: Callable[[], list],
        known: Sequence[Callable[[], list]] = (),
        clock: Callable[[], float] = _perf_counter,
    ) -> None:
        self.fn, self.fresh, self.known, self._clock = fn, fresh, list(known), clock
        self.sets = [buffers]
        self.targets = self.sets
        self.checked: list = []  # the n-th checked call's output, from known set n
        self._held, self._held_output, self._last_output, self._checking = 0, None, None, False
        self._points: list[float] = []  # where in the run (0–1) the sampled repetitions not yet run are
        self._budget_s, self._rep_s, self._rep_started = 1.0, [], None
        self.reused = False  # a checked output was overwritten by a later call returning the same tensor

    @property
    def calls(self) -> int:
        return len(self.sets)

    @property
    def pending(self) -> int:
        """Known input sets not used yet: the repetitions must go on until none is left."""
        return len(self.known) - len(self.checked) - self._checking

    def widen(self, calls: int) -> None:
        """Make `calls` input sets (copies of the first), as far as ROTATION_BYTES allows; none is the warm-up's own."""
        first = self.sets[0]
        set_bytes = sum(v.numel() * v.element_size() for v in first if isinstance(v, torch.Tensor))
        calls = min(calls, max(1, ROTATION_BYTES // max(set_bytes, 1)))
        self.sets = [[_clone(v) if isinstance(v, torch.Tensor) else v for v in first] for _ in range(calls)]

    def schedule(self, budget_s: float) -> None:
        """Draw the secret points of the run (0: its start, 1: the budget spent) at which the known sets left are used."""
        self._points = sorted(_randbelow(_POINTS) / _POINTS for _ in range(self.pending))
        self._budget_s, self._rep_s, self._rep_started = budget_s, [], None

    def hurry(self) -> None:
        """The run must end: the known sets left go to the next repetitions."""
        self._points = [0.0] * len(self._points)

    def refill(self, single: bool, counted: bool, profiled: bool = False) -> int:
        """New inputs into every set this repetition uses (a known set into a checked one's held call); returns how many calls.

        `counted`: the repetition's time counts, so it may be checked;
        `profiled`: the profiled call, checked when there is a known set.
        """
        self.targets = [self.sets[_randbelow(len(self.sets))]] if single else self.sets
        self._held = _randbelow(len(self.targets))
        # the profiled call is told apart by its place: with a single known set, a secret repetition gets it instead
        self._checking = self.pending > 0 and (
            profiled and len(self.known) > 1 or counted and not profiled and self._due()
        )
        for index, buffers in enumerate(self.targets):
            source = self.known[len(self.checked)]() if index == self._held and self._checking else self.fresh()
            for position, (buffer, value) in enumerate(zip(buffers, source)):
                if isinstance(buffer, torch.Tensor):
                    _copy(buffer, value)
                else:
                    buffers[position] = value
        return len(self.targets)

    def _due(self) -> bool:
        """Whether this counted repetition reached the next secret point (and takes it).

        Progress is counted in repetitions of the median length so far, not
        in time, so a candidate that makes a few repetitions long does not
        make the next one likely checked; no faster than a share of MIN_REPS
        (the fewest repetitions a run has), since the median of the first few
        is theirs alone (a long first repetition drew half the checks into the
        next two); and at least as a share of MAX_REPS.
        """
        now = self._clock()
        if self._rep_started is not None:
            self._rep_s.append(now - self._rep_started)
        self._rep_started = now
        if not self._points or not self._rep_s:
            return bool(self._points) and self._points[0] <= 0.0
        reps = len(self._rep_s)
        progress = max(min(reps * statistics.median(self._rep_s) / self._budget_s, reps / MIN_REPS), reps / MAX_REPS)
        if self._points[0] > progress:
            return False
        self._points.pop(0)
        return True

    def run(self) -> None:
        held = self._held
        for index, buffers in enumerate(self.targets):
            out = self.fn(*buffers)
            if index == held:
                self._held_output = out
        self._last_output = out

    def settle(self) -> None:
        """After the repetition, outside the timed region: copy a checked call's output, drop the held one."""
        if self._checking:
            if self._held != len(self.targets) - 1 and _storages(self._held_output) & _storages(self._last_output):
                self.reused = True  # what is copied below is a later call's answer, not the checked call's
            self.checked.append(_snapshot(self._held_output))
        self._held_output, self._last_output, self._checking = None, None, False


def _storages(output: object) -> set[int]:
    """Where the plain tensors of an output (alone or in an exact tuple/list) keep their data."""
    if type(output) is torch.Tensor:
        return {output.untyped_storage().data_ptr()}
    if type(output) in (tuple, list):
        return {o.untyped_storage().data_ptr() for o in output if type(o) is torch.Tensor}
    return set()


def _snapshot(output: object) -> object:
    """The output as it is now: plain tensors (alone or in an exact tuple/list) copied, anything else as returned.

    Only exact types are copied, so no candidate code (a tensor subclass's
    dispatch) runs here; the caller reports anything else as not plain.
    """
    if type(output) is torch.Tensor:
        return _clone(output)
    if type(output) in (tuple, list):
        return type(output)(_clone(o) if type(o) is torch.Tensor else o for o in output)
    return output


def _profile(fn: Callable[[], object], kernel_names: set[str]) -> tuple[float, float]:
    """Kernel time of one call on all streams, and the part in the named Triton kernels, in ms.

    The share is KernelGym's profiling idea: a kernel that does a trivial
    part of the work next to library calls scores low even when it is
    "launched"; the verifier reports it and training can use it as a reward
    term. The total catches work the current stream's events did not see.
    """
    from torch.profiler import ProfilerActivity, profile

    _synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        _synchronize()
    total = own = 0.0
    for event in prof.events():
        if event.device_type != torch.autograd.DeviceType.CUDA:
            continue
        duration = event.device_time_total if hasattr(event, "device_time_total") else event.cuda_time_total
        total += duration
        if any(event.name == name or event.name.startswith(name + "_") for name in kernel_names):
            own += duration
    return total / 1e3, own / 1e3
