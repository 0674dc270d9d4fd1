import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
    for args in ([], ["problems"], ["problems", "list"], ["config"], ["config", "show"], ["run"], ["sft"]):
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


# The GRPO and evaluation stages at their smallest: the test is about the pipeline's wiring, not its learning.
SMALL_LATE_STAGES = ["grpo.steps=1", "grpo.group_size=2", "grpo.tasks_per_step=1", "grpo.max_new_tokens=64",
                     "evaluate.limit=2", "evaluate.max_tokens=64"]


def test_run_checks_the_suite_then_runs_the_data_stages(tritonrl_home, monkeypatch):
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setenv("PREFECT_HOME", str(tritonrl_home / "prefect"))
    result = runner.invoke(
        app, ["run", "--profile", "tiny", "--set", "verify.trials=1", "--set", "problems.limit=3", "--set", "augment.variants_per_task=2",
             "--set", "sft.max_steps=2", *(a for item in SMALL_LATE_STAGES for a in ("--set", item))]
    )
    assert result.exit_code == 0, result.output
    assert "6/6 reference checks correct" in result.output
    reports = list((tritonrl_home / "artifacts" / "suite-check").glob("*/report.json"))
    assert len(reports) == 1
    report = json.loads(reports[0].read_text())
    assert report["checked"] == 6 and report["correct"] == 6
    assert (reports[0].parent / "config.yaml").is_file()
    assert "6/6 accepted (100%)" in result.output
    datasets = sorted(p.name.rsplit("-", 1)[0] for p in (tritonrl_home / "artifacts" / "datasets").iterdir())
    assert datasets == ["augment-pairs", "augment-tasks", "distill", "filter-accepted", "filter-rejected"]
    assert "2 steps, loss" in result.output
    (sft_output,) = (tritonrl_home / "artifacts" / "checkpoints").glob("sft-*")
    assert (sft_output / "manifest.json").is_file() and (sft_output / "model" / "config.json").is_file()


HUNG_CANDIDATE = """import torch
import torch.nn as nn
import triton
import triton.language as tl

@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
    pass

class ModelNew(nn.Module):
    def forward(self, x):
        while True:
            pass
"""


def _save_problem(tmp_path, name="01_relu.py"):
    result = runner.invoke(app, ["problems", "show", name])
    assert result.exit_code == 0
    path = tmp_path / name
    path.write_text(result.output)
    return path


def test_verify_json_contract_for_a_response_file(tmp_path):
    problem = _save_problem(tmp_path)
    response = tmp_path / "answer.txt"
    response.write_text(runner.invoke(app, ["problems", "show", "01_relu.py", "--reference"]).output)
    result = runner.invoke(app, ["verify", "--problem", str(problem), "--candidate", str(response), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["valid"] is True and data["compiled"] is True and data["correct"] is True
    assert data["speedup"] is None and data["reasons"] == []
    assert data["shapes"] == {"batch_size": 16, "dim": 1024} and data["trials"] == 4


def test_verify_rejection_is_exit_0_and_readable(tmp_path):
    problem = _save_problem(tmp_path)
    candidate = tmp_path / "cheat.py"
    candidate.write_text(HUNG_CANDIDATE.replace("while True:\n            pass", "return torch.relu(x)"))
    result = runner.invoke(app, ["verify", "--problem", str(problem), "--candidate", str(candidate)])
    assert result.exit_code == 0
    assert result.output.startswith("REJECTED: cheat.py for 01_relu.py")
    assert "[traced_torch_compute]" in result.output and "what to do:" in result.output


def test_verify_usage_errors_exit_2(tmp_path):
    problem = _save_problem(tmp_path)
    missing = runner.invoke(app, ["verify", "--problem", str(problem), "--candidate", str(tmp_path / "none.py")])
    assert missing.exit_code == 2 and "candidate file" in missing.output and "does not exist" in missing.output
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\n")
    bad = runner.invoke(app, ["verify", "--problem", str(broken), "--candidate", str(problem)])
    assert bad.exit_code == 2 and "missing top-level Model" in bad.output
    device = runner.invoke(app, ["verify", "--problem", str(problem), "--candidate", str(problem), "--device", "tpu"])
    assert device.exit_code == 2


def test_problems_show_names_near_misses():
    result = runner.invoke(app, ["problems", "show", "relu"])
    assert result.exit_code == 2 and "01_relu.py" in result.output


@pytest.mark.slow
def test_verify_comes_back_within_120_seconds_whatever_the_candidate_does(tmp_path):
    problem = _save_problem(tmp_path)
    candidate = tmp_path / "hung.py"
    candidate.write_text(HUNG_CANDIDATE)
    started = time.monotonic()
    out = subprocess.run(
        [str(TRITONRL), "verify", "--problem", str(problem), "--candidate", str(candidate), "--json"],
        capture_output=True, text=True, timeout=150,
    )
    elapsed = time.monotonic() - started
    assert out.returncode == 0, out.stderr
    assert "timeout" in [r["code"] for r in json.loads(out.stdout)["reasons"]]
    assert elapsed < 120


def test_stage_commands_chain_by_printed_uris():
    common = ["--set", "problems.limit=1", "--set", "verify.trials=1", "--set", "augment.variants_per_task=1"]
    distilled = runner.invoke(app, ["distill", *common])
    dataset = json.loads(distilled.stdout[distilled.stdout.index("{"):])["dataset"]
    filtered = runner.invoke(app, ["filter", "--input", dataset, *common])
    assert filtered.exit_code == 0, filtered.output
    accepted = json.loads(filtered.stdout[filtered.stdout.index("{"):])
    assert accepted["acceptance_rate"] == 1.0
    augmented = runner.invoke(app, ["augment", "--input", accepted["accepted"], *common])
    assert augmented.exit_code == 0, augmented.output
    assert json.loads(augmented.stdout[augmented.stdout.index("{"):])["pair_rows"] == 2
    missing = runner.invoke(app, ["augment", "--input", "file:///nope"])
    assert missing.exit_code == 2 and "not a complete dataset" in missing.output
