"""`flows/prefect_app.py`: the null limit and offset prefect 3.8.8's client sends in its filter
requests never reach its server, which refuses them (422)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from flows.prefect_app import DropNullFilters


def seen_by_app(path: str, body: dict[str, Any], method: str = "POST") -> tuple[dict, dict]:
    """(the body the app read, its headers) for a request with `body`."""
    got: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raw = b""
        while True:
            message = await receive()
            raw += message["body"]
            if not message.get("more_body"):
                break
        got["body"] = json.loads(raw)
        got["headers"] = dict(scope["headers"])

    raw = json.dumps(body).encode()
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(raw))],
    }
    chunks = [raw[:10], raw[10:]]  # a body that arrives in two parts

    async def receive() -> dict[str, Any]:
        part = chunks.pop(0)
        return {"type": "http.request", "body": part, "more_body": bool(chunks)}

    async def send(message: Any) -> None:
        pass

    asyncio.run(DropNullFilters(app)(scope, receive, send))
    return got["body"], got["headers"]


def test_null_fields_of_a_filter_body_are_left_out() -> None:
    sent = {"workers": {"status": {"any_": ["ONLINE"]}}, "offset": None, "limit": None}
    body, headers = seen_by_app("/api/work_pools/toolscale/workers/filter", sent)
    assert body == {"workers": {"status": {"any_": ["ONLINE"]}}}
    assert headers[b"content-length"] == str(len(json.dumps(body))).encode()


def test_other_requests_pass_as_they_are() -> None:
    sent = {"name": "x", "description": None}
    assert seen_by_app("/api/work_pools/", sent)[0] == sent  # a create: null means null
    assert seen_by_app("/api/flow_runs/filter", sent, method="PATCH")[0] == sent
