"""Teachers: where distillation's reasoning + Triton answers come from, behind one `Teacher` protocol.

- `reference` — the problem's own known-good answer (offline, deterministic; the `tiny` profile);
- `openai` — an OpenAI-compatible chat-completions endpoint (vLLM/SGLang serving e.g. gpt-oss-120b);
- `hf` — a transformers model loaded in this process.

`build_teacher(config.teacher)` turns the validated config into one, failing
with a ConfigError (a ValueError) that says what to set when the config
cannot work. Every teacher returns exactly `n` Completions per problem,
failures recorded rather than raised (see base.py).

Test: tests/generation/.
"""

from __future__ import annotations

from tritonrl.config import ConfigError, TeacherConfig
from tritonrl.generation.base import Completion, Teacher
from tritonrl.generation.hf_local import HFTeacher
from tritonrl.generation.openai_compat import OpenAITeacher
from tritonrl.generation.reference import ReferenceTeacher

__all__ = ["Completion", "HFTeacher", "OpenAITeacher", "ReferenceTeacher", "Teacher", "build_teacher"]


def build_teacher(config: TeacherConfig) -> Teacher:
    """The teacher `config` describes; ConfigError (a ValueError) naming the setting to fix when it cannot work."""
    problems = config.mistakes()
    if problems:
        raise ConfigError("; ".join(problems))

    if config.kind == "reference":
        return ReferenceTeacher()

    if config.kind == "openai":
        endpoint = config.endpoint.strip()
        return OpenAITeacher(
            endpoint,
            config.model,
            api_key_env=config.api_key_env,
            concurrency=config.concurrency,
            requests_per_second=config.requests_per_second or None,
        )

    if config.kind == "hf":
        import torch

        return HFTeacher(config.model, device="cuda" if torch.cuda.is_available() else "cpu")

    raise ConfigError(f"teacher.kind={config.kind!r} is not one of ['reference', 'openai', 'hf']")
