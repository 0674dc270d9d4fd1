"""Teacher behind an OpenAI-compatible chat-completions endpoint (vLLM, SGLang, a hosted API).

The production teacher: the `gpu` profile points it at gpt-oss-120b served by
vLLM. Each sample is one `POST {endpoint}/chat/completions` request with
`model`, `messages`, `temperature` and `max_tokens`; up to `concurrency`
requests are in flight at once (a thread pool per call, gated by a semaphore
shared by every call on the instance, so a stage that calls `generate` from
several threads still respects the bound), and an optional token bucket
spaces requests to `requests_per_second`.

Failure handling — every sample ends as a `Completion`, never an exception,
and never waits without bound:
- retried with exponential backoff and jitter: HTTP 429 (honouring
  Retry-After, seconds or HTTP date), 408, 5xx, timeouts, refused or dropped
  connections; after `max_retries` retries the last error is recorded;
- recorded at once (a retry would get the same answer): other 4xx, a body
  that is not JSON, lacks `choices[0].message`, or has empty content;
- each attempt is bounded by `timeout_s` (connect, read, and a total deadline
  while reading the body, so a server trickling bytes cannot stall a worker).

The answer text is `message.content`; a reasoning parser's separate
`reasoning_content` (or `reasoning`) is prepended, so the plan the prompt asks
for is kept with the code. The API key is read from the environment variable
named by `api_key_env` at request time and sent as a Bearer token; it is never
stored on the instance, put in the id, or logged.

Test: tests/generation/test_openai_teacher.py (a real HTTP server on loopback,
scripted per test: success, slow, 429, 5xx, 400, garbage, dropped connection,
concurrency and rate limits).
"""

from __future__ import annotations

import email.utils
import json
import logging
import os
import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from tritonrl.generation.base import Completion, check_sample_count
from tritonrl.problems import Problem

log = logging.getLogger(__name__)

# Backoff doubles from `backoff_s` but never beyond a minute: that covers a vLLM restart or model reload,
# and longer sleeps only stall the run.
MAX_BACKOFF_S = 60.0
# Each backoff is scaled by a random factor in [1 - JITTER, 1 + JITTER] so workers that failed together
# (an overloaded or restarted server) do not retry in lock-step.
JITTER = 0.5
# A server's Retry-After is honoured up to five minutes; a longer ask means it is down for now, and capping it
# keeps the bound on a sample's total time.
MAX_RETRY_AFTER_S = 300.0
# A server that has not accepted a TCP connection within 30 s is down or saturated; fail into backoff rather than
# wait the whole generation timeout.
CONNECT_TIMEOUT_S = 30.0
# A completion of tens of thousands of tokens is well under 1 MiB of JSON; a larger body means a broken server,
# so stop reading instead of filling memory.
MAX_RESPONSE_BYTES = 32 * 2**20
# Enough of an error or garbage body to see what the server said, small enough to keep in a sample record.
ERROR_BODY_CHARS = 500
# 408 is the server's own request timeout and 429 its rate limit: both pass with time; so do 5xx (overload,
# restart, a proxy without a healthy upstream).
RETRYABLE_4XX = frozenset({408, 429})


@dataclass(frozen=True)
class _Outcome:
    """One HTTP attempt: a text, or an error that may be worth retrying."""

    text: str | None = None
    error: str | None = None
    retryable: bool = False
    retry_after_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


class _DeadlineExceeded(Exception):
    pass


class _TooLarge(Exception):
    pass


class _TokenBucket:
    """Requests-per-second limit shared by all workers: capacity one, so requests are evenly spaced.

    A caller reserves the next token (the count may go negative, a queue of
    debts) and sleeps until it is due, so waiters are served in arrival order
    without waking each other.
    """

    def __init__(self, rate: float, capacity: float = 1.0) -> None:
        self.rate = rate
        self.capacity = capacity
        self._tokens = capacity
        self._last = time.monotonic()
        self._lock = threading.Lock()

    def acquire(self) -> None:
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
            self._last = now
            self._tokens -= 1.0
            wait_s = -self._tokens / self.rate if self._tokens < 0 else 0.0
        if wait_s > 0:
            time.sleep(wait_s)


def public_endpoint(endpoint: str) -> str:
    """The endpoint without credentials, query or fragment: safe to record in ids and logs."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path.rstrip("/"), "", ""))


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or HTTP date); None when absent or unreadable."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _text(value: Any) -> str:
    """A message field as text: a string, or OpenAI content parts [{type: text, text: …}]."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(p["text"] for p in value if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _excerpt(raw: bytes) -> str:
    return raw[: ERROR_BODY_CHARS * 4].decode("utf-8", "replace")[:ERROR_BODY_CHARS]


def parse_chat_response(raw: bytes) -> _Outcome:
    """A 2xx body to text and token counts; anything unusable is a (non-retryable) error."""
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return _Outcome(error=f"response is not JSON: {_excerpt(raw)!r}")
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return _Outcome(error=f"response has no choices[0]: {_excerpt(raw)!r}")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        return _Outcome(error=f"response has no choices[0].message: {_excerpt(raw)!r}")
    content = _text(message.get("content"))
    reasoning = (_text(message.get("reasoning_content")) or _text(message.get("reasoning"))).strip()
    if not content.strip():
        finish = choices[0].get("finish_reason")
        detail = f"; reasoning only ({len(reasoning)} chars)" if reasoning else ""
        return _Outcome(error=f"empty content (finish_reason={finish!r}{detail})")
    text = f"{reasoning}\n\n{content}" if reasoning else content
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    return _Outcome(
        text=text,
        prompt_tokens=_count(usage.get("prompt_tokens")),
        completion_tokens=_count(usage.get("completion_tokens")),
    )


class OpenAITeacher:
    """Samples from an OpenAI-compatible `/chat/completions` endpoint; see the module docstring.

    Defaults: 8 requests in flight keep a vLLM replica's batch busy without
    queueing requests past their timeout; 4 retries from a 1 s backoff
    (1+2+4+8 s, jittered) ride out a brief overload or restart; 600 s per
    attempt fits an 8k-token reasoning answer from a 120B model under load.
    """

    def __init__(
        self,
        endpoint: str,
        model: str,
        api_key_env: str = "OPENAI_API_KEY",
        concurrency: int = 8,
        max_retries: int = 4,
        timeout_s: float = 600.0,
        requests_per_second: float | None = None,
        backoff_s: float = 1.0,
    ) -> None:
        parts = urlsplit(endpoint.strip()) if isinstance(endpoint, str) else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(
                f"teacher endpoint {endpoint!r} is not an http(s) URL; give the OpenAI-compatible base URL, "
                "e.g. http://localhost:8000/v1"
            )
        if not model:
            raise ValueError(
                "teacher model is empty; give the model name the endpoint serves, e.g. openai/gpt-oss-120b"
            )
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {concurrency}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        if not timeout_s > 0:
            raise ValueError(f"timeout_s must be > 0, got {timeout_s}")
        if requests_per_second is not None and not requests_per_second > 0:
            raise ValueError(f"requests_per_second must be > 0 or None, got {requests_per_second}")
        if backoff_s < 0:
            raise ValueError(f"backoff_s must be >= 0, got {backoff_s}")

        path = parts.path.rstrip("/").removesuffix("/chat/completions")  # accept the full route too
        base = urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
        self.endpoint = base
        self.url = urlunsplit((parts.scheme, parts.netloc, f"{path}/chat/completions", parts.query, ""))
        self.model = model
        self.api_key_env = api_key_env
        self.concurrency = concurrency
        self.max_retries = max_retries
        self.timeout_s = float(timeout_s)
        self.requests_per_second = requests_per_second
        self.backoff_s = float(backoff_s)
        self.id = f"openai:{model}@{public_endpoint(base)}"

        self._slots = threading.BoundedSemaphore(concurrency)
        self._bucket = _TokenBucket(requests_per_second) if requests_per_second else None
        self._random = random.Random()
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAITeacher(id={self.id!r}, concurrency={self.concurrency}, max_retries={self.max_retries})"

    # -- lifecycle ---------------------------------------------------------------------------------------------

    def _http(self) -> httpx.Client:
        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(
                    timeout=httpx.Timeout(self.timeout_s, connect=min(CONNECT_TIMEOUT_S, self.timeout_s)),
                    limits=httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency),
                )
            return self._client

    def close(self) -> None:
        """Close pooled connections; the teacher reopens them if used again."""
        with self._client_lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def __enter__(self) -> OpenAITeacher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sampling ----------------------------------------------------------------------------------------------

    def generate(
        self, problem: Problem, messages: list[dict[str, str]], n: int, temperature: float, max_tokens: int
    ) -> list[Completion]:
        check_sample_count(n)
        if n == 0:
            return []
        body = {"model": self.model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens}
        with ThreadPoolExecutor(max_workers=min(n, self.concurrency), thread_name_prefix="openai-teacher") as pool:
            futures = [pool.submit(self._sample, body, f"{problem.name}#{i}") for i in range(n)]
            results = []
            for future in futures:
                try:
                    results.append(future.result())
                except Exception as exc:  # _sample catches everything; this is the last line of defence
                    error = f"teacher bug: {type(exc).__name__}: {exc}"
                    results.append(Completion(text=None, error=error, latency_s=0.0))
            return results

    def _sample(self, body: dict[str, Any], label: str) -> Completion:
        """One sample: attempts with backoff until success, a final error, or retries run out."""
        start = time.monotonic()
        attempts = 0
        try:
            while True:
                attempts += 1
                if self._bucket is not None:
                    self._bucket.acquire()
                with self._slots:
                    outcome = self._attempt(body)
                if outcome.error is None:
                    return Completion(
                        text=outcome.text,
                        error=None,
                        latency_s=time.monotonic() - start,
                        prompt_tokens=outcome.prompt_tokens,
                        completion_tokens=outcome.completion_tokens,
                        attempts=attempts,
                    )
                if not outcome.retryable:
                    error = outcome.error
                    break
                if attempts > self.max_retries:
                    error = f"{outcome.error} (gave up after {attempts} attempt{'s' if attempts > 1 else ''})"
                    break
                delay_s = self._delay_s(attempts, outcome.retry_after_s)
                log.warning(
                    "%s %s attempt %d/%d failed: %s; retrying in %.2f s",
                    self.id,
                    label,
                    attempts,
                    self.max_retries + 1,
                    outcome.error,
                    delay_s,
                )
                time.sleep(delay_s)
        except Exception as exc:  # a bug here must cost one sample, not the run
            error = f"teacher bug: {type(exc).__name__}: {exc}"
        log.warning("%s %s failed: %s", self.id, label, error)
        return Completion(text=None, error=error, latency_s=time.monotonic() - start, attempts=max(attempts, 1))

    def _delay_s(self, attempt: int, retry_after_s: float | None) -> float:
        if retry_after_s is not None:
            return min(retry_after_s, MAX_RETRY_AFTER_S)
        base = min(self.backoff_s * 2 ** (attempt - 1), MAX_BACKOFF_S)
        return base * (1.0 - JITTER + 2.0 * JITTER * self._random.random())

    def _attempt(self, body: dict[str, Any]) -> _Outcome:
        """One HTTP request, classified; never raises for network or protocol trouble."""
        headers = {"Accept": "application/json"}
        key = os.environ.get(self.api_key_env, "") if self.api_key_env else ""
        if key:
            headers["Authorization"] = f"Bearer {key}"
        deadline = time.monotonic() + self.timeout_s
        try:
            with self._http().stream("POST", self.url, json=body, headers=headers) as response:
                raw = self._read_bounded(response, deadline)
        except httpx.TimeoutException as exc:
            return _Outcome(error=f"timed out after {self.timeout_s:g} s ({type(exc).__name__})", retryable=True)
        except _DeadlineExceeded:
            return _Outcome(error=f"timed out after {self.timeout_s:g} s (body still arriving)", retryable=True)
        except (httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            return _Outcome(error=f"connection error: {type(exc).__name__}: {exc}", retryable=True)
        except _TooLarge:
            return _Outcome(error=f"response larger than {MAX_RESPONSE_BYTES} bytes; not a chat completion")
        except httpx.HTTPError as exc:
            return _Outcome(error=f"request failed: {type(exc).__name__}: {exc}")

        status = response.status_code
        if 200 <= status < 300:
            return parse_chat_response(raw)
        return _Outcome(
            error=f"HTTP {status}: {_excerpt(raw)}",
            retryable=status in RETRYABLE_4XX or status >= 500,
            retry_after_s=retry_after_seconds(response.headers.get("retry-after")),
        )

    @staticmethod
    def _read_bounded(response: httpx.Response, deadline: float) -> bytes:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_RESPONSE_BYTES:
                raise _TooLarge()
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise _DeadlineExceeded()
        return b"".join(chunks)
