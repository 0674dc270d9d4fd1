"""The pool spreads candidates over workers, runs each reference once, and keeps order."""

from tritonrl.verify.pool import Task, VerifierPool
from tritonrl.verify.verifier import Verifier, VerifierSettings


def test_pool_verifies_many_problems_in_order_with_one_reference_each(builtin_problems, monkeypatch):
    names = ["01_relu.py", "06_row_sum.py", "13_matmul.py"]
    tasks = [
        Task(name, builtin_problems[name].source, [builtin_problems[name].reference_response, "no code", builtin_problems[name].reference_response])
        for name in names
    ]
    references = []
    original = Verifier.prepare_reference
    monkeypatch.setattr(Verifier, "prepare_reference", lambda self, src: references.append(src) or original(self, src))
    seen = []
    with VerifierPool(VerifierSettings(trials=1, timeout_s=30), workers=2) as pool:
        results = pool.verify_tasks(tasks, on_verdict=lambda task, index, verdict: seen.append((task.key, index)))
        assert len(pool._verifiers) == 2
    assert len(references) == 3
    assert sorted(seen) == sorted((name, i) for name in names for i in range(3))
    for name in names:
        assert [v.correct for v in results[name]] == [True, False, True], results[name]
        assert results[name][1].codes == ["no_code"]

