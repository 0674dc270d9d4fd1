"""Evaluate one candidate the way KernelBench's own harness does: the baseline for bench/verifier_throughput.py.

A fresh interpreter per candidate; the reference model is rebuilt and rerun
for every candidate; inputs come from the problem's `get_inputs()` on the
host and are copied to the GPU; 5 correctness trials (allclose, atol = rtol
= 1e-2), then 100 timed calls with CUDA events on the last inputs. Prints
one JSON line: correct, mean_ms.

Run: python3 -m bench.kernelbench_style_eval --problem P.py --candidate C.py
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys

import torch


def _load(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", required=True)
    parser.add_argument("--candidate", required=True)
    parser.add_argument("--correct-trials", type=int, default=5)
    parser.add_argument("--timing-trials", type=int, default=100)
    args = parser.parse_args()

    problem, candidate = _load(args.problem, "problem"), _load(args.candidate, "candidate")
    init_inputs = problem.get_init_inputs()
    with torch.no_grad():
        torch.manual_seed(42)
        reference = problem.Model(*init_inputs).cuda()
        torch.manual_seed(42)
        model = candidate.ModelNew(*init_inputs).cuda()
        correct = True
        for trial in range(args.correct_trials):
            torch.manual_seed(trial)
            inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in problem.get_inputs()]
            expected, actual = reference(*inputs), model(*inputs)
            torch.cuda.synchronize()
            correct &= bool(torch.allclose(expected, actual, atol=1e-2, rtol=1e-2))
            del expected, actual
        times = []
        for _ in range(args.timing_trials):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            model(*inputs)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    print(json.dumps({"correct": correct, "mean_ms": sum(times) / len(times)}))


if __name__ == "__main__":
    main()
