"""One GRPO training process: sample rollouts, reward them with the verifier, update the policy.

The loop is here; sampling (every turn of each trajectory) and rewards are in rollout.py, the update in update.py.

tritonrl/stages/grpo.py checks the inputs, prepares the output and then runs
`train` here — in its own process for one process, or through torchrun on
every process of every node (`main`, reading the JSON spec grpo.py wrote).
Each step every rank draws the same `grpo.tasks_per_step` tasks (one seeded
rng) and takes its share, `chosen[rank::world]`; a task's whole group lives
on one rank, so sampling, verification (each rank its own verifier pool, on
its own GPU or its share of the cores) and group-relative advantages need
no communication. The ranks then agree through tritonrl/training/distributed.py on
whether any group has signal, on the token (or response) count that
normalises the loss — so the summed gradient is the one a single process
would get from the same rollouts — and on the step's metrics; gradients are
summed before clipping and the optimizer step, which every replica takes
alike. Rank 0 alone prints progress and writes `history.jsonl`, checkpoints
and the final model.

It imports torch, transformers and tritonrl's config, models, prompts and
verifier only, so it runs on a GPU host without the orchestration stack.

Run: `python -m torch.distributed.run --nproc_per_node N -m tritonrl.training.grpo.worker --spec SPEC.json`
(what `tritonrl grpo --set grpo.nproc_per_node=N` launches). Test: tests/stages/test_grpo.py,
tests/training/test_grpo_distributed.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import time
from collections.abc import Callable
from pathlib import Path

import torch

from tritonrl.config import Config, load_config
from tritonrl.training import distributed
from tritonrl.training.distributed import Rank
from tritonrl.training.grpo import hrd
from tritonrl.training.grpo.rollout import Rollout, Sampler, trajectories
from tritonrl.training.grpo.update import make_optimizer, policy_dtype, policy_update, warmup
from tritonrl.training.models import MODEL_DIR, load_model, load_tokenizer
from tritonrl.verify.pool import VerifierPool, visible_gpus
from tritonrl.verify.verifier import VerifierSettings

HISTORY_FILE = "history.jsonl"


def _turn_metrics(rollouts: list[Rollout], turns: int) -> dict:
    """Per turn position t over every rank: trajectories that reached t, their mean rewards at t, and correct@t,
    the share of all trajectories correct at some turn up to t."""

    def first_correct(r: Rollout) -> bool:
        earlier = r.previous
        while earlier is not None and earlier.r_code == 0:
            earlier = earlier.previous
        return r.r_code > 0 and earlier is None

    at = [[r for r in rollouts if r.turn == t] for t in range(1, turns + 1)]
    totals = distributed.reduce(
        [
            value
            for group in at
            for value in (
                len(group),
                sum(r.r_code for r in group),
                sum(r.r_plan for r in group),
                sum(map(first_correct, group)),
            )
        ]
    )
    reached, code, plan, correct = (totals[k::4] for k in range(4))
    out = {}
    for t in range(turns):
        out[f"turns.reached.{t + 1}"] = int(reached[t])
        out[f"turns.reward_code.{t + 1}"] = code[t] / reached[t] if reached[t] else None
        out[f"turns.reward_plan.{t + 1}"] = plan[t] / reached[t] if reached[t] else None
        out[f"turns.correct.{t + 1}"] = sum(correct[: t + 1]) / reached[0]
    return out


def _turns_line(metrics: dict, turns: int) -> str:
    """The per-turn part of a step's line: trajectories that reached each turn, correct@t."""
    ts = range(1, turns + 1)
    return (
        " | reached "
        + "/".join(str(metrics[f"turns.reached.{t}"]) for t in ts)
        + " correct@t "
        + "/".join(f"{metrics[f'turns.correct.{t}']:.0%}" for t in ts)
    )


def _step_metrics(step: int, rollouts: list[Rollout], update: dict, seconds: dict[str, float], turns: int) -> dict:
    """Means over the rollouts (every turn's) of every rank; each part of the time split as long as its slowest rank
    took; with several turns, the per-turn metrics."""
    speedups = [r.speedup for r in rollouts if r.speedup is not None]
    n, code, plan, correct, speedup_sum, speedup_n, tokens, plan_tokens, classified = distributed.reduce(
        [
            len(rollouts),
            sum(r.r_code for r in rollouts),
            sum(r.r_plan for r in rollouts),
            sum(r.r_code > 0 for r in rollouts),
            sum(speedups),
            len(speedups),
            sum(len(r.response_ids) for r in rollouts),
            sum(r.classes.count(hrd.PLAN) for r in rollouts),
            sum(len(r.classes) for r in rollouts),
        ]
    )
    slowest = distributed.reduce(list(seconds.values()), "max")
    return {
        "step": step,
        "reward_code": code / n,
        "reward_plan": plan / n,
        "correct": correct / n,
        "mean_speedup": speedup_sum / speedup_n if speedup_n else None,
        "response_tokens": tokens / n,
        "plan_token_share": plan_tokens / max(classified, 1),
        **update,
        **{f"{name}_s": round(value, 2) for name, value in zip(seconds, slowest)},
        **(_turn_metrics(rollouts, turns) if turns > 1 else {}),
    }


def _save_model(policy, tokenizer, directory: Path) -> None:
    policy.save_pretrained(directory)
    tokenizer.save_pretrained(directory)


def _verifier_pool(config: Config, rank: Rank) -> VerifierPool:
    """This process's share of its host: every local_world-th GPU from its local rank (its own GPU when there
    is one process per GPU), or its share of the cores."""
    settings = VerifierSettings.from_config(config.verify)
    if settings.device == "cuda":
        return VerifierPool(settings, gpus=visible_gpus()[rank.local_rank :: rank.local_world])
    return VerifierPool(settings, workers=max(1, (os.cpu_count() or 1) // rank.local_world))


def train(
    config: Config,
    tasks: list[dict],
    model_source: str,
    output_dir: Path,
    on_log: Callable[[str], None],
    rank: Rank = Rank(),
) -> None:
    """`grpo.steps` steps of HRD-GRPO from `model_source` on `tasks`; rank 0 writes into `output_dir`."""
    g = config.grpo
    tokenizer = load_tokenizer(model_source)
    dtype = policy_dtype(g, rank.device)
    torch.manual_seed(g.seed + rank.rank)  # ranks sample different noise; their weights come from rank 0
    policy = load_model(model_source, dtype=dtype, device=rank.device)
    reference = (
        load_model(model_source, dtype=dtype, device=rank.device).eval().requires_grad_(False)
        if g.kl_coef > 0
        else None
    )
    for model in (policy, reference):
        if model is not None:
            distributed.broadcast_parameters(model)
    optimizer = make_optimizer(policy, g)
    scheduler = warmup(optimizer, g.warmup_updates)
    sampler = Sampler(config, policy, tokenizer)
    placement = rank.device if rank.world == 1 else f"{rank.world} processes ({distributed.backend()}, a replica each)"
    on_log(f"grpo: policy on {placement}, verifier on {config.verify.device}")

    rng = random.Random(g.seed)  # the same draw on every rank
    with _verifier_pool(config, rank) as pool, contextlib.closing(sampler):
        for step in range(1, g.steps + 1):
            chosen = rng.sample(tasks, min(g.tasks_per_step, len(tasks)))[rank.rank :: rank.world]
            rollouts, seconds = trajectories(sampler, pool, chosen, config)
            distributed.barrier()
            t0 = time.perf_counter()
            update = policy_update(policy, reference, optimizer, rollouts, config, tokenizer.pad_token_id, scheduler)
            seconds["update"] = time.perf_counter() - t0
            metrics = _step_metrics(step, rollouts, update, seconds, g.turns)
            if not rank.main:
                continue
            with (output_dir / HISTORY_FILE).open("a") as out:
                out.write(json.dumps(metrics) + "\n")
            on_log(
                f"grpo step {step}/{g.steps}: r_code {metrics['reward_code']:.2f} r_plan {metrics['reward_plan']:.2f} "
                f"correct {metrics['correct']:.0%} loss {metrics['loss']:+.4f} clip {metrics['clip_fraction']:.2f} "
                f"kl {metrics['kl']:.4f} grad {metrics['grad_norm']:.3f} len {metrics['response_tokens']:.0f} | generate {metrics['generate_s']}s "
                f"verify {metrics['verify_s']}s update {metrics['update_s']}s"
                + (_turns_line(metrics, g.turns) if g.turns > 1 else "")
            )
            if g.save_steps and step % g.save_steps == 0 and step < g.steps:
                _save_model(policy, tokenizer, output_dir / f"checkpoint-{step}")
    if rank.main:
        _save_model(policy, tokenizer, output_dir / MODEL_DIR)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spec", required=True, help="JSON spec written by tritonrl.stages.grpo.run")
    spec = json.loads(Path(parser.parse_args(argv).spec).read_text())
    rank = distributed.start()
    try:
        config, _ = load_config(config_file=spec["config_file"])
        tasks = json.loads(Path(spec["tasks_file"]).read_text())
        train(
            config,
            tasks,
            spec["model_source"],
            Path(spec["output_dir"]),
            (lambda line: print(line, flush=True)) if rank.main else (lambda line: None),
            rank,
        )
    finally:
        distributed.stop()


if __name__ == "__main__":
    main()
