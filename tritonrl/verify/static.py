"""Static (AST) layer of the verifier: the grammar of a legitimate Triton answer.

`check_static(code)` parses a candidate (never executes it) and returns a
`Reason` for every construct outside the grammar. It is an allow-list: the
host code of a Triton answer is stereotyped, so instead of listing tricks the
checker lists what an answer may contain and rejects everything else, in the
whole module (module-level code, class bodies, decorators and their
arguments, default arguments, annotations, lambdas, kernels).

Host code (everything outside `@triton.jit` bodies) may:
- import torch, torch.nn(.functional), triton, triton.language, math, typing
  (and functools/dataclasses for `lru_cache`/`dataclass`);
- name only allow-listed names of those modules (`static_rules.ALLOWED_NAMES`):
  allocation, layout glue, dtypes and devices, parameter containers and
  torch.nn classes held for their parameters, `triton.cdiv`, Triton's
  decorators with plain-data arguments (no hooks, prune or bench functions);
  library functions and classes are called, subclassed or named in
  isinstance()/annotations, never handed around as values;
- call allow-listed builtins and methods (sizes, views, casts, containers),
  read allow-listed attributes (tensor, module, device and dtype
  descriptions), call and read what the file itself defines, launch kernels;
- set attributes only on the objects its methods own (`self.x = ...`; `self`
  is never rebound and a method is never taken from its class unbound).
Kernel bodies may name only triton.language/math, their own parameters and
locals, the file's kernels and constants, and a few builtins.
Nowhere: dunder names and attributes (beyond `__init__`, `__call__`,
`__repr__`, `__str__` methods and `__all__`), frames and other interpreter
internals, reflection (`getattr` with computed names, `vars`, `type`,
format strings with attribute access), `sys`/`os`/`builtins`/`operator`,
torch internals, tensor or container subclasses, methods overriding
`nn.Module`'s machinery, names that are never defined, try/except fallbacks
around launches.

Code that can never run is not judged: the bodies of top-level functions and
classes nothing loads (e.g. a restated reference `Model`; its class body must
be inert), the methods of a class only ever subclassed that every subclass
overrides without calling them (`class ModelNew(Model)` over a restated
`Model` whose `forward` it replaces), and the body of `if __name__ == "__main__":` (the module is never
imported as `__main__`; its `else` branch is judged).

What the grammar cannot see, the runtime layer's aten trace and launch hook
can (tensor arithmetic through operators, nn modules called through values,
branches never taken, memoisation, precision): the grammar's job is to make
tampering with that evidence inexpressible. Branches on the device, which a
CPU run never takes the GPU's side of, are followed by device_paths.py on
this layer's view of the file.

Every rejection names the construct, its line and what to write instead; a
source the checker cannot analyse fails closed with SYNTAX_ERROR.

Test: tests/verify/test_static.py (`.venv/bin/python -m pytest tests/verify/test_static.py -q`).
"""

from __future__ import annotations

import ast
import builtins
import collections.abc
import functools
import importlib
import inspect
import os
import pathlib
import string
import types
from dataclasses import dataclass, field

import torch.nn

from tritonrl import syntax
from tritonrl.verify.result import Reason
from tritonrl.verify.result import ReasonCode as R
from tritonrl.verify.static_rules import (
    ALLOWED_BASES,
    ALLOWED_BUILTINS,
    ALLOWED_CONTEXTS,
    ALLOWED_DECORATORS,
    ALLOWED_DUNDER_METHODS,
    ALLOWED_DUNDER_TARGETS,
    ALLOWED_METHODS,
    ALLOWED_MODULES,
    ALLOWED_NAMES,
    ALLOWED_PREFIXES,
    ARGUMENT_PROTOCOL,
    CACHING_DECORATORS,
    CATEGORIES,
    CLASS_DECORATORS,
    COMPUTE_METHODS,
    DECORATOR_KEYWORD_RISKS,
    DECORATOR_KEYWORDS,
    DECORATOR_POSITIONAL,
    HINTS,
    HOST_METHODS,
    INERT_DECORATORS,
    KERNEL_BUILTINS,
    KERNEL_VALUE_ATTRS,
    LAUNCHER_METHODS,
    NN_CONTAINERS,
    RESERVED_ATTRS,
    TRITON_DECORATORS,
    VALUE_ATTRS,
)

# nn.Module attributes the harness relies on (construction, weights, calling): a module's method with
# one of these names would run answer code where no check looks.
_MODULE_MACHINERY = frozenset(dir(torch.nn.Module)) - {"forward", "extra_repr", "__init__", "__call__", "__repr__"}
_CTX_METHODS = frozenset({"forward", "backward", "setup_context", "jvp"})  # autograd staticmethods taking ctx
# An autograd Function's methods that autograd runs to differentiate, never in a forward call, and an answer cannot
# call itself (`Function.backward` taken from the class is refused): gradients may be computed with torch there. A
# backward that autograd does run inside forward is computation the runtime trace sees.
_GRADIENT_METHODS = frozenset({"backward", "jvp"})


def _nn_attributes() -> frozenset[str]:
    """What torch.nn modules are configured with (`conv.padding`, `ln.eps`): their constants, constructor
    arguments and annotated attributes — read by answers that use a module as a parameter holder."""
    names: set[str] = set()
    for cls in vars(torch.nn).values():
        if isinstance(cls, type) and issubclass(cls, torch.nn.Module):
            for klass in cls.__mro__:
                names |= set(getattr(klass, "__constants__", ())) | set(vars(klass).get("__annotations__", {}))
            try:
                names |= set(inspect.signature(cls.__init__).parameters)
            except (TypeError, ValueError):
                continue
    return frozenset(n for n in names if not n.startswith("_")) - RESERVED_ATTRS


_NN_ATTRS = _nn_attributes()


def check_static(code: str, reference_names: frozenset[str] = frozenset({"Model"})) -> list[Reason]:
    """Every grammar rule `code` breaks (empty: statically valid). Never executes `code`, never raises."""
    if not isinstance(code, str):
        return [Reason(R.NO_CODE, f"expected Python source text, got {type(code).__name__}")]
    try:
        tree = syntax.parse(code)
    except SyntaxError as exc:
        return [Reason(R.SYNTAX_ERROR, f"line {exc.lineno or '?'}: {exc.msg}")]
    except (ValueError, RecursionError, MemoryError, OverflowError) as exc:
        return [Reason(R.SYNTAX_ERROR, f"source does not parse: {exc}")]
    try:
        return _Checker(tree, frozenset(reference_names)).run()
    except RecursionError:
        return [Reason(R.SYNTAX_ERROR, "source nests too deeply to analyse; flatten the code")]
    except Exception as exc:  # fail closed: an unanalysable candidate is never valid
        return [Reason(R.SYNTAX_ERROR, f"static analysis could not handle this source ({type(exc).__name__}: {exc})")]


# Calls whose value is a constant when their arguments are (module-level constants read by kernels).
_CONSTANT_BUILTINS = frozenset({"float", "int", "bool", "abs", "min", "max"})
_CONSTANT_CALLS = frozenset(
    {
        "triton.language.constexpr",
        "triton.language.core.constexpr",
        "triton.cdiv",
        "triton.next_power_of_2",
        "torch.finfo",
        "torch.iinfo",
    }
    | {f"builtins.{name}" for name in _CONSTANT_BUILTINS}
)
_FINFO_VALUES = frozenset({"max", "min", "eps", "tiny", "bits", "resolution", "smallest_normal"})


def _is_dtype(q: str) -> bool:
    """`triton.language.float32`, `torch.float32` and the like: a dtype, not a function a constant could carry."""
    import triton.language

    ok, obj = _lookup_real(q) if q.startswith(("triton.language.", "torch.")) else (False, None)
    return ok and isinstance(obj, (triton.language.dtype, torch.dtype))


def _paired(target: ast.expr, value: ast.expr):
    """(name, value) for each name an assignment binds: `A = v`; `A, B = v1, v2` pairs them; any other target
    binds its names to no readable value (None)."""
    if isinstance(target, ast.Name):
        yield target.id, value
    elif (
        isinstance(target, (ast.Tuple, ast.List))
        and isinstance(value, (ast.Tuple, ast.List))
        and len(target.elts) == len(value.elts)
        and not any(isinstance(e, ast.Starred) for e in target.elts)
    ):
        for part, item in zip(target.elts, value.elts):
            yield from _paired(part, item)
    else:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                yield node.id, None


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_main_guard(node: ast.stmt) -> bool:
    test = getattr(node, "test", None)
    return (
        isinstance(node, ast.If)
        and isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.Eq)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def is_nn_class(q: str) -> bool:
    """`torch.nn.Linear` and friends: torch.nn classes, held for their parameters."""
    parts = q.split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "nn"] and parts[2][:1].isupper()


def _is_nn_module_class(q: str) -> bool:
    """A torch.nn class that is an nn.Module (so subclassing it makes a module, not a tensor)."""
    cls = getattr(torch.nn, q.split(".")[-1], None) if is_nn_class(q) else None
    return isinstance(cls, type) and issubclass(cls, torch.nn.Module)


def _category(q: str) -> tuple[R, str] | None:
    """The deny-table entry naming why `q` is rejected, looking through leaked modules (`torch.os.environ`)."""
    parts = q.split(".")
    for start in range(len(parts)):
        for end in range(len(parts), start, -1):
            if hit := CATEGORIES.get(".".join(parts[start:end])):
                return hit
    return None


def _lookup_real(q: str) -> tuple[bool, object]:
    """(reaches no other module and no private name, the object or None) for `q` on the real modules.

    Allowed namespaces leak modules as attributes (`triton.language.core.builtins`);
    walking the real objects (getattr on modules runs no answer code) closes every such path.
    """
    parts = q.split(".")
    head = next((i for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in ALLOWED_MODULES), 0)
    if not head or any(p.startswith("_") for p in parts[head:]):
        return False, None
    obj: object = importlib.import_module(".".join(parts[:head]))
    for part in parts[head:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return True, None  # a name this version lacks fails when the answer runs
        if isinstance(obj, types.ModuleType) and obj.__name__ not in ALLOWED_MODULES:
            return False, obj
        if _holds_anything(obj):
            return False, obj
    return True, obj


# Names a file may define for its own objects but that it does not thereby unlock on other values:
# on a tensor, a module, an import loader, a path or os they compute, load code or touch files. (A red
# team defined a method `softmax` to call x.softmax, `load_module` to load any module through a loader.)
_FOREIGN_NAMES = frozenset(
    {n for n in dir(torch.Tensor) + dir(torch.nn.Module) + dir(types.ModuleType) + dir(builtins) + dir(os)}
    | {n for n in dir(pathlib.Path)}
    | {
        "loader",
        "load_module",
        "exec_module",
        "create_module",
        "get_code",
        "get_source",
        "get_data",
        "get_filename",
        "find_spec",
        "find_module",
        "module_repr",
        "submodule_search_locations",
        "origin",
    }
)


# Packages whose own functions, classes and values an answer may name through an allowed namespace.
_VOCABULARY_OWNERS = ("triton", "torch", "math", "__future__")


def _holds_anything(obj: object) -> bool:
    """Whether `obj`, reached as an attribute of an allowed module, is foreign to the answer's vocabulary.

    Modules re-export what they import: `triton.language.extra` holds `sys.modules` (as `modules`) and
    importlib's `module_from_spec`, which reach every module. So a function or class must be defined
    by torch, triton or math itself, a value must be an instance of their types (or a plain number or
    string), and no container qualifies.
    """
    if isinstance(obj, (bool, int, float, complex, str, bytes)):
        return False
    owner = getattr(obj, "__module__", None) if isinstance(obj, type) or callable(obj) else type(obj).__module__
    if not isinstance(owner, str) or owner.split(".")[0] not in _VOCABULARY_OWNERS:
        return True
    if isinstance(obj, type):  # a class (an Enum's too) is vocabulary, whatever it iterates over
        return False
    if isinstance(obj, (collections.abc.Mapping, collections.abc.Collection, types.MappingProxyType)):
        return not isinstance(obj, (torch.Size, torch.dtype)) and not hasattr(type(obj), "__torch_function__")
    return False


_lookup_real = functools.lru_cache(maxsize=4096)(_lookup_real)


def _safe_format_string(text: str) -> bool:
    """A format string whose fields are plain (`{}`, `{0}`, `{n:>4}`): no attribute or index access."""
    try:
        parts = [(f, spec) for _, f, spec, _ in string.Formatter().parse(text) if f is not None]
    except ValueError:
        return False
    return all("." not in f and "[" not in f and "{" not in (spec or "") for f, spec in parts)


# ------------------------------------------------------------------ scopes
@dataclass
class _Scope:
    """Names bound in one function, class body, lambda, comprehension or the module."""

    kind: str  # module | function | class | lambda | comprehension
    parent: _Scope | None
    quals: dict[str, set[str]] = field(default_factory=dict)  # name -> qualified names imported under it
    bound: set[str] = field(default_factory=set)
    globals_: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    self_name: str | None = None  # the first parameter of a method: the object it may set attributes on

    def lookup(self, name: str) -> tuple[str, set[str]]:
        """("qual", names) / ("local", ∅) / ("builtin", {name}) / ("unbound", ∅), by Python's scoping rules.

        At module and class level a builtin's name falls back to the builtin whenever its binding has
        not run (or was deleted), so there the builtin is what is judged.
        """
        scope: _Scope | None = self
        first = True
        while scope is not None:
            if name in scope.globals_:
                scope = _root(scope)
            if first or scope.kind != "class":
                if (
                    scope.kind in ("module", "class")
                    and hasattr(builtins, name)
                    and (name in scope.quals or name in scope.bound)
                ):
                    return "builtin", {name}
                if name in scope.quals:
                    return "qual", scope.quals[name]
                if name in scope.bound:
                    return "local", set()
            first = False
            scope = scope.parent
        return ("builtin", {name}) if hasattr(builtins, name) else ("unbound", set())


def _root(scope: _Scope) -> _Scope:
    while scope.parent is not None:
        scope = scope.parent
    return scope


class _Binder(ast.NodeVisitor):
    """First pass: the scope of every scope-making node and the names each binds."""

    def __init__(self, tree: ast.Module) -> None:
        self.scopes: dict[int, _Scope] = {id(tree): _Scope("module", None)}
        self.local_attrs: set[str] = set()  # attributes the file itself defines or assigns (self._x = ...)
        self.outer: dict[int, _Scope] = {}  # def or call node -> the scope it is evaluated in
        self.method_class: dict[int, ast.ClassDef] = {}  # method node -> its class
        self.functions: set[str] = set()  # names of every def in the file
        self._stack = [self.scopes[id(tree)]]
        self.generic_visit(tree)

    @property
    def scope(self) -> _Scope:
        return self._stack[-1]

    def bind(self, name: str, qual: str | None = None, scope: _Scope | None = None) -> None:
        """Bind where Python binds: `global` names in the module, `nonlocal` ones in the enclosing function."""
        scope = scope or self.scope
        if name in scope.globals_:
            scope = _root(scope)
        elif name in scope.nonlocals:
            outer = scope.parent
            while outer is not None and (outer.kind == "class" or name not in outer.bound | outer.quals.keys()):
                outer = outer.parent
            scope = outer or _root(scope)
        if qual:
            scope.quals.setdefault(name, set()).add(qual)
        else:
            scope.bound.add(name)

    def _enter(self, node: ast.AST, kind: str, params: list[str], children: list) -> None:
        scope = _Scope(kind, self.scope)
        scope.bound.update(params)
        self.scopes[id(node)] = scope
        self._stack.append(scope)
        for child in children:
            self.visit(child)
        self._stack.pop()

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.bind(a.asname or a.name.split(".")[0], a.name if a.asname else a.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            if a.name != "*":
                self.bind(a.asname or a.name, None if node.level else f"{node.module}.{a.name}")

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args
        every = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]
        annotations = [a.annotation for a in every] + [getattr(node, "returns", None)]
        for child in [*getattr(node, "decorator_list", []), *args.defaults, *args.kw_defaults, *annotations]:
            if child is not None:
                self.visit(child)
        in_class = self.scope.kind == "class"
        self.outer[id(node)] = self.scope
        if not isinstance(node, ast.Lambda):
            self.bind(node.name)
            self.functions.add(node.name)
            if in_class:
                self.local_attrs.add(node.name)
        body = node.body if isinstance(node.body, list) else [node.body]
        self._enter(node, "lambda" if isinstance(node, ast.Lambda) else "function", [a.arg for a in every], body)
        positional = args.posonlyargs + args.args
        if in_class and positional and not isinstance(node, ast.Lambda):
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
            if not static or node.name in _CTX_METHODS:
                self.scopes[id(node)].self_name = positional[0].arg  # self, cls, or an autograd method's ctx

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for child in [*node.bases, *node.keywords, *node.decorator_list]:
            self.visit(child)
        if self.scope.kind == "class":
            self.local_attrs.add(node.name)
        self.bind(node.name)
        self._enter(node, "class", [], node.body)
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.method_class[id(stmt)] = node
            for target in getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]:
                if isinstance(target, ast.Name):
                    self.local_attrs.add(target.id)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> None:
        self.visit(node.generators[0].iter)  # evaluated in the enclosing scope
        children = [g.target for g in node.generators]
        rest = [n for g in node.generators for n in (g.ifs + ([g.iter] if g is not node.generators[0] else []))]
        values = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        self._enter(node, "comprehension", [], children + rest + values)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.visit(node.value)
        scope = self.scope  # a walrus inside a comprehension binds in the enclosing function (PEP 572)
        while scope.kind == "comprehension" and scope.parent is not None:
            scope = scope.parent
        self.bind(node.target.id, scope=scope)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.bind(node.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.ctx, ast.Store):
            self.local_attrs.add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        self.outer[id(node)] = self.scope
        func = node.func  # self.register_buffer("name", t) defines self.name
        if isinstance(func, ast.Attribute) and func.attr in ("register_buffer", "register_parameter", "add_module"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                self.local_attrs.add(node.args[0].value)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.scope.globals_.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal) -> None:
        self.scope.nonlocals.update(node.names)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind(node.name)
        self.generic_visit(node)


def _launch_syntax(node: ast.AST) -> bool:
    """`k[grid](...)` or `k.run(...)` / `k.warmup(...)`."""
    return isinstance(node, ast.Call) and (
        isinstance(node.func, ast.Subscript)
        or (isinstance(node.func, ast.Attribute) and node.func.attr in LAUNCHER_METHODS)
    )


# ------------------------------------------------------------------ the checker
class _Checker:
    def __init__(self, tree: ast.Module, reference_names: frozenset[str]) -> None:
        self.tree, self.refs = tree, reference_names
        self.binder = _Binder(tree)
        self.module = self.binder.scopes[id(tree)]
        self.found: list[tuple[int, Reason]] = []
        self.kernels: set[int] = set()  # ids of kernel FunctionDefs
        self.kernel_names: set[str] = set()
        self.launches = 0  # launch sites in live host code
        self.nn_attrs: set[str] = set()  # self.<x> assigned an nn compute module
        self.classes: dict[str, ast.ClassDef] = {s.name: s for s in ast.walk(tree) if isinstance(s, ast.ClassDef)}
        self.class_kinds: dict[str, str] = {}  # "module" | "autograd" | "plain"
        self.own_attrs = self.binder.local_attrs - RESERVED_ATTRS
        self.in_gradient = 0  # inside an autograd Function's backward (_GRADIENT_METHODS): torch compute is allowed
        self._unrun: set[int] = set()  # ids of method and function bodies that never run (their loads do not count)
        self.loads = self._loads()
        while (unrun := self._unrun_bodies()) != self._unrun:  # a name loaded only in such bodies is dead in turn
            self._unrun = unrun
            self.loads = self._loads()

    # -- reporting
    def report(self, code: R, node: ast.AST | None, what: str, why: str = "") -> None:
        if code is R.FORBIDDEN_TORCH_OP and self.in_gradient:
            return
        line = getattr(node, "lineno", 0)
        why = why or {R.FORBIDDEN_TORCH_OP: "compute must happen in Triton kernels"}.get(code, "")
        message = f"{what} ({why})" if why else what
        message += f"; {HINTS[code]}" if code in HINTS else ""
        self.found.append((line, Reason(code, f"line {line}: {message}" if line else message)))

    def run(self) -> list[Reason]:
        if "ModelNew" not in {s.name for s in self.tree.body if isinstance(s, ast.ClassDef)}:
            self.report(R.NO_MODELNEW, None, "no top-level `class ModelNew`", "the solution's entry point")
        self._find_kernels()
        self.kernel_constants = self._kernel_constants()
        self._find_class_kinds()
        self._find_nn_attrs()
        self.launching = self._launching_names()
        for name in sorted(self.binder.local_attrs & RESERVED_ATTRS):
            self.report(
                R.NOT_ALLOWED,
                None,
                f"the file defines an attribute or method named {name}",
                "a name of interpreter, Triton or host-copy internals; pick another name",
            )
        if not self.kernels:
            self.found.append(
                (
                    0,
                    Reason(
                        R.NO_TRITON_KERNEL,
                        "no function decorated with @triton.jit (or triton.autotune / triton.heuristics)",
                    ),
                )
            )
        self.body(self.tree.body, self.module, top=True)
        if self.kernels and not self.launches:
            self.found.append(
                (
                    0,
                    Reason(
                        R.KERNEL_NOT_REACHABLE,
                        "no kernel is launched anywhere "
                        "(write kernel[grid](...) in ModelNew.forward or a helper it calls)",
                    ),
                )
            )
        self.found.sort(key=lambda item: item[0])
        return list(dict.fromkeys(reason for _, reason in self.found))

    # -- facts about the file
    def _live_statements(self) -> list[ast.stmt]:
        return [n for s in self.tree.body for n in ([*s.orelse] if _is_main_guard(s) else [s])]

    def _loads(self, nodes: list[ast.AST] | None = None) -> dict[str, int]:
        """How often each name is loaded in `nodes` (default: the module outside `__main__` blocks), bodies that never
        run aside."""
        counts: dict[str, int] = {}
        stack = list(self._live_statements() if nodes is None else nodes)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                counts[node.id] = counts.get(node.id, 0) + 1
            stack += [child for child in ast.iter_child_nodes(node) if id(child) not in self._unrun]
        return counts

    def _unrun_bodies(self) -> set[int]:
        """The body statements of top-level functions and methods that never run, by the current load counts."""
        unrun: set[int] = set()
        for stmt in self._live_statements():
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and self._dead(stmt):
                unrun |= {id(s) for s in stmt.body}
            elif isinstance(stmt, ast.ClassDef):
                never = (
                    {m.name for m in stmt.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
                    if self._dead(stmt)
                    else self._overridden(stmt)
                )
                unrun |= {
                    id(s)
                    for m in stmt.body
                    if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name in never
                    for s in m.body
                }
        return unrun

    def _dead(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> bool:
        """A top-level def nothing loads (its own body aside) can never run, unless a decorator keeps it."""
        if node.name == "ModelNew" or _is_dunder(node.name):
            return False
        scope = self.module
        for decorator in node.decorator_list:
            func = decorator.func if isinstance(decorator, ast.Call) else decorator
            if not self.quals(func, scope) & INERT_DECORATORS:
                return False
        if isinstance(node, ast.ClassDef) and not all(self._inert(s) for s in node.body):
            return False  # the class body runs at import and could call its own methods
        return self.loads.get(node.name, 0) - self._loads([node]).get(node.name, 0) == 0

    def _overridden(self, node: ast.ClassDef) -> set[str]:
        """Methods of a top-level class that never run: the class is only subclassed (`class ModelNew(Model)` over a
        restated `Model`), every subclass defines the method again, and no super() call names it."""
        subclasses = [
            c
            for c in self._live_statements()
            if isinstance(c, ast.ClassDef) and any(isinstance(b, ast.Name) and b.id == node.name for b in c.bases)
        ]
        as_base = sum(isinstance(b, ast.Name) and b.id == node.name for c in subclasses for b in c.bases)
        if node.name == "ModelNew" or not subclasses or self.loads.get(node.name, 0) != as_base:
            return set()  # built or named somewhere (`Model.forward(self, x)`): its methods can run
        methods = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for sub in subclasses:
            methods &= {s.name for s in sub.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        # super().m anywhere (a mixin's too, which the method resolution order may lead to this class); a super used
        # any other way (`s = super()`, `getattr(super(), name)`) could reach any method: then none is exempt
        named = [
            n.attr
            for n in ast.walk(self.tree)
            if isinstance(n, ast.Attribute)
            and isinstance(n.value, ast.Call)
            and isinstance(n.value.func, ast.Name)
            and n.value.func.id == "super"
        ]
        if len(named) != sum(isinstance(n, ast.Name) and n.id == "super" for n in ast.walk(self.tree)):
            return set()
        return methods - set(named)

    @staticmethod
    def _inert(stmt: ast.stmt) -> bool:
        """A class-body statement that runs nothing: a def, a docstring, pass, a constant."""
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Pass)):
            return True
        value = getattr(stmt, "value", None)
        return isinstance(stmt, (ast.Expr, ast.Assign, ast.AnnAssign)) and (
            value is None
            or all(isinstance(n, (ast.Constant, ast.Tuple, ast.List, ast.expr_context)) for n in ast.walk(value))
        )

    def quals(self, node: ast.expr, scope: _Scope) -> set[str]:
        """The qualified names an import-rooted chain (`tl.load`, `torch.nn.functional`) stands for."""
        if isinstance(node, ast.Name):
            kind, names = scope.lookup(node.id)
            return names if kind == "qual" else {f"builtins.{node.id}"} if kind == "builtin" else set()
        if isinstance(node, ast.Attribute):
            return {f"{q}.{node.attr}" for q in self.quals(node.value, scope) if not q.startswith("builtins.")}
        return set()

    def _find_kernels(self) -> None:
        outer = self.binder.outer
        jitted: set[str] = set()  # kernel = triton.jit(fn), at module level only
        for stmt in self._live_statements():
            if (
                isinstance(stmt, ast.Assign)
                and isinstance(stmt.value, ast.Call)
                and (self.quals(stmt.value.func, self.module) & TRITON_DECORATORS)
            ):
                jitted |= {a.id for a in stmt.value.args if isinstance(a, ast.Name)}
                self.kernel_names |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        self.raw_kernels = jitted  # the undecorated functions behind them: never called directly
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
                top = node in self.tree.body
                if (top and node.name in jitted) or any(
                    self.quals(d, outer.get(id(node), self.module)) & TRITON_DECORATORS for d in decorators
                ):
                    self.kernels.add(id(node))
                    self.kernel_names.add(node.name)

    def _kernel_constants(self) -> set[str]:
        """Module-level names a kernel may read besides other kernels: every module-level binding of the name is a
        plain assignment of a constant (numbers, strings, tuples, triton.language dtypes and constexpr, math
        and triton.cdiv of those, other such constants). The `__main__` guard's body never runs and is skipped."""
        declared_global = {name for n in ast.walk(self.tree) if isinstance(n, ast.Global) for name in n.names}

        def module_level(node: ast.AST):
            for child in ast.iter_child_nodes(node):
                if isinstance(
                    child,
                    (
                        ast.FunctionDef,
                        ast.AsyncFunctionDef,
                        ast.ClassDef,
                        ast.Lambda,
                        ast.ListComp,
                        ast.SetComp,
                        ast.DictComp,
                        ast.GeneratorExp,
                    ),
                ):
                    continue
                if _is_main_guard(child):
                    for stmt in child.orelse:
                        yield stmt
                        yield from module_level(stmt)
                    continue
                yield child
                yield from module_level(child)

        nodes = list(module_level(self.tree))
        bindings = collections.Counter(
            n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
        )
        assigned: dict[str, list[ast.expr]] = {}
        for node in nodes:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for name, value in _paired(target, node.value):
                        assigned.setdefault(name, []).append(value)
        candidates = {
            name: values
            for name, values in assigned.items()
            if bindings[name] == len(values)
            and name not in declared_global
            and name not in self.module.quals
            and name not in self.binder.functions
            and name not in self.classes
        }
        constants: set[str] = set()
        while found := {
            name
            for name, values in candidates.items()  # `HALF = BLOCK // 2`: constants of constants
            if name not in constants and all(v is not None and self._constant_expression(v, constants) for v in values)
        }:
            constants |= found
        return constants

    def _constant_expression(self, value: ast.expr, constants: set[str]) -> bool:
        for node in ast.walk(value):
            if isinstance(
                node,
                (
                    ast.Constant,
                    ast.Tuple,
                    ast.UnaryOp,
                    ast.BinOp,
                    ast.operator,
                    ast.unaryop,
                    ast.expr_context,
                    ast.keyword,
                ),
            ):
                continue
            if isinstance(node, ast.Name) and (
                node.id in constants or node.id in self.kernel_names or self.module.lookup(node.id)[0] == "qual"
            ):
                continue  # another constant, a kernel (`activation = _gelu`); `tl` of `tl.float32`, `math` of `math.pi`
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Call)
                and node.attr in _FINFO_VALUES
                and self.quals(node.value.func, self.module) <= {"torch.finfo", "torch.iinfo"}
            ):
                continue  # torch.finfo(torch.float32).max
            if (
                isinstance(node, ast.Attribute)
                and (names := self.quals(node, self.module))
                and all(
                    q.startswith("math.") or q in _CONSTANT_CALLS or q == "triton.language" or _is_dtype(q)
                    for q in names
                )
            ):
                continue
            if (
                isinstance(node, ast.Name)
                and isinstance(node.ctx, ast.Load)
                and node.id in _CONSTANT_BUILTINS
                and self.module.lookup(node.id)[0] == "builtin"
            ):
                continue  # float("-inf"), int(...)
            if (
                isinstance(node, ast.Call)
                and (names := self.quals(node.func, self.module))
                and all(q.startswith("math.") or q in _CONSTANT_CALLS for q in names)
            ):
                continue
            return False
        return True

    def _find_class_kinds(self) -> None:
        """Which local classes are nn.Modules and which autograd Functions (for ctx and machinery rules)."""

        def kind(name: str, seen: frozenset[str] = frozenset()) -> str:
            cls = self.classes[name]
            for base in cls.bases:
                if isinstance(base, ast.Name) and base.id in self.classes and base.id not in seen:
                    if (k := kind(base.id, seen | {name})) != "plain":
                        return k
                names = self.quals(
                    base, self.binder.outer.get(id(cls.body[0]), self.module) if cls.body else self.module
                )
                if names & {"torch.autograd.Function"}:
                    return "autograd"
                if any(q == "torch.nn.Module" or _is_nn_module_class(q) for q in names):
                    return "module"
            return "plain"

        self.class_kinds = {name: kind(name) for name in self.classes}
        for node_id, cls in self.binder.method_class.items():
            scope = self.binder.scopes[node_id]
            node = next(s for s in cls.body if id(s) == node_id)
            static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)
            if static and self.class_kinds.get(cls.name) != "autograd":
                scope.self_name = None  # only autograd's staticmethods get a ctx

    def _find_nn_attrs(self) -> None:
        """self.linear = nn.Linear(...): calling self.linear later runs PyTorch."""
        for node in ast.walk(self.tree):
            scope = self.binder.scopes.get(id(node))
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not scope.self_name:
                continue
            for sub in ast.walk(node):
                if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call):
                    classes = {q for q in self.quals(sub.value.func, scope) if is_nn_class(q)}
                    if classes and not any(q.rsplit(".", 1)[-1] in NN_CONTAINERS for q in classes):
                        self.nn_attrs |= {
                            t.attr
                            for t in sub.targets
                            if isinstance(t, ast.Attribute)
                            and isinstance(t.value, ast.Name)
                            and t.value.id == scope.self_name
                        }

    def _launching_names(self) -> set[str]:
        """Functions and methods that launch a kernel, directly or through another such name."""
        bodies = {
            n.name: n
            for n in ast.walk(self.tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(n) not in self.kernels
        }
        refs = {
            name: {
                x.id if isinstance(x, ast.Name) else x.attr
                for x in ast.walk(node)
                if isinstance(x, ast.Name) or isinstance(x, ast.Attribute)
            }
            for name, node in bodies.items()
        }
        launching = {name for name, node in bodies.items() if any(_launch_syntax(x) for x in ast.walk(node))}
        launching |= {name for name, r in refs.items() if r & self.kernel_names}
        while True:
            more = {name for name, r in refs.items() if r & launching} - launching
            if not more:
                return launching
            launching |= more

    # -- statements
    def body(self, stmts: list[ast.stmt], scope: _Scope, top: bool = False) -> None:
        for stmt in stmts:
            if top and _is_main_guard(stmt):
                self.body(stmt.orelse, scope)
            else:
                self.stmt(stmt, scope)

    def stmt(self, node: ast.stmt, scope: _Scope) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(node, scope)
        elif isinstance(node, ast.ClassDef):
            self.klass(node, scope)
        elif isinstance(node, ast.Import):
            for a in node.names:
                self.imported(node, a.name, module_only=True)
        elif isinstance(node, ast.ImportFrom):
            self.import_from(node)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.MatMult):
                self.report(R.FORBIDDEN_TORCH_OP, node, "`@=` (matrix multiply operator)")
            for target in getattr(node, "targets", None) or [node.target]:
                self.target(target, scope, attributes=True)
            if node.value is not None:
                self.expr(node.value, scope)
            if isinstance(node, ast.AnnAssign):
                self.type_expr(node.annotation, scope)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.target(target, scope, attributes=True)
        elif isinstance(node, (ast.Expr, ast.Return)):
            if node.value is not None:
                self.expr(node.value, scope)
        elif isinstance(node, ast.Raise):
            for part in (node.exc, node.cause):
                if part is not None:
                    self.expr(part, scope)
        elif isinstance(node, ast.Assert):
            self.expr(node.test, scope)
            if node.msg is not None:
                self.expr(node.msg, scope)
        elif isinstance(node, (ast.If, ast.While)):
            self.expr(node.test, scope)
            self.body(node.body + node.orelse, scope)
        elif isinstance(node, ast.For):
            self.target(node.target, scope)
            self.expr(node.iter, scope)
            self.body(node.body + node.orelse, scope)
        elif isinstance(node, ast.With):
            self.with_(node, scope)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.try_(node, scope)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                if _is_dunder(name) or hasattr(builtins, name):
                    self.report(
                        R.DYNAMIC_CODE,
                        node,
                        f"{type(node).__name__.lower()} {name}",
                        "rebinds interpreter state or a builtin",
                    )
        elif not isinstance(node, (ast.Pass, ast.Break, ast.Continue)):
            self.report(
                R.NOT_ALLOWED, node, f"`{type(node).__name__}` statement", "not part of a Triton answer's host code"
            )

    def imported(self, node: ast.AST, q: str, module_only: bool) -> None:
        if q.split(".")[0] in self.refs or q.rsplit(".", 1)[-1] in self.refs:
            self.report(R.REFERENCE_MODEL_USE, node, f"import of {q}", "the reference model must not be used")
        elif q in ALLOWED_MODULES or (not module_only and self._allowed_name(q)):
            return
        else:
            code, why = _category(q) or (
                (R.FORBIDDEN_TORCH_OP, "PyTorch compute")
                if q.startswith("torch.")
                else (R.FORBIDDEN_IMPORT, "not needed by a Triton answer")
            )
            self.report(code, node, f"import of {q}", why)

    def import_from(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.report(
                R.FORBIDDEN_IMPORT,
                node,
                f"relative import from {'.' * node.level}{node.module or ''}",
                "reaches whatever package the harness runs in",
            )
            return
        for a in node.names:
            if a.name == "*":
                self.report(R.FORBIDDEN_IMPORT, node, f"from {node.module} import *", "import names explicitly")
            else:
                self.imported(node, f"{node.module}.{a.name}", module_only=node.module not in ALLOWED_MODULES)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope, body_runs: bool = True) -> None:
        """Everything that runs when the `def` runs (decorators, defaults, annotations), and the body unless it never runs."""
        inner = self.binder.scopes[id(node)]
        for decorator in node.decorator_list:
            self.decorator(decorator, scope, node)
        self._signature(node.args, scope, inner)
        if node.returns is not None:
            self.type_expr(node.returns, scope)
        if isinstance(node, ast.AsyncFunctionDef):
            self.report(R.STREAM_OR_THREAD, node, f"async def {node.name}", "coroutines run outside the call")
        if scope.kind == "class":
            self._method_name(node, scope)
        elif _is_dunder(node.name):
            self.report(R.MONKEYPATCH, node, f"defines {node.name}", "Python calls it implicitly")
        if id(node) in self.kernels:
            _KernelRules(self, inner).check(node)
        elif body_runs and not (scope is self.module and self._dead(node)):
            cls = self.binder.method_class.get(id(node))
            gradient = (
                node.name in _GRADIENT_METHODS and cls is not None and self.class_kinds.get(cls.name) == "autograd"
            )
            self.in_gradient += gradient
            try:
                self.body(node.body, inner)
            finally:
                self.in_gradient -= gradient

    def _signature(self, args: ast.arguments, scope: _Scope, inner: _Scope) -> None:
        for default in [*args.defaults, *filter(None, args.kw_defaults)]:
            self.expr(default, scope)
        owner = self._owner(scope)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]:
            if _is_dunder(arg.arg):
                self.report(R.DYNAMIC_CODE, arg, f"parameter {arg.arg}", "reaches interpreter internals")
            if inner.kind == "lambda" and arg.arg == owner:
                self.report(
                    R.MONKEYPATCH,
                    arg,
                    f"lambda parameter {arg.arg} shadows the method's {owner}",
                    "self must stay the answer's own object",
                )
            if arg.annotation is not None:
                self.type_expr(arg.annotation, scope)

    def _method_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        name = node.name
        cls = self.binder.method_class.get(id(node))
        if _is_dunder(name) and name not in ALLOWED_DUNDER_METHODS:
            self.report(
                R.MONKEYPATCH,
                node,
                f"defines {name}",
                "Python calls dunder methods implicitly, outside the checked call",
            )
        elif name in ARGUMENT_PROTOCOL:
            self.report(
                R.MONKEYPATCH,
                node,
                f"defines a method {name}()",
                "Triton's launcher calls it on kernel arguments, inside the launch",
            )
        elif cls is not None and self.class_kinds.get(cls.name) == "module" and name in _MODULE_MACHINERY:
            self.report(
                R.MONKEYPATCH,
                node,
                f"overrides nn.Module.{name}",
                "the harness builds, loads and calls the module through it",
            )

    def decorator(self, node: ast.expr, scope: _Scope, target: ast.AST) -> None:
        func = node.func if isinstance(node, ast.Call) else node
        names = self.quals(func, scope)
        allowed = TRITON_DECORATORS | ALLOWED_DECORATORS | INERT_DECORATORS
        if isinstance(target, ast.ClassDef):
            allowed = CLASS_DECORATORS
        if names & allowed:
            if names & CACHING_DECORATORS and getattr(target, "name", "") in self.launching:
                self.report(
                    R.NOT_ALLOWED,
                    node,
                    f"@{ast.unparse(func)} on {target.name}, which launches kernels",
                    "a cached launcher returns old outputs; cache only sizes and configs",
                )
            if isinstance(node, ast.Call):
                self.expr(node, scope)
            else:
                self.expr_as(node, scope, "call")
            return
        if not any(_category(q) for q in names):
            self.report(
                R.NOT_ALLOWED,
                node,
                f"decorator @{ast.unparse(node)[:60]}",
                "only Triton's decorators, staticmethod, classmethod, property, torch.no_grad, "
                "functools.lru_cache and dataclasses.dataclass may wrap",
            )
        self.expr(node, scope)

    def klass(self, node: ast.ClassDef, scope: _Scope) -> None:
        inner = self.binder.scopes[id(node)]
        for base in node.bases:
            self.base(base, scope, node.name)
        for keyword in node.keywords:
            self.report(R.NOT_ALLOWED, keyword, f"class {node.name}({keyword.arg}=...)", "metaclasses run hidden code")
        for decorator in node.decorator_list:
            self.decorator(decorator, scope, node)
        dead = scope is self.module and self._dead(node)
        overridden = self._overridden(node) if scope is self.module else set()
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # a method that never runs: judge only what runs at class creation (its return annotation too)
                self.function(stmt, inner, body_runs=not (dead or stmt.name in overridden))
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Pass, ast.ClassDef)):
                self.stmt(stmt, inner)
            else:
                self.report(
                    R.NOT_ALLOWED,
                    stmt,
                    f"`{type(stmt).__name__}` in the body of class {node.name}",
                    "class bodies hold methods, nested classes and constants",
                )

    def base(self, node: ast.expr, scope: _Scope, cls: str) -> None:
        if isinstance(node, ast.Name) and node.id in self.refs and node.id not in self.classes:
            self.report(
                R.REFERENCE_MODEL_USE, node, f"class {cls} subclasses {node.id}", "the reference model must not be used"
            )
            return
        if isinstance(node, ast.Name) and node.id in self.classes and scope.lookup(node.id)[0] == "local":
            return  # a class of this file
        names = self.quals(node, scope)
        if names and all(q in ALLOWED_BASES or _is_nn_module_class(q) for q in names):
            return
        if names & {"torch.Tensor", "torch.nn.Parameter", "torch.nn.Buffer"}:
            self.report(
                R.MONKEYPATCH,
                node,
                f"class {cls} subclasses a tensor class",
                "a tensor subclass can fake results or defer work past the checks",
            )
        else:
            self.report(
                R.NOT_ALLOWED,
                node,
                f"class {cls} subclasses {ast.unparse(node)[:60]}",
                "answers subclass nn.Module, torch.nn modules, autograd.Function, exceptions or their own classes",
            )

    def target(self, node: ast.expr, scope: _Scope, attributes: bool = False) -> None:
        """An assignment target; attribute and item targets only in plain assignments (`attributes`)."""
        if isinstance(node, ast.Name):
            if _is_dunder(node.id) and node.id not in ALLOWED_DUNDER_TARGETS:
                self.report(R.MONKEYPATCH, node, f"{node.id} rebound", "interpreter and harness state")
            elif node.id == self._owner(scope):
                self.report(R.MONKEYPATCH, node, f"{node.id} rebound", "self must stay the answer's own object")
            return
        if isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                self.target(elt, scope, attributes)
        elif isinstance(node, ast.Starred):
            self.target(node.value, scope, attributes)
        elif not attributes:
            self.report(
                R.NOT_ALLOWED,
                node,
                f"{ast.unparse(node)[:60]} as a loop, with or comprehension target",
                "assign attributes and items in plain assignments",
            )
        elif isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                if isinstance(root, ast.Attribute) and _is_dunder(root.attr):
                    self.report(R.MONKEYPATCH, node, f"{ast.unparse(node)[:60]} set", "interpreter internals")
                    return
                root = root.value
            owner = self._owner(scope)
            if not (isinstance(root, ast.Name) and owner is not None and root.id == owner):
                self.report(
                    R.MONKEYPATCH,
                    node,
                    f"{ast.unparse(node)[:60]} set",
                    "an answer sets attributes only on its own objects (self.x = ...)",
                )
            elif isinstance(node.value, ast.Attribute):  # self.a.b = ...: b belongs to whatever self.a holds
                self.report(
                    R.NOT_ALLOWED,
                    node,
                    f"{ast.unparse(node)[:60]} set",
                    "set attributes on self itself (self.x = ...), not on objects it holds",
                )
            elif isinstance(node.value, ast.Subscript):
                self.expr(node.value, scope)
        elif isinstance(node, ast.Subscript):
            if self.quals(node.value, scope):
                self.report(R.MONKEYPATCH, node, f"{ast.unparse(node)[:60]} set", "patches a module's state")
            self.expr(node.value, scope)
            self.expr(node.slice, scope)

    def _on_self(self, value: ast.AST | None, scope: _Scope) -> bool:
        """`self.attr`: the answer's own object, where whatever it defines is its own."""
        return isinstance(value, ast.Name) and value.id == self._owner(scope)

    def _owner(self, scope: _Scope | None) -> str | None:
        """The `self` of the innermost enclosing method (lambdas and comprehensions see it too)."""
        while scope is not None and scope.kind in ("lambda", "comprehension"):
            scope = scope.parent
        return scope.self_name if scope is not None else None

    def with_(self, node: ast.With, scope: _Scope) -> None:
        for item in node.items:
            expr = item.context_expr
            names = self.quals(expr.func, scope) if isinstance(expr, ast.Call) else self.quals(expr, scope)
            self.expr(expr, scope)
            if not names & ALLOWED_CONTEXTS and not any(_category(q) for q in names):
                self.report(
                    R.NOT_ALLOWED,
                    expr,
                    f"with {ast.unparse(expr)[:60]}",
                    "only torch.no_grad(), torch.inference_mode() and torch.cuda.device(...) are needed",
                )
            if item.optional_vars is not None:
                self.target(item.optional_vars, scope)
        self.body(node.body, scope)

    def try_(self, node: ast.Try, scope: _Scope) -> None:
        reraises = all(all(isinstance(s, ast.Raise) for s in h.body) for h in node.handlers)
        if (not reraises or node.finalbody) and self._launches_in(node.body):
            self.report(
                R.EXCEPTION_FALLBACK, node, "kernel launch inside try", "a failing kernel must fail, not fall back"
            )
        self.body(node.body, scope)
        for handler in node.handlers:
            if handler.type is not None:
                self.expr(handler.type, scope)
            self.body(handler.body, scope)
        self.body(node.orelse + node.finalbody, scope)

    def _launches_in(self, stmts: list[ast.stmt]) -> bool:
        """A launch, or a reference to code of this file that launches (called now or handed on)."""
        for node in (n for s in stmts for n in ast.walk(s)):
            if _launch_syntax(node):
                return True
            name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None
            if name in self.launching or name in self.kernel_names:
                return True
        return False

    # -- expressions
    def expr(self, node: ast.expr, scope: _Scope) -> None:
        if isinstance(node, ast.Name):
            self.name(node, scope)
        elif isinstance(node, ast.Attribute):
            self.attribute(node, scope)
        elif isinstance(node, ast.Call):
            self.call(node, scope)
        elif isinstance(node, ast.Lambda):
            inner = self.binder.scopes[id(node)]
            self._signature(node.args, scope, inner)
            self.expr(node.body, inner)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            inner = self.binder.scopes[id(node)]
            for index, gen in enumerate(node.generators):
                self.target(gen.target, inner)
                self.expr(gen.iter, scope if index == 0 else inner)
                for cond in gen.ifs:
                    self.expr(cond, inner)
            for value in [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]:
                self.expr(value, inner)
        elif isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
            self.report(
                R.NOT_ALLOWED, node, f"`{type(node).__name__.lower()}`", "answers need no coroutines or generators"
            )
        elif isinstance(node, ast.NamedExpr):
            self.target(node.target, scope)
            self.expr(node.value, scope)
        else:
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.value, ast.Name)
                and node.value.id in self.kernel_names
            ):
                self.launches += 1  # launch = kernel[grid]; launch(...)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                self.report(R.FORBIDDEN_TORCH_OP, node, f"`{ast.unparse(node)[:60]}` (matrix multiply operator)")
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, scope)

    def expr_as(self, node: ast.expr, scope: _Scope, use: str) -> None:
        if isinstance(node, ast.Name):
            self.name(node, scope, use)
        elif isinstance(node, ast.Attribute):
            self.attribute(node, scope, use)
        else:
            self.expr(node, scope)

    def type_expr(self, node: ast.expr, scope: _Scope) -> None:
        """An annotation or isinstance() class: the one place classes may appear as plain values."""
        if isinstance(node, (ast.Name, ast.Attribute)):
            self.expr_as(node, scope, "type")
        elif isinstance(node, ast.Subscript):
            self.type_expr(node.value, scope)
            self.type_expr(node.slice, scope)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                self.type_expr(elt, scope)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self.type_expr(node.left, scope)
            self.type_expr(node.right, scope)
        elif not isinstance(node, ast.Constant):  # a string annotation is never evaluated (no get_type_hints)
            self.expr(node, scope)

    def name(self, node: ast.Name, scope: _Scope, use: str = "value") -> None:
        if _is_dunder(node.id):
            self.report(R.DYNAMIC_CODE, node, f"{node.id} used", "reaches interpreter internals")
            return
        kind, names = scope.lookup(node.id)
        if node.id in self.refs and node.id not in self.classes:
            self.report(R.REFERENCE_MODEL_USE, node, f"{node.id} used", "the reference model must not be used")
        elif kind == "unbound":
            self.report(R.NOT_ALLOWED, node, f"{node.id} is never defined", "every name must be defined in the file")
        elif kind == "local" and use == "value" and node.id in self.classes:
            self.report(
                R.NOT_ALLOWED,
                node,
                f"class {node.id} used as a value",
                "call it, subclass it or name it in isinstance(); a class handed around can bind its "
                "methods to foreign objects",
            )
        elif kind == "local" and node.id in self.raw_kernels:
            self.report(
                R.NOT_ALLOWED,
                node,
                f"{node.id}, the function behind a triton.jit kernel, used directly",
                "its body is kernel code; launch the kernel instead",
            )
        elif kind == "qual":
            for q in sorted(names):
                self.qualified(node, q, use)
        elif kind == "builtin" and node.id not in ALLOWED_BUILTINS:
            code, why = _category(f"builtins.{node.id}") or (R.NOT_ALLOWED, "not needed by a Triton answer")
            self.report(code, node, f"builtin {node.id}", why)

    def _allowed_name(self, q: str) -> bool:
        return q in ALLOWED_NAMES or is_nn_class(q) or (q.startswith(ALLOWED_PREFIXES) and _lookup_real(q)[0])

    def qualified(self, node: ast.AST, q: str, use: str) -> None:
        """Judge an import-rooted name; `use` is "value", "call", "type" or "base" (of a longer chain)."""
        if q in ALLOWED_MODULES:
            if use != "base":
                self.report(R.NOT_ALLOWED, node, f"module {q} used as a value", "use its functions by name")
            return
        if self._allowed_name(q):
            real = _lookup_real(q)[1]
            if q.startswith("triton.language.") and callable(real) and not isinstance(real, type) and use != "type":
                # The interpreter runs them for real on the pointers a grid callable's meta holds.
                self.report(
                    R.NOT_ALLOWED,
                    node,
                    f"{q} {'called' if use == 'call' else 'used'} in host code",
                    "triton.language functions belong inside @triton.jit kernels; host code only "
                    "allocates, reshapes and launches",
                )
                return
            if use == "value" and callable(real) and not isinstance(real, torch.dtype):
                self.report(
                    R.NOT_ALLOWED,
                    node,
                    f"{q} used as a value",
                    "call library functions and classes by name; name classes only in isinstance() and annotations",
                )
            return
        hit = _category(q)
        if hit is None and q.startswith("torch."):
            hit = R.FORBIDDEN_TORCH_OP, "PyTorch compute; host code only allocates, reshapes and launches"
        code, why = hit or (R.NOT_ALLOWED, "not among the names a Triton answer needs")
        self.report(code, node, f"{q} {'called' if use == 'call' else 'used'}", why)

    def attribute(self, node: ast.Attribute, scope: _Scope, use: str = "value") -> None:
        if _is_dunder(node.attr):
            self.report(R.DYNAMIC_CODE, node, f".{node.attr} used", "reaches interpreter internals")
            return
        names = self.quals(node, scope)
        if names:
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and _is_dunder(root.id):
                self.report(R.DYNAMIC_CODE, root, f"{root.id} used", "reaches interpreter internals")
                return
            for q in sorted(names):
                self.qualified(node, q, use)
            return
        self.value_attribute(node, node.attr, scope, called=use == "call")
        if isinstance(node.value, (ast.Name, ast.Attribute)):
            self.expr_as(node.value, scope, "base")
        else:
            self.expr(node.value, scope)

    def value_attribute(self, node: ast.AST, attr: str, scope: _Scope, called: bool) -> None:
        """`value.attr`: a described attribute, glue method, or something this file defines."""
        value = node.value if isinstance(node, ast.Attribute) else None
        cls = value.id if isinstance(value, ast.Name) and value.id in self.classes else None
        if cls is not None and scope.lookup(cls)[0] == "local":
            self._class_attribute(node, cls, attr)
        elif attr in self.refs:
            self.report(R.REFERENCE_MODEL_USE, node, f".{attr} used", "the reference model must not be used")
        elif attr in LAUNCHER_METHODS and not called:  # compared or kept, it tells watched calls from timed ones
            self.report(R.NOT_ALLOWED, node, f".{attr} used other than to launch", "launch with kernel[grid](...)")
        elif attr in VALUE_ATTRS or attr in _NN_ATTRS or attr in ALLOWED_METHODS or attr in LAUNCHER_METHODS:
            return
        elif attr in self.own_attrs and (
            self._on_self(value, scope) or not (attr.startswith("_") or attr in _FOREIGN_NAMES or "hook" in attr)
        ):
            return
        elif attr in HOST_METHODS:
            self.report(R.HOST_ROUNDTRIP, node, f".{attr} used", "copies device data to the host")
        elif attr in COMPUTE_METHODS or attr.removesuffix("_") in COMPUTE_METHODS:
            self.report(R.FORBIDDEN_TORCH_OP, node, f"tensor method .{attr}{'()' if called else ''} used")
        elif "hook" in attr:
            self.report(R.MONKEYPATCH, node, f".{attr} used", "runs code around forward, unseen by the checks")
        else:
            self.report(
                R.NOT_ALLOWED,
                node,
                f".{attr} used",
                "not among the attributes of tensors, modules, devices and dtypes an answer reads, "
                "nor defined by the file",
            )

    def _class_attribute(self, node: ast.AST, cls: str, attr: str) -> None:
        """`LocalClass.attr`: static/class methods, constants, autograd's apply — never an unbound method."""
        body = self.classes[cls].body
        static = {
            s.name
            for s in body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in s.decorator_list)
            and not (self.class_kinds.get(cls) == "autograd" and s.name in _CTX_METHODS)
        }
        constants = {
            t.id
            for s in body
            if isinstance(s, (ast.Assign, ast.AnnAssign)) and self._inert(s)
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target])
            if isinstance(t, ast.Name)
        }
        if attr in static or attr in constants or (attr == "apply" and self.class_kinds.get(cls) == "autograd"):
            return
        self.report(
            R.NOT_ALLOWED,
            node,
            f"{cls}.{attr} taken from the class",
            "call methods on instances (self.method(...)) and autograd Functions with .apply",
        )

    def call(self, node: ast.Call, scope: _Scope) -> None:
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("getattr", "hasattr") and scope.lookup(func.id)[0] == "builtin":
            return self._getattr(node, scope)
        if isinstance(func, ast.Name):
            self.name(func, scope, "call")
        elif isinstance(func, ast.Attribute) and self._super_call(func, scope):
            self.super_call(func, scope)
        elif isinstance(func, ast.Attribute) and func.attr == "__init__" and self._base_init(func, scope, node):
            pass
        elif isinstance(func, ast.Attribute) and self.quals(func, scope):
            self.attribute(func, scope, "call")
        elif isinstance(func, ast.Attribute):
            self.method(node, func, scope)
        else:
            if isinstance(func, ast.Subscript):
                self.launches += 1
            elif isinstance(func, ast.Call) and any(
                is_nn_class(q) and q.rsplit(".", 1)[-1] not in NN_CONTAINERS for q in self.quals(func.func, scope)
            ):
                self.report(
                    R.FORBIDDEN_MODULE_CALL,
                    node,
                    f"nn module call {ast.unparse(func)[:60]}(...)",
                    "holding nn modules for their parameters is fine; calling them runs PyTorch",
                )
            self.expr(func, scope)
        self._decorator_arguments(node, scope)
        typed = isinstance(func, ast.Name) and func.id in ("isinstance", "issubclass") and len(node.args) == 2
        for index, arg in enumerate(node.args):
            (self.type_expr if typed and index == 1 else self.expr)(arg, scope)
        for keyword in node.keywords:
            self.expr(keyword.value, scope)

    def _getattr(self, node: ast.Call, scope: _Scope) -> None:
        """getattr(obj, "name"[, default]) / hasattr(obj, "name"): the same as obj.name, when the name is constant."""
        attr = node.args[1].value if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) else None
        if not isinstance(attr, str) or len(node.args) > 3 or node.keywords:
            self.report(
                R.DYNAMIC_CODE,
                node,
                f"{ast.unparse(node.func)}() with a computed attribute name",
                "a computed name can reach anything",
            )
            return
        self.attribute(ast.copy_location(ast.Attribute(value=node.args[0], attr=attr, ctx=ast.Load()), node), scope)
        for arg in node.args[2:]:
            self.expr(arg, scope)

    def _super_call(self, func: ast.Attribute, scope: _Scope) -> bool:
        value = func.value
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "super"
            and scope.lookup("super")[0] == "builtin"
        )

    def super_call(self, func: ast.Attribute, scope: _Scope) -> None:
        """super().m(...) and super(Cls, self).m(...): the method of the answer's own base classes."""
        args = func.value.args
        owner = self._owner(scope)
        plain = not args or (
            len(args) == 2
            and isinstance(args[0], ast.Name)
            and isinstance(args[1], ast.Name)
            and args[1].id == owner
            and args[0].id in self.classes
        )
        if not plain or func.value.keywords:
            self.report(R.NOT_ALLOWED, func, f"{ast.unparse(func.value)[:60]}", "write super() or super(Cls, self)")
        if func.attr == "__init__" or func.attr == "forward":
            return
        if _is_dunder(func.attr):
            self.report(R.DYNAMIC_CODE, func, f"super().{func.attr}", "reaches interpreter internals")
        else:
            self.value_attribute(func, func.attr, scope, called=True)

    def _base_init(self, func: ast.Attribute, scope: _Scope, node: ast.Call) -> bool:
        """nn.Module.__init__(self) / Base.__init__(self, ...): a base's constructor on the method's own self."""
        base = func.value
        is_base = (isinstance(base, ast.Name) and base.id in self.classes) or any(
            q == "torch.nn.Module" or _is_nn_module_class(q) for q in self.quals(base, scope)
        )
        owner = self._owner(scope)
        return bool(is_base and owner and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == owner)

    def _decorator_arguments(self, node: ast.Call, scope: _Scope) -> None:
        """Triton's decorators and Config take plain data; hooks and callables are Python Triton runs."""
        for q in self.quals(node.func, scope) & DECORATOR_KEYWORDS.keys():
            if any(isinstance(a, ast.Starred) for a in node.args):
                self.report(R.NOT_ALLOWED, node, f"{q} with *arguments", "name the plain-data options by keyword")
            if len(node.args) > DECORATOR_POSITIONAL[q]:
                self.report(
                    R.NOT_ALLOWED,
                    node,
                    f"{q} with {len(node.args)} positional arguments",
                    DECORATOR_KEYWORD_RISKS.get(
                        q, "pass hooks and functions nowhere; name the plain-data options by keyword"
                    ),
                )
            for keyword in node.keywords:
                spelled_none = isinstance(keyword.value, ast.Constant) and keyword.value.value is None
                if keyword.arg is None or (keyword.arg not in DECORATOR_KEYWORDS[q] and not spelled_none):
                    self.report(
                        R.NOT_ALLOWED,
                        keyword,
                        f"{q}({keyword.arg or '**'}=...)",
                        DECORATOR_KEYWORD_RISKS.get(q, "Triton would run this Python for the answer during the launch"),
                    )

    def method(self, node: ast.Call, func: ast.Attribute, scope: _Scope) -> None:
        name = func.attr
        owner = self._owner(scope)
        on_self = isinstance(func.value, ast.Name) and owner is not None and func.value.id == owner
        if name in LAUNCHER_METHODS:
            self.launches += 1
        if _is_dunder(name):
            self.report(R.DYNAMIC_CODE, func, f".{name}() called", "reaches interpreter internals")
        elif on_self and name in self.nn_attrs:
            self.report(
                R.FORBIDDEN_MODULE_CALL,
                node,
                f"nn module call self.{name}(...)",
                "holding nn modules for their parameters is fine; calling them runs PyTorch",
            )
        elif name in ("format", "format_map"):
            text = func.value.value if isinstance(func.value, ast.Constant) else None
            if name == "format_map" or not isinstance(text, str) or not _safe_format_string(text):
                self.report(
                    R.DYNAMIC_CODE,
                    node,
                    f".{name}() called",
                    "format strings with attribute or index fields reach attributes of objects",
                )
        else:
            self.value_attribute(func, name, scope, called=True)
        if isinstance(func.value, (ast.Name, ast.Attribute)):
            self.expr_as(func.value, scope, "base")
        else:
            self.expr(func.value, scope)


class _KernelRules:
    """A @triton.jit body: Triton's language, the kernel's own names, the file's kernels and constants."""

    _STATEMENTS = (
        ast.Assign,
        ast.AugAssign,
        ast.AnnAssign,
        ast.For,
        ast.While,
        ast.If,
        ast.Return,
        ast.Expr,
        ast.Assert,
        ast.Pass,
        ast.Break,
        ast.Continue,
    )

    def __init__(self, checker: _Checker, scope: _Scope) -> None:
        self.c, self.scope = checker, scope

    def check(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for stmt in node.body:
            for sub in ast.walk(stmt):
                self.visit(sub, node.name)

    def visit(self, node: ast.AST, kernel: str) -> None:
        where = f"in kernel {kernel}"
        if isinstance(node, ast.stmt) and not isinstance(node, self._STATEMENTS):
            self.c.report(R.NOT_ALLOWED, node, f"`{type(node).__name__}` statement {where}", "not Triton kernel code")
        elif isinstance(
            node,
            (
                ast.Lambda,
                ast.Await,
                ast.Yield,
                ast.YieldFrom,
                ast.ListComp,
                ast.SetComp,
                ast.DictComp,
                ast.GeneratorExp,
                ast.NamedExpr,
                ast.Starred,
            ),
        ):
            self.c.report(R.NOT_ALLOWED, node, f"`{type(node).__name__}` {where}", "not Triton kernel code")
        elif isinstance(node, ast.Attribute):
            self.attribute(node, where)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            self.c.report(
                R.NOT_ALLOWED,
                node,
                f"item assignment {where}",
                "a kernel writes memory with tl.store, never into Python containers",
            )
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.name(node, where)
        elif isinstance(node, ast.Name) and _is_dunder(node.id):
            self.c.report(R.DYNAMIC_CODE, node, f"{node.id} {where}", "reaches interpreter internals")

    def _module_level(self, name: str) -> bool:
        """Whether `name` here resolves to a module-level binding (not to an enclosing function's)."""
        scope = self.scope.parent
        while scope is not None and scope.parent is not None:
            if scope.kind != "class" and name in scope.bound:
                return False
            scope = scope.parent
        return name in self.c.module.bound

    def attribute(self, node: ast.Attribute, where: str) -> None:
        if _is_dunder(node.attr):
            self.c.report(R.DYNAMIC_CODE, node, f".{node.attr} {where}", "reaches interpreter internals")
        elif isinstance(node.ctx, ast.Store):
            self.c.report(R.NOT_ALLOWED, node, f"attribute assignment {where}", "not Triton kernel code")
        elif names := self.c.quals(node, self.scope):
            bad = sorted(q for q in names if not (q.startswith(("triton.", "math.")) and _lookup_real(q)[0]))
            if bad:
                self.c.report(R.NOT_ALLOWED, node, f"{bad[0]} {where}", "reaches a module outside triton.language")
        elif node.attr not in KERNEL_VALUE_ATTRS:
            self.c.report(
                R.NOT_ALLOWED,
                node,
                f".{node.attr} {where}",
                "kernels use the methods and attributes of triton.language tensors and dtypes",
            )

    def name(self, node: ast.Name, where: str) -> None:
        if _is_dunder(node.id):
            self.c.report(R.DYNAMIC_CODE, node, f"{node.id} {where}", "reaches interpreter internals")
            return
        kind, names = self.scope.lookup(node.id)
        own = node.id in self.scope.bound
        if kind == "qual" and not all(
            q.startswith(("triton.", "math."))
            and _lookup_real(q)[0]
            or q in ALLOWED_MODULES
            and q.startswith(("triton", "math"))
            for q in names
        ):
            code, why = next(filter(None, map(_category, names)), None) or (
                R.FORBIDDEN_TORCH_OP,
                "a kernel computes with triton.language only",
            )
            self.c.report(code, node, f"{', '.join(sorted(names))} {where}", why)
        elif kind == "builtin" and node.id not in KERNEL_BUILTINS:
            code, why = _category(f"builtins.{node.id}") or (R.NOT_ALLOWED, "not Triton kernel code")
            self.c.report(code, node, f"builtin {node.id} {where}", why)
        elif (
            not own
            and kind == "local"
            and (
                node.id in self.c.classes or (node.id in self.c.binder.functions and node.id not in self.c.kernel_names)
            )
        ):
            self.c.report(
                R.NOT_ALLOWED,
                node,
                f"{node.id} (not a @triton.jit function) {where}",
                "a kernel calls only other @triton.jit functions",
            )
        elif (
            not own
            and kind == "local"
            and self._module_level(node.id)
            and not (node.id in self.c.kernel_names or node.id in self.c.kernel_constants)
        ):
            self.c.report(
                R.NOT_ALLOWED,
                node,
                f"{node.id} (neither a @triton.jit function nor a constant) {where}",
                "a kernel reads only other @triton.jit functions and module constants (numbers, "
                "tl dtypes, tl.constexpr) assigned once",
            )
        elif kind == "unbound":
            self.c.report(R.NOT_ALLOWED, node, f"{node.id} is never defined ({where})", "every name must be defined")
        elif node.id in self.c.refs and node.id not in self.c.classes:
            self.c.report(R.REFERENCE_MODEL_USE, node, f"{node.id} {where}", "the reference model must not be used")
