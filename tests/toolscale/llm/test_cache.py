"""Raw completions cached by request: a re-run makes no call, a changed request is a miss,
a damaged entry is rewritten, and a changed parser re-reads the paid answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, field_validator

from tests.toolscale.llm.clients import GOOD, MESSAGES, ask, ask_point, run
from toolscale.llm.cache import Completion, ResponseCache
from toolscale.llm.client import LLMClient, Outcome
from toolscale.report import Rejection
from toolscale.testing.fakellm import FakeLLM, Reply, scripted

pytestmark = pytest.mark.usefixtures("no_proxy")  # the fake endpoint is local


def test_same_request_twice_is_answered_by_the_cache(tmp_path: Path) -> None:
    async def twice(client: LLMClient) -> list[Completion | Rejection]:
        return [await client.complete(MESSAGES, stage="gen") for _ in range(2)]

    with FakeLLM(scripted(Reply(content="one"), Reply(content="two"))) as server:
        (first, second), client = run(server, twice, cache=ResponseCache(tmp_path))
        assert server.count == 1
    assert isinstance(first, Completion) and isinstance(second, Completion)
    assert first.content == second.content == "one"
    usage = client.ledger.stage("gen")
    assert (usage.calls, usage.cached) == (1, 1)
    key = ResponseCache.key(client.request(MESSAGES, None, 0, None, None))
    path = tmp_path / key[:2] / f"{key}.json"
    assert path.is_file()
    assert Completion.model_validate_json(path.read_text()).content == "one"
    assert len(ResponseCache(tmp_path)) == 1


@pytest.mark.parametrize(
    "changed",
    [
        {"sample": 1},
        {"temperature": 0.1},
        {"max_tokens": 64},
        {"messages": [{"role": "user", "content": "hello"}]},
    ],
    ids=["sample", "temperature", "max_tokens", "messages"],
)
def test_a_changed_request_is_not_a_cache_hit(tmp_path: Path, changed: dict[str, Any]) -> None:
    async def both(client: LLMClient) -> Completion | Rejection:
        await client.complete(MESSAGES, stage="gen")
        options = dict(changed)
        messages = options.pop("messages", MESSAGES)
        return await client.complete(messages, stage="gen", **options)

    with FakeLLM(scripted(Reply(content="one"), Reply(content="two"))) as server:
        second, client = run(server, both, cache=ResponseCache(tmp_path))
        assert server.count == 2
    assert isinstance(second, Completion) and second.content == "two"
    assert client.ledger.stage("gen").cached == 0
    assert len(ResponseCache(tmp_path)) == 2


def test_a_corrupt_cache_file_is_a_miss_and_gets_rewritten(tmp_path: Path) -> None:
    with FakeLLM(scripted(Reply(content="one"), Reply(content="two"))) as server:
        _, client = run(server, ask(), cache=ResponseCache(tmp_path))
        (path,) = tmp_path.glob("*/*.json")
        path.write_text('{"content": "cut sho')
        answer, client = run(server, ask(), cache=ResponseCache(tmp_path))
        assert server.count == 2
    assert isinstance(answer, Completion) and answer.content == "two"
    assert client.ledger.stage("gen").cached == 0
    assert Completion.model_validate_json(path.read_text()).content == "two"


def test_a_fresh_client_resumes_from_the_cache_without_calls(tmp_path: Path) -> None:
    with FakeLLM(scripted(Reply(content="paid for", completion_tokens=9))) as server:
        run(server, ask(), cache=ResponseCache(tmp_path))
        answer, client = run(server, ask(), cache=ResponseCache(tmp_path))
        assert server.count == 1
    assert isinstance(answer, Completion) and answer.content == "paid for"
    usage = client.ledger.stage("gen")
    assert (usage.calls, usage.cached, usage.completion_tokens, usage.cost_usd) == (0, 1, 0, 0)


def _point_class(allow_negative: bool) -> type[BaseModel]:
    """Two parsers with the same JSON schema (name and fields); only a validator differs."""

    class Point(BaseModel):
        x: int
        y: int

        @field_validator("x")
        @classmethod
        def _sign(cls, x: int) -> int:
            if x < 0 and not allow_negative:
                raise ValueError("x must not be negative")
            return x

    return Point


def test_parsing_is_apart_from_the_cache(tmp_path: Path) -> None:
    """A changed parser re-reads the paid answer; nothing is asked again."""
    strict, lenient = _point_class(False), _point_class(True)
    assert strict.model_json_schema() == lenient.model_json_schema()
    failed: Outcome[Any]
    parsed: Outcome[Any]
    with FakeLLM(scripted(Reply(content='{"x": -1, "y": 2}'), Reply(content=GOOD))) as server:
        failed, _ = run(
            server,
            lambda c: c.structured(MESSAGES, strict, stage="gen", repairs=0),
            cache=ResponseCache(tmp_path),
        )
        parsed, client = run(
            server,
            lambda c: c.structured(MESSAGES, lenient, stage="gen", repairs=0),
            cache=ResponseCache(tmp_path),
        )
        assert server.count == 1
    assert failed.rejection is not None and failed.rejection.reason == "schema_violation"
    assert parsed.ok and parsed.value is not None
    assert parsed.value.model_dump() == {"x": -1, "y": 2}
    assert client.ledger.stage("gen").cached == 1


def test_a_changed_schema_is_a_new_request(tmp_path: Path) -> None:
    """The schema is sent to the server, so it is part of the cache key (pinned)."""

    class Other(BaseModel):
        x: int

    with FakeLLM(scripted(Reply(content=GOOD))) as server:
        run(server, ask_point(), cache=ResponseCache(tmp_path))
        run(
            server,
            lambda c: c.structured(MESSAGES, Other, stage="gen"),
            cache=ResponseCache(tmp_path),
        )
        assert server.count == 2
        assert [r["response_format"]["json_schema"]["name"] for r in server.requests] == [
            "Point",
            "Other",
        ]


def test_the_key_is_the_request_whatever_the_order_of_its_fields() -> None:
    request = {"model": "m", "messages": [{"role": "user", "content": "Zoë"}], "seed": 0}
    same = {"seed": 0, "messages": [{"content": "Zoë", "role": "user"}], "model": "m"}
    assert ResponseCache.key(request) == ResponseCache.key(same)
    assert len(ResponseCache.key(request)) == 64
    assert ResponseCache.key(request) != ResponseCache.key({**request, "seed": 1})


def test_put_then_get_one_file_per_request(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "llm-cache")
    assert len(cache) == 0 and cache.get("ab" * 32) is None
    answer = Completion(content="hello", finish_reason="stop", prompt_tokens=3, model="m")
    cache.put("ab" * 32, answer)
    cache.put("cd" * 32, answer.model_copy(update={"content": "again"}))
    assert cache.get("ab" * 32) == answer
    assert len(cache) == 2
    assert sorted(p.relative_to(cache.root).as_posix() for p in cache.root.rglob("*")) == [
        "ab",
        f"ab/{'ab' * 32}.json",
        "cd",
        f"cd/{'cd' * 32}.json",
    ]  # no temporary left behind
