"""Problems in KernelBench format: the record, its loaders and shape rewriting."""

from tritonrl.problems.loaders import load_problems
from tritonrl.problems.model import Problem, ProblemError

__all__ = ["Problem", "ProblemError", "load_problems"]
