"""Where the model is: from code or the TOOLSCALE_LLM_* variables, bad numbers named."""

from __future__ import annotations

import pytest

from toolscale.llm.config import DEFAULT_OPENAI_URL, LLMConfig


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
