"""Break a correct answer the way models break theirs, for refinement training.

A refinement example shows the student a wrong answer, the verifier's
feedback on it and the fixed answer. The wrong answers come from correct
ones: each kind below is one realistic mistake, made by a source edit at
the place the answer has the construct (located with `ast`, edited as text
so the rest of the answer keeps its layout). A kind that finds no such
place gives nothing, and an edit that changes nothing is dropped. One kind
is not an edit: `wrong_problem` answers with the most similar other
problem's answer, the mistake a small student makes most (asked for a row
max, it writes its row sum). Whether a
breakage really breaks the answer is for the verifier to say: the augment
stage keeps only the ones it rejects, with its feedback.

Test: tests/generation/test_breakage.py.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tritonrl import syntax
from tritonrl.verify.response import parse_response

_REDUCTIONS = {"sum", "max", "min", "cumsum", "cumprod", "argmax", "argmin", "reduce", "xor_sum"}
_TORCH_NAMES = {"torch", "F", "nn"}

Edit = tuple[int, int, str]  # (start, end, replacement) as character offsets in the code


@dataclass(frozen=True)
class Breakage:
    """One broken variant of an answer: its kind and the whole response with the broken code in place."""

    kind: str
    response: str


class _Code:
    """An answer's code with its syntax tree and offsets of tree positions."""

    def __init__(self, code: str, tree: ast.Module) -> None:
        self.text, self.tree = code, tree
        self._starts = [0]
        for line in code.splitlines(keepends=True):
            self._starts.append(self._starts[-1] + len(line))

    def offset(self, line: int, col: int) -> int:
        start = self._starts[line - 1]  # ast columns count UTF-8 bytes
        return start + len(self.text[start : self._starts[line]].encode()[:col].decode(errors="ignore"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def kernels(self) -> list[ast.FunctionDef]:
        """The `@triton.jit` functions, in source order."""
        return [
            node
            for node in self.tree.body
            if isinstance(node, ast.FunctionDef)
            and any(ast.unparse(d).split("(")[0].endswith("jit") for d in node.decorator_list)
        ]

    def forward(self) -> ast.FunctionDef | None:
        return _method(self.tree, "ModelNew", "forward")


def _method(tree: ast.Module, class_name: str, name: str) -> ast.FunctionDef | None:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == class_name:
            return next((f for f in node.body if isinstance(f, ast.FunctionDef) and f.name == name), None)
    return None


def _calls(nodes: list[ast.AST], module: str, names: set[str]) -> list[ast.Call]:
    """Calls `<module>.<name>(...)` inside `nodes`, in source order."""
    found = [
        call
        for node in nodes
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in names
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == module
    ]
    return sorted(found, key=lambda c: (c.lineno, c.col_offset))


def off_by_one_mask(code: _Code, problem_source: str) -> list[Edit]:
    """The first bounds check of the first kernel lets one element too many through: `<` becomes `<=`."""
    for kernel in code.kernels():
        compares = sorted(
            (n for n in ast.walk(kernel) if isinstance(n, ast.Compare) and isinstance(n.ops[0], ast.Lt)),
            key=lambda n: (n.lineno, n.col_offset),
        )
        if compares:
            first = compares[0]
            start, end = code.span(first.left)[1], code.span(first.comparators[0])[0]
            return [(start, end, code.text[start:end].replace("<", "<=", 1))]
    return []


def missing_mask(code: _Code, problem_source: str) -> list[Edit]:
    """Every load and store of the kernels without its `mask=` (and `other=`): no boundary checks."""
    edits = []
    for call in _calls(code.kernels(), "tl", {"load", "store"}):
        arguments = sorted([*call.args, *call.keywords], key=lambda n: (n.lineno, n.col_offset))
        for before, argument in zip(arguments, arguments[1:]):  # from the end of the argument before it
            if isinstance(argument, ast.keyword) and argument.arg in ("mask", "other"):
                edits.append((code.span(before)[1], code.span(argument)[1], ""))
    return edits


def short_grid(code: _Code, problem_source: str) -> list[Edit]:
    """The launch grid rounds down: `triton.cdiv(n, BLOCK)` becomes `n // BLOCK`, so the ragged tail is never computed."""
    calls = _calls([code.forward()] if code.forward() else [], "triton", {"cdiv"})
    return [
        (*code.span(call), " // ".join(code.text[slice(*code.span(a))] for a in call.args))
        for call in calls
        if len(call.args) == 2
    ]


def wrong_axis(code: _Code, problem_source: str) -> list[Edit]:
    """A kernel's reduction over the axis PyTorch's `dim=1` names: `axis=0` of a block becomes `axis=1`."""
    for call in _calls(code.kernels(), "tl", _REDUCTIONS):
        axis = next((k.value for k in call.keywords if k.arg == "axis"), None)
        if isinstance(axis, ast.Constant) and isinstance(axis.value, int):
            return [(*code.span(axis), str(1 - axis.value if axis.value in (0, 1) else 0))]
    return []


def torch_op_in_forward(code: _Code, problem_source: str) -> list[Edit]:
    """`ModelNew.forward` launches its kernel but returns the problem's PyTorch expression, the torch fallback models write."""
    forward = code.forward()
    reference = _method(syntax.parse(problem_source), "Model", "forward")
    if (
        forward is None
        or reference is None
        or len(reference.body) != 1
        or not isinstance(reference.body[0], ast.Return)
    ):
        return []
    expression = reference.body[0].value
    params = {a.arg for a in reference.args.args} - {"self"}
    names = {n.id for n in ast.walk(expression) if isinstance(n, ast.Name)}
    if (
        expression is None
        or not names <= params | _TORCH_NAMES
        or params != {a.arg for a in forward.args.args} - {"self"}
    ):
        return []
    last = forward.body[-1]
    if not isinstance(last, ast.Return) or last.value is None:
        return []
    return [(*code.span(last.value), ast.unparse(expression))]


def syntax_slip(code: _Code, problem_source: str) -> list[Edit]:
    """The colon that opens the first loop or branch of the kernels (else the first kernel's `def`) is missing."""
    kernels = code.kernels()
    blocks = sorted(
        (n for k in kernels for n in ast.walk(k) if isinstance(n, (ast.For, ast.If, ast.While))),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for node in [*blocks, *kernels[:1]]:
        if node.body[0].lineno == node.lineno:  # `for ...: body` on one line
            continue
        header_end = code.offset(node.body[0].lineno, 0)
        colon = code.text.rfind(":", code.offset(node.lineno, node.col_offset), header_end)
        if colon >= 0 and code.text[colon + 1 : header_end].strip() == "":
            return [(colon, colon + 1, "")]
    return []


KINDS: dict[str, Callable[[_Code, str], list[Edit]]] = {
    "off_by_one_mask": off_by_one_mask,
    "missing_mask": missing_mask,
    "short_grid": short_grid,
    "wrong_axis": wrong_axis,
    "torch_op_in_forward": torch_op_in_forward,
    "syntax_slip": syntax_slip,
}
WRONG_PROBLEM = "wrong_problem"
ALL_KINDS = [*KINDS, WRONG_PROBLEM]


def _apply(text: str, edits: list[Edit]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _most_similar(code: str, others: Mapping[str, str]) -> str | None:
    """The other answer whose code reads most like `code` (ties: the first name in order)."""
    scored = [
        (difflib.SequenceMatcher(None, code, other_code, autojunk=False).ratio(), name)
        for name, response in sorted(others.items())
        if (other_code := parse_response(response).code) is not None and other_code != code
    ]
    return others[max(scored, key=lambda s: s[0])[1]] if scored else None


def break_response(
    response: str, problem_source: str, kinds: list[str] | None = None, others: Mapping[str, str] | None = None
) -> list[Breakage]:
    """Every kind (of `kinds`, default all, in that order) that applies to the response's code and changes it;
    `others` (other problems' answers by problem name) is what `wrong_problem` chooses from."""
    unknown = sorted(set(kinds or ()) - set(ALL_KINDS))
    if unknown:
        raise ValueError(f"unknown breakage kinds {unknown}; known: {sorted(ALL_KINDS)}")
    parsed = parse_response(response)
    if parsed.code is None:
        return []
    try:
        code = _Code(parsed.code, syntax.parse(parsed.code))
    except SyntaxError:
        return []
    found = []
    for kind in kinds or ALL_KINDS:
        if kind == WRONG_PROBLEM:
            other = _most_similar(parsed.code, others or {})
            found += [Breakage(kind, other)] if other is not None else []
            continue
        broken = _apply(parsed.code, KINDS[kind](code, problem_source))
        if broken != parsed.code:
            found.append(Breakage(kind, response[: parsed.code_start] + broken + response[parsed.code_end :]))
    return found
