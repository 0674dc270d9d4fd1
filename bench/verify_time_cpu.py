"""CPU verdict time: how long one verdict takes with default settings, per built-in problem.

Verifies each built-in problem's reference answer once (one `Verifier`, so the
fork server start is paid once, as in a pool), prints seconds per verdict, the
reference run's seconds, and the candidate run's stage split, then the median.
Run on two checkouts to compare versions; the script only uses the public
`Verifier` API, so it runs unchanged on older commits:

    .venv/bin/python -m bench.verify_time_cpu [--problems 01_relu.py,09_softmax.py] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import time
from pathlib import Path

import torch

from tritonrl.problems.loaders import load_builtin
from tritonrl.verify.verifier import Verifier, VerifierSettings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default="", help="comma-separated built-in problem names (default: all)")
    parser.add_argument("--json", default="", help="also write the measurements here")
    args = parser.parse_args()
    wanted = {p for p in args.problems.split(",") if p}
    problems = [p for p in load_builtin() if not wanted or p.name in wanted]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=Path(__file__).parent
    ).stdout.strip()
    print(f"commit {commit}, torch {torch.__version__}, {platform.processor() or platform.machine()}")
    rows = []
    started = time.perf_counter()
    with Verifier(VerifierSettings(device="cpu")) as verifier:
        for problem in problems:
            t0 = time.perf_counter()
            reference = verifier.prepare_reference(problem.source)
            verdict = verifier.verify_against(reference, problem.reference_response)
            seconds = time.perf_counter() - t0
            rows.append(
                {
                    "problem": problem.name,
                    "seconds": round(seconds, 3),
                    "reference_s": round(reference.seconds, 3),
                    "candidate_s": round(verdict.seconds, 3),
                    "correct": verdict.correct,
                    "stages": verdict.stage_seconds,
                    "codes": verdict.codes,
                }
            )
            print(
                f"{problem.name:28s} {seconds:6.2f} s (reference {reference.seconds:5.2f} s, candidate "
                f"{verdict.seconds:5.2f} s) correct={verdict.correct} {verdict.codes or ''}",
                flush=True,
            )
    median = statistics.median(r["seconds"] for r in rows)
    total = time.perf_counter() - started
    print(f"median {median:.2f} s per verdict (reference + candidate); {total:.1f} s for {len(rows)} problems")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"commit": commit, "median_s": median, "total_s": total, "rows": rows}, indent=1)
        )


if __name__ == "__main__":
    main()
