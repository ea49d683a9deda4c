"""An LLMClient talking to the fake endpoint, for the client and cache tests: one fresh
client per run, backoff waits recorded instead of slept."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from pydantic import BaseModel

from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import LLMClient, Outcome
from toolscale.llm.config import LLMConfig
from toolscale.testing.fakellm import FakeLLM

R = TypeVar("R")


MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "hi"}]


GOOD = '{"x": 1, "y": 2}'


class Point(BaseModel):
    x: int
    y: int


class Sleeps:
    """Records the backoff waits instead of sleeping: fast tests, and the waits are visible."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def config(server: FakeLLM, **overrides: Any) -> LLMConfig:
    values: dict[str, Any] = {
        "base_url": server.base_url,
        "model": "fake-model",
        "timeout_s": 0.5,
        "max_attempts": 3,
        "backoff_s": 0,
        "max_backoff_s": 0.01,
    }
    values.update(overrides)
    return LLMConfig(**values)


def run(
    server: FakeLLM,
    body: Callable[[LLMClient], Awaitable[R]],
    *,
    cache: ResponseCache | None = None,
    sleep: Sleeps | None = None,
    **overrides: Any,
) -> tuple[R, LLMClient]:
    """Runs `body` with a fresh client in its own event loop and closes the client after."""

    async def main() -> tuple[R, LLMClient]:
        client = LLMClient(config(server, **overrides), cache=cache, sleep=sleep or Sleeps())
        try:
            return await body(client), client
        finally:
            await client.close()

    return asyncio.run(main())


def ask(stage: str = "gen", **kwargs: Any) -> Callable[[LLMClient], Awaitable[Any]]:
    return lambda client: client.complete(MESSAGES, stage=stage, **kwargs)


def ask_point(**kwargs: Any) -> Callable[[LLMClient], Awaitable[Outcome[Any]]]:
    return lambda client: client.structured(MESSAGES, Point, stage="gen", **kwargs)
