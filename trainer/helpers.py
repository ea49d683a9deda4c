"""Other models offered to the policy as priced tools (`ask_<name>`).

ToolOrchestra's orchestrator learns when a question is worth a stronger, dearer model.
Here any OpenAI-compatible endpoint can be such a tool: the policy calls
`ask_<name>(question)`, the endpoint answers, and the episode is charged the tokens at
the configured prices and the configured latency (not the measured one, so a reward does
not depend on how busy a machine was).
"""

from __future__ import annotations

import json
import re
from typing import Any, Protocol

from openai import OpenAI, OpenAIError
from pydantic import BaseModel, ConfigDict, Field, field_validator

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")


class Helper(Protocol):
    """What an episode needs of another model: its tool schema, and asking it."""

    def schema(self) -> dict: ...

    def ask(self, arguments: str) -> HelperCall: ...


class HelperCall(BaseModel):
    """One question put to another model, and what it cost."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    content: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0
    latency_ms: float = 0.0
    ok: bool = True


class HelperConfig(BaseModel):
    """A model behind an endpoint, its prices (USD per million tokens) and its latency."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(description="the tool is ask_<name>")
    model: str
    base_url: str
    api_key: str = "none"
    input_per_mtok: float = Field(default=0.0, ge=0)
    output_per_mtok: float = Field(default=0.0, ge=0)
    latency_ms: float = Field(default=0.0, ge=0, description="charged per call")
    max_tokens: int = Field(default=512, gt=0)
    timeout_s: float = Field(default=120.0, gt=0)
    description: str = "a general model that answers questions in words; it cannot see the database"

    @field_validator("name")
    @classmethod
    def _plain_name(cls, v: str) -> str:
        if not _NAME.match(v):
            raise ValueError(f"{v!r}: a helper name is lower-case letters, digits and _")
        return v

    @property
    def tool(self) -> str:
        return f"ask_{self.name}"


class HelperModel:
    """Calls one helper endpoint; a failure is an answer that says so, never an exception
    that would end the episode."""

    def __init__(self, config: HelperConfig, client: Any | None = None):
        self.config = config
        self.client = client or OpenAI(
            base_url=config.base_url, api_key=config.api_key, timeout=config.timeout_s
        )

    def schema(self) -> dict:
        c = self.config
        price = f"${c.input_per_mtok:g}/M input and ${c.output_per_mtok:g}/M output tokens"
        return {
            "type": "function",
            "function": {
                "name": c.tool,
                "description": f"Ask {c.model}: {c.description}. Costs {price}, "
                f"about {c.latency_ms:g} ms.",
                "parameters": {
                    "type": "object",
                    "properties": {"question": {"type": "string", "description": "the question"}},
                    "required": ["question"],
                    "additionalProperties": False,
                },
            },
        }

    def price(self, prompt_tokens: int, completion_tokens: int) -> float:
        c = self.config
        return (prompt_tokens * c.input_per_mtok + completion_tokens * c.output_per_mtok) / 1e6

    def ask(self, arguments: str) -> HelperCall:
        c = self.config
        try:
            question = json.loads(arguments or "{}").get("question")
        except (json.JSONDecodeError, AttributeError):
            question = None
        if not isinstance(question, str) or not question.strip():
            return HelperCall(tool=c.tool, content='error: ask with {"question": "..."}', ok=False)
        try:
            response = self.client.chat.completions.create(
                model=c.model,
                messages=[{"role": "user", "content": question}],
                max_tokens=c.max_tokens,
            )
        except OpenAIError as e:
            return HelperCall(
                tool=c.tool,
                content=f"error: {c.tool} failed ({type(e).__name__})",
                ok=False,
                latency_ms=c.latency_ms,
            )
        if not response.choices:
            return HelperCall(tool=c.tool, content=f"error: {c.tool} gave no answer", ok=False)
        usage = response.usage
        prompt = usage.prompt_tokens if usage else 0
        completion = usage.completion_tokens if usage else 0
        return HelperCall(
            tool=c.tool,
            content=response.choices[0].message.content or "",
            prompt_tokens=prompt,
            completion_tokens=completion,
            cost=self.price(prompt, completion),
            latency_ms=c.latency_ms,
        )


def helper_models(configs: list[HelperConfig]) -> dict[str, HelperModel]:
    """Tool name -> helper; two helpers may not share a name."""
    out: dict[str, HelperModel] = {}
    for config in configs:
        if config.tool in out:
            raise ValueError(f"two helpers are named {config.name!r}")
        out[config.tool] = HelperModel(config)
    return out
