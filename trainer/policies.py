"""Policies that are not being trained: any model behind an OpenAI-compatible endpoint.

Eval runs these as the agent with native tool calling (the endpoint parses the model's
calls); a model that writes a call the endpoint cannot parse shows up as an invalid
call in the score, not as a crash. With `text_calls`, calls the model wrote as text
(`<tool_call>` blocks, fenced JSON naming an offered tool) are read as calls: small local
models answer that way, and without it they score 0 for their format alone.
"""

from __future__ import annotations

import time
from typing import Any

from openai import OpenAI

from toolscale.trajectory import FunctionCall, Message, MessageToolCall
from trainer.episode import Turn
from trainer.toolcalls import calls_in_text


class EndpointError(RuntimeError):
    """The agent's endpoint failed past its retries: the trial cannot be scored."""


class OpenAIPolicy:
    def __init__(
        self,
        model: str,
        base_url: str,
        api_key: str = "none",
        temperature: float = 0.0,
        max_tokens: int = 1024,
        timeout_s: float = 300.0,
        client: Any | None = None,
        text_calls: bool = False,
    ):
        self.model = model
        self.text_calls = text_calls
        self.turns = 0
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.client = client or OpenAI(
            base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=3
        )

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        started = time.perf_counter()
        try:
            request: dict[str, Any] = {
                "model": self.model,
                "messages": [m.model_dump(exclude_none=True) for m in messages],
                "temperature": self.temperature,
                "max_tokens": self.max_tokens,
            }
            if tools:
                request["tools"] = tools
            response = self.client.chat.completions.create(**request)
        except Exception as e:  # the openai client's errors and transport errors alike
            raise EndpointError(f"{self.model}: {type(e).__name__}: {e}") from e
        seconds = time.perf_counter() - started
        if not response.choices:
            raise EndpointError(f"{self.model}: the endpoint answered with no choices")
        said = response.choices[0].message
        calls = [
            MessageToolCall(
                id=tc.id or f"call_{i}",
                function=FunctionCall(
                    name=tc.function.name, arguments=tc.function.arguments or "{}"
                ),
            )
            for i, tc in enumerate(said.tool_calls or [])
            if getattr(tc, "function", None) is not None
        ]
        content = said.content
        if not calls and self.text_calls and content:
            offered = {t["function"]["name"] for t in tools}
            calls = calls_in_text(content, offered, self.turns)
            content = None if calls else content
        self.turns += 1
        usage = response.usage
        return Turn(
            message=Message(role="assistant", content=content, tool_calls=calls or None),
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            seconds=seconds,
        )
