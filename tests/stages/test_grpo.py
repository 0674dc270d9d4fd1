"""The GRPO stage: the update moves the policy toward rewarded samples; the reward pipeline runs end to end."""

import json
from dataclasses import fields, replace

import pytest
import torch
from typer.testing import CliRunner

from tritonrl.artifacts.datasets_io import DatasetError, publish_dataset
from tritonrl.artifacts.store import MANIFEST_FILE, ArtifactStore
from tritonrl.cli import app
from tritonrl.config import ConfigError, GRPOConfig, load_config
from tritonrl.stages import grpo
from tritonrl.training.grpo import update as grpo_update
from tritonrl.training.grpo import worker as grpo_worker
from tritonrl.training.models import load_model_and_tokenizer, resolve_model_source

from tests.support.grpo_inputs import RELU, make_rollout, publish_tasks
from tests.support.openai_server import Reply, ScriptedServer, chat_body


@pytest.mark.slow
def test_an_update_raises_the_rewarded_sample_and_lowers_the_other(tritonrl_home):
    config, _ = load_config("tiny", overrides=["grpo.learning_rate=0.01", "grpo.updates_per_batch=3"])
    policy, tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)
    good = make_rollout(tokenizer, 0, RELU.reference_response)
    bad = make_rollout(tokenizer, 0, "I am not sure how to do this.")
    good.r_code = good.r_plan = 1.0
    with torch.no_grad():
        before = [grpo_update.response_logps(policy, [r], tokenizer.pad_token_id)[0].sum() for r in (good, bad)]
    optimizer = torch.optim.AdamW(policy.parameters(), lr=config.grpo.learning_rate)
    stats = grpo_update.policy_update(policy, None, optimizer, [good, bad], config, tokenizer.pad_token_id)
    with torch.no_grad():
        after = [grpo_update.response_logps(policy, [r], tokenizer.pad_token_id)[0].sum() for r in (good, bad)]
    assert after[0] > before[0] and after[1] < before[1]
    assert stats["clip_fraction"] > 0  # three updates on one batch move ratios past 1 ± ε


def test_negative_weight_zero_leaves_the_worse_sample_without_a_push(tritonrl_home):
    config, _ = load_config("tiny", overrides=["grpo.negative_weight=0"])
    _, tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)
    good = make_rollout(tokenizer, 0, RELU.reference_response)
    bad = make_rollout(tokenizer, 0, "I am not sure how to do this.")
    good.r_code = good.r_plan = 1.0
    good_targets, bad_targets = grpo_update.group_targets([good, bad], config)
    assert min(good_targets.advantages) > 0 and set(bad_targets.advantages) == {0.0}


def test_frozen_embeddings_stay_put_while_sgd_moves_the_rest(tritonrl_home):
    config, _ = load_config(
        "tiny",
        overrides=["grpo.learning_rate=1.0", "grpo.optimizer=sgd", r"grpo.train_params=^(?!model\.embed_tokens)"],
    )
    policy, tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)
    good = make_rollout(tokenizer, 0, RELU.reference_response)
    bad = make_rollout(tokenizer, 0, "I am not sure how to do this.")
    good.r_code = good.r_plan = 1.0
    optimizer = grpo_update.make_optimizer(policy, config.grpo)
    assert isinstance(optimizer, torch.optim.SGD)
    embeddings = policy.get_input_embeddings().weight.detach().clone()
    norm = policy.model.norm.weight.detach().clone()
    stats = grpo_update.policy_update(policy, None, optimizer, [good, bad], config, tokenizer.pad_token_id)
    assert torch.equal(policy.get_input_embeddings().weight, embeddings)
    assert stats["grad_norm"] > 0 and not torch.equal(policy.model.norm.weight, norm)


def test_train_params_limits_training_to_the_matching_parameters(tritonrl_home):
    policy, _ = load_model_and_tokenizer("tiny-local", tritonrl_home)
    config, _ = load_config("tiny", overrides=["grpo.train_params=norm"])
    optimizer = grpo_update.make_optimizer(policy, config.grpo)
    trained = {id(p) for group in optimizer.param_groups for p in group["params"]}
    names = [name for name, p in policy.named_parameters() if id(p) in trained]
    assert names and all("norm" in name for name in names)
    assert "model.norm.weight" in names and not any("mlp" in name for name in names)
    config, _ = load_config("tiny", overrides=["grpo.train_params=no_such_parameter"])
    with pytest.raises(ValueError, match="no_such_parameter.*leaves no parameter"):
        grpo_update.make_optimizer(policy, config.grpo)


def test_policy_weights_are_bfloat16_on_cuda_unless_float32_is_asked():
    config, _ = load_config("tiny")
    assert grpo_update.policy_dtype(config.grpo, "cuda:0") == torch.bfloat16
    assert grpo_update.policy_dtype(config.grpo, "cpu") == torch.float32
    config, _ = load_config("tiny", overrides=["grpo.dtype=float32"])
    assert grpo_update.policy_dtype(config.grpo, "cuda:1") == torch.float32


def test_warmup_raises_the_learning_rate_linearly_over_the_first_updates():
    weight = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.AdamW([weight], lr=1e-3)
    scheduler = grpo_update.warmup(optimizer, 4)
    rates = []
    for _ in range(6):
        rates.append(optimizer.param_groups[0]["lr"])
        weight.grad = torch.ones(1)
        optimizer.step()
        scheduler.step()
    assert rates == pytest.approx([2.5e-4, 5e-4, 7.5e-4, 1e-3, 1e-3, 1e-3])
    assert grpo_update.warmup(optimizer, 0) is None


def test_responses_are_scored_at_the_sampling_temperature(tritonrl_home):
    policy, tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)
    rollout = make_rollout(tokenizer, 0, RELU.reference_response)
    start, n = len(rollout.prompt_ids), len(rollout.response_ids)
    with torch.no_grad():
        logits = policy(input_ids=torch.tensor([rollout.prompt_ids + rollout.response_ids])).logits[0]
        scaled, mask = grpo_update.response_logps(policy, [rollout], tokenizer.pad_token_id, temperature=0.5)
    expected = (
        (logits[start - 1 : start - 1 + n] / 0.5)
        .log_softmax(-1)
        .gather(-1, torch.tensor(rollout.response_ids)[:, None])
    )
    assert mask.sum() == n
    assert torch.allclose(scaled[0], expected.squeeze(-1), atol=1e-4)


def _train_against(server: ScriptedServer, tmp_path, *overrides: str) -> tuple[grpo.GRPOResult, list[str]]:
    """GRPO of one task, groups of 2, on the CPU verifier, sampling from `server` (closed afterwards); the result and
    the stage's lines."""
    try:
        config, _ = load_config(
            "tiny",
            overrides=[
                "grpo.generation=openai",
                f"grpo.endpoint={server.endpoint}",
                "grpo.served_model=policy",
                "grpo.group_size=2",
                "grpo.tasks_per_step=1",
                "verify.trials=1",
                *overrides,
            ],
        )
        lines: list[str] = []
        result = grpo.run(
            config, publish_tasks(config), model="tiny-local", out_uri=str(tmp_path / "grpo"), on_log=lines.append
        )
    finally:
        server.close()
    return result, lines


@pytest.mark.slow
def test_grpo_end_to_end_with_verifier_rewards(tritonrl_home, tmp_path):
    """A policy server answers correctly every other time: half the group earns r_code = 1."""
    server = ScriptedServer(lambda i: Reply(body=chat_body(RELU.reference_response if i % 2 == 0 else "no idea")))
    result, lines = _train_against(server, tmp_path, "grpo.steps=2", "grpo.save_steps=1")
    assert result.steps == 2 and len(server.requests) == 4
    for step in result.history:
        assert step["reward_code"] == 0.5 and step["correct"] == 0.5
        assert step["reward_plan"] == 0.5  # CPU: r_plan falls back to r_code
        assert step["loss"] != 0 and 0 < step["plan_token_share"] < 1
        assert {"generate_s", "verify_s", "update_s", "kl", "clip_fraction", "response_tokens"} <= set(step)
    assert any("grpo step 2/2: r_code 0.50" in line for line in lines)
    out = tmp_path / "grpo"
    assert (out / "checkpoint-1" / "config.json").is_file()
    assert len((out / grpo_worker.HISTORY_FILE).read_text().splitlines()) == 2
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert manifest["stage"] == "grpo" and manifest["steps"] == 2
    model, _ = load_model_and_tokenizer(str(out), tritonrl_home)  # the output loads like any model
    assert resolve_model_source(out.as_uri(), tritonrl_home).endswith("model")


@pytest.mark.slow
def test_multi_turn_grpo_refines_with_feedback_and_logs_each_turn(tritonrl_home, tmp_path):
    """grpo.turns=2: one first answer is right and stops; the other is wrong, gets the feedback, and is fixed."""

    def refining(request) -> bool:
        return any(m["role"] == "assistant" for m in request.body["messages"])

    def script(i):
        first_answers = [r for r in server.requests[: i + 1] if not refining(r)]
        right = refining(server.requests[i]) or len(first_answers) == 1
        return Reply(body=chat_body(RELU.reference_response if right else "no idea"))

    server = ScriptedServer(script)
    result, lines = _train_against(server, tmp_path, "grpo.turns=2", "grpo.steps=1", "grpo.negative_weight=1")
    assert len(server.requests) == 3  # two first answers, one second turn
    second = server.requests[2].body["messages"]
    assert [m["role"] for m in second[-2:]] == ["assistant", "user"] and second[-2]["content"] == "no idea"
    step = result.history[0]
    assert step["turns.reached.1"] == 2 and step["turns.reached.2"] == 1
    assert step["turns.correct.1"] == 0.5 and step["turns.correct.2"] == 1.0
    assert step["turns.reward_code.1"] == 0.5 and step["turns.reward_code.2"] == 1.0
    assert step["loss"] != 0  # turn 1's returns differ: 1 against 0 + 0.4 · 1
    assert any("reached 2/1 correct@t 50%/100%" in line for line in lines)


def test_grpo_with_local_generation_runs_a_step(tritonrl_home, tmp_path):
    config, _ = load_config(
        "tiny", overrides=["grpo.steps=1", "grpo.group_size=2", "grpo.tasks_per_step=1", "grpo.max_new_tokens=8"]
    )
    result = grpo.run(config, publish_tasks(config), out_uri=str(tmp_path / "g"), on_log=lambda line: None)
    step = result.history[0]
    assert step["reward_code"] == 0.0 and step["response_tokens"] <= 8  # an untrained model writes no kernel
    assert step["loss"] == 0.0  # equal rewards: no advantage, no update signal


def test_local_generation_asks_every_wrong_answer_again(tritonrl_home, tmp_path):
    config, _ = load_config(
        "tiny",
        overrides=[
            "grpo.steps=1",
            "grpo.group_size=2",
            "grpo.tasks_per_step=1",
            "grpo.max_new_tokens=8",
            "grpo.turns=2",
        ],
    )
    step = grpo.run(config, publish_tasks(config), out_uri=str(tmp_path / "g"), on_log=lambda line: None).history[0]
    assert step["turns.reached.1"] == step["turns.reached.2"] == 2  # an untrained model writes no kernel
    assert step["turns.correct.2"] == 0.0 and step["turns.reward_code.2"] == 0.0


def test_bad_settings_and_inputs_are_refused(tritonrl_home, tmp_path):
    bad = ["grpo.group_size=1", "grpo.negative_weight=-1", "grpo.generation=openai"]
    with pytest.raises(ConfigError, match="group_size=1 must be >= 2"):
        load_config("tiny", overrides=bad)  # before any stage starts
    config, _ = load_config("tiny")
    config = replace(config, grpo=replace(config.grpo, group_size=1, negative_weight=-1.0, generation="openai"))
    with pytest.raises(
        grpo.GRPOError, match="group_size=1 must be >= 2.*negative_weight=-1.0 must be >= 0.*needs grpo.endpoint"
    ):
        grpo.run(config, "unused", on_log=lambda line: None)
    config, _ = load_config("tiny")
    empty = publish_dataset(ArtifactStore(), f"{config.artifact_root}/datasets", "augment-tasks", [], {"stage": "t"})
    with pytest.raises(DatasetError, match="has no tasks"):
        grpo.run(config, empty.uri, on_log=lambda line: None)
    result = CliRunner().invoke(app, ["grpo", "--tasks", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "missing" in result.output


def test_grpo_help_explains_the_options():
    result = CliRunner().invoke(app, ["grpo", "--help"])
    assert result.exit_code == 0
    for option in (
        "--tasks",
        "--model",
        "--out",
        "--set",
        "--profile",
        "grpo.nproc_per_node",
        "grpo.nnodes",
        "grpo.rdzv_endpoint",
    ):
        assert option in result.output
    assert [key.name for key in fields(GRPOConfig) if key.name not in result.output] == []  # every grpo key explained
