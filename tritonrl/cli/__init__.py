"""The `tritonrl` command line.

Every command takes the same config options (`--profile`, `--config FILE`,
`--set section.key=value`) and fails fast with exit 2 and a readable message
on bad input, and on any storage failure (the app's group in app.py turns S3
errors raised under a command, MLflow's included, into one line);
`tritonrl --help` lists the commands. One module per group:
app (the app and shared options), catalog (problems, config), judging
(verify, eval, generate), stage_commands (one per stage), operations (run,
stack, deploy).

Test: tests/test_cli.py, tests/test_cli_storage.py.
"""

from tritonrl.cli import catalog, judging, operations, stage_commands  # noqa: F401  (they register the commands)
from tritonrl.cli.app import app


def main() -> None:
    app()
