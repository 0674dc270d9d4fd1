"""The pool spreads candidates over workers, runs each reference once, keeps order, and survives a lost server."""

import threading

import pytest

from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.sandbox import ForkServer
from tritonrl.verify.verifier import Verifier, VerifierSettings

from tests.support.candidates import candidate


@pytest.mark.slow
def test_pool_verifies_many_problems_in_order_with_one_reference_each(builtin_problems, monkeypatch):
    names = ["01_relu.py", "06_row_sum.py", "13_matmul.py"]
    tasks = [
        ProblemBatch(
            name,
            builtin_problems[name].source,
            [builtin_problems[name].reference_response, "no code", builtin_problems[name].reference_response],
        )
        for name in names
    ]
    references = []
    original = Verifier.prepare_reference
    monkeypatch.setattr(Verifier, "prepare_reference", lambda self, src: references.append(src) or original(self, src))
    seen = []
    with VerifierPool(VerifierSettings(trials=1, timeout_s=30), workers=2) as pool:
        results = pool.verify_batches(tasks, on_verdict=lambda task, index, verdict: seen.append((task.key, index)))
        assert len(pool._verifiers) == 2
    assert len(references) == 3
    assert sorted(seen) == sorted((name, i) for name in names for i in range(3))
    for name in names:
        assert [v.correct for v in results[name]] == [True, False, True], results[name]
        assert results[name][1].codes == ["no_code"]


def test_pool_carries_on_when_a_fork_server_dies_mid_candidate(builtin_problems, monkeypatch):
    """A lost fork server costs only the candidate it was running: the others get their verdicts."""
    relu, row_sum = builtin_problems["01_relu.py"], builtin_problems["06_row_sum.py"]
    doomed = candidate("import time\ntime.sleep(3)")
    original = ForkServer.run

    def run(self, job_dir, *args):
        if "time.sleep(3)" in (job_dir / "job.json").read_text():
            threading.Timer(1.0, self._proc.kill).start()  # the server exists: the reference ran on it
        return original(self, job_dir, *args)

    monkeypatch.setattr(ForkServer, "run", run)
    tasks = [
        ProblemBatch("relu", relu.source, [relu.reference_response, doomed, relu.reference_response]),
        ProblemBatch("row_sum", row_sum.source, [row_sum.reference_response]),
    ]
    with VerifierPool(VerifierSettings(trials=1, timeout_s=30), workers=2) as pool:
        results = pool.verify_batches(tasks)
    assert [v.correct for v in results["relu"]] == [True, False, True], results["relu"]
    assert "sandbox_broken" in results["relu"][1].codes
    assert results["row_sum"][0].correct


@pytest.mark.slow
def test_an_interrupted_pool_ends_its_running_candidates_instead_of_waiting_for_them(builtin_problems):
    """Ctrl-C while candidates hang: close(interrupted=True) kills them, queued ones never start, no server lives on."""
    import time

    relu = builtin_problems["01_relu.py"]
    hung = candidate("while True:\n    pass")
    pool = VerifierPool(VerifierSettings(trials=1, timeout_s=120), workers=2)
    started = threading.Event()
    errors = []

    def verify():
        try:
            pool.verify_batches([ProblemBatch("relu", relu.source, [hung] * 6)], on_reference=lambda *a: started.set())
        except Exception as exc:  # the interrupted candidates' futures end in errors; the caller is leaving anyway
            errors.append(exc)

    thread = threading.Thread(target=verify, daemon=True)
    thread.start()
    assert started.wait(120)
    time.sleep(3)  # the hung candidates are running
    began = time.monotonic()
    pool.close(interrupted=True)
    assert time.monotonic() - began < 15  # not the candidates' 120 s timeout
    thread.join(15)
    assert not thread.is_alive()
    assert all(v.server._proc is None or v.server._proc.poll() is not None for v in pool._verifiers)
