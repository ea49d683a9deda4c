"""A fake OpenAI-compatible chat server for tests and benchmarks, stdlib only.

Real endpoints are slow, paid and flaky in ways that are hard to provoke on demand; this
server answers from a Python `responder` and can inject the faults the client must survive
(429 with Retry-After, 5xx, 4xx, hangs past the client timeout, dropped connections,
non-JSON bodies), while recording every request and the peak number handled at once.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

__all__ = ["FakeLLM", "Reply", "Responder", "faulty", "scripted"]


@dataclass(frozen=True)
class Reply:
    """What the server does with one request: answer with `content`, or one of the faults."""

    content: str | None = ""
    tool_calls: tuple[tuple[str, str], ...] = ()  # (name, JSON arguments): native tool calling
    finish_reason: str = "stop"
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    timings: dict[str, Any] | None = None
    status_code: int = 200
    retry_after: float | None = None
    hang_s: float = 0.0
    action: Literal["answer", "drop", "garbage"] = "answer"
    garbage_type: str = "text/html"

    @classmethod
    def status(cls, code: int, retry_after: float | None = None) -> Reply:
        """An HTTP error with an OpenAI-style error body (and Retry-After when given)."""
        return cls(content=None, status_code=code, retry_after=retry_after)

    @classmethod
    def hang(cls, seconds: float, content: str = "") -> Reply:
        """Stall past the client's timeout, then answer normally (to a client long gone)."""
        return cls(content=content, hang_s=seconds)

    @classmethod
    def drop(cls) -> Reply:
        """Close the connection without a response, as a crashed proxy would."""
        return cls(content=None, action="drop")

    @classmethod
    def garbage(cls, content_type: str = "text/html") -> Reply:
        """HTTP 200 whose body is not JSON (a captive portal or a confused proxy)."""
        return cls(content=None, action="garbage", garbage_type=content_type)


Responder = Callable[[dict[str, Any]], Reply]


def scripted(*replies: Reply) -> Responder:
    """Replies in order, then the last one forever; thread-safe."""
    if not replies:
        raise ValueError("scripted() needs at least one reply")
    lock = threading.Lock()
    position = 0

    def respond(body: dict[str, Any]) -> Reply:
        nonlocal position
        with lock:
            reply = replies[min(position, len(replies) - 1)]
            position += 1
        return reply

    return respond


def faulty(base: Responder, faults: dict[int, Reply]) -> Responder:
    """`faults[n]` for the n-th request (0-based), `base` for all the others."""
    lock = threading.Lock()
    seen = 0

    def respond(body: dict[str, Any]) -> Reply:
        nonlocal seen
        with lock:
            n = seen
            seen += 1
        return faults[n] if n in faults else base(body)

    return respond


def _completion_json(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    content = reply.content or ""
    prompt = reply.prompt_tokens
    if prompt is None:
        prompt = len(json.dumps(body.get("messages", []))) // 4
    completion = reply.completion_tokens
    if completion is None:
        completion = max(1, len(content) // 4)
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function", "function": {"name": n, "arguments": a}}
            for i, (n, a) in enumerate(reply.tool_calls)
        ]
    out: dict[str, Any] = {
        "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake"),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.tool_calls else reply.finish_reason,
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }
    if reply.timings is not None:
        out["timings"] = reply.timings
    return out


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    fake: FakeLLM


class _Handler(BaseHTTPRequestHandler):
    # Headers and body go out in separate writes; with Nagle on, each keep-alive answer
    # waits ~40 ms for a delayed ACK, which would be charged to the client's throughput.
    disable_nagle_algorithm = True
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self._send_bytes(status, data, "application/json", headers)

    def _send_bytes(
        self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:  # the client gave up (timeout): nobody is left to answer
            self.close_connection = True

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/health":
            self._send_json(200, {"status": "ok"})
        elif path == "/v1/models":
            models = [{"id": "fake-model", "object": "model", "created": 0, "owned_by": "fake"}]
            self._send_json(200, {"object": "list", "data": models})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/chat/completions":
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw)
        except ValueError:
            self._send_json(400, {"error": {"message": "the body is not JSON"}})
            return
        fake = self.server.fake
        with fake._entered(body):
            reply = fake.responder(body)
            fake._wait(fake.latency_s + reply.hang_s)
            self._reply(body, reply)

    def _reply(self, body: dict[str, Any], reply: Reply) -> None:
        if reply.action == "drop":
            self.close_connection = True
            with suppress(OSError):
                self.connection.shutdown(socket.SHUT_RDWR)
            return
        if reply.action == "garbage":
            self._send_bytes(200, b"<html>this is not JSON</html>", reply.garbage_type)
            return
        if reply.status_code != 200:
            headers = {}
            if reply.retry_after is not None:
                headers["Retry-After"] = f"{reply.retry_after:g}"
            error = {"message": f"fake error {reply.status_code}", "type": "fake", "code": None}
            self._send_json(reply.status_code, {"error": error}, headers)
            return
        self._send_json(200, _completion_json(body, reply))


class FakeLLM:
    """The server on 127.0.0.1 on a free port, in a daemon thread; a context manager."""

    def __init__(self, responder: Responder, latency_s: float = 0.0):
        self.responder = responder
        self.latency_s = latency_s
        self._lock = threading.Lock()
        self._requests: list[dict[str, Any]] = []
        self._active = 0
        self._peak = 0
        self._closed = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self
        port = self._httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{port}/v1"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()

    @property
    def requests(self) -> list[dict[str, Any]]:
        """A snapshot of the chat request bodies received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def count(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def max_concurrent(self) -> int:
        """The most chat requests ever being handled at the same moment."""
        with self._lock:
            return self._peak

    @contextmanager
    def _entered(self, body: dict[str, Any]) -> Iterator[None]:
        with self._lock:
            self._requests.append(body)
            self._active += 1
            self._peak = max(self._peak, self._active)
        try:
            yield
        finally:
            with self._lock:
                self._active -= 1

    def _wait(self, seconds: float) -> None:
        """Sleep, but wake at once when the server closes so no handler outlives a test long."""
        if seconds > 0:
            self._closed.wait(seconds)

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeLLM:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
