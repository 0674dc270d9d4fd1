"""GPU timing: honest kernels get a speed-up; work hidden from the clock or cached across calls does not."""

from pathlib import Path

import pytest
import torch

from tritonrl.verify.verifier import Verifier, VerifierSettings

from tests.support.candidates import candidate_header

pytestmark = pytest.mark.gpu
HACKS = Path(__file__).parent / "candidates" / "hacks"
TIMING_HACKS = [
    "11_side_stream",
    "11_background_thread",
    "11_lazy_tensor_subclass",
    "10_memoise_by_fingerprint",
    "10_memoise_by_shape",
    "10_memoise_module_level",
    "11_thread_pool_future",
    "34_fingerprint_read_in_heuristics_relu",
    "34_data_ptr_shape_module_cache_row_sum",
]


@pytest.fixture(scope="module")
def gpu_verifier():
    with Verifier(VerifierSettings(device="cuda", trials=2, timeout_s=120, timing_budget_s=1.0)) as verifier:
        yield verifier


def test_side_stream_work_is_on_the_clock():
    from tritonrl.verify.timing import Timer

    timer = Timer("cuda", budget_s=0.5)
    side = torch.cuda.Stream()
    x = torch.ones(1, device="cuda")

    def hidden(x):
        with torch.cuda.stream(side):
            torch.cuda._sleep(2_000_000)  # ~1 ms of device time the current stream's events do not see
        return x

    timing, _ = timer.time(hidden, [x.clone()], lambda: [x], kernel_names=set())
    assert timing.escaped_current_stream
    assert timing.median_ms > 0.5


def test_side_stream_work_covered_by_host_busy_waiting_is_on_the_clock():
    import time

    from tritonrl.verify.timing import Timer

    timer = Timer("cuda", budget_s=0.5)
    side = torch.cuda.Stream()
    x = torch.ones(1, device="cuda")

    def hidden(x):
        with torch.cuda.stream(side):
            torch.cuda._sleep(2_000_000)
        deadline = time.perf_counter() + 0.0015  # the host waits it out, so host time ≈ queue time
        while time.perf_counter() < deadline:
            pass
        return x

    timing, _ = timer.time(hidden, [x.clone()], lambda: [x], kernel_names=set())
    assert timing.escaped_current_stream
    assert timing.median_ms > 0.5


def test_launch_bound_honest_kernel_is_timed_on_the_device_clock():
    from tritonrl.verify.timing import Timer

    timer = Timer("cuda", budget_s=0.5)
    x = torch.randn(1024, 4096, device="cuda")
    timing, _ = timer.time(torch.relu, [x.clone()], lambda: [x], kernel_names=set())
    assert not timing.escaped_current_stream
    assert timing.median_ms == timing.event_median_ms


def test_a_cache_keyed_by_input_contents_never_hits_while_timed_and_the_checked_calls_are_checkable():
    from tritonrl.verify.timing import CHECKS, Timer

    timer = Timer("cuda", budget_s=0.5)
    cache = {}

    def memoised(x):
        key = (float(x[0]), float(x[-1]))  # a fingerprint of a few elements
        if key not in cache:
            torch.cuda._sleep(2_000_000)  # ~1 ms of "work" on a miss
            cache[key] = x * 2
        return cache[key]

    known = [torch.randn(4096, device="cuda") for _ in range(CHECKS)]
    timing, checked = timer.time(
        memoised,
        [known[0].clone()],
        lambda: [torch.randn(4096, device="cuda")],
        known=[lambda x=x: [x] for x in known],
        kernel_names=set(),
    )
    assert timing.median_ms > 0.5  # every timed call missed: fresh data each time
    assert len(checked) == CHECKS  # the profiled call and the sampled repetitions
    assert all(torch.equal(output, x * 2) for output, x in zip(checked, known))  # check n ran on known set n


def test_work_skipped_on_buffers_seen_before_shows_in_the_checked_outputs():
    from tritonrl.verify.timing import CHECKS, Timer

    timer = Timer("cuda", budget_s=0.5)
    seen = set()

    def skips_seen(x):
        if x.data_ptr() in seen:
            return torch.zeros_like(x)  # the window's input sets come round again: "unwatched"
        seen.add(x.data_ptr())
        return x * 2

    known = [torch.randn(4096, device="cuda") for _ in range(CHECKS)]
    _, checked = timer.time(
        skips_seen,
        [known[0].clone()],
        lambda: [torch.randn(4096, device="cuda")],
        known=[lambda x=x: [x] for x in known],
        kernel_names=set(),
    )
    assert any(not torch.equal(output, x * 2) for output, x in zip(checked, known))


def test_honest_kernel_gets_a_speedup_and_a_high_triton_share(gpu_verifier, builtin_problems):
    problem = builtin_problems["01_relu.py"]
    verdict = gpu_verifier.verify(problem.source, problem.reference_response)
    assert verdict.correct, verdict.reasons
    assert verdict.speedup is not None and verdict.speedup > 0
    assert verdict.triton_time_share > 0.9


@pytest.mark.parametrize("name", TIMING_HACKS)
def test_timing_hacks_get_no_speedup(gpu_verifier, builtin_problems, name):
    path = HACKS / f"{name}.py"
    verdict = gpu_verifier.verify(builtin_problems[candidate_header(path)["problem"]].source, path.read_text())
    assert not verdict.correct
    assert verdict.speedup is None


def test_baselines_are_cached_per_problem_and_gpu(tmp_path, builtin_problems):
    problem = builtin_problems["01_relu.py"]
    settings = VerifierSettings(
        device="cuda", trials=2, timeout_s=120, timing_budget_s=0.5, baseline_cache=str(tmp_path)
    )
    with Verifier(settings) as verifier:
        first = verifier.prepare_reference(problem.source)
        second = verifier.prepare_reference(problem.source)
    assert not first.baseline_cached and second.baseline_cached
    assert second.baseline == first.baseline
    assert "baseline timing" not in second.stage_seconds
