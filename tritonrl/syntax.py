"""Python source parsed one thread at a time.

CPython before 3.11.8 and 3.12.1 keeps the AST builder's recursion depth per interpreter, not per thread
(cpython gh-106905), so two threads parsing at once can fail with `SystemError: AST constructor recursion depth
mismatch`. The verifier pool's threads and the stages' worker threads parse problems and answers side by side:
every parse and every compile of a syntax tree in tritonrl goes through here.
"""

import ast
import threading

_ONE_AT_A_TIME = threading.Lock()


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source)`, never while another thread parses or compiles a tree."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, filename=filename)


def compile_tree(tree: ast.AST, filename: str, mode: str):
    """`compile(tree, filename, mode)`, never while another thread parses or compiles a tree."""
    with _ONE_AT_A_TIME:
        return compile(tree, filename, mode)
