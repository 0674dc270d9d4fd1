"""The offline teacher: answers every problem with the problem's own known-good reference response.

It lets the whole pipeline (distill → filter → SFT → RL → eval) run on a
laptop with no model server: the built-in suite and KernelBook rows ship a
reference answer (`Problem.reference_response`), and this teacher returns it
`n` times. It is deterministic and ignores temperature and max_tokens. A
problem without a reference gets `n` failed completions that say why, never
an exception, so one such problem cannot stop a distillation run.

Test: tests/generation/test_reference_teacher.py.
"""

from __future__ import annotations

import time

from tritonrl.generation.base import Completion, check_sample_count
from tritonrl.problems import Problem


class ReferenceTeacher:
    """Teacher whose every sample is `problem.reference_response`."""

    id = "reference"

    def generate(
        self, problem: Problem, messages: list[dict[str, str]], n: int, temperature: float, max_tokens: int
    ) -> list[Completion]:
        check_sample_count(n)
        start = time.perf_counter()
        reference = problem.reference_response
        latency_s = time.perf_counter() - start
        if reference is None or not reference.strip():
            error = (
                f"{problem.origin}: problem {problem.name!r} has no reference response; the reference teacher "
                "only answers problems that ship one (the builtin suite, KernelBook). Use teacher.kind=openai "
                "or teacher.kind=hf for this problem source."
            )
            return [Completion(text=None, error=error, latency_s=latency_s) for _ in range(n)]
        return [Completion(text=reference, error=None, latency_s=latency_s) for _ in range(n)]
