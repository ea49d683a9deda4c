"""Which endpoint a run talks to: the one given, else the configured one, else the embedded
llama.cpp server, started for the run and always stopped."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from rich.console import Console

from toolscale.llm.config import LLMConfig

EMBEDDED_TIMEOUT_S = 900.0  # a CPU server answers a long prompt in minutes, not seconds


@contextlib.contextmanager
def endpoint(
    base_url: str | None,
    model: str | None,
    model_size: str,
    parallel: int,
    console: Console | None = None,
    **overrides: Any,
) -> Iterator[LLMConfig]:
    """`base_url` and `model` when both are given, else `LLMConfig.from_env()`, else the
    embedded server of `model_size` with `parallel` slots for the block's duration; the
    `overrides` that are not None replace the chosen configuration's fields."""
    overrides = {k: v for k, v in overrides.items() if v is not None}
    endpoints = overrides.pop("endpoints", None) or []
    config = LLMConfig.from_env()
    if base_url and model:
        config = LLMConfig(
            base_url=base_url, model=model, concurrency=parallel, endpoints=endpoints
        )
    if config is not None:
        yield config.model_copy(update=overrides)
        return
    from toolscale.llm.local import embedded_endpoint  # builds and fetches on first use

    with embedded_endpoint(size=model_size, parallel=parallel, console=console) as (url, name):
        config = LLMConfig(
            base_url=url, model=name, concurrency=parallel, timeout_s=EMBEDDED_TIMEOUT_S
        )
        yield config.model_copy(update=overrides)
