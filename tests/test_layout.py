"""House rules that keep the library usable without the orchestration stack."""

import ast
from pathlib import Path

LIBRARY = Path(__file__).resolve().parents[1] / "tritonrl"
FORBIDDEN = {"prefect", "flows", "tasks"}


def test_library_never_imports_prefect_flows_or_tasks():
    offenders = []
    for path in LIBRARY.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []
