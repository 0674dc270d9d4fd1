"""A scripted OpenAI-compatible chat-completions server on loopback, for tests of the clients that speak to one."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

ANSWER = "Plan: one program per block of 1024 elements.\n```python\nclass ModelNew: ...\n```"


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict/list → JSON; bytes → as is; None → a normal chat completion
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0  # before the status line


@dataclass
class Drop:
    """Read the request, then close the socket without a byte of reply."""


@dataclass
class Trickle:
    """Send headers promising `size` bytes, then one byte every `every_s` seconds."""

    size: int = 10_000
    every_s: float = 0.1


@dataclass
class Seen:
    path: str
    headers: dict[str, str]
    body: Any
    at: float


def chat_body(content: Any = ANSWER, usage: tuple[int, int] = (123, 45), **message_extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "teacher-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content, **message_extra}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)},
    }


class ScriptedServer:
    """ThreadingHTTPServer on 127.0.0.1:0; `script(i)` says what to do with the i-th request.

    The i-th request is already in `requests[i]` when `script(i)` is called, so a script that answers
    by what was asked reads it there.
    """

    def __init__(self, script: Callable[[int], Any]) -> None:
        self.script = script
        self.requests: list[Seen] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as vLLM speaks it

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with server.lock:
                    index = len(server.requests)
                    server.requests.append(
                        Seen(
                            self.path,
                            {k.lower(): v for k, v in self.headers.items()},
                            json.loads(raw),
                            time.monotonic(),
                        )
                    )
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    self._act(server.script(index))
                except OSError:
                    pass  # the client gave up (timeout) and closed its end
                finally:
                    with server.lock:
                        server.in_flight -= 1

            def _act(self, action: Any) -> None:
                if isinstance(action, Drop):
                    self.close_connection = True
                    return
                if isinstance(action, Trickle):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(action.size))
                    self.end_headers()
                    for _ in range(action.size):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        if server.stop.wait(action.every_s):
                            break
                    self.close_connection = True
                    return
                if action.delay_s and server.stop.wait(action.delay_s):
                    return
                body = action.body if action.body is not None else chat_body()
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(action.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in action.headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


def sequence(*actions: Any) -> Callable[[int], Any]:
    """Actions in order; the last one repeats."""
    return lambda i: actions[min(i, len(actions) - 1)]
