"""Teachers: where distillation's reasoning + Triton answers come from, behind one `Teacher` protocol.

- `reference` — the problem's own known-good answer (offline, deterministic; the `tiny` profile);
- `openai` — an OpenAI-compatible chat-completions endpoint (vLLM/SGLang serving e.g. gpt-oss-120b);
- `hf` — a transformers model loaded in this process.

`build_teacher(config.teacher)` turns the validated config into one, failing
with a ConfigError (a ValueError) that says what to set when the config
cannot work. Every teacher returns exactly `n` Completions per problem,
failures recorded rather than raised (see base.py).

Test: tests/teachers/.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from tritonrl.config import ConfigError, TeacherConfig
from tritonrl.teachers.base import Completion, Teacher
from tritonrl.teachers.hf_local import HFTeacher
from tritonrl.teachers.openai_compat import OpenAITeacher
from tritonrl.teachers.reference import ReferenceTeacher

__all__ = ["Completion", "HFTeacher", "OpenAITeacher", "ReferenceTeacher", "Teacher", "build_teacher"]


def build_teacher(config: TeacherConfig) -> Teacher:
    """The teacher `config` describes; ConfigError (a ValueError) naming the setting to fix when it cannot work."""
    if config.samples_per_task < 1:
        raise ConfigError(f"teacher.samples_per_task={config.samples_per_task} must be >= 1")
    if config.temperature < 0:
        raise ConfigError(f"teacher.temperature={config.temperature} must be >= 0 (0 means greedy)")
    if config.max_tokens < 1:
        raise ConfigError(f"teacher.max_tokens={config.max_tokens} must be >= 1")

    if config.kind == "reference":
        return ReferenceTeacher()

    if config.kind == "openai":
        endpoint = config.endpoint.strip()
        if not endpoint:
            raise ConfigError(
                "teacher.kind=openai needs teacher.endpoint, the OpenAI-compatible base URL, "
                "e.g. teacher.endpoint=http://localhost:8000/v1"
            )
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(
                f"teacher.endpoint={config.endpoint!r} is not an http(s) URL; e.g. teacher.endpoint=http://localhost:8000/v1"
            )
        if not config.model.strip() or config.model == "reference":
            raise ConfigError(
                f"teacher.kind=openai needs teacher.model, the model name the endpoint serves "
                f"(got {config.model!r}), e.g. teacher.model=openai/gpt-oss-120b"
            )
        if config.concurrency < 1:
            raise ConfigError(f"teacher.concurrency={config.concurrency} must be >= 1 (requests in flight)")
        if config.requests_per_second < 0:
            raise ConfigError(
                f"teacher.requests_per_second={config.requests_per_second} must be >= 0 (0: no client-side limit)"
            )
        return OpenAITeacher(
            endpoint,
            config.model,
            api_key_env=config.api_key_env,
            concurrency=config.concurrency,
            requests_per_second=config.requests_per_second or None,
        )

    if config.kind == "hf":
        if not config.model.strip() or config.model == "reference":
            raise ConfigError(
                f"teacher.kind=hf needs teacher.model, a Hugging Face hub id or local model directory "
                f"(got {config.model!r}), e.g. teacher.model=Qwen/Qwen3-8B"
            )
        import torch

        return HFTeacher(config.model, device="cuda" if torch.cuda.is_available() else "cpu")

    raise ConfigError(f"teacher.kind={config.kind!r} is not one of ['reference', 'openai', 'hf']")
