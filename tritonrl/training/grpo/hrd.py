"""The HRD-GRPO mathematics: token classes, group-relative advantages per class, the clipped objective.

TritonRL's hierarchical reward decomposition: a response is a plan
(reasoning) followed by code. The code tokens are credited with `r_code`
(the kernel is valid and correct) and the plan tokens with `r_plan` (how
fast the correct kernel is), each through its own group-relative
advantage; the objective is α·J_plan + J_code. The uniform-reward ablation
gives every token one reward β·r_code + (1−β)·r_plan. Everything here is
plain tensor code so it can be checked by hand (tests/training/test_hrd.py).

How fast (`grpo.plan_reward`): `speedup` is the eager-PyTorch time over
the kernel's, capped; `sol_fraction` is the share of the GPU's speed of
light the kernel reaches (tritonrl/verify/speed_of_light.py), capped at 1.
A speed-up measures the baseline as much as the kernel: an honest LayerNorm
ran 26× faster than eager PyTorch on the H200 while an honest matmul rarely
beats cuBLAS, so a capped speed-up pays most for problems whose eager
version is slow and saturates there, and says nothing of how much faster a
kernel could still get. sol_fraction is held against the hardware, the same
scale for every problem, and rises until the kernel is as fast as the GPU
allows. (Above 1 only where the bound is loose, e.g. a kernel that skips a
triangular input's zeros: more is not better there, hence the cap.)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from tritonrl.verify.response import parse_response
from tritonrl.verify.result import Verdict

PLAN, CODE = 0, 1  # token classes


def rewards(verdict: Verdict, device: str, speedup_cap: float, plan_reward: str) -> tuple[float, float]:
    """(r_code, r_plan) for one sample.

    r_code = valid ∧ correct. r_plan = how fast a correct kernel is:
    min(speed-up, speedup_cap), or min(sol_fraction, 1) (`plan_reward`), 0
    when incorrect or not measured; on CPU, where timing means nothing,
    r_plan falls back to r_code.
    """
    r_code = 1.0 if verdict.correct else 0.0
    if device != "cuda":
        return r_code, r_code
    fast, cap = (verdict.sol_fraction, 1.0) if plan_reward == "sol_fraction" else (verdict.speedup, speedup_cap)
    if not verdict.correct or fast is None:
        return r_code, 0.0
    return r_code, min(float(fast), cap)


def token_classes(tokenizer, response_ids: list[int], text: str) -> list[int]:
    """CODE for tokens inside the response's final Python block, PLAN for the rest.

    A token's position is the length of the decoded prefix before it (the
    same decoding that produced `text`), so the split follows what the
    parser saw. Positions grow with the prefix, so the class boundaries are
    found by binary search: a few dozen decodes, not one per token. A stop
    token after the text belongs to the code when there is code: ending the
    answer is part of writing it.
    """
    parsed = parse_response(text)
    if parsed.code is None:
        return [PLAN] * len(response_ids)

    def first_at(offset: int) -> int:
        """The first token index whose decoded prefix reaches `offset` characters."""
        low, high = 0, len(response_ids)
        while low < high:
            middle = (low + high) // 2
            if len(tokenizer.decode(response_ids[:middle], skip_special_tokens=True)) >= offset:
                high = middle
            else:
                low = middle + 1
        return low

    code_from, code_to, text_end = first_at(parsed.code_start), first_at(parsed.code_end), first_at(len(text))
    return [CODE if code_from <= i < code_to or i >= text_end else PLAN for i in range(len(response_ids))]


def group_advantages(
    group_rewards: torch.Tensor, normalize_std: bool, leave_one_out: bool, negative_weight: float = 1.0
) -> torch.Tensor:
    """A = r − baseline for one group; baseline = group mean, or the mean of the other samples.

    Divided by the group's reward std when asked (a group whose rewards are
    all equal has zero advantage either way). Negative advantages are scaled
    by `negative_weight`: 1 is GRPO; below 1 the update leans on raising the
    better samples rather than pushing down the worse ones.
    """
    r = group_rewards.float()
    g = r.numel()
    baseline = (r.sum() - r) / (g - 1) if leave_one_out and g > 1 else r.mean().expand_as(r)
    advantages = r - baseline
    if normalize_std:
        advantages = advantages / (r.std(unbiased=False) + 1e-6)
    return torch.where(advantages < 0, advantages * negative_weight, advantages)


def discounted_returns(turn_rewards: list[float], discount: float) -> list[float]:
    """G_t = r_t + γ·r_(t+1) + γ²·… over the turns one trajectory had, in turn order.

    Summed from the last turn back, so a lone turn's return is its reward
    exactly (single-turn GRPO, bit for bit).
    """
    out, later = [], None
    for r in reversed(turn_rewards):
        later = r if later is None else r + discount * later
        out.append(later)
    return out[::-1]


@dataclass(frozen=True)
class TokenTargets:
    """Per-token advantage and objective weight for one sequence's response tokens."""

    advantages: list[float]
    weights: list[float]


def token_targets(
    classes: list[int], a_code: float, a_plan: float, alpha: float, uniform: float | None = None
) -> TokenTargets:
    """HRD: code tokens get A_code with weight 1, plan tokens A_plan with weight α; uniform: one A, weight 1."""
    if uniform is not None:
        return TokenTargets([uniform] * len(classes), [1.0] * len(classes))
    return TokenTargets(
        [a_code if c == CODE else a_plan for c in classes],
        [1.0 if c == CODE else alpha for c in classes],
    )


@dataclass(frozen=True)
class LossTerms:
    loss: torch.Tensor
    clip_fraction: float
    kl: float


def clipped_objective(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    weights: torch.Tensor,
    mask: torch.Tensor,
    clip_eps: float,
    ref_logps: torch.Tensor | None = None,
    kl_coef: float = 0.0,
    per_sequence: bool = False,
) -> LossTerms:
    """−Σ w·min(ρA, clip(ρ)A) / Σ mask, plus kl_coef × the k3 KL estimate to the reference model.

    All tensors are [batch, response tokens]; `mask` is 1 on real response
    tokens. Token-mean normalisation over the whole batch: long and short
    responses weigh by their tokens. `per_sequence`: each response's token
    mean, then the mean over responses (the original GRPO loss), so every
    response weighs the same and a group's advantages, which sum to zero,
    cancel on the tokens its responses share whatever their lengths.
    """
    mask = mask.float()
    tokens = mask.sum().clamp(min=1.0)

    def mean(values: torch.Tensor) -> torch.Tensor:
        if per_sequence:
            return ((values * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).mean()
        return (values * mask).sum() / tokens

    ratio = torch.exp(logps - old_logps)
    surrogate = torch.minimum(ratio * advantages, torch.clamp(ratio, 1 - clip_eps, 1 + clip_eps) * advantages)
    loss = -mean(weights * surrogate)
    kl_value = 0.0
    if ref_logps is not None and kl_coef > 0:
        log_ratio = ref_logps - logps
        kl = mean(torch.exp(log_ratio) - log_ratio - 1)
        loss = loss + kl_coef * kl
        kl_value = float(kl.detach())
    clipped = ((ratio - 1).abs() > clip_eps).float() * mask
    return LossTerms(loss, float((clipped.sum() / tokens).detach()), kl_value)
