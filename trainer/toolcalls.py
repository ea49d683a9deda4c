"""Tool calls in a policy's own words: Qwen's `<tool_call>{json}</tool_call>` format.

A policy that generates text (the trainer's model, before any server parses its output)
writes its calls inside its chat template's tags. Reading them is where a small model
goes wrong most often, so the reader tolerates what is harmless (a code fence round the
JSON, `parameters` for `arguments`, arguments as a JSON string, a missing closing tag at
the very end) and names what is not, so a rollout with a broken call is counted as
invalid format instead of silently doing less.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from toolscale.trajectory import FunctionCall, Message, MessageToolCall

OPEN, CLOSE = "<tool_call>", "</tool_call>"
_BLOCK = re.compile(re.escape(OPEN) + r"(.*?)(?:" + re.escape(CLOSE) + r"|\Z)", re.S)
_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.S)
_THINK = re.compile(r"<think>.*?</think>", re.S)


@dataclass
class ParsedReply:
    """One assistant turn read back: its words, its calls, and what could not be read."""

    content: str
    calls: list[MessageToolCall] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors

    def message(self) -> Message:
        return Message(
            role="assistant", content=self.content or None, tool_calls=self.calls or None
        )


def _one_call(text: str, call_id: str) -> MessageToolCall | str:
    """A block's JSON as a call, or the problem with it in words."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1)
    try:
        value = json.loads(body)
    except json.JSONDecodeError as e:
        return f"not JSON ({e.msg} at character {e.pos})"
    if not isinstance(value, dict):
        return f"a {type(value).__name__}, not an object with name and arguments"
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        return "no tool name (the object needs a string `name`)"
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments or "{}")
        except json.JSONDecodeError as e:
            return f"{name}: arguments are a string that is not JSON ({e.msg})"
    if not isinstance(arguments, dict):
        return f"{name}: arguments must be an object, got {type(arguments).__name__}"
    text_args = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    return MessageToolCall(
        id=call_id, function=FunctionCall(name=name.strip(), arguments=text_args)
    )


def parse_reply(text: str, turn: int = 0) -> ParsedReply:
    """Split a generated turn into its words and its calls; call ids are `call_<turn>_<i>`
    so the tool messages of a whole episode can be told apart."""
    visible = _THINK.sub("", text)
    calls: list[MessageToolCall] = []
    errors: list[str] = []
    for i, block in enumerate(_BLOCK.finditer(visible)):
        parsed = _one_call(block.group(1), f"call_{turn}_{i}")
        if isinstance(parsed, str):
            errors.append(f"tool call {i + 1}: {parsed}")
        else:
            calls.append(parsed)
    if CLOSE in visible and visible.count(CLOSE) > visible.count(OPEN):
        errors.append(f"a {CLOSE} with no {OPEN} before it")
    content = _BLOCK.sub("", visible).replace(CLOSE, "").strip()
    return ParsedReply(content=content, calls=calls, errors=errors)


_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.S)


def calls_in_text(text: str, tools: set[str], turn: int = 0) -> list[MessageToolCall]:
    """Calls a model wrote as text instead of through the endpoint's tool calling: its
    `<tool_call>` blocks, else JSON objects in code fences (or the whole answer) that name
    an offered tool. Small local models (the embedded Qwen2.5-Coder) answer this way."""
    tagged = parse_reply(text, turn)
    if tagged.calls:
        return [c for c in tagged.calls if c.function.name in tools]
    bodies = _FENCED.findall(text) or [text.strip()]
    calls = []
    for i, body in enumerate(bodies):
        call = _one_call(body, f"call_{turn}_{i}")
        if isinstance(call, MessageToolCall) and call.function.name in tools:
            calls.append(call)
    return calls
