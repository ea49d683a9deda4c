"""Several servers of one model (issue 12): requests spread by least outstanding work, each
server with its own slots, a failing one set aside and tried again later, a ledger per
server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import toolscale.llm.client as client_module
from tests.toolscale.llm.clients import GOOD, Sleeps
from toolscale.llm.client import LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.summary import endpoint_lines
from toolscale.testing.fakellm import FakeLLM, Reply


def good(body: dict) -> Reply:
    return Reply(content=GOOD)


def failing(body: dict) -> Reply:
    return Reply.status(500)


def several(*servers: FakeLLM, slots: tuple[int, ...] = (), **overrides: Any) -> LLMConfig:
    urls = [s.base_url + (f"#{slots[i]}" if i < len(slots) else "") for i, s in enumerate(servers)]
    values: dict[str, Any] = {
        "base_url": servers[0].base_url,
        "endpoints": urls,
        "model": "fake-model",
        "timeout_s": 2.0,
        "max_attempts": 4,
        "backoff_s": 0,
        "max_backoff_s": 0.01,
        "concurrency": 2,
    } | overrides
    return LLMConfig(**values)


def ask_many(config: LLMConfig, n: int) -> tuple[list[Any], LLMClient]:
    """`n` different questions at once (no two share a cache key)."""

    async def main() -> tuple[list[Any], LLMClient]:
        client = LLMClient(config, sleep=Sleeps())
        try:
            answers = await asyncio.gather(
                *(
                    client.complete([{"role": "user", "content": f"q{i}"}], stage="gen")
                    for i in range(n)
                )
            )
            return list(answers), client
        finally:
            await client.close()

    return asyncio.run(main())


def test_the_url_variable_lists_servers_and_their_slots() -> None:
    config = LLMConfig.from_env(
        {
            "TOOLSCALE_LLM_MODEL": "m",
            "TOOLSCALE_LLM_URL": "http://a:8000/v1, http://b:8000/v1#8",
            "TOOLSCALE_LLM_CONCURRENCY": "3",
        }
    )
    assert config is not None and config.base_url == "http://a:8000/v1"
    assert config.servers() == [("http://a:8000/v1", 3), ("http://b:8000/v1", 8)]
    one = LLMConfig.from_env({"TOOLSCALE_LLM_MODEL": "m", "TOOLSCALE_LLM_URL": "http://a/v1"})
    assert one is not None and one.servers() == [("http://a/v1", 4)] and one.endpoints == []
    bad = LLMConfig(model="m", endpoints=["http://a/v1#many"])
    with pytest.raises(ValueError, match="after # comes its number of slots"):
        bad.servers()


def test_requests_go_to_the_server_with_the_least_outstanding_work() -> None:
    """Two servers of two slots: eight requests at once, four each; a server with four
    slots beside one with one takes about four in five."""
    with FakeLLM(good, latency_s=0.2) as a, FakeLLM(good, latency_s=0.2) as b:
        answers, client = ask_many(several(a, b), 8)
        assert all(getattr(x, "content", None) == GOOD for x in answers)
        assert (a.count, b.count) == (4, 4)
        assert a.max_concurrent <= 2 and b.max_concurrent <= 2
        spent = client.ledger.endpoints
        assert spent[a.base_url].calls == 4 and spent[b.base_url].calls == 4
    with FakeLLM(good, latency_s=0.2) as a, FakeLLM(good, latency_s=0.2) as b:
        ask_many(several(a, b, slots=(4, 1)), 10)
        assert (a.count, b.count) == (8, 2)
        assert a.max_concurrent <= 4 and b.max_concurrent == 1


def test_a_failing_server_is_set_aside_and_tried_again_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeLLM(failing) as down, FakeLLM(good, latency_s=0.05) as up:
        answers, client = ask_many(several(down, up), 6)
        assert all(getattr(x, "content", None) == GOOD for x in answers)
        assert down.count <= 3  # what was sent before its first failure came back, no more
        spent = client.ledger.endpoints
        assert spent[up.base_url].calls == 6
        assert spent[down.base_url].calls == 0 and spent[down.base_url].failures
        lines = endpoint_lines(client.ledger)
        assert any(down.base_url in line and "failures" in line for line in lines)
        assert any(line.startswith(f"endpoint {up.base_url}: 6 calls") for line in lines)
    # once its time aside is over, a server is asked again
    monkeypatch.setattr(client_module, "SET_ASIDE_S", 0.0)
    with FakeLLM(failing) as down, FakeLLM(good) as up:
        ask_many(several(down, up, concurrency=1), 6)
        assert down.count >= 3


def test_one_server_keeps_its_ledger_by_stage_only() -> None:
    with FakeLLM(good) as only:
        config = LLMConfig(base_url=only.base_url, model="fake-model")
        _, client = ask_many(config, 2)
    assert client.ledger.endpoints == {} and client.ledger.stage("gen").calls == 2
