"""One GRPO training process: sample rollouts, reward them with the verifier, update the policy.

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
(what `tritonrl grpo --set grpo.nproc_per_node=N` launches). Test: tests/test_grpo.py,
tests/test_grpo_distributed.py.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch

from tritonrl.config import Config, load_config
from tritonrl.problems import Problem
from tritonrl.prompts import build_messages
from tritonrl.training import distributed
from tritonrl.training.distributed import Rank
from tritonrl.training.grpo import hrd
from tritonrl.training.models import MODEL_DIR, encode_example, generate, load_model, load_tokenizer
from tritonrl.verify.pool import Task, VerifierPool, visible_gpus
from tritonrl.verify.verifier import VerifierSettings

HISTORY_FILE = "history.jsonl"


@dataclass
class Rollout:
    """One sampled response with what the update needs."""

    task: int
    prompt_ids: list[int]
    response_ids: list[int]
    text: str
    classes: list[int]
    r_code: float = 0.0
    r_plan: float = 0.0
    speedup: float | None = None


class _Sampler:
    """Draws G responses per task from the policy, in one batched generate (or from a policy server)."""

    def __init__(self, config: Config, policy, tokenizer) -> None:
        self.config, self.policy, self.tokenizer = config, policy, tokenizer
        self.server = None
        if config.grpo.generation == "openai":
            from tritonrl.generation import OpenAITeacher

            self.server = OpenAITeacher(config.grpo.endpoint, config.grpo.served_model)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()

    def __call__(self, tasks: list[dict]) -> list[Rollout]:
        g = self.config.grpo
        prompts = [build_messages(task["problem_source"]) for task in tasks]
        if self.server is None:
            self.policy.eval()
            generations = generate(
                self.policy, self.tokenizer, prompts, g.max_new_tokens, g.temperature, g.group_size, g.top_p
            )
            return [
                Rollout(i // g.group_size, gen.prompt_ids, gen.response_ids, gen.text,
                        hrd.token_classes(self.tokenizer, gen.response_ids, gen.text))
                for i, gen in enumerate(generations)
            ]
        rollouts = []
        for index, (task, messages) in enumerate(zip(tasks, prompts)):
            problem = Problem(task["problem"], task["problem_source"], origin="grpo tasks")
            for completion in self.server.generate(problem, messages, g.group_size, g.temperature, g.max_new_tokens):
                text = completion.text or ""
                example = encode_example(self.tokenizer, messages, text)
                prompt, response = example.input_ids[: example.prompt_tokens], example.input_ids[example.prompt_tokens:]
                rollouts.append(Rollout(index, prompt, response, text, hrd.token_classes(self.tokenizer, response, text)))
        return rollouts


def _response_logps(
    model, rollouts: list[Rollout], pad_id: int, temperature: float = 1.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """Log-probabilities of each rollout's response tokens under `model` at `temperature`: ([B, R], mask [B, R]).

    The update scores the responses under the distribution they were sampled
    from (logits / grpo.temperature), so the ratio, its clipping and the KL
    are about the sampling policy.
    """
    device = next(model.parameters()).device
    width = max(len(r.prompt_ids) + len(r.response_ids) for r in rollouts)
    longest = max(len(r.response_ids) for r in rollouts)
    ids = torch.full((len(rollouts), width), pad_id, dtype=torch.long)
    attention = torch.zeros((len(rollouts), width), dtype=torch.long)
    for row, r in enumerate(rollouts):
        sequence = r.prompt_ids + r.response_ids
        ids[row, : len(sequence)] = torch.tensor(sequence)
        attention[row, : len(sequence)] = 1
    logits = model(input_ids=ids.to(device), attention_mask=attention.to(device), use_cache=False).logits
    logps = torch.zeros((len(rollouts), longest), device=device)
    mask = torch.zeros((len(rollouts), longest), device=device)
    for row, r in enumerate(rollouts):
        start, n = len(r.prompt_ids), len(r.response_ids)
        predicted = (logits[row, start - 1 : start - 1 + n].float() / temperature).log_softmax(-1)
        targets = torch.tensor(r.response_ids, device=device).unsqueeze(-1)
        logps[row, :n] = predicted.gather(-1, targets).squeeze(-1)
        mask[row, :n] = 1
    return logps, mask


def _targets(rollouts: list[Rollout], config: Config) -> list[hrd.TokenTargets]:
    """Per-token advantages and weights, advantages computed within each task's group."""
    g = config.grpo
    by_task: dict[int, list[int]] = {}
    for index, r in enumerate(rollouts):
        by_task.setdefault(r.task, []).append(index)
    targets: list[hrd.TokenTargets | None] = [None] * len(rollouts)
    for members in by_task.values():
        code = torch.tensor([rollouts[i].r_code for i in members])
        plan = torch.tensor([rollouts[i].r_plan for i in members])
        if g.uniform_reward:
            uniform = hrd.group_advantages(
                g.beta * code + (1 - g.beta) * plan, g.normalize_std, g.leave_one_out, g.negative_weight
            )
            for k, i in enumerate(members):
                targets[i] = hrd.token_targets(rollouts[i].classes, 0.0, 0.0, g.alpha, uniform=float(uniform[k]))
            continue
        a_code = hrd.group_advantages(code, g.normalize_std, g.leave_one_out, g.negative_weight)
        a_plan = hrd.group_advantages(plan, g.normalize_std, g.leave_one_out, g.negative_weight)
        for k, i in enumerate(members):
            targets[i] = hrd.token_targets(rollouts[i].classes, float(a_code[k]), float(a_plan[k]), g.alpha)
    return targets


def _padded(values: list[list[float]], width: int, device) -> torch.Tensor:
    out = torch.zeros((len(values), width), device=device)
    for row, v in enumerate(values):
        out[row, : len(v)] = torch.tensor(v, device=device)
    return out


def policy_dtype(g, device: str) -> torch.dtype:
    """grpo.dtype; auto trains bfloat16 weights on CUDA (memory) and float32 on CPU. float32 on CUDA keeps
    updates far smaller than a weight (bfloat16 rounds away changes below ~0.4% of it)."""
    if g.dtype == "auto":
        return torch.bfloat16 if device.startswith("cuda") else torch.float32
    return getattr(torch, g.dtype)


def make_optimizer(policy, g) -> torch.optim.Optimizer:
    """AdamW (default) steps every parameter by about the learning rate whatever its gradient's size; plain
    SGD steps each by its gradient. `grpo.train_params` (a regex over parameter names) trains only the
    matches: e.g. the norms' few thousand gains, or everything but the token embeddings (and so a tied
    output layer)."""
    if g.train_params:
        chosen = re.compile(g.train_params)
        for name, parameter in policy.named_parameters():
            parameter.requires_grad_(bool(chosen.search(name)))
    trained = [p for p in policy.parameters() if p.requires_grad]
    if not trained:
        raise ValueError(f"grpo.train_params={g.train_params!r} leaves no parameter to train; parameter names look like "
                         f"{next(iter(dict(policy.named_parameters())))!r}")
    if g.optimizer == "sgd":
        return torch.optim.SGD(trained, lr=g.learning_rate)
    return torch.optim.AdamW(trained, lr=g.learning_rate, weight_decay=0.0)


def warmup(optimizer, updates: int):
    """Linear learning-rate warm-up over the first `updates` optimizer updates (AdamW's first updates are
    its largest relative to the signal); None when `updates` is 0."""
    if updates <= 0:
        return None
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda done: min(1.0, (done + 1) / updates))


def policy_update(
    policy, reference, optimizer, rollouts: list[Rollout], config: Config, pad_id: int, scheduler=None
) -> dict:
    """`updates_per_batch` clipped-objective updates over the rollouts; returns loss, clip fraction, KL.

    With several processes the rollouts are this rank's share: the loss is normalised by the token (or
    response) count of all ranks and the gradients are summed over them, so the update is the one a single
    process makes on all the rollouts. `scheduler` (the warm-up) advances with every optimizer update; a batch
    without signal on any rank makes none.
    """
    g = config.grpo
    usable = [r for r in rollouts if r.response_ids]
    targets = _targets(usable, config)
    signal = g.kl_coef != 0 or any(a for t in targets for a in t.advantages)
    signal, total_tokens, total_responses = distributed.reduce(
        [signal, sum(len(r.response_ids) for r in usable), len(usable)]
    )
    if not signal:
        return {"loss": 0.0, "clip_fraction": 0.0, "kl": 0.0, "grad_norm": 0.0}  # every group's rewards are equal: no signal
    chunks = [list(range(i, min(i + g.micro_batch, len(usable)))) for i in range(0, len(usable), g.micro_batch)]
    temperature = g.temperature if g.temperature > 0 else 1.0  # greedy sampling: score at the plain logits
    with torch.no_grad():
        policy.eval()
        old = [_response_logps(policy, [usable[i] for i in chunk], pad_id, temperature)[0] for chunk in chunks]
        ref = ([_response_logps(reference, [usable[i] for i in chunk], pad_id, temperature)[0] for chunk in chunks]
               if reference else None)
    stats = {"loss": 0.0, "clip_fraction": 0.0, "kl": 0.0}
    grad_norm = 0.0  # before clipping, the same on every rank
    policy.train()
    for _ in range(g.updates_per_batch):
        optimizer.zero_grad(set_to_none=True)
        for c, chunk in enumerate(chunks):
            batch = [usable[i] for i in chunk]
            logps, mask = _response_logps(policy, batch, pad_id, temperature)
            width = logps.shape[1]
            terms = hrd.clipped_objective(
                logps, old[c], _padded([targets[i].advantages for i in chunk], width, logps.device),
                _padded([targets[i].weights for i in chunk], width, logps.device), mask, g.clip_eps,
                ref[c] if ref else None, g.kl_coef, per_sequence=g.loss_norm == "sequence",
            )
            # chunks weigh by their tokens (one token-mean overall) or by their responses (one mean of responses)
            share = len(chunk) / total_responses if g.loss_norm == "sequence" else float(mask.sum()) / max(total_tokens, 1)
            (terms.loss * share).backward()
            stats["loss"] += float(terms.loss.detach()) * share / g.updates_per_batch
            stats["clip_fraction"] += terms.clip_fraction * share / g.updates_per_batch
            stats["kl"] += terms.kl * share / g.updates_per_batch
        distributed.sum_gradients(policy.parameters())
        grad_norm += float(torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)) / g.updates_per_batch
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
    return {**dict(zip(stats, distributed.reduce(list(stats.values())))), "grad_norm": grad_norm}  # norm: of the summed gradients


def _reward(pool: VerifierPool, chosen: list[dict], rollouts: list[Rollout], config: Config) -> None:
    """Every rollout's (r_code, r_plan) from one verifier-pool batch over this rank's tasks."""
    verdicts = pool.verify_tasks(
        Task(f"{i}:{task['problem']}", task["problem_source"], [r.text for r in rollouts if r.task == i])
        for i, task in enumerate(chosen)
    )
    for i, task in enumerate(chosen):
        group = [r for r in rollouts if r.task == i]
        for rollout, verdict in zip(group, verdicts[f"{i}:{task['problem']}"]):
            rollout.r_code, rollout.r_plan = hrd.rewards(verdict, config.verify.device, config.grpo.speedup_cap)
            rollout.speedup = verdict.speedup if verdict.correct else None


def _step_metrics(step: int, rollouts: list[Rollout], update: dict, seconds: dict[str, float]) -> dict:
    """Means over the rollouts of every rank; each part of the time split as long as its slowest rank took."""
    speedups = [r.speedup for r in rollouts if r.speedup is not None]
    n, code, plan, correct, speedup_sum, speedup_n, tokens, plan_tokens, classified = distributed.reduce([
        len(rollouts), sum(r.r_code for r in rollouts), sum(r.r_plan for r in rollouts),
        sum(r.r_code > 0 for r in rollouts), sum(speedups), len(speedups), sum(len(r.response_ids) for r in rollouts),
        sum(r.classes.count(hrd.PLAN) for r in rollouts), sum(len(r.classes) for r in rollouts),
    ])
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
    config: Config, tasks: list[dict], model_source: str, output_dir: Path, on_log: Callable[[str], None],
    rank: Rank = Rank(),
) -> None:
    """`grpo.steps` steps of HRD-GRPO from `model_source` on `tasks`; rank 0 writes into `output_dir`."""
    g = config.grpo
    tokenizer = load_tokenizer(model_source)
    dtype = policy_dtype(g, rank.device)
    torch.manual_seed(g.seed + rank.rank)  # ranks sample different noise; their weights come from rank 0
    policy = load_model(model_source, dtype=dtype, device=rank.device)
    reference = (load_model(model_source, dtype=dtype, device=rank.device).eval().requires_grad_(False)
                 if g.kl_coef > 0 else None)
    for model in (policy, reference):
        if model is not None:
            distributed.broadcast_parameters(model)
    optimizer = make_optimizer(policy, g)
    scheduler = warmup(optimizer, g.warmup_updates)
    sampler = _Sampler(config, policy, tokenizer)
    placement = rank.device if rank.world == 1 else f"{rank.world} processes ({distributed.backend()}, a replica each)"
    on_log(f"grpo: policy on {placement}, verifier on {config.verify.device}")

    rng = random.Random(g.seed)  # the same draw on every rank
    with _verifier_pool(config, rank) as pool, contextlib.closing(sampler):
        for step in range(1, g.steps + 1):
            chosen = rng.sample(tasks, min(g.tasks_per_step, len(tasks)))[rank.rank :: rank.world]
            t0 = time.perf_counter()
            rollouts = sampler(chosen)
            t1 = time.perf_counter()
            _reward(pool, chosen, rollouts, config)
            t2 = time.perf_counter()
            distributed.barrier()
            t3 = time.perf_counter()
            update = policy_update(policy, reference, optimizer, rollouts, config, tokenizer.pad_token_id, scheduler)
            t4 = time.perf_counter()
            metrics = _step_metrics(step, rollouts, update, {"generate": t1 - t0, "verify": t2 - t1, "update": t4 - t3})
            if not rank.main:
                continue
            with (output_dir / HISTORY_FILE).open("a") as out:
                out.write(json.dumps(metrics) + "\n")
            on_log(
                f"grpo step {step}/{g.steps}: r_code {metrics['reward_code']:.2f} r_plan {metrics['reward_plan']:.2f} "
                f"correct {metrics['correct']:.0%} loss {metrics['loss']:+.4f} clip {metrics['clip_fraction']:.2f} "
                f"kl {metrics['kl']:.4f} grad {metrics['grad_norm']:.3f} len {metrics['response_tokens']:.0f} | generate {metrics['generate_s']}s "
                f"verify {metrics['verify_s']}s update {metrics['update_s']}s"
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
        train(config, tasks, spec["model_source"], Path(spec["output_dir"]),
              (lambda line: print(line, flush=True)) if rank.main else (lambda line: None), rank)
    finally:
        distributed.stop()


if __name__ == "__main__":
    main()
