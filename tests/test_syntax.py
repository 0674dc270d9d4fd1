"""Parsing is serialised across threads (CPython < 3.11.8 fails concurrent parses with a SystemError)."""

import ast
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tritonrl import syntax

from tests.support.paths import REPO


def test_parses_from_many_threads_never_overlap(monkeypatch):
    inside, most = 0, 0
    guard = threading.Lock()
    real_parse = ast.parse

    def slow_parse(source, filename="<unknown>"):
        nonlocal inside, most
        with guard:
            inside += 1
            most = max(most, inside)
        time.sleep(0.01)  # long enough that unserialised calls from 8 threads would overlap
        with guard:
            inside -= 1
        return real_parse(source, filename=filename)

    monkeypatch.setattr(ast, "parse", slow_parse)
    with ThreadPoolExecutor(8) as pool:
        trees = list(pool.map(lambda i: syntax.parse(f"x = {i}"), range(32)))
    assert most == 1
    assert [t.body[0].value.value for t in trees] == list(range(32))


def test_compiled_tree_runs():
    tree = ast.fix_missing_locations(ast.Expression(ast.BinOp(ast.Constant(6), ast.Mult(), ast.Constant(7))))
    code = syntax.compile_tree(tree, "<t>", "eval")
    assert eval(code) == 42  # noqa: S307 - a constant expression built above


def test_the_library_parses_only_through_syntax():
    """A direct ast.parse in a thread beside another parse can raise SystemError on the CPython versions we support."""
    direct = [
        f"{path.relative_to(REPO)}:{number}"
        for path in (REPO / "tritonrl").rglob("*.py")
        if path.name != "syntax.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "ast.parse(" in line
    ]
    assert direct == []
