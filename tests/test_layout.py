"""House rules that keep the library usable without the orchestration stack."""

import ast
from pathlib import Path

LIBRARY = Path(__file__).resolve().parents[1] / "tritonrl"
FORBIDDEN = {"prefect", "flows", "tasks"}
CLI = LIBRARY / "cli.py"


def _nodes(path: Path):
    """Every node of a module; for the CLI only the module level, whose commands may import flows lazily.

    `tritonrl run`/`stack`/`deploy` are the user's door into the orchestration
    layer; importing it inside the command keeps `import tritonrl.cli` (and the
    GPU host's `tritonrl verify`) free of prefect, which test_cli_imports_without_prefect checks.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    if path != CLI:
        return list(ast.walk(tree))
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    inside = {id(n) for f in functions for n in ast.walk(f)}
    return [n for n in ast.walk(tree) if id(n) not in inside]


def test_library_never_imports_prefect_flows_or_tasks():
    offenders = []
    for path in LIBRARY.rglob("*.py"):
        for node in _nodes(path):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            offenders += [f"{path}:{node.lineno} imports {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_cli_imports_without_prefect():
    import subprocess
    import sys

    code = "import sys, tritonrl.cli; print(sorted(m for m in sys.modules if m.split('.')[0] in %r))" % (FORBIDDEN,)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_training_workers_import_without_the_orchestration_stack():
    """torchrun starts them on GPU hosts, which have no prefect or mlflow."""
    import subprocess
    import sys

    stack = FORBIDDEN | {"mlflow"}
    code = ("import sys, tritonrl.sft_worker, tritonrl.grpo_worker; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in %r))" % (stack,))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
