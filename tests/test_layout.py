"""House rules that keep the library usable without the orchestration stack."""

import ast
from pathlib import Path

from tests.support.paths import REPO

LIBRARY = REPO / "tritonrl"
FORBIDDEN = {"prefect", "flows", "tasks"}
CLI = LIBRARY / "cli"


def _nodes(path: Path):
    """Every node of a module; for the CLI only the module level, whose commands may import flows lazily.

    `tritonrl run`/`stack`/`deploy` are the user's door into the orchestration
    layer; importing it inside the command (tritonrl/cli/operations.py) keeps `import tritonrl.cli` (and the
    GPU host's `tritonrl verify`) free of prefect, which test_cli_imports_without_prefect checks.
    """
    tree = ast.parse(path.read_text(), filename=str(path))
    if path.parent != CLI:
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
    code = (
        "import sys, tritonrl.training.sft.worker, tritonrl.training.grpo.worker; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in %r))" % (stack,)
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


# Which rooms of tritonrl/ each room may import (its own always): the pipeline's stages sit on training,
# evaluation and generation, which sit on artifacts, problems and the verifier; nothing below imports above.
ROOM_IMPORTS = {
    "home": set(),
    "syntax": set(),
    "problems": {"syntax"},
    "verify": {"home", "problems", "syntax"},  # nothing of the app: its settings type is its only input
    "config": {"home", "verify"},  # the verify section's defaults are the verifier's
    "prompts": {"verify"},  # the feedback turn is made from a verdict
    "artifacts": {"config"},
    "evaluation": {"artifacts"},
    # broken answers are parsed as the verifier does
    "generation": {"config", "problems", "prompts", "syntax", "verify"},
    "training": {"artifacts", "config", "generation", "problems", "prompts", "verify"},
    "stages": {"artifacts", "config", "evaluation", "generation", "problems", "prompts", "training", "verify"},
    "tracking": {"artifacts", "config", "evaluation", "problems", "prompts", "stages", "training"},
    "stack": {"config", "home"},
}
ROOM_IMPORTS["cli"] = set(ROOM_IMPORTS)  # the user's door: every room


def _room(path: Path) -> str:
    first = path.relative_to(LIBRARY).parts[0]
    return first.removesuffix(".py")


def test_rooms_import_only_the_rooms_below_them():
    offenders = []
    for path in LIBRARY.rglob("*.py"):
        room = _room(path)
        if room == "__init__":
            continue
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [f"{node.module}.{a.name}" if node.module == "tritonrl" else node.module for a in node.names]
            else:
                continue
            for module in modules:
                parts = module.split(".")
                if parts[0] == "tritonrl" and len(parts) > 1 and parts[1] not in ROOM_IMPORTS[room] | {room}:
                    offenders.append(f"{path.relative_to(LIBRARY)}:{node.lineno} ({room}) imports {module}")
    assert offenders == [], "\n".join(offenders)


def _imports(path: Path) -> set[str]:
    """The tritonrl modules a module imports, at module level or inside functions (a lazy import is still one)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found |= {f"{node.module}.{alias.name}" for alias in node.names} | {node.module}
    return {name for name in found if name.startswith("tritonrl.")}


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One cycle of `graph` (as a path that ends where it starts), or []."""
    state: dict[str, str] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node], path[len(path) :] = "open", [node]
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return path[path.index(target) :] + [target]
            if target not in state and (found := visit(target)):
                return found
        state[node] = "done"
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_the_rooms_import_one_way():
    rules = {room: allowed for room, allowed in ROOM_IMPORTS.items() if room != "cli"}
    assert _cycle(rules) == []


def test_no_modules_import_each_other_even_lazily():
    modules = {
        ".".join(("tritonrl", *p.relative_to(LIBRARY).with_suffix("").parts)).removesuffix(".__init__"): p
        for p in LIBRARY.rglob("*.py")
    }
    graph = {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}
    assert _cycle(graph) == []


def test_every_room_is_named_in_the_rules():
    rooms = {_room(p) for p in LIBRARY.rglob("*.py")} - {"__init__"}
    assert rooms == set(ROOM_IMPORTS), "add the new room to ROOM_IMPORTS with what it may import"


def test_test_folders_mirror_the_rooms():
    """tests/<room>/ holds the tests of tritonrl/<room>/; support/ and fixtures/ are shared helpers and data."""
    folders = {
        p.name
        for p in (REPO / "tests").iterdir()
        if p.is_dir() and p.name not in ("support", "fixtures", "__pycache__")
    }
    rooms = {p.name for p in LIBRARY.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert folders <= rooms, f"test folders without a room: {sorted(folders - rooms)}"
