"""What every teacher provides: N completions for one problem's prompt, failures recorded, never raised.

A teacher error on one problem must not kill a distillation run, so
`generate` returns a `Completion` per requested sample, each either with
text or with an error description.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from tritonrl.problems import Problem


@dataclass(frozen=True)
class Completion:
    text: str | None  # None when the request failed
    error: str | None  # what went wrong, for the record (None on success)
    latency_s: float
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    attempts: int = 1


def check_sample_count(n: int) -> None:
    """Every generator's contract on `n`: zero samples is a valid request, a negative count is a caller's bug."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")


class Teacher(Protocol):
    id: str  # identifies model and source, recorded with every sample

    def generate(
        self, problem: Problem, messages: list[dict[str, str]], n: int, temperature: float, max_tokens: int
    ) -> list[Completion]:
        """Exactly `n` completions (successes or recorded failures) for this prompt."""
        ...
