"""LLMClient against a fake OpenAI-compatible server: what a call spends, which faults are
survived and how the rest come back as rejections, the repair loop, bounded concurrency."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.toolscale.llm.clients import GOOD, MESSAGES, Point, Sleeps, ask, ask_point, run
from toolscale.errors import ToolscaleError
from toolscale.llm.cache import Completion, ResponseCache
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.report import Rejection
from toolscale.testing.fakellm import FakeLLM, Reply, faulty, scripted

pytestmark = pytest.mark.usefixtures("no_proxy")  # the fake endpoint is local


# ------------------------------------------------------------------ completions


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


# ----------------------------------------------------------------------- faults


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


# ------------------------------------------------------------------- structured


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


# ------------------------------------------------------------------ concurrency


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


def test_a_cut_answer_is_asked_for_again_shorter_not_sent_back() -> None:
    """Restaurant's tool choice: a 5,990-token prompt and an answer cut at 2,048 tokens;
    sending the cut answer back with a repair filled the slot's 8,192-token context."""
    cut = Reply(content='{"x": 1, "y"', finish_reason="length")
    with FakeLLM(scripted(cut, Reply(content=GOOD))) as server:
        outcome, _ = run(server, ask_point(repairs=1))
        second = server.requests[1]["messages"]
    assert outcome.ok and outcome.value == Point(x=1, y=2)
    assert all(m["role"] != "assistant" for m in second), "the cut answer is not sent back"
    assert "cut off at the length limit" in second[-1]["content"]
