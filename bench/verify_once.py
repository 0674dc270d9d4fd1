"""Wall time of one verification in a fresh process, start-up included, as `tritonrl verify` spends it.

Default settings (VerifierSettings()), one honest candidate from
bench/kernelbench_candidates.py (KernelBench level-1 names) or the built-in
suite's reference answer (built-in names). The clock starts before torch is
imported, like a user's command line; prints one JSON line.

Run (GPU host, repo root):
    PYTHONPATH=. python3 -m bench.verify_once --kernelbench PATH/level_1.jsonl --problem 19_ReLU.py
    PYTHONPATH=. python3 -m bench.verify_once --problem 01_relu.py
"""

import time

STARTED = time.perf_counter()

import argparse  # noqa: E402
import json  # noqa: E402

from bench.kernelbench_candidates import candidates  # noqa: E402
from tritonrl.problems import load_problems  # noqa: E402
from tritonrl.problems.loaders import load_builtin  # noqa: E402
from tritonrl.verify.verifier import Verifier, VerifierSettings  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--problem", required=True, help="a KernelBench level-1 name (with --kernelbench) or a built-in one"
    )
    parser.add_argument("--kernelbench", help="KernelBench level_1.jsonl")
    parser.add_argument("--device", default="cuda")
    args = parser.parse_args()
    if args.kernelbench:
        source = {p.name: p for p in load_problems(args.kernelbench)}[args.problem].source
        response = candidates()[args.problem]
    else:
        problem = {p.name: p for p in load_builtin()}[args.problem]
        source, response = problem.source, problem.reference_response
    imported = time.perf_counter() - STARTED
    with Verifier(VerifierSettings(device=args.device)) as verifier:
        verdict = verifier.verify(source, response)
    print(
        json.dumps(
            {
                "problem": args.problem,
                "device": args.device,
                "correct": verdict.correct,
                "codes": verdict.codes,
                "wall_s": round(time.perf_counter() - STARTED, 2),
                "imports_s": round(imported, 2),
                "candidate_s": round(verdict.seconds, 2),
                "candidate_stage_seconds": verdict.stage_seconds,
                "speedup": verdict.speedup,
            }
        )
    )


if __name__ == "__main__":
    main()
