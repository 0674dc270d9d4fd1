"""Spread of repeated speed-up measurements of the same kernel (target: CV ≤ 1% over 5 repeats).

Each repeat is a full verification (fresh reference run with its own eager
baseline timing, fresh candidate run), so the spread covers everything that
moves a reported speed-up. Problems are KernelBench level-1 sources with
shapes chosen so kernels run ~10 µs to a few ms.

Run (GPU host, repo root): PYTHONPATH=. python3 -m bench.timing_stability --kernelbench PATH/level_1.jsonl --out results.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from bench.kernelbench_candidates import candidates
from bench.results_log import gpu_run_facts
from tritonrl.problems import load_problems
from tritonrl.problems.shapes import with_shapes
from tritonrl.verify.verifier import Verifier, VerifierSettings

CASES = [  # (problem, shape overrides): kernels from a few µs to ~1 ms
    ("19_ReLU.py", {"batch_size": 1024, "dim": 4096}),
    ("23_Softmax.py", {"batch_size": 4096, "dim": 4096}),
    ("1_Square_matrix_multiplication_.py", {"N": 1024}),
    ("19_ReLU.py", {"batch_size": 4096, "dim": 16384}),
    ("94_MSELoss.py", {}),
    ("26_GELU_.py", {"batch_size": 4096, "dim": 65536}),
]


def _cv(values: list[float]) -> float | None:
    return statistics.pstdev(values) / statistics.fmean(values) if len(values) > 1 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelbench", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--cases", type=int, default=len(CASES))
    args = parser.parse_args()
    problems = {p.name: p for p in load_problems(args.kernelbench)}
    solutions = candidates()
    results = {
        **gpu_run_facts(),
        "cases": [],
    }
    settings = VerifierSettings(device="cuda", trials=2, timeout_s=300, alternate_shapes=False)
    with Verifier(settings) as verifier:
        for name, shapes in CASES[: args.cases]:
            source = with_shapes(problems[name].source, shapes)
            runs = []
            for _ in range(args.repeats):
                verdict = verifier.verify(source, solutions[name])
                runs.append(verdict)
            speedups = [v.speedup for v in runs if v.speedup is not None]
            row = {
                "problem": name,
                "shapes": runs[0].shapes,
                "correct": [v.correct for v in runs],
                "candidate_ms": [v.candidate_ms for v in runs],
                "baseline_ms": [v.baseline_ms for v in runs],
                "speedup": speedups,
                "speedup_cv": _cv(speedups),
                "triton_time_share": [v.triton_time_share for v in runs],
                "within_run_cv": [v.timing_cv for v in runs],
                "candidate_ms_cv": _cv([v.candidate_ms for v in runs if v.candidate_ms]),
                "baseline_ms_cv": _cv([v.baseline_ms for v in runs if v.baseline_ms]),
                "seconds_per_verdict": [round(v.seconds, 2) for v in runs],
            }
            results["cases"].append(row)
            print(json.dumps(row), flush=True)
            Path(args.out).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
