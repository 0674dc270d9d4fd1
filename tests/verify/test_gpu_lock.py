"""Sharing one GPU: jobs share it, an exclusive job (timing, a re-run alone) waits for them and goes first."""

import fcntl
import os
import threading
import time

import pytest

from tritonrl.verify.gpu_lock import GpuLock
from tritonrl.verify.pool import GpuGate


@pytest.fixture(params=["in-process gate", "machine-wide lock"])
def gate(request, tmp_path):
    return GpuGate() if request.param == "in-process gate" else GpuLock(tmp_path, "0").create()


def _exclusive_is_waiting(gate) -> bool:
    """Whether an exclusive holder is queued: the gate's count, or the lock's turnstile held by someone."""
    if isinstance(gate, GpuGate):
        with gate._cond:
            return gate._waiting > 0
    handle = os.open(gate.turnstile_path, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(handle)


def _until(condition, what: str, limit_s: float = 30.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not happen within {limit_s} s"
        time.sleep(0.01)


def test_an_exclusive_holder_runs_alone_and_before_later_sharers(gate):
    events, a_in, release_a = [], threading.Event(), threading.Event()

    def shared_job(name, release):
        with gate.shared():
            events.append(f"{name} in")
            if release is not None:
                a_in.set()
                assert release.wait(30)
            events.append(f"{name} out")

    def exclusive_job():
        with gate.exclusive():
            events.append("exclusive in")
            events.append("exclusive out")

    a = threading.Thread(target=shared_job, args=("a", release_a))
    a.start()
    assert a_in.wait(30)
    x = threading.Thread(target=exclusive_job)
    x.start()
    _until(lambda: _exclusive_is_waiting(gate), "the exclusive job queueing behind `a`")
    b = threading.Thread(target=shared_job, args=("b", None))
    b.start()
    b.join(timeout=0.2)  # b arrives while the exclusive job waits; it may not overtake it
    release_a.set()
    for thread in (a, x, b):
        thread.join(timeout=30)
    assert events == ["a in", "a out", "exclusive in", "exclusive out", "b in", "b out"]


def test_sharers_overlap(gate):
    all_inside = threading.Barrier(3, timeout=30)  # broken (and the test fails) unless all three are in at once
    broken = []

    def shared_job():
        with gate.shared():
            try:
                all_inside.wait()
            except threading.BrokenBarrierError:
                broken.append(True)

    threads = [threading.Thread(target=shared_job) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not broken


def test_lock_files_are_openable_by_unprivileged_children(tmp_path):
    lock = GpuLock(tmp_path, "GPU-1234/x").create()
    assert lock.run_path.parent == tmp_path and "/" not in lock.run_path.name[len("tritonrl-gpu-") :]
    assert lock.run_path.stat().st_mode & 0o777 == 0o666
    assert GpuLock(**lock.to_job()).run_path == lock.run_path
