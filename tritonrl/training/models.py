"""Load a student (causal LM + tokenizer) and turn chat prompts into token ids, for SFT, GRPO and evaluation.

One loading path for every model: `resolve_model_source` maps the configured
name to something `from_pretrained` accepts — a hub id or local directory
as is, `tiny-local` to the offline model built by tritonrl/training/tiny_model.py, and
a finished SFT/GRPO output URI (file:// or s3://, one with a manifest) to its
`model/` directory, downloaded once to the local cache. Everything after
that is `AutoTokenizer/AutoModelForCausalLM.from_pretrained`, so the tiny
CPU model exercises the same code as Qwen3-8B.

Prompts are rendered with the tokenizer's own chat template. A training
example is the prompt (with the assistant header, exactly what generation
sees) followed by the rest of the rendered conversation (the response and
its end-of-turn marker); the two are tokenized separately so the boundary
never merges into one token, and only the response part carries labels.

Test: tests/training/test_models.py.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from tritonrl.artifacts.store import MANIFEST_FILE, ArtifactStore, join
from tritonrl.training.progress_bars import quiet_progress_bars
from tritonrl.training.tiny_model import TINY_LOCAL, ensure_tiny_model

IGNORE_INDEX = -100  # label value the loss skips (prompt tokens, padding)
MODEL_DIR = "model"  # where a training output URI keeps its final model


class ModelError(ValueError):
    """A model source cannot be resolved or a conversation cannot be rendered."""


@dataclass(frozen=True)
class Example:
    """One tokenized (prompt, response) pair; labels are IGNORE_INDEX on the prompt."""

    input_ids: list[int]
    labels: list[int]
    prompt_tokens: int


@dataclass(frozen=True)
class Generation:
    """One sampled completion: the prompt's ids, the new ids (without padding) and the decoded text."""

    prompt_ids: list[int]
    response_ids: list[int]
    text: str


def resolve_model_source(name: str, home: Path, s3_endpoint_url: str = "") -> str:
    """A hub id or local directory `from_pretrained` can load; builds or downloads as needed."""
    if name == TINY_LOCAL:
        return str(ensure_tiny_model(home / "models"))
    if name.startswith(("s3://", "file://")):
        return str(_fetch_trained(name, home, s3_endpoint_url))
    path = Path(name)
    if path.is_dir() and (path / MANIFEST_FILE).is_file() and (path / MODEL_DIR).is_dir():
        return str(path / MODEL_DIR)
    return name


def _fetch_trained(uri: str, home: Path, s3_endpoint_url: str) -> Path:
    """The `model/` of a completed training output, copied to `<home>/models/fetched-<hash>` once."""
    store = ArtifactStore(s3_endpoint_url)
    if not store.exists(join(uri, MANIFEST_FILE)):
        raise ModelError(f"{uri} is not a completed training output (no {MANIFEST_FILE}); was the run interrupted?")
    if uri.startswith("file://"):
        return Path(unquote(urlparse(uri).path)) / MODEL_DIR
    target = home / "models" / f"fetched-{hashlib.sha256(uri.encode()).hexdigest()[:12]}"
    if not (target / "config.json").is_file():
        prefix = join(uri, MODEL_DIR)
        files = store.list(prefix)
        if not files:
            raise ModelError(f"{uri} has a manifest but no {MODEL_DIR}/ files")
        for file_uri in files:
            destination = target / file_uri[len(prefix) + 1 :]
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(store.read_bytes(file_uri))
    return target


def load_tokenizer(source: str):
    """The tokenizer, with a pad token (left padding for batched generation is set by `generate`)."""
    from transformers import AutoTokenizer

    quiet_progress_bars()
    tokenizer = AutoTokenizer.from_pretrained(source)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not tokenizer.chat_template:
        raise ModelError(f"{source}: the tokenizer has no chat template; use an instruct/chat model")
    return tokenizer


def load_model(source: str, dtype: Any = None, device: str | None = None, attn_implementation: str | None = None):
    """A causal LM from a hub id or local directory; float32 unless `dtype` says otherwise."""
    import torch
    from transformers import AutoModelForCausalLM

    quiet_progress_bars()
    kwargs = {"dtype": dtype or torch.float32}
    if attn_implementation:
        kwargs["attn_implementation"] = attn_implementation
    model = AutoModelForCausalLM.from_pretrained(source, **kwargs)
    return model.to(device) if device else model


def load_model_and_tokenizer(name: str, home: Path, s3_endpoint_url: str = "", **model_kwargs):
    """`resolve_model_source` then both loaders: the one call GRPO and evaluation need."""
    source = resolve_model_source(name, home, s3_endpoint_url)
    return load_model(source, **model_kwargs), load_tokenizer(source)


def prompt_text(tokenizer, messages: list[dict[str, str]]) -> str:
    """The prompt as the model sees it at generation time (ends with the assistant header)."""
    return tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)


def encode_prompt(tokenizer, messages: list[dict[str, str]]) -> list[int]:
    return tokenizer(prompt_text(tokenizer, messages), add_special_tokens=False)["input_ids"]


def encode_example(tokenizer, messages: list[dict[str, str]], response: str) -> Example:
    """Prompt ids + response ids (through the end-of-turn marker); loss only on the response."""
    prompt = prompt_text(tokenizer, messages)
    full = tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": response}], tokenize=False)
    if not full.startswith(prompt):
        raise ModelError(
            "the chat template renders the assistant turn differently from the generation prompt; "
            "cannot tell prompt from response tokens"
        )
    prompt_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    response_ids = tokenizer(full[len(prompt) :], add_special_tokens=False)["input_ids"]
    return Example(
        input_ids=prompt_ids + response_ids,
        labels=[IGNORE_INDEX] * len(prompt_ids) + response_ids,
        prompt_tokens=len(prompt_ids),
    )


def generate(
    model,
    tokenizer,
    prompts: list[list[dict[str, str]]],
    max_new_tokens: int,
    temperature: float = 0.0,
    num_return_sequences: int = 1,
    top_p: float = 1.0,
) -> list[Generation]:
    """Batched generation with the KV cache; temperature 0 is greedy. Results are prompt-major."""
    import torch

    encoded = [encode_prompt(tokenizer, messages) for messages in prompts]
    width = max(len(ids) for ids in encoded)
    pad = tokenizer.pad_token_id
    configured = model.generation_config.eos_token_id
    stops = {tokenizer.eos_token_id, *(configured if isinstance(configured, list) else [configured])} - {None}
    input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in encoded])  # left padding
    attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in encoded])
    sampling = (
        {"do_sample": True, "temperature": temperature, "top_p": top_p} if temperature > 0 else {"do_sample": False}
    )
    with torch.no_grad():
        output = model.generate(
            input_ids=input_ids.to(model.device),
            attention_mask=attention.to(model.device),
            max_new_tokens=max_new_tokens,
            num_return_sequences=num_return_sequences,
            pad_token_id=pad,
            eos_token_id=sorted(stops),
            **sampling,
        )
    results = []
    for row, sequence in enumerate(output.tolist()):
        new = sequence[width:]
        end = next((i for i, token in enumerate(new) if token in stops), None)
        new = new if end is None else new[: end + 1]  # through the stop token; padding after it dropped
        results.append(
            Generation(encoded[row // num_return_sequences], new, tokenizer.decode(new, skip_special_tokens=True))
        )
    return results
