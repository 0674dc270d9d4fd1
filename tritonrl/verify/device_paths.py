"""Paths an answer takes on one device and not another: what a CPU verdict cannot judge.

A CPU verifier runs the answer's CPU path only. Host code that asks where it runs (`if x.is_cuda:`,
`x.device.type == "cuda"`, `torch.cuda.is_available()`, `str(x.device)`, a flag set from them in `__init__`,
a try/except around a call only a GPU answers) can compute with PyTorch, or launch other kernels, on a GPU and
run its Triton kernel on the CPU alone: accepted there, never judged where it runs.

`device_paths(code)` follows every device fact (`static_rules.DEVICE_PREDICATES`, the attributes of a `.device`,
`static_rules.DEVICE_QUERIES`, a device name compared) through assignments, attributes, parameters and return
values to where it decides something, and reports each such place:
- a condition: if, while, a conditional expression, `and`/`or` that skip a call, a loop's range, a comprehension's
  filter, and an exception handler after a try that probes the device;
- anything else it is handed to: a kernel launch, an allocation's size, `print`, a callable it picks, the output.
Device values (`x.device`, `torch.device(...)`, `"cuda"`, `"cuda" if ... else "cpu"`) may go where a device is
named (`device=`, `.to(...)`, `torch.cuda.device(...)`) and are facts everywhere else. Assertions and raised
errors may read anything. Some branches change no result and are harmless (listed, not refused): sides that differ
only by a device context around the same statements (`if x.is_cuda: with torch.cuda.device(x.device): launch()`
`else: launch()`), and an `if` with one side that only raises or only selects the device
(`torch.cuda.set_device(x.device)`).

`on_cpu(code)` turns them into what a CPU verdict says: a `device_dependent_path` reason for each path that is
not harmless, and what only a GPU can judge (the harmless paths' other side, timing, the compiled kernels).
Code that never runs (a restated `Model`, `__main__` blocks, kernels) is not followed: static.py decides that.

Test: tests/verify/test_static.py (device paths), tests/verify/test_hacks.py (hacks/57_device_gated_*).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import torch

from tritonrl import syntax
from tritonrl.verify.result import Reason, ReasonCode
from tritonrl.verify.static import _FOREIGN_NAMES, _Checker, _root, _Scope
from tritonrl.verify.static_rules import (
    DESCRIBING_BUILTINS,
    DEVICE_MOVES,
    DEVICE_NAMING,
    DEVICE_PREDICATES,
    DEVICE_QUERIES,
)

FACT, DEVICE = "fact", "device"  # what an expression holds: something that tells the device, or a device to name

# What a CPU verdict never judges, whatever the answer (the interpreter runs the kernels' Python; nothing is timed).
CPU_UNTRIED = (
    "timing (speed-up, speed of light) and the timed calls' outputs, checked at random (an answer that changes after "
    "more calls or instances than the trials make): judged on a GPU only",
    "the compiled kernels (the CPU interpreter runs their Python): compilation, races between lanes and the GPU's "
    "arithmetic are judged on a GPU only",
)
AUTOTUNE_UNTRIED = "autotune's configs after the first (the CPU interpreter runs the first only): judged on a GPU only"


@dataclass(frozen=True)
class DevicePath:
    """One place where host code decides on the device: its line, the construct, and why it changes no result
    (empty: a CPU verdict cannot judge what the other device does there)."""

    line: int
    what: str
    harmless: str = ""


def on_cpu(code: str) -> tuple[list[Reason], list[str]]:
    """What a CPU verdict on `code` says of its device paths: reasons that refuse it, and what only a GPU judges."""
    tree = _parse(code)
    if tree is None:
        return [], list(CPU_UNTRIED)  # the static layer already refuses what does not parse
    try:
        checker = _host_code(tree)
        paths = _DeviceFlow(checker).paths()
    except Exception as exc:  # fail closed: a source whose device facts cannot be followed is not judged to have none
        return [
            Reason(
                ReasonCode.DEVICE_DEPENDENT_PATH,
                f"the device facts of this source could not be followed "
                f"({type(exc).__name__}), so a CPU verdict cannot say it takes one path on every device",
            )
        ], list(CPU_UNTRIED)
    reasons = [
        Reason(
            ReasonCode.DEVICE_DEPENDENT_PATH,
            f"line {p.line}: {p.what}: the host code decides on the device "
            "here, so a GPU may run another path than this CPU ran, which a CPU verdict cannot judge; write one "
            "path for every device (only a device context around the same launch, or a check that raises, "
            "may differ)",
        )
        for p in paths
        if not p.harmless
    ]
    untried = [
        f"line {p.line}: {p.what} ({p.harmless}): the GPU's side is judged on a GPU only" for p in paths if p.harmless
    ]
    autotuned = any(
        checker.quals(d.func if isinstance(d, ast.Call) else d, checker.module) & {"triton.autotune"}
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        for d in n.decorator_list
    )
    return reasons, [*untried, *CPU_UNTRIED, *([AUTOTUNE_UNTRIED] if autotuned else [])]


def device_paths(code: str) -> list[DevicePath]:
    """Every place where `code`'s host code decides on the device (empty for code that does not parse)."""
    tree = _parse(code)
    return [] if tree is None else _DeviceFlow(_host_code(tree)).paths()


def _parse(code: str) -> ast.Module | None:
    try:
        return syntax.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None


def _host_code(tree: ast.Module) -> _Checker:
    """The static layer's view of the file: its scopes, names, kernels and the bodies that never run."""
    checker = _Checker(tree, frozenset({"Model"}))
    checker._find_kernels()
    checker._find_class_kinds()
    return checker


_DEVICE_TYPES = frozenset(
    {"cuda", "cpu", "meta", "mps", "xpu"}
)  # the devices answers name ("hpu", "ve"... are words too)


def _device_name(value: object) -> bool:
    """A string naming a device ("cuda", "cuda:0", "cpu", "meta")."""
    if not isinstance(value, str) or value.split(":")[0] not in _DEVICE_TYPES:
        return False
    try:
        torch.device(value)
    except (RuntimeError, ValueError):
        return False
    return True


def _stronger(*kinds: str | None) -> str | None:
    """A fact wins over a device (a name assigned both holds a fact)."""
    return FACT if FACT in kinds else DEVICE if DEVICE in kinds else None


def _short(node: ast.AST) -> str:
    text = " ".join(ast.unparse(node).split())
    return f"`{text[:80]}{'…' if len(text) > 80 else ''}`"


class _DeviceFlow:
    """Device facts followed through the host code until what they hold stops growing, then judged where used."""

    def __init__(self, checker: _Checker) -> None:
        self.c = checker
        self.held: dict[tuple[int, str], str] = {}  # (binding scope, variable) -> FACT | DEVICE
        self.attrs: dict[str, str] = {}  # attribute name (`self.on_gpu`) -> kind
        self.returns: dict[str, str] = {}  # function or method name -> kind of what it returns
        self.defs: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
        for node in ast.walk(checker.tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) not in checker.kernels:
                self.defs.setdefault(node.name, []).append(node)
        self.found: dict[int, DevicePath] | None = None  # line -> its path; None while learning

    def paths(self) -> list[DevicePath]:
        while True:
            before = (dict(self.held), dict(self.attrs), dict(self.returns))
            self.block(self.c._live_statements(), self.c.module, None)
            if before == (self.held, self.attrs, self.returns):
                break
        self.found = {}
        self.block(self.c._live_statements(), self.c.module, None)
        return sorted(self.found.values(), key=lambda p: p.line)

    # -- what is learnt and what is reported
    def learn(self, key: tuple[int, str] | str, kind: str | None, table: dict) -> None:
        if kind is not None:
            table[key] = _stronger(kind, table.get(key))

    def report(self, node: ast.AST, what: str, harmless: str = "") -> None:
        line = getattr(node, "lineno", 0)
        if self.found is not None and (line not in self.found or (self.found[line].harmless and not harmless)):
            self.found[line] = DevicePath(line, what, harmless)  # one a line: the first met that changes a result

    # -- names
    def home(self, scope: _Scope, name: str) -> _Scope | None:
        """The scope whose binding of `name` a use in `scope` reads (static._Scope.lookup's rules)."""
        first = True
        while scope is not None:
            if name in scope.globals_:
                scope = _root(scope)
            if (first or scope.kind != "class") and (name in scope.bound or name in scope.quals):
                return scope
            first = False
            scope = scope.parent
        return None

    def bind(self, target: ast.expr, kind: str | None, scope: _Scope) -> None:
        """An assignment of something of `kind` to `target` (a container stored into holds it too)."""
        if isinstance(target, ast.Name):
            home = self.home(scope, target.id)
            if home is not None:
                self.learn((id(home), target.id), kind, self.held)
        elif isinstance(target, ast.Attribute):
            self.learn(target.attr, kind, self.attrs)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self.bind(element, kind, scope)
        elif isinstance(target, (ast.Starred, ast.Subscript)):
            self.bind(target.value, kind, scope)

    # -- what an expression holds
    def kind(self, node: ast.AST | None, scope: _Scope) -> str | None:
        if node is None:
            return None
        if isinstance(node, ast.Constant):
            return DEVICE if _device_name(node.value) else None
        if isinstance(node, (ast.Name, ast.Attribute)) and (names := self.c.quals(node, scope)):
            return self.query(names)
        if isinstance(node, ast.Name):
            home = self.home(scope, node.id)
            return self.held.get((id(home), node.id)) if home is not None else None
        if isinstance(node, ast.Attribute):
            if node.attr in DEVICE_PREDICATES:
                return FACT
            if node.attr == "device":
                return DEVICE
            return _stronger(self.attrs.get(node.attr), FACT if self.kind(node.value, scope) else None)
        if isinstance(node, ast.Call):
            return self.call_kind(node, scope)
        if isinstance(node, ast.IfExp):
            if self.kind(node.test, scope):
                return DEVICE if self.device_choice(node, scope) else FACT
            return _stronger(self.kind(node.body, scope), self.kind(node.orelse, scope))
        if isinstance(node, ast.NamedExpr):
            return self.kind(node.value, scope)
        if isinstance(node, ast.Dict):  # {"device": x.device, "dtype": x.dtype}: factory keywords name a device
            parts = [
                DEVICE
                if isinstance(k, ast.Constant) and k.value == "device" and self.kind(v, scope) == DEVICE
                else self.kind(v, scope)
                for k, v in zip(node.keys, node.values)
            ]
            return _stronger(*parts, *(self.kind(k, scope) for k in node.keys))
        inner = self.c.binder.scopes.get(id(node), scope)  # a lambda's or comprehension's own names
        parts = [self.kind(child, inner) for child in ast.iter_child_nodes(node) if isinstance(child, ast.AST)]
        return FACT if any(parts) else None

    def query(self, names: set[str]) -> str | None:
        """A qualified name: a device naming call, a query of the machine, or neither."""
        if names & DEVICE_NAMING:
            return DEVICE
        return FACT if any(q.startswith(DEVICE_QUERIES) for q in names) else None

    def call_kind(self, node: ast.Call, scope: _Scope) -> str | None:
        func = node.func
        if names := self.c.quals(func, scope):
            held = self.query(names)
            if held or not names & {f"builtins.{b}" for b in DESCRIBING_BUILTINS | {"getattr"}}:
                return held
            if "builtins.getattr" in names:  # getattr(x, "is_cuda"): the static layer allows constant names only
                attr = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else None
                return FACT if attr in DEVICE_PREDICATES else DEVICE if attr == "device" else None
            return FACT if any(self.kind(a, scope) for a in [*node.args, *(k.value for k in node.keywords)]) else None
        if isinstance(func, ast.Attribute) and func.attr == "type" and not node.args and not node.keywords:
            return FACT  # x.type(): "torch.cuda.FloatTensor"
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Attribute) and func.attr in DEVICE_MOVES:
            return None  # x.to(device): the same data, wherever it lives
        return _stronger(self.returns.get(name), FACT if self.kind(func, scope) else None)

    def device_choice(self, node: ast.IfExp, scope: _Scope) -> bool:
        """`"cuda" if cond else "cpu"`: both sides name a device, so the choice is only where data lives."""
        return all(
            self.kind(side, scope) == DEVICE or (isinstance(side, ast.Constant) and side.value is None)
            for side in (node.body, node.orelse)
        )

    # -- statements
    def block(self, stmts: list[ast.stmt], scope: _Scope, func) -> None:
        for stmt in stmts:
            if id(stmt) not in self.c._unrun:
                self.stmt(stmt, scope, func)

    def stmt(self, node: ast.stmt, scope: _Scope, func) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.function(node, scope)
        elif isinstance(node, ast.ClassDef):
            for part in [*node.bases, *node.decorator_list]:
                self.use(part, scope)
            self.block(node.body, self.c.binder.scopes[id(node)], None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            held = self.kind(node.value, scope)
            for target in targets:
                self.bind(target, held, scope)
            self.use(node.value, scope)
        elif isinstance(node, ast.Expr):
            self.use(node.value, scope)
        elif isinstance(node, ast.Return) and node.value is not None:
            self.returned(node, scope, func)
        elif isinstance(node, ast.If):
            self.branch(node, node.test, scope, self.harmless(node, scope))
            self.block(node.body + node.orelse, scope, func)
        elif isinstance(node, ast.While):
            self.branch(node, node.test, scope)
            self.block(node.body + node.orelse, scope, func)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.branch(node, node.iter, scope)
            self.bind(node.target, FACT if self.kind(node.iter, scope) else None, scope)
            self.block(node.body + node.orelse, scope, func)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                self.use(item.context_expr, scope)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, self.kind(item.context_expr, scope), scope)
            self.block(node.body, scope, func)
        elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
            self.try_(node, scope, func)
        # assert and raise may read anything: they only end the call

    def function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: _Scope) -> None:
        if id(node) in self.c.kernels:
            return  # kernel code: what a launch hands it is judged at the launch
        inner = self.c.binder.scopes[id(node)]
        for decorator in node.decorator_list:
            self.use(decorator, scope)
        args = node.args
        positional = args.posonlyargs + args.args
        pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        for arg, default in pairs:
            self.learn((id(inner), arg.arg), self.kind(default, scope), self.held)
            self.use(default, scope)
        self.block(node.body, inner, node)

    def returned(self, node: ast.Return, scope: _Scope, func) -> None:
        held = self.kind(node.value, scope)
        self.use(node.value, scope)
        if func is not None:
            self.learn(func.name, held, self.returns)
            if held and func.name in ("forward", "__call__"):
                self.report(node, f"{func.name} returning {_short(node.value)}")

    def branch(self, node: ast.stmt, test: ast.expr, scope: _Scope, harmless: str = "") -> None:
        """A statement that runs its body or loops by `test`: a device path when the test holds a device fact."""
        if self.kind(test, scope):
            keyword = {ast.If: "if", ast.While: "while"}.get(type(node))
            what = f"`{keyword} {_short(test)[1:-1]}:`" if keyword else f"a loop over {_short(test)}"
            self.report(node, what, harmless)
        self.use(test, scope)

    def harmless(self, node: ast.If, scope: _Scope) -> str:
        """Why a branch on the device changes no result, or '' when it may."""
        if node.orelse and ast.dump(self.unwrapped(node.body, scope)) == ast.dump(self.unwrapped(node.orelse, scope)):
            return "both sides run the same statements, in a device context on one of them"
        if node.body and node.orelse:
            return ""
        side = node.body or node.orelse
        if all(isinstance(s, (ast.Raise, ast.Assert)) for s in side):
            return "its side only raises"
        if all(
            isinstance(s, ast.Expr)
            and isinstance(s.value, ast.Call)
            and self.c.quals(s.value.func, scope) & DEVICE_NAMING
            for s in side
        ):
            return "its side only selects the device"
        return ""

    def unwrapped(self, stmts: list[ast.stmt], scope: _Scope) -> ast.Module:
        """`stmts` with every `with <device context>:` replaced by its body."""
        flat: list[ast.stmt] = []
        for stmt in stmts:
            naming = isinstance(stmt, ast.With) and all(
                isinstance(i.context_expr, ast.Call)
                and i.optional_vars is None
                and self.c.quals(i.context_expr.func, scope) & DEVICE_NAMING
                for i in stmt.items
            )
            flat += self.unwrapped(stmt.body, scope).body if naming else [stmt]
        return ast.Module(body=flat, type_ignores=[])

    def try_(self, node: ast.Try, scope: _Scope, func) -> None:
        """A try whose body asks the device something and whose handler goes on: the exception picks the path."""
        probes = any(self.kind(n, scope) for s in node.body for n in ast.walk(s) if isinstance(n, ast.expr))
        if probes and any(not all(isinstance(s, ast.Raise) for s in h.body) for h in node.handlers):
            self.report(
                node,
                "a try/except around a question to the device or machine (its handler runs where the question fails)",
            )
        self.block(node.body + [s for h in node.handlers for s in h.body] + node.orelse + node.finalbody, scope, func)

    # -- expressions: where what they hold is used
    def use(self, node: ast.expr, scope: _Scope) -> None:
        """Report every place inside `node` where a device fact decides something or is handed on."""
        if isinstance(node, ast.IfExp) and self.kind(node.test, scope) and not self.device_choice(node, scope):
            self.report(node, f"the conditional expression {_short(node)}")
        elif isinstance(node, ast.BoolOp):
            for index, operand in enumerate(node.values[:-1]):
                later = [n for v in node.values[index + 1 :] for n in ast.walk(v)]
                if self.kind(operand, scope) and any(isinstance(n, (ast.Call, ast.NamedExpr)) for n in later):
                    self.report(node, f"{_short(node)}, whose later operands run only on one device")
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            inner = self.c.binder.scopes[id(node)]
            for generator in node.generators:
                self.bind(generator.target, FACT if self.kind(generator.iter, inner) else None, inner)
                if any(self.kind(part, inner) for part in [generator.iter, *generator.ifs]):
                    self.report(node, f"the comprehension {_short(node)}")
        elif isinstance(node, ast.NamedExpr):
            self.bind(node.target, self.kind(node.value, scope), scope)
        elif isinstance(node, ast.Call):
            self.call(node, scope)
        inner = self.c.binder.scopes.get(id(node), scope)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.use(child, inner)
            elif isinstance(child, ast.comprehension):
                for part in [child.iter, *child.ifs]:
                    self.use(part, inner)
            elif isinstance(child, ast.keyword):
                self.use(child.value, inner)

    def call(self, node: ast.Call, scope: _Scope) -> None:
        """A call's arguments: a device fact may name a device, describe one, or go to this file's own functions
        (followed there); handed to anything else (a launch, torch, print) it changes what runs."""
        func = node.func
        names = self.c.quals(func, scope)
        if names or (isinstance(func, ast.Name) and func.id in self.defs):
            chosen = None  # a library function, or one of this file's by name
        elif isinstance(func, ast.Attribute):
            chosen = self.attrs.get(func.attr)  # self.run = (a or b): a method picked where the device was asked
        else:
            chosen = self.kind(func, scope)
        if chosen:
            self.report(node, f"a call of {_short(func)}, chosen by the device")
        if names & DEVICE_NAMING:
            return
        parameters = self.parameters(node, scope)
        if parameters:
            for positional, by_name in parameters:
                for index, arg in enumerate(node.args):
                    held = self.kind(arg, scope)
                    for key in positional if isinstance(arg, ast.Starred) else positional[index : index + 1]:
                        self.learn(key, held, self.held)
                for keyword in node.keywords:
                    for key in by_name.values() if keyword.arg is None else [by_name.get(keyword.arg)]:
                        if key is not None:
                            self.learn(key, self.kind(keyword.value, scope), self.held)
            return
        if self.call_kind(node, scope):
            return  # it describes what it is given: the result is judged where it goes
        moves = isinstance(func, ast.Attribute) and func.attr in DEVICE_MOVES
        for arg in node.args:
            held = self.kind(arg, scope)
            if held and not (moves and held == DEVICE):
                self.report(arg, f"{_short(arg)} handed to {_short(func)}")
        for keyword in node.keywords:
            held = self.kind(keyword.value, scope)
            if held and not (keyword.arg == "device" or (keyword.arg is None and held == DEVICE)):
                self.report(keyword.value, f"{_short(keyword.value)} handed to {_short(func)}")

    def parameters(self, node: ast.Call, scope: _Scope) -> list[tuple[list, dict]]:
        """For a call of this file's functions, methods or classes of that name: for each definition, the keys of the
        parameters taking the positional arguments and those taking keywords (an object's own first one left out).
        A tensor's or module's method name (`out.fill_`) is theirs unless called on the method's own `self`."""
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if isinstance(func, ast.Attribute) and name in _FOREIGN_NAMES and not self.c._on_self(func.value, scope):
            return []
        defs = self.defs.get(name, [])
        constructs = isinstance(func, ast.Name) and name in self.c.classes
        if constructs:
            defs = [s for s in self.c.classes[name].body if isinstance(s, ast.FunctionDef) and s.name == "__init__"]
        found = []
        for definition in defs:
            inner = self.c.binder.scopes[id(definition)]
            params = definition.args.posonlyargs + definition.args.args
            if inner.self_name is not None and (isinstance(func, ast.Attribute) or constructs):
                params = params[1:]
            keys = [(id(inner), p.arg) for p in params]
            if definition.args.vararg is not None:
                keys.append((id(inner), definition.args.vararg.arg))
            found.append((keys, {p.arg: (id(inner), p.arg) for p in [*params, *definition.args.kwonlyargs]}))
        return found
