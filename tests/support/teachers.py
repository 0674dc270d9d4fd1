"""Stand-in teachers for the data-stage tests."""

from tritonrl.generation import ReferenceTeacher
from tritonrl.generation.base import Completion


class CountingTeacher(ReferenceTeacher):
    """A ReferenceTeacher that records the problems it is asked about; `fail_on` names one it fails on."""

    def __init__(self, fail_on: str = ""):
        super().__init__()
        self.calls, self.fail_on = [], fail_on

    def generate(self, problem, messages, n, temperature, max_tokens):
        self.calls.append(problem.name)
        if problem.name == self.fail_on:
            return [Completion(None, "HTTP 500 from teacher", 0.01, attempts=5)] * n
        return super().generate(problem, messages, n, temperature, max_tokens)
