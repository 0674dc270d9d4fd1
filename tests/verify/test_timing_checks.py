"""Which timed calls are checked (CPU): a callable cannot tell them apart, so skipping work on "unwatched" calls is caught.

Drives `timing._Window` in the order `Timer._warm_up` and `Timer._measure`
call it (warm-up singles, the window sized and run once, the profiled call,
the timed repetitions until every known input set was used), with a clock
that advances one unit per repetition instead of the host clock; the checked
outputs are compared with the reference's as the verifier does.
"""

import random
from functools import partial
from itertools import count
from types import SimpleNamespace

import pytest
import torch

from tritonrl.verify import timing
from tritonrl.verify.result import ReasonCode, Verdict
from tritonrl.verify.timing import CHECKED_REPS, CHECKS, WARMUP_CALLS, _Window
from tritonrl.verify.verifier import ReferenceRun, Verifier, _timed_check

SIZE = 16
KNOWN_SEEDS = range(1, 1 + CHECKS)


def _inputs(seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(SIZE, SIZE, generator=generator), torch.randn(SIZE, SIZE, generator=generator)]


def _known() -> list:
    return [partial(_inputs, seed) for seed in KNOWN_SEEDS]


def _drive(fn, known: list, reps: int = 40, calls: int = 8, clock: list | None = None) -> list:
    """The timer's calls of `fn`, `reps` repetitions or more until every known set was used; the checked outputs.

    `clock`: a one-element list the driver advances by one per repetition (`fn` may advance it further).
    """
    clock = clock if clock is not None else [0.0]
    seeds = count(1000)
    window = _Window(fn, _inputs(0), lambda: _inputs(next(seeds)), known, clock=lambda: clock[0])
    for _ in range(WARMUP_CALLS + 1):  # the warm-up calls and the one that sizes the window
        window.refill(single=True, counted=False)
        window.run()
        window.settle()
    window.widen(calls)
    window.refill(single=False, counted=False)
    window.run()
    window.settle()
    window.refill(single=True, counted=True, profiled=True)
    window.run()
    window.settle()
    window.schedule(budget_s=reps)  # the budget: `reps` repetitions of one unit
    rep = 0
    while rep < reps or window.pending:
        window.refill(single=False, counted=True)
        window.run()
        window.settle()
        clock[0] += 1
        rep += 1
    return window.checked


def _wrong(checked: list) -> list[bool]:
    """Per check n, whether its output differs from the correct one on known set n."""
    assert len(checked) == CHECKS
    return [not torch.allclose(output, a @ b) for output, (a, b) in zip(checked, (_inputs(s) for s in KNOWN_SEEDS))]


class SkipsSeenBuffers:
    """Honest on input buffers it has not seen yet, a cheap wrong answer on the rest (the window's re-used sets)."""

    def __init__(self):
        self.seen: set[int] = set()

    def __call__(self, a, b):
        if a.data_ptr() in self.seen:
            return torch.zeros(SIZE, SIZE)
        self.seen.add(a.data_ptr())
        return a @ b


class HonestOnWarmUpSet:
    """The red team's timing cheat: honest on the input set the warm-up called, and on the first window (all new)."""

    def __init__(self):
        self.home, self.calls = None, 0

    def __call__(self, a, b):
        self.calls += 1
        self.home = self.home if self.home is not None else a.data_ptr()
        if a.data_ptr() == self.home or self.calls <= WARMUP_CALLS + 1 + 8:
            return a @ b
        return torch.zeros(SIZE, SIZE)


class SkipsMostCalls:
    """Honest on the profiled call (it can tell it by order) and on one other call in ten: only the sampled checks see it."""

    PROFILED_CALL = WARMUP_CALLS + 1 + 8 + 1

    def __init__(self):
        self.calls = 0

    def __call__(self, a, b):
        self.calls += 1
        return a @ b if self.calls % 10 == 0 or self.calls == self.PROFILED_CALL else torch.zeros(SIZE, SIZE)


class ComputesOnInputsSeenTwice:
    """The second red team's cheat: learns the fingerprint of an input set that comes back, then computes only on such.

    `at_once`: skip from the first call on, not only once a fingerprint came back.
    """

    def __init__(self, at_once: bool):
        self.seen, self.known, self.skipped, self.at_once = set(), set(), 0, at_once

    def __call__(self, a, b):
        key = (a[0, 0].item(), b[0, 0].item())
        if key in self.seen:
            self.known.add(key)
        self.seen.add(key)
        if (self.at_once or self.known) and key not in self.known:
            self.skipped += 1
            return torch.zeros(SIZE, SIZE)
        return a @ b


class HonestAfterLongRepetitions:
    """Makes every fifth repetition long (the clock runs 20 units in it) and is honest only in the one after each."""

    def __init__(self, clock: list, calls: int):
        self.clock, self.calls, self.count = clock, calls, 0
        self.untimed = WARMUP_CALLS + 1 + calls + 1  # warm-up, sizing, sizing window, profiled

    def __call__(self, a, b):
        timed = self.count - self.untimed
        self.count += 1
        if timed < 0:
            return a @ b
        rep, last = timed // self.calls, timed % self.calls == self.calls - 1
        if rep % 5 == 0 and last:
            self.clock[0] += 20
        return a @ b if rep % 5 == 1 else torch.zeros(SIZE, SIZE)


@pytest.fixture
def seeded(monkeypatch):
    """The secret draws from a seeded generator, so a probabilistic catch is one fixed outcome."""
    monkeypatch.setattr(timing, "_randbelow", random.Random(7).randrange)


@pytest.mark.parametrize("cheat", [SkipsSeenBuffers, HonestOnWarmUpSet, SkipsMostCalls])
def test_a_callable_that_skips_work_on_calls_it_thinks_unchecked_is_caught(seeded, cheat):
    assert any(_wrong(_drive(cheat(), _known())))


def test_a_callable_that_computes_only_on_inputs_it_has_seen_before_fails_every_check():
    """Each check has its own known input set, used once: no checked call runs on inputs the callable saw before."""
    assert all(_wrong(_drive(ComputesOnInputsSeenTwice(at_once=True), _known(), reps=200)))
    waits = ComputesOnInputsSeenTwice(at_once=False)  # the red team's: it waits for a set to come back, none does
    assert not any(_wrong(_drive(waits, _known(), reps=200))) and waits.skipped == 0


def test_making_some_repetitions_long_does_not_make_the_next_one_likely_checked(seeded):
    """The sampled points are counted in repetitions of the median length, not in time (which a long one would fill)."""
    wrong = []
    for _ in range(20):
        clock = [0.0]
        wrong += _wrong(_drive(HonestAfterLongRepetitions(clock, 8), _known(), clock=clock))[1:]
    assert sum(wrong) / len(wrong) > 0.6  # honest in one repetition in five: about 0.8 of the sampled checks fail


def test_the_profiled_call_is_checked_and_on_none_of_the_warm_up_buffers():
    cheat = SkipsSeenBuffers()
    # the profiled call comes after the sizing window, which called every set once
    assert _wrong(_drive(cheat, _known()))[0]


def test_an_honest_callable_passes_every_check_and_each_known_set_is_used_exactly_once():
    known = [_inputs(seed) for seed in KNOWN_SEEDS]
    uses = [0] * CHECKS

    def honest(a, b):
        for n, (ka, kb) in enumerate(known):
            uses[n] += torch.equal(a, ka) and torch.equal(b, kb)
        return a @ b

    checked = _drive(honest, _known())
    assert not any(_wrong(checked))
    assert uses == [1] * CHECKS


def test_a_single_known_set_goes_to_a_secret_repetition_not_the_profiled_call():
    """Problems with huge outputs get one known set (the verifier's memory): the profiled call, which a candidate can
    tell by its place, must not be the only check."""
    known, calls = _inputs(1), []
    profiled_call = WARMUP_CALLS + 1 + 8 + 1

    def honest(a, b):
        calls.append(torch.equal(a, known[0]) and torch.equal(b, known[1]))
        return a @ b

    checked = _drive(honest, [partial(_inputs, 1)])
    assert len(checked) == 1 and torch.allclose(checked[0], known[0] @ known[1])
    assert sum(calls) == 1 and not calls[profiled_call - 1]


def test_without_known_inputs_nothing_is_checked():
    seen = []
    checked = _drive(lambda a, b: seen.append(a.clone()) or a @ b, [])
    assert checked == []
    assert len(seen) == WARMUP_CALLS + 1 + 8 + 1 + 8 * 40


def test_the_checked_repetitions_are_spread_uniformly_over_the_run_and_none_is_certain(seeded):
    reps, runs = 30, 300
    positions = []
    for _ in range(runs):
        calls = count()
        checked = _drive(lambda a, b: torch.tensor(float(next(calls))), _known(), reps=reps, calls=1)
        first_rep_call = WARMUP_CALLS + 1 + 1 + 1  # warm-up, sizing, sizing window (one call), profiled
        positions += [int(output) - first_rep_call for output in checked[1:]]
    late = sum(p >= reps // 2 for p in positions) / len(positions)
    first = sum(p == 0 for p in positions) / runs
    assert all(0 <= p < reps + CHECKED_REPS for p in positions)  # two points in one repetition: the next takes one
    assert 0.4 < late < 0.6  # a fill-then-stop sample would check only the first repetitions
    assert first < 0.3  # the first repetition is checked in about one run in ten (3 points of 30 repetitions)


def test_non_tensor_inputs_of_each_call_come_from_its_own_input_set():
    """A get_inputs that draws a Python scalar: each call gets its set's scalar, the checked ones the known set's."""
    draws = count(100)

    def scaled(seed: int) -> list:
        rng = random.Random(seed)
        return [torch.randn(8, generator=torch.Generator().manual_seed(seed)), rng.uniform(0.5, 2.0)]

    known = [partial(scaled, seed) for seed in KNOWN_SEEDS]
    window = _Window(lambda x, s: x * s, scaled(0), lambda: scaled(next(draws)), known, clock=count().__next__)
    window.widen(4)
    window.refill(single=True, counted=True, profiled=True)
    window.run()
    window.settle()
    window.schedule(budget_s=5)
    while window.pending:
        window.refill(single=False, counted=True)
        window.run()
        window.settle()
    for output, make in zip(window.checked, known):
        x, s = make()
        assert torch.allclose(output, x * s)


def test_a_checked_output_is_copied_when_its_repetition_ends():
    reused = torch.zeros(SIZE, SIZE)

    def writes_into_one_buffer(a, b):
        return torch.matmul(a, b, out=reused)

    checked = _drive(writes_into_one_buffer, _known(), calls=1)
    assert all(output.data_ptr() != reused.data_ptr() for output in checked)
    assert not any(_wrong(checked))  # one call a window: nothing overwrote it before the copy


def test_an_output_tensor_returned_again_by_later_calls_is_flagged(seeded):
    """Writing every call's answer into one buffer leaves a checked call's output overwritten: flagged, so the verdict
    can say why the check failed; a fresh tensor per call is not flagged."""
    reused = torch.zeros(SIZE, SIZE)
    windows = {}
    for name, fn in {"one buffer": lambda a, b: torch.matmul(a, b, out=reused), "fresh": lambda a, b: a @ b}.items():
        seeds = count(1000)
        window = windows[name] = _Window(fn, _inputs(0), lambda: _inputs(next(seeds)), _known(), clock=count().__next__)
        window.widen(8)
        window.schedule(budget_s=20)
        while window.pending:
            window.refill(single=False, counted=True)
            window.run()
            window.settle()
    assert windows["one buffer"].reused and any(_wrong(windows["one buffer"].checked))
    assert not windows["fresh"].reused and not any(_wrong(windows["fresh"].checked))


def _judged(timed: list, reused: bool = False) -> list:
    """The timing reasons `Verifier._judge_timing` gives a candidate whose trials matched."""
    reference = ReferenceRun("", {}, {}, 0)
    reference.timed = [SimpleNamespace(outputs=[]) for _ in timed]
    verdict = Verdict(ran=True, matches_reference=True, device="cuda")
    judged = {
        "median_ms": 1.0,
        "cv": 0.01,
        "triton_time_share": 1.0,
        "timed_output_error": None,
        "checked_output_reused": reused,
    }
    Verifier._judge_timing(SimpleNamespace(), reference, judged, timed, verdict)
    return verdict.reasons


RIGHT, WRONG = (None, 0.0, ""), (ReasonCode.WRONG_RESULT, 3.0, "max abs error 3.0")


@pytest.mark.parametrize("reused", [False, True])
def test_a_failed_check_of_a_reused_output_says_so(reused):
    [reason] = _judged([RIGHT, WRONG, RIGHT, RIGHT], reused)
    assert reason.code is ReasonCode.TIMED_OUTPUT_WRONG
    assert ("same output tensor" in reason.message) is reused and ("max abs error" in reason.message) is not reused


def test_any_wrong_or_missing_check_fails_the_timing_and_all_right_passes():
    assert _judged([RIGHT] * CHECKS) == []
    [wrong] = _judged([RIGHT, RIGHT, RIGHT, WRONG])
    assert wrong.code is ReasonCode.TIMED_OUTPUT_WRONG and "max abs error 3.0" in wrong.message
    [missing] = _judged([RIGHT, None, RIGHT, RIGHT])
    assert missing.code is ReasonCode.TIMED_OUTPUT_WRONG and "checked call 1 were not handed over" in missing.message


def test_checked_timed_outputs_are_labelled_by_their_check():
    assert [_timed_check(label) for label in ("timed 0", "timed 3", "timed", "timed x", 0)] == [0, 3, None, None, None]


def test_no_timed_call_runs_on_the_input_set_the_warm_up_called():
    pointers = []
    _drive(lambda a, b: pointers.append(a.data_ptr()) or a @ b, _known())
    warm_up, timed = pointers[: WARMUP_CALLS + 1], pointers[WARMUP_CALLS + 1 :]
    assert len(set(warm_up)) == 1 and warm_up[0] not in timed
    assert len(set(timed)) == 8
