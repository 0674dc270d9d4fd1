"""The verifier's API: verdict fields, batches, CPU shape shrinking."""

import json

from tritonrl.verify.response import parse_response
from tritonrl.verify.result import ReasonCode


def test_every_builtin_reference_verifies_as_correct(verifier, builtin_problems):
    failures = {}
    for name, problem in builtin_problems.items():
        verdict = verifier.verify(problem.source, problem.reference_response)
        if not verdict.correct:
            failures[name] = [r.to_dict() for r in verdict.reasons]
        assert verdict.kernel_launches >= 2  # at least one launch per trial
    assert failures == {}


def test_verdict_json_has_the_cli_contract_fields(verifier, builtin_problems):
    problem = builtin_problems["09_softmax.py"]
    data = json.loads(json.dumps(verifier.verify(problem.source, problem.reference_response).to_dict()))
    assert data["valid"] is data["compiled"] is data["correct"] is True
    assert data["speedup"] is None and data["reasons"] == []
    assert data["shapes"] == {"batch_size": 16, "dim": 4096} and data["trials"] == 3  # 2 + 1 at alt shapes
    assert data["alt_shapes"] == {"batch_size": 11, "dim": 3071}
    stages = data["stage_seconds"]  # where the time went, for throughput work
    assert {"import", "init", "trial", "outside child"} <= set(stages)
    assert all(seconds >= 0 for seconds in stages.values())


def test_batch_runs_the_reference_once_and_judges_each_candidate(verifier, builtin_problems, monkeypatch):
    problem = builtin_problems["06_row_sum.py"]
    good = problem.reference_response
    wrong = good.replace("tl.sum(", "tl.max(")
    assert wrong != good
    calls = []
    original = verifier.prepare_reference
    monkeypatch.setattr(verifier, "prepare_reference", lambda src: calls.append(src) or original(src))
    verdicts = verifier.verify_batch(problem.source, [good, wrong, "no code at all"])
    assert len(calls) == 1
    assert [v.correct for v in verdicts] == [True, False, False]
    assert verdicts[1].codes == ["wrong_result"] and verdicts[1].valid and verdicts[1].compiled
    assert verdicts[2].codes == ["no_code"] and not verdicts[2].ran


def test_bare_py_candidate_is_accepted(verifier, builtin_problems):
    problem = builtin_problems["03_silu.py"]
    code = parse_response(problem.reference_response).code
    assert verifier.verify(problem.source, code).correct


def test_kernelbench_shapes_are_shrunk_on_cpu_and_reported(verifier, kernelbench_dir, builtin_problems):
    relu_problem = next(
        json.loads(line)["code"]
        for line in (kernelbench_dir / "level_1.jsonl").read_text().splitlines()
        if json.loads(line)["name"] == "19_ReLU.py"
    )
    verdict = verifier.verify(relu_problem, builtin_problems["01_relu.py"].reference_response)
    assert verdict.correct, verdict.reasons
    assert verdict.original_shapes == {"batch_size": 4096, "dim": 393216}
    assert verdict.shapes["batch_size"] * verdict.shapes["dim"] <= verifier.settings.cpu_element_budget


def test_broken_problem_is_the_problems_fault(verifier, builtin_problems):
    broken = builtin_problems["01_relu.py"].source.replace("return torch.relu(x)", "return torch.relu(x, 3)")
    verdict = verifier.verify(broken, builtin_problems["01_relu.py"].reference_response)
    assert verdict.codes == [ReasonCode.REFERENCE_FAILED.value]
    assert "reference Model failed" in verdict.reasons[0].message
