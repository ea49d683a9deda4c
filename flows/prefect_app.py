"""Prefect's server app, as `prefect server start` runs it, with one fix in front.

prefect 3.8.8's own client sends `"limit": null, "offset": null` in the bodies of its filter
requests (`prefect deploy` reading a pool's workers, `prefect work-pool ls`), and its own
server, under the FastAPI and pydantic this project installs, refuses them with 422 (the
parameters are `int = Body(None)`). A null there means "not given", so it is dropped before
the app sees it. Served with `uvicorn --factory flows.prefect_app:create_app`.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class DropNullFilters:
    """ASGI middleware: top-level null fields of a POST .../filter or .../count body are left
    out, as if never sent."""

    def __init__(self, app: App):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        if (
            scope.get("type") != "http"
            or scope.get("method") != "POST"
            or not path.rstrip("/").endswith(("/filter", "/count"))
        ):
            await self.app(scope, receive, send)
            return
        chunks = []
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                break
        body = b"".join(chunks)
        try:
            data = json.loads(body) if body else None
        except ValueError:
            data = None
        if isinstance(data, dict):
            body = json.dumps({k: v for k, v in data.items() if v is not None}).encode()
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        await self.app({**scope, "headers": headers}, replay, send)


def create_app() -> App:
    """What `prefect server start` serves (PREFECT__SERVER_* in the environment say which
    parts), behind the fix."""
    from prefect.server.api.server import create_app as prefect_app

    return DropNullFilters(prefect_app())
