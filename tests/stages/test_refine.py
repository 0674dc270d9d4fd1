"""Multi-turn refinement in evaluation: a policy that fixes its kernel once it reads the verifier's feedback.

The policy is a scripted OpenAI-compatible server: to a first prompt it answers the problem's
reference kernel with a wrong reduction or activation, to a conversation holding its earlier answer
the reference itself. So correct@1 = 0 and correct@2 = 1 exactly, and the feedback it is sent in
turn 2 must be the verifier's verdict on turn 1.
"""

import json

import pytest
from typer.testing import CliRunner

from tritonrl.artifacts.store import ArtifactStore
from tritonrl.cli import app
from tritonrl.config import ConfigError, load_config
from tritonrl.evaluation.metrics import compute_metrics, final_answers
from tritonrl.problems.loaders import load_builtin
from tritonrl.stages.evaluate import EvaluationError, evaluate_model, load_responses
from tritonrl.verify.result import Reason, ReasonCode, Verdict

from tests.support.metrics_records import rec
from tests.support.openai_server import Reply, ScriptedServer, chat_body

pytestmark = pytest.mark.xdist_group(__name__)  # one pytest worker builds this module's fixtures

CHOSEN = {"01_relu.py": ("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)"), "06_row_sum.py": ("tl.sum(", "tl.max(")}
VERIFY = ["--trials", "1", "--timeout", "30", "--workers", "2"]


@pytest.fixture(scope="module")
def problems(tmp_path_factory):
    """A directory with the two problems; {name: (Problem, broken answer)}."""
    folder = tmp_path_factory.mktemp("problems")
    chosen = {}
    for problem in load_builtin():
        if problem.name in CHOSEN:
            good, bad = CHOSEN[problem.name]
            broken = problem.reference_response.replace(good, bad)
            assert broken != problem.reference_response
            (folder / problem.name).write_text(problem.source)
            chosen[problem.name] = (problem, broken)
    return folder, chosen


@pytest.fixture(scope="module")
def policy(problems):
    """The scripted server: broken first, fixed after feedback (an assistant message in the request)."""
    _, chosen = problems

    def script(i):
        messages = server.requests[i].body["messages"]
        problem, broken = next(v for v in chosen.values() if v[0].source.strip() in messages[1]["content"])
        fixed = any(m["role"] == "assistant" for m in messages)
        return Reply(body=chat_body(problem.reference_response if fixed else broken), delay_s=0.3)  # so prompts overlap

    server = ScriptedServer(script)
    yield server
    server.close()


def _eval(*args):
    result = CliRunner().invoke(app, ["eval", *args, "--json", *VERIFY])
    assert result.exit_code == 0, result.output
    return json.loads(result.output[result.output.index("{") :])


@pytest.fixture(scope="module")
def two_turns(problems, policy, tmp_path_factory):
    """`tritonrl eval --endpoint … --turns 2`: (its JSON, the report directory, the requests the policy got)."""
    out = tmp_path_factory.mktemp("refined")
    first = len(policy.requests)
    data = _eval(
        "--problems",
        str(problems[0]),
        "--endpoint",
        policy.endpoint,
        "--served-model",
        "policy",
        "--turns",
        "2",
        "--out",
        str(out),
    )
    return data, out, policy.requests[first:]


@pytest.mark.slow
def test_feedback_makes_every_answer_correct_in_the_second_turn(two_turns):
    data, out, _ = two_turns
    turns = data["turns"]
    assert turns["correct"] == {"1": 0.0, "2": 1.0}
    assert turns["fast_1"] == {"1": 0.0, "2": 0.0}  # CPU: nothing is timed
    assert turns["answered"] == {"1": 2, "2": 2}
    assert data["overall"]["correct"] == 1.0 and data["overall"]["samples"] == 2  # each sample's best answer
    markdown = (out / "report.md").read_text()
    assert "**Refinement turns:**" in markdown and "| 2 | 2 | 100.0% | 0.0% |" in markdown
    assert (out / "turns.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_responses_keep_every_turn_with_the_verifiers_feedback(two_turns, problems, policy):
    _, out, requests = two_turns
    lines = [json.loads(line) for line in (out / "responses.jsonl").read_text().splitlines()]
    assert sorted((a["problem"], a["sample"], a["turn"]) for a in lines) == [
        ("01_relu.py", 0, 1),
        ("01_relu.py", 0, 2),
        ("06_row_sum.py", 0, 1),
        ("06_row_sum.py", 0, 2),
    ]
    assert len(requests) == 4
    assert policy.max_in_flight == 2  # a turn's prompts are in flight together, not one at a time
    for answer in (a for a in lines if a["turn"] == 2):
        asked = next(
            r.body["messages"]
            for r in requests
            if len(r.body["messages"]) == 4
            and problems[1][answer["problem"]][0].source.strip() in r.body["messages"][1]["content"]
        )
        # The conversation: the prompt, the broken answer, the verifier's feedback on it, which the line keeps.
        assert [m["role"] for m in asked] == ["system", "user", "assistant", "user"]
        assert asked[2]["content"] == problems[1][answer["problem"]][1]
        assert asked[3]["content"] == answer["feedback"]
        assert "[wrong_result]" in answer["feedback"]  # turn 1's verdict: the reduction/activation is wrong


@pytest.mark.slow
def test_a_multi_turn_file_is_re_verified_without_generating(two_turns, policy):
    data, out, _ = two_turns
    asked = len(policy.requests)
    again = _eval("--problems", "builtin", "--responses", str(out / "responses.jsonl"))
    assert again["turns"] == data["turns"] and again["overall"]["correct"] == 1.0
    first_turn = _eval("--problems", "builtin", "--responses", str(out / "responses.jsonl"), "--turns", "1")
    assert "turns" not in first_turn and first_turn["overall"]["correct"] == 0.0
    assert len(policy.requests) == asked


@pytest.mark.slow
def test_one_turn_is_the_single_turn_evaluation(problems, policy, tmp_path):
    first = len(policy.requests)
    data = _eval(
        "--problems",
        str(problems[0]),
        "--endpoint",
        policy.endpoint,
        "--served-model",
        "policy",
        "--out",
        str(tmp_path),
    )
    assert len(policy.requests) - first == 2 and all(len(r.body["messages"]) == 2 for r in policy.requests[first:])
    assert "turns" not in data and data["overall"]["correct"] == 0.0 and data["overall"]["samples"] == 2
    assert not (tmp_path / "turns.png").exists()


@pytest.mark.slow
def test_the_pipelines_evaluation_refines_for_evaluate_turns():
    """The evaluate stage with the untrained tiny model: nothing is correct, so every conversation takes both turns."""
    config, _ = load_config(
        "tiny", None, ["verify.trials=1", "evaluate.limit=2", "evaluate.max_tokens=8", "evaluate.turns=2"]
    )
    summary = evaluate_model(config, "tiny-local", on_log=lambda line: None)
    assert summary.metrics["turns"] == {
        "correct": {"1": 0.0, "2": 0.0},
        "fast_1": {"1": 0.0, "2": 0.0},
        "answered": {"1": 2, "2": 2},
    }
    responses = ArtifactStore().read_text(summary.outputs["report"].replace("report.json", "responses.jsonl"))
    lines = [json.loads(line) for line in responses.splitlines()]
    assert [(a["sample"], a["turn"]) for a in lines] == [(0, 1), (0, 2), (0, 1), (0, 2)]
    assert all(a["feedback"].startswith("The verifier rejected your answer:") for a in lines if a["turn"] == 2)


def test_best_answer_so_far_and_per_turn_shares():
    records = [
        {**rec("p", 0, correct=True, speedup=1.5), "turn": 1},
        {**rec("p", 0, reasons=["wrong_result"]), "turn": 2},  # worse than turn 1: the best stays turn 1's
        {**rec("p", 1, reasons=["compile_error"]), "turn": 1},
        {**rec("p", 1, correct=True, speedup=0.5), "turn": 2},
        {**rec("p", 1, correct=True, speedup=2.0), "turn": 3},
        {**rec("q", 0, reasons=["compile_error"]), "turn": 1},
        {**rec("q", 0, reasons=["wrong_result"]), "turn": 2},  # never correct: ends with its last answer
    ]
    assert [(r["problem"], r["sample"], r["turn"]) for r in final_answers(records)] == [
        ("p", 0, 1),
        ("p", 1, 3),
        ("q", 0, 2),
    ]
    metrics = compute_metrics(records, turns=4)
    assert metrics["turns"] == {
        "correct": {"1": 1 / 3, "2": 2 / 3, "3": 2 / 3, "4": 2 / 3},
        "fast_1": {"1": 1 / 3, "2": 1 / 3, "3": 2 / 3, "4": 2 / 3},
        "answered": {"1": 3, "2": 3, "3": 1, "4": 0},
    }
    assert metrics["overall"]["samples"] == 3 and metrics["overall"]["correct"] == pytest.approx(2 / 3)
    assert "turns" not in compute_metrics([r for r in records if r["turn"] == 1])
    with pytest.raises(ValueError, match="answers up to turn 3"):
        compute_metrics(records, turns=2)


def test_a_conversation_stops_when_correct_and_fast_enough():
    def verdict(correct, speedup):
        reasons = [] if correct else [Reason(ReasonCode.WRONG_RESULT, "output 0 differs")]
        return Verdict(reasons=reasons, ran=True, matches_reference=correct, speedup=speedup)

    assert verdict(True, None).done(1.0)  # CPU: correct is enough
    assert verdict(True, 1.2).done(1.0) and not verdict(True, 0.8).done(1.0)
    assert not verdict(False, None).done(1.0)


def test_a_later_turn_needs_its_sample_and_the_turn_before(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"problem": "01_relu.py", "response": "x"}\n{"problem": "01_relu.py", "response": "y", "turn": 2}\n'
    )
    with pytest.raises(
        EvaluationError, match=r"r.jsonl:2: \"sample\" must be an integer >= 0, got None \(a later turn"
    ):
        load_responses(path)
    path.write_text(
        '{"problem": "01_relu.py", "response": "x"}\n'
        '{"problem": "01_relu.py", "response": "y", "sample": 1, "turn": 2}\n'
    )
    with pytest.raises(EvaluationError, match=r"r.jsonl:2: turn 2 of 01_relu.py sample 1 comes before its turn 1"):
        load_responses(path)
    path.write_text(
        '{"problem": "01_relu.py", "response": "x"}\n{"problem": "01_relu.py", "response": "y"}\n'
        '{"problem": "01_relu.py", "response": "z", "sample": 1, "turn": 2}\n'
    )
    assert [(a["sample"], a["turn"]) for a in load_responses(path)] == [(0, 1), (1, 1), (1, 2)]
    assert [(a["sample"], a["turn"]) for a in load_responses(path, turns=1)] == [(0, 1), (1, 1)]


def test_turns_below_one_is_refused_before_anything_is_asked():
    result = CliRunner().invoke(
        app,
        [
            "eval",
            "--problems",
            "builtin",
            "--endpoint",
            "http://127.0.0.1:9/v1",
            "--served-model",
            "policy",
            "--turns",
            "0",
        ],
    )
    assert (
        result.exit_code == 2 and "evaluate.turns=0 must be >= 1" in result.output and "(from --turns)" in result.output
    )
    with pytest.raises(ConfigError, match=r"evaluate.turns=0 must be >= 1"):
        load_config("tiny", None, ["evaluate.turns=0"])
