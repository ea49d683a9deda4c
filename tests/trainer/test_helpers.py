"""Another model as a priced tool, against the fake endpoint: answered, charged at the
configured prices and latency; a failure is an answer that says so."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from toolscale.testing.fakellm import FakeLLM, Reply
from trainer.helpers import HelperConfig, HelperModel, helper_models


def config(url: str) -> HelperConfig:
    return HelperConfig(
        name="big",
        model="big-model",
        base_url=url,
        input_per_mtok=3.0,
        output_per_mtok=15.0,
        latency_ms=800.0,
        timeout_s=5.0,
    )


def test_an_answer_is_charged_at_the_configured_prices(no_proxy: None) -> None:
    reply = Reply(content="Use the savings account.", prompt_tokens=100, completion_tokens=20)
    with FakeLLM(lambda body: reply) as fake:
        helper = HelperModel(config(fake.base_url))
        asked = helper.ask('{"question": "which account?"}')
        sent = fake.requests[0]["messages"]
    assert asked.ok and asked.content == "Use the savings account." and asked.tool == "ask_big"
    assert asked.cost == pytest.approx((100 * 3.0 + 20 * 15.0) / 1e6) and asked.latency_ms == 800
    assert sent == [{"role": "user", "content": "which account?"}]
    schema = helper.schema()["function"]
    assert schema["name"] == "ask_big" and "$3/M input" in schema["description"]


def test_failures_and_bad_questions_are_answers_not_exceptions(no_proxy: None) -> None:
    with FakeLLM(lambda body: Reply.status(400)) as fake:
        failed = HelperModel(config(fake.base_url)).ask('{"question": "hi"}')
        unasked = HelperModel(config(fake.base_url)).ask('{"q": 1}')
    assert not failed.ok and failed.content.startswith("error: ask_big failed")
    assert not unasked.ok and "question" in unasked.content


def test_names_are_checked() -> None:
    with pytest.raises(ValidationError, match="lower-case"):
        HelperConfig(name="Big Model", model="m", base_url="http://x")
    with pytest.raises(ValueError, match="two helpers are named 'big'"):
        helper_models([config("http://x"), config("http://y")])
