import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from tritonrl.cli import app

runner = CliRunner()
TRITONRL = Path(sys.executable).with_name("tritonrl")


def test_console_script_lists_16_plus_builtin_problems_as_json():
    out = subprocess.run([str(TRITONRL), "problems", "list", "--json"], capture_output=True, text=True, check=True)
    problems = json.loads(out.stdout)
    assert len(problems) >= 16
    assert {"name", "category", "shapes", "origin"} <= set(problems[0])


def test_every_command_has_help():
    for args in ([], ["problems"], ["problems", "list"], ["config"], ["config", "show"], ["run"]):
        result = runner.invoke(app, [*args, "--help"])
        assert result.exit_code == 0, args
        assert "Usage" in result.output


def test_bad_source_is_exit_2_with_a_message():
    result = runner.invoke(app, ["problems", "list", "--source", "nowhere"])
    assert result.exit_code == 2
    assert "is not 'builtin'" in result.output


def test_bad_override_is_exit_2_naming_the_key():
    result = runner.invoke(app, ["config", "show", "--set", "verify.trails=3"])
    assert result.exit_code == 2
    assert "unknown key verify.trails" in result.output


def test_config_show_prints_origins():
    result = runner.invoke(app, ["config", "show", "--profile", "gpu", "--set", "verify.trials=2"])
    assert result.exit_code == 0
    assert "student.base_model = 'Qwen/Qwen3-8B'  (profile gpu)" in result.output
    assert "verify.trials = 2  (override)" in result.output


def test_run_checks_the_suite_and_writes_a_report(tritonrl_home):
    result = runner.invoke(app, ["run", "--profile", "tiny", "--set", "verify.trials=1", "--set", "problems.limit=3"])
    assert result.exit_code == 0, result.output
    assert "6/6 reference checks correct" in result.output
    reports = list((tritonrl_home / "artifacts" / "suite-check").glob("*/report.json"))
    assert len(reports) == 1
    report = json.loads(reports[0].read_text())
    assert report["checked"] == 6 and report["correct"] == 6
    assert (reports[0].parent / "config.yaml").is_file()
