"""bench/speed_of_light_gpu.py on CPU: it imports without the orchestration stack, its cases exist, its judging is right.

The GPU run itself (honest answers below the speed of light, the hack refused) needs an H200.
"""

import subprocess
import sys
from types import SimpleNamespace

from tritonrl.problems import load_problems
from tritonrl.problems.shapes import with_shapes
from tritonrl.verify.result import Verdict
from tritonrl.verify.speed_of_light import Bound

from tests.support.paths import REPO

LIMITS = Bound(sol_ms=0.02, floor_ms=0.01, floor_bytes=48 << 20, floor_bandwidth=4.8e12)


def test_the_bench_imports_only_the_verifier_problems_and_bench_helpers():
    code = (
        "import sys, bench.speed_of_light_gpu; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'prefect', 'mlflow', 'pydantic', 'flows', 'tasks'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_case_is_a_level_1_problem_with_an_honest_candidate(kernelbench_dir):
    from bench.kernelbench_candidates import candidates
    from bench.speed_of_light_gpu import CASES, HACK_PROBLEM

    problems = {p.name: p for p in load_problems(str(kernelbench_dir / "level_1.jsonl"))}
    honest = candidates()
    for name, shapes in [*CASES, HACK_PROBLEM]:
        assert name in honest, name
        with_shapes(problems[name].source, shapes)  # every override names a shape constant of the problem


def test_the_hack_computes_only_after_an_idle_gap():
    from bench.speed_of_light_gpu import SkipsBackToBack

    now = [0.0]
    calls = []
    hack = SkipsBackToBack(lambda x: calls.append(x) or x * 2, gap_s=1e-3, clock=lambda: now[0])
    assert hack(1) == 2
    now[0] += 1e-5  # the next call of a timed window
    assert hack(5) == 2 and calls == [1]  # the stale answer, no work
    now[0] += 1e-2  # after a refill, a flush and a synchronisation: the checked call
    assert hack(7) == 14 and calls == [1, 7]


def test_the_hack_is_judged_faster_than_light_and_the_control_is_not():
    from bench.speed_of_light_gpu import judged_timing, summary

    honest = judged_timing("honest", 0.03, LIMITS, True)
    hack = judged_timing("skips back-to-back calls", 0.0012, LIMITS, True)
    assert honest["rejected"] is None and honest["sol_fraction"] == 0.02 / 0.03
    assert hack["rejected"] == "faster_than_light" and hack["sol_fraction"] > 1
    rows = [
        {"problem": "19_ReLU.py", "correct": True, "codes": [], "sol_fraction": 0.7},
        {"problem": "1_Square_matrix_multiplication_.py", "correct": True, "codes": [], "sol_fraction": 0.3},
    ]
    result = summary(rows, [honest, hack])
    assert result["all_sol_fractions_below_1"] and result["max_sol_fraction"] == 0.7
    assert result["hack_rejected"] and result["control_accepted"] and result["honest_faster_than_light"] == []
    assert not summary(rows, [hack, {**hack, "callable": "honest"}])["control_accepted"]


def test_a_case_row_holds_the_verdicts_speed_of_light():
    from bench.speed_of_light_gpu import case_row

    verdict = Verdict(
        ran=True,
        matches_reference=True,
        device="cuda",
        candidate_ms=0.03,
        baseline_ms=0.06,
        speedup=2.0,
        sol_ms=0.02,
        sol_fraction=2 / 3,
        sol_floor_ms=0.01,
    )
    work = SimpleNamespace(moved_bytes=128 << 20, flops={}, dependence="autograd")
    row = case_row("19_ReLU.py", SimpleNamespace(work=work, bound=LIMITS, work_error=None), verdict, 4.2)
    assert (row["sol_fraction"], row["floor_ms"], row["floor_mib"], row["moved_mib"]) == (2 / 3, 0.01, 48.0, 128.0)
    assert row["correct"] and row["codes"] == [] and row["speedup"] == 2.0
