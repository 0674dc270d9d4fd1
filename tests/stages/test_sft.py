"""The SFT stage end to end on the tiny model: loss falls, the output is complete and loadable, bad input is refused."""

import json
from dataclasses import fields, replace

import pytest
import torch
from typer.testing import CliRunner

from tritonrl.artifacts.datasets_io import DatasetError, publish_dataset
from tritonrl.artifacts.store import MANIFEST_FILE, ArtifactStore
from tritonrl.cli import app
from tritonrl.config import SFTConfig, load_config
from tritonrl.problems import load_problems
from tritonrl.prompts import build_messages
from tritonrl.stages import sft
from tritonrl.training.models import load_model_and_tokenizer, resolve_model_source

# Short problems keep each step ~1 s on 2 cores; a high constant learning rate makes 8 steps visibly learn.
FAST = [
    "sft.max_steps=8",
    "sft.batch_size=2",
    "sft.learning_rate=0.005",
    "sft.warmup_ratio=0",
    "sft.lr_scheduler=constant",
    "sft.eval_steps=8",
    "sft.logging_steps=1",
    "sft.eval_fraction=0.25",
]


def _pairs(config, count=4, name="augment-pairs"):
    problems = load_problems("builtin")[:count]
    rows = [{"problem": p.name, "prompt": build_messages(p.source), "response": p.reference_response} for p in problems]
    return publish_dataset(ArtifactStore(), f"{config.artifact_root}/datasets", name, rows, {"stage": "test"}).uri


@pytest.mark.slow
def test_short_sft_lowers_the_loss_and_publishes_a_loadable_model(tritonrl_home, tmp_path):
    config, _ = load_config("tiny", overrides=[*FAST, "sft.save_steps=4"])
    lines = []
    out = tmp_path / "sft-out"
    result = sft.run(config, _pairs(config), str(out), on_log=lines.append)

    assert result.steps == 8 and result.world_size == 1
    assert (result.train_rows, result.eval_rows, result.dropped_rows) == (3, 1, 0)
    losses = [loss for _, loss in result.loss_curve]
    assert len(losses) == 8 and losses[-1] < losses[0] - 0.5, losses
    assert result.eval_curve[0][0] == 0 and result.eval_curve[-1][1] < result.eval_curve[0][1]
    assert any("step 8/8" in line for line in lines)  # progress streamed from the worker

    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert manifest["stage"] == "sft" and manifest["steps"] == 8 and manifest["bf16"] is False
    assert [c.rsplit("/", 1)[-1] for c in result.checkpoints] == ["checkpoint-4", "checkpoint-8"]
    assert not (out / "tokenized").exists()
    model, tokenizer = load_model_and_tokenizer(out.as_uri(), tritonrl_home)
    base, _ = load_model_and_tokenizer("tiny-local", tritonrl_home)
    assert tokenizer.chat_template and model.config.model_type == "qwen3"
    changed = [not torch.equal(a, b) for a, b in zip(model.state_dict().values(), base.state_dict().values())]
    assert all(changed)


@pytest.mark.slow
def test_two_cpu_processes_train_packed_rows_with_gloo(tritonrl_home, tmp_path):
    config, _ = load_config(
        "tiny", overrides=[*FAST, "sft.max_steps=4", "sft.batch_size=2", "sft.nproc_per_node=2", "sft.packing=true"]
    )
    lines = []
    result = sft.run(config, _pairs(config), str(tmp_path / "ddp"), on_log=lines.append)
    assert result.world_size == 2 and result.steps == 4
    assert json.loads((tmp_path / "ddp" / MANIFEST_FILE).read_text())["attn_implementation"] == "tritonrl_varlen"
    assert any("on 2 process(es)" in line for line in lines)
    assert result.loss_curve[-1][1] < result.loss_curve[0][1]
    assert resolve_model_source(str(tmp_path / "ddp"), tritonrl_home).endswith("ddp/model")


def test_missing_dataset_is_a_clear_error(tritonrl_home, tmp_path):
    config, _ = load_config("tiny")
    with pytest.raises(
        DatasetError, match="not a complete dataset .*; pass the pairs dataset the augment stage printed"
    ):
        sft.run(config, (tmp_path / "nowhere").as_uri())


def test_empty_dataset_is_a_clear_error(tritonrl_home):
    config, _ = load_config("tiny")
    empty = publish_dataset(ArtifactStore(), f"{config.artifact_root}/datasets", "augment-pairs", [], {"stage": "test"})
    with pytest.raises(DatasetError, match="has no rows"):
        sft.run(config, empty.uri)


def test_too_long_rows_and_wrong_columns_are_refused(tritonrl_home):
    config, _ = load_config("tiny", overrides=["sft.max_seq_len=50"])
    with pytest.raises(DatasetError, match="longer than sft.max_seq_len=50"):
        sft.run(config, _pairs(config, 2))
    wrong = publish_dataset(
        ArtifactStore(),
        f"{config.artifact_root}/datasets",
        "filter-rejected",
        [{"problem": "x", "reasons": ["bad"]}],
        {"stage": "test"},
    )
    with pytest.raises(DatasetError, match=r"lacks column\(s\) \['prompt', 'response'\]"):
        sft.run(config, wrong.uri)


@pytest.mark.slow
def test_a_failed_training_run_publishes_nothing(tritonrl_home, tmp_path):
    config, _ = load_config("tiny", overrides=[*FAST, "sft.lr_scheduler=no-such-scheduler"])
    out = tmp_path / "failed"
    with pytest.raises(sft.SFTError, match="training failed"):
        sft.run(config, _pairs(config, 2), str(out), on_log=lambda line: None)
    assert not (out / MANIFEST_FILE).exists()
    assert not (out / "model").exists()
    with pytest.raises(sft.SFTError, match="unfinished run"):  # never trains over the leftovers
        sft.run(config, _pairs(config, 2), str(out), on_log=lambda line: None)


def test_bad_launch_settings_are_refused_before_an_output_exists(tritonrl_home, tmp_path):
    config, _ = load_config("tiny", overrides=FAST)
    config = replace(config, sft=replace(config.sft, nnodes=2))  # as built by code; load_config refuses it
    out = tmp_path / "refused"
    with pytest.raises(sft.SFTError, match="sft.nnodes=2 needs sft.rdzv_endpoint"):
        sft.run(config, _pairs(config, 2), str(out), on_log=lambda line: None)
    assert not out.exists()  # so the corrected rerun may use the same output
    config, _ = load_config("tiny", overrides=["sft.nnodes=2", "sft.launcher=deepspeed"])
    assert config.sft.mistakes() == []  # the DeepSpeed launcher takes its nodes from its hostfile


def test_deepspeed_names_resolve_to_infra_configs():
    assert sft.deepspeed_config_path("") == ""
    for stage in (2, 3):
        path = sft.deepspeed_config_path(f"zero{stage}")
        assert json.loads(open(path).read())["zero_optimization"]["stage"] == stage
    with pytest.raises(sft.SFTError, match="no DeepSpeed config"):
        sft.deepspeed_config_path("zero9")


def test_cli_sft_help_explains_every_option_and_bad_input_exits_2(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["sft", "--help"])
    assert result.exit_code == 0
    for option in ("--input", "--out", "--profile", "--config", "--set"):
        assert option in result.output
    assert [key.name for key in fields(SFTConfig) if key.name not in result.output] == []  # every sft key explained
    result = runner.invoke(app, ["sft", "--input", (tmp_path / "nowhere").as_uri()])
    assert result.exit_code == 2 and "not a complete dataset" in result.output


@pytest.mark.slow
@pytest.mark.integration
def test_s3_output_gets_checkpoints_model_and_manifest_last(tritonrl_home, s3_endpoint, bucket):
    config, _ = load_config(
        "tiny", overrides=[*FAST, "sft.max_steps=2", "sft.save_steps=2", f"storage.s3_endpoint_url={s3_endpoint}"]
    )
    out = f"s3://{bucket}/runs/sft"
    result = sft.run(config, _pairs(config, 2), out, on_log=lambda line: None)
    keys = {uri[len(out) + 1 :] for uri in ArtifactStore(s3_endpoint).list(out)}
    assert {MANIFEST_FILE, "model/config.json", "model/tokenizer.json", "checkpoint-2/tritonrl-complete.json"} <= keys
    assert not any(k.startswith("tokenized/") for k in keys)
    assert result.checkpoints == [f"{out}/checkpoint-2"]
    local = resolve_model_source(out, tritonrl_home, s3_endpoint)
    model, tokenizer = load_model_and_tokenizer(local, tritonrl_home)
    assert model.config.model_type == "qwen3" and tokenizer.chat_template


def test_packed_batches_give_the_same_loss_as_padded_ones(tritonrl_home):
    """Packing must keep sequences apart: attention across the seam would change the loss.

    Packed rows go through sdpa (block mask) and through tritonrl_varlen (per-example attention), with the
    collator's sequence boundaries and with boundaries read off position_ids.
    """
    from tritonrl.training.models import encode_example, load_model
    from tritonrl.training.sft import packed_attention
    from tritonrl.training.sft.worker import collator

    packed_attention.register()
    tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)[1]
    source = resolve_model_source("tiny-local", tritonrl_home)
    problems = load_problems("builtin")[:2]
    features = [
        {"input_ids": e.input_ids, "labels": e.labels}
        for e in (encode_example(tokenizer, build_messages(p.source), p.reference_response) for p in problems)
    ]
    varlen = collator(tokenizer, True, packed_attention.NAME)(features)
    assert "cu_seq_lens_q" in varlen
    cases = [
        ("sdpa", collator(tokenizer, False, "sdpa")(features)),
        ("sdpa", collator(tokenizer, True, "sdpa")(features)),
        (packed_attention.NAME, varlen),
        (packed_attention.NAME, {k: v for k, v in varlen.items() if not k.startswith(("cu_seq", "max_length"))}),
    ]
    losses = []
    with torch.no_grad():
        for attention, batch in cases:
            model = load_model(source, attn_implementation=attention)
            # no KV cache, as in training (sft_worker sets use_cache=False): with one, packing goes undetected
            losses.append(
                model(
                    **{k: torch.as_tensor(v) if isinstance(v, list) else v for k, v in batch.items()}, use_cache=False
                ).loss
            )
    assert all(torch.allclose(losses[0], loss, atol=1e-4) for loss in losses[1:]), losses


def test_varlen_attention_refuses_padded_batches():
    from tritonrl.training.sft.packed_attention import varlen_attention

    q = torch.zeros(2, 4, 8, 16)
    with pytest.raises(ValueError, match="sft.packing=true"):
        varlen_attention(None, q, q, q, None)


def test_tokenized_examples_round_trip_with_loss_only_on_responses(tmp_path):
    from tritonrl.training.models import IGNORE_INDEX, Example
    from tritonrl.training.sft.token_store import TokenizedExamples, save_examples

    examples = [
        Example([5, 6, 7, 8], [IGNORE_INDEX, IGNORE_INDEX, 7, 8], 2),
        Example([9, 10, 11], [IGNORE_INDEX, 10, 11], 1),
    ]
    save_examples(examples, tmp_path / "train")
    data = TokenizedExamples(tmp_path / "train")
    assert len(data) == 2
    assert [data[i] for i in range(2)] == [{"input_ids": e.input_ids, "labels": e.labels} for e in examples]
    with pytest.raises(FileNotFoundError, match="save_examples"):
        TokenizedExamples(tmp_path)
