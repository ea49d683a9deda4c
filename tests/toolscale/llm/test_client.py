"""LLMClient against a fake OpenAI-compatible server: what a run spends, what the cache
saves, which faults are survived and how the rest come back as rejections, the repair loop,
bounded concurrency, and configuration from the environment."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pydantic import BaseModel, field_validator

from toolscale.errors import ToolscaleError
from toolscale.llm.cache import Completion, ResponseCache
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.llm.config import DEFAULT_OPENAI_URL, LLMConfig
from toolscale.llm.ledger import Ledger, Usage
from toolscale.report import Rejection
from toolscale.testing.fakellm import FakeLLM, Reply, faulty, scripted

R = TypeVar("R")

MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "hi"}]
GOOD = '{"x": 1, "y": 2}'


class Point(BaseModel):
    x: int
    y: int


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy from the environment would swallow requests meant for the local fake."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)


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


# ----------------------------------------------------------------------------- the fake


def test_fake_server_health_models_and_default_usage() -> None:
    """The fake is a test double others rely on (flows, bench): its surface is pinned."""
    with FakeLLM(scripted(Reply(content="12345678"))) as server:
        root = server.base_url.removesuffix("/v1")
        with urllib.request.urlopen(f"{root}/health", timeout=2) as response:
            assert json.load(response) == {"status": "ok"}
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=2) as response:
            assert json.load(response)["data"][0]["id"]
        request = urllib.request.Request(
            f"{server.base_url}/chat/completions",
            data=json.dumps({"model": "m", "messages": MESSAGES}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=2) as response:
            answer = json.load(response)
        assert server.count == 1
        assert server.requests == [{"model": "m", "messages": MESSAGES}]
    assert answer["model"] == "m"
    assert answer["object"] == "chat.completion"
    assert answer["choices"][0]["message"] == {"role": "assistant", "content": "12345678"}
    assert answer["usage"] == {
        "prompt_tokens": len(json.dumps(MESSAGES)) // 4,
        "completion_tokens": 2,
        "total_tokens": len(json.dumps(MESSAGES)) // 4 + 2,
    }


def test_scripted_repeats_the_last_reply_and_faulty_counts_from_zero() -> None:
    respond = faulty(scripted(Reply(content="a"), Reply(content="b")), {1: Reply.drop()})
    got = [respond({}) for _ in range(4)]
    assert [r.content for r in got] == ["a", None, "b", "b"]
    assert got[1].action == "drop"


# ----------------------------------------------------------------------------- completions


def test_completion_counts_tokens_and_cost_in_its_stage() -> None:
    timings = {"predicted_n": 500, "predicted_ms": 250.0, "prompt_n": 1000, "prompt_ms": 50.0}
    reply = Reply(content="hello", prompt_tokens=1000, completion_tokens=500, timings=timings)
    with FakeLLM(scripted(reply)) as server:
        answer, client = run(server, ask("draft"), price_in=2.0, price_out=10.0)
        sent = server.requests[0]
    assert isinstance(answer, Completion)
    assert (answer.content, answer.finish_reason, answer.model) == ("hello", "stop", "fake-model")
    assert answer.timings == timings
    usage = client.ledger.stage("draft")
    assert (usage.calls, usage.cached, usage.retries) == (1, 0, 0)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.tokens) == (1000, 500, 1500)
    assert usage.cost_usd == pytest.approx((1000 * 2.0 + 500 * 10.0) / 1e6)
    assert list(client.ledger.stages) == ["draft"]
    assert sent["messages"] == MESSAGES
    assert (sent["model"], sent["seed"], sent["temperature"]) == ("fake-model", 0, 0.7)


def test_ledger_total_and_merge_add_up_stages() -> None:
    a, b = Ledger(), Ledger()
    a.stage("x").calls, a.stage("x").cost_usd = 2, 0.5
    b.stage("x").calls, b.stage("y").prompt_tokens = 3, 7
    b.fail("y", "bad_json")
    a.merge(b)
    assert list(a.stages) == ["x", "y"]
    assert (a.stage("x").calls, a.stage("y").failures) == (5, {"bad_json": 1})
    total: Usage = a.total()
    assert (total.calls, total.prompt_tokens, total.cost_usd) == (5, 7, 0.5)


def test_ledger_since_a_snapshot_is_what_was_spent_after_it() -> None:
    ledger = Ledger()
    ledger.stage("x").calls = 2
    ledger.stage("idle").cached = 1
    mark = ledger.snapshot()
    ledger.stage("x").calls += 3
    ledger.fail("y", "bad_json")
    assert mark.stage("x").calls == 2  # the snapshot is not touched by later spending
    spent = ledger.since(mark)
    assert list(spent.stages) == ["x", "y"]  # a stage that spent nothing since is left out
    assert (spent.stage("x").calls, spent.stage("y").failures) == (3, {"bad_json": 1})


# ----------------------------------------------------------------------------- the cache


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


# ----------------------------------------------------------------------------- faults


def test_429_waits_retry_after_then_succeeds() -> None:
    sleeps = Sleeps()
    replies = scripted(Reply.status(429, retry_after=0.25), Reply(content="ok"))
    with FakeLLM(replies) as server:
        answer, client = run(server, ask(), sleep=sleeps)
        assert server.count == 2
    assert isinstance(answer, Completion) and answer.content == "ok"
    assert sleeps.waits == [0.25]
    usage = client.ledger.stage("gen")
    assert (usage.calls, usage.retries, usage.failures) == (1, 1, {})


@pytest.mark.parametrize(
    "fault",
    [
        Reply.status(500),
        Reply.status(503),
        Reply.hang(5.0),
        Reply.drop(),
        Reply.garbage("text/html"),
        Reply.garbage("application/json"),
    ],
    ids=["500", "503", "hang", "drop", "garbage-html", "garbage-json"],
)
def test_a_transient_fault_is_retried(fault: Reply) -> None:
    """A non-JSON 200 is retried like a 5xx (a proxy's error page), not an uncaught error."""
    sleeps = Sleeps()
    with FakeLLM(faulty(scripted(Reply(content="ok")), {0: fault})) as server:
        answer, client = run(server, ask(), sleep=sleeps, timeout_s=0.3)
        assert server.count == 2
    assert isinstance(answer, Completion) and answer.content == "ok"
    usage = client.ledger.stage("gen")
    assert (usage.calls, usage.retries, usage.failures) == (1, 1, {})
    assert len(sleeps.waits) == 1
    assert 0 <= sleeps.waits[0] <= 0.01


@pytest.mark.parametrize(
    ("fault", "why"),
    [
        (Reply.status(500), "server_error"),
        (Reply.status(429), "rate_limited"),
        (Reply.drop(), "connection_error"),
        (Reply.garbage(), "bad_response"),
    ],
    ids=["500", "429", "drop", "garbage"],
)
def test_when_every_attempt_fails_the_llm_is_unavailable(
    tmp_path: Path, fault: Reply, why: str
) -> None:
    sleeps = Sleeps()
    with FakeLLM(scripted(fault)) as server:
        answer, client = run(
            server, ask(), cache=ResponseCache(tmp_path), sleep=sleeps, max_attempts=4
        )
        assert server.count == 4
    assert isinstance(answer, Rejection)
    assert (answer.stage, answer.reason) == ("gen", "llm_unavailable")
    assert "4 attempts" in answer.detail and why in answer.detail
    usage = client.ledger.stage("gen")
    assert (usage.calls, usage.retries, usage.failures) == (0, 3, {"llm_unavailable": 1})
    assert len(sleeps.waits) == 3  # backoff between attempts, none after the last
    assert len(ResponseCache(tmp_path)) == 0


def test_a_timeout_on_every_attempt_is_unavailable() -> None:
    with FakeLLM(scripted(Reply.hang(5.0))) as server:
        answer, client = run(server, ask(), timeout_s=0.2, max_attempts=2)
        assert server.count == 2
    assert isinstance(answer, Rejection) and answer.reason == "llm_unavailable"
    assert "timeout" in answer.detail
    assert client.ledger.stage("gen").retries == 1


@pytest.mark.parametrize("code", [400, 401, 404, 422])
def test_a_4xx_is_refused_without_retries(code: int) -> None:
    sleeps = Sleeps()
    with FakeLLM(scripted(Reply.status(code), Reply(content="never"))) as server:
        answer, client = run(server, ask(), sleep=sleeps)
        assert server.count == 1
    assert isinstance(answer, Rejection) and answer.reason == "llm_refused"
    assert f"HTTP {code}" in answer.detail
    usage = client.ledger.stage("gen")
    assert (usage.calls, usage.retries, usage.failures) == (0, 0, {"llm_refused": 1})
    assert sleeps.waits == []


def test_structured_passes_a_refusal_through() -> None:
    with FakeLLM(scripted(Reply.status(400))) as server:
        outcome, _ = run(server, ask_point())
        assert server.count == 1
    assert outcome.rejection is not None and outcome.rejection.reason == "llm_refused"
    assert (outcome.value, outcome.attempts, outcome.raw) == (None, 1, [])


# ----------------------------------------------------------------------------- structured


def test_malformed_json_is_sent_back_and_repaired() -> None:
    bad = '{"x": 1,'
    with FakeLLM(scripted(Reply(content=bad), Reply(content=GOOD))) as server:
        outcome, client = run(server, ask_point())
        first, second = server.requests
    assert outcome.ok and outcome.value == Point(x=1, y=2)
    assert (outcome.attempts, outcome.raw) == (2, [bad, GOOD])
    assert client.ledger.stage("gen").repairs == 1
    assert first["response_format"]["type"] == "json_schema"
    assert first["response_format"]["json_schema"]["schema"] == Point.model_json_schema()
    assert second["messages"][: len(MESSAGES)] == MESSAGES
    assert len(second["messages"]) == len(MESSAGES) + 2
    assert second["messages"][-2] == {"role": "assistant", "content": bad}
    feedback = second["messages"][-1]
    assert feedback["role"] == "user"
    assert "not valid JSON" in feedback["content"]


def test_a_schema_violation_is_sent_back_and_repaired() -> None:
    bad = '{"x": "one", "y": 2}'
    with FakeLLM(scripted(Reply(content=bad), Reply(content=GOOD))) as server:
        outcome, client = run(server, ask_point())
        feedback = server.requests[1]["messages"][-1]["content"]
    assert outcome.ok and outcome.value == Point(x=1, y=2)
    assert client.ledger.stage("gen").repairs == 1
    assert "- x: " in feedback


@pytest.mark.parametrize(
    ("bad", "reason"),
    [('{"x": 1', "bad_json"), ("", "bad_json"), ('{"x": 1}', "schema_violation")],
    ids=["cut", "empty", "missing-field"],
)
def test_an_answer_that_stays_bad_is_rejected(bad: str, reason: str) -> None:
    with FakeLLM(scripted(Reply(content=bad))) as server:
        outcome, client = run(server, ask_point(repairs=2))
        assert server.count == 3
    assert outcome.value is None and outcome.rejection is not None
    assert (outcome.rejection.reason, outcome.rejection.stage) == (reason, "gen")
    assert "after 3 attempt(s)" in outcome.rejection.detail
    assert (outcome.attempts, outcome.raw) == (3, [bad] * 3)
    usage = client.ledger.stage("gen")
    assert (usage.calls, usage.repairs, usage.failures) == (3, 2, {reason: 1})


def _positive(point: Point) -> int:
    if point.x < 0:
        raise Invalid(["x is wrong"], reason="sql_rejected")
    return point.x * 10


def test_a_failed_check_is_sent_back_until_it_passes() -> None:
    replies = [Reply(content=f'{{"x": {x}, "y": 0}}') for x in (-1, -2, 3)]
    with FakeLLM(scripted(*replies)) as server:
        outcome, client = run(server, ask_point(check=_positive, repairs=2))
        last = server.requests[-1]["messages"]
    assert outcome.ok and outcome.value == 30
    assert outcome.attempts == 3
    assert client.ledger.stage("gen").repairs == 2
    assert [m["role"] for m in last[len(MESSAGES) :]] == ["assistant", "user"] * 2
    assert "- x is wrong" in last[-1]["content"]


def test_a_check_that_keeps_failing_gives_its_own_reason() -> None:
    with FakeLLM(scripted(Reply(content='{"x": -1, "y": 0}'))) as server:
        outcome, client = run(server, ask_point(check=_positive, repairs=1))
        assert server.count == 2
    assert outcome.rejection is not None
    assert outcome.rejection.reason == "sql_rejected"
    assert "x is wrong" in outcome.rejection.detail
    assert outcome.rejection.item == '{"x": -1, "y": 0}'
    assert client.ledger.stage("gen").failures == {"sql_rejected": 1}


def test_invalid_without_problems_still_says_something() -> None:
    error = Invalid(["", ""])
    assert (error.problems, error.reason) == (["the answer was not accepted"], "check_failed")
    assert isinstance(error, ToolscaleError) and error.detail == "the answer was not accepted"


def _broken_check(point: Point) -> int:
    return int(str(point.x) + "!")  # the caller's own bug: a ValueError, not the model's


def test_a_checks_own_value_error_propagates_and_is_not_bad_json() -> None:
    clients: list[LLMClient] = []

    async def body(client: LLMClient) -> Outcome[int]:
        clients.append(client)
        return await client.structured(MESSAGES, Point, stage="gen", check=_broken_check)

    with FakeLLM(scripted(Reply(content=GOOD))) as server:
        with pytest.raises(ValueError, match="invalid literal for int"):
            run(server, body)
        assert server.count == 1  # nothing was sent back to the model as feedback
    usage = clients[0].ledger.stage("gen")
    assert (usage.failures, usage.repairs) == ({}, 0)


def _model_built_in_the_check(point: Point) -> Point:
    return Point.model_validate({"x": point.x, "y": "not a number"})


def test_a_validation_error_from_a_checks_own_model_is_a_schema_violation() -> None:
    with FakeLLM(scripted(Reply(content=GOOD))) as server:
        outcome, client = run(server, ask_point(check=_model_built_in_the_check, repairs=1))
        assert server.count == 2
    assert outcome.rejection is not None and outcome.rejection.reason == "schema_violation"
    assert client.ledger.stage("gen").failures == {"schema_violation": 1}


@pytest.mark.parametrize("content", [f"```json\n{GOOD}\n```", f"```\n{GOOD}\n```", f"  \n{GOOD}\n"])
def test_a_fenced_answer_parses(content: str) -> None:
    with FakeLLM(scripted(Reply(content=content))) as server:
        outcome, _ = run(server, ask_point())
        assert server.count == 1
    assert outcome.ok and outcome.value == Point(x=1, y=2)


def test_a_cut_answer_at_the_token_limit_is_truncated() -> None:
    with FakeLLM(scripted(Reply(content='{"x": 1, "y"', finish_reason="length"))) as server:
        outcome, client = run(server, ask_point(repairs=0))
    assert outcome.rejection is not None and outcome.rejection.reason == "truncated"
    assert client.ledger.stage("gen").failures == {"truncated": 1}


# ----------------------------------------------------------------------------- concurrency


def test_concurrency_is_bounded_and_fully_used() -> None:
    async def many(client: LLMClient) -> list[Completion | Rejection]:
        asks = [
            client.complete([{"role": "user", "content": f"q{i}"}], stage="gen") for i in range(12)
        ]
        return await asyncio.gather(*asks)

    with FakeLLM(scripted(Reply(content="ok")), latency_s=0.1) as server:
        answers, client = run(server, many, concurrency=3, timeout_s=2.0)
        assert server.count == 12
        assert server.max_concurrent == 3
    assert client.max_in_flight == 3
    assert client.in_flight == 0
    assert all(isinstance(a, Completion) and a.content == "ok" for a in answers)
    assert client.ledger.stage("gen").calls == 12


# ----------------------------------------------------------------------------- configuration


def test_no_model_means_no_endpoint() -> None:
    assert LLMConfig.from_env({}) is None
    assert LLMConfig.from_env({"TOOLSCALE_LLM_MODEL": "  ", "OPENAI_API_KEY": "k"}) is None


def test_a_model_alone_is_an_openai_model() -> None:
    cfg = LLMConfig.from_env({"TOOLSCALE_LLM_MODEL": "gpt-x"})
    assert cfg is not None
    assert (cfg.model, cfg.base_url, cfg.api_key) == ("gpt-x", DEFAULT_OPENAI_URL, "not-needed")


def test_url_model_key_and_numbers_from_env() -> None:
    cfg = LLMConfig.from_env(
        {
            "TOOLSCALE_LLM_MODEL": "qwen",
            "TOOLSCALE_LLM_URL": "http://localhost:8000/v1",
            "OPENAI_API_KEY": "sk-secret",
            "TOOLSCALE_LLM_CONCURRENCY": "16",
            "TOOLSCALE_LLM_PRICE_IN": "0.5",
            "TOOLSCALE_LLM_TIMEOUT": "30",
        }
    )
    assert cfg is not None
    assert (cfg.model, cfg.base_url, cfg.api_key) == (
        "qwen",
        "http://localhost:8000/v1",
        "sk-secret",
    )
    assert (cfg.concurrency, cfg.price_in, cfg.timeout_s) == (16, 0.5, 30.0)
    assert "sk-secret" not in repr(cfg)


def test_the_toolscale_key_wins_over_openai_api_key() -> None:
    env = {"TOOLSCALE_LLM_MODEL": "m", "TOOLSCALE_LLM_KEY": "ours", "OPENAI_API_KEY": "theirs"}
    cfg = LLMConfig.from_env(env)
    assert cfg is not None and cfg.api_key == "ours"


def test_from_env_reads_the_process_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCALE_LLM_MODEL", "from-process")
    monkeypatch.delenv("TOOLSCALE_LLM_URL", raising=False)
    cfg = LLMConfig.from_env()
    assert cfg is not None and cfg.model == "from-process"


@pytest.mark.parametrize(
    ("var", "value"),
    [
        ("TOOLSCALE_LLM_CONCURRENCY", "abc"),
        ("TOOLSCALE_LLM_CONCURRENCY", "0"),
        ("TOOLSCALE_LLM_TIMEOUT", "-1"),
        ("TOOLSCALE_LLM_PRICE_OUT", "cheap"),
    ],
)
def test_a_bad_number_names_its_variable(var: str, value: str) -> None:
    with pytest.raises(ValueError, match=var) as caught:
        LLMConfig.from_env({"TOOLSCALE_LLM_MODEL": "m", var: value})
    assert repr(value) in str(caught.value)
