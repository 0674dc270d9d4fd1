"""Which timed calls are checked (CPU): a callable cannot tell them apart, so skipping work on "unwatched" calls is caught.

Drives `timing._Window` in the order `Timer._warm_up` and `Timer._measure`
call it (warm-up singles, the window sized and run once, the profiled call,
the timed repetitions), without the CUDA clock around it; the checked
outputs are compared with the reference's as the verifier does.
"""

import random
from itertools import count
from types import SimpleNamespace

import pytest
import torch

from tritonrl.verify import timing
from tritonrl.verify.result import ReasonCode, Verdict
from tritonrl.verify.timing import CHECKED_REPS, WARMUP_CALLS, _Window
from tritonrl.verify.verifier import ReferenceRun, Verifier

SIZE = 16


def _inputs(seed: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return [torch.randn(SIZE, SIZE, generator=generator), torch.randn(SIZE, SIZE, generator=generator)]


def _drive(fn, final: list | None, reps: int = 40, calls: int = 8) -> list:
    """The timer's calls of `fn`; returns the checked calls' outputs."""
    seeds = count(1000)
    window = _Window(fn, _inputs(0), lambda: _inputs(next(seeds)), final)
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
    for _ in range(reps):
        window.refill(single=False, counted=True)
        window.run()
        window.settle()
    return window.checked


def _wrong(checked: list, final: list) -> int:
    expected = final[0] @ final[1]
    return sum(not torch.allclose(output, expected) for output in checked)


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


@pytest.fixture
def seeded(monkeypatch):
    """The secret draws from a seeded generator, so a probabilistic catch is one fixed outcome."""
    monkeypatch.setattr(timing, "_randbelow", random.Random(7).randrange)


@pytest.mark.parametrize("cheat", [SkipsSeenBuffers, HonestOnWarmUpSet, SkipsMostCalls])
def test_a_callable_that_skips_work_on_calls_it_thinks_unchecked_is_caught(seeded, cheat):
    final = _inputs(1)
    checked = _drive(cheat(), final)
    assert _wrong(checked, final) > 0


def test_the_profiled_call_is_checked_and_on_none_of_the_warm_up_buffers():
    final = _inputs(1)
    cheat = SkipsSeenBuffers()
    checked = _drive(cheat, final)
    # the profiled call comes after the sizing window, which called every set once
    assert not torch.allclose(checked[0], final[0] @ final[1])


def test_an_honest_callable_passes_every_check_and_each_checked_call_ran_on_the_known_inputs():
    final = _inputs(1)
    seen_final = []

    def honest(a, b):
        seen_final.append(torch.equal(a, final[0]) and torch.equal(b, final[1]))
        return a @ b

    checked = _drive(honest, final)
    assert len(checked) == 1 + CHECKED_REPS
    assert _wrong(checked, final) == 0
    assert sum(seen_final) >= len(checked)  # sampled repetitions replaced by later ones ran on it too


def test_without_known_inputs_nothing_is_checked():
    seen = []
    checked = _drive(lambda a, b: seen.append(a.clone()) or a @ b, None)
    assert checked == []
    assert len(seen) == WARMUP_CALLS + 1 + 8 + 1 + 8 * 40


def test_the_checked_repetitions_are_a_uniform_sample_of_all_of_them():
    reps, runs = 30, 300
    positions = []
    for _ in range(runs):
        calls = count()
        checked = _drive(lambda a, b: torch.tensor(float(next(calls))), _inputs(1), reps=reps, calls=1)
        first_rep_call = WARMUP_CALLS + 1 + 1 + 1  # warm-up, sizing, sizing window (one call), profiled
        positions += [int(output) - first_rep_call for output in checked[1:]]
    late = sum(p >= reps // 2 for p in positions) / len(positions)
    assert all(0 <= p < reps for p in positions)
    assert 0.4 < late < 0.6  # a fill-then-stop sample would check only the first repetitions


def test_a_checked_output_is_copied_when_its_repetition_ends():
    final = _inputs(1)
    reused = torch.zeros(SIZE, SIZE)

    def writes_into_one_buffer(a, b):
        return torch.matmul(a, b, out=reused)

    checked = _drive(writes_into_one_buffer, final, calls=1)
    assert all(output.data_ptr() != reused.data_ptr() for output in checked)
    assert _wrong(checked, final) == 0  # one call a window: nothing overwrote it before the copy


def test_an_output_tensor_returned_again_by_later_calls_is_flagged(seeded):
    """Writing every call's answer into one buffer leaves a checked call's output overwritten: flagged, so the verdict
    can say why the check failed; a fresh tensor per call is not flagged."""
    final, reused = _inputs(1), torch.zeros(SIZE, SIZE)
    windows = {}
    for name, fn in {"one buffer": lambda a, b: torch.matmul(a, b, out=reused), "fresh": lambda a, b: a @ b}.items():
        seeds = count(1000)
        window = windows[name] = _Window(fn, _inputs(0), lambda: _inputs(next(seeds)), final)
        window.widen(8)
        for _ in range(20):
            window.refill(single=False, counted=True)
            window.run()
            window.settle()
    assert windows["one buffer"].reused and _wrong(windows["one buffer"].checked, final) > 0
    assert not windows["fresh"].reused and _wrong(windows["fresh"].checked, final) == 0


@pytest.mark.parametrize("reused", [False, True])
def test_a_failed_check_of_a_reused_output_says_so(reused):
    reference = ReferenceRun("", {}, {}, 0)
    reference.timed = SimpleNamespace(outputs=[])
    verdict = Verdict(ran=True, matches_reference=True, device="cuda")
    judged = {"median_ms": 1.0, "cv": 0.01, "triton_time_share": 1.0, "timed_output_error": None, "checked_output_reused": reused}
    Verifier._judge_timing(SimpleNamespace(), reference, judged, ("wrong", None, "max abs error 3.0"), verdict)
    [reason] = verdict.reasons
    assert reason.code is ReasonCode.TIMED_OUTPUT_WRONG
    assert ("same output tensor" in reason.message) is reused and ("max abs error" in reason.message) is not reused


def test_no_timed_call_runs_on_the_input_set_the_warm_up_called():
    pointers = []
    _drive(lambda a, b: pointers.append(a.data_ptr()) or a @ b, _inputs(1))
    warm_up, timed = pointers[: WARMUP_CALLS + 1], pointers[WARMUP_CALLS + 1:]
    assert len(set(warm_up)) == 1 and warm_up[0] not in timed
    assert len(set(timed)) == 8
