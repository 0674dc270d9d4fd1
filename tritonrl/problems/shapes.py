"""Read and rewrite the shape sites of a problem.

KernelBench problems size their inputs through top-level integer constants
(`N = 2048 * 2`, `batch_size = 16`), also inside tuples and lists
(`input_shape = (4096,)` for `torch.randn(batch_size, *input_shape)`) and
unpacking assignments (`depth, height, width = 16, 32, 32`). KernelBook-style
problems have none and write the sizes as literals inside `get_inputs()`
(`torch.rand([4, 4, 4, 4])`, `torch.randn(16, 64)`), or bind them to locals
there (`rows, cols = 16, 4096`), and pass the model's sizes as literals from
`get_init_inputs()` (`[256]`, `[[], {'in_features': 4}]`). All are *shape
sites*, named:

* a module-level constant by its name (the k-th element of a tuple or list
  constant as `<name>:<k>`, an unpacked name by its own name);
* a size literal written in a tensor factory call of `get_inputs` as
  `get_inputs:<k>` (k-th such literal in source order): an explicit size
  argument of rand/randn/randint/zeros/ones/empty/full, not randint's
  low/high, not full's fill value, not keywords such as dtype/device/dim;
* a local of `get_inputs` whose value reaches such a size argument as
  `get_inputs:<local>` (`get_inputs:<local>:<k>` for a tuple's element);
* an integer argument `get_init_inputs()` returns as
  `get_init_inputs:<parameter>`, named by the `Model.__init__` parameter it
  binds (or the keyword it is passed as; `get_init_inputs:<position>` when
  the constructor's signature does not name it), `...:<parameter>:<k>` for
  an element of a tuple argument, and `get_init_inputs:<local>` for a local
  of `get_init_inputs` the arguments are built from.

Locals are followed by dataflow: a name is looked up where Python would (a
local of the function if the function binds it, else the module), through
chains (`n = 16; m = n * 2; torch.rand(m)`: `n` is the site, the factor 2 is
no size), tuples (`shape = (rows, cols)`, `rows, cols = shape`, `*shape`,
`shape[0]`), `size=` keywords and parameter defaults
(`def get_inputs(batch=16)`). Only a name bound once, by a plain
assignment or a default, is followed (a loop variable or a name bound on
several paths has no single value to move); what the function reaches in
the module is a module constant, a site by its own name already.

The constructor's integer arguments are sites for the reason the module
constants KernelBench passes as `get_init_inputs() = [in_features, ...]`
are: they set the model's sizes, and a literal there is the same size
written in place (an input width the model normalises, a Linear's out
features). Whether one moves, and with which others, is decided as for a
constant of the parameter's name (variants.py): sites that share a value
move together, so a LayerNorm width passed as `[256]` moves with the input's
last dimension `torch.randn(16, 256)`; sizes named like kernel/stride/group
keep their rules; the reference decides whether the problem runs there.

Changing sites is how shape augmentation makes new tasks and how CPU
verification shrinks problems for the Triton interpreter; the rewrite edits
only the value's source span, so comments and layout survive.

Test: tests/problems/test_shapes.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

from tritonrl import syntax


class ShapeError(ValueError):
    """A shape override names a constant the problem does not define."""


LITERAL_PREFIX = "get_inputs:"  # name of the k-th size literal in get_inputs: f"{LITERAL_PREFIX}{k}"; its locals too
INIT_PREFIX = "get_init_inputs:"  # a constructor argument get_init_inputs returns: f"{INIT_PREFIX}{parameter}"

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
    for node in syntax.parse(source).body:
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
    """Every site with its value: module-level constants, then get_inputs' size literals and its locals that reach a
    size, then get_init_inputs' integer arguments (and its locals they are built from)."""
    tree = syntax.parse(source)
    found = {name: node.value for name, node in _literal_nodes(tree).items()}
    found.update({name: ast.literal_eval(_fold(node)) for name, node in _function_sites(tree).items()})
    return {**shape_constants(source), **found}


def site_spans(source: str) -> dict[str, tuple[int, int, int, int]]:
    """(line, column, end line, end column) of each site's value in `source`, by site name."""
    nodes = _site_nodes(source)
    return {name: (n.lineno, n.col_offset, n.end_lineno, n.end_col_offset) for name, n in nodes.items()}


def _site_nodes(source: str) -> dict[str, ast.expr]:
    tree = syntax.parse(source)
    return {**_constant_nodes(source), **_literal_nodes(tree), **_function_sites(tree)}


def _literal_nodes(tree: ast.Module) -> dict[str, ast.Constant]:
    """The integer size literals of torch factory calls in `get_inputs`, named in source order."""
    found = _int_literals(d for dimensions in _input_dimensions(tree) for d in dimensions)
    found.sort(key=lambda c: (c.lineno, c.col_offset))
    return {f"{LITERAL_PREFIX}{k}": node for k, node in enumerate(found)}


def _function(tree: ast.Module, name: str) -> ast.FunctionDef | None:
    """The module-level definition of `name` Python keeps (the last)."""
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
    return functions[-1] if functions else None


def _input_dimensions(tree: ast.Module) -> list[list[ast.expr]]:
    """Per torch factory call in `get_inputs`, the expressions of its size argument, one per dimension."""
    function = _function(tree, "get_inputs")
    if function is None:
        return []
    torch_names, factory_names = _torch_aliases(tree)
    calls = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            factory = _factory_name(node.func, torch_names, factory_names)
            if factory is not None:
                calls.append(_dimensions(node, factory))
    return calls


# --- dataflow: which bound values an expression reads -------------------------


class _Scope:
    """The names a function binds once by a plain assignment (the module: its last top-level one), with the
    expression each gets.

    `a = e` binds `a` to `e`; `a, b = e1, e2` binds each to its element; `a, b = t` binds `a` to `t[0]` (an
    element of whatever `t` is); a parameter `a=e` binds `a` to its default. A function's name bound any other
    way too (a loop target, augmented assignment, a parameter without a default, a second assignment) is bound
    but not followed: it has no single value. The module has run to its end when get_inputs is called, so its
    names hold their last top-level value.
    """

    def __init__(self, body: list[ast.stmt], arguments: ast.arguments | None = None, module: bool = False):
        self.values: dict[str, ast.expr] = {}
        if module:
            for statement in body:
                bound = [
                    n.id
                    for n in _scope_nodes([statement])
                    if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
                ]
                if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    bound.append(statement.name)
                elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                    bound += [(alias.asname or alias.name).split(".")[0] for alias in statement.names]
                for name in bound:
                    self.values.pop(name, None)
                if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                    self.values.update(_unpack(statement.targets[0], statement.value))
                elif isinstance(statement, ast.AnnAssign) and statement.value is not None and statement.simple:
                    self.values.update(_unpack(statement.target, statement.value))
            self.bound = set(self.values)
            return
        counts: dict[str, int] = {}
        if arguments is not None:  # a parameter's default is its value: get_inputs() is called without arguments
            positional = [*arguments.posonlyargs, *arguments.args]
            defaults = dict(
                zip([a.arg for a in positional[len(positional) - len(arguments.defaults) :]], arguments.defaults)
            )
            defaults.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
            for a in [*positional, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]:
                if a is not None:
                    counts[a.arg] = 1 if a.arg in defaults else 2
            self.values.update(defaults)
        nodes = list(_scope_nodes(body))
        for node in nodes:
            if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
                counts[node.id] = counts.get(node.id, 0) + 1
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                counts[node.name] = 2
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    counts[(alias.asname or alias.name).split(".")[0]] = 2
        self.bound = set(counts)
        for node in nodes:
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None and node.simple:
                target, value = node.target, node.value
            else:
                continue
            for name, expr in _unpack(target, value):
                if counts.get(name) == 1:
                    self.values[name] = expr
        self.values = {name: expr for name, expr in self.values.items() if counts.get(name) == 1}


def _scope_nodes(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a scope's statements, not those of the functions, classes and lambdas it defines."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))


def _unpack(target: ast.expr, value: ast.expr) -> Iterator[tuple[str, ast.expr]]:
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(t, ast.Starred) for t in target.elts):
        if isinstance(value, (ast.Tuple, ast.List)):
            if len(value.elts) == len(target.elts) and not any(isinstance(v, ast.Starred) for v in value.elts):
                for t, v in zip(target.elts, value.elts):
                    yield from _unpack(t, v)
        else:
            for k, t in enumerate(target.elts):
                yield from _unpack(t, ast.Subscript(value=value, slice=ast.Constant(k), ctx=ast.Load()))


def _reads(expr: ast.expr) -> Iterator[tuple[str, int | None]]:
    """(name, element index or None) of each name `expr` reads: `t[0]` reads element 0 of `t`, `t` all of it."""
    if (
        isinstance(expr, ast.Subscript)
        and isinstance(expr.value, ast.Name)
        and isinstance(expr.slice, ast.Constant)
        and type(expr.slice.value) is int
    ):
        yield expr.value.id, expr.slice.value
        return
    if isinstance(expr, ast.Name):
        yield expr.id, None
        return
    for child in ast.iter_child_nodes(expr):
        if isinstance(child, ast.expr):
            yield from _reads(child)
        elif isinstance(child, ast.AST):  # comprehensions, keywords
            for grandchild in ast.walk(child):
                if isinstance(grandchild, ast.Name) and isinstance(grandchild.ctx, ast.Load):
                    yield grandchild.id, None


def _follow(roots: list[ast.expr], local: _Scope | None, module: _Scope, prefix: str) -> dict[str, ast.expr]:
    """The sites the `roots` expressions (read in a function with scope `local`, or at module level) reach.

    A name the function binds is `prefix + name` (its tuple's elements `prefix + name:k`), a module-level one
    `name` (`name:k`): the integer expression each is bound to is the site. Names in other expressions are
    followed; their literals are factors and offsets, not sizes.
    """
    found: dict[str, ast.expr] = {}
    pending: list[tuple[ast.expr, _Scope | None]] = [(r, local) for r in roots if r is not None]
    seen: set[tuple[str, str, int | None]] = set()
    while pending:
        expr, scope = pending.pop()
        if isinstance(expr, ast.Starred):
            expr = expr.value
        for name, index in _reads(expr):
            where, label = (scope, prefix) if scope is not None and name in scope.bound else (module, "")
            if (label, name, index) in seen or name not in where.values:
                continue
            seen.add((label, name, index))
            then = where if where is not module else None
            value = where.values[name]
            if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
                elements = list(enumerate(value.elts))
                if index is not None:  # t[k]: that element only
                    inside = -len(elements) <= index < len(elements)
                    elements = [elements[index % len(elements)]] if inside else []
                for k, element in elements:
                    if _is_integer_expr(element):
                        found[f"{label}{name}:{k}"] = element
                    else:
                        pending.append((element, then))
            elif _is_integer_expr(value):
                found[f"{label}{name}"] = value
            else:
                pending.append((value, then))
    return found


def _function_sites(tree: ast.Module) -> dict[str, ast.expr]:
    """get_inputs' locals that reach a size, then get_init_inputs' integer arguments and its locals they read."""
    module = _Scope(tree.body, module=True)
    found: dict[str, ast.expr] = {}
    inputs = _function(tree, "get_inputs")
    if inputs is not None:
        scope = _Scope(inputs.body, inputs.args)
        roots = [d for dimensions in _input_dimensions(tree) for d in dimensions]
        local = _follow(roots, scope, module, LITERAL_PREFIX)
        found.update(_in_source_order({n: e for n, e in local.items() if n.startswith(LITERAL_PREFIX)}))
    found.update(_init_sites(tree, module))
    return found


def _in_source_order(nodes: dict[str, ast.expr]) -> dict[str, ast.expr]:
    return dict(sorted(nodes.items(), key=lambda item: (item[1].lineno, item[1].col_offset)))


def _init_sites(tree: ast.Module, module: _Scope) -> dict[str, ast.expr]:
    function = _function(tree, "get_init_inputs")
    arguments = _returned_arguments(function) if function is not None else None
    if arguments is None:
        return {}
    scope = _Scope(function.body, function.args)
    roots = [expr for _, expr in arguments]
    local = {n: e for n, e in _follow(roots, scope, module, INIT_PREFIX).items() if n.startswith(INIT_PREFIX)}
    found: dict[str, ast.expr] = {}
    names = _init_parameters(tree)
    for position, (key, expr) in enumerate(arguments):
        name = key if key is not None else names[position] if position < len(names) else None
        label = f"{INIT_PREFIX}{name}"
        if name is None or label in local or any(n.startswith(f"{label}:") for n in local) or label in found:
            label = f"{INIT_PREFIX}{position}"
        if _is_integer_expr(expr):
            found[label] = expr
        elif isinstance(expr, (ast.Tuple, ast.List)):
            found.update({f"{label}:{k}": e for k, e in enumerate(expr.elts) if _is_integer_expr(e)})
    return {**found, **_in_source_order(local)}


def _returned_arguments(function: ast.FunctionDef) -> list[tuple[str | None, ast.expr]] | None:
    """(keyword or None, expression) of each constructor argument get_init_inputs returns as a literal list or tuple,
    positionals first (KernelBook's `[[args...], {kwargs...}]` too); None when it returns anything else."""
    returns = [n for n in ast.walk(function) if isinstance(n, ast.Return)]
    if len(returns) != 1 or not isinstance(returns[0].value, (ast.List, ast.Tuple)):
        return None
    elements = returns[0].value.elts
    if len(elements) == 2 and isinstance(elements[0], (ast.List, ast.Tuple)) and isinstance(elements[1], ast.Dict):
        positional, keywords = elements[0].elts, elements[1]
        if any(k is None or not (isinstance(k, ast.Constant) and isinstance(k.value, str)) for k in keywords.keys):
            return None
        named = [(k.value, v) for k, v in zip(keywords.keys, keywords.values)]
    else:
        positional, named = elements, []
    if any(isinstance(e, ast.Starred) for e in positional):
        return None
    return [(None, e) for e in positional] + named


def _init_parameters(tree: ast.Module) -> list[str]:
    """The names of `Model.__init__`'s positional parameters after self (those get_init_inputs' positions bind)."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    model = classes.get("Model")
    for node in tree.body:  # `Model = SomeModule`
        if (
            isinstance(node, ast.Assign)
            and [getattr(t, "id", None) for t in node.targets] == ["Model"]
            and isinstance(node.value, ast.Name)
        ):
            model = classes.get(node.value.id)
    init = next(
        (f for f in (model.body if model else []) if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None
    )
    if init is None:
        return []
    return [a.arg for a in [*init.args.posonlyargs, *init.args.args][1:]]


def input_dimension_sites(source: str) -> set[str]:
    """Module-level constant sites that size a tensor made in `get_inputs` (`b` of `torch.rand(b, i)`, the elements
    of `input_shape` in `torch.rand(n, *input_shape)`, also through a tuple's named elements and get_inputs' locals):
    sizes whatever their name or value, unlike a constant that only reaches the model (a group count, a kernel
    size)."""
    tree = syntax.parse(source)
    inputs = _function(tree, "get_inputs")
    if inputs is None:
        return set()
    roots = [d for dimensions in _input_dimensions(tree) for d in dimensions]
    found = _follow(roots, _Scope(inputs.body, inputs.args), _Scope(tree.body, module=True), LITERAL_PREFIX)
    return set(found) & set(_constant_nodes(source))


def batch_sites(source: str) -> set[str]:
    """The sites that size the first dimension of the first tensor `get_inputs` makes (a batch, a matmul's M): a size
    of 1 there is a batch of one or a GEMV, where answers often take another path."""
    tree = syntax.parse(source)
    inputs, dimensions = _function(tree, "get_inputs"), _input_dimensions(tree)
    if inputs is None or not dimensions or not dimensions[0]:
        return set()
    first = dimensions[0][0]
    found = _follow([first], _Scope(inputs.body, inputs.args), _Scope(tree.body, module=True), LITERAL_PREFIX)
    found.update({name: node for name, node in _literal_nodes(tree).items() if node is first})  # `torch.rand(16, 64)`
    return set(found) & set(shape_sites(source))


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
    value = eval(syntax.compile_tree(ast.Expression(node), "<shape>", "eval"), {"__builtins__": {}})  # noqa: S307 - integer literals only
    return ast.Constant(value)


def with_shapes(source: str, overrides: Mapping[str, int]) -> str:
    """Return `source` with each named site (constant, get_inputs literal or local, get_init_inputs argument) set to
    its new value."""
    nodes = _site_nodes(source) if overrides else {}
    unknown = sorted(set(overrides) - set(nodes))
    if unknown:
        constants = sorted(_constant_nodes(source))
        known = constants + [name for name in nodes if name not in constants]
        raise ShapeError(
            f"shape constants {unknown} are not defined at module level, as get_inputs size literals or locals or as "
            f"get_init_inputs arguments; the problem defines {known}"
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
