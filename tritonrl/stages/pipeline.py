"""The pipeline's stages as uniform steps: config + input URIs in, a JSON-able `StageSummary` out.

Why this layer: Prefect tasks (tasks/), flows (flows/), MLflow logging
(tritonrl/tracking.py) and the CLI all need the same few facts about a
finished stage — which URIs went in, which came out, which of them are
datasets, the numbers worth a metric, one line for a human. Each stage
module returns its own result type; the functions here call the stage's
`run` and turn its result into that one shape, so everything above stays
stage-agnostic and a summary can cross process and machine boundaries as
JSON (a `cuda` worker publishes it under `<artifact_root>/flow-runs/`).

Also here, because they are pipeline steps without a stage module of their
own: `evaluate` (generate with a trained model, verify, report — uploaded to
the artifact store) and `generate_kernel` (`tritonrl generate`).

Filter and evaluate also come as shard steps (`filter_shard`,
`evaluate_shard`: one shard of the problems → a shard dataset) and merge
steps (`filter_merge`, `evaluate_merge`: all shard URIs → the stage's usual
summary and outputs); tritonrl/artifacts/shards.py says why and how they split.

Never imports prefect. Test: tests/test_flows.py runs these through the flows;
tests/test_tracking.py covers the logging of summaries.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tritonrl.artifacts.store import MANIFEST_FILE, ArtifactStore, join, upload_tree, utc_stamp
from tritonrl.config import Config
from tritonrl.verify import use_interpreter_on

STAGES = ("suite-check", "distill", "filter", "augment", "sft", "grpo", "evaluate")
# Stages that need the accelerator on a real run: the verifier (filter, augment, evaluate) and training.
GPU_STAGES = ("suite-check", "filter", "augment", "sft", "grpo", "evaluate", "filter-shard", "evaluate-shard")
# Stages that can split their problems into shards (`shards.<stage>`), and the step that runs one shard.
SHARD_STAGES = {"filter": "filter-shard", "evaluate": "evaluate-shard"}
# The config sections each stage reads, logged as its MLflow params.
STAGE_SECTIONS = {
    "suite-check": ("problems", "verify"),
    "distill": ("problems", "teacher"),
    "filter": ("verify", "shards"),
    "filter-shard": ("verify",),
    "augment": ("augment", "verify"),
    "sft": ("student", "sft"),
    "grpo": ("grpo",),
    "evaluate": ("evaluate", "verify", "shards"),
    "evaluate-shard": ("evaluate", "verify"),
}

Log = Callable[[str], None]


class PipelineError(RuntimeError):
    """A stage finished but its result means the pipeline must not go on (e.g. the suite check failed)."""


@dataclass(frozen=True)
class StageSummary:
    """What one stage run produced. `datasets` names the inputs/outputs that are published datasets."""

    stage: str
    inputs: dict[str, str]
    outputs: dict[str, str]
    metrics: dict[str, Any]
    line: str
    datasets: tuple[str, ...] = ()
    curves: dict[str, list[tuple[int, float]]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StageSummary":
        return cls(**{**data, "datasets": tuple(data.get("datasets", ())),
                      "curves": {k: [tuple(p) for p in v] for k, v in data.get("curves", {}).items()}})


def prepare_environment(config: Config) -> None:
    """Process set-up a stage needs before triton is first imported: on cpu, kernels run in its interpreter."""
    use_interpreter_on(config.verify.device)


def config_digest(config: Config) -> str:
    """Identity of a resolved config (plus where its artifacts go), for cache keys and run tags."""
    payload = json.dumps({"config": config.to_dict(), "artifact_root": config.artifact_root}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def shard_count(config: Config, stage: str) -> int:
    """How many shards `stage` runs in (1 for a stage that does not shard)."""
    return getattr(config.shards, stage) if stage in SHARD_STAGES else 1


def outputs_exist(config: Config, summary: StageSummary) -> bool:
    """Whether every output a (possibly cached) summary names is still complete in the store."""
    store = ArtifactStore.of(config.storage)
    for name, uri in summary.outputs.items():
        marker = uri if name == "report" else join(uri, MANIFEST_FILE)
        if not store.exists(marker):
            return False
    return True


def suite_check(config: Config, on_log: Log) -> StageSummary:
    from tritonrl.stages import suite_check as stage

    def show(check) -> None:
        shapes = ", ".join(f"{k}={v}" for k, v in check.shapes.items())
        on_log(f"{check.problem} [{shapes}] {check.seconds:.1f}s {'ok' if check.correct else 'FAIL ' + check.message}")

    report_uri, checks = stage.run(config, on_result=show)
    passed = sum(c.correct for c in checks)
    if passed != len(checks):
        failed = [c.problem for c in checks if not c.correct]
        raise PipelineError(f"suite check: {len(failed)} reference answers failed the verifier ({failed}); see {report_uri}")
    return StageSummary("suite-check", {}, {"report": report_uri}, {"checked": len(checks), "correct": passed},
                        f"{passed}/{len(checks)} reference checks correct; report {report_uri}")


def distill(config: Config, on_log: Log) -> StageSummary:
    from tritonrl.generation import build_teacher
    from tritonrl.stages import distill as stage

    result = stage.run(config, teacher=build_teacher(config.teacher),
                       on_problem=lambda name, failed: on_log(f"{name}: {failed} failed"))
    uri = result.dataset.uri
    return StageSummary(
        "distill", {"problems": config.problems.source}, {"samples": uri},
        {"problems": result.problems, "samples": result.samples, "failures": result.failures,
         "resumed_problems": result.resumed_problems},
        f"{result.samples} samples ({result.failures} failed) → {uri}", datasets=(uri,),
    )


def filter(config: Config, samples_uri: str, on_log: Log) -> StageSummary:  # noqa: A001 - the stage's name
    from tritonrl.stages import filter as stage

    return _filter_summary(samples_uri, stage.run(config, samples_uri), {})


def filter_shard(config: Config, samples_uri: str, shard: int, shards: int, on_log: Log) -> StageSummary:
    """Verify one shard's problems of the samples dataset → a shard dataset (input to `filter_merge`)."""
    from tritonrl.artifacts.shards import Shard
    from tritonrl.stages import filter as stage

    part = Shard(shard, shards)
    result = stage.run_shard(config, samples_uri, part)
    uri = result.dataset.uri
    return StageSummary(
        "filter-shard", {"samples": samples_uri}, {"shard": uri},
        {"shard": part.index + 1, "shards": part.count, "problems": result.problems, "samples": result.dataset.rows,
         "accepted": result.accepted},
        f"shard {part.label}: {result.accepted}/{result.dataset.rows} accepted over {result.problems} problems → {uri}",
        datasets=(samples_uri, uri),
    )


def filter_merge(config: Config, samples_uri: str, shard_uris: list[str], on_log: Log) -> StageSummary:
    """The filter's summary and datasets from all its shard datasets (what `filter` would publish)."""
    from tritonrl.stages import filter as stage

    return _filter_summary(samples_uri, stage.merge(config, samples_uri, shard_uris), {"shards": len(shard_uris)})


def _filter_summary(samples_uri: str, result, extra_metrics: dict[str, Any]) -> StageSummary:
    return StageSummary(
        "filter", {"samples": samples_uri}, {"accepted": result.accepted.uri, "rejected": result.rejected.uri},
        {"samples": result.samples, "accepted": result.accepted.rows, "acceptance_rate": result.acceptance_rate,
         "rejected_by_reason": result.reasons, **extra_metrics},
        f"{result.accepted.rows}/{result.samples} accepted ({result.acceptance_rate:.0%}); "
        f"rejections {result.reasons or '{}'} → {result.accepted.uri}",
        datasets=(samples_uri, result.accepted.uri, result.rejected.uri),
    )


def augment(config: Config, accepted_uri: str, on_log: Log) -> StageSummary:
    from tritonrl.stages import augment as stage

    result = stage.run(config, accepted_uri)
    return StageSummary(
        "augment", {"accepted": accepted_uri}, {"pairs": result.pairs.uri, "tasks": result.tasks.uri},
        {"problems": result.problems, "variants_proposed": result.variants_proposed,
         "variants_kept": result.variants_kept, "variant_pairs": result.variant_pairs,
         "pairs": result.pairs.rows, "tasks": result.tasks.rows},
        f"{result.variants_kept}/{result.variants_proposed} variants kept, {result.pairs.rows} SFT pairs → "
        f"{result.pairs.uri}; {result.tasks.rows} RL tasks → {result.tasks.uri}",
        datasets=(accepted_uri, result.pairs.uri, result.tasks.uri),
    )


def sft(config: Config, pairs_uri: str, on_log: Log) -> StageSummary:
    from tritonrl.stages import sft as stage

    result = stage.run(config, pairs_uri, on_log=on_log)
    first, last = result.loss_curve[0][1], result.loss_curve[-1][1]
    return StageSummary(
        "sft", {"pairs": pairs_uri, "base_model": config.student.base_model},
        {"output": result.output_uri},
        {"steps": result.steps, "train_rows": result.train_rows, "eval_rows": result.eval_rows,
         "dropped_rows": result.dropped_rows, "train_tokens": result.train_tokens, "world_size": result.world_size,
         "final_loss": last, "seconds": result.seconds},
        f"{result.steps} steps, loss {first:.3f} → {last:.3f} → {result.output_uri}",
        datasets=(pairs_uri,), curves={"loss": result.loss_curve, "eval_loss": result.eval_curve},
    )


def grpo(config: Config, tasks_uri: str, model_uri: str, on_log: Log) -> StageSummary:
    from tritonrl.stages import grpo as stage
    result = stage.run(config, tasks_uri, model_uri, on_log=on_log)
    curves: dict[str, list[tuple[int, float]]] = {}
    for entry in result.history:  # one dict of numbers per step: rewards, loss, KL, timings
        for key, value in entry.items():
            if key != "step" and isinstance(value, (int, float)) and not isinstance(value, bool):
                curves.setdefault(key, []).append((int(entry["step"]), float(value)))
    return StageSummary(
        "grpo", {"tasks": tasks_uri, "model": model_uri}, {"output": result.output_uri},
        {"steps": result.steps, "seconds": result.seconds},
        f"{result.steps} steps → {result.output_uri}", datasets=(tasks_uri,), curves=curves,
    )


def evaluate(config: Config, model_uri: str, on_log: Log, label: str = "") -> StageSummary:
    """Generate answers for `config.evaluate.problems` with the model at `model_uri`, verify, publish the report.

    The report (report.json/.md, plots, responses.jsonl) goes to
    `<artifact_root>/evaluations/<model hash>-<time>/`; metrics are the overall block.
    """
    rows = _answer_and_verify(config, model_uri, list(enumerate(_evaluation_problems(config))), on_log)
    return _publish_evaluation(config, model_uri, rows, on_log, label, {})


def evaluate_shard(config: Config, model_uri: str, shard: int, shards: int, on_log: Log) -> StageSummary:
    """Generate and verify answers for one shard's evaluation problems → a shard dataset (for `evaluate_merge`)."""
    from tritonrl.artifacts.shards import Shard, assign, publish_shard

    part = Shard(shard, shards)
    problems = _evaluation_problems(config)
    mine = assign({p.name: config.evaluate.samples for p in problems}, part.count)[part.index]
    chosen = set(mine)
    rows = _answer_and_verify(config, model_uri, [(i, p) for i, p in enumerate(problems) if p.name in chosen], on_log)
    digest = hashlib.sha256(json.dumps([model_uri, [p.name for p in problems], config.to_dict()["evaluate"]],
                                       sort_keys=True).encode()).hexdigest()
    dataset = publish_shard(ArtifactStore.of(config.storage), config.artifact_root, "evaluate", part, model_uri, digest, mine,
                            len(problems), rows)
    correct = sum(row["record"]["correct"] for row in rows)
    return StageSummary(
        "evaluate-shard", {"model": model_uri, "problems": config.evaluate.problems}, {"shard": dataset.uri},
        {"shard": part.index + 1, "shards": part.count, "problems": len(mine), "samples": len(rows),
         "correct": correct},
        f"shard {part.label}: {correct}/{len(rows)} answers correct over {len(mine)} problems → {dataset.uri}",
        datasets=(dataset.uri,),
    )


def evaluate_merge(config: Config, model_uri: str, shard_uris: list[str], on_log: Log, label: str = "") -> StageSummary:
    """The evaluation report and summary from all its shard datasets (what `evaluate` would publish)."""
    from tritonrl.artifacts.shards import read_shards

    rows = read_shards(ArtifactStore.of(config.storage), "evaluate", model_uri, shard_uris)
    return _publish_evaluation(config, model_uri, rows, on_log, label, {"shards": len(shard_uris)})


def _evaluation_problems(config: Config) -> list:
    from tritonrl.problems import load_problems

    settings = config.evaluate
    return load_problems(settings.problems, settings.levels, settings.limit)


def _answer_and_verify(config: Config, model_uri: str, problems: list[tuple[int, Any]], on_log: Log) -> list[dict]:
    """Answers for (position, Problem) pairs, generated and verified: one row per answer.

    A row is `{"position": [problem position, sample], "line": <its
    responses.jsonl line, verbatim>, "record", "verdict"}` (tritonrl.stages.evaluate.verify):
    plain data that a shard publishes and `_publish_evaluation` turns into the report.
    """
    from tritonrl.generation import HFTeacher
    from tritonrl.stages.evaluate import generate_responses, verify
    from tritonrl.training.models import resolve_model_source
    from tritonrl.verify.verifier import VerifierSettings

    if not problems:
        return []
    settings = config.evaluate
    source = resolve_model_source(model_uri, config.home, config.storage.s3_endpoint_url)
    generator = HFTeacher(source, device=config.verify.device)
    with tempfile.TemporaryDirectory(prefix="tritonrl-evaluate-") as tmp:
        responses = Path(tmp) / "responses.jsonl"
        subset = _problem_subset([p for _, p in problems], Path(tmp) / "problems")
        on_log(f"generating {settings.samples} answer(s) for each of {len(problems)} problems with {model_uri}")
        generate_responses(subset, generator, responses, settings.samples, settings.temperature, settings.max_tokens,
                           on_problem=lambda p: on_log(f"generated {p.name}"))
        lines: dict[str, list[str]] = {}
        for line in responses.read_text().splitlines():
            lines.setdefault(json.loads(line)["problem"], []).append(line)
        verified = verify(subset, responses, VerifierSettings.from_config(config.verify))
    position = {p.name: i for i, p in problems}
    return sorted(({"position": [position[row["record"]["problem"]], row["record"]["sample"]],
                    "line": lines[row["record"]["problem"]][row["record"]["sample"]], **row} for row in verified),
                  key=lambda row: row["position"])


def _publish_evaluation(config: Config, model_uri: str, rows: list[dict], on_log: Log, label: str,
                        extra_metrics: dict[str, Any]) -> StageSummary:
    """Report (tritonrl.stages.evaluate.summarize) and responses.jsonl from answer rows, uploaded; the evaluate summary."""
    from tritonrl.stages.evaluate import summarize

    settings = config.evaluate
    stamp = utc_stamp()
    name = f"{hashlib.sha256(model_uri.encode()).hexdigest()[:12]}-{stamp}"
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


def stage_params(config: Config, stage: str) -> dict[str, Any]:
    """The config sections a stage reads, as nested values (its MLflow params)."""
    data = config.to_dict()
    return {section: data[section] for section in STAGE_SECTIONS[stage]}


def summary_uri(config: Config, flow_run_id: str) -> str:
    """Where a stage flow run publishes its summary, for a parent on another machine to read."""
    return join(config.artifact_root, "flow-runs", f"{flow_run_id}.json")


def publish_summary(config: Config, flow_run_id: str, summary: dict[str, Any]) -> str:
    """Write a stage flow run's summary dict (StageSummary fields plus `reused`) as JSON."""
    uri = summary_uri(config, flow_run_id)
    ArtifactStore.of(config.storage).write_text(uri, json.dumps(summary, indent=2, default=str))
    return uri


def read_summary(config: Config, flow_run_id: str) -> dict[str, Any]:
    return json.loads(ArtifactStore.of(config.storage).read_text(summary_uri(config, flow_run_id)))


def read_manifest_text(config: Config, uri: str) -> str | None:
    """The manifest.json beside an output, or None when it has none (e.g. a report file)."""
    store = ArtifactStore.of(config.storage)
    marker = join(uri, MANIFEST_FILE)
    return store.read_text(marker) if store.exists(marker) else None


def markdown(summary: StageSummary) -> str:
    """A stage summary as Markdown (a Prefect artifact): the line, inputs, outputs and metrics."""
    rows = [f"## {summary.stage}", "", summary.line, "", "| | |", "|---|---|"]
    rows += [f"| input `{k}` | `{v}` |" for k, v in summary.inputs.items()]
    rows += [f"| output `{k}` | `{v}` |" for k, v in summary.outputs.items()]
    rows += [f"| {k} | {v} |" for k, v in summary.metrics.items()]
    return "\n".join(rows)


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
    from tritonrl.prompts import build_messages
    from tritonrl.training.models import resolve_model_source
    from tritonrl.verify.verifier import Verifier, VerifierSettings

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


def local_orchestration_env(config: Config) -> dict[str, str]:
    """Environment for running the flows in this process without a server (set before prefect is imported).

    Prefect's state (its temporary server's database, cached task results)
    goes under $TRITONRL_HOME/prefect unless PREFECT_HOME is set, so a rerun
    finds the results of the killed run; PREFECT_API_URL is left alone (a
    user pointing at a server keeps it). Telemetry is off: its heartbeat
    contends for the temporary server's SQLite database. The temporary
    server gets 120 s to start instead of Prefect's 20 (unless the user set
    it): on a busy 2-core machine its first start, which creates the
    database, was measured to take longer.
    """
    home = Path(os.environ.get("PREFECT_HOME") or config.home / "prefect")
    home.mkdir(parents=True, exist_ok=True)
    values = {"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
              "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS":
                  os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")}
    os.environ.update(values)
    return values


def render_result(result: dict[str, Any]) -> list[str]:
    """The closing summary of a pipeline run: every stage's line, where the outputs and runs went, how to look."""
    lines = [f"{name:12s} {'(reused) ' if s.get('reused') else ''}{s['line']}" for name, s in result["stages"].items()]
    registered = result["registered"]
    lines += [
        "",
        f"model:        {result['model']}",
        f"registered:   models:/{registered['name']}@{registered['aliases'][0]} (version {registered['version']}, "
        f"aliases {', '.join(registered['aliases'])}; {registered['metric']} = {registered['value']})",
        f"artifacts:    {result['artifact_root']}",
        f"tracking:     {result['tracking_uri']} (experiment {result['experiment']}, run {result['parent_run_id']})",
        f"MLflow UI:    mlflow ui --backend-store-uri {result['tracking_uri']}",
        f"try it:       tritonrl generate --model models:/{registered['name']}@{registered['aliases'][0]} --problem FILE.py",
    ]
    return lines
