"""What is there to work on and with: `tritonrl problems ...` and `tritonrl config ...`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Column, Table

from tritonrl.cli.app import ConfigFileOption, ProfileOption, SetOption, app, fail, resolve_config
from tritonrl.config import PROFILES, Config, ConfigError, describe, key_help, load_config
from tritonrl.problems import ProblemError, load_problems

problems_app = typer.Typer(help="Inspect problem sets.", no_args_is_help=True)
config_app = typer.Typer(help="Inspect the resolved configuration.", no_args_is_help=True)
app.add_typer(problems_app, name="problems")
app.add_typer(config_app, name="config")

SourceOption = typer.Option(
    "builtin", help="builtin, a directory, a .py/.jsonl file, a hub id, or kernelbook:<id|file>."
)


@config_app.command("show")
def config_show(
    profile: Optional[str] = ProfileOption,
    config_file: Optional[Path] = ConfigFileOption,
    overrides: list[str] = SetOption,
) -> None:
    """Print every setting with where it came from (default, profile, file, override)."""
    config, sources = resolve_config(profile, config_file, overrides)
    typer.echo("\n".join(describe(config, sources)))


@config_app.command("keys")
def config_keys(
    section: Optional[str] = typer.Argument(None, help="Only this section's keys, e.g. sft."),
    markdown: bool = typer.Option(False, "--markdown", help="Print a Markdown table (docs/CONFIGURATION.md holds it)."),
) -> None:
    """Describe every config key (or one section's): what it does and what its values mean."""
    try:
        keys = key_help(section)
    except ConfigError as exc:
        raise fail(str(exc)) from exc
    if markdown:
        typer.echo(_markdown_table(keys))
        return
    width = max(len(key) for key, _ in keys)
    typer.echo("\n".join(f"{key:{width}s}  {text}" for key, text in keys))


def _markdown_table(keys: list[tuple[str, str]]) -> str:
    """Key, default, the profiles' values where they differ from it, description."""
    defaults = Config().settings()
    profiles = {name: load_config(name)[0].settings() for name in PROFILES}
    rows = ["| key | default | " + " | ".join(PROFILES) + " | what it does |", "|---" * (3 + len(PROFILES)) + "|"]
    for key, text in keys:
        changed = [f"`{values[key]!r}`" if values[key] != defaults[key] else "" for values in profiles.values()]
        cells = [f"`{key}`", f"`{defaults[key]!r}`", *changed, text.replace("|", "&#124;")]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


@problems_app.command("list")
def problems_list(
    source: str = SourceOption,
    level: list[int] = typer.Option([], help="Keep only these KernelBench levels (repeatable)."),
    limit: int = typer.Option(0, help="Keep only the first N problems (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list instead of a table."),
) -> None:
    """List the problems of a source."""
    try:
        problems = load_problems(source, level, limit)
    except ProblemError as exc:
        raise fail(str(exc)) from exc
    if as_json:
        typer.echo(json.dumps([p.summary() for p in problems], indent=2))
        return
    table = Table(Column("name", overflow="fold"), "level", "category", Column("shapes", overflow="fold"), "reference")
    for p in problems:
        shapes = ", ".join(f"{k}={v}" for k, v in p.shapes.items())
        table.add_row(p.name, str(p.level or ""), p.category or "", shapes, "yes" if p.reference_response else "")
    out = Console()
    if not out.is_terminal:  # piped or redirected: the whole table, however wide, for grep and files
        out.width = 10_000
    out.print(table)


@problems_app.command("show")
def problems_show(
    name: str = typer.Argument(..., help="The problem's name, e.g. 19_ReLU.py."),
    source: str = SourceOption,
    reference: bool = typer.Option(
        False, "--reference", help="Print the problem's reference answer instead of its source."
    ),
) -> None:
    """Print one problem's source (e.g. to save it as a file for `tritonrl verify`)."""
    try:
        problems = {p.name: p for p in load_problems(source)}
    except ProblemError as exc:
        raise fail(str(exc)) from exc
    if name not in problems:
        close = [n for n in problems if name.lower().split(".")[0] in n.lower()][:5]
        raise fail(f"no problem named {name!r} in {source}" + (f"; did you mean {close}?" if close else ""))
    problem = problems[name]
    if reference and problem.reference_response is None:
        raise fail(f"{name} has no reference answer in {source}")
    typer.echo(problem.reference_response if reference else problem.source, nl=False)
