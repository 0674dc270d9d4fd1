"""Held-out correctness of several models side by side: sampled answers to the built-in problems at held-out shapes.

The end point of the GRPO seeds comparison (bench/grpo_seeds.sh): each model (the start checkpoint, which is
also the lr-0 control's final model, and each seed's GRPO model) answers every built-in problem at its `alt_shapes`
(no training prompt has them) `--samples` times at `--temperature`, every answer goes through the full
CPU verifier, and the share of correct answers is recorded with its standard error. Sampling is seeded
per position (`--seed`), so a rerun draws the same answers.

    .venv/bin/python -m bench.held_out_probe --samples 16 --temperature 1.0 \\
        --results bench/results/<date>-grpo-seeds.md start=/path/to/sft/model seed0=/path/to/grpo/model ...

A model is NAME=DIR, DIR a transformers model directory (a training output's `model/`).
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path

from tritonrl.verify import use_interpreter_on


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="+", metavar="NAME=DIR", help="models to probe, in this order")
    parser.add_argument("--samples", type=int, default=16, help="sampled answers per held-out problem")
    parser.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (GRPO's)")
    parser.add_argument("--max-new-tokens", type=int, default=640, help="generation budget per answer")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="torch seed before the first model's sampling, +1 for each next one (a model named "
        "twice is two independent draws)",
    )
    parser.add_argument("--results", required=True, help="markdown file the measurements are appended to")
    args = parser.parse_args()
    for spec in args.models:
        name, sep, path = spec.partition("=")
        if not sep or not name or not (Path(path) / "config.json").is_file():
            parser.error(f"{spec!r}: give NAME=DIR with DIR a transformers model directory (with config.json)")
    return args


def main() -> None:
    args = parse_args()
    os.environ.setdefault("TRITONRL_HOME", tempfile.mkdtemp(prefix="tritonrl-probe-"))
    use_interpreter_on("cpu")
    import torch

    from bench.results_log import results_log
    from bench.sft_learning import correctness, held_out_problems
    from tritonrl.config import load_config

    config, _ = load_config("tiny", overrides=["verify.trials=2"])
    record = results_log(args.results, "Held-out probe (sampled answers at held-out shapes)", ["verify.trials=2"])
    problems = held_out_problems()
    n = len(problems) * args.samples
    record(
        f"- {args.samples} samples × {len(problems)} problems per model, temperature {args.temperature}, "
        f"seeds {args.seed}..{args.seed + len(args.models) - 1}\n"
    )
    record("| model | correct | share | standard error |")
    record("|---|---|---|---|")
    for index, spec in enumerate(args.models):
        name, _, path = spec.partition("=")
        torch.manual_seed(args.seed + index)
        correct, _ = correctness(config, path, problems, args.max_new_tokens, args.samples, args.temperature)
        share = correct / n
        record(f"| {name} | {correct}/{n} | {share:.3f} | {math.sqrt(share * (1 - share) / n):.3f} |")


if __name__ == "__main__":
    main()
