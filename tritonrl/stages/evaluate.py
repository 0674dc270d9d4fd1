"""The evaluate stage: verify model responses for a problem set and report KernelBench metrics.

Reads responses (JSONL: one `{"problem": NAME, "response": TEXT}` per line,
NAME as in the problem source, e.g. `19_ReLU.py`) — or first asks a model
for them (`generate_responses`: a checkpoint or hub model through
transformers, or an OpenAI-compatible endpoint) and writes that file, so
every evaluation can be re-verified later — then verifies every one
through the verifier pool (each problem's reference runs once), turns the
verdicts into records and aggregates them (tritonrl/evaluation/metrics.py): valid,
compiled, correct, naive-correct, fast_p, pass@k, speed-ups, overall and
per level. Writes report.json, report.md and PNG plots when given a
directory (tritonrl/evaluation/report.py). `run` is `verify` then `summarize`; they
are apart so a sharded evaluation (tritonrl/stages/pipeline.py, tritonrl/artifacts/shards.py)
verifies in several shards and summarizes once.

Run: `tritonrl eval --problems builtin --responses responses.jsonl --out DIR`.
Test: tests/test_evaluate.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tritonrl.evaluation.metrics import compute_metrics, per_problem_rows
from tritonrl.evaluation.report import write_report
from tritonrl.problems import Problem, load_problems
from tritonrl.prompts import build_messages
from tritonrl.verify.pool import Task, VerifierPool
from tritonrl.verify.result import Verdict
from tritonrl.verify.verifier import VerifierSettings


class EvaluationError(ValueError):
    """The responses file or the problem set cannot be evaluated as given."""


def load_responses(path: Path) -> list[tuple[str, str]]:
    """(problem name, response text) per non-blank line, with errors naming file and line."""
    if not path.is_file():
        raise EvaluationError(f"responses file {path} does not exist")
    rows = []
    for lineno, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvaluationError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or not isinstance(row.get("problem"), str) or not isinstance(row.get("response"), str):
            raise EvaluationError(f'{path}:{lineno}: each line must be {{"problem": NAME, "response": TEXT}}')
        rows.append((row["problem"], row["response"]))
    if not rows:
        raise EvaluationError(f"{path} holds no responses")
    return rows


def generate_responses(
    problems_source: str,
    model: Any,
    path: Path,
    samples: int = 1,
    temperature: float = 0.0,
    max_tokens: int = 2048,
    levels: Iterable[int] = (),
    on_problem: Callable[[Problem], None] = lambda p: None,
) -> Path:
    """Ask `model` (a `tritonrl.generation` Teacher) for `samples` responses per problem; write them as JSONL.

    A failed request is written as an empty response: it counts as a sample
    without code (invalid), as it would for the user of the model.
    """
    if samples < 1:
        raise EvaluationError(f"samples per problem must be >= 1, got {samples}")
    problems = load_problems(problems_source, levels)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".partial")
    with tmp.open("w") as out:
        for problem in problems:
            completions = model.generate(problem, build_messages(problem.source), samples, temperature, max_tokens)
            for completion in completions:
                out.write(json.dumps({"problem": problem.name, "response": completion.text or "", "model": model.id,
                                      "error": completion.error}) + "\n")
            on_problem(problem)
    tmp.replace(path)  # a complete responses file or none
    return path


def _tasks(problems: dict[str, Problem], responses: list[tuple[str, str]], source: str) -> list[Task]:
    unknown = sorted({name for name, _ in responses if name not in problems})
    if unknown:
        known = ", ".join(sorted(problems)[:5])
        raise EvaluationError(
            f"responses name problems not in {source}: {unknown[:10]}; names must match the source's, e.g. {known}"
        )
    grouped: dict[str, list[str]] = {}
    for name, response in responses:
        grouped.setdefault(name, []).append(response)
    return [Task(name, problems[name].source, texts) for name, texts in grouped.items()]


def _record(problem: Problem, sample: int, verdict: Verdict) -> dict[str, Any]:
    return {
        "problem": problem.name,
        "level": problem.level,
        "sample": sample,
        "valid": verdict.valid,
        "compiled": verdict.compiled,
        "correct": verdict.correct,
        "naive_correct": verdict.matches_reference,
        "speedup": verdict.speedup if verdict.correct else None,
        "reasons": verdict.codes,
    }


def verify(
    problems_source: str,
    responses_path: Path,
    settings: VerifierSettings,
    levels: Iterable[int] = (),
    workers: int | None = None,
    on_verdict: Callable[[Task, int, Verdict], None] = lambda *a: None,
) -> list[dict[str, Any]]:
    """One `{"record", "verdict"}` per response (problems in first-appearance order, then sample order).

    The record is what metrics aggregate; the verdict (a dict) is the full
    detail the report keeps. Plain data, so a shard can publish it and a
    merge can `summarize` several shards' rows as one evaluation.
    """
    problems = {p.name: p for p in load_problems(problems_source, levels)}
    tasks = _tasks(problems, load_responses(responses_path), problems_source)
    with VerifierPool(settings, workers) as pool:
        verdicts = pool.verify_tasks(tasks, on_verdict)
    return [
        {"record": _record(problems[task.key], sample, verdict), "verdict": verdict.to_dict()}
        for task in tasks
        for sample, verdict in enumerate(verdicts[task.key])
    ]


def summarize(rows: list[dict[str, Any]], out_dir: Path | None = None) -> dict[str, Any]:
    """Aggregate `verify` rows and write the report; returns {"metrics", "per_problem", "report"}."""
    records = [row["record"] for row in rows]
    verdicts: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        verdicts.setdefault(row["record"]["problem"], []).append(row["verdict"])
    metrics = compute_metrics(records)
    table = per_problem_rows(records)
    per_problem = [{**row, "verdicts": verdicts[row["problem"]]} for row in table]
    report = {name: str(path) for name, path in write_report(metrics, table, out_dir).items()} if out_dir else {}
    return {"metrics": metrics, "per_problem": per_problem, "report": report}


def run(
    problems_source: str,
    responses_path: Path,
    settings: VerifierSettings,
    out_dir: Path | None = None,
    levels: Iterable[int] = (),
    workers: int | None = None,
    on_verdict: Callable[[Task, int, Verdict], None] = lambda *a: None,
) -> dict[str, Any]:
    """Verify, aggregate, report. Returns {"metrics", "per_problem", "report"}."""
    return summarize(verify(problems_source, responses_path, settings, levels, workers, on_verdict), out_dir)
