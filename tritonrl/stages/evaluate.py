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
are apart so a sharded evaluation (tritonrl/artifacts/shards.py) verifies in
several shards and summarizes once.

The pipeline's evaluate stage is `evaluate_model`: generate answers with a
trained model, verify them, publish the report to the artifact store (or
`evaluate_model_shard` per shard, then `merge_model_shards`).
`generate_kernel` is `tritonrl generate`: one problem, the first answer the
verifier accepts.

Run: `tritonrl eval --problems builtin --responses responses.jsonl --out DIR`.
Test: tests/stages/test_evaluate.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tritonrl.artifacts.store import ArtifactStore, join, upload_tree, utc_stamp
from tritonrl.config import Config
from tritonrl.evaluation.learning import SHOWN_METRICS
from tritonrl.evaluation.metrics import compute_metrics, per_problem_rows, verdict_record
from tritonrl.evaluation.report import write_report
from tritonrl.problems import Problem, load_problems
from tritonrl.problems.shapes import with_shapes
from tritonrl.prompts import build_messages
from tritonrl.stages.progress import Progress, Update, per_batch
from tritonrl.stages.summary import Log, PipelineError, StageSummary
from tritonrl.verify.pool import ProblemBatch, VerifierPool
from tritonrl.verify.result import Verdict
from tritonrl.verify.verifier import VerifierSettings

# The overall metrics an evaluation reports for each compared model (the base and SFT models beside the final one):
# those the learning table shows, and how many answers they are shares of.
COMPARED_METRICS = (*SHOWN_METRICS, "samples")


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
    # A model that batches prompts (HFTeacher.generate_many) answers a batch of problems per call.
    batched = getattr(model, "generate_many", None)
    step = getattr(model, "batch_size", 1) if batched else 1
    with tmp.open("w") as out:
        for first in range(0, len(problems), step):
            chunk = problems[first:first + step]
            requests = [(problem, build_messages(problem.source)) for problem in chunk]
            answers = (batched(requests, samples, temperature, max_tokens) if batched else
                       [model.generate(problem, messages, samples, temperature, max_tokens) for problem, messages in requests])
            for problem, completions in zip(chunk, answers):
                for completion in completions:
                    out.write(json.dumps({"problem": problem.name, "response": completion.text or "", "model": model.id,
                                          "error": completion.error}) + "\n")
                on_problem(problem)
    tmp.replace(path)  # a complete responses file or none
    return path


def _batches(problems: dict[str, Problem], responses: list[tuple[str, str]], source: str) -> list[ProblemBatch]:
    unknown = sorted({name for name, _ in responses if name not in problems})
    if unknown:
        known = ", ".join(sorted(problems)[:5])
        raise EvaluationError(
            f"responses name problems not in {source}: {unknown[:10]}; names must match the source's, e.g. {known}"
        )
    grouped: dict[str, list[str]] = {}
    for name, response in responses:
        grouped.setdefault(name, []).append(response)
    return [ProblemBatch(name, problems[name].source, texts) for name, texts in grouped.items()]


def _record(problem: Problem, sample: int, verdict: Verdict) -> dict[str, Any]:
    return {
        "problem": problem.name,
        "level": problem.level,
        "sample": sample,
        **verdict_record(verdict),
        "reasons": verdict.codes,
    }


def verify(
    problems_source: str,
    responses_path: Path,
    settings: VerifierSettings,
    levels: Iterable[int] = (),
    workers: int | None = None,
    on_verdict: Callable[[ProblemBatch, int, Verdict], None] = lambda *a: None,
) -> list[dict[str, Any]]:
    """One `{"record", "verdict"}` per response (problems in first-appearance order, then sample order).

    The record is what metrics aggregate; the verdict (a dict) is the full
    detail the report keeps. Plain data, so a shard can publish it and a
    merge can `summarize` several shards' rows as one evaluation.
    """
    problems = {p.name: p for p in load_problems(problems_source, levels)}
    batches = _batches(problems, load_responses(responses_path), problems_source)
    with VerifierPool(settings, workers) as pool:
        verdicts = pool.verify_batches(batches, on_verdict)
    return [
        {"record": _record(problems[batch.key], sample, verdict), "verdict": verdict.to_dict()}
        for batch in batches
        for sample, verdict in enumerate(verdicts[batch.key])
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
    on_verdict: Callable[[ProblemBatch, int, Verdict], None] = lambda *a: None,
) -> dict[str, Any]:
    """Verify, aggregate, report. Returns {"metrics", "per_problem", "report"}."""
    return summarize(verify(problems_source, responses_path, settings, levels, workers, on_verdict), out_dir)


def evaluate_model(config: Config, model_uri: str, on_log: Log, label: str = "",
                   compare: dict[str, str] | None = None, on_progress: Update | None = None) -> StageSummary:
    """Generate answers for `config.evaluate.problems` with the model at `model_uri`, verify, publish the report.

    The report (report.json/.md, plots, responses.jsonl) goes to
    `<artifact_root>/evaluations/<hash of label and model>-<time>/`; metrics are the overall block.
    `compare` ({name: model URI}, e.g. the base and SFT models) gets the same
    evaluation, each its own report; the summary sets them side by side
    (metrics `compare.<name>.<key>`, outputs `report.<name>`). Progress: per model, its problems answered, then
    verified (`on_progress`: tritonrl/stages/progress.py).
    """
    problems = list(enumerate(_evaluation_problems(config)))
    progress = Progress(on_log, on_progress)
    rows = {name: _answer_and_verify(config, uri, problems, on_log, progress, f"evaluate {name}".strip())
            for name, uri in _models(model_uri, compare).items()}
    return _publish_all(config, model_uri, compare, rows, on_log, label, {})


def evaluate_model_shard(config: Config, model_uri: str, shard: int, shards: int, on_log: Log,
                         compare: dict[str, str] | None = None, on_progress: Update | None = None) -> StageSummary:
    """Generate and verify answers for one shard's evaluation problems → a shard dataset (for `merge_model_shards`).

    With `compare`, the shard answers its problems with every model; each row names its model (`model`, "" for the
    evaluated one).
    """
    from tritonrl.artifacts.shards import Shard, assign, publish_shard

    part = Shard(shard, shards)
    problems = _evaluation_problems(config)
    mine = assign({p.name: config.evaluate.samples for p in problems}, part.count)[part.index]
    chosen = [(i, p) for i, p in enumerate(problems) if p.name in set(mine)]
    progress = Progress(on_log, on_progress)
    rows = [{**row, "model": name} for name, uri in _models(model_uri, compare).items()
            for row in _answer_and_verify(config, uri, chosen, on_log, progress, f"evaluate shard {part.label} {name}".strip())]
    digest = hashlib.sha256(json.dumps([model_uri, compare or {}, [p.name for p in problems], config.to_dict()["evaluate"]],
                                       sort_keys=True).encode()).hexdigest()
    dataset = publish_shard(ArtifactStore.of(config.storage), config.artifact_root, "evaluate", part, model_uri, digest, mine,
                            len(problems), rows)
    own = [row for row in rows if not row["model"]]  # the evaluated model's answers; compared models' rows ride along
    correct = sum(row["record"]["correct"] for row in own)
    return StageSummary(
        "evaluate-shard", {"model": model_uri, "problems": config.evaluate.problems}, {"shard": dataset.uri},
        {"shard": part.index + 1, "shards": part.count, "problems": len(mine), "samples": len(own),
         "correct": correct},
        f"shard {part.label}: {correct}/{len(own)} answers correct over {len(mine)} problems → {dataset.uri}",
        datasets=(dataset.uri,),
    )


def merge_model_shards(config: Config, model_uri: str, shard_uris: list[str], on_log: Log, label: str = "",
                       compare: dict[str, str] | None = None) -> StageSummary:
    """The evaluation report and summary from all its shard datasets (what `evaluate_model` would publish)."""
    from tritonrl.artifacts.shards import read_shards

    rows: dict[str, list[dict]] = {name: [] for name in _models(model_uri, compare)}
    for row in read_shards(ArtifactStore.of(config.storage), "evaluate", model_uri, shard_uris):
        rows[row.pop("model", "")].append(row)
    return _publish_all(config, model_uri, compare, rows, on_log, label, {"shards": len(shard_uris)})


def _models(model_uri: str, compare: dict[str, str] | None) -> dict[str, str]:
    """The models one evaluation answers with: the compared ones by name, then the evaluated one ("")."""
    return {**(compare or {}), "": model_uri}


def _publish_all(config: Config, model_uri: str, compare: dict[str, str] | None, rows: dict[str, list[dict]],
                 on_log: Log, label: str, extra_metrics: dict[str, Any]) -> StageSummary:
    """Publish every model's evaluation; the evaluated model's summary, with the compared ones beside it."""
    others = {name: _publish_evaluation(config, uri, rows[name], on_log, name, {}) for name, uri in (compare or {}).items()}
    summary = _publish_evaluation(config, model_uri, rows[""], on_log, label, extra_metrics)
    if not others:
        return summary
    side_by_side = ", ".join(f"{name} {other.metrics['correct']:.0%}" for name, other in others.items())
    return dataclasses.replace(
        summary,
        inputs={**summary.inputs, **{f"compare.{name}": uri for name, uri in compare.items()}},
        outputs={**summary.outputs, **{f"report.{name}": other.outputs["report"] for name, other in others.items()}},
        metrics={**summary.metrics, "compare": {name: {k: other.metrics[k] for k in COMPARED_METRICS if k in other.metrics}
                                                for name, other in others.items()}},
        line=f"{summary.line}; same evaluation: {side_by_side}",
    )


def _evaluation_problems(config: Config) -> list[Problem]:
    """The problems to evaluate; with `evaluate.shapes=held_out` each at its alternate shapes (when it has them)."""
    settings = config.evaluate
    problems = load_problems(settings.problems, settings.levels, settings.limit)
    if settings.shapes == "original":
        return problems
    return [dataclasses.replace(p, source=with_shapes(p.source, p.alt_shapes), alt_shapes={}) if p.alt_shapes else p
            for p in problems]


def _answer_and_verify(config: Config, model_uri: str, problems: list[tuple[int, Any]], on_log: Log,
                       progress: Progress, stage: str) -> list[dict]:
    """Answers for (position, Problem) pairs, generated and verified: one row per answer; progress as `stage`.

    A row is `{"position": [problem position, sample], "line": <its
    responses.jsonl line, verbatim>, "record", "verdict"}` (`verify`):
    plain data that a shard publishes and `_publish_evaluation` turns into the report.
    """
    from tritonrl.generation import HFTeacher
    from tritonrl.training.models import resolve_model_source

    if not problems:
        return []
    settings = config.evaluate
    source = resolve_model_source(model_uri, config.home, config.storage.s3_endpoint_url)
    generator = HFTeacher(source, device=config.verify.device)
    with tempfile.TemporaryDirectory(prefix="tritonrl-evaluate-") as tmp:
        responses = Path(tmp) / "responses.jsonl"
        subset = _problem_subset([p for _, p in problems], Path(tmp) / "problems")
        on_log(f"generating {settings.samples} answer(s) for each of {len(problems)} problems with {model_uri}")
        answering = progress.start(stage, len(problems), "problems answered")
        generate_responses(subset, generator, responses, settings.samples, settings.temperature, settings.max_tokens,
                           on_problem=lambda p: answering.advance(p.name))
        lines: dict[str, list[str]] = {}
        for line in responses.read_text().splitlines():
            lines.setdefault(json.loads(line)["problem"], []).append(line)
        verifying = progress.start(stage, len(problems), "problems verified")
        verified = verify(subset, responses, VerifierSettings.from_config(config.verify), on_verdict=per_batch(
            lambda batch, done: verifying.advance(f"{batch.key}: {sum(v.correct for v in done)}/{len(done)} correct")))
    position = {p.name: i for i, p in problems}
    return sorted(({"position": [position[row["record"]["problem"]], row["record"]["sample"]],
                    "line": lines[row["record"]["problem"]][row["record"]["sample"]], **row} for row in verified),
                  key=lambda row: row["position"])


def _publish_evaluation(config: Config, model_uri: str, rows: list[dict], on_log: Log, label: str,
                        extra_metrics: dict[str, Any]) -> StageSummary:
    """Report (`summarize`) and responses.jsonl from answer rows, uploaded; the evaluate summary."""
    settings = config.evaluate
    stamp = utc_stamp()
    # The label too: a compared model may be the evaluated one (same URI, same second), and each keeps its own report.
    name = f"{hashlib.sha256(f'{label}|{model_uri}'.encode()).hexdigest()[:12]}-{stamp}"
    out_uri = join(config.artifact_root, "evaluations", name)
    with tempfile.TemporaryDirectory(prefix="tritonrl-report-") as tmp:
        out = Path(tmp) / "report"
        result = summarize(rows, out)
        (out / "responses.jsonl").write_text("".join(row["line"] + "\n" for row in rows))
        upload_tree(ArtifactStore.of(config.storage), out, out_uri)
    overall = result["metrics"]["overall"]
    on_log(f"correct {overall['correct']}, fast_1 {overall.get('fast_1')}")
    return StageSummary(
        "evaluate", {"model": model_uri, "problems": settings.problems}, {"report": join(out_uri, "report.json")},
        {**{k: v for k, v in overall.items() if k != "speedups"}, **extra_metrics},
        f"{label + ': ' if label else ''}correct {overall['correct']:.0%} of {overall['samples']} answers "
        f"({overall['problems']} problems); report {join(out_uri, 'report.md')}",
    )


def _problem_subset(problems, path: Path) -> str:
    """The chosen problems as a source generation and verification both load (`evaluate.limit` applied).

    KernelBench JSONL when every problem has a level (levels stay in the
    report), else a directory of .py files (the built-in suite has no levels).
    """
    if all(p.level is not None and p.problem_id is not None for p in problems):
        jsonl = path.with_suffix(".jsonl")
        jsonl.write_text("".join(json.dumps({"name": p.name, "code": p.source, "level": p.level,
                                             "problem_id": p.problem_id}) + "\n" for p in problems))
        return str(jsonl)
    path.mkdir()
    for problem in problems:
        (path / problem.name).write_text(problem.source)
    return str(path)


@dataclass(frozen=True)
class GeneratedKernel:
    response: str
    verdict: Any  # tritonrl.verify.result.Verdict


def generate_kernel(config: Config, model_uri: str, problem, attempts: int = 1) -> GeneratedKernel:
    """Ask the model for a Triton implementation of `problem` (a Problem) and verify it; the first correct answer wins.

    `model_uri` is anything `resolve_model_source` takes (an output URI, a
    hub id, a directory); resolve registry URIs first (tracking.resolve_model_uri).
    Returns the last answer and its verdict when none is correct.
    """
    from tritonrl.generation import HFTeacher
    from tritonrl.training.models import resolve_model_source
    from tritonrl.verify.verifier import Verifier

    source = resolve_model_source(model_uri, config.home, config.storage.s3_endpoint_url)
    generator = HFTeacher(source, device=config.verify.device)
    temperature = config.evaluate.temperature
    last = None
    with Verifier(VerifierSettings.from_config(config.verify)) as verifier:
        for attempt in range(attempts):
            # The first attempt is the configured (greedy by default) answer; retries sample.
            completion = generator.generate(problem, build_messages(problem.source), 1,
                                            temperature if attempt == 0 else max(temperature, 0.7),
                                            config.evaluate.max_tokens)[0]
            if completion.error:
                raise PipelineError(f"{model_uri} could not generate: {completion.error}")
            last = GeneratedKernel(completion.text, verifier.verify(problem.source, completion.text))
            if last.verdict.correct:
                break
    return last
