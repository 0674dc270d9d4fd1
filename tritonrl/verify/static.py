"""Static (AST) layer of the verifier: the grammar of a legitimate Triton answer.

`check_static(code)` parses a candidate (never executes it) and returns a
`Reason` for every construct outside the grammar. It is an allow-list: the
host code of a Triton answer is stereotyped, so instead of listing tricks the
checker lists what an answer may contain and rejects everything else, in the
whole module (module-level code, class bodies, decorators and their
arguments, default arguments, lambdas, kernels).

Host code (everything outside `@triton.jit` bodies) may:
- import torch, torch.nn(.functional), triton, triton.language, math, typing;
- name only allow-listed torch/triton names (`static_rules.ALLOWED_NAMES`):
  allocation, layout glue, dtypes and devices, parameter containers and
  torch.nn classes held for their parameters, `triton.cdiv`, Triton's
  decorators with plain-data arguments (no hooks, prune or bench functions);
- call allow-listed builtins and methods (sizes, views, casts, containers),
  the file's own functions and classes, and launch kernels (`kernel[grid](...)`);
- set attributes only on the objects its methods own (`self.x = ...`).
Kernel bodies may name only triton/triton.language/math, their own
parameters and locals, the file's kernels and constants, and a few builtins.
Nowhere: dunder attributes or names, reflection (`getattr`, `vars`,
`str.format`, `type`), `sys`/`os`/`builtins`/`functools`/`operator`, torch
internals, tensor or container subclasses, dunder methods other than
`__init__`, methods overriding `nn.Module`'s machinery, try/except around
launches. Code that can never run is not judged: the methods and bodies of
top-level functions and classes whose names nothing loads (e.g. a restated
reference `Model`), and `if __name__ == "__main__":` blocks (the module is
never imported as `__main__`).

What the grammar cannot see, the runtime layer's aten trace and launch hook
can (tensor arithmetic through operators, nn modules called through values,
branches never taken, memoisation, precision): the grammar's job is to make
tampering with that evidence inexpressible.

Every rejection names the construct, its line and what to write instead; a
source the checker cannot analyse fails closed with SYNTAX_ERROR.

Test: tests/verify/test_static.py (`.venv/bin/python -m pytest tests/verify/test_static.py -q`).
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import types
from dataclasses import dataclass, field

import torch.nn

from tritonrl.verify.result import Reason
from tritonrl.verify.result import ReasonCode as R
from tritonrl.verify.static_rules import (
    ALLOWED_BASES,
    ALLOWED_BUILTINS,
    ALLOWED_CONTEXTS,
    ALLOWED_DECORATORS,
    ALLOWED_METHODS,
    ALLOWED_MODULES,
    ALLOWED_NAMES,
    ALLOWED_PREFIXES,
    ARGUMENT_PROTOCOL,
    CATEGORIES,
    CLASS_NAMES,
    COMPUTE_METHODS,
    DECORATOR_KEYWORDS,
    DECORATOR_POSITIONAL,
    HINTS,
    HOST_METHODS,
    KERNEL_BUILTINS,
    LAUNCHER_METHODS,
    NN_CONTAINERS,
    TRITON_DECORATORS,
)

# nn.Module attributes the harness relies on (construction, weights, calling): a local method with
# one of these names would run answer code where no check looks.
_MODULE_MACHINERY = frozenset(dir(torch.nn.Module)) - {"forward", "extra_repr", "__init__"}
_AUTOGRAD_METHODS = frozenset({"forward", "backward", "setup_context", "jvp", "vmap"})
_CTX_METHODS = frozenset({"forward", "backward", "setup_context", "jvp"})  # autograd staticmethods whose first argument is ctx


def check_static(code: str, reference_names: frozenset[str] = frozenset({"Model"})) -> list[Reason]:
    """Every grammar rule `code` breaks (empty: statically valid). Never executes `code`, never raises."""
    if not isinstance(code, str):
        return [Reason(R.NO_CODE, f"expected Python source text, got {type(code).__name__}")]
    try:
        tree = ast.parse(code)
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


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_main_guard(node: ast.stmt) -> bool:
    test = getattr(node, "test", None)
    return (isinstance(node, ast.If) and isinstance(test, ast.Compare) and isinstance(test.left, ast.Name)
            and test.left.id == "__name__" and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == "__main__")


def is_nn_class(q: str) -> bool:
    """`torch.nn.Linear` and friends: torch.nn classes, held for their parameters."""
    parts = q.split(".")
    return len(parts) == 3 and parts[:2] == ["torch", "nn"] and parts[2][:1].isupper()


def _category(q: str) -> tuple[R, str] | None:
    """The deny-table entry naming why `q` is rejected, looking through leaked modules (`torch.os.environ`)."""
    parts = q.split(".")
    for start in range(len(parts)):
        for end in range(len(parts), start, -1):
            if hit := CATEGORIES.get(".".join(parts[start:end])):
                return hit
    return None


@functools.lru_cache(maxsize=4096)
def _reaches_no_module(q: str) -> bool:
    """`q`, looked up on the real modules, leads to no other module and no private name.

    Allowed namespaces leak modules as attributes (`typing.sys`,
    `triton.language.core.builtins`, `torch.nn.init.torch`); walking the real
    objects (getattr on modules runs no answer code) closes every such path.
    A name that does not exist is harmless: it fails when the answer runs.
    """
    parts = q.split(".")
    head = next((i for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in ALLOWED_MODULES), 0)
    if not head:
        return False
    obj = importlib.import_module(".".join(parts[:head]))
    for part in parts[head:]:
        if part.startswith("_"):
            return False
        obj = getattr(obj, part, None)
        if obj is None:
            return True
        if isinstance(obj, types.ModuleType) and obj.__name__ not in ALLOWED_MODULES:
            return False
    return True


# ------------------------------------------------------------------ scopes
@dataclass
class _Scope:
    """Names bound in one function, class body, lambda, comprehension or the module."""

    kind: str  # module | function | class | lambda | comprehension
    parent: _Scope | None
    quals: dict[str, set[str]] = field(default_factory=dict)  # name -> qualified names imported under it
    bound: set[str] = field(default_factory=set)
    globals_: set[str] = field(default_factory=set)
    self_name: str | None = None  # the first parameter of a method: the object it may set attributes on

    def lookup(self, name: str) -> tuple[str, set[str]]:
        """("qual", names) / ("local", ∅) / ("builtin", {name}) / ("unbound", ∅), by Python's scoping rules."""
        scope: _Scope | None = self
        first = True
        while scope is not None:
            if name in scope.globals_:
                scope = _root(scope)
            if first or scope.kind != "class":
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


_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
                ast.DictComp, ast.GeneratorExp)


class _Binder(ast.NodeVisitor):
    """First pass: the scope of every scope-making node and the names each binds."""

    def __init__(self, tree: ast.Module) -> None:
        self.scopes: dict[int, _Scope] = {id(tree): _Scope("module", None)}
        self.local_attrs: set[str] = set()  # attributes the file itself defines or assigns (self._x = ...)
        self.local_methods: set[str] = set()
        self.outer: dict[int, _Scope] = {}  # def or call node -> the scope it is evaluated in
        self.instance_methods: dict[str, set[str]] = {}  # top-level class -> methods that need an instance
        self._stack = [self.scopes[id(tree)]]
        self.generic_visit(tree)

    @property
    def scope(self) -> _Scope:
        return self._stack[-1]

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
            name = a.asname or a.name.split(".")[0]
            self.scope.quals.setdefault(name, set()).add(a.name if a.asname else a.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            if a.name != "*" and not node.level:
                self.scope.quals.setdefault(a.asname or a.name, set()).add(f"{node.module}.{a.name}")
            elif a.name != "*":
                self.scope.bound.add(a.asname or a.name)

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
            self.scope.bound.add(node.name)
            if in_class:
                self.local_methods.add(node.name)
                self.local_attrs.add(node.name)
        body = node.body if isinstance(node.body, list) else [node.body]
        self._enter(node, "lambda" if isinstance(node, ast.Lambda) else "function", [a.arg for a in every], body)
        positional = args.posonlyargs + args.args
        static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in getattr(node, "decorator_list", []))
        if in_class and positional and not isinstance(node, ast.Lambda) and (not static or node.name in _CTX_METHODS):
            self.scopes[id(node)].self_name = positional[0].arg  # self, cls, or an autograd method's ctx

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for child in [*node.bases, *node.keywords, *node.decorator_list]:
            self.visit(child)
        self.scope.bound.add(node.name)
        if self.scope.kind == "module":
            self.instance_methods[node.name] = {
                s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in s.decorator_list)}
        self._enter(node, "class", [], node.body)
        for stmt in node.body:
            for target in getattr(stmt, "targets", None) or [getattr(stmt, "target", None)]:
                if isinstance(target, ast.Name):
                    self.local_attrs.add(target.id)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp) -> None:
        self.visit(node.generators[0].iter)  # evaluated in the enclosing scope
        children = [g.target for g in node.generators] + [node.generators[0].target]
        rest = [n for g in node.generators for n in (g.ifs + ([g.iter] if g is not node.generators[0] else []))]
        values = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        self._enter(node, "comprehension", [], children + rest + values)

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.scope.bound.add(node.id)

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

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.scope.bound.add(node.name)
        self.generic_visit(node)

    def visit_MatchAs(self, node: ast.AST) -> None:  # match statements are rejected; just keep binding sane
        self.generic_visit(node)


# ------------------------------------------------------------------ the checker
class _Checker:
    def __init__(self, tree: ast.Module, reference_names: frozenset[str]) -> None:
        self.tree, self.refs = tree, reference_names
        self.binder = _Binder(tree)
        self.module = self.binder.scopes[id(tree)]
        self.found: list[tuple[int, Reason]] = []
        self.kernels: set[int] = set()  # ids of kernel FunctionDefs
        self.launches = 0  # launch sites in live host code
        self.nn_attrs: set[str] = set()  # self.<x> assigned an nn compute module
        self.kernel_names: set[str] = set()
        self.loads = self._loads()

    # -- reporting
    def report(self, code: R, node: ast.AST | None, what: str, why: str = "") -> None:
        line = getattr(node, "lineno", 0)
        why = why or {R.FORBIDDEN_TORCH_OP: "compute must happen in Triton kernels"}.get(code, "")
        message = f"{what} ({why})" if why else what
        message += f"; {HINTS[code]}" if code in HINTS else ""
        self.found.append((line, Reason(code, f"line {line}: {message}" if line else message)))

    def run(self) -> list[Reason]:
        names = {s.name for s in self.tree.body if isinstance(s, ast.ClassDef)}
        if "ModelNew" not in names:
            self.report(R.NO_MODELNEW, None, "no top-level `class ModelNew`", "the solution's entry point")
        self._find_kernels()
        self._find_nn_attrs()
        if not self.kernels:
            self.found.append((0, Reason(R.NO_TRITON_KERNEL, "no function decorated with @triton.jit "
                                         "(or triton.autotune / triton.heuristics)")))
        self.body(self.tree.body, self.module, top=True)
        if self.kernels and not self.launches:
            self.found.append((0, Reason(R.KERNEL_NOT_REACHABLE, "no kernel is launched anywhere "
                                         "(write kernel[grid](...) in ModelNew.forward or a helper it calls)")))
        self.found.sort(key=lambda item: item[0])
        return list(dict.fromkeys(reason for _, reason in self.found))

    # -- facts about the file
    def _loads(self) -> dict[str, int]:
        """How often each name is loaded, outside `__main__` blocks."""
        counts: dict[str, int] = {}
        for stmt in self.tree.body:
            if _is_main_guard(stmt):
                continue
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    counts[node.id] = counts.get(node.id, 0) + 1
        return counts

    def _dead(self, node: ast.FunctionDef | ast.ClassDef) -> bool:
        """A top-level def nothing loads (its own body aside) can never run."""
        if node.name == "ModelNew" or getattr(node, "decorator_list", None):
            return False
        inside = sum(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id == node.name
                     for n in ast.walk(node))
        return self.loads.get(node.name, 0) - inside == 0

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
        jitted: set[str] = set()  # kernel = triton.jit(fn)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and self.quals(node.func, outer.get(id(node), self.module)) & TRITON_DECORATORS:
                jitted |= {a.id for a in node.args if isinstance(a, ast.Name)}
        for node in ast.walk(self.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                decorators = [d.func if isinstance(d, ast.Call) else d for d in node.decorator_list]
                if node.name in jitted or any(self.quals(d, outer.get(id(node), self.module)) & TRITON_DECORATORS for d in decorators):
                    self.kernels.add(id(node))
                    self.kernel_names.add(node.name)
        self.kernel_names |= jitted

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
                        self.nn_attrs |= {t.attr for t in sub.targets if isinstance(t, ast.Attribute)
                                          and isinstance(t.value, ast.Name) and t.value.id == scope.self_name}

    # -- statements
    def body(self, stmts: list[ast.stmt], scope: _Scope, top: bool = False) -> None:
        for stmt in stmts:
            if top and _is_main_guard(stmt):
                continue
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
                self.target(target, scope)
            if node.value is not None:
                self.expr(node.value, scope)
            if isinstance(node, ast.AnnAssign):
                self.type_expr(node.annotation, scope)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                self.target(target, scope)
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
                if _is_dunder(name):
                    self.report(R.DYNAMIC_CODE, node, f"global {name}", "reaches interpreter internals")
        elif not isinstance(node, (ast.Pass, ast.Break, ast.Continue)):
            self.report(R.NOT_ALLOWED, node, f"`{type(node).__name__}` statement",
                        "not part of a Triton answer's host code")

    def imported(self, node: ast.AST, q: str, module_only: bool) -> None:
        if q.split(".")[0] in self.refs or q.rsplit(".", 1)[-1] in self.refs:
            self.report(R.REFERENCE_MODEL_USE, node, f"import of {q}", "the reference model must not be used")
        elif q in ALLOWED_MODULES or (not module_only and self._allowed_name(q)):
            return
        else:
            code, why = _category(q) or ((R.FORBIDDEN_TORCH_OP, "PyTorch compute") if q.startswith("torch.")
                                        else (R.FORBIDDEN_IMPORT, "not needed by a Triton answer"))
            self.report(code, node, f"import of {q}", why)

    def import_from(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.report(R.FORBIDDEN_IMPORT, node, f"relative import from {'.' * node.level}{node.module or ''}",
                        "reaches whatever package the harness runs in")
            return
        for a in node.names:
            if a.name == "*":
                self.report(R.FORBIDDEN_IMPORT, node, f"from {node.module} import *", "import names explicitly")
            else:
                allowed = node.module in ALLOWED_MODULES
                self.imported(node, f"{node.module}.{a.name}", module_only=not allowed)

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        inner = self.binder.scopes[id(node)]
        is_kernel = id(node) in self.kernels
        for decorator in node.decorator_list:
            self.decorator(decorator, scope)
        self._signature(node.args, scope, inner)
        if node.returns is not None:
            self.type_expr(node.returns, scope)
        if isinstance(node, ast.AsyncFunctionDef):
            self.report(R.STREAM_OR_THREAD, node, f"async def {node.name}", "coroutines run outside the call")
        if scope.kind == "class":
            self._method_name(node, scope)
        if is_kernel:
            _KernelRules(self, inner).check(node)
        elif not (scope is self.module and self._dead(node)):
            self.body(node.body, inner)

    def _signature(self, args: ast.arguments, scope: _Scope, inner: _Scope) -> None:
        for default in [*args.defaults, *filter(None, args.kw_defaults)]:
            self.expr(default, scope)
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.vararg, args.kwarg])]:
            if _is_dunder(arg.arg):
                self.report(R.DYNAMIC_CODE, arg, f"parameter {arg.arg}", "reaches interpreter internals")
            if arg.annotation is not None:
                self.type_expr(arg.annotation, scope)

    def _method_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        name = node.name
        if _is_dunder(name) and name != "__init__":
            self.report(R.MONKEYPATCH, node, f"defines {name}",
                        "Python calls dunder methods implicitly, outside the checked call")
        elif name in ARGUMENT_PROTOCOL:
            self.report(R.MONKEYPATCH, node, f"defines a method {name}()",
                        "Triton's launcher calls it on kernel arguments, inside the launch")
        elif name in _MODULE_MACHINERY and name not in _AUTOGRAD_METHODS:
            self.report(R.MONKEYPATCH, node, f"overrides nn.Module.{name}",
                        "the harness builds, loads and calls the module through it")

    def decorator(self, node: ast.expr, scope: _Scope) -> None:
        func = node.func if isinstance(node, ast.Call) else node
        names = self.quals(func, scope)
        if names & TRITON_DECORATORS or names & ALLOWED_DECORATORS:
            self.expr(node, scope)
            return
        kind, _ = scope.lookup(func.id) if isinstance(func, ast.Name) else ("", set())
        if kind == "local":  # a decorator the file defines: it receives the function object
            self.report(R.NOT_ALLOWED, node, f"decorator @{ast.unparse(node)[:60]}",
                        "only Triton's decorators, staticmethod, classmethod and property may wrap functions")
            return
        self.expr(node, scope)
        if not any(_category(q) for q in names):
            self.report(R.NOT_ALLOWED, node, f"decorator @{ast.unparse(node)[:60]}",
                        "only Triton's decorators, staticmethod, classmethod and property may wrap functions")

    def klass(self, node: ast.ClassDef, scope: _Scope) -> None:
        inner = self.binder.scopes[id(node)]
        for base in node.bases:
            self.base(base, scope, node.name)
        for keyword in node.keywords:
            self.report(R.NOT_ALLOWED, keyword, f"class {node.name}({keyword.arg}=...)", "metaclasses run hidden code")
        for decorator in node.decorator_list:
            self.report(R.NOT_ALLOWED, decorator, f"class decorator @{ast.unparse(decorator)[:60]}",
                        "it receives and may replace the class")
        dead = scope is self.module and self._dead(node)
        for stmt in node.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if dead:  # never instantiated or referenced: judge only what runs at class creation
                    self._method_name(stmt, inner)
                    for decorator in stmt.decorator_list:
                        self.decorator(decorator, inner)
                    self._signature(stmt.args, inner, self.binder.scopes[id(stmt)])
                else:
                    self.function(stmt, inner)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.Expr, ast.Pass)):
                self.stmt(stmt, inner)
            else:
                self.report(R.NOT_ALLOWED, stmt, f"`{type(stmt).__name__}` in the body of class {node.name}",
                            "class bodies hold methods and constants")

    def base(self, node: ast.expr, scope: _Scope, cls: str) -> None:
        if isinstance(node, ast.Name) and node.id in self.refs and scope.lookup(node.id)[0] != "local":
            self.report(R.REFERENCE_MODEL_USE, node, f"class {cls} subclasses {node.id}",
                        "the reference model must not be used")
            return
        if isinstance(node, ast.Name) and scope.lookup(node.id)[0] == "local":
            return  # a class of this file
        names = self.quals(node, scope)
        if names and all(q in ALLOWED_BASES or is_nn_class(q) for q in names):
            return
        if names & {"torch.Tensor", "torch._C.TensorBase"}:
            self.report(R.MONKEYPATCH, node, f"class {cls} subclasses torch.Tensor",
                        "a tensor subclass can fake results or defer work past the checks")
        else:
            self.report(R.NOT_ALLOWED, node, f"class {cls} subclasses {ast.unparse(node)[:60]}",
                        "answers subclass nn.Module, torch.nn classes, autograd.Function or their own classes")

    def target(self, node: ast.expr, scope: _Scope) -> None:
        if isinstance(node, ast.Name):
            if _is_dunder(node.id):
                self.report(R.MONKEYPATCH, node, f"{node.id} rebound", "interpreter and harness state")
            return
        if isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                self.target(elt, scope)
        elif isinstance(node, ast.Starred):
            self.target(node.value, scope)
        elif isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                if isinstance(root, ast.Attribute) and _is_dunder(root.attr):
                    self.report(R.MONKEYPATCH, node, f"{ast.unparse(node)[:60]} set", "interpreter internals")
                    return
                root = root.value
            owner = self._owner(scope)
            if not (isinstance(root, ast.Name) and owner is not None and root.id == owner):
                self.report(R.MONKEYPATCH, node, f"{ast.unparse(node)[:60]} set",
                            "an answer sets attributes only on its own objects (self.x = ...)")
            else:
                self.expr(node.value, scope)
        elif isinstance(node, ast.Subscript):
            if self.quals(node.value, scope):
                self.report(R.MONKEYPATCH, node, f"{ast.unparse(node)[:60]} set", "patches a module's state")
            self.expr(node.value, scope)
            self.expr(node.slice, scope)

    @staticmethod
    def _owner(scope: _Scope | None) -> str | None:
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
                self.report(R.NOT_ALLOWED, expr, f"with {ast.unparse(expr)[:60]}",
                            "only torch.no_grad(), torch.inference_mode() and torch.cuda.device(...) are needed")
            if item.optional_vars is not None:
                self.target(item.optional_vars, scope)
        self.body(node.body, scope)

    def try_(self, node: ast.Try, scope: _Scope) -> None:
        if (node.handlers or node.finalbody) and self._calls_code(node.body, scope):
            self.report(R.EXCEPTION_FALLBACK, node, "kernel launch (or a call of this file's code) inside try",
                        "a failing kernel must fail, not fall back")
        self.body(node.body, scope)
        for handler in node.handlers:
            if handler.type is not None:
                self.expr(handler.type, scope)
            self.body(handler.body, scope)
        self.body(node.orelse + node.finalbody, scope)

    def _calls_code(self, stmts: list[ast.stmt], scope: _Scope) -> bool:
        """A launch, or a call of something this file defines (which may launch)."""
        for stmt in stmts:
            for node in ast.walk(stmt):
                if not isinstance(node, ast.Call):
                    continue
                func = node.func
                if isinstance(func, ast.Subscript) or (isinstance(func, ast.Attribute) and (
                        func.attr in LAUNCHER_METHODS or func.attr in self.binder.local_attrs)):
                    return True
                if isinstance(func, ast.Name) and scope.lookup(func.id)[0] in ("local", "unbound"):
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
            for value in ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
                self.expr(value, inner)
        elif isinstance(node, (ast.Await, ast.Yield, ast.YieldFrom)):
            self.report(R.NOT_ALLOWED, node, f"`{type(node).__name__.lower()}`", "answers need no coroutines or generators")
        elif isinstance(node, ast.NamedExpr):
            self.target(node.target, scope)
            self.expr(node.value, scope)
        else:
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.kernel_names:
                self.launches += 1  # launch = kernel[grid]; launch(...)
            if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
                self.report(R.FORBIDDEN_TORCH_OP, node, f"`{ast.unparse(node)[:60]}` (matrix multiply operator)")
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child, scope)

    def type_expr(self, node: ast.expr, scope: _Scope) -> None:
        """An annotation or isinstance() class: the one place classes may appear as plain values."""
        if isinstance(node, ast.Name):
            self.name(node, scope, "type")
        elif isinstance(node, ast.Attribute):
            self.attribute(node, scope, "type")
        elif isinstance(node, ast.Subscript):
            self.type_expr(node.value, scope)
            self.type_expr(node.slice, scope)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                self.type_expr(elt, scope)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            self.type_expr(node.left, scope)
            self.type_expr(node.right, scope)
        elif not isinstance(node, ast.Constant):
            self.expr(node, scope)

    def name(self, node: ast.Name, scope: _Scope, use: str = "value") -> None:
        if _is_dunder(node.id):
            self.report(R.DYNAMIC_CODE, node, f"{node.id} used", "reaches interpreter internals")
            return
        kind, names = scope.lookup(node.id)
        if node.id in self.refs and kind != "local":
            self.report(R.REFERENCE_MODEL_USE, node, f"{node.id} used", "the reference model must not be used")
        elif kind == "local" and use == "value" and node.id in self.binder.instance_methods:
            self.report(R.NOT_ALLOWED, node, f"class {node.id} used as a value",
                        "call it, subclass it or name it in isinstance(); a class handed around can bind its "
                        "methods to foreign objects")
        elif kind == "qual":
            for q in sorted(names):
                self.qualified(node, q, use)
        elif kind == "builtin" and node.id not in ALLOWED_BUILTINS:
            code, why = _category(f"builtins.{node.id}") or (R.NOT_ALLOWED, "not needed by a Triton answer")
            self.report(code, node, f"builtin {node.id}", why)

    def _allowed_name(self, q: str) -> bool:
        return q in ALLOWED_NAMES or is_nn_class(q) or (q.startswith(ALLOWED_PREFIXES) and _reaches_no_module(q))

    def qualified(self, node: ast.AST, q: str, use: str) -> None:
        """Judge an import-rooted name; `use` is "value", "call" or "base" (of a longer chain)."""
        if q in ALLOWED_MODULES:
            if use != "base":
                self.report(R.NOT_ALLOWED, node, f"module {q} used as a value", "use its functions by name")
            return
        if self._allowed_name(q):
            if use == "value" and (q in CLASS_NAMES or is_nn_class(q)):
                self.report(R.NOT_ALLOWED, node, f"class {q} used as a value",
                            "call it, subclass it or name it in isinstance() and annotations")
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
        if names - {n for n in names if n.startswith("builtins.")}:
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and _is_dunder(root.id):
                self.report(R.DYNAMIC_CODE, root, f"{root.id} used", "reaches interpreter internals")
                return
            for q in sorted(names):
                self.qualified(node, q, use)
            return
        cls = node.value.id if isinstance(node.value, ast.Name) else None
        if cls in self.binder.instance_methods and node.attr in self.binder.instance_methods[cls] and (
                scope.lookup(cls)[0] == "local"):
            self.report(R.NOT_ALLOWED, node, f"{cls}.{node.attr} taken from the class",
                        "call methods on instances (self.method(...)), so self is always the answer's own object")
        if node.attr.startswith("_") and node.attr not in self.binder.local_attrs:
            self.report(R.NOT_ALLOWED, node, f".{node.attr} used",
                        "private attributes of torch and triton objects are not an answer's business")
        elif node.attr in self.refs:
            self.report(R.REFERENCE_MODEL_USE, node, f".{node.attr} used", "the reference model must not be used")
        if isinstance(node.value, ast.Name):
            self.name(node.value, scope, "base")
        elif isinstance(node.value, ast.Attribute):
            self.attribute(node.value, scope, "base")
        else:
            self.expr(node.value, scope)

    def call(self, node: ast.Call, scope: _Scope) -> None:
        func = node.func
        if isinstance(func, ast.Name):
            self.name(func, scope, "call")
        elif isinstance(func, ast.Attribute) and self._super_call(func):
            self.super_call(func, scope)
        elif isinstance(func, ast.Attribute) and self.quals(func, scope):
            self.attribute(func, scope, "call")
        elif isinstance(func, ast.Attribute):
            self.method(node, func, scope)
        else:
            if isinstance(func, ast.Subscript):
                self.launches += 1
            elif isinstance(func, ast.Call) and any(is_nn_class(q) and q.rsplit(".", 1)[-1] not in NN_CONTAINERS
                                                    for q in self.quals(func.func, scope)):
                self.report(R.FORBIDDEN_MODULE_CALL, node, f"nn module call {ast.unparse(func)[:60]}(...)",
                            "holding nn modules for their parameters is fine; calling them runs PyTorch")
            self.expr(func, scope)
        self._decorator_arguments(node, scope)
        typed = isinstance(func, ast.Name) and func.id in ("isinstance", "issubclass") and len(node.args) == 2
        for index, arg in enumerate(node.args):
            (self.type_expr if typed and index == 1 else self.expr)(arg, scope)
        for keyword in node.keywords:
            self.expr(keyword.value, scope)

    def super_call(self, func: ast.Attribute, scope: _Scope) -> None:
        """super().m(...) and super(Cls, self).m(...): the method of the answer's own base classes."""
        args = func.value.args
        owner = self._owner(scope)
        plain = not args or (len(args) == 2 and isinstance(args[0], ast.Name) and isinstance(args[1], ast.Name)
                             and args[1].id == owner and args[0].id in self.binder.instance_methods)
        if not plain or func.value.keywords:
            self.report(R.NOT_ALLOWED, func, f"{ast.unparse(func.value)[:60]}", "write super() or super(Cls, self)")
        if _is_dunder(func.attr) and func.attr != "__init__":
            self.report(R.DYNAMIC_CODE, func, f"super().{func.attr}", "reaches interpreter internals")

    @staticmethod
    def _super_call(func: ast.Attribute) -> bool:
        value = func.value
        return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"

    def _decorator_arguments(self, node: ast.Call, scope: _Scope) -> None:
        """Triton's decorators and Config take plain data; hooks and callables are Python Triton runs."""
        for q in self.quals(node.func, scope) & DECORATOR_KEYWORDS.keys():
            if len(node.args) > DECORATOR_POSITIONAL[q]:
                self.report(R.NOT_ALLOWED, node, f"{q} with {len(node.args)} positional arguments",
                            "pass hooks and functions nowhere; name the plain-data options by keyword")
            for keyword in node.keywords:
                if keyword.arg is None or keyword.arg not in DECORATOR_KEYWORDS[q]:
                    self.report(R.NOT_ALLOWED, keyword, f"{q}({keyword.arg or '**'}=...)",
                                "Triton would run this Python for the answer during the launch")

    def method(self, node: ast.Call, func: ast.Attribute, scope: _Scope) -> None:
        name, attrs = func.attr, self.binder.local_attrs
        owner = self._owner(scope)
        on_self = isinstance(func.value, ast.Name) and owner is not None and func.value.id == owner
        if name in LAUNCHER_METHODS:
            self.launches += 1
        if _is_dunder(name):
            self.report(R.DYNAMIC_CODE, func, f".{name}() called", "reaches interpreter internals")
        elif on_self and name in self.nn_attrs:
            self.report(R.FORBIDDEN_MODULE_CALL, node, f"nn module call self.{name}(...)",
                        "holding nn modules for their parameters is fine; calling them runs PyTorch")
        elif name in ALLOWED_METHODS or name in LAUNCHER_METHODS or name in attrs:
            if name == "to" and any(isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith("cpu")
                                    for a in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(a)):
                self.report(R.HOST_ROUNDTRIP, node, f"{ast.unparse(node)[:60]} called", "moves data to the host")
        elif name in HOST_METHODS:
            self.report(R.HOST_ROUNDTRIP, node, f".{name}() called", "copies device data to the host")
        elif name in COMPUTE_METHODS or name.removesuffix("_") in COMPUTE_METHODS:
            self.report(R.FORBIDDEN_TORCH_OP, node, f"tensor method .{name}() called")
        elif name == "format" or name == "format_map":
            self.report(R.DYNAMIC_CODE, node, f".{name}() called", "format strings reach attributes of objects")
        elif "hook" in name:
            self.report(R.MONKEYPATCH, node, f".{name}() called", "runs code around forward, unseen by the checks")
        else:
            self.report(R.NOT_ALLOWED, node, f".{name}() called",
                        "not among the glue methods a Triton answer's host code needs")
        if isinstance(func.value, ast.Name):
            self.name(func.value, scope, "base")
        elif isinstance(func.value, ast.Attribute):
            self.attribute(func.value, scope, "base")
        else:
            self.expr(func.value, scope)


class _KernelRules:
    """A @triton.jit body: Triton's language, the kernel's own names, the file's kernels and constants."""

    _STATEMENTS = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While, ast.If, ast.Return, ast.Expr,
                   ast.Assert, ast.Pass, ast.Break, ast.Continue)

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
        elif isinstance(node, (ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.ListComp, ast.SetComp,
                               ast.DictComp, ast.GeneratorExp, ast.NamedExpr)):
            self.c.report(R.NOT_ALLOWED, node, f"`{type(node).__name__}` {where}", "not Triton kernel code")
        elif isinstance(node, ast.Attribute):
            if _is_dunder(node.attr):
                self.c.report(R.DYNAMIC_CODE, node, f".{node.attr} {where}", "reaches interpreter internals")
            elif isinstance(node.ctx, ast.Store):
                self.c.report(R.NOT_ALLOWED, node, f"attribute assignment {where}", "not Triton kernel code")
            elif bad := sorted(q for q in self.c.quals(node, self.scope)
                               if q.startswith(("triton.", "math.")) and not _reaches_no_module(q)):
                self.c.report(R.NOT_ALLOWED, node, f"{bad[0]} {where}", "reaches a module outside triton.language")
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            self.name(node, where)

    def name(self, node: ast.Name, where: str) -> None:
        if _is_dunder(node.id):
            self.c.report(R.DYNAMIC_CODE, node, f"{node.id} {where}", "reaches interpreter internals")
            return
        kind, names = self.scope.lookup(node.id)
        if kind == "qual" and not all(q.startswith(("triton.", "math.")) and _reaches_no_module(q)
                                      or q in ALLOWED_MODULES and q.startswith(("triton", "math")) for q in names):
            code, why = next(filter(None, map(_category, names)), None) or (
                R.FORBIDDEN_TORCH_OP, "a kernel computes with triton.language only")
            self.c.report(code, node, f"{', '.join(sorted(names))} {where}", why)
        elif kind == "builtin" and node.id not in KERNEL_BUILTINS:
            code, why = _category(f"builtins.{node.id}") or (R.NOT_ALLOWED, "not Triton kernel code")
            self.c.report(code, node, f"builtin {node.id} {where}", why)
        elif node.id in self.c.refs and kind != "local":
            self.c.report(R.REFERENCE_MODEL_USE, node, f"{node.id} {where}", "the reference model must not be used")
