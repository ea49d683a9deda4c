"""Trajectories as OpenAI chat messages: what agents produce and datasets publish."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from toolscale.tool import ToolCall


class FunctionCall(BaseModel):
    name: str
    arguments: str = Field(description="JSON text, exactly as OpenAI sends it")


class MessageToolCall(BaseModel):
    id: str
    type: Literal["function"] = "function"
    function: FunctionCall


class Message(BaseModel):
    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[MessageToolCall] | None = None
    tool_call_id: str | None = None


class Trajectory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    messages: list[Message]

    @classmethod
    def of(cls, value: Trajectory | list[dict[str, Any]] | list[Message]) -> Trajectory:
        if isinstance(value, Trajectory):
            return value
        return cls(messages=[Message.model_validate(m) for m in value])

    def calls(self) -> list[ToolCall | str]:
        """Tool calls in order; a call whose arguments are not a JSON object is its error text."""
        out: list[ToolCall | str] = []
        for message in self.messages:
            for tc in message.tool_calls or []:
                try:
                    args = json.loads(tc.function.arguments or "{}")
                except json.JSONDecodeError as e:
                    out.append(f"{tc.function.name}: arguments are not JSON ({e.msg})")
                    continue
                if not isinstance(args, dict):
                    out.append(f"{tc.function.name}: arguments must be a JSON object")
                    continue
                try:
                    out.append(ToolCall(name=tc.function.name, arguments=args))
                except ValueError as e:
                    out.append(f"{tc.function.name}: {e}")
        return out

    def final_answer(self) -> str:
        for message in reversed(self.messages):
            if message.role == "assistant" and not message.tool_calls and message.content:
                return message.content
        return ""

    @property
    def turns(self) -> int:
        return sum(1 for m in self.messages if m.role == "assistant")


# The user's answer when the agent asks to go on with a write, as every policy asks ("go on
# only after the user explicitly confirms (yes)"): the gold conversations carry it, and the
# episode runner's user gives it, so an agent that confirms first is neither taught nor
# scored otherwise.
CONFIRMED = "Yes, go ahead."

# A turn without a call that asks the user to let a change go ahead: "Shall I go ahead?",
# "Do you confirm?", "Would you like me to proceed?", "Is that OK?", "(yes/no)"
_ASKS_TO_GO_ON = re.compile(
    r"\b(?:confirm|proceed|go ahead|go on|shall i|should i|do you want me|would you like me"
    r"|is (?:that|this) (?:ok|okay|correct|right|fine)|yes/no|yes or no)\b",
    re.I,
)


# what makes words that ask to go on a request, when there is no question mark: "Please
# confirm (yes/no).", "Reply yes to go ahead."
_WANTS_A_YES = re.compile(r"\byes\b|\bplease confirm\b", re.I)


def asks_to_confirm(text: str) -> bool:
    """Whether an answer without a call asks the user to confirm: words that ask to go on,
    in a question or wanting a yes."""
    if _ASKS_TO_GO_ON.search(text) is None:
        return False
    return "?" in text or _WANTS_A_YES.search(text) is not None


def confirmation_request(name: str, arguments: dict[str, Any]) -> str:
    """What the agent says before a write: the operation and its details, exactly as it
    will make them, and a request for a yes."""
    details = ", ".join(
        f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in sorted(arguments.items())
    )
    return (
        f"Before I make this change, please confirm: I will call {name}({details}). "
        "Shall I go ahead (yes/no)?"
    )


def final_message(
    labels: list[str], values: list[Any], wrote: bool, refused: Sequence[str] = ()
) -> str:
    """The assistant's last turn: states every value the user must be told, by name, and
    the reason a tool gave for each change it refused, as the policy asks ("When a tool
    refuses a call, tell the user the reason it gives"): weather's refusal demonstrations on
    6accfa9 told the status and never why."""
    parts = []
    if refused:
        reasons = " ".join(r.strip().rstrip(".") + "." for r in refused)
        opening = "Part of it is done, but I could not do the rest" if wrote else "I could not"
        parts.append(f"{opening}{'' if wrote else ' do it'}: {reasons}")
    elif wrote:
        parts.append("All done: the changes you asked for are made.")
    if values:
        told = "; ".join(
            f"{label.replace('_', ' ')}: {value}"
            for label, value in zip(labels, values, strict=True)
        )
        parts.append(f"Here is what you asked for: {told}.")
    return " ".join(parts) or "All done."
