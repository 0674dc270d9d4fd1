"""OpenAITeacher against a real chat-completions server on loopback, scripted per test.

Every scenario must end as a success or a recorded failure — never an
exception, never a hang — hence the timeout mark on each test and small
timeouts and backoffs in the teachers built here.
"""

from __future__ import annotations

import dataclasses
import email.utils
import socket
import threading
import time
from typing import Any, Callable

import pytest

from tritonrl.config import ConfigError, TeacherConfig
from tritonrl.generation import OpenAITeacher, build_teacher, openai_compat
from tritonrl.generation.openai_compat import retry_after_seconds
from tritonrl.problems.loaders import load_builtin
from tritonrl.prompts import build_messages

from tests.support.openai_server import ANSWER, Drop, Reply, ScriptedServer, Trickle, chat_body, sequence

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def serve():
    servers: list[ScriptedServer] = []

    def start(script: Callable[[int], Any]) -> ScriptedServer:
        servers.append(ScriptedServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


@pytest.fixture
def teacher_for():
    teachers: list[OpenAITeacher] = []

    def make(endpoint: str, **kwargs: Any) -> OpenAITeacher:
        options = {"model": "teacher-model", "timeout_s": 5.0, "max_retries": 3, "backoff_s": 0.01, **kwargs}
        teachers.append(OpenAITeacher(endpoint, **options))
        return teachers[-1]

    yield make
    for teacher in teachers:
        teacher.close()


@pytest.fixture(scope="module")
def problem():
    return load_builtin()[0]


def ask(teacher: OpenAITeacher, problem, n: int = 1, temperature: float = 0.7, max_tokens: int = 256):
    return teacher.generate(
        problem, build_messages(problem.source), n=n, temperature=temperature, max_tokens=max_tokens
    )


# -- success --------------------------------------------------------------------------------------------------------


def test_success_sends_the_chat_request_with_the_key_from_the_environment(serve, teacher_for, problem, monkeypatch):
    server = serve(sequence(Reply()))
    teacher = teacher_for(server.endpoint, api_key_env="TRITONRL_TEST_KEY")
    monkeypatch.setenv("TRITONRL_TEST_KEY", "sk-test-secret")  # set after construction: read at request time

    completions = ask(teacher, problem, n=2, temperature=0.7, max_tokens=256)

    assert len(completions) == 2
    for c in completions:
        assert (c.text, c.error, c.attempts) == (ANSWER, None, 1)
        assert (c.prompt_tokens, c.completion_tokens) == (123, 45)
        assert c.latency_s > 0
    assert len(server.requests) == 2
    for seen in server.requests:
        assert seen.path == "/v1/chat/completions"
        assert seen.body == {
            "model": "teacher-model",
            "messages": build_messages(problem.source),
            "temperature": 0.7,
            "max_tokens": 256,
        }
        assert seen.headers["authorization"] == "Bearer sk-test-secret"
    assert teacher.id == f"openai:teacher-model@{server.endpoint}"
    assert "sk-test-secret" not in teacher.id + repr(teacher) + repr(vars(teacher))


def test_no_key_in_the_environment_sends_no_authorization(serve, teacher_for, problem, monkeypatch):
    monkeypatch.delenv("TRITONRL_TEST_KEY", raising=False)
    server = serve(sequence(Reply()))
    [c] = ask(teacher_for(server.endpoint, api_key_env="TRITONRL_TEST_KEY"), problem)
    assert c.error is None
    assert "authorization" not in server.requests[0].headers


@pytest.mark.parametrize("field_name", ["reasoning_content", "reasoning"])
def test_reasoning_from_a_reasoning_parser_is_kept_before_the_code(serve, teacher_for, problem, field_name):
    server = serve(sequence(Reply(body=chat_body(content="```python\nx = 1\n```", **{field_name: "Plan: tile it."}))))
    [c] = ask(teacher_for(server.endpoint), problem)
    assert c.text == "Plan: tile it.\n\n```python\nx = 1\n```"


def test_content_parts_and_missing_usage_are_accepted(serve, teacher_for, problem):
    body = chat_body(content=[{"type": "text", "text": "a "}, {"type": "text", "text": "b"}])
    del body["usage"]
    server = serve(sequence(Reply(body=body)))
    [c] = ask(teacher_for(server.endpoint), problem)
    assert (c.text, c.error, c.prompt_tokens, c.completion_tokens) == ("a b", None, None, None)


def test_zero_samples_sends_nothing(serve, teacher_for, problem):
    server = serve(sequence(Reply()))
    assert ask(teacher_for(server.endpoint), problem, n=0) == []
    assert server.requests == []


# -- retried failures -------------------------------------------------------------------------------------------------


def test_slow_responses_time_out_are_retried_then_recorded(serve, teacher_for, problem):
    server = serve(sequence(Reply(delay_s=5.0)))
    teacher = teacher_for(server.endpoint, timeout_s=0.3, max_retries=1)
    start = time.monotonic()
    [c] = ask(teacher, problem)
    assert time.monotonic() - start < 3.0
    assert c.text is None and "timed out" in c.error and "gave up after 2 attempts" in c.error
    assert c.attempts == 2 and len(server.requests) == 2


def test_a_trickling_body_is_cut_off_at_the_deadline(serve, teacher_for, problem):
    server = serve(sequence(Trickle(size=10_000, every_s=0.05)))
    teacher = teacher_for(server.endpoint, timeout_s=0.5, max_retries=0)
    start = time.monotonic()
    [c] = ask(teacher, problem)
    assert time.monotonic() - start < 3.0
    assert c.text is None and "timed out" in c.error and c.attempts == 1


def test_429_with_retry_after_is_honoured_then_succeeds(serve, teacher_for, problem):
    server = serve(sequence(Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "1"}), Reply()))
    start = time.monotonic()
    [c] = ask(teacher_for(server.endpoint, backoff_s=0.01), problem)
    waited = server.requests[1].at - server.requests[0].at
    assert (c.text, c.error, c.attempts) == (ANSWER, None, 2)
    assert waited >= 0.95, "Retry-After: 1 must be honoured over the 0.01 s backoff"
    assert time.monotonic() - start < 5.0


def test_500_twice_then_success(serve, teacher_for, problem):
    server = serve(sequence(Reply(500, b"oops"), Reply(502, b"bad gateway"), Reply()))
    [c] = ask(teacher_for(server.endpoint), problem)
    assert (c.text, c.error, c.attempts) == (ANSWER, None, 3)
    assert len(server.requests) == 3


def test_5xx_until_retries_run_out_is_recorded(serve, teacher_for, problem):
    server = serve(sequence(Reply(503, b"model loading")))
    [c] = ask(teacher_for(server.endpoint, max_retries=2), problem)
    assert c.text is None and c.attempts == 3 and len(server.requests) == 3
    assert "HTTP 503" in c.error and "model loading" in c.error and "gave up after 3 attempts" in c.error


def test_dropped_connection_is_retried(serve, teacher_for, problem):
    server = serve(sequence(Drop(), Reply()))
    [c] = ask(teacher_for(server.endpoint), problem)
    assert (c.text, c.error, c.attempts) == (ANSWER, None, 2)


def test_unreachable_server_is_retried_then_recorded(teacher_for, problem):
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    [c] = ask(teacher_for(f"http://127.0.0.1:{port}/v1", max_retries=2), problem)
    assert c.text is None and c.attempts == 3 and "connection error" in c.error


# -- failures recorded at once ----------------------------------------------------------------------------------------


def test_400_is_recorded_without_retry(serve, teacher_for, problem):
    server = serve(sequence(Reply(400, {"error": {"message": "max_tokens is too large"}}), Reply()))
    [c] = ask(teacher_for(server.endpoint), problem)
    assert c.text is None and c.attempts == 1 and len(server.requests) == 1
    assert "HTTP 400" in c.error and "max_tokens is too large" in c.error


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (b"<html>502 from a proxy</html>", "not JSON"),
        (b"", "not JSON"),
        ([1, 2, 3], "no choices"),
        ({"object": "chat.completion"}, "no choices"),
        ({"choices": []}, "no choices"),
        ({"choices": [{"text": "legacy completion"}]}, "no choices[0].message"),
        (chat_body(content=""), "empty content"),
        (chat_body(content=None), "empty content"),
        (chat_body(content="  \n"), "empty content"),
        (chat_body(content=None, reasoning_content="thinking..."), "reasoning only"),
    ],
)
def test_garbage_bodies_are_recorded_failures(serve, teacher_for, problem, body, expected):
    server = serve(sequence(Reply(200, body), Reply()))
    [c] = ask(teacher_for(server.endpoint), problem)
    assert c.text is None and expected in c.error
    assert c.attempts == 1 and len(server.requests) == 1


def test_an_oversized_body_is_a_recorded_failure(serve, teacher_for, problem, monkeypatch):
    monkeypatch.setattr(openai_compat, "MAX_RESPONSE_BYTES", 100)
    server = serve(sequence(Reply(body=chat_body(content="x" * 1000))))
    [c] = ask(teacher_for(server.endpoint), problem)
    assert c.text is None and "larger than 100 bytes" in c.error


def test_a_bug_inside_a_worker_is_a_recorded_failure(serve, teacher_for, problem, monkeypatch):
    server = serve(sequence(Reply()))
    teacher = teacher_for(server.endpoint)

    def broken(body):
        raise RuntimeError("boom")

    monkeypatch.setattr(teacher, "_attempt", broken)
    completions = ask(teacher, problem, n=3)
    assert [c.text for c in completions] == [None] * 3
    assert all("RuntimeError: boom" in c.error for c in completions)


# -- concurrency and rate limits --------------------------------------------------------------------------------------


def test_concurrency_is_bounded(serve, teacher_for, problem):
    server = serve(sequence(Reply(delay_s=0.2)))
    completions = ask(teacher_for(server.endpoint, concurrency=3), problem, n=9)
    assert [c.error for c in completions] == [None] * 9
    assert server.max_in_flight == 3


def test_concurrency_bound_is_shared_by_concurrent_calls(serve, teacher_for, problem):
    server = serve(sequence(Reply(delay_s=0.2)))
    teacher = teacher_for(server.endpoint, concurrency=2)
    results: list[list] = []
    threads = [threading.Thread(target=lambda: results.append(ask(teacher, problem, n=4))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(c.error is None for r in results for c in r) == [True] * 8
    assert server.max_in_flight == 2


def test_rate_limit_spaces_requests(serve, teacher_for, problem):
    server = serve(sequence(Reply()))
    teacher = teacher_for(server.endpoint, concurrency=5, requests_per_second=10)
    start = time.monotonic()
    completions = ask(teacher, problem, n=5)
    assert [c.error for c in completions] == [None] * 5
    arrivals = sorted(seen.at - start for seen in server.requests)
    # Slots are 1/10 s apart from the first call, so by 0.1·k s at most k + 1 requests can have been sent:
    # the (k+1)-th arrival is never earlier. Connection set-up only delays arrivals (on a loaded machine a
    # delayed first request can land next to later ones), so this holds however the network jitters.
    assert all(at >= 0.1 * k - 0.005 for k, at in enumerate(arrivals)), arrivals


# -- helpers and construction -----------------------------------------------------------------------------------------


def test_retry_after_forms():
    now = time.time()
    assert retry_after_seconds("2") == 2.0
    assert retry_after_seconds("0.5") == 0.5
    assert retry_after_seconds("-3") == 0.0
    assert retry_after_seconds(None) is None
    assert retry_after_seconds("soon") is None
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert 28 <= retry_after_seconds(date, now=now) <= 31


def test_id_hides_credentials_and_accepts_the_full_route():
    teacher = OpenAITeacher("http://user:pw@vllm:8000/v1/chat/completions/", "m")
    assert teacher.id == "openai:m@http://vllm:8000/v1"
    assert teacher.url == "http://user:pw@vllm:8000/v1/chat/completions"


@pytest.mark.parametrize(
    "kwargs",
    [
        {"endpoint": "", "model": "m"},
        {"endpoint": "vllm:8000/v1", "model": "m"},
        {"endpoint": "http://vllm:8000/v1", "model": ""},
        {"endpoint": "http://vllm:8000/v1", "model": "m", "concurrency": 0},
        {"endpoint": "http://vllm:8000/v1", "model": "m", "max_retries": -1},
        {"endpoint": "http://vllm:8000/v1", "model": "m", "timeout_s": 0},
        {"endpoint": "http://vllm:8000/v1", "model": "m", "requests_per_second": 0},
    ],
)
def test_unusable_arguments_are_rejected(kwargs):
    with pytest.raises(ValueError):
        OpenAITeacher(**kwargs)


def test_build_teacher_openai():
    config = TeacherConfig(kind="openai", model="openai/gpt-oss-120b", endpoint="http://vllm:8000/v1", api_key_env="K")
    teacher = build_teacher(config)
    assert isinstance(teacher, OpenAITeacher)
    assert teacher.id == "openai:openai/gpt-oss-120b@http://vllm:8000/v1"
    assert (teacher.api_key_env, teacher.concurrency, teacher.requests_per_second) == ("K", 8, None)
    limited = build_teacher(dataclasses.replace(config, concurrency=32, requests_per_second=5.0))
    assert (limited.concurrency, limited.requests_per_second) == (32, 5.0)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (TeacherConfig(kind="openai", model="m"), "needs teacher.endpoint"),
        (TeacherConfig(kind="openai", model="m", endpoint="localhost:8000"), r"not an http\(s\) URL"),
        (TeacherConfig(kind="openai", endpoint="http://vllm:8000/v1"), "needs teacher.model"),
        (TeacherConfig(kind="openai", model="m", endpoint="http://h/v1", samples_per_task=0), "samples_per_task"),
        (TeacherConfig(kind="openai", model="m", endpoint="http://h/v1", temperature=-1.0), "temperature"),
        (TeacherConfig(kind="openai", model="m", endpoint="http://h/v1", concurrency=0), "concurrency"),
        (
            TeacherConfig(kind="openai", model="m", endpoint="http://h/v1", requests_per_second=-1.0),
            "requests_per_second",
        ),
    ],
)
def test_build_teacher_rejects_unusable_openai_configs(config, message):
    with pytest.raises(ConfigError, match=message):
        build_teacher(config)
