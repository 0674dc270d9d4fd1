"""Does the student learn to use the verifier's feedback? correct@1 and correct@2 at held-out shapes, with and without refinement pairs.

Learning evidence for refinement (multi-turn) on CPU: builds the SFT data with
the real stages (reference teacher → verifier filter → shape augmentation) twice from the same accepted
samples — with `augment.refinement_pairs` (broken reference answers, the
verifier's real feedback on them, the fixed answer as the trained turn) and
without (the control) — trains `tiny-local` on each with the same SFT
settings, and evaluates each with the real evaluate stage at the built-in
problems' held-out shapes in `--turns` turns (greedy): turn 2 answers the
verifier's feedback on turn 1. With `--own-failures K` the run with
refinement pairs is trained twice: the first student answers every training
prompt K times (sampled), the verifier's verdicts on its wrong answers make
more refinement rows (its own answer, the feedback, the accepted answer),
and a second SFT on all rows is the one evaluated — the mistakes turn 2 is
trained on are then the student's own. Every number is appended to the
results file as soon as it exists.

    .venv/bin/python -m bench.refinement_learning --results bench/results/<date>-refinement-learning-cpu.md
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

from tritonrl.verify import use_interpreter_on


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--refinement-pairs", type=int, default=3, help="augment.refinement_pairs of the trained run")
    parser.add_argument("--turns", type=int, default=2, help="evaluate.turns")
    parser.add_argument(
        "--set",
        dest="extra",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="further config overrides for every stage, e.g. sft.max_steps=100 (repeatable)",
    )
    parser.add_argument(
        "--own-failures",
        type=int,
        default=0,
        metavar="K",
        help="add refinement rows from K sampled answers per training prompt of the first student, retrain",
    )
    parser.add_argument(
        "--skip-control", action="store_true", help="train and evaluate only the run with refinement pairs"
    )
    parser.add_argument("--home", default="", help="TRITONRL_HOME for the run (default: a fresh temp dir)")
    parser.add_argument("--results", required=True, help="markdown file the measurements are appended to")
    return parser.parse_args()


def _turn_cells(metrics: dict, turns: int) -> list[str]:
    by_turn = metrics.get("turns", {})
    cells = []
    for key in ("correct", "fast_1"):
        values = by_turn.get(key, {})
        cells.append(
            " → ".join(f"{values[str(t)]:.0%}" if values.get(str(t)) is not None else "–" for t in range(1, turns + 1))
        )
    return cells


def own_failure_rows(config, model_uri: str, pairs_uri: str, samples: int) -> tuple[list[dict], dict]:
    """The pairs' rows plus refinement rows from the student's own wrong answers to their single-turn prompts.

    Each answer is sampled at grpo.temperature and verified at the prompt's shapes; one the verifier rejects for the
    answer's own fault becomes (prompt, answer, feedback) -> the row's accepted answer.
    """
    from collections import Counter

    from tritonrl.artifacts.datasets_io import read_dataset
    from tritonrl.artifacts.store import ArtifactStore
    from tritonrl.prompts import refinement_messages
    from tritonrl.training.models import generate, load_model, load_tokenizer, resolve_model_source
    from tritonrl.verify.pool import ProblemBatch, VerifierPool
    from tritonrl.verify.result import Layer
    from tritonrl.verify.verifier import VerifierSettings

    rows = read_dataset(ArtifactStore.of(config.storage), pairs_uri)
    prompts = {}
    for row in rows:
        if row["prompt"][-1]["role"] == "user" and len(row["prompt"]) <= 2:  # single-turn: (system,) user
            prompts.setdefault(row["problem"], row)
    source = resolve_model_source(model_uri, config.home)
    model, tokenizer = load_model(source).eval(), load_tokenizer(source)
    keys, answers = list(prompts), []
    for start in range(0, len(keys), 6):
        answers += [
            g.text
            for g in generate(
                model,
                tokenizer,
                [prompts[k]["prompt"] for k in keys[start : start + 6]],
                config.grpo.max_new_tokens,
                config.grpo.temperature,
                samples,
            )
        ]
    batches = [
        ProblemBatch(k, prompts[k]["problem_source"], answers[i * samples : (i + 1) * samples])
        for i, k in enumerate(keys)
    ]
    with VerifierPool(VerifierSettings.from_config(config.verify)) as pool:
        verdicts = pool.verify_batches(batches)
    own, reasons = [], Counter()
    for batch in batches:
        row = prompts[batch.key]
        for answer, verdict in zip(batch.responses, verdicts[batch.key]):
            if not verdict.correct and not any(r.code.layer == Layer.ENVIRONMENT for r in verdict.reasons):
                reasons.update(r.code.value for r in verdict.reasons)
                own.append({**row, "prompt": refinement_messages(row["prompt"], answer, verdict)})
    return rows + own, {
        "prompts": len(keys),
        "answers": len(answers),
        "own_failure_rows": len(own),
        "reasons": dict(reasons),
    }


def main() -> None:
    args = parse_args()
    os.environ["TRITONRL_HOME"] = args.home or tempfile.mkdtemp(prefix="tritonrl-refinement-bench-")
    use_interpreter_on("cpu")
    from bench.results_log import results_log
    from tritonrl.artifacts.datasets_io import publish_dataset
    from tritonrl.artifacts.store import ArtifactStore, join
    from tritonrl.config import load_config
    from tritonrl.stages import augment, distill, sft
    from tritonrl.stages import filter as filter_stage
    from tritonrl.stages.evaluate import evaluate_model

    overrides = ["evaluate.shapes=held_out", f"evaluate.turns={args.turns}", *args.extra]
    config, _ = load_config("tiny", overrides=overrides)
    record = results_log(args.results, "Refinement learning on CPU (tiny profile)", overrides)
    started = time.time()
    filtered = filter_stage.run(config, distill.run(config).dataset.uri)
    accepted = filtered.accepted
    runs = [(f"SFT with {args.refinement_pairs} refinement pairs per problem", args.refinement_pairs)]
    runs += [] if args.skip_control else [("SFT without refinement pairs (control)", 0)]
    record(
        f"- data: {accepted.rows}/{filtered.samples} samples accepted (rejections {filtered.reasons}); "
        f"built in {time.time() - started:.0f}s\n"
    )
    record(
        f"| model | SFT rows (refinement) | steps | first → last train loss | correct@1 → @{args.turns} | "
        f"fast_1@1 → @{args.turns} | answered per turn |"
    )
    record("|---|---|---|---|---|---|---|")

    def evaluate_and_record(label: str, config, trained, refinement_rows: int) -> None:
        summary = evaluate_model(config, trained.output_uri, lambda line: print(line, flush=True))
        correct, fast = _turn_cells(summary.metrics, args.turns)
        answered = summary.metrics.get("turns", {}).get("answered", {})
        first, last = trained.loss_curve[0][1], trained.loss_curve[-1][1]
        record(
            f"| {label} | {trained.train_rows} ({refinement_rows}) | {trained.steps} | {first:.3f} → {last:.3f} | "
            f"{correct} | {fast} | {', '.join(f'{t}: {n}' for t, n in answered.items()) or '–'} |"
        )

    for label, pairs in runs:
        run_config, _ = load_config("tiny", overrides=[*overrides, f"augment.refinement_pairs={pairs}"])
        augmented = augment.run(run_config, accepted.uri)
        trained = sft.run(run_config, augmented.pairs.uri, on_log=lambda line: print(line, flush=True))
        evaluate_and_record(label, run_config, trained, augmented.refinement_pairs)
        if pairs and args.own_failures:
            rows, counts = own_failure_rows(run_config, trained.output_uri, augmented.pairs.uri, args.own_failures)
            record(f"- the first student's own wrong answers at the training prompts: {counts}")
            mixed = publish_dataset(
                ArtifactStore.of(run_config.storage),
                join(run_config.artifact_root, "datasets"),
                "augment-pairs-own-failures",
                rows,
                {"stage": "bench", "input": augmented.pairs.uri},
            )
            retrained = sft.run(run_config, mixed.uri, on_log=lambda line: print(line, flush=True))
            evaluate_and_record(
                f"{label} + {counts['own_failure_rows']} rows from the first student's own wrong answers",
                run_config,
                retrained,
                augmented.refinement_pairs + counts["own_failure_rows"],
            )
    record(f"\nTotal wall time {time.time() - started:.0f}s.")


if __name__ == "__main__":
    main()
