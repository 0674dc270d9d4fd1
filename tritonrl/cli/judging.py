"""Judging kernels: `tritonrl verify` (one candidate), `eval` (a problem set), `generate` (with a trained model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from tritonrl.cli.app import (
    ConfigFileOption,
    ProfileOption,
    SetOption,
    app,
    console,
    fail,
    library_logs_to_stderr,
    stage_config,
)
from tritonrl.config import Config, ConfigError, key_help, load_config
from tritonrl.problems import Problem, ProblemError, load_problems
from tritonrl.problems.loaders import load_builtin
from tritonrl.verify import use_interpreter_on

_HELP = dict(key_help())


def _from_config(key: str, flag_help: str = "") -> str:
    """A flag's help that names the config key it overrides, so the description lives with the key.

    The key's description is quoted as written: it may begin with a value or a name (`cpu runs…`, `tl.dot in…`),
    which a capital would misspell.
    """
    return f"{flag_help or _HELP[key]}. Default: {key}."


DeviceOption = typer.Option(None, help=_from_config("verify.device"))
TrialsOption = typer.Option(None, help=_from_config("verify.trials"))
TimeoutOption = typer.Option(
    None,
    help=_from_config(
        "verify.timeout_s",
        "Base seconds allowed to a sandboxed run: a candidate also gets 4x the reference's own trial "
        "time at these shapes, the reference 4x this",
    ),
)
PrecisionOption = typer.Option(None, help=_from_config("verify.precision"))


# The flags that set config keys, to name them when the config refuses a value.
_FLAGS = {
    "verify.device": "--device",
    "verify.trials": "--trials",
    "verify.timeout_s": "--timeout",
    "verify.precision": "--precision",
    "evaluate.samples": "--samples",
    "evaluate.temperature": "--temperature",
    "evaluate.max_tokens": "--max-tokens",
    "evaluate.turns": "--turns",
}


def _verify_config(profile, config_file, overrides, evaluate: dict | None = None, **flags) -> Config:
    """The resolved config with the command's own flags on top: `flags` set `verify.KEY`, `evaluate` sets
    `evaluate.KEY`, as `--set` after the others, so the config's own checks judge them."""
    given = {f"verify.{k}": v for k, v in flags.items()} | {f"evaluate.{k}": v for k, v in (evaluate or {}).items()}
    given = {key: value for key, value in given.items() if value is not None}
    try:
        config, _ = load_config(profile, config_file, [*overrides, *(f"{k}={v}" for k, v in given.items())])
    except ConfigError as exc:
        named = [_FLAGS[key] for key in given if key in str(exc)]
        raise fail(f"{exc}" + (f" (from {', '.join(named)})" if named else "")) from exc
    use_interpreter_on(config.verify.device)
    return config


PROBLEM_HELP = "A KernelBench-format problem file (Model, get_inputs, get_init_inputs), or a built-in problem's name, e.g. 01_relu.py."


def _problem(path: Path) -> Problem:
    """The problem `--problem` names: a .py file, else a built-in problem of that name."""
    if not path.is_file():
        builtin = {p.name: p for p in load_builtin()}
        if str(path) in builtin:
            return builtin[str(path)]
        raise fail(
            f"problem file {path} does not exist, and no built-in problem has that name "
            "(tritonrl problems list shows them)"
        )
    if path.suffix != ".py":
        raise fail(f"--problem must be a .py file in KernelBench format, got {path}")
    try:
        (loaded,) = load_problems(str(path))
    except ProblemError as exc:
        raise fail(str(exc)) from exc
    return loaded


@app.command("verify")
def verify(
    problem: Path = typer.Option(..., "--problem", help=PROBLEM_HELP),
    candidate: Path = typer.Option(
        ..., "--candidate", help="A .py file defining ModelNew, or a text file holding a model response."
    ),
    device: Optional[str] = DeviceOption,
    trials: Optional[int] = TrialsOption,
    timeout: Optional[float] = TimeoutOption,
    precision: Optional[str] = PrecisionOption,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a readable report."),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Verify one candidate against one problem. Exit 0 whenever a verdict was reached, whatever it is.

    The verifier's settings are the config's `verify` section; the flags override it.
    """
    config = _verify_config(
        profile, config_file, overrides, device=device, trials=trials, timeout_s=timeout, precision=precision
    )
    loaded = _problem(problem)
    if not candidate.is_file():
        raise fail(f"candidate file {candidate} does not exist")
    from tritonrl.verify.interpreter import InterpreterUnusable
    from tritonrl.verify.report import render_verdict
    from tritonrl.verify.verifier import Verifier, VerifierSettings

    try:
        verifier = Verifier(VerifierSettings.from_config(config.verify))
    except InterpreterUnusable as exc:
        raise fail(str(exc)) from exc
    with verifier:
        verdict = verifier.verify(loaded.source, candidate.read_text(errors="replace"))
    if as_json:
        typer.echo(json.dumps({"problem": loaded.name, "candidate": str(candidate), **verdict.to_dict()}, indent=2))
    else:
        typer.echo(render_verdict(verdict, loaded.name, candidate.name))


@app.command("eval")
def evaluate(
    problems: Optional[str] = typer.Option(
        None,
        "--problems",
        help=_from_config("evaluate.problems", "builtin, a directory, a KernelBench JSONL or a hub id"),
    ),
    responses: Optional[Path] = typer.Option(
        None,
        "--responses",
        help='JSONL, one {"problem": NAME, "response": TEXT} per line (with "sample" and "turn" for refined '
        "answers, as eval writes them). Or use --model/--endpoint.",
    ),
    model: Optional[str] = typer.Option(
        None,
        "--model",
        help="Generate the responses with this model: models:/tritonrl-coder@champion (or @candidate, /VERSION; the registry "
        "of MLFLOW_TRACKING_URI when set), a hub id, a local directory, tiny-local, or a training output URI (file:// or "
        "s3://, as printed by sft/grpo).",
    ),
    endpoint: Optional[str] = typer.Option(
        None,
        "--endpoint",
        help="Generate the responses through an OpenAI-compatible endpoint (base URL, e.g. http://localhost:8000/v1).",
    ),
    served_model: str = typer.Option("", "--served-model", help="The model name the --endpoint serves."),
    samples: Optional[int] = typer.Option(None, help=_from_config("evaluate.samples")),
    temperature: Optional[float] = typer.Option(None, help=_from_config("evaluate.temperature")),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", help=_from_config("evaluate.max_tokens")),
    turns: Optional[int] = typer.Option(
        None,
        help=_from_config(
            "evaluate.turns",
            "Turns of refinement per sample: an answer not yet correct and fast enough (evaluate.stop_speedup) "
            "gets the verifier's feedback and is asked again. With --responses: verify the file's first that many turns "
            "(default: all)",
        ),
    ),
    device: Optional[str] = typer.Option(
        None,
        help=_from_config(
            "verify.device", "cpu (Triton interpreter, shrunk shapes, no timing) or cuda; --model generates here too"
        ),
    ),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Directory for report.json, report.md, PNG plots (and generated responses.jsonl)."
    ),
    level: list[int] = typer.Option([], help="Evaluate only these KernelBench levels (repeatable)."),
    workers: int = typer.Option(0, help="Verifier workers (0: one per CPU core, or 3 per GPU on cuda)."),
    trials: Optional[int] = TrialsOption,
    timeout: Optional[float] = TimeoutOption,
    precision: Optional[str] = PrecisionOption,
    as_json: bool = typer.Option(
        False, "--json", help="Print one JSON object (metrics overall and per level, per_problem)."
    ),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Evaluate model responses on a problem set: correctness, fast_p, pass@k, speed-ups, robust vs naive.

    The responses come from a file (--responses) or are generated by a model
    (--model) or an endpoint (--endpoint), in up to --turns turns of
    refinement; generated ones (every turn) are saved as responses.jsonl
    beside the report, to be re-verified later. The verifier's settings are
    the config's `verify` section; the flags override it. Progress goes to
    stderr as lines, terminal or not: per batch of generated answers and per
    verified answer, with the time per answer and the time left.
    """
    sampling_flags = {"samples": samples, "temperature": temperature, "max_tokens": max_tokens, "turns": turns}
    config = _verify_config(
        profile,
        config_file,
        overrides,
        evaluate=sampling_flags,
        device=device,
        trials=trials,
        timeout_s=timeout,
        precision=precision,
    )
    if sum(x is not None for x in (responses, model, endpoint)) != 1:
        raise fail("give exactly one of --responses FILE, --model MODEL or --endpoint URL")
    problems = problems or config.evaluate.problems
    from tritonrl.stages.evaluate import EvaluationError, load_responses, summarize
    from tritonrl.stages.evaluate import run as run_evaluation
    from tritonrl.verify.verifier import VerifierSettings

    if (
        model is not None
    ):  # a local model: quiet its libraries as a stage does; a registry URI names its training output
        from tritonrl import tracking
        from tritonrl.stages.pipeline import prepare_environment

        prepare_environment(config)
        try:
            model = tracking.resolve_model_uri(config, model)
        except tracking.TrackingError as exc:
            raise fail(str(exc)) from exc
    settings = VerifierSettings.from_config(config.verify)
    if responses is None:
        sampling = config.evaluate
        rows = _answer_eval(problems, model, endpoint, served_model, sampling, settings, out, level, workers, as_json)
        result = summarize(rows, out, sampling.turns)
    else:
        try:
            total = len(load_responses(responses, turns))
        except EvaluationError as exc:
            raise fail(str(exc)) from exc
        tally = _progress().start("verifying", total, "answers verified")
        try:
            result = run_evaluation(
                problems,
                responses,
                settings,
                out_dir=out,
                levels=level,
                workers=workers or None,
                on_verdict=_verified(tally),
                turns=turns,
            )
        except (EvaluationError, ProblemError) as exc:
            raise fail(str(exc)) from exc
    if as_json:
        typer.echo(
            json.dumps(
                {**result["metrics"], "per_problem": result["per_problem"], "report": result["report"]}, indent=2
            )
        )
        return
    from tritonrl.evaluation.report import render_markdown

    typer.echo(
        render_markdown(
            result["metrics"], [{k: v for k, v in r.items() if k != "verdicts"} for r in result["per_problem"]]
        )
    )
    if result["report"]:
        typer.echo(f"\nreport written to {out}")


def _progress():
    """Progress lines on stderr as the pipeline's stages print them (tritonrl/stages/progress.py: count, time, time
    per answer, time left; at most one every 5 s, the first and last always), in a terminal or not."""
    from tritonrl.stages.progress import Progress

    return Progress(lambda line: console.print(line, highlight=False, markup=False))


def _verified(tally):
    """The verifier pool's on_verdict for a tally of answers verified: one per verdict, naming its problem."""
    return lambda batch, index, verdict: tally.advance(
        f"{batch.key}: {'correct' if verdict.correct else 'not correct'}"
    )


def _answer_eval(problems, model, endpoint, served_model, sampling, settings, out, level, workers, quiet) -> list[dict]:
    """Generate and verify the answers `tritonrl eval` reports (`sampling`: the evaluate section); writes responses.jsonl."""
    from tritonrl.artifacts.store import utc_stamp
    from tritonrl.home import state_dir
    from tritonrl.generation import HFTeacher, OpenAITeacher
    from tritonrl.stages.evaluate import EvaluationError, answer
    from tritonrl.stages.refine import Watch

    try:
        if model is not None:
            library_logs_to_stderr()
            from tritonrl.training.models import ModelError, resolve_model_source

            try:
                generator = HFTeacher(resolve_model_source(model, state_dir()), device=settings.device)
            except ModelError as exc:
                raise fail(str(exc)) from exc
        else:
            generator = OpenAITeacher(endpoint, served_model)
    except ValueError as exc:
        raise fail(str(exc)) from exc
    path = (out or state_dir() / "eval" / utc_stamp()) / "responses.jsonl"
    from tritonrl.stages.progress import together

    progress = _progress()

    def turn(label: str, number: int) -> str:
        return f"turn {number}: {label}" if sampling.turns > 1 else label

    def answering(number: int, prompts: int):
        unit = f"prompts answered ({sampling.samples} answers each)" if sampling.samples > 1 else "prompts answered"
        tally = progress.start(turn(f"generating with {generator.id}", number), prompts, unit)
        return lambda answered: tally.advance(together([p.name for p in answered]), count=len(answered))

    watch = Watch(
        answering,
        lambda number, answers: _verified(progress.start(turn("verifying", number), len(answers), "answers verified")),
    )
    try:
        rows = answer(problems, generator, settings, sampling, level, workers or None, watch)
    except (EvaluationError, ProblemError) as exc:
        raise fail(str(exc)) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(row["line"] + "\n" for row in rows))
    if not quiet:
        console.print(f"responses written to {path}")
    return rows


@app.command("generate")
def generate(
    model: str = typer.Option(
        ...,
        "--model",
        help="models:/tritonrl-coder@champion (or @candidate, /VERSION), a training output URI, a hub id or a directory.",
    ),
    problem: Path = typer.Option(..., "--problem", help=PROBLEM_HELP),
    attempts: int = typer.Option(1, help="Answers to try; after the first (greedy by default) they are sampled."),
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Write a Triton kernel for a PyTorch module with a trained model; print it only if the verifier accepts it.

    Otherwise the verdict report goes to stderr and the exit code is 1. Registry URIs resolve through
    tracking.tracking_uri, else MLFLOW_TRACKING_URI (MLFLOW_REGISTRY_URI), else the SQLite store `tritonrl run`
    wrote under $TRITONRL_HOME (./.tritonrl).
    """
    config = stage_config(profile, config_file, overrides)
    loaded = _problem(problem)
    library_logs_to_stderr()
    from tritonrl import tracking
    from tritonrl.stages import evaluate as stage
    from tritonrl.stages.summary import PipelineError
    from tritonrl.training.models import ModelError
    from tritonrl.verify.report import render_verdict

    try:
        kernel = stage.generate_kernel(config, tracking.resolve_model_uri(config, model), loaded, attempts)
    except (tracking.TrackingError, ModelError, PipelineError) as exc:
        raise fail(str(exc)) from exc
    if not kernel.verdict.correct:
        console.print(
            render_verdict(kernel.verdict, loaded.name, f"{model}'s answer", author_hints=False),
            highlight=False,
            markup=False,
        )
        tried = f"{attempts} answers" if attempts > 1 else "its answer"
        console.print(
            f"no kernel: the verifier rejected {tried}; sample more with --attempts {max(4, 2 * attempts)}, "
            "or use a better-trained model",
            highlight=False,
            markup=False,
        )
        raise typer.Exit(code=1)
    typer.echo(kernel.response)
