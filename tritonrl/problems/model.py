"""The `Problem` record and the static check that a source is a KernelBench problem.

A problem is Python source defining `class Model(nn.Module)`, `get_inputs()`
and `get_init_inputs()`. Checking that statically (AST, no
execution) lets every loader reject a malformed problem with its origin and
what is missing, before any stage spends time on it.

Test: tests/problems/test_loaders.py.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from tritonrl import syntax
from tritonrl.problems.shapes import shape_constants

REQUIRED_NAMES = ("Model", "get_inputs", "get_init_inputs")


class ProblemError(ValueError):
    """A problem source is malformed or a problem source cannot be loaded."""


@dataclass(frozen=True)
class Problem:
    """One PyTorch task in KernelBench format, plus where it came from."""

    name: str  # as in its source: "19_ReLU.py", or the file name for a directory
    source: str
    origin: str  # file, JSONL line, hub id … so errors can point at it
    level: int | None = None
    problem_id: int | None = None
    category: str | None = None
    reference_response: str | None = None  # a known-good answer (built-in suite, KernelBook)
    alt_shapes: dict[str, int] = field(default_factory=dict)  # a second shape set the reference passes

    @property
    def shapes(self) -> dict[str, int]:
        return shape_constants(self.source)

    def summary(self) -> dict[str, Any]:
        """A JSON-friendly description (no source) for listings."""
        return {
            "name": self.name,
            "level": self.level,
            "problem_id": self.problem_id,
            "category": self.category,
            "origin": self.origin,
            "shapes": self.shapes,
            "has_reference": self.reference_response is not None,
        }


def check_problem_source(source: str, origin: str) -> None:
    """Raise ProblemError naming `origin` unless `source` parses and defines the required names."""
    try:
        tree = syntax.parse(source, filename=origin)
    except SyntaxError as exc:
        raise ProblemError(f"{origin}: syntax error at line {exc.lineno}: {exc.msg}") from exc
    defined: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign):
            defined.update(t.id for t in node.targets if isinstance(t, ast.Name))
    missing = [name for name in REQUIRED_NAMES if name not in defined]
    if missing:
        raise ProblemError(
            f"{origin}: missing top-level {', '.join(missing)}; a KernelBench problem defines "
            "class Model(nn.Module), get_inputs() and get_init_inputs()"
        )
