"""Tasks: what the user says, the gold call sequence, and what counts as success."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from toolscale.sandbox.state import StateDiff
from toolscale.schema import Scalar
from toolscale.tool import ToolCall


class GoldCall(ToolCall):
    """A gold call; `expect_error` declares that it must fail with a message containing it."""

    expect_error: str | None = None


def gold_key(calls: Sequence[GoldCall]) -> str:
    """The identity of a gold sequence (calls, arguments, declared errors): two tasks with
    one key teach the same thing, so only the first is kept (`validators/dedup.py`), and a
    generator skips wording a draft whose key a kept task has."""
    named = [[c.name, c.arguments, c.expect_error] for c in calls]
    text = json.dumps(named, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


class OutputRef(BaseModel):
    """A value the agent must communicate, pointed to in a gold call's real output.

    `path` walks the JSON output: `balance`, `0.amount`, or empty for a scalar output.
    """

    model_config = ConfigDict(extra="forbid")

    call: int = Field(ge=0)
    path: str = ""


class Preference(BaseModel):
    """What the user values besides being right; stated in words and as a vector."""

    model_config = ConfigDict(extra="forbid")

    accuracy: float = Field(default=1.0, ge=0)
    cost: float = Field(default=0.0, ge=0)
    latency: float = Field(default=0.0, ge=0)
    avoid_tools: list[str] = Field(default_factory=list)
    prefer_tools: list[str] = Field(default_factory=list)
    statement: str = Field(default="", description="how the instruction says it")

    def weights(self) -> tuple[float, float, float]:
        total = self.accuracy + self.cost + self.latency
        if total == 0:
            return (1.0, 0.0, 0.0)
        return (self.accuracy / total, self.cost / total, self.latency / total)


class Difficulty(BaseModel):
    model_config = ConfigDict(extra="forbid")

    n_calls: int
    n_writes: int
    n_distinct_tools: int
    n_tables_changed: int
    n_rows_changed: int
    expected_errors: int
    n_communicate: int
    level: Literal["easy", "medium", "hard"]


class ExpectedOutcome(BaseModel):
    """Filled in by verification from the real replay, never by the proposer."""

    model_config = ConfigDict(extra="forbid")

    state_hash: str
    diff: StateDiff
    communicate: list[Scalar] = Field(default_factory=list)
    engine: str = "sqlite"


class Provenance(BaseModel):
    model_config = ConfigDict(extra="allow")

    source: Literal["hand", "llm", "sampled", "evolved", "intent"] = "hand"
    model: str | None = None
    prompt: str | None = None
    seed: int | None = None
    parent: str | None = None


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    domain: str = ""
    instruction: str = Field(min_length=1)
    persona: str = ""
    known_facts: list[str] = Field(default_factory=list)
    gold_calls: list[GoldCall] = Field(min_length=1)
    communicate: list[OutputRef] = Field(default_factory=list)
    preferences: Preference | None = None
    expected: ExpectedOutcome | None = None
    difficulty: Difficulty | None = None
    provenance: Provenance = Field(default_factory=Provenance)

    @model_validator(mode="after")
    def _refs(self) -> Task:
        for i, ref in enumerate(self.communicate):
            if ref.call >= len(self.gold_calls):
                raise ValueError(
                    f"communicate[{i}] refers to gold call {ref.call}, "
                    f"but there are {len(self.gold_calls)}"
                )
        return self

    def user_text(self) -> str:
        """Everything the user can say: the instruction and the facts they know."""
        return "\n".join([self.instruction, *self.known_facts])

    def request(self) -> str:
        """The instruction without its preference statement: "Please don't use the find
        client by phone service" names a tool to avoid, it asks for no phone number."""
        statement = self.preferences.statement if self.preferences is not None else ""
        return self.instruction.replace(statement, " ") if statement else self.instruction
