"""The Typer app, its shared options and the few helpers every command uses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from typer.core import TyperGroup

from tritonrl.artifacts.storage_errors import storage_error
from tritonrl.config import Config, ConfigError, key_help, load_config

console = Console(stderr=True, soft_wrap=True)

ProfileOption = typer.Option(None, "--profile", "-p", help="Named profile: tiny (CPU) or gpu.")
ConfigFileOption = typer.Option(None, "--config", "-c", help="YAML file with config sections.")
SetOption = typer.Option([], "--set", "-s", help="Override, e.g. --set teacher.samples_per_task=4 (repeatable).")


def fail(message: str) -> typer.Exit:
    """Print `message` as the error and return the exit (code 2) to raise."""
    console.print(f"[red]error:[/red] {message}")
    return typer.Exit(code=2)


class _StorageFailuresAsErrors(TyperGroup):
    """Every command's storage failure, ours or boto3's inside MLflow, ends as `fail`'s one line, not a traceback."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except Exception as exc:
            error = storage_error(exc)
            if error is None:
                raise
            raise fail(str(error)) from exc


class _FlagsTakeNoValue:
    """typer 0.29 prints a type beside every option, a flag's too (`--json <bool>`, even `--help <bool>`), which reads as
    if the flag wanted a value: our commands' flags show none. Installed on typer's option class, for our app only;
    a typer without that method (an older one, as GPU hosts may have) prints no such type and is left alone."""

    @staticmethod
    def install() -> None:
        from typer.core import TyperOption

        shown = getattr(TyperOption, "display_type_rich", None)
        if shown is None or getattr(shown, "flags_take_no_value", False):
            return

        def display_type_rich(self, ctx):
            ours = isinstance(ctx.find_root().command, _StorageFailuresAsErrors)
            return None if ours and self.is_flag else shown(self, ctx)

        display_type_rich.flags_take_no_value = True
        TyperOption.display_type_rich = display_type_rich


_FlagsTakeNoValue.install()

APP_HELP = (
    "TritonRL: train and evaluate LLMs that write Triton kernels.\n\n"
    "Start here: `tritonrl run --profile tiny` runs the whole pipeline on the built-in problems on CPU (about 10 "
    "minutes on 2 cores, a few more the first time) and ends with the registered model and the commands that use it, "
    "e.g. `tritonrl generate --model models:/tritonrl-coder@champion --problem 01_relu.py`.\n\n"
    "`tritonrl problems list` shows the problems; `tritonrl verify` judges one kernel, `tritonrl eval` a model; "
    "`tritonrl config keys` describes every setting."
)

app = typer.Typer(help=APP_HELP, no_args_is_help=True, cls=_StorageFailuresAsErrors)


def resolve_config(
    profile: Optional[str], config_file: Optional[Path], overrides: list[str]
) -> tuple[Config, dict[str, str]]:
    try:
        return load_config(profile, config_file, overrides)
    except ConfigError as exc:
        raise fail(str(exc)) from exc


def stage_config(profile: Optional[str], config_file: Optional[Path], overrides: list[str]) -> Config:
    """The resolved config, the process set up for it as for a stage (tritonrl.stages.pipeline.prepare_environment)."""
    from tritonrl.stages.pipeline import prepare_environment

    config, _ = resolve_config(profile, config_file, overrides)
    prepare_environment(config)
    return config


def print_json(data: dict) -> None:
    typer.echo(json.dumps(data, indent=2, default=str))


def keys_help(section: str) -> str:
    """A section's keys with their descriptions, as a block `--help` prints line by line."""
    return "\n".join(f"{key}: {text}" for key, text in key_help(section))


def library_logs_to_stderr() -> None:
    """DeepSpeed (imported by accelerate when installed) logs to stdout, which --json reserves for the result.

    Its logger takes `sys.stdout` when deepspeed is imported, and the import
    itself already logs, so the import runs with stdout pointed at stderr.
    """
    import contextlib
    import logging
    import sys

    with contextlib.redirect_stdout(sys.stderr):
        try:
            import deepspeed  # noqa: F401
        except ImportError:
            return
    for handler in logging.getLogger("DeepSpeed").handlers:
        if isinstance(handler, logging.StreamHandler):
            handler.stream = sys.stderr  # not setStream: it flushes the old stream, which may be closed
