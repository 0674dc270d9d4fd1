"""Read and rewrite the shape sites of a problem.

KernelBench problems size their inputs through top-level integer constants
(`N = 2048 * 2`, `batch_size = 16`), also inside tuples and lists
(`input_shape = (4096,)` for `torch.randn(batch_size, *input_shape)`) and
unpacking assignments (`depth, height, width = 16, 32, 32`). KernelBook-style
problems have none and write the sizes as literals inside `get_inputs()`
(`torch.rand([4, 4, 4, 4])`, `torch.randn(16, 64)`). All are *shape sites*:
the constants by name (the k-th element of a tuple or list constant as
`<name>:<k>`, an unpacked name by its own name), the literals as
`get_inputs:<k>` (k-th size literal in source order). A
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


def _constant_nodes(source: str) -> dict[str, ast.expr]:
    """The integer expression of each module-level constant site, by site name.

    `NAME = <int>` is `NAME`, each integer element of `NAME = (...)` or
    `NAME = [...]` is `NAME:<k>`, each name of `a, b = <int>, <int>` its own:
    a size written in any of these forms must shrink and move like the others.
    """
    found: dict[str, ast.expr] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target, value = node.targets[0], node.value
        if isinstance(target, ast.Name) and isinstance(value, (ast.Tuple, ast.List)):
            found.update({f"{target.id}:{k}": e for k, e in enumerate(value.elts) if _is_integer_expr(e)})
        elif isinstance(target, ast.Name) and _is_integer_expr(value):
            found[target.id] = value
        elif isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) and len(target.elts) == len(value.elts):
            pairs = zip(target.elts, value.elts)
            found.update({t.id: e for t, e in pairs if isinstance(t, ast.Name) and _is_integer_expr(e)})
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
    """The problem's module-level integer constant sites (tuple elements and unpacked names too) and their values."""
    return {name: ast.literal_eval(_fold(node)) for name, node in _constant_nodes(source).items()}


def shape_sites(source: str) -> dict[str, int]:
    """Module-level integer constants, then the `get_inputs:<k>` size literals, with their values."""
    literals = {name: node.value for name, node in _literal_nodes(ast.parse(source)).items()}
    return {**shape_constants(source), **literals}


def _literal_nodes(tree: ast.Module) -> dict[str, ast.Constant]:
    """The integer size literals of torch factory calls in `get_inputs`, named in source order."""
    found = _int_literals(d for dimensions in _input_dimensions(tree) for d in dimensions)
    found.sort(key=lambda c: (c.lineno, c.col_offset))
    return {f"{LITERAL_PREFIX}{k}": node for k, node in enumerate(found)}


def _input_dimensions(tree: ast.Module) -> list[list[ast.expr]]:
    """Per torch factory call in `get_inputs`, the expressions of its size argument, one per dimension."""
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "get_inputs"]
    if not functions:
        return []
    torch_names, factory_names = _torch_aliases(tree)
    calls = []
    for node in ast.walk(functions[-1]):  # the last definition is the one Python keeps
        if isinstance(node, ast.Call):
            factory = _factory_name(node.func, torch_names, factory_names)
            if factory is not None:
                calls.append(_dimensions(node, factory))
    return calls


def input_dimension_sites(source: str) -> set[str]:
    """Module-level constant sites that size a tensor made in `get_inputs` (`b` of `torch.rand(b, i)`, the elements
    of `input_shape` in `torch.rand(n, *input_shape)`, also through a tuple's named elements): sizes whatever their
    name or value, unlike a constant that only reaches the model (a group count, a kernel size)."""
    tree = ast.parse(source)
    tuples = {
        node.targets[0].id: node.value.elts
        for node in tree.body
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, (ast.Tuple, ast.List))
    }
    found: set[str] = set()
    pending = [d for dimensions in _input_dimensions(tree) for d in dimensions]
    while pending:
        for node in ast.walk(pending.pop()):
            if isinstance(node, ast.Name) and node.id not in found:
                found.add(node.id)
                elements = tuples.get(node.id, [])
                found.update(f"{node.id}:{k}" for k in range(len(elements)))
                pending.extend(elements)
    return found & set(_constant_nodes(source))


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


def _dimensions(call: ast.Call, factory: str) -> list[ast.expr]:
    """The expressions of the call's size argument only, one per dimension (`*shape` stands for several)."""
    for keyword in call.keywords:
        if keyword.arg == "size":
            size = keyword.value
            return list(size.elts) if isinstance(size, (ast.List, ast.Tuple)) else [size]
    args = call.args
    if factory in _VARIADIC_SIZE:
        if len(args) == 1 and isinstance(args[0], (ast.List, ast.Tuple)):
            return list(args[0].elts)
        return list(args)  # rand(16, 64): every positional is a dimension
    if factory == "full":  # full(size, fill_value)
        size = args[0] if args else None
    else:  # randint(high, size) or randint(low, high, size): the size is the third/second positional
        size = args[2] if len(args) >= 3 else args[1] if len(args) == 2 else None
    return list(size.elts) if isinstance(size, (ast.List, ast.Tuple)) else [size] if size is not None else []


def _fold(node: ast.expr) -> ast.expr:
    """Evaluate an integer expression to a Constant node (literal_eval has no * or //)."""
    value = eval(compile(ast.Expression(node), "<shape>", "eval"), {"__builtins__": {}})  # noqa: S307 - integer literals only
    return ast.Constant(value)


def with_shapes(source: str, overrides: Mapping[str, int]) -> str:
    """Return `source` with each named site (constant or `get_inputs:<k>` literal) set to its new value."""
    constants = _constant_nodes(source)
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
