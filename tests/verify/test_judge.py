"""The optional LLM judge against a real local server speaking the chat-completions protocol."""

import pytest

from tritonrl.verify.judge import Judge
from tritonrl.verify.result import ReasonCode

from tests.support.openai_server import Reply, ScriptedServer


@pytest.fixture
def chat_server():
    state = {"answer": "VERDICT: PASS", "requests": []}

    def script(index):
        seen = server.requests[index]
        state["requests"].append({"path": seen.path, "auth": seen.headers.get("authorization"), "body": seen.body})
        return Reply(body={"choices": [{"message": {"role": "assistant", "content": state["answer"]}}]})

    server = ScriptedServer(script)
    state["url"] = server.endpoint
    yield state
    server.close()


def test_fail_verdict_rejects_and_is_cached(chat_server, tmp_path, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", "k-123")
    judge = Judge(chat_server["url"], "judge-model", tmp_path / "cache", api_key_env="JUDGE_KEY")
    chat_server["answer"] = "The kernel only handles the first block.\nVERDICT: FAIL: skips all but the first block"
    reason = judge.review("problem source", "candidate code")
    assert reason.code is ReasonCode.JUDGE_REJECTED
    assert "skips all but the first block" in reason.message
    assert chat_server["requests"][0]["path"] == "/v1/chat/completions"
    assert chat_server["requests"][0]["auth"] == "Bearer k-123"
    assert "candidate code" in chat_server["requests"][0]["body"]["messages"][0]["content"]
    chat_server["answer"] = "VERDICT: PASS"
    assert judge.review("problem source", "candidate code").code is ReasonCode.JUDGE_REJECTED  # from cache
    assert len(chat_server["requests"]) == 1


def test_pass_and_unparseable_answers_do_not_reject(chat_server, tmp_path):
    judge = Judge(chat_server["url"], "judge-model", tmp_path / "cache")
    assert judge.review("p", "c1") is None
    chat_server["answer"] = "I am not sure."
    assert judge.review("p", "c2") is None


def test_unreachable_judge_is_advisory(tmp_path):
    judge = Judge("http://127.0.0.1:9/v1", "judge-model", tmp_path / "cache", timeout_s=2)
    assert judge.review("p", "c") is None
