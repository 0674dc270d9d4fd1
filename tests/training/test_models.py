"""The tiny-local model and tokenizer, the loading path, and prompt/response encoding."""

import json

import pytest
import torch

from tritonrl.problems import load_problems
from tritonrl.prompts import build_messages
from tritonrl.training.models import (
    IGNORE_INDEX,
    ModelError,
    encode_example,
    encode_prompt,
    generate,
    load_model,
    load_model_and_tokenizer,
    load_tokenizer,
    prompt_text,
    resolve_model_source,
)
from tritonrl.training.tiny_model import IM_END, ensure_tiny_model


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    return ensure_tiny_model(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="module")
def tokenizer(tiny_dir):
    return load_tokenizer(str(tiny_dir))


@pytest.fixture(scope="module")
def relu():
    return next(p for p in load_problems("builtin") if p.name == "01_relu.py")


def test_tiny_build_is_cached_deterministic_and_a_standard_checkpoint(tiny_dir, tmp_path):
    again = ensure_tiny_model(tmp_path / "models")
    assert again.name == tiny_dir.name  # digest of the build inputs
    assert (again / "tokenizer.json").read_text() == (tiny_dir / "tokenizer.json").read_text()
    assert json.loads((again / "config.json").read_text())["model_type"] == "qwen3"
    first, second = load_model(str(tiny_dir)), load_model(str(again))
    assert 1_000_000 < sum(p.numel() for p in first.parameters()) < 10_000_000
    for a, b in zip(first.state_dict().values(), second.state_dict().values()):
        assert torch.equal(a, b)
    assert ensure_tiny_model(tmp_path / "models") == again  # second call reuses the directory


def test_tiny_local_resolves_under_home_and_loads_through_from_pretrained(tritonrl_home):
    source = resolve_model_source("tiny-local", tritonrl_home)
    assert source.startswith(str(tritonrl_home / "models" / "tiny-local-"))
    model, tokenizer = load_model_and_tokenizer("tiny-local", tritonrl_home)
    assert model.config.eos_token_id == tokenizer.eos_token_id == tokenizer.convert_tokens_to_ids(IM_END)
    assert resolve_model_source("Qwen/Qwen3-8B", tritonrl_home) == "Qwen/Qwen3-8B"  # hub ids pass through


def test_tokenizer_represents_any_text_byte_for_byte(tokenizer, relu):
    for text in (relu.reference_response, "x = 1  # ünïcode 😀\n\ttabs\r\n", "\x00\x7f weird bytes"):
        ids = tokenizer(text, add_special_tokens=False)["input_ids"]
        assert tokenizer.decode(ids) == text
    # trained on the project's corpus: code compresses well below one token per 2 characters
    assert len(tokenizer(relu.reference_response)["input_ids"]) < len(relu.reference_response) / 2


def test_chat_template_round_trip(tokenizer, relu):
    messages = build_messages(relu.source)
    text = prompt_text(tokenizer, messages)
    assert text.startswith("<|im_start|>system\n" + messages[0]["content"] + "<|im_end|>\n<|im_start|>user\n")
    assert text.endswith("<|im_end|>\n<|im_start|>assistant\n")
    assert tokenizer.decode(encode_prompt(tokenizer, messages)) == text


def test_labels_cover_exactly_the_response_and_its_end_of_turn(tokenizer, relu):
    messages = build_messages(relu.source)
    example = encode_example(tokenizer, messages, relu.reference_response)
    assert example.input_ids[: example.prompt_tokens] == encode_prompt(tokenizer, messages)
    assert example.labels[: example.prompt_tokens] == [IGNORE_INDEX] * example.prompt_tokens
    trained = example.labels[example.prompt_tokens :]
    assert IGNORE_INDEX not in trained
    assert tokenizer.decode(trained) == relu.reference_response + "<|im_end|>\n"


def test_a_template_that_changes_the_prompt_is_refused(tokenizer, relu):
    odd = tokenizer.__class__.from_pretrained(tokenizer.name_or_path)
    odd.chat_template = "{% for m in messages %}{{ m['role'] + loop.length|string + m['content'] }}{% endfor %}"
    with pytest.raises(ModelError, match="cannot tell prompt from response"):
        encode_example(odd, build_messages(relu.source), "answer")


def test_generation_is_batched_greedy_and_stops_at_end_of_turn(tiny_dir, tokenizer, relu):
    model = load_model(str(tiny_dir)).eval()
    prompts = [build_messages(relu.source), build_messages("short")]
    first = generate(model, tokenizer, prompts, max_new_tokens=6)
    again = generate(model, tokenizer, prompts, max_new_tokens=6)
    assert [g.response_ids for g in first] == [g.response_ids for g in again]  # greedy is deterministic
    assert [len(g.prompt_ids) for g in first] == [len(encode_prompt(tokenizer, p)) for p in prompts]
    assert all(0 < len(g.response_ids) <= 6 for g in first)
    model.generation_config.eos_token_id = first[0].response_ids[0]  # make its first choice a stop token
    stopped = generate(model, tokenizer, prompts, max_new_tokens=6)
    assert stopped[0].response_ids == first[0].response_ids[:1]  # cut right after the stop, padding dropped
    sampled = generate(model, tokenizer, prompts[:1], max_new_tokens=4, temperature=1.0, num_return_sequences=3)
    assert len(sampled) == 3 and all(g.prompt_ids == first[0].prompt_ids for g in sampled)


def test_an_unfinished_training_output_is_refused(tritonrl_home, tmp_path):
    with pytest.raises(ModelError, match="not a completed training output"):
        resolve_model_source((tmp_path / "run").as_uri(), tritonrl_home)
