"""The optional LLM judge against a real local server speaking the chat-completions protocol: alone, inside the
verifier, and from the config keys through `tritonrl verify`."""

import json

import pytest
from typer.testing import CliRunner

from tritonrl.cli import app
from tritonrl.config import load_config, state_dir
from tritonrl.verify.judge import PROMPT, Judge
from tritonrl.verify.report import render_verdict
from tritonrl.verify.response import parse_response
from tritonrl.verify.result import ReasonCode
from tritonrl.verify.verifier import Verifier, VerifierSettings

from tests.support.openai_server import Drop, Reply, ScriptedServer, chat_body

UNREACHABLE = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
FAIL = "The kernel only handles the first block.\nVERDICT: FAIL: skips all but the first block"


@pytest.fixture
def chat_server():
    """A scripted judge: it answers state["answer"], or does state["action"] (a Reply or Drop) when one is set."""
    state = {"answer": "VERDICT: PASS", "action": None, "requests": []}

    def script(index):
        seen = server.requests[index]
        state["requests"].append({"path": seen.path, "auth": seen.headers.get("authorization"), "body": seen.body})
        return state["action"] or Reply(body=chat_body(state["answer"]))

    server = ScriptedServer(script)
    state["url"] = server.endpoint
    yield state
    server.close()


def test_fail_verdict_rejects_and_is_cached(chat_server, tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "k-123")
    judge = Judge(chat_server["url"], "judge-model", tmp_path / "cache", api_key_env="JUDGE_KEY")
    chat_server["answer"] = FAIL
    review = judge.review("problem source", "candidate code")
    assert (review.outcome, review.reason) == ("fail", "skips all but the first block")
    assert (
        review.rejection.code is ReasonCode.JUDGE_REJECTED
        and "skips all but the first block" in review.rejection.message
    )
    assert chat_server["requests"][0]["path"] == "/v1/chat/completions"
    assert chat_server["requests"][0]["auth"] == "Bearer k-123"
    assert "candidate code" in chat_server["requests"][0]["body"]["messages"][0]["content"]
    chat_server["answer"] = "VERDICT: PASS"
    assert judge.review("problem source", "candidate code").outcome == "fail"  # from cache
    assert len(chat_server["requests"]) == 1


def test_a_pass_rejects_nothing_and_an_answer_without_verdict_is_an_error(chat_server, tmp_path):
    judge = Judge(chat_server["url"], "judge-model", tmp_path / "cache")
    passed = judge.review("p", "c1")
    assert (passed.outcome, passed.rejection) == ("pass", None)
    chat_server["answer"] = "I am not sure."
    unsure = judge.review("p", "c2")
    assert unsure.outcome == "error" and unsure.rejection is None
    assert "no VERDICT line" in unsure.reason and "I am not sure." in unsure.reason


@pytest.mark.parametrize(
    ("action", "says"),
    [
        (Reply(status=500, body={"error": "overloaded"}), "did not answer: HTTP Error 500"),
        (Drop(), "did not answer"),
        (Reply(body=b"<html>gateway</html>"), "something other than a chat completion: b'<html>gateway</html>'"),
        (Reply(body={"choices": []}), "something other than a chat completion"),
        (Reply(body=chat_body(None)), "a chat completion without answer text"),
    ],
    ids=["http-500", "dropped", "not-json", "no-choices", "no-content"],
)
def test_a_judge_without_a_usable_reply_rejects_nothing_says_why_and_is_asked_again(
    chat_server, tmp_path, action, says
):
    chat_server["action"] = action
    judge = Judge(chat_server["url"], "judge-model", tmp_path / "cache", timeout_s=5)
    review = judge.review("p", "c")
    assert review.outcome == "error" and review.rejection is None
    assert says in review.reason and chat_server["url"] in review.reason
    chat_server["action"] = None
    assert judge.review("p", "c").outcome == "pass"  # nothing was cached


def test_an_unreachable_judge_rejects_nothing_and_says_why(tmp_path):
    review = Judge(UNREACHABLE, "judge-model", tmp_path / "cache", timeout_s=2).review("p", "c")
    assert review.outcome == "error" and review.rejection is None
    assert review.reason.startswith(f"the judge at {UNREACHABLE} did not answer: ")


def test_the_prompt_asks_after_the_cheats_tests_miss():
    for cheat in (
        "an ignored parameter or argument",
        "a hard-coded constant where the problem has a parameter",
        "`if x.is_cuda:`",
        "computation outside Triton",
        "right only at particular shapes or values",
    ):
        assert cheat in PROMPT
    assert "VERDICT: FAIL: <one-sentence reason>" in PROMPT.splitlines()[-1]


def test_the_verdict_carries_the_judges_outcome(chat_server, tmp_path, builtin_problems):
    """An honest answer the judge fails is rejected with the judge's reason; one it passes stays correct; a judge with
    no usable reply rejects nothing and the verdict says why; an answer invalid before the judge is not sent to it."""
    problem = builtin_problems["01_relu.py"]
    honest = parse_response(problem.reference_response).code
    judge = Judge(chat_server["url"], "judge-model", tmp_path / "cache", timeout_s=5)
    with Verifier(VerifierSettings(trials=1, alternate_shapes=False, judge=judge)) as verifier:
        reference = verifier.prepare_reference(problem.source)

        def verdict(variant: str):
            """Each variant differs by a comment, so the judge's cache does not answer for it."""
            return verifier.verify_against(reference, f"{honest}\n# {variant}\n")

        chat_server["answer"] = FAIL
        failed = verdict("fail")
        assert (
            not failed.correct and not failed.valid and failed.matches_reference and failed.codes == ["judge_rejected"]
        )
        assert (failed.judge, failed.judge_reason) == ("fail", "skips all but the first block")
        assert failed.to_dict()["reasons"] == [
            {"code": "judge_rejected", "message": "the LLM judge: skips all but the first block"}
        ]
        chat_server["answer"] = "Every element is computed by the kernel.\nVERDICT: PASS"
        passed = verdict("pass")
        assert passed.correct and (passed.judge, passed.judge_reason) == ("pass", "")
        chat_server["action"] = Reply(body=b"not json")
        unjudged = verdict("malformed")
        assert (
            unjudged.correct
            and unjudged.judge == "error"
            and "something other than a chat completion" in unjudged.judge_reason
        )
        assert "  judge     error, no verdict (advisory, nothing rejected): the judge at" in render_verdict(
            unjudged, "p", "c"
        )
        asked = len(chat_server["requests"])
        cheat = honest.replace("x = x.contiguous()", "return torch.relu(x)")
        invalid = verifier.verify_against(reference, cheat)
        assert not invalid.valid and invalid.judge is None and len(chat_server["requests"]) == asked


def test_the_judge_is_off_by_default():
    for profile in ("tiny", "gpu"):
        verify = load_config(profile)[0].verify
        assert verify.judge_url == "" and VerifierSettings.from_config(verify).judge is None


def test_the_judge_keys_reach_the_verifier_settings_every_stage_uses():
    config, _ = load_config(
        "gpu",
        overrides=[
            "verify.judge_url=http://judge:8000/v1",
            "verify.judge_model=big-judge",
            "verify.judge_api_key_env=MY_JUDGE_KEY",
            "verify.judge_timeout_s=7",
        ],
    )
    assert VerifierSettings.from_config(config.verify).judge == Judge(
        "http://judge:8000/v1", "big-judge", state_dir() / "judge-cache", api_key_env="MY_JUDGE_KEY", timeout_s=7.0
    )


def test_tritonrl_verify_reports_the_judge_configured_by_its_keys(chat_server, tmp_path, monkeypatch):
    runner = CliRunner()
    problem = tmp_path / "01_relu.py"
    problem.write_text(runner.invoke(app, ["problems", "show", "01_relu.py"]).output)
    answer = tmp_path / "answer.txt"
    answer.write_text(runner.invoke(app, ["problems", "show", "01_relu.py", "--reference"]).output)
    monkeypatch.setenv("MY_JUDGE_KEY", "secret-from-env")
    chat_server["answer"] = FAIL
    result = runner.invoke(
        app,
        [
            "verify",
            "--problem",
            str(problem),
            "--candidate",
            str(answer),
            "--json",
            "--trials",
            "1",
            "--set",
            f"verify.judge_url={chat_server['url']}",
            "--set",
            "verify.judge_model=judge-model",
            "--set",
            "verify.judge_api_key_env=MY_JUDGE_KEY",
        ],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (
        data["correct"] is False
        and data["judge"] == "fail"
        and [r["code"] for r in data["reasons"]] == ["judge_rejected"]
    )
    [request] = chat_server["requests"]
    assert request["auth"] == "Bearer secret-from-env" and request["body"]["model"] == "judge-model"
    assert "class ModelNew" in request["body"]["messages"][0]["content"]
    assert list((state_dir() / "judge-cache").glob("*.json"))  # cached where no candidate's sandbox reaches
