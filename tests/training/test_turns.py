"""Multi-turn HRD-GRPO, checked by hand: discounted returns, advantages per turn position (group and TRLOO)."""

import pytest
import torch

from tritonrl.config import ConfigError, load_config
from tritonrl.training.grpo import hrd
from tritonrl.training.grpo import update as grpo_update
from tritonrl.training.grpo.rollout import Rollout
from tritonrl.training.models import load_model_and_tokenizer

from tests.support.grpo_inputs import RELU, make_rollout

CLASSES = [hrd.PLAN, hrd.CODE]  # one plan token, one code token


def turn(r_code: float, r_plan: float, previous: Rollout | None = None) -> Rollout:
    return Rollout(
        0, [1], [2, 3], "", CLASSES, r_code, r_plan, turn=previous.turn + 1 if previous else 1, previous=previous
    )


def config(*overrides: str):
    return load_config(
        "tiny", overrides=["grpo.normalize_std=false", "grpo.negative_weight=1", "grpo.alpha=0.1", *overrides]
    )[0]


def test_discounted_returns_by_hand():
    assert hrd.discounted_returns([0.0, 0.0, 1.0], 0.5) == [0.25, 0.5, 1.0]
    assert hrd.discounted_returns([1.0, 2.0], 0.0) == [1.0, 2.0]
    assert hrd.discounted_returns([0.7], 0.4) == [0.7]  # one turn: its reward, exactly


def two_by_two() -> list[Rollout]:
    """Trajectory A: wrong, then right and fast (r_plan 0.8); B: wrong twice. Both reach turn 2."""
    a1, b1 = turn(0.0, 0.0), turn(0.0, 0.0)
    return [a1, b1, turn(1.0, 0.8, a1), turn(0.0, 0.0, b1)]


def test_group_advantages_per_turn_position_of_discounted_returns():
    targets = grpo_update.group_targets(two_by_two(), config("grpo.turns=2", "grpo.turn_discount=0.5"))
    # code returns: A (0 + 0.5·1, 1), B (0, 0); turn 1 mean 0.25, turn 2 mean 0.5
    # plan returns: A (0.5·0.8, 0.8) = (0.4, 0.8), B (0, 0); turn 1 mean 0.2, turn 2 mean 0.4
    expected = [(0.25, 0.2), (-0.25, -0.2), (0.5, 0.4), (-0.5, -0.4)]
    for t, (a_code, a_plan) in zip(targets, expected):
        assert t.advantages == pytest.approx([a_plan, a_code]) and t.weights == pytest.approx([0.1, 1.0])


def test_trloo_baseline_is_the_other_trajectories_at_the_same_turn():
    targets = grpo_update.group_targets(
        two_by_two(), config("grpo.turns=2", "grpo.turn_discount=0.5", "grpo.leave_one_out=true")
    )
    # two trajectories: the baseline is the other one's return at that turn
    expected = [(0.5, 0.4), (-0.5, -0.4), (1.0, 0.8), (-1.0, -0.8)]
    for t, (a_code, a_plan) in zip(targets, expected):
        assert t.advantages == pytest.approx([a_plan, a_code])


def test_a_first_answer_right_outscores_one_fixed_later():
    """A is right at once and stops; B is wrong, then right: only B reaches turn 2, alone (no baseline: no push)."""
    a1, b1 = turn(1.0, 1.0), turn(0.0, 0.0)
    rollouts = [a1, b1, turn(1.0, 1.0, b1)]
    targets = grpo_update.group_targets(rollouts, config("grpo.turns=2"))  # default discount 0.4
    # turn 1 returns: A 1, B 0 + 0.4·1 = 0.4; mean 0.7
    assert targets[0].advantages == pytest.approx([0.3, 0.3]) and targets[1].advantages == pytest.approx([-0.3, -0.3])
    assert targets[2].advantages == [0.0, 0.0]
    loo = grpo_update.group_targets(rollouts, config("grpo.turns=2", "grpo.leave_one_out=true"))
    assert loo[0].advantages == pytest.approx([0.6, 0.6]) and loo[1].advantages == pytest.approx([-0.6, -0.6])


@pytest.mark.slow
def test_one_turn_is_single_turn_grpo_exactly(tritonrl_home):
    """With single-turn rollouts the advantages are hrd.group_advantages of the rewards, per task, bit for bit, and so
    is the loss of the update."""
    settings = config("grpo.normalize_std=true", "grpo.micro_batch=8")
    policy, tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)
    texts = (RELU.reference_response, "no idea", "```python\nx = 1\n```")
    rollouts = [make_rollout(tokenizer, task, text) for task in (0, 1) for text in texts]
    for k, r in enumerate(rollouts):
        r.r_code, r.r_plan = float(k % 2), 0.3 * k
    targets = grpo_update.group_targets(rollouts, settings)
    for task in (0, 1):
        group = rollouts[3 * task : 3 * task + 3]
        a_code = hrd.group_advantages(torch.tensor([r.r_code for r in group]), True, False)
        a_plan = hrd.group_advantages(torch.tensor([r.r_plan for r in group]), True, False)
        for k, r in enumerate(group):
            assert targets[3 * task + k] == hrd.token_targets(r.classes, float(a_code[k]), float(a_plan[k]), 0.1)
    with torch.no_grad():
        logps, mask = grpo_update.response_logps(policy, rollouts, tokenizer.pad_token_id)
    width = logps.shape[1]
    expected = hrd.clipped_objective(
        logps,
        logps,
        grpo_update._padded([t.advantages for t in targets], width, "cpu"),
        grpo_update._padded([t.weights for t in targets], width, "cpu"),
        mask,
        0.2,
    )
    optimizer = torch.optim.SGD(policy.parameters(), lr=0.0)
    stats = grpo_update.policy_update(policy, None, optimizer, rollouts, settings, tokenizer.pad_token_id)
    assert stats["loss"] == float(expected.loss) != 0


def test_turn_settings_are_checked():
    with pytest.raises(ConfigError, match=r"grpo.turns=0 must be >= 1.*grpo.turn_discount=1.5 must be in \[0, 1\]"):
        load_config("tiny", overrides=["grpo.turns=0", "grpo.turn_discount=1.5"])
