"""The fake OpenAI-compatible server is a test double others rely on (flows, bench): its
surface is pinned."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.toolscale.llm.clients import MESSAGES
from toolscale.testing.fakellm import FakeLLM, Reply, faulty, scripted

pytestmark = pytest.mark.usefixtures("no_proxy")  # the fake endpoint is local


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
