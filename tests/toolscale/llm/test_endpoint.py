"""Which endpoint a run talks to: the one given, else the configured one, else the embedded
server for the block's duration; overrides that are set replace the chosen fields."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

import toolscale.llm.local
from toolscale.llm.endpoint import EMBEDDED_TIMEOUT_S, endpoint

VARIABLES = ("TOOLSCALE_LLM_MODEL", "TOOLSCALE_LLM_URL", "TOOLSCALE_LLM_KEY", "OPENAI_API_KEY")


@pytest.fixture
def no_configured_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in VARIABLES:
        monkeypatch.delenv(var, raising=False)


class Embedded:
    """Stands in for the embedded server: records how it was asked for and when it stopped."""

    def __init__(self) -> None:
        self.asked: list[dict[str, Any]] = []
        self.running = False

    @contextlib.contextmanager
    def __call__(self, **kwargs: Any) -> Iterator[tuple[str, str]]:
        self.asked.append(kwargs)
        self.running = True
        try:
            yield "http://127.0.0.1:9999/v1", "qwen-fake"
        finally:
            self.running = False


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> Embedded:
    fake = Embedded()
    monkeypatch.setattr(toolscale.llm.local, "embedded_endpoint", fake)
    return fake


def test_a_given_url_and_model_win(monkeypatch: pytest.MonkeyPatch, embedded: Embedded) -> None:
    monkeypatch.setenv("TOOLSCALE_LLM_MODEL", "configured")
    with endpoint("http://gpu:8000/v1", "qwen", "1.5b", parallel=8) as config:
        assert (config.base_url, config.model, config.concurrency) == (
            "http://gpu:8000/v1",
            "qwen",
            8,
        )
    assert embedded.asked == []


def test_the_configured_endpoint_with_the_overrides_that_are_set(
    monkeypatch: pytest.MonkeyPatch, embedded: Embedded
) -> None:
    monkeypatch.setenv("TOOLSCALE_LLM_MODEL", "configured")
    monkeypatch.setenv("TOOLSCALE_LLM_URL", "http://vllm:8000/v1")
    monkeypatch.setenv("TOOLSCALE_LLM_CONCURRENCY", "16")
    with endpoint("http://ignored/v1", None, "1.5b", 2, timeout_s=5.0, max_attempts=None) as config:
        assert (config.base_url, config.model) == ("http://vllm:8000/v1", "configured")
        assert (config.concurrency, config.timeout_s, config.max_attempts) == (16, 5.0, 6)
    assert embedded.asked == []


def test_with_nothing_configured_the_embedded_server_runs_for_the_block(
    no_configured_endpoint: None, embedded: Embedded
) -> None:
    with endpoint(None, None, "0.5b", parallel=3, max_tokens=512) as config:
        assert embedded.running
        assert (config.base_url, config.model) == ("http://127.0.0.1:9999/v1", "qwen-fake")
        assert (config.concurrency, config.timeout_s) == (3, EMBEDDED_TIMEOUT_S)
        assert config.max_tokens == 512
    assert not embedded.running
    assert embedded.asked == [{"size": "0.5b", "parallel": 3, "console": None}]


def test_the_embedded_server_stops_when_the_block_fails(
    no_configured_endpoint: None, embedded: Embedded
) -> None:
    with pytest.raises(RuntimeError), endpoint(None, None, "0.5b", 1):
        assert embedded.running
        raise RuntimeError("the run failed")
    assert not embedded.running
