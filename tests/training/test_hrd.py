"""HRD-GRPO mathematics, checked by hand: advantages per class, token classes, the clipped objective."""

import pytest
import torch

from tritonrl.problems.loaders import load_builtin
from tritonrl.training.grpo import hrd
from tritonrl.training.models import load_tokenizer, resolve_model_source
from tritonrl.verify.response import parse_response
from tritonrl.verify.result import Reason, ReasonCode, Verdict


def test_group_advantages_mean_baseline_and_std():
    r = torch.tensor([1.0, 0.0, 0.0, 1.0])
    assert hrd.group_advantages(r, normalize_std=False, leave_one_out=False).tolist() == [0.5, -0.5, -0.5, 0.5]
    # std of {1,0,0,1} is 0.5: advantages become ±1
    assert hrd.group_advantages(r, True, False) == pytest.approx(torch.tensor([1.0, -1.0, -1.0, 1.0]), abs=1e-5)


def test_negative_weight_scales_only_negative_advantages():
    r = torch.tensor([1.0, 0.0, 0.0, 1.0])
    assert hrd.group_advantages(r, False, False, negative_weight=0.25).tolist() == [0.5, -0.125, -0.125, 0.5]
    assert hrd.group_advantages(r, False, False, negative_weight=0.0).tolist() == [0.5, 0.0, 0.0, 0.5]


def test_leave_one_out_baseline_is_the_mean_of_the_others():
    r = torch.tensor([3.0, 0.0, 0.0])
    # sample 0: 3 - mean(0, 0) = 3; sample 1: 0 - mean(3, 0) = -1.5
    assert hrd.group_advantages(r, False, True).tolist() == [3.0, -1.5, -1.5]


def test_a_group_with_equal_rewards_teaches_nothing():
    for normalize in (True, False):
        assert hrd.group_advantages(torch.ones(4), normalize, False).abs().max() == 0


def test_rewards_code_and_plan():
    correct = Verdict(ran=True, matches_reference=True, speedup=2.5, sol_fraction=0.4)
    wrong = Verdict(ran=True, reasons=[Reason(ReasonCode.WRONG_RESULT, "x")], speedup=2.5, sol_fraction=0.4)
    assert hrd.rewards(correct, "cuda", 10, "speedup") == (1.0, 2.5)
    assert hrd.rewards(correct, "cuda", 2, "speedup") == (1.0, 2.0)
    assert hrd.rewards(wrong, "cuda", 10, "speedup") == (0.0, 0.0)
    assert hrd.rewards(correct, "cpu", 10, "speedup") == (1.0, 1.0)  # no timing on CPU: r_plan falls back to r_code
    assert hrd.rewards(wrong, "cpu", 10, "speedup") == (0.0, 0.0)


def test_the_plan_reward_can_be_the_share_of_the_speed_of_light():
    correct = Verdict(ran=True, matches_reference=True, speedup=26.0, sol_fraction=0.4)
    assert hrd.rewards(correct, "cuda", 10, "sol_fraction") == (1.0, 0.4)  # not the capped 26x
    loose = Verdict(ran=True, matches_reference=True, speedup=3.0, sol_fraction=2.4)  # e.g. skips a triangle's zeros
    assert hrd.rewards(loose, "cuda", 10, "sol_fraction") == (1.0, 1.0)
    wrong = Verdict(ran=True, reasons=[Reason(ReasonCode.WRONG_RESULT, "x")], sol_fraction=0.9)
    assert hrd.rewards(wrong, "cuda", 10, "sol_fraction") == (0.0, 0.0)
    unmeasured = Verdict(ran=True, matches_reference=True, speedup=2.0)  # no bound for this problem
    assert hrd.rewards(unmeasured, "cuda", 10, "sol_fraction") == (1.0, 0.0)
    assert hrd.rewards(unmeasured, "cpu", 10, "sol_fraction") == (1.0, 1.0)


def test_token_targets_hrd_and_uniform():
    classes = [hrd.PLAN, hrd.PLAN, hrd.CODE]
    t = hrd.token_targets(classes, a_code=1.0, a_plan=-2.0, alpha=0.1)
    assert t.advantages == [-2.0, -2.0, 1.0] and t.weights == [0.1, 0.1, 1.0]
    u = hrd.token_targets(classes, 1.0, -2.0, 0.1, uniform=0.5)
    assert u.advantages == [0.5, 0.5, 0.5] and u.weights == [1.0, 1.0, 1.0]


def test_clipped_objective_by_hand():
    logps = torch.log(torch.tensor([[0.5, 0.5, 0.5]]))
    old = torch.log(torch.tensor([[0.5, 0.25, 0.5]]))  # ratios 1, 2, 1
    adv = torch.tensor([[1.0, 1.0, -1.0]])
    weights = torch.tensor([[1.0, 1.0, 0.1]])
    mask = torch.tensor([[1.0, 1.0, 0.0]])  # the third token is padding
    terms = hrd.clipped_objective(logps, old, adv, weights, mask, clip_eps=0.2)
    # token 1: min(1·1, 1·1) = 1; token 2: min(2·1, 1.2·1) = 1.2 (clipped); loss = -(1 + 1.2) / 2
    assert float(terms.loss) == pytest.approx(-1.1)
    assert terms.clip_fraction == pytest.approx(0.5)
    same = hrd.clipped_objective(logps, logps, adv, weights, mask, 0.2, ref_logps=logps, kl_coef=1.0)
    assert same.kl == pytest.approx(0.0)


def test_per_sequence_loss_weighs_every_response_the_same():
    logps = old = torch.zeros((2, 3))  # ratios 1
    adv = torch.tensor([[1.0, 1.0, 1.0], [-1.0, 0.0, 0.0]])  # a group: +1 on a 3-token response, -1 on a 1-token one
    weights, mask = torch.ones((2, 3)), torch.tensor([[1.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
    token = hrd.clipped_objective(logps, old, adv, weights, mask, 0.2)
    sequence = hrd.clipped_objective(logps, old, adv, weights, mask, 0.2, per_sequence=True)
    assert float(token.loss) == pytest.approx(-(3 - 1) / 4)  # the longer response outweighs the other
    assert float(sequence.loss) == pytest.approx(-(3 / 3 - 1 / 1) / 2)  # = 0: the advantages cancel


def test_token_classes_split_a_real_response_at_its_code_block(tritonrl_home):
    tokenizer = load_tokenizer(resolve_model_source("tiny-local", tritonrl_home))
    text = load_builtin()[0].reference_response
    ids = tokenizer(text, add_special_tokens=False)["input_ids"] + [tokenizer.eos_token_id]
    classes = hrd.token_classes(tokenizer, ids, text)
    parsed = parse_response(text)
    code_text = tokenizer.decode([i for i, c in zip(ids, classes) if c == hrd.CODE], skip_special_tokens=True)
    plan_text = tokenizer.decode([i for i, c in zip(ids, classes) if c == hrd.PLAN], skip_special_tokens=True)
    assert code_text.strip() == parsed.code.strip()
    assert parsed.plan in plan_text and "```python" in plan_text
    assert classes[-1] == hrd.CODE  # the stop token ends the code
    assert hrd.token_classes(tokenizer, ids[:5], "no code here") == [hrd.PLAN] * 5
