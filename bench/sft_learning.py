"""Does SFT teach? Greedy correctness on the built-in problems at held-out shapes, before and after tiny-profile SFT.

Learning evidence for SFT on CPU: builds the SFT data with the real stages
(reference teacher → verifier filter → shape augmentation), measures the
untrained `tiny-local` model, then trains it twice with the same step budget
— on every augment pair (augmentation on) and on the original-shape pairs
only (augmentation off) — and measures each. A problem counts as solved when
the model's greedy response to the problem at its suite `alt_shapes` (a
second shape set no training prompt uses) passes the full verifier on CPU.
Every number is appended to the results file as soon as it exists, so a
shortened or interrupted run still records what it measured.

    .venv/bin/python -m bench.sft_learning --steps 300 --results bench/results/<date>-sft-learning-cpu.md
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from tritonrl.verify import use_interpreter_on


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=300, help="SFT optimizer steps per training run")
    parser.add_argument("--lr", type=float, default=3e-3, help="SFT peak learning rate")
    parser.add_argument("--batch-size", type=int, default=4, help="sequences per step")
    parser.add_argument("--variants", type=int, default=5, help="augment.variants_per_task")
    parser.add_argument("--max-new-tokens", type=int, default=1024, help="greedy generation budget per problem")
    parser.add_argument(
        "--eval-fraction",
        type=float,
        default=0.0,
        help="sft.eval_fraction; 0 by default because a random hold-out of the 18 original pairs "
        "removes whole problems from the augmentation-off run (correctness at held-out shapes "
        "is this benchmark's evaluation)",
    )
    parser.add_argument("--skip-off", action="store_true", help="skip the augmentation-off training run")
    parser.add_argument("--home", default="", help="TRITONRL_HOME for the run (default: a fresh temp dir)")
    parser.add_argument("--results", required=True, help="markdown file the measurements are appended to")
    return parser.parse_args()


def held_out_problems():
    """(name, source at alt_shapes) for every built-in problem."""
    from tritonrl.problems import load_problems
    from tritonrl.problems.shapes import with_shapes

    return [(p.name, with_shapes(p.source, p.alt_shapes)) for p in load_problems("builtin")]


def correctness(
    config, model_source: str, problems, max_new_tokens: int, samples: int = 1, temperature: float = 0.0
) -> tuple[int, list[str]]:
    """`samples` responses per problem (greedy by default; batched generation, on the GPU when there is one) verified
    on CPU.

    Returns how many responses are correct (problems solved, when greedy) and the failures' reasons.
    """
    import torch

    from tritonrl.prompts import build_messages
    from tritonrl.training.models import generate, load_model, load_tokenizer
    from tritonrl.verify.pool import ProblemBatch, VerifierPool
    from tritonrl.verify.verifier import VerifierSettings

    device = "cuda" if torch.cuda.is_available() else None
    model, tokenizer = load_model(model_source, device=device).eval(), load_tokenizer(model_source)
    responses = []
    for start in range(0, len(problems), 6):
        batch = problems[start : start + 6]
        responses += [
            g.text
            for g in generate(
                model, tokenizer, [build_messages(s) for _, s in batch], max_new_tokens, temperature, samples
            )
        ]
    tasks = [
        ProblemBatch(name, source, responses[i * samples : (i + 1) * samples])
        for i, (name, source) in enumerate(problems)
    ]
    with VerifierPool(VerifierSettings.from_config(config.verify)) as pool:
        verdicts = pool.verify_batches(tasks)
    failures = [f"{t.key}: {','.join(v.codes) or 'incorrect'}" for t in tasks for v in verdicts[t.key] if not v.correct]
    return sum(v.correct for t in tasks for v in verdicts[t.key]), failures


def main() -> None:
    args = parse_args()
    os.environ["TRITONRL_HOME"] = args.home or tempfile.mkdtemp(prefix="tritonrl-sft-bench-")
    use_interpreter_on("cpu")
    from bench.results_log import results_log
    from tritonrl.artifacts.datasets_io import publish_dataset, read_dataset
    from tritonrl.artifacts.store import ArtifactStore, join
    from tritonrl.config import load_config
    from tritonrl.stages import augment, distill, sft
    from tritonrl.stages import filter as filter_stage
    from tritonrl.training.models import resolve_model_source

    overrides = [
        f"sft.max_steps={args.steps}",
        f"sft.learning_rate={args.lr}",
        f"sft.batch_size={args.batch_size}",
        f"augment.variants_per_task={args.variants}",
        f"sft.eval_fraction={args.eval_fraction}",
        "sft.eval_steps=50",
        "sft.logging_steps=25",
    ]
    config, _ = load_config("tiny", overrides=overrides)
    record = results_log(args.results, "SFT learning on CPU (tiny profile)", overrides)

    started = time.time()
    distilled = distill.run(config)
    accepted = filter_stage.run(config, distilled.dataset.uri).accepted
    pairs = augment.run(config, accepted.uri).pairs
    store = ArtifactStore()
    rows = read_dataset(store, pairs.uri)
    originals = [r for r in rows if r["variant"] == 0]
    original_pairs = publish_dataset(
        store,
        join(config.artifact_root, "datasets"),
        "augment-pairs-originals",
        originals,
        {"stage": "bench", "input": pairs.uri},
    )
    problems = held_out_problems()
    trained_prompts = {r["problem_source"] for r in rows}
    leaked = [name for name, source in problems if source in trained_prompts]
    record(
        f"- data: {len(rows)} augment pairs ({len(originals)} at original shapes), built in {time.time() - started:.0f}s; "
        f"held-out problems: {len(problems)} (alt_shapes), {len(leaked)} of them also among training prompts {leaked}\n"
    )

    record("| model | train pairs | steps | first → last train loss | eval loss | correct at held-out shapes | time |")
    record("|---|---|---|---|---|---|---|")
    base = resolve_model_source(config.student.base_model, config.home)
    solved, _ = correctness(config, base, problems, args.max_new_tokens)
    record(f"| untrained tiny-local | 0 | 0 | – | – | {solved}/{len(problems)} | – |")
    runs = [("augmentation on", pairs.uri)] + ([] if args.skip_off else [("augmentation off", original_pairs.uri)])
    failures = {}
    for label, uri in runs:
        result = sft.run(config, uri, on_log=lambda line: print(line, flush=True) if line.startswith("sft:") else None)
        model_dir = resolve_model_source(result.output_uri, config.home)
        solved, failures[label] = correctness(config, model_dir, problems, args.max_new_tokens)
        first, last = result.loss_curve[0][1], result.loss_curve[-1][1]
        evals = f"{result.eval_curve[0][1]:.3f} → {result.eval_curve[-1][1]:.3f}" if result.eval_curve else "–"
        record(
            f"| SFT, {label} | {result.train_rows} | {result.steps} | {first:.3f} → {last:.3f} | {evals} | "
            f"{solved}/{len(problems)} ({solved / len(problems):.0%}) | {result.seconds:.0f}s |"
        )
    record("")
    for label, lines in failures.items():
        record(f"Failures, {label}: " + ("; ".join(lines) or "none"))
    record(f"\nTotal wall time {time.time() - started:.0f}s.")


if __name__ == "__main__":
    main()
