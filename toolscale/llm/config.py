"""Where the model is and how to call it: one configuration, from code or the environment."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toolscale.errors import pydantic_problems

DEFAULT_OPENAI_URL = "https://api.openai.com/v1"


class LLMConfig(BaseModel):
    """Where the model is and how to call it; `from_env` reads the TOOLSCALE_LLM_* variables."""

    model_config = ConfigDict(extra="forbid")

    base_url: str = DEFAULT_OPENAI_URL
    endpoints: list[str] = Field(
        default_factory=list,
        description="several servers of the same model (`base_url` is the first): requests go "
        "to the one with the least outstanding work; `URL#N` gives one N slots",
    )
    model: str
    api_key: str = Field(default="not-needed", repr=False)
    concurrency: int = Field(default=4, ge=1, le=512)
    timeout_s: float = Field(default=300.0, gt=0)
    max_attempts: int = Field(default=6, ge=1, description="tries per request on transient errors")
    backoff_s: float = Field(default=0.5, ge=0, description="first backoff; doubles, with jitter")
    max_backoff_s: float = Field(default=30.0, ge=0)
    temperature: float = Field(default=0.7, ge=0, le=2)
    max_tokens: int = Field(default=2048, ge=16)
    price_in: float = Field(default=0.0, ge=0, description="USD per 1M prompt tokens")
    price_out: float = Field(default=0.0, ge=0, description="USD per 1M completion tokens")

    def servers(self) -> list[tuple[str, int]]:
        """Each server and its slots: `endpoints` when given (`URL#N`: N slots, else
        `concurrency`), else `base_url`."""
        out = []
        for url in self.endpoints or [self.base_url]:
            base, _, slots = url.partition("#")
            if slots and not slots.isdigit():
                raise ValueError(f"endpoint {url!r}: after # comes its number of slots")
            out.append((base, int(slots) if slots else self.concurrency))
        return out

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> LLMConfig | None:
        """The configured endpoint, or None when none is (the embedded model is used then).

        An endpoint is configured by TOOLSCALE_LLM_MODEL; TOOLSCALE_LLM_URL defaults to
        OpenAI, and may list several servers (commas or spaces between them); the key is
        TOOLSCALE_LLM_KEY or OPENAI_API_KEY.
        """
        env = os.environ if env is None else env
        model = env.get("TOOLSCALE_LLM_MODEL", "").strip()
        if not model:
            return None
        values: dict[str, Any] = {"model": model}
        urls = re.split(r"[\s,]+", env.get("TOOLSCALE_LLM_URL", "").strip())
        urls = [u for u in urls if u] or [DEFAULT_OPENAI_URL]
        values["base_url"] = urls[0].split("#")[0]
        if len(urls) > 1:
            values["endpoints"] = urls
        key = env.get("TOOLSCALE_LLM_KEY") or env.get("OPENAI_API_KEY")
        if key:
            values["api_key"] = key
        numeric = {
            "TOOLSCALE_LLM_CONCURRENCY": "concurrency",
            "TOOLSCALE_LLM_PRICE_IN": "price_in",
            "TOOLSCALE_LLM_PRICE_OUT": "price_out",
            "TOOLSCALE_LLM_TIMEOUT": "timeout_s",
        }
        for var, name in numeric.items():
            if env.get(var):
                values[name] = env[var]
        try:
            return cls.model_validate(values)
        except ValidationError as e:  # a ValueError like any bad argument; the CLI prints it
            field = e.errors()[0]["loc"][0]
            var = next((v for v, n in numeric.items() if n == field), str(field))
            problems = "; ".join(pydantic_problems(e, limit=1))
            raise ValueError(f"{var}={env.get(var)!r}: {problems}") from e
