"""Teacher that samples from a Hugging Face causal LM loaded in this process (hub id or local path).

For a teacher small enough to run beside the pipeline, or offline with a
local checkpoint. The tokenizer and model are loaded on first use
(`AutoTokenizer` / `AutoModelForCausalLM.from_pretrained`), the messages go
through the tokenizer's chat template with the generation prompt, and `n`
samples come from `generate(num_return_sequences=…)` in batches of at most
`batch_size`; only the new tokens are decoded. Temperature 0 means greedy
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
        check_sample_count(n)
        if n == 0:
            return []
        with self._lock:
            start = time.perf_counter()
            self._load()
            if self._load_error is not None:
                return _failures(n, self._load_error, time.perf_counter() - start)
            try:
                prompt = self._tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
                encoded = self._tokenizer(prompt, return_tensors="pt", add_special_tokens=False)
            except Exception as exc:
                error = f"{self.id}: could not apply the chat template: {type(exc).__name__}: {exc}"
                return _failures(n, error, time.perf_counter() - start)
            try:
                return self._sample(encoded, n, temperature, max_tokens)
            except Exception as exc:  # set-up around generate (devices, config); batches catch their own
                error = f"{self.id}: generation failed: {type(exc).__name__}: {exc}"
                return _failures(n, error, time.perf_counter() - start)

    def _sample(self, encoded: Any, n: int, temperature: float, max_tokens: int) -> list[Completion]:
        import torch

        input_ids = encoded["input_ids"].to(self.device)
        attention_mask = encoded["attention_mask"].to(self.device) if "attention_mask" in encoded else None
        prompt_tokens = int(input_ids.shape[1])
        do_sample = temperature > 0
        kwargs: dict[str, Any] = {"max_new_tokens": max_tokens, "do_sample": do_sample}
        if do_sample:
            kwargs["temperature"] = temperature
        stop_ids = self._stop_ids()
        pad_id = self._tokenizer.pad_token_id
        if pad_id is None and stop_ids:
            pad_id = min(stop_ids)
        if pad_id is not None:
            kwargs["pad_token_id"] = pad_id

        completions: list[Completion] = []
        while len(completions) < n:
            # Greedy decoding gives the same sequence every time: generate once, repeat it.
            k = min(self.batch_size, n - len(completions)) if do_sample else 1
            batch_start = time.perf_counter()
            try:
                with torch.inference_mode():
                    output = self._model.generate(
                        input_ids=input_ids, attention_mask=attention_mask, num_return_sequences=k, **kwargs
                    )
                new_tokens = output[:, prompt_tokens:].tolist()
                batch = []
                for row in new_tokens:
                    count = next((i + 1 for i, t in enumerate(row) if t in stop_ids), len(row))
                    text = self._tokenizer.decode(row[:count], skip_special_tokens=True)
                    batch.append((text, count))
                latency_s = time.perf_counter() - batch_start
                copies = batch if do_sample else batch * (n - len(completions))
                completions.extend(
                    Completion(
                        text=text,
                        error=None,
                        latency_s=latency_s,
                        prompt_tokens=prompt_tokens,
                        completion_tokens=count,
                    )
                    for text, count in copies
                )
            except Exception as exc:
                error = f"{self.id}: generation failed: {type(exc).__name__}: {exc}"
                completions.extend(_failures(k if do_sample else n - len(completions), error,
                                             time.perf_counter() - batch_start))
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
