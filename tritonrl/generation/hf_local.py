"""Teacher that samples from a Hugging Face causal LM loaded in this process (hub id or local path).

For a teacher small enough to run beside the pipeline, or offline with a
local checkpoint. The tokenizer and model are loaded on first use
(`AutoTokenizer` / `AutoModelForCausalLM.from_pretrained`), the messages go
through the tokenizer's chat template with the generation prompt, and `n`
samples come from `generate(num_return_sequences=…)` in batches of at most
`batch_size` sequences; `generate_many` batches several prompts too
(left-padded). Only the new tokens are decoded. Temperature 0 means greedy
decoding: one generation, returned `n` times (it is deterministic).

Every failure — the model cannot be loaded, the tokenizer has no chat
template, generation raises (out of memory, a prompt longer than the model's
context) — becomes failed `Completion`s with the reason, never an exception.
A load failure is remembered, so later problems fail at once instead of
reloading. `completion_tokens` counts the generated tokens up to and
including the first end-of-sequence token; `latency_s` is the wall time of
the batch the sample came from.

Test: tests/generation/test_hf_teacher.py (a tiny GPT-2 and tokenizer built
offline in a temporary directory).
"""

from __future__ import annotations

import threading
import time
from typing import Any

from tritonrl.generation.base import Completion, check_sample_count
from tritonrl.problems import Problem

# Sequences generated together bound the KV cache: 8 sequences of 8k tokens from an 8B model take ~10 GB,
# which leaves room for the weights on one 80 GB GPU.
DEFAULT_BATCH_SIZE = 8


class HFTeacher:
    """Samples from a local transformers model; see the module docstring."""

    def __init__(
        self,
        model_path_or_id: str,
        device: str = "cpu",
        batch_size: int = DEFAULT_BATCH_SIZE,
        dtype: str | None = None,
    ) -> None:
        if not str(model_path_or_id).strip():
            raise ValueError("model_path_or_id is empty; give a Hugging Face hub id or a local model directory")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.model_path_or_id = str(model_path_or_id)
        self.device = device
        self.batch_size = batch_size
        self.dtype = dtype  # e.g. "bfloat16" or "auto"; None: transformers' default
        self.id = f"hf:{self.model_path_or_id}"
        self._tokenizer: Any = None
        self._model: Any = None
        self._load_error: str | None = None
        self._lock = threading.Lock()  # one model on one device: generate calls run one at a time

    def __repr__(self) -> str:
        return f"HFTeacher(id={self.id!r}, device={self.device!r}, batch_size={self.batch_size})"

    def _load(self) -> None:
        if self._model is not None or self._load_error is not None:
            return
        try:
            from transformers import AutoModelForCausalLM, AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(self.model_path_or_id)
            kwargs = {"dtype": self.dtype} if self.dtype else {}
            model = AutoModelForCausalLM.from_pretrained(self.model_path_or_id, **kwargs)
            model.to(self.device)
            model.eval()
        except Exception as exc:
            self._load_error = f"could not load model {self.model_path_or_id!r}: {type(exc).__name__}: {exc}"
            return
        self._tokenizer, self._model = tokenizer, model

    def generate(
        self, problem: Problem, messages: list[dict[str, str]], n: int, temperature: float, max_tokens: int
    ) -> list[Completion]:
        return self.generate_many([(problem, messages)], n, temperature, max_tokens)[0]

    def generate_many(
        self, requests: list[tuple[Problem, list[dict[str, str]]]], n: int, temperature: float, max_tokens: int
    ) -> list[list[Completion]]:
        """`n` completions for each (problem, messages), prompts batched together (left-padded) up to `batch_size` sequences.

        One sequence at a time leaves a small model's CPU idle between tokens: an
        evaluation of 18 prompts batched is many times faster than 18 calls.
        """
        check_sample_count(n)
        if n == 0 or not requests:
            return [[] for _ in requests]
        with self._lock:
            start = time.perf_counter()
            self._load()
            if self._load_error is not None:
                return [_failures(n, self._load_error, time.perf_counter() - start) for _ in requests]
            results: list[list[Completion] | None] = [None] * len(requests)
            prompts: list[tuple[int, list[int]]] = []
            for index, (_, messages) in enumerate(requests):
                try:
                    text = self._tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
                    prompts.append((index, self._tokenizer(text, add_special_tokens=False)["input_ids"]))
                except Exception as exc:
                    error = f"{self.id}: could not apply the chat template: {type(exc).__name__}: {exc}"
                    results[index] = _failures(n, error, time.perf_counter() - start)
            # Greedy decoding gives the same sequence every time: one per prompt, repeated n times.
            per_prompt = min(n, self.batch_size) if temperature > 0 else 1
            chunk = max(1, self.batch_size // per_prompt)
            for first in range(0, len(prompts), chunk):
                batch = prompts[first : first + chunk]
                for (index, _), completions in zip(
                    batch, self._sample_prompts([ids for _, ids in batch], n, temperature, max_tokens, per_prompt)
                ):
                    results[index] = completions
            return results

    def _sample_prompts(
        self, prompts: list[list[int]], n: int, temperature: float, max_tokens: int, per_prompt: int
    ) -> list[list[Completion]]:
        """`n` completions for each tokenized prompt, `per_prompt` sequences of each per generate call."""
        import torch

        stop_ids = self._stop_ids()
        pad_id = self._tokenizer.pad_token_id
        if pad_id is None:
            pad_id = min(stop_ids) if stop_ids else 0
        width = max(len(ids) for ids in prompts)
        input_ids = torch.tensor([[pad_id] * (width - len(ids)) + ids for ids in prompts], device=self.device)
        attention_mask = torch.tensor(
            [[0] * (width - len(ids)) + [1] * len(ids) for ids in prompts], device=self.device
        )
        do_sample = temperature > 0
        kwargs: dict[str, Any] = {"max_new_tokens": max_tokens, "do_sample": do_sample, "pad_token_id": pad_id}
        if do_sample:
            kwargs["temperature"] = temperature
        completions: list[list[Completion]] = [[] for _ in prompts]
        while len(completions[0]) < n:
            k = min(per_prompt, n - len(completions[0]))
            batch_start = time.perf_counter()
            try:
                with torch.inference_mode():
                    output = self._model.generate(
                        input_ids=input_ids, attention_mask=attention_mask, num_return_sequences=k, **kwargs
                    )
                rows = output[:, width:].tolist()
                latency_s = time.perf_counter() - batch_start
                for row_index, row in enumerate(rows):
                    count = next((i + 1 for i, t in enumerate(row) if t in stop_ids), len(row))
                    text = self._tokenizer.decode(row[:count], skip_special_tokens=True)
                    done = Completion(
                        text=text,
                        error=None,
                        latency_s=latency_s,
                        prompt_tokens=len(prompts[row_index // k]),
                        completion_tokens=count,
                    )
                    completions[row_index // k].extend([done] if do_sample else [done] * n)
            except Exception as exc:
                error = f"{self.id}: generation failed: {type(exc).__name__}: {exc}"
                for made in completions:
                    made.extend(_failures(k if do_sample else n - len(made), error, time.perf_counter() - batch_start))
        return completions

    def _stop_ids(self) -> set[int]:
        ids: set[int] = set()
        generation_config = getattr(self._model, "generation_config", None)
        for value in (self._tokenizer.eos_token_id, getattr(generation_config, "eos_token_id", None)):
            if isinstance(value, int):
                ids.add(value)
            elif isinstance(value, (list, tuple)):
                ids.update(v for v in value if isinstance(v, int))
        return ids


def _failures(n: int, error: str, latency_s: float) -> list[Completion]:
    return [Completion(text=None, error=error, latency_s=latency_s) for _ in range(n)]
