"""Running the pipeline and its services: `tritonrl run`, `tritonrl stack ...`, `tritonrl deploy`.

These are the user's door into the orchestration layer: they import `flows`
inside the command, so `import tritonrl.cli` stays free of Prefect.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from tritonrl.cli.app import ConfigFileOption, ProfileOption, SetOption, app, console, fail, resolve_config
from tritonrl.config import describe
from tritonrl.problems import ProblemError

stack_app = typer.Typer(help="The local stack: Prefect server, MLflow server, S3 endpoint, one worker per pool (loopback).",
                        no_args_is_help=True)
app.add_typer(stack_app, name="stack")


@app.command("run")
def run(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Run the whole pipeline in this process (Prefect flow `tritonrl`, no server needed; MLflow tracking).

    suite check → distill → filter → augment → SFT → HRD-GRPO → evaluate → register. Rerunning after an
    interruption reuses every finished stage. Ends with where everything went.
    """
    config, sources = resolve_config(profile, config_file, overrides)
    from tritonrl.stages import pipeline

    console.print("[bold]TritonRL[/bold] resolved configuration:")
    for line in describe(config, sources):
        console.print(f"  {line}", highlight=False)
    pipeline.prepare_environment(config)
    pipeline.local_orchestration_env(config)
    from flows.full import tritonrl_flow

    try:
        result = tritonrl_flow(profile=config.profile, config_file=str(config_file or ""), overrides=list(overrides))
    except (ProblemError, ValueError, RuntimeError, OSError) as exc:
        raise fail(f"{exc}\n(rerun the same command to resume: finished stages are reused)") from exc
    console.print("[bold green]done[/bold green]")
    for line in pipeline.render_result(result):
        console.print(line, highlight=False, markup=False)


@stack_app.command("up")
def stack_up() -> None:
    """Start the stack under $TRITONRL_HOME/stack (or show the one running); prints the URLs and the environment."""
    from tritonrl import stack

    try:
        state = stack.up(on_log=lambda line: console.print(f"  {line}", highlight=False))
    except (stack.StackError, OSError) as exc:
        raise fail(str(exc)) from exc
    typer.echo(f"Prefect UI {state['prefect_ui']}\nMLflow UI  {state['mlflow_url']}\nS3         {state['s3_endpoint_url']} "
               f"(bucket {state['bucket']})\nconfig     {state['config_file']}\nclient environment:")
    typer.echo("\n".join(f"  export {k}={v}" for k, v in stack.environment(state).items()))


@stack_app.command("down")
def stack_down() -> None:
    """Stop every process of the stack."""
    from tritonrl import stack

    typer.echo("stopped" if stack.down() else "no stack recorded under $TRITONRL_HOME/stack")


@stack_app.command("status")
def stack_status() -> None:
    """Each service: up or down, and where. Exit 1 unless all are up."""
    from tritonrl import stack

    rows = stack.status()
    for name, state, where in rows:
        typer.echo(f"{name:12s} {state:5s} {where}")
    if not rows or any(state != "up" for _, state, _ in rows):
        raise typer.Exit(code=1)


@app.command("deploy")
def deploy() -> None:
    """Apply infra/prefect.yaml to the running stack: tritonrl/full, <stage>/cuda, nightly-evaluation/nightly."""
    from tritonrl import stack

    try:
        typer.echo(stack.deploy())
    except stack.StackError as exc:
        raise fail(str(exc)) from exc
