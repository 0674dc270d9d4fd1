"""The `tritonrl` command line.

Every command takes the same config options (`--profile`, `--config FILE`,
`--set section.key=value`) and fails fast with exit 2 and a readable message
on bad input. Commands arrive with their issues; see `tritonrl --help`.

Test: tests/test_cli.py.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from tritonrl.config import ConfigError, describe, load_config
from tritonrl.problems import ProblemError, load_problems

app = typer.Typer(help="TritonRL: train and evaluate LLMs that write Triton kernels.", no_args_is_help=True)
problems_app = typer.Typer(help="Inspect problem sets.", no_args_is_help=True)
config_app = typer.Typer(help="Inspect the resolved configuration.", no_args_is_help=True)
app.add_typer(problems_app, name="problems")
app.add_typer(config_app, name="config")

console = Console(stderr=True, soft_wrap=True)

ProfileOption = typer.Option(None, "--profile", "-p", help="Named profile: tiny (CPU) or gpu.")
ConfigFileOption = typer.Option(None, "--config", "-c", help="YAML file with config sections.")
SetOption = typer.Option([], "--set", "-s", help="Override, e.g. --set teacher.samples_per_task=4 (repeatable).")


def _fail(message: str) -> typer.Exit:
    console.print(f"[red]error:[/red] {message}")
    return typer.Exit(code=2)


def _config(profile: Optional[str], config_file: Optional[Path], overrides: list[str]):
    try:
        return load_config(profile, config_file, overrides)
    except ConfigError as exc:
        raise _fail(str(exc)) from exc


@config_app.command("show")
def config_show(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Print every setting with where it came from (default, profile, file, override)."""
    config, sources = _config(profile, config_file, overrides)
    typer.echo("\n".join(describe(config, sources)))


@problems_app.command("list")
def problems_list(
    source: str = typer.Option("builtin", help="builtin, a directory, a .py/.jsonl file, a hub id, or kernelbook:<id|file>."),
    level: list[int] = typer.Option([], help="Keep only these KernelBench levels (repeatable)."),
    limit: int = typer.Option(0, help="Keep only the first N problems (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list instead of a table."),
) -> None:
    """List the problems of a source."""
    try:
        problems = load_problems(source, level, limit)
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps([p.summary() for p in problems], indent=2))
        return
    table = Table("name", "level", "category", "shapes", "reference")
    for p in problems:
        shapes = ", ".join(f"{k}={v}" for k, v in p.shapes.items())
        table.add_row(p.name, str(p.level or ""), p.category or "", shapes, "yes" if p.reference_response else "")
    Console().print(table)


@problems_app.command("show")
def problems_show(
    name: str = typer.Argument(..., help="The problem's name, e.g. 19_ReLU.py."),
    source: str = typer.Option("builtin", help="builtin, a directory, a .py/.jsonl file, a hub id, or kernelbook:<id|file>."),
    reference: bool = typer.Option(False, "--reference", help="Print the problem's reference answer instead of its source."),
) -> None:
    """Print one problem's source (e.g. to save it as a file for `tritonrl verify`)."""
    try:
        problems = {p.name: p for p in load_problems(source)}
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    if name not in problems:
        close = [n for n in problems if name.lower().split(".")[0] in n.lower()][:5]
        raise _fail(f"no problem named {name!r} in {source}" + (f"; did you mean {close}?" if close else ""))
    problem = problems[name]
    if reference and problem.reference_response is None:
        raise _fail(f"{name} has no reference answer in {source}")
    typer.echo(problem.reference_response if reference else problem.source, nl=False)


@app.command("verify")
def verify(
    problem: Path = typer.Option(..., "--problem", help="KernelBench-format problem file (Model, get_inputs, get_init_inputs)."),
    candidate: Path = typer.Option(..., "--candidate", help="A .py file defining ModelNew, or a text file holding a model response."),
    device: str = typer.Option("cpu", help="cpu (Triton interpreter, shapes shrunk to fit) or cuda (the problem's own shapes)."),
    trials: int = typer.Option(3, help="Correctness trials, each with fresh secret-seeded inputs."),
    timeout: float = typer.Option(45.0, help="Seconds allowed to each sandboxed run (reference, candidate)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of a readable report."),
) -> None:
    """Verify one candidate against one problem. Exit 0 whenever a verdict was reached, whatever it is."""
    if device not in ("cpu", "cuda"):
        raise _fail(f"--device must be cpu or cuda, not {device!r}")
    for label, path in (("problem", problem), ("candidate", candidate)):
        if not path.is_file():
            raise _fail(f"{label} file {path} does not exist")
    try:
        (loaded,) = load_problems(str(problem)) if problem.suffix == ".py" else (None,)
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    if loaded is None:
        raise _fail(f"--problem must be a .py file in KernelBench format, got {problem}")
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from tritonrl.verify.report import render_verdict
    from tritonrl.verify.verifier import Verifier, VerifierSettings

    with Verifier(VerifierSettings(device=device, trials=trials, timeout_s=timeout)) as verifier:
        verdict = verifier.verify(loaded.source, candidate.read_text(errors="replace"))
    if as_json:
        typer.echo(json.dumps({"problem": loaded.name, "candidate": str(candidate), **verdict.to_dict()}, indent=2))
    else:
        typer.echo(render_verdict(verdict, loaded.name, candidate.name))


@app.command("eval")
def evaluate(
    problems: str = typer.Option(..., "--problems", help="builtin, a directory, a KernelBench JSONL or a hub id."),
    responses: Path = typer.Option(..., "--responses", help='JSONL, one {"problem": NAME, "response": TEXT} per line.'),
    device: str = typer.Option("cpu", help="cpu (Triton interpreter, shrunk shapes, no timing) or cuda."),
    out: Optional[Path] = typer.Option(None, "--out", help="Directory for report.json, report.md and PNG plots."),
    level: list[int] = typer.Option([], help="Evaluate only these KernelBench levels (repeatable)."),
    workers: int = typer.Option(0, help="Verifier workers (0: one per CPU core, or per GPU on cuda)."),
    trials: int = typer.Option(3, help="Correctness trials per candidate."),
    timeout: float = typer.Option(45.0, help="Seconds allowed to each sandboxed run."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (metrics overall and per level, per_problem)."),
) -> None:
    """Evaluate model responses on a problem set: correctness, fast_p, pass@k, speed-ups, robust vs naive."""
    if device not in ("cpu", "cuda"):
        raise _fail(f"--device must be cpu or cuda, not {device!r}")
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from rich.progress import Progress

    from tritonrl.evaluate import EvaluationError, load_responses, run as run_evaluation
    from tritonrl.verify.verifier import VerifierSettings

    try:
        total = len(load_responses(responses))
    except EvaluationError as exc:
        raise _fail(str(exc)) from exc
    settings = VerifierSettings(device=device, trials=trials, timeout_s=timeout)
    with Progress(console=console, transient=as_json) as progress:
        bar = progress.add_task("verifying", total=total)
        try:
            result = run_evaluation(
                problems, responses, settings, out_dir=out, levels=level, workers=workers or None,
                on_verdict=lambda *_: progress.advance(bar),
            )
        except (EvaluationError, ProblemError) as exc:
            raise _fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps({**result["metrics"], "per_problem": result["per_problem"], "report": result["report"]}, indent=2))
        return
    from tritonrl.report import render_markdown

    typer.echo(render_markdown(result["metrics"], [{k: v for k, v in r.items() if k != "verdicts"} for r in result["per_problem"]]))
    if result["report"]:
        typer.echo(f"\nreport written to {out}")


@app.command("run")
def run(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Run the pipeline. Today: check every reference answer of the problem set at two shapes."""
    config, sources = _config(profile, config_file, overrides)
    if config.verify.device == "cpu":
        # Must be set before triton is first imported: kernels then run in its CPU interpreter.
        os.environ.setdefault("TRITON_INTERPRET", "1")
    from tritonrl import suite_check

    console.print("[bold]TritonRL[/bold] resolved configuration:")
    for line in describe(config, sources):
        console.print(f"  {line}", highlight=False)

    def show(check) -> None:
        mark = "[green]ok[/green]" if check.correct else f"[red]FAIL[/red] {check.message}"
        shapes = ", ".join(f"{k}={v}" for k, v in check.shapes.items())
        console.print(f"  {check.problem:32s} {shapes:40s} {check.seconds:6.2f}s {mark}", highlight=False)

    try:
        report_uri, checks = suite_check.run(config, on_result=show)
    except ProblemError as exc:
        raise _fail(str(exc)) from exc
    passed = sum(c.correct for c in checks)
    console.print(f"{passed}/{len(checks)} reference checks correct; report: {report_uri}", highlight=False)
    if passed != len(checks):
        raise typer.Exit(code=1)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
