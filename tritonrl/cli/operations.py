"""Running the pipeline and its services: `tritonrl run`, `tritonrl stack ...`, `tritonrl deploy`.

These are the user's door into the orchestration layer: they import `flows`
inside the command, so `import tritonrl.cli` stays free of Prefect.
"""

from __future__ import annotations

import logging
import os
import traceback
from pathlib import Path
from typing import Any, Optional

import typer
from rich.markup import escape

from tritonrl.cli.app import ConfigFileOption, ProfileOption, SetOption, app, console, fail, resolve_config
from tritonrl.cli.run_server import sigterm_interrupts, start_server
from tritonrl.config import Config, describe
from tritonrl.evaluation import learning
from tritonrl.artifacts.storage_errors import storage_error
from tritonrl.problems import ProblemError
from tritonrl.problems.loaders import load_builtin

stack_app = typer.Typer(
    help="The local stack: Prefect server, MLflow server, S3 endpoint, one worker per pool (loopback).",
    no_args_is_help=True,
)
app.add_typer(stack_app, name="stack")


RESUME_HINT = "(rerun the same command to resume: finished stages are reused)"


@app.command("run")
def run(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Run the whole pipeline in this process (Prefect flow `tritonrl` on a Prefect server of its own; MLflow tracking).

    suite check → distill → filter → augment → SFT → HRD-GRPO → evaluate → register. Rerunning after an
    interruption reuses every finished stage. Ends with where everything went.
    """
    config, sources = resolve_config(profile, config_file, overrides)
    _check_writable(config.home)
    from tritonrl.stages import pipeline

    console.print("[bold]TritonRL[/bold] resolved configuration:")
    for line in describe(config, sources):
        console.print(f"  {line}", highlight=False)
    pipeline.prepare_environment(config)
    log = config.home / "logs" / f"run-{os.getpid()}.log"
    try:
        with sigterm_interrupts():
            _use_prefect_api(_local_orchestration_env(config))
            from flows.full import tritonrl_flow

            _tracebacks_to(log)

            result = tritonrl_flow(
                profile=config.profile, config_file=str(config_file or ""), overrides=list(overrides)
            )
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM; the flow has marked its runs KILLED
        console.print(_interrupted(exc), highlight=False, markup=False)
        raise typer.Exit(code=130) from None
    except (ProblemError, ValueError, RuntimeError, OSError) as exc:
        raise fail(f"{exc}\n{RESUME_HINT}") from exc
    except Exception as exc:  # a defect of ours, not the input's: one line, its traceback in the run's log
        if storage_error(exc) is not None:
            raise  # the app's one storage line
        log.parent.mkdir(parents=True, exist_ok=True)
        with log.open("a") as sink:
            traceback.print_exception(exc, file=sink)
        console.print(
            f"[red]error:[/red] internal error, {escape(f'{type(exc).__name__}: {exc}')} (a defect of "
            f"tritonrl; its traceback is in {log}: please report it)\n{RESUME_HINT}",
            highlight=False,
        )
        raise typer.Exit(code=1) from None
    console.print("[bold green]done[/bold green]")
    for line in _render_result(result):
        console.print(line, highlight=False, markup=False)


def _check_writable(home: Path) -> None:
    """Fail before anything starts (or is printed) when the run's home, where its databases, logs and local artifacts
    go, cannot be written: in a read-only checkout the default ./.tritonrl cannot be."""
    import tempfile

    try:
        home.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=home):
            pass
    except OSError as exc:
        raise fail(
            f"cannot write to {home} ({exc.strerror or exc}), where the run keeps its databases, logs and "
            "artifacts: set TRITONRL_HOME to a writable directory, e.g. export TRITONRL_HOME=$HOME/.tritonrl"
        ) from exc


def _interrupted(exc: KeyboardInterrupt) -> str:
    """The one line an interrupted run ends with: what had finished, and how to resume."""
    finished, running = getattr(exc, "finished", []), getattr(exc, "running", "")
    done = f"finished: {', '.join(finished)}" if finished else "no stage had finished"
    during = f" during {running}" if running else ""
    return f"interrupted{during} ({done}); run the same command again to resume: finished stages are reused"


def _local_orchestration_env(config: Config) -> Path:
    """Environment for running the flows in this process (set before prefect is imported); returns PREFECT_HOME.

    Prefect's state (its database, cached task results) goes under
    $TRITONRL_HOME/prefect unless PREFECT_HOME is set, so a rerun finds the
    results of the killed run. Telemetry is off: its heartbeat contends for
    the server's SQLite database.
    """
    home = Path(os.environ.get("PREFECT_HOME") or config.home / "prefect")
    home.mkdir(parents=True, exist_ok=True)
    os.environ.update({"PREFECT_HOME": str(home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"})
    return home


class _TracebackToFile(logging.Filter):
    """On Prefect's console handler: a line with a traceback keeps its message, the traceback goes to a file.

    An error under `tritonrl run` then ends in the one line the command prints
    (what went wrong, what to do), not in a screenful per task and flow run.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.sink: logging.Handler | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info:
            if self.sink is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.sink = logging.FileHandler(self.path)
                self.sink.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s - %(message)s"))
            self.sink.handle(record)
            record.msg = f"{record.msg} (traceback in {str(self.path).replace('%', '%%')})"
            record.exc_info, record.exc_text = None, None
        return True


def _tracebacks_to(path: Path) -> None:
    """Send the tracebacks Prefect's console handler would print to `path` (see _TracebackToFile)."""
    from prefect.logging.handlers import PrefectConsoleHandler

    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrefectConsoleHandler):
            handler.addFilter(_TracebackToFile(path))


def _use_prefect_api(home: Path) -> str:
    """The Prefect API the run talks to: the user's PREFECT_API_URL, else a server of this run alone (run_server.py)."""
    if not os.environ.get("PREFECT_API_URL"):
        os.environ["PREFECT_API_URL"] = start_server(home)
    return os.environ["PREFECT_API_URL"]


def _render_result(result: dict[str, Any]) -> list[str]:
    """The closing summary of a pipeline run: every stage's line, where the outputs and runs went, how to look."""
    lines = [f"{name:12s} {'(reused) ' if s.get('reused') else ''}{s['line']}" for name, s in result["stages"].items()]
    registered = result["registered"]
    value = "none" if registered["value"] is None else f"{registered['value']:.3g}"
    rows = learning.learning_rows(result["stages"])
    if rows:
        lines += [
            "",
            "learning (the same evaluation for each model):",
            *("  " + line for line in learning.learning_text(rows)),
        ]
    lines += [
        "",
        f"model:        {result['model']}",
        f"registered:   models:/{registered['name']}@{registered['aliases'][0]} (version {registered['version']}, "
        f"aliases {', '.join(registered['aliases'])}; {registered['metric']} = {value})",
        f"promotion:    {registered['reason']}",
        f"artifacts:    {result['artifact_root']}",
        f"tracking:     {result['tracking_uri']} (experiment {result['experiment']}, run {result['parent_run_id']})",
        f"MLflow UI:    {_ui_command(result['tracking_uri'])}",
        f"try it:       {command('tritonrl')} generate --model models:/{registered['name']}@{registered['aliases'][0]} "
        f"--problem {load_builtin()[0].name}  # or another of: {command('tritonrl')} problems list",
    ]
    return lines


def command(name: str) -> str:
    """A program of this environment (the venv's bin/) as a shell runs it when pasted: its bare name when the shell
    finds this one on PATH, else its path, relative to the working directory when under it (`.venv/bin/mlflow`)."""
    import shutil
    import sys

    path = Path(sys.executable).parent / name  # the venv's bin/, not where its python links to
    if not path.is_file():
        return name
    found = shutil.which(name)
    if found and Path(found).resolve() == path.resolve():
        return name
    try:
        return str(path.absolute().relative_to(Path.cwd()))
    except ValueError:
        return str(path.absolute())


MLFLOW_UI_PORT = 5000  # `mlflow ui`'s default


def _ui_command(tracking_uri: str) -> str:
    """How to see the runs: a tracking server is its own UI; a local store gets `mlflow ui` on a port free now
    (5000 unless something holds it, e.g. a compose stack's MLflow server)."""
    if tracking_uri.startswith(("http://", "https://")):
        return f"{tracking_uri} (the tracking server's own UI)"
    import socket

    from tritonrl.stack import HOST, free_port

    with socket.socket() as sock:
        try:
            sock.bind((HOST, MLFLOW_UI_PORT))
            port = MLFLOW_UI_PORT
        except OSError:
            port = free_port()
    taken = "" if port == MLFLOW_UI_PORT else f"  # {MLFLOW_UI_PORT} is taken"  # a comment: the line still pastes
    return f"{command('mlflow')} ui --backend-store-uri {tracking_uri} --port {port}{taken}"


@stack_app.command("up")
def stack_up() -> None:
    """Start the stack under $TRITONRL_HOME/stack (or show the one running); prints the URLs and the environment."""
    from tritonrl import stack

    try:
        state = stack.up(on_log=lambda line: console.print(f"  {line}", highlight=False))
    except (stack.StackError, OSError) as exc:
        raise fail(str(exc)) from exc
    typer.echo(
        f"Prefect UI {state['prefect_ui']}\nMLflow UI  {state['mlflow_url']}\nS3         {state['s3_endpoint_url']} "
        f"(bucket {state['bucket']})\nconfig     {state['config_file']}\nclient environment:"
    )
    typer.echo("\n".join(f"  export {k}={v}" for k, v in stack.environment(state).items()))


@stack_app.command("down")
def stack_down() -> None:
    """Stop every process of the stack."""
    from tritonrl import stack

    typer.echo("stopped" if stack.down() else stack.not_recorded())


@stack_app.command("status")
def stack_status() -> None:
    """Each service: up or down, and where. Exit 1 when a started stack has a service down; 0 when all are up, or
    when no stack was started (it says so)."""
    from tritonrl import stack

    rows = stack.status()
    if not rows:
        typer.echo(stack.not_recorded())
        return
    for name, state, where in rows:
        typer.echo(f"{name:12s} {state:5s} {where}")
    if any(state != "up" for _, state, _ in rows):
        raise typer.Exit(code=1)


@app.command("deploy")
def deploy() -> None:
    """Apply infra/prefect.yaml to the running stack: tritonrl/full, <stage>/cuda, nightly-evaluation/nightly."""
    from tritonrl import stack

    try:
        typer.echo(stack.deploy())
    except stack.StackError as exc:
        raise fail(str(exc)) from exc
    typer.echo(f"deployments in the Prefect UI: {stack.read_state()['prefect_ui']}/deployments")
