"""Verifier pool throughput on KernelBench level-1 at full shapes, against KernelBench-style evaluation.

Pool phase: G honest candidates per problem (a GRPO-sized group: block-size
variants of the elementwise kernel, copies otherwise) through
`VerifierPool` on every local GPU — references and baselines once per
problem, several workers per GPU sharing it, each timed run alone on its GPU
(tritonrl/verify/gpu_lock.py). Reports
candidates verified per minute, the per-stage time split (summed over
sandboxed runs) and the GPU-busy share (nvidia-smi utilisation sampled
every 200 ms during the phase).
KernelBench-style phase: the first candidate of each `--kb-style`
problem, each through bench/kernelbench_style_eval.py in a fresh
interpreter, one after another; seconds per candidate.
Per problem, G × the KernelBench-style seconds over the pool's wall time for
that problem's group is the speed-up of the pool over that style.

Run (GPU host, repo root):
    PYTHONPATH=. python3 -m bench.verifier_throughput --kernelbench PATH/level_1.jsonl --out results.json
"""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import torch
import triton

from bench.kernelbench_candidates import candidates
from bench.results_log import command
from tritonrl.problems import load_problems
from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.sandbox import job_root
from tritonrl.verify.verifier import VerifierSettings

PROBLEMS = [
    "1_Square_matrix_multiplication_.py",
    "2_Standard_matrix_multiplication_.py",
    "3_Batched_matrix_multiplication.py",
    "19_ReLU.py",
    "21_Sigmoid.py",
    "23_Softmax.py",
    "26_GELU_.py",
    "28_HardSigmoid.py",
    "30_Softsign.py",
    "94_MSELoss.py",
]
KB_STYLE = ["1_Square_matrix_multiplication_.py", "19_ReLU.py", "23_Softmax.py", "94_MSELoss.py"]
BLOCK_SIZES = [4096, 2048, 8192, 1024]
KERNELBENCH_STYLE = Path(__file__).with_name("kernelbench_style_eval.py")


def group(code: str, size: int) -> list[str]:
    """`size` candidates for one problem: block-size variants where the kernel has one, else copies."""
    if "BLOCK_SIZE=4096" in code:
        return [code.replace("4096", str(BLOCK_SIZES[i % len(BLOCK_SIZES)])) for i in range(size)]
    return [code] * size


class BusySampler:
    """GPU utilisation (share of time a kernel ran) from nvidia-smi, sampled in the background."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._proc = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-lms", "200"],
            stdout=subprocess.PIPE,
            text=True,
        )
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        for line in self._proc.stdout:
            values = [float(v) for v in line.split(",") if v.strip().replace(".", "").isdigit()]
            self.samples.extend(values)

    def stop(self) -> float | None:
        self._proc.terminate()
        self._proc.wait()
        self._thread.join(timeout=2)
        return statistics.fmean(self.samples) / 100 if self.samples else None


def pool_phase(problems: dict, names: list[str], code: dict, args, results: dict, out: Path) -> None:
    settings = VerifierSettings(
        device="cuda", trials=args.trials, timeout_s=args.timeout, timing_budget_s=args.timing_budget
    )
    tasks = [ProblemBatch(name, problems[name].source, group(code[name], args.group)) for name in names]
    rows, stages, reference_stages = [], Counter(), Counter()
    started = time.perf_counter()
    finished: dict[str, float] = {}  # problem -> time its last verdict arrived (waves run one after another)

    def on_reference(task: ProblemBatch, reference) -> None:
        reference_stages.update(reference.stage_seconds)
        results["references"].append(
            {
                "problem": task.key,
                "seconds": round(reference.seconds, 2),
                "stage_seconds": reference.stage_seconds,
                "baseline_ms": (reference.baseline or {}).get("median_ms"),
            }
        )

    def on_verdict(task: ProblemBatch, index: int, verdict) -> None:
        stages.update(verdict.stage_seconds)
        finished[task.key] = time.perf_counter()
        rows.append(
            {
                "problem": task.key,
                "index": index,
                "correct": verdict.correct,
                "codes": verdict.codes,
                "messages": [_shortened(r.message) for r in verdict.reasons],
                "speedup": verdict.speedup,
                "candidate_ms": verdict.candidate_ms,
                "timing_cv": verdict.timing_cv,
                "triton_time_share": verdict.triton_time_share,
                "seconds": round(verdict.seconds, 2),
                "stage_seconds": verdict.stage_seconds,
                "at_s": round(time.perf_counter() - started, 2),
            }
        )
        print(json.dumps(rows[-1]), flush=True)
        results["pool"]["verdicts"] = rows
        out.write_text(json.dumps(results, indent=2))

    sampler = BusySampler()
    with VerifierPool(settings, workers_per_gpu=args.workers_per_gpu) as pool:
        results["pool"]["workers"] = pool.workers
        pool.verify_batches(tasks, on_verdict, on_reference)
    wall = time.perf_counter() - started
    previous, per_problem = started, {}
    for name in names:
        per_problem[name] = round(finished[name] - previous, 2)
        previous = finished[name]
    results["pool"].update(
        {
            "wall_s": round(wall, 1),
            "candidates": len(rows),
            "correct": sum(r["correct"] for r in rows),
            "candidates_per_minute": round(len(rows) / wall * 60, 2),
            "problem_wall_s": per_problem,  # exact with one GPU: problems run one wave after another
            "gpu_busy_share": sampler.stop(),
            "candidate_stage_seconds": {k: round(v, 1) for k, v in stages.most_common()},
            "reference_stage_seconds": {k: round(v, 1) for k, v in reference_stages.most_common()},
        }
    )


def kernelbench_style_phase(problems: dict, names: list[str], code: dict, results: dict, out: Path) -> None:
    work = Path(tempfile.mkdtemp(prefix="kb-style-"))
    try:
        for name in names:
            (work / "problem.py").write_text(problems[name].source)
            (work / "candidate.py").write_text(group(code[name], 1)[0])
            started = time.perf_counter()
            proc = subprocess.run(
                [
                    sys.executable,
                    str(KERNELBENCH_STYLE),
                    "--problem",
                    str(work / "problem.py"),
                    "--candidate",
                    str(work / "candidate.py"),
                ],
                capture_output=True,
                text=True,
            )
            seconds = time.perf_counter() - started
            last = proc.stdout.strip().splitlines()[-1:] or ["{}"]
            row = {
                "problem": name,
                "seconds": round(seconds, 2),
                "returncode": proc.returncode,
                **json.loads(last[0]),
                "stderr": proc.stderr[-300:] if proc.returncode else "",
            }
            results["kernelbench_style"]["runs"].append(row)
            print(json.dumps(row), flush=True)
            out.write_text(json.dumps(results, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _shortened(message: str, keep: int = 200) -> str:
    """A message's start (what ended the job) and end (a traceback's last line)."""
    return message if len(message) <= 2 * keep else f"{message[:keep]} … {message[-keep:]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelbench", required=True, help="KernelBench level_1.jsonl")
    parser.add_argument("--out", required=True)
    parser.add_argument("--problems", nargs="*", default=PROBLEMS)
    parser.add_argument("--group", type=int, default=4, help="candidates per problem")
    parser.add_argument("--workers-per-gpu", type=int, default=3)
    parser.add_argument(
        "--trials", type=int, default=2, help="correctness trials at full shape (plus one at alternate shapes)"
    )
    parser.add_argument("--timing-budget", type=float, default=1.0, help="seconds per timed callable at most")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument(
        "--kb-style", nargs="*", default=KB_STYLE, help="problems to run KernelBench-style (first candidate each)"
    )
    parser.add_argument("--skip-pool", action="store_true")
    args = parser.parse_args()

    problems = {p.name: p for p in load_problems(args.kernelbench)}
    code = candidates()
    out = Path(args.out)
    results = {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "gpus": [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())],
        "torch": torch.__version__,
        "triton": triton.__version__,
        "python": platform.python_version(),
        "cpus": __import__("os").cpu_count(),
        "job_root": str(job_root()),
        "job_root_free_gb": round(shutil.disk_usage(job_root()).free / 2**30, 1),
        "command": command(),
        "pool": {},
        "references": [],
        "kernelbench_style": {"runs": []},
    }
    if not args.skip_pool:
        pool_phase(problems, args.problems, code, args, results, out)
    kernelbench_style_phase(problems, args.kb_style, code, results, out)
    runs = results["kernelbench_style"]["runs"]
    if runs and results["pool"]:
        # Same problems, same candidates: KernelBench style would take G × its per-candidate time per problem.
        pool_wall = results["pool"]["problem_wall_s"]
        results["speedup_over_kernelbench_style"] = {
            r["problem"]: round(r["seconds"] * args.group / pool_wall[r["problem"]], 1) for r in runs
        }
        results["speedup_over_kernelbench_style"]["all of these"] = round(
            sum(r["seconds"] for r in runs) * args.group / sum(pool_wall[r["problem"]] for r in runs), 1
        )
    out.write_text(json.dumps(results, indent=2))
    print(
        json.dumps(
            {k: v for k, v in results.items() if k not in ("references",)}
            | {"pool": {k: v for k, v in results["pool"].items() if k != "verdicts"}},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
