"""Static (AST) layer of the verifier: reject reward-hacking candidates before running them.

`check_static(code)` parses a candidate's Python source (never executes it) and
returns a `Reason` for every rule it breaks (DESIGN.md §5, layer 1). Names are
resolved through imports and aliases (`F = torch.nn.functional`,
`from torch import matmul as mm`, `getattr(torch, "matmul")`, `self.op = torch.mm`)
before any rule looks at them, and the compute rules apply to everything
reachable from `ModelNew.forward` (its methods, helpers, submodules it calls),
never to `@triton.jit` kernel bodies.

Threat model.
Covered:
- delegating to PyTorch: torch/F/linalg/... compute calls, torch.ops / torch._C,
  tensor compute methods (`x.matmul`, `x.add_`, `x.__matmul__`), `@`, arithmetic
  on values evidently tensors, compute functions kept in containers or passed as
  values, nn compute modules called in forward (inline, via self, via `.forward`,
  via a loop over a ModuleList, via an inherited forward);
- decoy kernels: no launch reachable from forward, or launches only under
  `if False:` or after a `return`; try/except/finally or contextlib.suppress
  around a launch (silent PyTorch fallback). `kernel[...]` anywhere in reachable
  code counts as a launch, and so does `f[grid](...)` for an unnamed `f` when a
  kernel is handed around in reachable code;
- torch.compile / torch.jit / dynamo / inductor; CUDA/C++ extensions, cupy,
  numba, ctypes; exec/eval/compile/__import__/importlib, dynamic getattr,
  globals()/vars()/__dict__/__globals__ traversal, decoders (base64, zlib, ...);
- monkeypatching torch, triton, builtins or sys.modules (assignment, setattr,
  del), global numeric settings, forward hooks, __torch_function__/dispatch;
- side streams, CUDA graphs, events, threads, processes, asyncio;
- numpy and host round trips (.cpu/.item/.tolist/.numpy/.to("cpu"));
- the reference `Model` (subclassing, instantiating, importing), gc/inspect/
  frames/__main__ (reaching the harness's objects); environment, files, network;
- modules reached through another module's attributes (`torch.os.environ`).
The whole file is checked, `if __name__ == "__main__":` blocks included; a
source the checker cannot analyse (nesting too deep, an internal error) fails
closed with SYNTAX_ERROR.
Not covered (the runtime layer's aten trace and launch hook catch these):
- tensor arithmetic on values whose tensor-ness is not evident (function
  results, containers), compute reached through data-dependent dispatch;
- branches never taken at run time (other than constant-false tests);
- memoisation, input mutation, uninitialised outputs, precision downgrades,
  kernels that do a trivial share of the work.

Test: tests/verify/test_static.py (`.venv/bin/python -m pytest tests/verify/test_static.py -q`).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass, field

from tritonrl.verify.result import Reason
from tritonrl.verify.result import ReasonCode as R

from tritonrl.verify.static_rules import (
    ALLOWED_IMPORT_ROOTS,
    BANNED,
    LEAKED_MODULES,
    ALLOWED_TORCH_CALLS,
    FORBIDDEN_METHODS,
    ARITH_DUNDERS,
    HOST_METHODS,
    TENSOR_GLUE,
    TENSOR_ATTRS,
    MODULE_TENSOR_ATTRS,
    NN_CONTAINERS,
    ROOT_METHODS,
    TRITON_DECORATORS,
    DANGEROUS_DUNDERS,
    HOOK_NAMES,
    TENSOR_BUILTINS,
    TENSOR_MAKERS,
    HOST_BUILTINS,
    COMPUTE_NAMESPACES,
)


def check_static(code: str, reference_names: frozenset[str] = frozenset({"Model"})) -> list[Reason]:
    """Every static rule `code` breaks (empty: statically valid). Never executes `code`, never raises."""
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


# ------------------------------------------------------ names and resolution
@dataclass
class _Scope:
    parent: _Scope | None
    aliases: dict[str, set[str]] = field(default_factory=dict)  # name -> qualified names it may stand for
    bound: set[str] = field(default_factory=set)  # every name assigned here
    owner: str | None = None  # ".Cls" for a method's scope
    self_name: str | None = None


def _banned(q: str) -> tuple[R, str] | None:
    """The banned-prefix rule `q` hits, looking through leaked module attributes (`torch.os.environ`)."""
    if q.startswith("."):  # the file's own functions and classes
        return None
    parts = q.split(".")
    for start in range(len(parts)):
        if start and parts[start] not in LEAKED_MODULES:
            continue
        for end in range(len(parts), start, -1):
            if hit := BANNED.get(".".join(parts[start:end])):
                return hit
        if start:
            return R.FORBIDDEN_IMPORT, f"reaches module {parts[start]} through another module's attribute"
    if parts[0] == "torch" and len(parts) > 1 and parts[1].startswith("_") and not parts[1].endswith("__"):
        return R.FORBIDDEN_TORCH_OP, "uses private torch internals"
    return None


def _const_str(node: ast.AST | None) -> str | None:
    """A string known without running anything: a literal or a sum of literals ("g" + "c")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _const_str(node.left), _const_str(node.right)
        return left + right if left is not None and right is not None else None
    return None


def _src(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


class _Index(ast.NodeVisitor):
    """One pass over the file: scopes and aliases, local defs and classes, kernels, `self.x` assignments."""

    def __init__(self, tree: ast.Module):
        self.module_scope = _Scope(None)
        self.scopes: dict[int, _Scope] = {id(tree): self.module_scope}
        self.defs: dict[str, tuple[ast.AST, str | None]] = {}  # ".f" / ".Cls.m" -> (node, owner)
        self.classes: dict[str, ast.ClassDef] = {}
        self.attrs: dict[str, dict[str, list[tuple[ast.expr, _Scope]]]] = {}  # ".Cls" -> self.<x> values
        self.kernels: set[str] = set()
        self._pending: list[tuple[_Scope, str, ast.expr]] = []
        self._attr_cache: dict[tuple[str, str], set[str]] = {}
        self._maybe_kernels: list[tuple[str, list[ast.expr], _Scope]] = []
        self._stack = [self.module_scope]
        self._class_body: str | None = None
        self.visit(tree)
        for _ in range(8):  # aliases of aliases: iterate to a fixpoint
            changed = False
            for scope, name, value in self._pending:
                new = self.resolve(value, scope) - scope.aliases.get(name, set())
                if new:
                    scope.aliases.setdefault(name, set()).update(new)
                    changed = True
            self._attr_cache.clear()
            if not changed:
                break
        self.module_values: dict[str, list[tuple[ast.expr, _Scope]]] = {}
        for scope, name, value in self._pending:
            if scope is self.module_scope:
                self.module_values.setdefault(name, []).append((value, scope))
        for qual, decorators, scope in self._maybe_kernels:
            if any(q in TRITON_DECORATORS for d in decorators for q in self.resolve(d, scope)):
                self.kernels.add(qual)

    @property
    def scope(self) -> _Scope:
        return self._stack[-1]

    def _bind(self, name: str, qual: str | None = None) -> None:
        if self._class_body is None:
            self.scope.bound.add(name)
            if qual:
                self.scope.aliases.setdefault(name, set()).add(qual)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.asname:
                self._bind(a.asname, a.name)
            else:
                self._bind(a.name.split(".")[0], a.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = "." * node.level + "__relative__." * bool(node.level) + (node.module or "")
        for a in node.names:
            if a.name != "*":
                self._bind(a.asname or a.name, f"{base}.{a.name}")

    def _enter(self, node: ast.AST, args: ast.arguments, owner: str | None) -> None:
        scope = _Scope(self.scope, owner=owner)
        positional = args.posonlyargs + args.args
        is_static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in getattr(node, "decorator_list", []))
        if owner and positional and not is_static:
            scope.self_name = positional[0].arg
        scope.bound.update(a.arg for a in positional + args.kwonlyargs + [args.vararg, args.kwarg] if a)
        self.scopes[id(node)] = scope
        outer, self._class_body = self._class_body, None
        self._stack.append(scope)
        for stmt in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(stmt)
        self._stack.pop()
        self._class_body = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        owner = self._class_body
        qual = f"{owner}.{node.name}" if owner else f".{node.name}" if len(self._stack) == 1 else None
        if qual:
            self.defs[qual] = (node, owner)
            self._maybe_kernels.append((qual, node.decorator_list, self.scope))
        self._bind(node.name, qual)
        for child in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if child:
                self.visit(child)
        self._enter(node, node.args, owner)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._enter(node, node.args, self._class_body)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        top = len(self._stack) == 1 and self._class_body is None
        qual = f".{node.name}" if top else None
        self._bind(node.name, qual)
        for child in [*node.bases, *node.keywords, *node.decorator_list]:
            self.visit(child)
        if qual:
            self.classes[qual] = node
            self.attrs.setdefault(qual, {})
        outer, self._class_body = self._class_body, qual
        for stmt in node.body:
            self.visit(stmt)
        self._class_body = outer

    def _record(self, target: ast.expr, value: ast.expr | None) -> None:
        scope = self.scope
        if isinstance(target, ast.Name) and value is not None:
            if self._class_body:
                self.attrs[self._class_body].setdefault(target.id, []).append((value, scope))
                if isinstance(value, ast.Lambda):  # forward = lambda self, x: ...
                    self.defs[f"{self._class_body}.{target.id}"] = (value, self._class_body)
            elif isinstance(value, ast.Lambda) and len(self._stack) == 1:
                self.defs[f".{target.id}"] = (value, None)
                self._bind(target.id, f".{target.id}")
            else:
                self._pending.append((scope, target.id, value))
                if len(self._stack) == 1 and isinstance(value, ast.Call):  # kernel = triton.jit(fn)
                    self._maybe_kernels.append((f".{target.id}", [value.func], scope))
                    scope.aliases.setdefault(target.id, set()).add(f".{target.id}")
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and value is not None:
            if scope.owner and target.value.id == scope.self_name:
                self.attrs[scope.owner].setdefault(target.attr, []).append((value, scope))
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
            for t, v in zip(target.elts, value.elts):
                self._record(t, v)

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign | ast.NamedExpr) -> None:
        for target in getattr(node, "targets", None) or [node.target]:
            self._record(target, node.value)
        self.generic_visit(node)

    visit_AnnAssign = visit_NamedExpr = visit_Assign

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func  # self.register_buffer("name", t) holds a tensor in self.name
        if isinstance(f, ast.Attribute) and f.attr in ("register_buffer", "register_parameter") and len(node.args) > 1:
            if (name := _const_str(node.args[0])) and self.scope.owner:
                self.attrs[self.scope.owner].setdefault(name, []).append((node.args[1], self.scope))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Store):
            self._bind(node.id)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name)
        self.generic_visit(node)

    # -- resolution
    def lookup(self, name: str, scope: _Scope) -> tuple[set[str], _Scope | None]:
        s: _Scope | None = scope
        while s is not None:
            if name in s.aliases:
                return s.aliases[name], s
            if name in s.bound:
                return set(), s
            s = s.parent
        return ({f"builtins.{name}"} if hasattr(builtins, name) else set()), None

    def class_attr(self, cls: str, attr: str, seen: frozenset[str] = frozenset()) -> tuple[set[str], list]:
        """Methods named `attr` and values assigned to `self.attr`, looking through local base classes."""
        defs = {f"{cls}.{attr}"} & self.defs.keys()
        values = list(self.attrs.get(cls, {}).get(attr, []))
        if not defs and not values and cls in self.classes and cls not in seen:
            for base in self.local_bases(cls):
                d, v = self.class_attr(base, attr, seen | {cls})
                defs |= d
                values += v
        return defs, values

    def local_bases(self, cls: str) -> set[str]:
        node = self.classes[cls]
        return {q for b in node.bases for q in self.resolve(b, self.module_scope) if q in self.classes}

    def self_class(self, node: ast.expr, scope: _Scope) -> str | None:
        """The class whose `self` `node` is, if it is a method's self parameter."""
        if isinstance(node, ast.Name):
            _, where = self.lookup(node.id, scope)
            if where is not None and where.owner and where.self_name == node.id:
                return where.owner
        return None

    def resolve(self, node: ast.AST, scope: _Scope) -> set[str]:
        """The qualified names `node` may stand for: "torch.matmul", ".helper", ".Cls.m", "builtins.exec"."""
        if isinstance(node, ast.Name):
            return self.lookup(node.id, scope)[0]
        if isinstance(node, ast.Attribute):
            if cls := self.self_class(node.value, scope):
                return self._self_attr(cls, node.attr)
            out: set[str] = set()
            for q in self.resolve(node.value, scope):  # ModelNew._clip / Block().run: the class's own attributes
                local = q.removesuffix("()")
                out |= (self._self_attr(local, node.attr) if local in self.classes else set()) or {f"{q}.{node.attr}"}
            return out
        if isinstance(node, ast.Call):
            func = self.resolve(node.func, scope)
            if "builtins.getattr" in func and len(node.args) >= 2 and (attr := _const_str(node.args[1])):
                return self.resolve(ast.Attribute(value=node.args[0], attr=attr, ctx=ast.Load()), scope)
            if "functools.partial" in func and node.args:  # partial(torch.matmul, ...) is torch.matmul
                return self.resolve(node.args[0], scope)
            if func & {"importlib.import_module", "builtins.__import__"} and (name := _const_str(node.args[0] if node.args else None)):
                return {name if "importlib.import_module" in func else name.split(".")[0]}  # the module it returns
            return {f"{q}()" for q in func if q in self.classes}  # ".Block()": an instance of a local class
        return set()

    def _self_attr(self, cls: str, attr: str) -> set[str]:
        key = (cls, attr)
        if key not in self._attr_cache:
            self._attr_cache[key] = set()  # breaks cycles: self.a = self.b; self.b = self.a
            defs, values = self.class_attr(cls, attr)
            self._attr_cache[key] = defs | {q for v, s in values for q in self.resolve(v, s)}
        return self._attr_cache[key]


def _truth(test: ast.expr) -> bool | None:
    """The truth of a constant test (`if False:`, `if not 1:`), None when it depends on run time."""
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and (inner := _truth(test.operand)) is not None:
        return not inner
    return None


def _nn_class(q: str) -> str | None:
    """`Linear` for "torch.nn.Linear" / "torch.nn.modules.linear.Linear": a torch.nn class being named."""
    last = q.rsplit(".", 1)[-1]
    return last if q.startswith("torch.nn.") and last[:1].isupper() else None


@dataclass
class _Facts:
    """What one stretch of live code does: helpers it reaches and how it launches kernels."""

    edges: set[str] = field(default_factory=set)
    launches: bool = False  # kernel[grid](...) / kernel.run(...) of a known @triton.jit function
    indirect: bool = False  # f[grid](...) where f is not a known name (a kernel passed as an argument)
    kernel_refs: bool = False  # a kernel named without being launched (handed to a launcher)


class _Checker:
    def __init__(self, tree: ast.Module, reference_names: frozenset[str]):
        self.tree, self.refs = tree, reference_names
        self.ix = _Index(tree)
        self.found: list[tuple[int, Reason]] = []

    def report(self, code: R, node: ast.AST | None, message: str) -> None:
        line = getattr(node, "lineno", 0)
        self.found.append((line, Reason(code, f"line {line}: {message}" if line else message)))

    def run(self) -> list[Reason]:
        ix = self.ix
        has_model = ".ModelNew" in ix.classes
        if not has_model:
            self.report(R.NO_MODELNEW, None, "no top-level `class ModelNew` (the solution's entry point)")
        if not ix.kernels:
            self.report(R.NO_TRITON_KERNEL, None, "no function decorated with @triton.jit (or autotune/heuristics)")
        _FileRules(self).visit(self.tree)
        if has_model:
            self._forward_rules()
        self.found.sort(key=lambda item: item[0])
        return list(dict.fromkeys(reason for _, reason in self.found))

    # -- reachability from ModelNew.forward
    def _forward_rules(self) -> None:
        ix, roots = self.ix, set()
        for method in ROOT_METHODS:
            defs, values = ix.class_attr(".ModelNew", method)
            roots |= defs
            for value, scope in values:
                for q in ix.resolve(value, scope):
                    if q in ix.defs:
                        roots.add(q)
                    elif q.startswith("torch."):  # forward = torch.relu
                        self.report(R.FORBIDDEN_TORCH_OP, value,
                                    f"ModelNew.{method} is bound to {q} (compute must happen in Triton kernels)")
        if not roots:
            for base in self.torch_bases(".ModelNew"):
                self.report(R.FORBIDDEN_MODULE_CALL, ix.classes[".ModelNew"],
                            f"ModelNew inherits forward from {base} (an nn compute module)")
        facts: dict[str, _Facts] = {}
        todo = sorted(roots)
        while todo:
            q = todo.pop()
            if q not in facts and q not in ix.kernels:
                facts[q] = self._facts(self._unit_nodes(q))
                todo.extend(facts[q].edges)
        refs = any(f.kernel_refs for f in facts.values())
        callers: dict[str, set[str]] = {}
        for q, f in facts.items():
            for callee in f.edges:
                callers.setdefault(callee, set()).add(q)
        self.launching = {q for q, f in facts.items() if f.launches or (f.indirect and refs)}
        todo = list(self.launching)
        while todo:  # a helper that calls a launching helper launches too
            new = callers.get(todo.pop(), set()) - self.launching
            self.launching |= new
            todo.extend(new)
        if ix.kernels and not (self.launching & roots):  # a kernel defined but never launched is a decoy
            named = ", ".join(f"{k.lstrip('.')} (line {getattr(ix.defs.get(k, (None,))[0], 'lineno', '?')})"
                              for k in sorted(ix.kernels))
            self.report(R.KERNEL_NOT_REACHABLE, None, f"no Triton kernel is launched (kernel[grid](...)) in code reachable "
                        f"from ModelNew.forward; defined but never launched there: {named}")
        for q in sorted(facts):
            _UnitRules(self, q).check()

    def torch_bases(self, cls: str, seen: frozenset[str] = frozenset()) -> set[str]:
        """torch.nn compute classes `cls` inherits from, directly or through local classes."""
        out: set[str] = set()
        for base in self.ix.classes[cls].bases:
            for q in self.ix.resolve(base, self.ix.module_scope):
                if q in self.ix.classes and q not in seen:
                    out |= self.torch_bases(q, seen | {cls})
                elif (name := _nn_class(q)) and name not in NN_CONTAINERS:
                    out.add(q)
        return out

    def _unit_nodes(self, q: str) -> Iterator[tuple[ast.AST, _Scope]]:
        node, _ = self.ix.defs[q]
        scope = self.ix.scopes[id(node)]
        if isinstance(node, ast.Lambda):
            return self.live([node.body], scope)
        return self.live([*node.decorator_list, *node.body], scope)

    def is_kernel_def(self, node: ast.AST, scope: _Scope) -> bool:
        return isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            q in TRITON_DECORATORS for d in node.decorator_list for q in self.ix.resolve(d, scope))

    def live(self, nodes: list, scope: _Scope) -> Iterator[tuple[ast.AST, _Scope]]:
        """Nodes that can run: skips `if False:` branches, code after return/raise, nested kernels."""
        for node in nodes:
            if isinstance(node, (ast.If, ast.IfExp)) and (truth := _truth(node.test)) is not None:
                branch = node.body if truth else node.orelse
                yield from self.live(branch if isinstance(branch, list) else [branch], scope)
                continue
            if isinstance(node, ast.While) and _truth(node.test) is False:
                yield from self.live(node.orelse, scope)
                continue
            if self.is_kernel_def(node, scope):
                continue
            yield node, scope
            inner = self.ix.scopes.get(id(node), scope)
            for _, value in ast.iter_fields(node):
                children = value if isinstance(value, list) else [value]
                yield from self.live([v for v in children if isinstance(v, ast.AST)], inner)
            if isinstance(node, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
                return

    def _facts(self, nodes: Iterator[tuple[ast.AST, _Scope]]) -> _Facts:
        ix, facts = self.ix, _Facts()
        for node, scope in nodes:
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call)):
                for q in ix.resolve(node, scope):
                    self._edge(q, facts)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):  # Block(...) runs Block.__init__
                for q in ix.resolve(node.func, scope) & ix.classes.keys():
                    facts.edges |= ix.class_attr(q, "__init__")[0]
            values = []  # what a stored name holds: self.block = Block(); KERNELS = {"a": a_kernel}
            if isinstance(node, ast.Attribute) and (cls := ix.self_class(node.value, scope)):
                values = ix.class_attr(cls, node.attr)[1]
            elif isinstance(node, ast.Name) and ix.lookup(node.id, scope)[1] is ix.module_scope:
                values = ix.module_values.get(node.id, [])
            for value, vscope in values:
                for sub in ast.walk(value):
                    for q in ix.resolve(sub, vscope) if isinstance(sub, ast.Name) else ():
                        self._edge(q, facts)
            if isinstance(node, ast.Attribute) and _is_super(node.value):  # super().forward(x) in a local subclass
                owner = _owner(scope)
                for base in ix.local_bases(owner) if owner else ():
                    facts.edges |= ix.class_attr(base, node.attr)[0]
            if kind := self._launch(node, scope):
                facts.launches |= kind == "direct"
                facts.indirect |= kind == "indirect"
        return facts

    def _edge(self, q: str, facts: _Facts) -> None:
        ix = self.ix
        head, _, attr = q[1:].partition(".")
        cls = "." + head.removesuffix("()")
        if q in ix.kernels:
            facts.kernel_refs = True
        elif q in ix.defs:
            facts.edges.add(q)
        elif q.startswith(".") and cls in ix.classes:  # Block / Block() is called: its forward runs
            methods = ["forward" if attr in ("", "apply") else attr]  # Fn.apply(x) runs Fn.forward
            for method in methods + (list(ROOT_METHODS[1:]) if not attr else []):
                facts.edges |= ix.class_attr(cls, method)[0]

    def _launch(self, node: ast.AST, scope: _Scope) -> str | None:
        """"direct" for kernel[grid] (called now or later) and kernel.run(...); "indirect" for f[grid](...)."""
        resolve, kernels = self.ix.resolve, self.ix.kernels
        if isinstance(node, ast.Subscript) and resolve(node.value, scope) & kernels:
            return "direct"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "run":
            return "direct" if resolve(node.func.value, scope) & kernels else None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Subscript) and not resolve(node.func.value, scope):
            return "indirect"
        return None

    def launches_in(self, nodes: list, scope: _Scope) -> bool:
        facts = self._facts(self.live(nodes, scope))
        return facts.launches or facts.indirect or bool(facts.edges & self.launching)


def _bare_refs(value: ast.expr) -> Iterator[ast.expr]:
    """The names stored by `value` itself or as elements of a literal container (not inside calls)."""
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        for elt in value.elts:
            yield from _bare_refs(elt)
    elif isinstance(value, ast.Dict):
        for elt in value.values:
            yield from _bare_refs(elt)
    elif isinstance(value, (ast.Name, ast.Attribute)):
        yield value


def _is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


def _is_super(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _owner(scope: _Scope | None) -> str | None:
    while scope is not None and scope.owner is None:
        scope = scope.parent
    return scope.owner if scope else None


class _ScopedVisitor(ast.NodeVisitor):
    """A visitor that knows the scope of the node it is on (for alias resolution)."""

    def __init__(self, checker: _Checker, scope: _Scope):
        self.c, self.ix, self.scope = checker, checker.ix, scope
        self.inner: set[int] = set()  # inner links of a dotted chain, judged as part of the whole chain

    def resolve(self, node: ast.AST) -> set[str]:
        return self.ix.resolve(node, self.scope)

    def visit_body(self, node: ast.AST) -> None:
        outer, self.scope = self.scope, self.ix.scopes.get(id(node), self.scope)
        for stmt in node.body if isinstance(node.body, list) else [node.body]:
            self.visit(stmt)
        self.scope = outer

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args  # decorators, defaults and annotations run in the enclosing scope
        every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
        outer = [*getattr(node, "decorator_list", []), *args.defaults, *args.kw_defaults, getattr(node, "returns", None)]
        for child in outer + [a.annotation for a in every if a]:
            if child:
                self.visit(child)
        self.visit_body(node)

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef


class _FileRules(_ScopedVisitor):
    """Rules that hold anywhere in the file: imports, banned names, dynamic code, monkeypatching, Model."""

    def __init__(self, checker: _Checker):
        super().__init__(checker, checker.ix.module_scope)

    def _qualified(self, node: ast.AST, names: set[str]) -> None:
        for q in sorted(names):
            if hit := _banned(q):
                self.c.report(hit[0], node, f"{q.removeprefix('builtins.')} used ({hit[1]})")
            if not q.startswith(".") and q.rsplit(".", 1)[-1] in self.c.refs:  # harness.Model, getattr(m, "Model")
                self.c.report(R.REFERENCE_MODEL_USE, node, f"{q} used (the reference model must not be used)")

    def _import(self, node: ast.AST, q: str) -> None:
        if hit := _banned(q):
            self.c.report(hit[0], node, f"import of {q} ({hit[1]})")
        elif q.split(".")[0] not in ALLOWED_IMPORT_ROOTS:
            self.c.report(R.FORBIDDEN_IMPORT, node, f"import of {q} (only torch, triton and a few stdlib helpers are allowed)")

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._import(node, alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:  # a relative import reaches whatever package the harness runs in
            self.c.report(R.FORBIDDEN_IMPORT, node, f"relative import from {'.' * node.level}{node.module or ''}")
        for alias in node.names:
            if alias.name == "*":  # star imports hide where names come from
                self.c.report(R.FORBIDDEN_IMPORT, node, f"from {node.module} import * (import names explicitly)")
            elif alias.name in self.c.refs:
                self.c.report(R.REFERENCE_MODEL_USE, node, f"import of {alias.name} (the reference model must not be used)")
            elif not node.level:
                self._import(node, f"{node.module}.{alias.name}")

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name in HOOK_NAMES:  # __torch_function__/__torch_dispatch__ rewrite every torch op
            self.c.report(R.MONKEYPATCH, node, f"defines {node.name} (intercepts torch operations)")
        super().visit_FunctionDef(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:  # a tensor subclass can fake results or defer work past the timer
            if self.resolve(base) & {"torch.Tensor", "torch._C.TensorBase", "torch._C._TensorBase"}:
                self.c.report(R.MONKEYPATCH, node, f"class {node.name} subclasses torch.Tensor")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in DANGEROUS_DUNDERS:  # __builtins__, __loader__, __spec__: the interpreter's machinery
            self.c.report(R.DYNAMIC_CODE, node, f"{node.id} used (reaches interpreter internals)")
        elif isinstance(node.ctx, ast.Load):
            if node.id in self.c.refs:
                self.c.report(R.REFERENCE_MODEL_USE, node, f"{node.id} used (the reference model must not be used)")
            elif id(node) not in self.inner:
                self._qualified(node, self.resolve(node))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self.inner.add(id(node.value))
        if node.attr in DANGEROUS_DUNDERS:  # interpreter internals: globals, code objects, class graphs
            self.c.report(R.DYNAMIC_CODE, node, f".{node.attr} used (reaches interpreter internals)")
        if node.attr in HOOK_NAMES:
            self.c.report(R.MONKEYPATCH, node, f".{node.attr} used (runs code around forward, unseen by the checks)")
        if id(node) not in self.inner:
            self._qualified(node, self.resolve(node))
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        func = self.resolve(node.func)
        if func & {"importlib.import_module", "builtins.__import__"} and (name := _const_str(node.args[0] if node.args else None)):
            self._import(node, name)  # importlib.import_module("g" + "c") imports gc
        for name in ("getattr", "setattr", "delattr"):
            if f"builtins.{name}" not in func:
                continue
            attr = _const_str(node.args[1]) if len(node.args) > 1 else None
            if attr is None:  # a computed attribute name can be anything
                self.c.report(R.DYNAMIC_CODE, node, f"{name}() with a non-constant attribute name")
            elif name == "getattr" and node.args:  # getattr(torch, "compile"): judged as torch.compile
                self.inner.add(id(node.args[0]))
                if id(node) not in self.inner:
                    self._qualified(node, self.resolve(node))
            elif node.args and self._patchable(node.args[0]):
                self.c.report(R.MONKEYPATCH, node, f"{name}() on {_src(node.args[0])}.{attr}")
        self.generic_visit(node)

    def _patchable(self, node: ast.AST) -> bool:
        """Imported modules/objects (torch, triton, builtins) and the file's own classes and functions."""
        return any(not q.startswith(".") or q in self.ix.classes or q in self.ix.defs for q in self.resolve(node))

    def _foreign_at_module_level(self, node: ast.AST) -> bool:
        """Module-level code setting attributes on objects it did not make (`for m in sys.modules.values(): m.f = g`)."""
        return self.scope is self.ix.module_scope and not any(q.endswith("()") for q in self.resolve(node))

    def _target(self, target: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._target(elt)
        elif isinstance(target, ast.Starred):
            self._target(target.value)
        elif isinstance(target, ast.Attribute) and (_is_dunder(target.attr) or self._patchable(target.value)
                                                    or self._foreign_at_module_level(target.value)):
            self.c.report(R.MONKEYPATCH, target, f"{_src(target)} rebound (patches code the harness relies on)")
        elif isinstance(target, ast.Subscript) and self._patchable(target.value):  # sys.modules[...] = ...
            self.c.report(R.MONKEYPATCH, target, f"{_src(target)} rebound (patches code the harness relies on)")

    def visit_Assign(self, node: ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete) -> None:
        for target in getattr(node, "targets", None) or [node.target]:
            self._target(target)
        self.generic_visit(node)

    visit_AugAssign = visit_AnnAssign = visit_Delete = visit_Assign


class _UnitRules(_ScopedVisitor):
    """Compute rules for one function reachable from ModelNew.forward (never a Triton kernel)."""

    def __init__(self, checker: _Checker, qual: str):
        node, self.owner = checker.ix.defs[qual]
        super().__init__(checker, checker.ix.scopes[id(node)])
        self.node, self.where = node, qual.lstrip(".")
        self.called: set[int] = set()
        self.skip: set[int] = set()  # operands of an expression already reported
        forward = qual.rsplit(".", 1)[-1] in ROOT_METHODS and self.scope.self_name is not None  # not autograd's
        self.tensors = self._tensor_names(forward)
        self.modules: set[str] = set()
        for sub in ast.walk(node):  # names holding nn compute modules: m = self.linear; for layer in self.layers
            if isinstance(sub, ast.Assign) and self.is_module(sub.value):
                self.modules |= {t.id for t in sub.targets if isinstance(t, ast.Name)}
            elif isinstance(sub, (ast.For, ast.comprehension)) and any(self.is_module(n) for n in ast.walk(sub.iter)):
                self.modules |= {n.id for n in ast.walk(sub.target) if isinstance(n, ast.Name)}

    def check(self) -> None:
        if isinstance(self.node, ast.Lambda):
            self.visit(self.node.body)
        else:
            for child in [*self.node.decorator_list, *self.node.body]:
                self.visit(child)

    def flag(self, code: R, node: ast.AST, what: str, why: str = "compute must happen in Triton kernels") -> None:
        self.c.report(code, node, f"{what} in {self.where} ({why})")

    # -- what a value is
    def _attr_values(self, node: ast.AST) -> list[tuple[ast.expr, _Scope]]:
        """What `self.x` (or `getattr(self, "x")`) was assigned in any method or the class body."""
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
                and len(node.args) == 2 and (attr := _const_str(node.args[1]))):
            node = ast.Attribute(value=node.args[0], attr=attr, ctx=ast.Load())
        if isinstance(node, ast.Attribute) and (cls := self.ix.self_class(node.value, self.scope)):
            return self.ix.class_attr(cls, node.attr)[1]
        return []

    def _builds(self, value: ast.expr, scope: _Scope, test) -> bool:
        calls = (n for n in ast.walk(value) if isinstance(n, ast.Call))
        return any(test(q) for n in calls for q in self.ix.resolve(n.func, scope))

    def is_module(self, node: ast.AST) -> bool:
        """An nn compute module: self.linear (built from nn.Linear), self.layers[i], nn.ReLU(), a name holding one."""
        if isinstance(node, ast.Subscript):
            return self.is_module(node.value)
        if isinstance(node, ast.Name):
            return node.id in self.modules
        if isinstance(node, ast.Call) and any(self._compute_class(q) for q in self.resolve(node.func)):
            return True
        return any(self._builds(v, s, self._compute_class) for v, s in self._attr_values(node))

    def _compute_class(self, q: str) -> bool:
        """nn.Linear and friends, or a local subclass of one that does not define its own forward."""
        if name := _nn_class(q):
            return name not in NN_CONTAINERS
        return q in self.ix.classes and not self.ix.class_attr(q, "forward")[0] and bool(self.c.torch_bases(q))

    def is_tensor(self, node: ast.AST, names: set[str] | None = None) -> bool:
        """Evidently a tensor: a tensor name, a parameter attribute, a view or allocation of one."""
        names = self.tensors if names is None else names
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.Subscript):
            return self.is_tensor(node.value, names)
        if isinstance(node, ast.BinOp):
            return self.is_tensor(node.left, names) or self.is_tensor(node.right, names)
        if isinstance(node, ast.UnaryOp):
            return self.is_tensor(node.operand, names)
        if isinstance(node, ast.Attribute):
            if node.attr in TENSOR_ATTRS:
                return self.is_tensor(node.value, names)
            if node.attr in MODULE_TENSOR_ATTRS and self.is_module(node.value):
                return True
            return any(self._builds(v, s, lambda q: q.startswith("torch.") and q not in ("torch.device", "torch.Size"))
                       for v, s in self._attr_values(node))  # self.w = nn.Parameter(torch.randn(...))
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in TENSOR_GLUE and self.is_tensor(func.value, names):
                return True
            return bool(self.resolve(func) & TENSOR_MAKERS)
        return False

    def _tensor_names(self, forward: bool) -> set[str]:
        """Names that only ever hold tensors: forward's parameters and names assigned from tensors."""
        fn, params = self.node, {}
        if not isinstance(fn, ast.Lambda):
            positional = fn.args.posonlyargs + fn.args.args
            defaults = [None] * (len(positional) - len(fn.args.defaults)) + fn.args.defaults + fn.args.kw_defaults
            for arg, default in zip(positional + fn.args.kwonlyargs, defaults):
                annotation = ast.unparse(arg.annotation) if arg.annotation else ""
                no_default = default is None or (isinstance(default, ast.Constant) and default.value is None)
                plain = not annotation and no_default
                params[arg.arg] = arg.arg != self.scope.self_name and ("Tensor" in annotation or (forward and plain))
        values: dict[str, list[ast.expr | None]] = {}
        assigned = {id(t): n.value for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr))
                    for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        augmented = {id(n.target) for n in ast.walk(fn) if isinstance(n, ast.AugAssign)}  # x += y keeps x's kind
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and id(n) not in augmented:
                values.setdefault(n.id, []).append(assigned.get(id(n)))
        names = {p for p, tensor in params.items() if tensor} | (values.keys() - params.keys())
        while True:  # keep a name only if every value it is given is a tensor
            keep = {n for n in names if all(v is not None and self.is_tensor(v, names) for v in values.get(n, []))}
            if keep == names:
                return names
            names = keep

    # -- rules
    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if not self.c.is_kernel_def(node, self.scope):
            super().visit_FunctionDef(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        self.called.add(id(func))
        names = self.resolve(func)
        for q in sorted(names):
            self._torch_call(node, q)
        if self.is_module(func) or (isinstance(func, ast.Attribute) and self.is_module(func.value) and (
                func.attr in ROOT_METHODS or func.attr.startswith("_"))):  # self.conv._conv_forward(...)
            self.flag(R.FORBIDDEN_MODULE_CALL, node, f"nn module call {_src(func)}(...)",
                      "holding nn modules for their parameters is fine; calling them runs PyTorch")
        elif (isinstance(func, ast.Attribute) and _is_super(func.value) and self.owner
              and (bases := self.c.torch_bases(self.owner))):
            self.flag(R.FORBIDDEN_MODULE_CALL, node, f"super().{func.attr}(...) of {', '.join(sorted(bases))}")
        elif isinstance(func, ast.Attribute) and not names and not self.ix.self_class(func.value, self.scope):
            self._method(node, func.attr)
        elif names & HOST_BUILTINS and any(self.is_tensor(a) for a in node.args):  # float(x[0]) reads device memory
            self.flag(R.HOST_ROUNDTRIP, node, f"{_src(node)} called", "copies device data to the host")
        elif names & TENSOR_BUILTINS and any(self.is_tensor(e) for a in node.args  # abs(x), sum([x, y]), max(x, y)
                                             for e in (a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])):
            self.flag(R.FORBIDDEN_TORCH_OP, node, f"{_src(func)}() on a tensor")
        self.generic_visit(node)

    def _torch_call(self, node: ast.Call, q: str) -> None:
        if not q.startswith("torch.") or _banned(q) or q in ALLOWED_TORCH_CALLS:
            return  # banned names are reported by the file-wide rules
        parts = q.split(".")
        if parts[1] == "Tensor" and len(parts) > 2:  # torch.Tensor.add(x, y) is x.add(y)
            return self._method(node, parts[2])
        cls = next((i for i, p in enumerate(parts) if p[:1].isupper()), None)
        if q.startswith("torch.nn.") and cls is not None:
            # nn.Linear.forward(m, x), nn.Module.__call__(m, x)
            if cls < len(parts) - 1 and (parts[cls] not in NN_CONTAINERS or parts[-1] in ROOT_METHODS):
                self.flag(R.FORBIDDEN_MODULE_CALL, node, f"{q} called")
            return  # building a module only holds parameters
        self.flag(R.FORBIDDEN_TORCH_OP, node, f"{q} called")

    def _method(self, node: ast.Call, name: str) -> None:
        if name in HOST_METHODS:
            self.flag(R.HOST_ROUNDTRIP, node, f".{name}() called", "copies device data to the host")
        elif name == "to" and any((_const_str(n) or "").startswith("cpu")  # .to("cpu"), .to(device=torch.device("cpu"))
                                  for a in [*node.args, *(k.value for k in node.keywords)] for n in ast.walk(a)):
            self.flag(R.HOST_ROUNDTRIP, node, f"{_src(node)} called", "moves data to the host")
        elif name in FORBIDDEN_METHODS or name in ARITH_DUNDERS or name.removesuffix("_") in FORBIDDEN_METHODS:
            self.flag(R.FORBIDDEN_TORCH_OP, node, f"tensor method .{name}() called")

    def _reference(self, node: ast.Name | ast.Attribute) -> None:
        if id(node) in self.called or id(node) in self.inner or not isinstance(node.ctx, ast.Load):
            return
        names = self.resolve(node)
        stored = self._attr_values(node)  # OPS = {"mm": torch.matmul}; self.fns = [F.gelu]: compute kept in a container
        if isinstance(node, ast.Name) and self.ix.lookup(node.id, self.scope)[1] is self.ix.module_scope:
            stored = self.ix.module_values.get(node.id, [])
        refs = {q for v, s in stored for ref in _bare_refs(v) for q in self.ix.resolve(ref, s)}
        for q in sorted(names | refs):  # map(torch.relu, xs): compute passed as a value
            if q.startswith("torch.") and not _banned(q) and q not in ALLOWED_TORCH_CALLS and (
                    q.rsplit(".", 1)[-1] in FORBIDDEN_METHODS or q.startswith(COMPUTE_NAMESPACES)):
                via = "" if q in names else f" through {_src(node)}"
                self.flag(R.FORBIDDEN_TORCH_OP, node, f"{q} referenced{via}")
        if (isinstance(node, ast.Attribute) and not names and node.attr in FORBIDDEN_METHODS
                and self.is_tensor(node.value)):
            self.flag(R.FORBIDDEN_TORCH_OP, node, f"tensor method {_src(node)} referenced")  # f = x.relu; f()

    def visit_Name(self, node: ast.Name) -> None:
        self._reference(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._reference(node)
        self.inner.add(id(node.value))
        self.generic_visit(node)

    def _arith(self, node: ast.AST, operands: list[ast.AST], op: ast.AST) -> None:
        if id(node) in self.skip:
            self.skip.update(map(id, operands))
        elif isinstance(op, ast.MatMult):
            self.flag(R.FORBIDDEN_TORCH_OP, node, f"`{_src(node)}` (matrix multiply operator)")
            self.skip.update(map(id, operands))
        elif any(self.is_tensor(o) for o in operands):
            self.flag(R.FORBIDDEN_TORCH_OP, node, f"`{_src(node)}` (tensor arithmetic)")
            self.skip.update(map(id, operands))

    def visit_BinOp(self, node: ast.BinOp) -> None:
        self._arith(node, [node.left, node.right], node.op)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._arith(node, [node.target, node.value], node.op)
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, (ast.USub, ast.Invert)):
            self._arith(node, [node.operand], node.op)
        self.generic_visit(node)

    def visit_Compare(self, node: ast.Compare) -> None:
        if not all(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
            self._arith(node, [node.left, *node.comparators], node.ops[0])
        self.generic_visit(node)

    def _fallback(self, node: ast.AST, body: list, how: str) -> None:
        if self.c.launches_in(body, self.scope):
            self.flag(R.EXCEPTION_FALLBACK, node, f"kernel launch inside {how}",
                      "a failing kernel must fail, not fall back to PyTorch")

    def visit_Try(self, node: ast.Try) -> None:
        if node.handlers or node.finalbody:
            self._fallback(node, node.body, "try/except" if node.handlers else "try/finally")
        self.generic_visit(node)

    visit_TryStar = visit_Try

    def visit_With(self, node: ast.With | ast.AsyncWith) -> None:
        if any("contextlib.suppress" in self.resolve(item.context_expr.func) for item in node.items
               if isinstance(item.context_expr, ast.Call)):
            self._fallback(node, node.body, "contextlib.suppress")
        self.generic_visit(node)

    visit_AsyncWith = visit_With
