"""Load problems from every source the pipeline accepts, behind one `load_problems`.

Sources:
- `builtin` — the project's own suite (tritonrl/problems/builtin/), with reference answers;
- a directory of `.py` files, or one `.py` file;
- a KernelBench JSONL with the hub columns `code, level, name, problem_id`;
- a hub dataset id such as `ScalingIntelligence/KernelBench` (or a local dataset
  directory in the same layout), through `datasets`;
- `kernelbook:<id, .jsonl or .parquet>` — GPUMODE/KernelBook rows (a PyTorch module
  named by `entry_point` plus Inductor Triton code) converted to problems.

Every problem is statically checked on load; a malformed one raises
ProblemError naming its origin.

Test: tests/problems/test_loaders.py.
"""

from __future__ import annotations

import io
import json
import tokenize
from collections.abc import Iterable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from tritonrl.problems.model import Problem, ProblemError, check_problem_source

KERNELBOOK_PREFIX = "kernelbook:"
KERNELBENCH_COLUMNS = ("code", "level", "name", "problem_id")


def _checked(problem: Problem) -> Problem:
    check_problem_source(problem.source, problem.origin)
    return problem


def load_builtin() -> list[Problem]:
    """The built-in suite, in manifest order, each with its reference response."""
    root = resources.files("tritonrl.problems.builtin")
    entries = yaml.safe_load(root.joinpath("suite.yaml").read_text())
    problems = []
    for entry in entries:
        stem = entry["file"].removesuffix(".py")
        problem_file = root.joinpath("problems", entry["file"])
        problems.append(
            _checked(
                Problem(
                    name=entry["file"],
                    source=problem_file.read_text(),
                    origin=f"builtin:{entry['file']}",
                    problem_id=int(stem.split("_", 1)[0]),
                    category=entry["category"],
                    reference_response=root.joinpath("solutions", f"{stem}.md").read_text(),
                    alt_shapes=dict(entry.get("alt_shapes", {})),
                )
            )
        )
    return problems


def load_python_files(path: Path) -> list[Problem]:
    """Every `*.py` file of a directory (sorted by name), or a single `.py` file."""
    files = sorted(path.glob("*.py")) if path.is_dir() else [path]
    if not files:
        raise ProblemError(f"{path}: directory holds no .py problem files")
    return [_checked(Problem(name=f.name, source=f.read_text(), origin=str(f))) for f in files]


def _kernelbench_row(row: Mapping[str, Any], origin: str) -> Problem:
    missing = [c for c in KERNELBENCH_COLUMNS if c not in row]
    if missing:
        raise ProblemError(f"{origin}: missing KernelBench columns {missing}; expected {list(KERNELBENCH_COLUMNS)}")
    return _checked(
        Problem(
            name=str(row["name"]),
            source=str(row["code"]),
            origin=origin,
            level=int(row["level"]),
            problem_id=int(row["problem_id"]),
        )
    )


def _read_jsonl(path: Path) -> Iterable[tuple[str, dict[str, Any]]]:
    """(origin, row) for each non-blank line, with line numbers in the origin."""
    with path.open() as handle:
        for lineno, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            origin = f"{path}:{lineno}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ProblemError(f"{origin}: not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise ProblemError(f"{origin}: each line must be a JSON object")
            yield origin, row


def load_kernelbench_jsonl(path: Path) -> list[Problem]:
    return [_kernelbench_row(row, origin) for origin, row in _read_jsonl(path)]


def _hub_rows(dataset_id: str) -> Iterable[tuple[str, dict[str, Any]]]:
    """(origin, row) over every split of a hub dataset (or local dataset directory)."""
    import datasets

    try:
        splits = datasets.load_dataset(dataset_id)
    except Exception as exc:  # datasets raises many types for "not found/offline"
        raise ProblemError(
            f"cannot load hub dataset {dataset_id!r}: {exc}. Check the id and network access, "
            "or pass a directory or a .jsonl file instead"
        ) from exc
    for split_name in sorted(splits):
        for index, row in enumerate(splits[split_name]):
            yield f"{dataset_id}[{split_name}][{index}]", row


def load_kernelbench_hub(dataset_id: str) -> list[Problem]:
    """KernelBench from the hub: one split per level (`level_1` …)."""
    return [_kernelbench_row(row, origin) for origin, row in _hub_rows(dataset_id)]


def _rename_identifiers(source: str, renames: Mapping[str, str]) -> str:
    """Rename whole identifier tokens (not strings or comments), keeping layout."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    lines = source.splitlines(keepends=True)
    edits = [
        (tok.start, tok.end, renames[tok.string])
        for tok in tokens
        if tok.type == tokenize.NAME and tok.string in renames
    ]
    for (row, col), (_, end_col), new in reversed(edits):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[end_col:]
    return "".join(lines)


def kernelbook_problem(row: Mapping[str, Any], origin: str) -> Problem:
    """Convert a KernelBook row: rename `entry_point` to Model, `<entry_point>New` to ModelNew."""
    for column in ("python_code", "entry_point"):
        if not row.get(column):
            raise ProblemError(f"{origin}: KernelBook row has no {column!r}")
    entry = str(row["entry_point"])
    try:
        source = _rename_identifiers(str(row["python_code"]), {entry: "Model"})
    except (tokenize.TokenError, SyntaxError) as exc:
        raise ProblemError(f"{origin}: python_code does not tokenize: {exc}") from exc
    response = None
    if row.get("triton_code"):
        code = _rename_identifiers(str(row["triton_code"]), {f"{entry}New": "ModelNew", entry: "Model"})
        response = f"TorchInductor's Triton code for {entry}, from KernelBook.\n\n```python\n{code}\n```\n"
    uid = row.get("uuid", "")
    return _checked(
        Problem(
            name=f"kernelbook_{uid}_{entry}.py" if uid != "" else f"kernelbook_{entry}.py",
            source=source,
            origin=origin,
            reference_response=response,
        )
    )


def load_kernelbook(spec: str) -> list[Problem]:
    """KernelBook from a hub id, a .jsonl or a .parquet file."""
    path = Path(spec)
    if path.suffix == ".jsonl" and path.is_file():
        rows = _read_jsonl(path)
    elif path.suffix == ".parquet" and path.is_file():
        import pyarrow.parquet as pq

        rows = ((f"{path}[{i}]", r) for i, r in enumerate(pq.read_table(path).to_pylist()))
    else:
        rows = _hub_rows(spec)
    return [kernelbook_problem(row, origin) for origin, row in rows]


def load_problems(source: str = "builtin", levels: Iterable[int] = (), limit: int = 0) -> list[Problem]:
    """Load problems from `source`, keep the given levels (all if empty), then the first `limit` (all if 0)."""
    path = Path(source)
    if source == "builtin":
        problems = load_builtin()
    elif source.startswith(KERNELBOOK_PREFIX):
        problems = load_kernelbook(source.removeprefix(KERNELBOOK_PREFIX))
    elif path.is_dir() and not (path / "data").is_dir():
        problems = load_python_files(path)
    elif path.is_file() and path.suffix == ".py":
        problems = load_python_files(path)
    elif path.is_file() and path.suffix == ".jsonl":
        problems = load_kernelbench_jsonl(path)
    elif path.exists() or "/" in source:
        problems = load_kernelbench_hub(source)
    else:
        raise ProblemError(
            f"problem source {source!r} is not 'builtin', a directory of .py files, a .py or .jsonl file, "
            "a hub dataset id (owner/name) or kernelbook:<id or file>"
        )
    wanted = set(levels)
    if wanted:
        problems = [p for p in problems if p.level in wanted]
    return problems[:limit] if limit else problems
