"""Speed of light on a GPU: honest KernelBench level-1 answers lie below it, a timing hack is refused by its floor.

Part 1: every honest candidate of bench/kernelbench_candidates.py is verified on cuda (one trial, no
alternate shapes, at shapes that keep the run under 6 minutes) and its sol_ms, sol_fraction, floor and
speed-up recorded. Expected: every sol_fraction < 1, none rejected faster_than_light.
Part 2: a timing hack goes through the same timing (timing.Timer) and bound (speed_of_light.bound,
light_reason): a ReLU that computes only after an idle gap and hands back its last output to calls that
follow closely — the timed window's back-to-back calls — so the last, checked call is right. The static
layer would refuse it before it ran (it reads a clock), so it is timed and judged directly here, next to
the honest answer timed the same way. Expected: the honest one passes, the hack is faster_than_light.

Run (GPU host, repo root): PYTHONPATH=. python3 -m bench.speed_of_light_gpu --out $OUT/sol.json
(KernelBench from ../shared/kernelbench/level_1.jsonl unless --kernelbench says otherwise). The JSON is
rewritten after every row.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import tempfile
import time
from pathlib import Path

from bench.kernelbench_candidates import candidates
from bench.results_log import gpu_run_facts
from tritonrl.problems import load_problems
from tritonrl.problems.shapes import with_shapes
from tritonrl.verify.result import Verdict
from tritonrl.verify.speed_of_light import MB, Bound, bound, light_reason, measure_work, sol_fraction, table_peaks
from tritonrl.verify.verifier import ReferenceRun, Verifier, VerifierSettings

REPO = Path(__file__).resolve().parents[1]
ELEMENTWISE = {"batch_size": 4096, "dim": 16384}  # 256 MiB in, 256 MiB out: well above L2, ~0.1 ms a call
CASES = [  # (KernelBench level-1 problem, shape overrides)
    *(
        (name, ELEMENTWISE)
        for name in (
            "19_ReLU.py",
            "20_LeakyReLU.py",
            "21_Sigmoid.py",
            "22_Tanh.py",
            "25_Swish.py",
            "26_GELU_.py",
            "28_HardSigmoid.py",
            "30_Softsign.py",
            "31_ELU.py",
            "32_HardTanh.py",
            "23_Softmax.py",
            "24_LogSoftmax.py",
        )
    ),
    ("1_Square_matrix_multiplication_.py", {"N": 2048}),
    ("2_Standard_matrix_multiplication_.py", {"M": 1024, "K": 4096, "N": 2048}),
    ("3_Batched_matrix_multiplication.py", {"batch_size": 32}),
    ("94_MSELoss.py", {"batch_size": 4096}),  # 4096 × 32768: 512 MiB per input
]
HACK_PROBLEM = ("19_ReLU.py", {"batch_size": 4096, "dim": 4096})  # ~30 µs a call: a window of many calls
HACK_RESERVE_S = 60.0  # kept for part 2 when part 1 runs long
# Calls in a window follow each other within microseconds; a checked single call comes after a refill, an L2 flush
# (256 MiB written: over 50 µs on any GPU here) and a device-wide synchronisation.
IDLE_GAP_S = 5e-5


class SkipsBackToBack:
    """The hack: computes after an idle gap (the harness's checked single calls), else returns the last output."""

    def __init__(self, fn, gap_s: float = IDLE_GAP_S, clock=time.perf_counter) -> None:
        self.fn, self.gap_s, self.clock = fn, gap_s, clock
        self.last_output, self.last_return = None, float("-inf")

    def __call__(self, *inputs):
        if self.last_output is None or self.clock() - self.last_return > self.gap_s:
            self.last_output = self.fn(*inputs)
        self.last_return = self.clock()
        return self.last_output


def case_row(name: str, reference: ReferenceRun, verdict: Verdict, seconds: float) -> dict:
    """One honest candidate's result: its verdict's timing fields and what its floor counted."""
    work = reference.work
    return {
        "problem": name,
        "shapes": verdict.shapes,
        "correct": verdict.correct,
        "codes": verdict.codes,
        "candidate_ms": verdict.candidate_ms,
        "baseline_ms": verdict.baseline_ms,
        "speedup": verdict.speedup,
        "sol_ms": verdict.sol_ms,
        "sol_fraction": verdict.sol_fraction,
        "floor_ms": verdict.sol_floor_ms,
        "floor_mib": reference.bound.floor_bytes / MB if reference.bound else None,
        "moved_mib": work.moved_bytes / MB if work else None,
        "flops": work.flops if work else None,
        "dependence": work.dependence if work else reference.work_error,
        "seconds": round(seconds, 2),
    }


def judged_timing(label: str, candidate_ms: float, limits: Bound, output_ok: bool) -> dict:
    """A directly timed callable judged like a verdict: its share of the speed of light and the floor's reason."""
    reason = light_reason(candidate_ms, limits)
    return {
        "callable": label,
        "candidate_ms": candidate_ms,
        "sol_ms": limits.sol_ms,
        "sol_fraction": sol_fraction(limits.sol_ms, candidate_ms),
        "floor_ms": limits.floor_ms,
        "last_output_correct": output_ok,
        "rejected": reason.code.value if reason else None,
        "message": reason.message if reason else None,
    }


def summary(rows: list[dict], hacks: list[dict]) -> dict:
    """What the run shows: honest answers below 1.0 and never faster than light, the hack refused, the control not."""
    timed = [r for r in rows if r["sol_fraction"] is not None]
    return {
        "honest_correct": sum(r["correct"] for r in rows),
        "honest_timed": len(timed),
        "all_sol_fractions_below_1": all(r["sol_fraction"] < 1.0 for r in timed),
        "max_sol_fraction": max((r["sol_fraction"] for r in timed), default=None),
        "honest_faster_than_light": [r["problem"] for r in rows if "faster_than_light" in r["codes"]],
        "hack_rejected": all(h["rejected"] == "faster_than_light" for h in hacks if h["callable"] != "honest"),
        "control_accepted": all(h["rejected"] is None for h in hacks if h["callable"] == "honest"),
    }


def _kernelbench_path(given: str | None) -> Path:
    for path in (
        [given]
        if given
        else [REPO.parent / "shared/kernelbench/level_1.jsonl", REPO / "shared/kernelbench/level_1.jsonl"]
    ):
        if Path(path).is_file():
            return Path(path)
    raise SystemExit(
        f"KernelBench level_1.jsonl not found ({given or 'shared/kernelbench beside or inside the checkout'})"
    )


def run_hack(source: str, honest_code: str, verifier: Verifier, precision: str) -> list[dict]:
    """Part 2: the honest answer and the hack, timed by the verifier's Timer and judged by the same bound."""
    import torch

    from tritonrl.verify.draws import build_reference, make_inputs
    from tritonrl.verify.runtime import compare_outputs, import_source
    from tritonrl.verify.speed_of_light import measure_peaks
    from tritonrl.verify.timing import CHECKS, Timer

    directory = Path(tempfile.mkdtemp(prefix="sol-hack-"))
    problem = import_source(source, "problem", directory)
    model = build_reference(problem, 1, "cuda")
    work = measure_work(model, make_inputs(problem, 1, "cuda"), make_inputs(problem, 2, "cuda"))
    limits = bound(work, torch.cuda.get_device_name(), verifier.peaks or measure_peaks("cuda"), precision)
    honest = import_source(honest_code, "candidate", directory).ModelNew().cuda()
    seeds = itertools.count(100)
    known = [functools.partial(make_inputs, problem, seed, "cuda") for seed in range(90, 90 + CHECKS)]
    with torch.no_grad():
        expected = [[model(*make())] for make in known]
    rows = []
    for label, fn in (("honest", honest), ("skips back-to-back calls", SkipsBackToBack(honest))):
        timing, checked = Timer("cuda", budget_s=1.0).time(
            fn, make_inputs(problem, 0, "cuda"), lambda: make_inputs(problem, next(seeds), "cuda"), known, set()
        )
        ok = all(
            compare_outputs(want, [output], "cuda", precision)[0] is None for want, output in zip(expected, checked)
        )
        rows.append({**judged_timing(label, timing.median_ms, limits, ok), "calls_per_window": timing.calls_per_rep})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="where to write the JSON results")
    parser.add_argument(
        "--kernelbench", default=None, help="KernelBench level_1.jsonl (default: ../shared/kernelbench)"
    )
    parser.add_argument("--budget-s", type=float, default=330.0, help="stop starting new cases after this many seconds")
    args = parser.parse_args()
    started = time.perf_counter()
    problems = {p.name: p for p in load_problems(str(_kernelbench_path(args.kernelbench)))}
    honest = candidates()
    settings = VerifierSettings(device="cuda", trials=1, alternate_shapes=False, timeout_s=120, timing_budget_s=1.0)
    results = {**gpu_run_facts(), "precision": settings.precision, "cases": [], "skipped": [], "hacks": []}
    out = Path(args.out)

    def save() -> None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2))

    with Verifier(settings) as verifier:
        for name, shapes in CASES:
            if time.perf_counter() - started > args.budget_s - HACK_RESERVE_S:
                results["skipped"].append(name)
                continue
            begun = time.perf_counter()
            reference = verifier.prepare_reference(with_shapes(problems[name].source, shapes))
            verdict = verifier.verify_against(reference, honest[name])
            results["cases"].append(case_row(name, reference, verdict, time.perf_counter() - begun))
            print(json.dumps(results["cases"][-1]), flush=True)
            save()
        table = table_peaks(results["gpu"])
        results["peaks"] = {"table": table and table.to_dict(), "measured": verifier.peaks and verifier.peaks.to_dict()}
        name, shapes = HACK_PROBLEM
        results["hacks"] = run_hack(
            with_shapes(problems[name].source, shapes), honest[name], verifier, settings.precision
        )
    results["summary"] = summary(results["cases"], results["hacks"])
    results["seconds"] = round(time.perf_counter() - started, 1)
    save()
    print(json.dumps({"hacks": results["hacks"], "summary": results["summary"]}, indent=2))


if __name__ == "__main__":
    main()
