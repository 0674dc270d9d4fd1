"""The evaluate stage: verify model responses for a problem set and report KernelBench metrics.

Reads responses (JSONL: one `{"problem": NAME, "response": TEXT}` per line,
NAME as in the problem source, e.g. `19_ReLU.py`; with `"sample"` and
`"turn"` for a multi-turn evaluation's answers) and verifies every one
(`verify`) — or asks a model for them (`answer`: a checkpoint or hub model
through transformers, or an OpenAI-compatible endpoint; in up to
`evaluate.turns` turns of refinement, tritonrl/stages/refine.py), verifying
as it goes, and the caller writes the answers as responses.jsonl, so every
evaluation can be re-verified later. Verification goes through the verifier
pool (each problem's reference runs once per turn); the verdicts become
records, aggregated (tritonrl/evaluation/metrics.py) over each sample's final answer: valid,
compiled, correct, naive-correct, fast_p, pass@k, speed-ups, overall and
per level. Writes report.json, report.md and PNG plots when given a
directory (tritonrl/evaluation/report.py). `run` is `verify` then `summarize`; they
are apart so a sharded evaluation (tritonrl/artifacts/shards.py) verifies in
several shards and summarizes once.

The pipeline's evaluate stage is `evaluate_model`: generate answers with a
trained model, verify them, publish the report to the artifact store (or
`evaluate_model_shard` per shard, then `merge_model_shards`). At
`evaluate.shapes=held_out` it also asks the evaluated model every problem at
the problems' own shapes (ORIGINAL_SHAPES: metrics `original_shapes.*`, its
own report, a table in the main report.md): a model can learn the held-out
shapes and still fail a problem as its source defines it.
`generate_kernel` is `tritonrl generate`: one problem, the first answer the
verifier accepts.

Run: `tritonrl eval --problems builtin --responses responses.jsonl --out DIR`.
Test: tests/stages/test_evaluate.py, tests/stages/test_refine.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import tempfile
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tritonrl.artifacts.store import ArtifactStore, join, upload_tree, utc_stamp
from tritonrl.config import Config, EvaluateConfig
from tritonrl.evaluation.learning import ORIGINAL_SHAPES, SHOWN_METRICS
from tritonrl.evaluation.metrics import FIRST_TURN, compute_metrics, final_answers, per_problem_rows
from tritonrl.evaluation.report import write_report
from tritonrl.problems import Problem, load_problems
from tritonrl.problems.shapes import with_shapes
from tritonrl.prompts import build_messages
from tritonrl.stages.progress import Progress, Update, per_batch, together
from tritonrl.stages.refine import OnVerdict, Watch, answer_in_turns, answer_row, verify_answers
from tritonrl.stages.summary import Log, PipelineError, StageSummary
from tritonrl.verify.pool import VerifierPool
from tritonrl.verify.verifier import VerifierSettings

# The overall metrics an evaluation reports for each compared model (the base and SFT models beside the final one):
# those the learning table shows, and how many answers they are shares of.
COMPARED_METRICS = (*SHOWN_METRICS, "samples")


class EvaluationError(ValueError):
    """The responses file or the problem set cannot be evaluated as given."""


def load_responses(path: Path, turns: int | None = None) -> list[dict[str, Any]]:
    """The answers of a responses file, each with its `sample` and `turn`; errors name file and line.

    A line without "turn" is turn 1; without "sample" it is the next sample
    of its problem's turn 1 (a hand-written file). A later turn needs its
    sample and the sample's previous turn. `turns`: keep the first that many.
    """
    if not path.is_file():
        raise EvaluationError(f"responses file {path} does not exist")
    answers: list[dict[str, Any]] = []
    seen: set[tuple[str, int, int]] = set()
    first_turns: Counter[str] = Counter()  # turn-1 answers per problem so far: the next unnamed sample's number
    for lineno, line in enumerate(path.read_text().splitlines(), start=1):
        if not line.strip():
            continue
        try:
            answer = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EvaluationError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
        if (
            not isinstance(answer, dict)
            or not isinstance(answer.get("problem"), str)
            or not isinstance(answer.get("response"), str)
        ):
            raise EvaluationError(f'{path}:{lineno}: each line must be {{"problem": NAME, "response": TEXT}}')
        turn = answer.setdefault("turn", FIRST_TURN)
        if turn == FIRST_TURN:
            answer.setdefault("sample", first_turns[answer["problem"]])
            first_turns[answer["problem"]] += 1
        for key, least in (("turn", FIRST_TURN), ("sample", 0)):
            if isinstance(answer.get(key), bool) or not isinstance(answer.get(key), int) or answer[key] < least:
                raise EvaluationError(
                    f'{path}:{lineno}: "{key}" must be an integer >= {least}, got {answer.get(key)!r}'
                    + (" (a later turn names its sample)" if key == "sample" else "")
                )
        ident = (answer["problem"], answer["sample"], answer["turn"])
        if ident in seen:
            raise EvaluationError(f"{path}:{lineno}: a second answer for {ident[0]} sample {ident[1]} turn {ident[2]}")
        if turn > FIRST_TURN and (ident[0], ident[1], turn - 1) not in seen:
            raise EvaluationError(
                f"{path}:{lineno}: turn {turn} of {ident[0]} sample {ident[1]} comes before its turn {turn - 1}"
            )
        seen.add(ident)
        if turns is None or turn <= turns:
            answers.append(answer)
    if not answers:
        raise EvaluationError(f"{path} holds no responses")
    return answers


def _check_known(problems: dict[str, Problem], answers: list[dict[str, Any]], source: str) -> None:
    unknown = sorted({a["problem"] for a in answers if a["problem"] not in problems})
    if unknown:
        known = ", ".join(sorted(problems)[:5])
        raise EvaluationError(
            f"responses name problems not in {source}: {unknown[:10]}; names must match the source's, e.g. {known}"
        )


def answer(
    problems_source: str,
    model: Any,
    settings: VerifierSettings,
    sampling: EvaluateConfig,
    levels: Iterable[int] = (),
    workers: int | None = None,
    watch: Watch = Watch(),
) -> list[dict[str, Any]]:
    """Ask `model` (a `tritonrl.generation` Teacher) about every problem in up to `sampling.turns` turns, verifying each turn.

    Returns `refine.answer_row`s (the responses.jsonl line, record, verdict) for
    `summarize`; `sampling` is the evaluate section (samples, temperature,
    max_tokens, turns, stop_speedup).
    """
    for key in ("samples", "turns"):
        if getattr(sampling, key) < 1:
            raise EvaluationError(f"{key} must be >= 1, got {getattr(sampling, key)}")
    problems = load_problems(problems_source, levels)
    with VerifierPool(settings, workers) as pool:
        return answer_in_turns(problems, model, pool, sampling, watch)


def verify(
    problems_source: str,
    responses_path: Path,
    settings: VerifierSettings,
    levels: Iterable[int] = (),
    workers: int | None = None,
    on_verdict: OnVerdict = lambda *a: None,
    turns: int | None = None,
) -> list[dict[str, Any]]:
    """One `refine.answer_row` per response (problems in first-appearance order, then file order); `turns`: the first that many.

    The record is what metrics aggregate; the verdict (a dict) is the full
    detail the report keeps. Plain data, so a shard can publish it and a
    merge can `summarize` several shards' rows as one evaluation.
    """
    problems = {p.name: p for p in load_problems(problems_source, levels)}
    answers = load_responses(responses_path, turns)
    _check_known(problems, answers, problems_source)
    with VerifierPool(settings, workers) as pool:
        verified = verify_answers(pool, problems, answers, on_verdict)
    return [answer_row(problems[a["problem"]], a, verdict) for a, verdict in verified]


def summarize(rows: list[dict[str, Any]], out_dir: Path | None = None, turns: int | None = None) -> dict[str, Any]:
    """Aggregate rows (`verify`, `answer`) and write the report; returns {"metrics", "per_problem", "report"}.

    `turns`: how many the evaluation allowed (None: the highest answered); each sample counts its final answer,
    whose verdict the per-problem rows keep.
    """
    records = [row["record"] for row in rows]
    verdict_of = {_answer_key(row["record"]): row["verdict"] for row in rows}
    verdicts: dict[str, list[dict[str, Any]]] = {}
    for record in final_answers(records):
        verdicts.setdefault(record["problem"], []).append(verdict_of[_answer_key(record)])
    metrics = compute_metrics(records, turns=turns)
    table = per_problem_rows(records)
    per_problem = [{**row, "verdicts": verdicts[row["problem"]]} for row in table]
    report = {name: str(path) for name, path in write_report(metrics, table, out_dir).items()} if out_dir else {}
    return {"metrics": metrics, "per_problem": per_problem, "report": report}


def _answer_key(record: dict[str, Any]) -> tuple[str, int, int]:
    return record["problem"], record["sample"], record.get("turn", FIRST_TURN)


def run(
    problems_source: str,
    responses_path: Path,
    settings: VerifierSettings,
    out_dir: Path | None = None,
    levels: Iterable[int] = (),
    workers: int | None = None,
    on_verdict: OnVerdict = lambda *a: None,
    turns: int | None = None,
) -> dict[str, Any]:
    """Verify (the first `turns` turns; None: all), aggregate, report. Returns {"metrics", "per_problem", "report"}."""
    return summarize(
        verify(problems_source, responses_path, settings, levels, workers, on_verdict, turns), out_dir, turns
    )


def evaluate_model(
    config: Config,
    model_uri: str,
    on_log: Log,
    label: str = "",
    compare: dict[str, str] | None = None,
    on_progress: Update | None = None,
) -> StageSummary:
    """Generate answers for `config.evaluate.problems` with the model at `model_uri`, verify, publish the report.

    The report (report.json/.md, plots, responses.jsonl) goes to
    `<artifact_root>/evaluations/<hash of label and model>-<time>/`; metrics are the overall block.
    `compare` ({name: model URI}, e.g. the base and SFT models) gets the same
    evaluation, each its own report; the summary sets them side by side
    (metrics `compare.<name>.<key>`, outputs `report.<name>`). Progress: per model, its problems answered, then
    verified (`on_progress`: tritonrl/stages/progress.py).
    """
    progress = Progress(on_log, on_progress)
    rows = {
        name: _answer_and_verify(config, uri, list(enumerate(problems)), on_log, progress, _loop_name("evaluate", name))
        for name, (uri, problems) in _evaluations(config, model_uri, compare).items()
    }
    return _publish_all(config, model_uri, compare, rows, on_log, label, {})


def evaluate_model_shard(
    config: Config,
    model_uri: str,
    shard: int,
    shards: int,
    on_log: Log,
    compare: dict[str, str] | None = None,
    on_progress: Update | None = None,
) -> StageSummary:
    """Generate and verify answers for one shard's evaluation problems → a shard dataset (for `merge_model_shards`).

    With `compare`, the shard answers its problems with every model; each row names its evaluation (`model`: the
    compared model's name, ORIGINAL_SHAPES, "" for the evaluated one).
    """
    from tritonrl.artifacts.shards import Shard, assign, publish_shard

    part = Shard(shard, shards)
    problems = _evaluation_problems(config)
    mine = assign({p.name: config.evaluate.samples for p in problems}, part.count)[part.index]
    progress = Progress(on_log, on_progress)
    rows = [
        {**row, "model": name}
        for name, (uri, asked) in _evaluations(config, model_uri, compare).items()
        for row in _answer_and_verify(
            config,
            uri,
            [(i, p) for i, p in enumerate(asked) if p.name in set(mine)],
            on_log,
            progress,
            _loop_name(f"evaluate shard {part.label}", name),
        )
    ]
    digest = hashlib.sha256(
        json.dumps(
            [model_uri, compare or {}, [p.name for p in problems], config.to_dict()["evaluate"]], sort_keys=True
        ).encode()
    ).hexdigest()
    dataset = publish_shard(
        ArtifactStore.of(config.storage),
        config.artifact_root,
        "evaluate",
        part,
        model_uri,
        digest,
        mine,
        len(problems),
        rows,
    )
    # The evaluated model's samples (their final answers); compared models' rows ride along.
    own = final_answers([row["record"] for row in rows if not row["model"]])
    correct = sum(record["correct"] for record in own)
    return StageSummary(
        "evaluate-shard",
        {"model": model_uri, "problems": config.evaluate.problems},
        {"shard": dataset.uri},
        {"shard": part.index + 1, "shards": part.count, "problems": len(mine), "samples": len(own), "correct": correct},
        f"shard {part.label}: {correct}/{len(own)} answers correct over {len(mine)} problems → {dataset.uri}",
        datasets=(dataset.uri,),
    )


def merge_model_shards(
    config: Config,
    model_uri: str,
    shard_uris: list[str],
    on_log: Log,
    label: str = "",
    compare: dict[str, str] | None = None,
) -> StageSummary:
    """The evaluation report and summary from all its shard datasets (what `evaluate_model` would publish)."""
    from tritonrl.artifacts.shards import read_shards

    rows: dict[str, list[dict]] = {name: [] for name in _evaluations(config, model_uri, compare)}
    for row in read_shards(ArtifactStore.of(config.storage), "evaluate", model_uri, shard_uris):
        rows[row.pop("model", "")].append(row)
    return _publish_all(config, model_uri, compare, rows, on_log, label, {"shards": len(shard_uris)})


def _evaluations(
    config: Config, model_uri: str, compare: dict[str, str] | None
) -> dict[str, tuple[str, list[Problem]]]:
    """What one evaluation answers, by name: (model URI, problems in order). The compared models by name and the
    evaluated one ("") at `evaluate.shapes`; at held-out shapes also the evaluated one at the problems' own shapes
    (ORIGINAL_SHAPES), when any problem has other shapes to hold out."""
    asked = _evaluation_problems(config)
    runs = {**{name: (uri, asked) for name, uri in (compare or {}).items()}, "": (model_uri, asked)}
    own = _own_shape_problems(config)
    if [p.source for p in own] != [p.source for p in asked]:
        runs[ORIGINAL_SHAPES] = (model_uri, own)
    return runs


def _loop_name(stage: str, name: str) -> str:
    """A progress loop's name: `evaluate`, `evaluate base`, `evaluate at original shapes`."""
    return f"{stage} at original shapes" if name == ORIGINAL_SHAPES else f"{stage} {name}".strip()


def _publish_all(
    config: Config,
    model_uri: str,
    compare: dict[str, str] | None,
    rows: dict[str, list[dict]],
    on_log: Log,
    label: str,
    extra_metrics: dict[str, Any],
) -> StageSummary:
    """Publish every model's evaluation; the evaluated model's summary, with the compared ones beside it and its own
    evaluation at the problems' own shapes (whose table the main report.md carries too)."""
    others = {
        name: _publish_evaluation(config, uri, rows[name], on_log, name, {}) for name, uri in (compare or {}).items()
    }
    original = (
        _publish_evaluation(config, model_uri, rows[ORIGINAL_SHAPES], on_log, "at the problems' own shapes", {})
        if ORIGINAL_SHAPES in rows
        else None
    )
    summary = _publish_evaluation(
        config,
        model_uri,
        rows[""],
        on_log,
        label,
        extra_metrics,
        also=_original_shapes_section(config, original) if original else None,
    )
    inputs, outputs, metrics, line = dict(summary.inputs), dict(summary.outputs), dict(summary.metrics), summary.line
    if others:
        inputs.update({f"compare.{name}": uri for name, uri in compare.items()})
        outputs.update({f"report.{name}": other.outputs["report"] for name, other in others.items()})
        metrics["compare"] = {
            name: {k: other.metrics[k] for k in COMPARED_METRICS if k in other.metrics}
            for name, other in others.items()
        }
        line += "; same evaluation: " + ", ".join(
            f"{name} {other.metrics['correct']:.0%}" for name, other in others.items()
        )
    if original is not None:
        outputs[f"report.{ORIGINAL_SHAPES}"] = original.outputs["report"]
        metrics[ORIGINAL_SHAPES] = {k: v for k, v in original.metrics.items() if k != "turns"}
        line = (
            f"at held-out shapes: {line}; at the problems' own shapes: correct {original.metrics['correct']:.0%} of "
            f"{original.metrics['samples']} answers"
        )
    return dataclasses.replace(summary, inputs=inputs, outputs=outputs, metrics=metrics, line=line)


def _original_shapes_section(config: Config, original: StageSummary) -> tuple[str, dict[str, Any]]:
    """The main report's part about the evaluated model at the problems' own shapes: a report.md section (its table,
    where its whole report is) and report.json's `original_shapes` (the overall numbers)."""
    from tritonrl.evaluation.report import overall_section

    uri = original.outputs["report"]
    markdown = ArtifactStore.of(config.storage).read_text(join(uri.rsplit("/", 1)[0], "report.md"))
    section = "\n".join(
        [
            "## The same model at the problems' own shapes",
            "",
            "The tables above ask each problem at held-out shapes (`evaluate.shapes=held_out`), which no training prompt has; "
            "here the same model answers each problem at the shapes its source defines, as `tritonrl generate` asks it. "
            f"Whole report: `{join(uri.rsplit('/', 1)[0], 'report.md')}`.",
            "",
            overall_section(markdown),
            "",
        ]
    )
    return section, {ORIGINAL_SHAPES: {k: v for k, v in original.metrics.items() if k != "turns"}}


def _evaluation_problems(config: Config) -> list[Problem]:
    """The problems to evaluate; with `evaluate.shapes=held_out` each at its alternate shapes (when it has them)."""
    settings = config.evaluate
    problems = _own_shape_problems(config)
    if settings.shapes == "original":
        return problems
    return [
        dataclasses.replace(p, source=with_shapes(p.source, p.alt_shapes), alt_shapes={}) if p.alt_shapes else p
        for p in problems
    ]


def _own_shape_problems(config: Config) -> list[Problem]:
    """The problems to evaluate, each at the shapes its source defines."""
    settings = config.evaluate
    return load_problems(settings.problems, settings.levels, settings.limit)


def _answer_and_verify(
    config: Config, model_uri: str, problems: list[tuple[int, Any]], on_log: Log, progress: Progress, stage: str
) -> list[dict]:
    """Answers for (position, Problem) pairs, generated and verified in `evaluate.turns` turns: one row per answer.

    A row is `{"position": [problem position, sample, turn], "line": <its
    responses.jsonl line, verbatim>, "record", "verdict"}` (`answer`):
    plain data that a shard publishes and `_publish_evaluation` turns into
    the report. Progress as `stage`, each turn after the first its own loop.
    """
    from tritonrl.generation import HFTeacher
    from tritonrl.training.models import resolve_model_source

    if not problems:
        return []
    settings = config.evaluate
    source = resolve_model_source(model_uri, config.home, config.storage.s3_endpoint_url)
    generator = HFTeacher(source, device=config.verify.device)
    turns = f" in up to {settings.turns} turns" if settings.turns > FIRST_TURN else ""
    on_log(f"generating {settings.samples} answer(s) for each of {len(problems)} problems with {model_uri}{turns}")

    def answering(turn: int, prompts: int):
        tally = progress.start(
            _turn_stage(stage, turn), prompts, "problems answered" if turn == FIRST_TURN else "answers"
        )
        return lambda answered: tally.advance(together([problem.name for problem in answered]), count=len(answered))

    def verifying(turn: int, answers: list[dict]):
        tally = progress.start(_turn_stage(stage, turn), len({a["problem"] for a in answers}), "problems verified")
        return per_batch(
            lambda batch, done: tally.advance(f"{batch.key}: {sum(v.correct for v in done)}/{len(done)} correct")
        )

    with tempfile.TemporaryDirectory(prefix="tritonrl-evaluate-") as tmp:
        subset = _problem_subset([p for _, p in problems], Path(tmp) / "problems")
        verified = answer(
            subset, generator, VerifierSettings.from_config(config.verify), settings, watch=Watch(answering, verifying)
        )
    position = {p.name: i for i, p in problems}
    return sorted(
        (
            {"position": [position[row["record"]["problem"]], row["record"]["sample"], row["record"]["turn"]], **row}
            for row in verified
        ),
        key=lambda row: row["position"],
    )


def _turn_stage(stage: str, turn: int) -> str:
    """A progress loop's name: the stage's own for turn 1, `<stage> turn <t>` after it."""
    return stage if turn == FIRST_TURN else f"{stage} turn {turn}"


def _publish_evaluation(
    config: Config,
    model_uri: str,
    rows: list[dict],
    on_log: Log,
    label: str,
    extra_metrics: dict[str, Any],
    also: tuple[str, dict[str, Any]] | None = None,
) -> StageSummary:
    """Report (`summarize`) and responses.jsonl from answer rows, uploaded; the evaluate summary.

    `also`: (a report.md section put before its per-problem table, keys added to report.json).
    """
    settings = config.evaluate
    stamp = utc_stamp()
    # The label too: a compared model may be the evaluated one (same URI, same second), and each keeps its own report.
    name = f"{hashlib.sha256(f'{label}|{model_uri}'.encode()).hexdigest()[:12]}-{stamp}"
    out_uri = join(config.artifact_root, "evaluations", name)
    with tempfile.TemporaryDirectory(prefix="tritonrl-report-") as tmp:
        out = Path(tmp) / "report"
        result = summarize(rows, out, settings.turns)
        if also is not None:
            _add_to_report(out, *also)
        (out / "responses.jsonl").write_text("".join(row["line"] + "\n" for row in rows))
        upload_tree(ArtifactStore.of(config.storage), out, out_uri)
    overall = result["metrics"]["overall"]
    on_log(f"correct {overall['correct']}, fast_1 {overall.get('fast_1')}")
    # Per turn (turns.correct.<t>, turns.fast_1.<t>, turns.answered.<t> once flattened for MLflow) when refining.
    turns = {"turns": result["metrics"]["turns"]} if "turns" in result["metrics"] else {}
    return StageSummary(
        "evaluate",
        {"model": model_uri, "problems": settings.problems},
        {"report": join(out_uri, "report.json")},
        {**{k: v for k, v in overall.items() if k != "speedups"}, **turns, **extra_metrics},
        f"{label + ': ' if label else ''}correct {overall['correct']:.0%} of {overall['samples']} answers "
        f"({overall['problems']} problems); report {join(out_uri, 'report.md')}",
    )


def _add_to_report(out: Path, section: str, keys: dict[str, Any]) -> None:
    """A section in a written report.md (before its per-problem table) and keys in its report.json."""
    from tritonrl.evaluation.report import PER_PROBLEM_HEADING

    markdown = (out / "report.md").read_text()
    cut = markdown.find(PER_PROBLEM_HEADING)
    cut = len(markdown) if cut < 0 else cut
    (out / "report.md").write_text(markdown[:cut] + section + "\n" + markdown[cut:])
    document = json.loads((out / "report.json").read_text())
    (out / "report.json").write_text(json.dumps({**document, **keys}, indent=2, allow_nan=False) + "\n")


def _problem_subset(problems, path: Path) -> str:
    """The chosen problems as a source generation and verification both load (`evaluate.limit` applied).

    KernelBench JSONL when every problem has a level (levels stay in the
    report), else a directory of .py files (the built-in suite has no levels).
    """
    if all(p.level is not None and p.problem_id is not None for p in problems):
        jsonl = path.with_suffix(".jsonl")
        jsonl.write_text(
            "".join(
                json.dumps({"name": p.name, "code": p.source, "level": p.level, "problem_id": p.problem_id}) + "\n"
                for p in problems
            )
        )
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
            completion = generator.generate(
                problem,
                build_messages(problem.source),
                1,
                temperature if attempt == 0 else max(temperature, 0.7),
                config.evaluate.max_tokens,
            )[0]
            if completion.error:
                raise PipelineError(f"{model_uri} could not generate: {completion.error}")
            last = GeneratedKernel(completion.text, verifier.verify(problem.source, completion.text))
            if last.verdict.correct:
                break
    return last
