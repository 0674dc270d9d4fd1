"""The evaluate stage on CPU: metrics a hand count confirms, readable reports, clear errors."""

import json
import re

import pytest
from typer.testing import CliRunner

from tritonrl.cli import app
from tritonrl.problems.loaders import load_builtin
from tritonrl.stages.evaluate import EvaluationError, load_responses, run
from tritonrl.verify.verifier import VerifierSettings

pytestmark = pytest.mark.xdist_group(__name__)  # one pytest worker builds this module's fixtures

SETTINGS = VerifierSettings(trials=1, timeout_s=30)


@pytest.fixture(scope="module")
def responses_file(tmp_path_factory):
    builtin = {p.name: p for p in load_builtin()}
    relu, row_sum = builtin["01_relu.py"].reference_response, builtin["06_row_sum.py"].reference_response
    cheat = relu.replace("tl.maximum(x, 0.0)", "x").replace(
        "        return out\n```", "        return torch.relu(out)\n```"
    )
    wrong = row_sum.replace("tl.sum(", "tl.max(")
    assert cheat != relu and wrong != row_sum
    rows = [
        ("01_relu.py", relu),  # correct
        ("01_relu.py", cheat),  # outputs match, but PyTorch did the ReLU: naive-correct only
        ("01_relu.py", "I could not do it."),  # no code
        ("06_row_sum.py", row_sum),  # correct
        ("06_row_sum.py", row_sum),  # correct
        ("06_row_sum.py", wrong),  # valid, compiled, wrong
    ]
    path = tmp_path_factory.mktemp("eval") / "responses.jsonl"
    path.write_text("".join(json.dumps({"problem": p, "response": r}) + "\n" for p, r in rows))
    return path


@pytest.fixture(scope="module")
def evaluation(responses_file, tmp_path_factory):
    """`tritonrl eval --json` on the responses: (its JSON, the report directory). No --problems: evaluate.problems's
    default, the built-in suite."""
    out = tmp_path_factory.mktemp("report")
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--responses",
            str(responses_file),
            "--out",
            str(out),
            "--json",
            "--trials",
            "1",
            "--timeout",
            "30",
            "--workers",
            "2",
        ],
    )
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{") :]), out


def test_metrics_match_a_hand_count(evaluation):
    overall = evaluation[0]["overall"]
    assert (overall["problems"], overall["samples"]) == (2, 6)
    assert overall["valid"] == pytest.approx(4 / 6)  # 3 correct + the wrong row sum
    assert overall["compiled"] == pytest.approx(5 / 6)  # everything but the no-code answer
    assert overall["correct"] == pytest.approx(3 / 6)
    assert overall["naive_correct"] == pytest.approx(4 / 6)  # the torch.relu cheat fools a naive harness
    assert overall["robust_vs_naive_gap"] == pytest.approx(1 / 6)
    # pass@k per problem (n=3): relu c=1 -> 1/3, 2/3, 1; row_sum c=2 -> 2/3, 1, 1
    assert overall["pass_at_k"] == pytest.approx({"1": 0.5, "2": 5 / 6, "3": 1.0})
    assert overall["fast_1"] == 0.0 and overall["mean_speedup"] is None  # no timing on CPU


def test_per_problem_details_and_report_files(evaluation):
    result, out = evaluation
    rows = {row["problem"]: row for row in result["per_problem"]}
    assert rows["01_relu.py"]["correct"] == 1 and rows["06_row_sum.py"]["correct"] == 2
    assert [v["correct"] for v in rows["01_relu.py"]["verdicts"]] == [True, False, False]
    assert "forbidden_torch_op" in [r["code"] for r in rows["01_relu.py"]["verdicts"][1]["reasons"]]
    markdown = (out / "report.md").read_text()
    assert "| all | 2 | 6 | 66.7% | 83.3% | 50.0% | 66.7% |" in markdown
    assert json.loads((out / "report.json").read_text())["metrics"]["overall"]["samples"] == 6
    assert result["report"]["json"] == str(out / "report.json")  # the JSON says where the report went
    for png in ("speedup_hist.png", "per_level.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_kernelbench_problem_by_name(tmp_path, kernelbench_dir):
    relu = next(p for p in load_builtin() if p.name == "01_relu.py").reference_response
    responses = tmp_path / "r.jsonl"
    responses.write_text(json.dumps({"problem": "19_ReLU.py", "response": relu}) + "\n")
    result = run(str(kernelbench_dir / "level_1.jsonl"), responses, SETTINGS, workers=1)
    assert result["metrics"]["per_level"]["1"]["correct"] == 1.0


def test_bad_responses_are_named(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"problem": "01_relu.py", "response": "x"}\n{oops\n')
    with pytest.raises(EvaluationError, match=r"r.jsonl:2: not valid JSON"):
        load_responses(path)
    path.write_text('{"problem": "01_relu.py"}\n')
    with pytest.raises(EvaluationError, match=r"r.jsonl:1: each line must be"):
        load_responses(path)
    path.write_text('{"problem": "99_nope.py", "response": "x"}\n')
    with pytest.raises(EvaluationError, match=r"not in builtin: \['99_nope.py'\]"):
        run("builtin", path, SETTINGS)


def test_cli_eval_json(evaluation):
    data = evaluation[0]
    assert data["overall"]["correct"] == pytest.approx(0.5)
    assert set(data["per_level"]) == {"none"} and len(data["per_problem"]) == 2
    missing = CliRunner().invoke(app, ["eval", "--problems", "builtin", "--responses", "/no/such.jsonl"])
    assert missing.exit_code == 2 and "does not exist" in missing.output


@pytest.mark.slow
def test_eval_generates_responses_with_a_model_then_verifies_them(tmp_path, tritonrl_home):
    """The real command in its own process, as a user runs it, on a directory of two problems: stdout must be one JSON object."""
    import os
    import subprocess
    import sys

    problems = tmp_path / "problems"
    problems.mkdir()
    chosen = [p for p in load_builtin() if p.name in ("01_relu.py", "06_row_sum.py")]
    for problem in chosen:
        (problems / problem.name).write_text(problem.source)
    out = tmp_path / "eval"
    command = [
        sys.executable,
        "-m",
        "tritonrl.cli",
        "eval",
        "--problems",
        str(problems),
        "--model",
        "tiny-local",
        "--max-tokens",
        "8",
        "--out",
        str(out),
        "--trials",
        "1",
        "--json",
    ]
    with open(tmp_path / "stderr.txt", "w") as stderr:  # `2> file`: no terminal, and still a line per step
        done = subprocess.run(
            command,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            timeout=600,
            env={**os.environ, "TRITONRL_HOME": str(tritonrl_home)},
        )
    log = (tmp_path / "stderr.txt").read_text()
    assert done.returncode == 0, log[-2000:]
    generating = [line for line in log.splitlines() if line.startswith("generating with hf:")]
    verifying = [line for line in log.splitlines() if line.startswith("verifying: ")]
    assert [line.split(" (")[0].split(", ")[0].rsplit(": ", 1)[1] for line in generating] == [
        "0/2 prompts answered",
        "2/2 prompts answered",
    ], log  # one batch of both prompts
    assert "01_relu.py … 06_row_sum.py, 2 in one batch" in generating[1] and re.search(
        r", \d+s, [\d.]+s each$", generating[1]
    )
    assert [line.split(" (")[0].split(",")[0] for line in verifying] == [
        "verifying: 0/2 answers verified",
        "verifying: 1/2 answers verified",
        "verifying: 2/2 answers verified",
    ], log
    assert re.search(r"\(0[16]_\w+\.py: not correct\), \d+s, [\d.]+s each, ~\d+s left$", verifying[1]), verifying
    rows = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    assert len(rows) == 2 and {row["problem"] for row in rows} == {p.name for p in chosen}
    assert all(row["model"].startswith("hf:") and row["error"] is None for row in rows)
    metrics = json.loads(done.stdout)
    assert metrics["overall"]["samples"] == 2
    assert metrics["overall"]["correct"] == 0.0  # an untrained model writes no kernels


def test_eval_needs_exactly_one_source_of_responses(responses_file):
    runner = CliRunner()
    both = runner.invoke(
        app, ["eval", "--problems", "builtin", "--responses", str(responses_file), "--model", "tiny-local"]
    )
    neither = runner.invoke(app, ["eval", "--problems", "builtin"])
    for result in (both, neither):
        assert result.exit_code == 2 and "exactly one of --responses" in result.output
    bad_endpoint = runner.invoke(app, ["eval", "--problems", "builtin", "--endpoint", "localhost:8000"])
    assert bad_endpoint.exit_code == 2 and "not an http(s) URL" in bad_endpoint.output


def test_at_held_out_shapes_the_final_model_is_also_evaluated_at_the_problems_own_shapes():
    """A model can learn the held-out shapes and fail a problem as its source defines it: the stage asks both."""
    from tritonrl.config import load_config
    from tritonrl.stages.evaluate import _evaluations

    config, _ = load_config(
        "tiny", None, ["verify.trials=1", "evaluate.limit=2", "evaluate.max_tokens=4", "evaluate.compare=[]"]
    )
    asked = _evaluations(config, "tiny-local", None)
    assert list(asked) == ["", "original_shapes"]
    own = load_builtin()[:2]
    assert [p.source for p in asked["original_shapes"][1]] == [p.source for p in own]
    assert all(held.source != p.source for held, p in zip(asked[""][1], own))  # held-out: other shapes
    original, _ = load_config("tiny", None, ["evaluate.shapes=original", "evaluate.limit=2"])
    assert list(_evaluations(original, "tiny-local", {"base": "tiny-local"})) == ["base", ""]  # nothing twice


@pytest.mark.slow
def test_the_evaluate_stage_reports_both_evaluations_in_its_summary_and_its_report():
    from tritonrl.artifacts.store import ArtifactStore
    from tritonrl.config import load_config
    from tritonrl.stages.evaluate import evaluate_model

    config, _ = load_config(
        "tiny", None, ["verify.trials=1", "evaluate.limit=2", "evaluate.max_tokens=4", "evaluate.compare=[]"]
    )
    lines = []
    summary = evaluate_model(config, "tiny-local", on_log=lines.append)
    assert summary.metrics["original_shapes"]["samples"] == 2 and summary.metrics["original_shapes"]["correct"] == 0.0
    assert summary.line.startswith("at held-out shapes: correct 0% of 2 answers")
    assert summary.line.endswith("; at the problems' own shapes: correct 0% of 2 answers")
    assert any(line.startswith("evaluate at original shapes: 2/2 problems answered") for line in lines), lines
    store = ArtifactStore()
    main = store.read_text(summary.outputs["report"].replace("report.json", "report.md"))
    own_report = summary.outputs["report.original_shapes"]
    assert own_report != summary.outputs["report"] and store.exists(own_report)
    section = main.index("## The same model at the problems' own shapes")
    assert section < main.index("## Per problem") and own_report.replace("report.json", "report.md") in main
    assert "| all | 2 | 2 |" in main[section:]
    assert json.loads(store.read_text(summary.outputs["report"]))["original_shapes"]["samples"] == 2
