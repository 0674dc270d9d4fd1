"""All GPU timing in one place: how long does one call of a model take, honestly?

Per repetition: refill the inputs, flush L2 (write a buffer larger than the
cache), synchronise the whole device, then time one call. Most repetitions
are *event repetitions*: a short GPU spin is queued first, then CUDA events
around the call. The spin keeps the GPU busy while the host queues the call
(Python and launch overhead, measured during warm-up), so the start event
fires when the call's first kernel can start and the event time is device
time, not host launch jitter. (Without it, a 20 µs kernel behind 20–40 µs of
Triton launch overhead measured 10–30% spread on the H200.) Every
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

Before each repetition the input buffers are refilled with a fresh input
set (new random data, outside the timed window), so a cache keyed by input
contents or addresses never hits. The last repetition gets an input set
whose correct output the caller knows, and its output is returned to be
checked: a candidate that returns a stale answer is caught.

Timing functions are bound at import time, before any candidate code runs,
so patching `torch.cuda.Event` or `time.perf_counter` later does not change
what the harness measures.

GPU only. Test: tests/verify/test_timing.py (skips without CUDA);
benchmark: bench/timing_stability.py.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch

_perf_counter = time.perf_counter
_Event = torch.cuda.Event
_record = torch.cuda.Event.record
_elapsed = torch.cuda.Event.elapsed_time
_synchronize = torch.cuda.synchronize
_spin = torch.cuda._sleep

L2_FLUSH_BYTES = 256 << 20  # > the H100/H200 L2 (50–60 MB) several times over
WARMUP_CALLS = 3
MIN_REPS = 20
HOST_EVERY = 4  # one host-clock repetition in four
OVERHEAD_REPS = 50
CLOCK_WARMUP_CYCLES = 100_000_000  # ~50 ms at boost clock
MAX_REPS = 2000
MIN_SPIN_MS = 0.05  # covers the host side of a plain launch
MAX_SPIN_MS = 5.0  # a forward that takes longer to queue is timed with some host time in it


@dataclass(frozen=True)
class Timing:
    """Robust statistics of one callable's time per call, in milliseconds."""

    median_ms: float
    mean_ms: float
    min_ms: float
    cv: float  # robust coefficient of variation: 1.4826 × MAD / median
    reps: int
    event_median_ms: float
    host_median_ms: float  # host clock to device-wide sync, overhead removed
    queue_median_ms: float  # host time to queue one call (Python + launches)
    profiled_ms: float  # kernel time on all streams in one profiled call
    triton_time_share: float  # share of that kernel time in the named Triton kernels

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
            self._one(lambda: None, lambda last: None, False, spin=False)[1] for _ in range(OVERHEAD_REPS)
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
        self, fn: Callable[[], object], refill: Callable[[bool], None], last: bool, spin: bool
    ) -> tuple[float, float, float, object]:
        """One repetition: (event ms, host ms to device idle, host ms to queue the call, output)."""
        refill(last)
        self._flush.zero_()
        start, end = _Event(enable_timing=True), _Event(enable_timing=True)
        _synchronize()
        host_start = _perf_counter()
        if spin:
            _spin(int(self._spin_ms * self._cycles_per_ms))
        _record(start)
        queue_start = _perf_counter()
        out = fn()
        queue_ms = (_perf_counter() - queue_start) * 1e3
        _record(end)
        _synchronize()
        host_ms = (_perf_counter() - host_start) * 1e3 - self._overhead_ms
        return _elapsed(start, end), max(host_ms, 0.0), queue_ms, out

    def _warm_up(self, fn: Callable[[], object], refill: Callable[[bool], None]) -> None:
        """Run the first calls untimed and size the spin to twice the host time of queueing one call."""
        queue_ms = 0.0
        for _ in range(WARMUP_CALLS):
            refill(False)
            _synchronize()
            started = _perf_counter()
            fn()
            queue_ms = (_perf_counter() - started) * 1e3
            _synchronize()
        self._spin_ms = min(max(2 * queue_ms, MIN_SPIN_MS), MAX_SPIN_MS)

    def _measure(self, fn: Callable[[], object], refill: Callable[[bool], None], kernel_names: set[str] | None) -> Timing:
        """Repeat until the median is stable or the budget is spent, then once more as the last (checked) call."""
        self._warm_up(fn, refill)
        # The profiler's first use costs seconds; trusted callables (the PyTorch baseline) skip it.
        profiled_ms, own_ms = _profile(fn, kernel_names) if kernel_names is not None else (0.0, 0.0)
        events: list[float] = []
        hosts: list[float] = []
        queues: list[float] = []
        deadline = _perf_counter() + self.budget_s
        rep, last = 0, False
        while True:
            host_rep = rep % HOST_EVERY == HOST_EVERY - 1
            event_ms, host_ms, queue_ms, self.last_output = self._one(fn, refill, last, spin=not host_rep)
            if host_rep:
                hosts.append(host_ms)
            else:
                events.append(event_ms)
                queues.append(queue_ms)
            rep += 1
            if last:
                break
            if rep + 1 >= MAX_REPS:
                last = True
            elif rep >= MIN_REPS:
                counted = self._counted(events, hosts, queues, profiled_ms)
                # standard error of the median ≈ 1.25 σ / √n
                rel_error = 1.25 * _robust_cv(counted) / len(counted) ** 0.5
                last = rel_error <= self.target_rel_error or _perf_counter() > deadline
        counted = self._counted(events, hosts, queues, profiled_ms)
        return Timing(
            median_ms=statistics.median(counted),
            mean_ms=statistics.fmean(counted),
            min_ms=min(counted),
            cv=_robust_cv(counted),
            reps=rep,
            event_median_ms=statistics.median(events),
            host_median_ms=statistics.median(hosts),
            queue_median_ms=statistics.median(queues),
            profiled_ms=profiled_ms,
            triton_time_share=own_ms / profiled_ms if profiled_ms > 0 else 0.0,
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
        final: list | None = None,
        kernel_names: set[str] | None = None,
    ) -> tuple[Timing, object]:
        """Time `fn(*buffers)`, copying a new input set `fresh()` into `buffers` before each call.

        `final`: the input set of the last call (default: a fresh one too),
        one whose correct output the caller knows. `kernel_names`: the
        candidate's own Triton kernels; given (even empty), one call is
        profiled to catch hidden work and measure `triton_time_share`. Leave
        it out only for trusted callables. Returns the timing and the last
        call's output.
        """

        def refill(last: bool) -> None:
            source = final if last and final is not None else fresh()
            for buffer, value in zip(buffers, source):
                if isinstance(buffer, torch.Tensor):
                    buffer.copy_(value)

        with torch.no_grad():
            timing = self._measure(lambda: fn(*buffers), refill, None if kernel_names is None else set(kernel_names))
        return timing, self.last_output


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
