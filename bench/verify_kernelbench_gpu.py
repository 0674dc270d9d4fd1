"""Verify honest Triton candidates for KernelBench level-1 problems at full shapes on a GPU.

Evidence that the verifier accepts honest kernels at the problems' own
shapes (no shrinking on cuda), and what a verdict costs there.

Run (GPU host, from the repo root, KernelBench JSONL at PATH):
    PYTHONPATH=. python3 -m bench.verify_kernelbench_gpu --kernelbench PATH/level_1.jsonl --out results.json
Results are recorded in bench/results/.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.kernelbench_candidates import candidates
from bench.results_log import gpu_run_facts
from tritonrl.problems import load_problems
from tritonrl.verify.verifier import Verifier, VerifierSettings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelbench", required=True, help="KernelBench level_1.jsonl")
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument("--trials", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--only", nargs="*", default=[], help="problem names to run (default: all mapped)")
    args = parser.parse_args()

    problems = {p.name: p for p in load_problems(args.kernelbench)}
    chosen = {name: code for name, code in candidates().items() if not args.only or name in args.only}
    results = {
        **gpu_run_facts(),
        "trials": args.trials,
        "problems": [],
    }
    settings = VerifierSettings(device="cuda", trials=args.trials, timeout_s=args.timeout)
    with Verifier(settings) as verifier:
        for name, code in chosen.items():
            started = time.perf_counter()
            reference = verifier.prepare_reference(problems[name].source)
            verdict = verifier.verify_against(reference, code)
            row = {
                "problem": name,
                "correct": verdict.correct,
                "codes": verdict.codes,
                "messages": [r.message[:300] for r in verdict.reasons],
                "shapes": verdict.shapes,
                "kernel_launches": verdict.kernel_launches,
                "max_abs_error": verdict.max_abs_error,
                "reference_s": round(reference.seconds, 2),
                "candidate_s": round(verdict.seconds, 2),
                "total_s": round(time.perf_counter() - started, 2),
            }
            results["problems"].append(row)
            print(json.dumps(row), flush=True)
            Path(args.out).write_text(json.dumps(results, indent=2))
    correct = sum(r["correct"] for r in results["problems"])
    print(f"{correct}/{len(results['problems'])} correct at full shapes on {results['gpu']}")


if __name__ == "__main__":
    main()
