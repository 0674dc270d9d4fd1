"""The GRPO policy update: log-probabilities of the rollouts, HRD's per-token targets, clipped updates.

With several processes each holds its share of the rollouts; the update is
the one a single process would make on all of them (tritonrl/training/distributed.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import torch

from tritonrl.config import Config
from tritonrl.training import distributed
from tritonrl.training.grpo import hrd
from tritonrl.training.grpo.rollout import Rollout


def response_logps(
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


def _returns(rollouts: list[Rollout], reward: Callable[[Rollout], float], discount: float) -> list[float]:
    """Each rollout's return: its reward plus the discounted rewards of its trajectory's later turns."""
    following = {id(r.previous): r for r in rollouts if r.previous is not None}
    out = []
    for r in rollouts:
        chain = [r]
        while id(chain[-1]) in following:
            chain.append(following[id(chain[-1])])
        out.append(hrd.discounted_returns([reward(turn) for turn in chain], discount)[0])
    return out


def group_targets(rollouts: list[Rollout], config: Config) -> list[hrd.TokenTargets]:
    """Per-token advantages and weights of every rollout, from returns normalised within each task's group at each
    turn position (the trajectories that reached it; with one turn, the group); an empty response has none."""
    g = config.grpo
    code_returns = _returns(rollouts, lambda r: r.r_code, g.turn_discount)
    plan_returns = _returns(rollouts, lambda r: r.r_plan, g.turn_discount)
    by_position: dict[tuple[int, int], list[int]] = {}
    for index, r in enumerate(rollouts):
        if r.response_ids:
            by_position.setdefault((r.task, r.turn), []).append(index)
    targets = [hrd.TokenTargets([], []) for _ in rollouts]
    for members in by_position.values():
        code = torch.tensor([code_returns[i] for i in members])
        plan = torch.tensor([plan_returns[i] for i in members])
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
        raise ValueError(
            f"grpo.train_params={g.train_params!r} leaves no parameter to train; parameter names look like "
            f"{next(iter(dict(policy.named_parameters())))!r}"
        )
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
    every = group_targets(rollouts, config)  # returns need every turn, empty ones included
    usable = [r for r in rollouts if r.response_ids]
    targets = [t for r, t in zip(rollouts, every) if r.response_ids]
    signal = g.kl_coef != 0 or any(a for t in targets for a in t.advantages)
    signal, total_tokens, total_responses = distributed.reduce(
        [signal, sum(len(r.response_ids) for r in usable), len(usable)]
    )
    if not signal:
        return {
            "loss": 0.0,
            "clip_fraction": 0.0,
            "kl": 0.0,
            "grad_norm": 0.0,
        }  # every group's rewards are equal: no signal
    chunks = [list(range(i, min(i + g.micro_batch, len(usable)))) for i in range(0, len(usable), g.micro_batch)]
    temperature = g.temperature if g.temperature > 0 else 1.0  # greedy sampling: score at the plain logits
    with torch.no_grad():
        policy.eval()
        old = [response_logps(policy, [usable[i] for i in chunk], pad_id, temperature)[0] for chunk in chunks]
        ref = (
            [response_logps(reference, [usable[i] for i in chunk], pad_id, temperature)[0] for chunk in chunks]
            if reference
            else None
        )
    stats = {"loss": 0.0, "clip_fraction": 0.0, "kl": 0.0}
    grad_norm = 0.0  # before clipping, the same on every rank
    policy.train()
    for _ in range(g.updates_per_batch):
        optimizer.zero_grad(set_to_none=True)
        for c, chunk in enumerate(chunks):
            batch = [usable[i] for i in chunk]
            logps, mask = response_logps(policy, batch, pad_id, temperature)
            width = logps.shape[1]
            terms = hrd.clipped_objective(
                logps,
                old[c],
                _padded([targets[i].advantages for i in chunk], width, logps.device),
                _padded([targets[i].weights for i in chunk], width, logps.device),
                mask,
                g.clip_eps,
                ref[c] if ref else None,
                g.kl_coef,
                per_sequence=g.loss_norm == "sequence",
            )
            # chunks weigh by their tokens (one token-mean overall) or by their responses (one mean of responses)
            share = (
                len(chunk) / total_responses if g.loss_norm == "sequence" else float(mask.sum()) / max(total_tokens, 1)
            )
            (terms.loss * share).backward()
            stats["loss"] += float(terms.loss.detach()) * share / g.updates_per_batch
            stats["clip_fraction"] += terms.clip_fraction * share / g.updates_per_batch
            stats["kl"] += terms.kl * share / g.updates_per_batch
        distributed.sum_gradients(policy.parameters())
        grad_norm += float(torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)) / g.updates_per_batch
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
    return {
        **dict(zip(stats, distributed.reduce(list(stats.values())))),
        "grad_norm": grad_norm,
    }  # norm: of the summed gradients
