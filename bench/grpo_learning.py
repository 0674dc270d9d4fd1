"""Does GRPO teach? Mean verifier reward over 30 HRD-GRPO steps from a deliberately weak SFT checkpoint, on CPU.

Issue 6's learning evidence: builds the data with the real stages (reference
teacher → verifier filter → shape augmentation), trains `tiny-local` with a
short SFT (weak on purpose: it should solve some tasks, not all), then runs
`tritonrl.grpo` on the augment-tasks set with the CPU verifier as the reward.
Records the per-step mean reward (r_code; on CPU r_plan = r_code), the
greedy correctness on the built-in problems at held-out shapes before and
after GRPO, and plots the reward curve. Every number is appended to the
results file as soon as it exists.

    .venv/bin/python bench/grpo_learning.py --results bench/results/<date>-grpo-learning-cpu.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sft-steps", type=int, default=80, help="SFT steps for the weak starting checkpoint")
    parser.add_argument("--steps", type=int, default=30, help="GRPO steps")
    parser.add_argument("--group", type=int, default=8, help="grpo.group_size")
    parser.add_argument("--tasks", type=int, default=4, help="grpo.tasks_per_step")
    parser.add_argument("--lr", type=float, default=5e-4, help="grpo.learning_rate")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--max-new-tokens", type=int, default=1024)
    parser.add_argument("--home", default="", help="TRITONRL_HOME (default: a fresh temp dir)")
    parser.add_argument("--results", required=True, help="markdown file the measurements are appended to")
    return parser.parse_args()


def plot(history: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [h["step"] for h in history]
    rewards = [h["reward_code"] for h in history]
    window = [statistics.fmean(rewards[max(0, i - 4): i + 1]) for i in range(len(rewards))]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, rewards, "o", alpha=0.4, label="mean reward of the step's samples")
    ax.plot(steps, window, "-", label="mean of the last 5 steps")
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("mean reward (r_code)")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(loc="lower right")
    ax.set_title("HRD-GRPO on CPU from a weak SFT checkpoint (tiny-local)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    args = parse_args()
    os.environ["TRITONRL_HOME"] = args.home or tempfile.mkdtemp(prefix="tritonrl-grpo-bench-")
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from bench.results_log import results_log
    from bench.sft_learning import correctness, held_out_problems
    from tritonrl import augment, distill, filter as filter_stage, grpo, sft
    from tritonrl.config import load_config
    from tritonrl.models import resolve_model_source

    overrides = [
        f"sft.max_steps={args.sft_steps}", "sft.eval_fraction=0", "sft.learning_rate=0.004",
        f"grpo.steps={args.steps}", f"grpo.group_size={args.group}", f"grpo.tasks_per_step={args.tasks}",
        f"grpo.learning_rate={args.lr}", f"grpo.temperature={args.temperature}",
        f"grpo.max_new_tokens={args.max_new_tokens}", "verify.trials=2",
    ]
    config, _ = load_config("tiny", overrides=overrides)
    record = results_log(args.results, "GRPO learning on CPU (tiny profile)", overrides)

    started = time.time()
    accepted = filter_stage.run(config, distill.run(config).dataset.uri).accepted
    data = augment.run(config, accepted.uri)
    weak = sft.run(config, data.pairs.uri, on_log=lambda line: None)
    record(f"- weak SFT: {weak.steps} steps, loss {weak.loss_curve[0][1]:.3f} → {weak.loss_curve[-1][1]:.3f}; "
           f"data and SFT took {time.time() - started:.0f}s")
    problems = held_out_problems()
    before, _ = correctness(config, resolve_model_source(weak.output_uri, config.home), problems, args.max_new_tokens)
    record(f"- greedy correctness at held-out shapes before GRPO: {before}/{len(problems)}\n")

    record("| step | mean reward | correct | loss | clip | response tokens | generate s | verify s | update s |")
    record("|---|---|---|---|---|---|---|---|---|")

    def on_log(line: str) -> None:
        print(line, flush=True)

    result = grpo.run(config, data.tasks.uri, model=weak.output_uri, on_log=on_log)
    for h in result.history:
        record(f"| {h['step']} | {h['reward_code']:.3f} | {h['correct']:.0%} | {h['loss']:+.4f} | {h['clip_fraction']:.2f} | "
               f"{h['response_tokens']:.0f} | {h['generate_s']} | {h['verify_s']} | {h['update_s']} |")
    rewards = [h["reward_code"] for h in result.history]
    first, last = statistics.fmean(rewards[:5]), statistics.fmean(rewards[-5:])
    after, failures = correctness(config, resolve_model_source(result.output_uri, config.home), problems, args.max_new_tokens)
    png = Path(args.results).with_suffix(".png")
    plot(result.history, png)
    record(f"\n- mean reward, first 5 steps {first:.3f} → last 5 steps {last:.3f} (change {last - first:+.3f}; "
           f"issue target ≥ +0.2 within 30 steps)")
    record(f"- greedy correctness at held-out shapes: {before}/{len(problems)} before → {after}/{len(problems)} after GRPO")
    record(f"- reward curve: {png.name}; GRPO took {result.seconds:.0f}s, total {time.time() - started:.0f}s")


if __name__ == "__main__":
    main()
