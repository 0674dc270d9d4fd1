import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tritonrl.cli import app
from tritonrl.verify.child import AGAIN_CALLS
from tritonrl.verify.trials import SHAPE_PLANS

from tests.support.paths import REPO

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


@pytest.fixture
def prefect_home(tritonrl_home, monkeypatch):
    """Prefect, imported with the flows, keeps its state under the test's home; the (replaced) flow needs no server."""
    home = tritonrl_home / "prefect"
    home.mkdir(parents=True)
    monkeypatch.setenv("PREFECT_HOME", str(home))
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # set: `run` starts no server of its own


def _pipeline_result(tritonrl_home):
    """What tritonrl_flow returns, in the shape pipeline.render_result reads (the real flow: tests/test_flows.py)."""
    stage = {"line": "2/2 reference checks correct; report file:///r.json", "reused": True}
    return {
        "tracking_uri": f"sqlite:///{tritonrl_home}/mlflow.db",
        "experiment": "tritonrl",
        "parent_run_id": "abc123",
        "artifact_root": str(tritonrl_home / "artifacts"),
        "model": "file:///ckpt/grpo-1",
        "registered": {
            "name": "tritonrl-coder",
            "version": "3",
            "aliases": ["candidate", "champion"],
            "metric": "correct",
            "value": 0.5,
            "champion_value_before": None,
            "reason": "champion: the first model with correct above 0 (0.5)",
        },
        "stages": {"suite-check": stage, "sft": {"line": "2 steps, loss 1.000 → 0.500 → file:///ckpt/sft-1"}},
    }


def test_run_prints_its_config_hands_the_options_to_the_flow_and_prints_where_everything_went(
    tritonrl_home, prefect_home, monkeypatch
):
    calls = []

    def flow(**params):
        calls.append(params)
        return _pipeline_result(tritonrl_home)

    monkeypatch.setattr("flows.full.tritonrl_flow", flow)
    result = runner.invoke(app, ["run", "--profile", "tiny", "--set", "problems.limit=3", "--set", "sft.max_steps=2"])
    assert result.exit_code == 0, result.output
    assert calls == [{"profile": "tiny", "config_file": "", "overrides": ["problems.limit=3", "sft.max_steps=2"]}]
    assert (
        "problems.limit = 3  (override)" in result.output
        and "teacher.samples_per_task = 2  (profile tiny)" in result.output
    )
    assert "suite-check  (reused) 2/2 reference checks correct" in result.output
    assert "sft          2 steps, loss 1.000 → 0.500" in result.output
    assert (
        "registered:   models:/tritonrl-coder@candidate (version 3, aliases candidate, champion; correct = 0.5)"
        in result.output
    )
    assert "promotion:    champion: the first model with correct above 0 (0.5)" in result.output


def test_run_stage_failure_is_exit_2_with_the_resume_hint(prefect_home, monkeypatch):
    from flows.stages import PipelineRunFailed

    def flow(**params):
        raise PipelineRunFailed("stage sft failed (killed)")

    monkeypatch.setattr("flows.full.tritonrl_flow", flow)
    result = runner.invoke(app, ["run", "--profile", "tiny"])
    assert result.exit_code == 2
    assert (
        "error: stage sft failed (killed)\n(rerun the same command to resume: finished stages are reused)"
        in result.output
    )


def test_run_internal_error_is_one_line_naming_the_log_that_holds_its_traceback(
    tritonrl_home, prefect_home, monkeypatch
):
    def flow(**params):
        raise SystemError("AST constructor recursion depth mismatch [before=30]")

    monkeypatch.setattr("flows.full.tritonrl_flow", flow)
    result = runner.invoke(app, ["run", "--profile", "tiny"])
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert (
        len(errors) == 1
        and "internal error, SystemError: AST constructor recursion depth mismatch [before=30]" in errors[0]
    )
    assert "Traceback" not in result.output and "(rerun the same command to resume" in result.output
    log = next((tritonrl_home / "logs").glob("run-*.log"))
    assert str(log) in errors[0]
    assert "Traceback (most recent call last)" in log.read_text() and ", in flow\n" in log.read_text()


def test_run_in_a_home_it_cannot_write_says_to_set_tritonrl_home_before_printing_anything(tmp_path, monkeypatch):
    """A read-only checkout's ./.tritonrl (here: a home below a file, which fails as read-only does, even for root)."""
    blocker = tmp_path / "read-only"
    blocker.write_text("")
    monkeypatch.setenv("TRITONRL_HOME", str(blocker / ".tritonrl"))
    monkeypatch.setattr("flows.full.tritonrl_flow", lambda **params: pytest.fail("the flow started"))
    result = runner.invoke(app, ["run", "--profile", "tiny"])
    assert result.exit_code == 2
    assert (
        result.output.startswith(f"error: cannot write to {blocker / '.tritonrl'}")
        and "set TRITONRL_HOME" in result.output
    )
    assert "resolved configuration" not in result.output and "rerun" not in result.output


def test_the_run_summarys_commands_run_as_printed_and_mlflow_ui_gets_a_free_port(tritonrl_home):
    import shlex
    import shutil
    import socket

    from tritonrl.cli.operations import _render_result
    from tritonrl.problems.loaders import load_builtin

    def printed(lines, label):
        (line,) = [line for line in lines if line.startswith(label)]
        return shlex.split(line[len(label) :], comments=True)  # as a shell reads the pasted line

    lines = _render_result(_pipeline_result(tritonrl_home))
    ui, generate = printed(lines, "MLflow UI:"), printed(lines, "try it:")
    for program, name in ((ui[0], "mlflow"), (generate[0], "tritonrl")):
        assert Path(program).name == name and shutil.which(program), f"{program} does not run as printed"
    assert generate[generate.index("--problem") + 1] in {p.name for p in load_builtin()}  # a problem generate finds
    assert ui[1:4] == ["ui", "--backend-store-uri", f"sqlite:///{tritonrl_home}/mlflow.db"] and ui[4] == "--port"
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 5000))  # as the stack's (or compose's) MLflow server would
        holder.listen()
    except OSError:
        pass  # already held by something else: the same case
    with holder:
        line = next(line for line in _render_result(_pipeline_result(tritonrl_home)) if line.startswith("MLflow UI:"))
        ui = printed([line], "MLflow UI:")
        assert ui[4:6] == ["--port", ui[5]] and ui[5] != "5000" and len(ui) == 6 and line.endswith("  # 5000 is taken")
    server = {**_pipeline_result(tritonrl_home), "tracking_uri": "http://127.0.0.1:5050"}
    assert "MLflow UI:    http://127.0.0.1:5050 (the tracking server's own UI)" in _render_result(server)


def test_help_shows_flags_without_a_value_and_says_what_to_run_first():
    top = runner.invoke(app, ["--help"], env={"COLUMNS": "250"})
    assert "Start here: `tritonrl run --profile tiny`" in top.output and "<bool>" not in top.output
    verify = runner.invoke(app, ["verify", "--help"], env={"COLUMNS": "250"})
    assert "--json" in verify.output and "<bool>" not in verify.output and "<int>" in verify.output
    assert "cpu runs kernels in Triton's interpreter" in verify.output and "tl.dot in fp32" in verify.output
    assert "Cpu runs" not in verify.output and "Tl.dot" not in verify.output


def test_run_bad_override_is_exit_2_before_the_flow_starts(prefect_home, monkeypatch):
    monkeypatch.setattr("flows.full.tritonrl_flow", lambda **params: pytest.fail("the flow started"))
    result = runner.invoke(app, ["run", "--set", "sft.max_step=2"])
    assert result.exit_code == 2 and "unknown key sft.max_step" in result.output


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
    assert data["shapes"] == {"batch_size": 16, "dim": 1024} and data["trials"] == 3 + AGAIN_CALLS + len(SHAPE_PLANS)


def test_verify_and_generate_take_a_built_in_problem_by_name(tmp_path):
    """As the run summary's `tritonrl generate ... --problem 01_relu.py` is pasted, from any directory."""
    response = tmp_path / "answer.txt"
    response.write_text(runner.invoke(app, ["problems", "show", "06_row_sum.py", "--reference"]).output)
    result = runner.invoke(app, ["verify", "--problem", "06_row_sum.py", "--candidate", str(response), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["problem"] == "06_row_sum.py" and json.loads(result.output)["correct"] is True


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
    unknown = runner.invoke(app, ["verify", "--problem", "99_nothing.py", "--candidate", str(problem)])
    assert unknown.exit_code == 2 and "no built-in problem has that name (tritonrl problems list" in unknown.output
    broken = tmp_path / "broken.py"
    broken.write_text("import torch\n")
    bad = runner.invoke(app, ["verify", "--problem", str(broken), "--candidate", str(problem)])
    assert bad.exit_code == 2 and "missing top-level Model" in bad.output
    device = runner.invoke(app, ["verify", "--problem", str(problem), "--candidate", str(problem), "--device", "tpu"])
    assert device.exit_code == 2
    setting = runner.invoke(
        app, ["verify", "--problem", str(problem), "--candidate", str(problem), "--set", "verify.precision=fast"]
    )
    assert setting.exit_code == 2 and "verify.precision='fast' is not one of" in setting.output


@pytest.mark.slow
def test_verify_takes_its_settings_from_the_config_and_flags_on_top(tmp_path):
    problem = _save_problem(tmp_path)
    response = tmp_path / "answer.txt"
    response.write_text(runner.invoke(app, ["problems", "show", "01_relu.py", "--reference"]).output)
    config = tmp_path / "config.yaml"
    config.write_text("verify:\n  trials: 2\n")
    base = ["verify", "--problem", str(problem), "--candidate", str(response), "--json", "--config", str(config)]
    from_file = runner.invoke(app, [*base, "--set", "verify.trials=1"])
    flag = runner.invoke(app, [*base, "--trials", "1"])
    expected = 1 + AGAIN_CALLS + len(SHAPE_PLANS)  # the problem's own inputs, the calls in its tensors, the shape plans
    assert json.loads(from_file.output)["trials"] == expected and json.loads(flag.output)["trials"] == expected


def test_problems_show_names_near_misses():
    result = runner.invoke(app, ["problems", "show", "relu"])
    assert result.exit_code == 2 and "01_relu.py" in result.output


@pytest.mark.slow
def test_verify_comes_back_at_the_limit_it_names_whatever_the_candidate_does(tmp_path):
    """A hung candidate is killed at the limit the verdict names (which grows with the reference's own trial time, so
    with the machine's load); the command returns soon after. The hang guard is far above any such limit."""
    problem = _save_problem(tmp_path)
    candidate = tmp_path / "hung.py"
    candidate.write_text(HUNG_CANDIDATE)
    started = time.monotonic()
    out = subprocess.run(
        [str(TRITONRL), "verify", "--problem", str(problem), "--candidate", str(candidate), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    elapsed = time.monotonic() - started
    assert out.returncode == 0, out.stderr
    (timeout,) = [r["message"] for r in json.loads(out.stdout)["reasons"] if r["code"] == "timeout"]
    limit = float(re.match(r"no verdict within (\d+) s", timeout).group(1))
    assert elapsed < limit + 60, (limit, elapsed)  # start-up, the reference's run, the kill


@pytest.mark.slow
def test_stage_commands_chain_by_printed_uris():
    common = ["--set", "problems.limit=1", "--set", "verify.trials=1", "--set", "augment.variants_per_task=1"]
    distilled = runner.invoke(app, ["distill", *common])
    dataset = json.loads(distilled.stdout[distilled.stdout.index("{") :])["dataset"]
    filtered = runner.invoke(app, ["filter", "--input", dataset, *common])
    assert filtered.exit_code == 0, filtered.output
    accepted = json.loads(filtered.stdout[filtered.stdout.index("{") :])
    assert accepted["acceptance_rate"] == 1.0
    augmented = runner.invoke(app, ["augment", "--input", accepted["accepted"], *common])
    assert augmented.exit_code == 0, augmented.output
    assert json.loads(augmented.stdout[augmented.stdout.index("{") :])["pair_rows"] == 2
    missing = runner.invoke(app, ["augment", "--input", "file:///nope"])
    assert missing.exit_code == 2 and "not a complete dataset" in missing.output
    assert "pass the accepted dataset the filter stage printed (…/filter-accepted-<digest>)" in missing.output


def test_config_keys_describes_every_key_once_and_the_docs_hold_its_table():
    from tritonrl.config import key_help

    keys = key_help()
    assert keys and all(text.strip() for _, text in keys) and len({k for k, _ in keys}) == len(keys)
    listed = runner.invoke(app, ["config", "keys", "sft"])
    assert listed.exit_code == 0 and "sft.max_seq_len" in listed.output and "grpo." not in listed.output
    assert runner.invoke(app, ["config", "keys", "nope"]).exit_code == 2
    table = runner.invoke(app, ["config", "keys", "--markdown"]).output
    assert "| `sft.nproc_per_node` | `1` |  | `8` |" in table  # default, tiny, gpu
    docs = (REPO / "docs" / "CONFIGURATION.md").read_text()
    assert table.strip() in docs, "regenerate the table in docs/CONFIGURATION.md with `tritonrl config keys --markdown`"
    sections = ", ".join(dict.fromkeys(key.split(".")[0] for key, _ in keys))
    assert f"describes every section ({sections}) and key" in " ".join((REPO / "README.md").read_text().split())


def test_problems_list_prints_whole_names_when_piped(tmp_path):
    long_name = "97_" + "Very_long_problem_name_" * 4 + "Relu.py"
    (tmp_path / long_name).write_text(_save_problem(tmp_path).read_text())
    out = subprocess.run(
        [str(TRITONRL), "problems", "list", "--source", str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert long_name in out.stdout  # not cut at 80 columns with an ellipsis


def test_verify_of_a_syntax_error_says_no_trials_were_completed(tmp_path):
    problem = _save_problem(tmp_path)
    broken = tmp_path / "broken.py"
    broken.write_text("```python\nclass ModelNew(:\n```\n")
    result = runner.invoke(app, ["verify", "--problem", str(problem), "--candidate", str(broken)])
    assert result.exit_code == 0 and "[syntax_error]" in result.output
    (trials,) = [line for line in result.output.splitlines() if line.strip().startswith("trials")]
    assert "not completed" in trials and "fresh secret-seeded inputs" not in trials


def test_eval_with_a_registry_uri_that_is_not_registered_is_exit_2_saying_where_it_looked(tritonrl_home):
    result = runner.invoke(app, ["eval", "--model", "models:/tritonrl-coder@champion", "--problems", "builtin"])
    assert result.exit_code == 2
    assert (
        f"no MLflow database at {tritonrl_home / 'mlflow.db'}" in result.output
        and "MLFLOW_TRACKING_URI" in result.output
    )
    assert not (tritonrl_home / "mlflow.db").exists()  # a lookup creates no database


def test_the_cli_imports_under_a_typer_whose_options_print_no_type(monkeypatch):
    """GPU hosts may have another typer than ours: the flag help tweak is skipped there, `tritonrl verify` still runs."""
    from typer.core import TyperOption

    from tritonrl.cli.app import _FlagsTakeNoValue

    for owner in TyperOption.__mro__:
        if "display_type_rich" in vars(owner):
            monkeypatch.delattr(owner, "display_type_rich")
    _FlagsTakeNoValue.install()
    assert not hasattr(TyperOption, "display_type_rich")
