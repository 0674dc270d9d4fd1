"""Does GRPO teach? Mean verifier reward over 30 HRD-GRPO steps from a deliberately weak SFT checkpoint, on CPU.

Learning evidence for GRPO: builds the data with the real stages (reference
teacher → verifier filter → shape augmentation), trains `tiny-local` with a
short SFT (weak on purpose: it should solve some tasks, not all), then runs
`tritonrl.stages.grpo` on the augment-tasks set with the CPU verifier as the reward.
Records the per-step mean reward (r_code; on CPU r_plan = r_code), the
greedy correctness on the built-in problems at held-out shapes before and
after GRPO, and plots the reward curve. The probe adds a less noisy curve:
the sampled mean reward (at the GRPO temperature) on one fixed set — the
built-in problems at held-out shapes — for the start model, every
`--probe-every` steps' checkpoint and the final model. Every number is
appended to the results file as soon as it exists. A run prints the SFT
output and tasks URIs; `--sft-model … --tasks-data …` starts the next run
from them instead of rebuilding the data and retraining.

    .venv/bin/python -m bench.grpo_learning --results bench/results/<date>-grpo-learning-cpu.md

The run that met the target of +0.2 mean reward within 30 steps (run K in
bench/results/2026-11-30-grpo-learning-cpu.md) reused a 300-step SFT and
trained only the final norm's gains:
`--sft-steps 300 --temperature 1.0 --lr 0.3 --set 'grpo.train_params=^model\\.norm\\.weight$'`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from tritonrl.verify import use_interpreter_on


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sft-steps", type=int, default=220, help="SFT steps for the weak starting checkpoint")
    parser.add_argument("--steps", type=int, default=30, help="GRPO steps")
    parser.add_argument("--group", type=int, default=8, help="grpo.group_size")
    parser.add_argument("--tasks", type=int, default=8, help="grpo.tasks_per_step")
    parser.add_argument("--lr", type=float, default=1e-4, help="grpo.learning_rate")
    parser.add_argument(
        "--temperature",
        type=float,
        default=0.5,
        help="grpo.temperature; at 0.7-1.0 the weak checkpoint samples almost no correct kernel",
    )
    parser.add_argument("--max-new-tokens", type=int, default=640, help="grpo.max_new_tokens (responses are ~400)")
    parser.add_argument(
        "--set",
        dest="extra",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="further config overrides, e.g. grpo.updates_per_batch=2 (repeatable)",
    )
    parser.add_argument(
        "--sft-model",
        default="",
        help="start from this existing SFT output URI instead of building data and training one "
        "(a previous run prints it); needs --tasks-data",
    )
    parser.add_argument(
        "--tasks-data", default="", help="the augment-tasks dataset URI GRPO trains on (with --sft-model)"
    )
    parser.add_argument(
        "--prepare-only",
        action="store_true",
        help="build the data and the SFT checkpoint, record their URIs and stop (runs side by side then "
        "share them: bench/grpo_sweep.sh)",
    )
    parser.add_argument(
        "--probe-samples",
        type=int,
        default=8,
        help="sampled responses per held-out problem (at the GRPO temperature) in the probe: the mean "
        "reward on a fixed set, measured on the start model, every --probe-every steps and at the "
        "end; 0 skips it",
    )
    parser.add_argument(
        "--probe-every",
        type=int,
        default=10,
        help="probe the checkpoint GRPO saves every this many steps (grpo.save_steps)",
    )
    parser.add_argument("--home", default="", help="TRITONRL_HOME (default: a fresh temp dir)")
    parser.add_argument("--results", required=True, help="markdown file the measurements are appended to")
    parser.add_argument("--plot", default="", help="reward curve PNG (default: the results file with .png)")
    args = parser.parse_args()
    if bool(args.sft_model) != bool(args.tasks_data):
        parser.error("--sft-model and --tasks-data go together")
    if args.prepare_only and args.sft_model:
        parser.error("--prepare-only builds the SFT checkpoint that --sft-model would reuse: give one of them")
    return args


def plot(history: list[dict], probes: list[tuple[int, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [h["step"] for h in history]
    rewards = [h["reward_code"] for h in history]
    window = [statistics.fmean(rewards[max(0, i - 4) : i + 1]) for i in range(len(rewards))]
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(steps, rewards, "o", alpha=0.4, label="mean reward of the step's samples")
    ax.plot(steps, window, "-", label="mean of the last 5 steps")
    if probes:
        ax.plot(*zip(*probes), "s--", label="probe: sampled mean reward, held-out shapes")
    ax.set_xlabel("GRPO step")
    ax.set_ylabel("mean reward (r_code)")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(loc="upper right", fontsize="small")
    ax.set_title("HRD-GRPO on CPU from a weak SFT checkpoint (tiny-local)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    args = parse_args()
    os.environ["TRITONRL_HOME"] = args.home or tempfile.mkdtemp(prefix="tritonrl-grpo-bench-")
    use_interpreter_on("cpu")
    from bench.results_log import results_log
    from bench.sft_learning import correctness, held_out_problems
    from tritonrl.config import load_config
    from tritonrl.stages import augment, distill, grpo, sft
    from tritonrl.stages import filter as filter_stage
    from tritonrl.training.models import resolve_model_source

    sft_overrides = (
        [] if args.sft_model else [f"sft.max_steps={args.sft_steps}", "sft.eval_fraction=0", "sft.learning_rate=0.004"]
    )
    overrides = [
        *sft_overrides,
        f"grpo.steps={args.steps}",
        f"grpo.group_size={args.group}",
        f"grpo.tasks_per_step={args.tasks}",
        f"grpo.learning_rate={args.lr}",
        f"grpo.temperature={args.temperature}",
        f"grpo.max_new_tokens={args.max_new_tokens}",
        "verify.trials=2",
        *([f"grpo.save_steps={args.probe_every}"] if args.probe_samples else []),
        *args.extra,
    ]
    config, _ = load_config("tiny", overrides=overrides)
    record = results_log(args.results, "GRPO learning on CPU (tiny profile)", overrides)

    started = time.time()
    if args.sft_model:
        from tritonrl.artifacts.datasets_io import read_manifest
        from tritonrl.artifacts.store import ArtifactStore

        weak_uri, tasks_uri = args.sft_model, args.tasks_data
        manifest = read_manifest(ArtifactStore.of(config.storage), weak_uri)
        steps, curve = manifest["steps"], manifest["loss_curve"]
        record(
            f"- weak SFT reused: {weak_uri} ({steps} steps, loss {curve[0][1]:.3f} → {curve[-1][1]:.3f}); "
            f"tasks {tasks_uri}"
        )
    else:
        accepted = filter_stage.run(config, distill.run(config).dataset.uri).accepted
        data = augment.run(config, accepted.uri)
        weak = sft.run(config, data.pairs.uri, on_log=lambda line: None)
        weak_uri, tasks_uri = weak.output_uri, data.tasks.uri
        record(
            f"- weak SFT: {weak.steps} steps, loss {weak.loss_curve[0][1]:.3f} → {weak.loss_curve[-1][1]:.3f}; "
            f"data and SFT took {time.time() - started:.0f}s (reuse: --sft-model {weak_uri} --tasks-data {tasks_uri})"
        )
        if args.prepare_only:
            return
    problems = held_out_problems()
    before, _ = correctness(config, resolve_model_source(weak_uri, config.home), problems, args.max_new_tokens)
    record(f"- greedy correctness at held-out shapes before GRPO: {before}/{len(problems)}")
    probes: list[tuple[int, float]] = []

    def probe(step: int, source: str) -> None:
        n = len(problems) * args.probe_samples
        correct, _ = correctness(config, source, problems, args.max_new_tokens, args.probe_samples, args.temperature)
        probes.append((step, correct / n))
        record(
            f"- probe after step {step}: {correct}/{n} sampled responses at held-out shapes correct "
            f"(mean reward {correct / n:.3f}, temperature {args.temperature})"
        )

    if args.probe_samples:
        probe(0, resolve_model_source(weak_uri, config.home))
    record("")

    record(
        "| step | mean reward | correct | loss | clip | grad norm | response tokens | generate s | verify s | update s |"
    )
    record("|---|---|---|---|---|---|---|---|---|---|")

    def on_log(line: str) -> None:
        print(line, flush=True)

    result = grpo.run(config, tasks_uri, model=weak_uri, on_log=on_log)
    for h in result.history:
        record(
            f"| {h['step']} | {h['reward_code']:.3f} | {h['correct']:.0%} | {h['loss']:+.4f} | {h['clip_fraction']:.2f} | "
            f"{h['grad_norm']:.3f} | {h['response_tokens']:.0f} | {h['generate_s']} | {h['verify_s']} | {h['update_s']} |"
        )
    rewards = [h["reward_code"] for h in result.history]
    first, last = statistics.fmean(rewards[:5]), statistics.fmean(rewards[-5:])
    final = Path(resolve_model_source(result.output_uri, config.home))
    after, _ = correctness(config, str(final), problems, args.max_new_tokens)
    record("")
    if args.probe_samples:
        for step in range(args.probe_every, result.steps, args.probe_every):
            probe(step, str(final.parent / f"checkpoint-{step}"))
        probe(result.steps, str(final))
    png = Path(args.plot or Path(args.results).with_suffix(".png"))
    plot(result.history, probes, png)
    record(
        f"- mean reward, first 5 steps {first:.3f} → last 5 steps {last:.3f} (change {last - first:+.3f}; "
        f"issue target ≥ +0.2 within 30 steps)"
    )
    record(
        f"- greedy correctness at held-out shapes: {before}/{len(problems)} before → {after}/{len(problems)} after GRPO"
    )
    record(f"- reward curve: {png.name}; GRPO took {result.seconds:.0f}s, total {time.time() - started:.0f}s")


if __name__ == "__main__":
    main()
