"""Read and rewrite the module-level shape constants of a problem.

KernelBench problems size their inputs through top-level integer constants
(`N = 2048 * 2`, `batch_size = 16`). Changing those constants is how shape
augmentation makes new tasks and how CPU verification shrinks problems for
the Triton interpreter; the rewrite edits only the value's source span, so
comments and layout survive.

Test: tests/problems/test_shapes.py.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping


class ShapeError(ValueError):
    """A shape override names a constant the problem does not define."""


def _constant_nodes(source: str) -> dict[str, ast.Assign]:
    """Top-level `NAME = <integer expression>` assignments, by name."""
    found: dict[str, ast.Assign] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and _is_integer_expr(node.value):
            found[target.id] = node
    return found


def _is_integer_expr(node: ast.expr) -> bool:
    """Integer literals combined with + - * // ** (what KernelBench uses for sizes)."""
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Pow)):
        return _is_integer_expr(node.left) and _is_integer_expr(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _is_integer_expr(node.operand)
    return False


def shape_constants(source: str) -> dict[str, int]:
    """The problem's module-level integer constants and their values."""
    return {name: ast.literal_eval(_fold(node.value)) for name, node in _constant_nodes(source).items()}


def _fold(node: ast.expr) -> ast.expr:
    """Evaluate an integer expression to a Constant node (literal_eval has no * or //)."""
    value = eval(compile(ast.Expression(node), "<shape>", "eval"), {"__builtins__": {}})  # noqa: S307 - integer literals only
    return ast.Constant(value)


def with_shapes(source: str, overrides: Mapping[str, int]) -> str:
    """Return `source` with each named constant set to its new value."""
    nodes = _constant_nodes(source)
    unknown = sorted(set(overrides) - set(nodes))
    if unknown:
        raise ShapeError(
            f"shape constants {unknown} are not defined at module level; "
            f"the problem defines {sorted(nodes)}"
        )
    # AST column offsets count UTF-8 bytes, so edit encoded lines.
    lines = [line.encode() for line in source.splitlines(keepends=True)]
    # Edit from the bottom up so earlier offsets stay valid.
    for name in sorted(overrides, key=lambda n: (nodes[n].value.lineno, nodes[n].value.col_offset), reverse=True):
        value = nodes[name].value
        first, last = value.lineno - 1, value.end_lineno - 1
        head = lines[first][: value.col_offset]
        tail = lines[last][value.end_col_offset :]
        lines[first : last + 1] = [head + str(int(overrides[name])).encode() + tail]
    return b"".join(lines).decode()
