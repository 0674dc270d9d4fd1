"""Sharing one GPU: jobs share it, an exclusive job (timing, a re-run alone) waits for them and goes first."""

import threading
import time

import pytest

from tritonrl.verify.gpu_lock import GpuLock
from tritonrl.verify.pool import GpuGate


@pytest.fixture(params=["in-process gate", "machine-wide lock"])
def gate(request, tmp_path):
    return GpuGate() if request.param == "in-process gate" else GpuLock(tmp_path, "0").create()


def test_an_exclusive_holder_runs_alone_and_before_later_sharers(gate):
    events, first_in = [], threading.Event()

    def shared_job(name, hold):
        with gate.shared():
            events.append(f"{name} in")
            first_in.set()
            time.sleep(hold)
            events.append(f"{name} out")

    def exclusive_job():
        with gate.exclusive():
            events.append("exclusive in")
            time.sleep(0.05)
            events.append("exclusive out")

    a = threading.Thread(target=shared_job, args=("a", 0.3))
    a.start()
    first_in.wait()
    x = threading.Thread(target=exclusive_job)
    x.start()
    time.sleep(0.1)  # the exclusive job is now waiting for `a`
    b = threading.Thread(target=shared_job, args=("b", 0.0))
    b.start()
    for thread in (a, x, b):
        thread.join(timeout=5)
    assert events == ["a in", "a out", "exclusive in", "exclusive out", "b in", "b out"]


def test_sharers_overlap(gate):
    inside, peak, lock = [0], [0], threading.Lock()

    def shared_job():
        with gate.shared():
            with lock:
                inside[0] += 1
                peak[0] = max(peak[0], inside[0])
            time.sleep(0.1)
            with lock:
                inside[0] -= 1

    threads = [threading.Thread(target=shared_job) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=5)
    assert peak[0] == 3


def test_lock_files_are_openable_by_unprivileged_children(tmp_path):
    lock = GpuLock(tmp_path, "GPU-1234/x").create()
    assert lock.run_path.parent == tmp_path and "/" not in lock.run_path.name[len("tritonrl-gpu-"):]
    assert lock.run_path.stat().st_mode & 0o777 == 0o666
    assert GpuLock(**lock.to_job()).run_path == lock.run_path
