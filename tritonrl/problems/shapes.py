"""Read and rewrite the shape sites of a problem.

KernelBench problems size their inputs through top-level integer constants
(`N = 2048 * 2`, `batch_size = 16`). KernelBook-style problems have none and
write the sizes as literals inside `get_inputs()` (`torch.rand([4, 4, 4, 4])`,
`torch.randn(16, 64)`). Both kinds are *shape sites*: the constants by name,
the literals as `get_inputs:<k>` (k-th size literal in source order). A
literal is a site only when it is an explicit size argument of a torch
tensor factory call in `get_inputs` (rand/randn/randint/zeros/ones/empty/
full): not randint's low/high, not full's fill value, not keywords such as
dtype/device/dim, and nothing in `get_init_inputs` or the model.

Changing sites is how shape augmentation makes new tasks and how CPU
verification shrinks problems for the Triton interpreter; the rewrite edits
only the value's source span, so comments and layout survive.

Test: tests/problems/test_shapes.py.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping


class ShapeError(ValueError):
    """A shape override names a constant the problem does not define."""


LITERAL_PREFIX = "get_inputs:"  # name of the k-th size literal in get_inputs: f"{LITERAL_PREFIX}{k}"

# torch factories whose size is `*size` or one list/tuple (or `size=`).
_VARIADIC_SIZE = frozenset({"rand", "randn", "zeros", "ones", "empty"})
# torch factories whose size is one list/tuple argument (or `size=`) among other positionals.
_TUPLE_SIZE = frozenset({"full", "randint"})


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


def shape_sites(source: str) -> dict[str, int]:
    """Module-level integer constants, then the `get_inputs:<k>` size literals, with their values."""
    literals = {name: node.value for name, node in _literal_nodes(ast.parse(source)).items()}
    return {**shape_constants(source), **literals}


def _literal_nodes(tree: ast.Module) -> dict[str, ast.Constant]:
    """The integer size literals of torch factory calls in `get_inputs`, named in source order."""
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"]
    if not functions:
        return {}
    torch_names, factory_names = _torch_aliases(tree)
    found: list[ast.Constant] = []
    for node in ast.walk(functions[-1]):  # the last definition is the one Python keeps
        if isinstance(node, ast.Call):
            factory = _factory_name(node.func, torch_names, factory_names)
            if factory is not None:
                found.extend(_size_literals(node, factory))
    found.sort(key=lambda c: (c.lineno, c.col_offset))
    return {f"{LITERAL_PREFIX}{k}": node for k, node in enumerate(found)}


def _torch_aliases(tree: ast.Module) -> tuple[set[str], dict[str, str]]:
    """Names bound to the torch module, and bare names imported from it (`from torch import rand`)."""
    modules, functions = {"torch"}, {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(a.asname for a in node.names if a.name == "torch" and a.asname)
        elif isinstance(node, ast.ImportFrom) and node.module == "torch":
            functions.update({a.asname or a.name: a.name for a in node.names})
    return modules, functions


def _factory_name(func: ast.expr, torch_names: set[str], factory_names: dict[str, str]) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in torch_names:
        name = func.attr
    elif isinstance(func, ast.Name) and func.id in factory_names:
        name = factory_names[func.id]
    else:
        return None
    return name if name in _VARIADIC_SIZE or name in _TUPLE_SIZE else None


def _int_literals(nodes) -> list[ast.Constant]:
    return [n for n in nodes if isinstance(n, ast.Constant) and type(n.value) is int]


def _size_literals(call: ast.Call, factory: str) -> list[ast.Constant]:
    """The integer literals of the call's size argument only."""
    for keyword in call.keywords:
        if keyword.arg == "size":
            size = keyword.value
            return _int_literals(size.elts) if isinstance(size, (ast.List, ast.Tuple)) else _int_literals([size])
    args = call.args
    if factory in _VARIADIC_SIZE:
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            return _int_literals(args[0].elts)
        return _int_literals(args)  # rand(16, 64): every positional is a dimension
    if factory == "full":  # full(size, fill_value)
        size = args[0] if args else None
    else:  # randint(high, size) or randint(low, high, size): the size is the third/second positional
        size = args[2] if len(args) >= 3 else args[1] if len(args) == 2 else None
    return _int_literals(size.elts) if isinstance(size, (ast.List, ast.Tuple)) else []


def _fold(node: ast.expr) -> ast.expr:
    """Evaluate an integer expression to a Constant node (literal_eval has no * or //)."""
    value = eval(compile(ast.Expression(node), "<shape>", "eval"), {"__builtins__": {}})  # noqa: S307 - integer literals only
    return ast.Constant(value)


def with_shapes(source: str, overrides: Mapping[str, int]) -> str:
    """Return `source` with each named site (constant or `get_inputs:<k>` literal) set to its new value."""
    constants = {name: node.value for name, node in _constant_nodes(source).items()}
    literals = _literal_nodes(ast.parse(source)) if any(n.startswith(LITERAL_PREFIX) for n in overrides) else {}
    nodes: dict[str, ast.expr] = {**constants, **literals}
    unknown = sorted(set(overrides) - set(nodes))
    if unknown:
        known = sorted(constants) + list(_literal_nodes(ast.parse(source)))
        raise ShapeError(
            f"shape constants {unknown} are not defined at module level or as get_inputs size literals; "
            f"the problem defines {known}"
        )
    # AST column offsets count UTF-8 bytes, so edit encoded lines.
    lines = [line.encode() for line in source.splitlines(keepends=True)]
    # Edit from the bottom up so earlier offsets stay valid.
    for name in sorted(overrides, key=lambda n: (nodes[n].lineno, nodes[n].col_offset), reverse=True):
        value = nodes[name]
        first, last = value.lineno - 1, value.end_lineno - 1
        head = lines[first][: value.col_offset]
        tail = lines[last][value.end_col_offset :]
        lines[first : last + 1] = [head + str(int(overrides[name])).encode() + tail]
    return b"".join(lines).decode()
