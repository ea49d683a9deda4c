"""Preference profiles: a share of tasks says what the user values besides being right, in
words (appended to the instruction) and as a vector the trainer's reward reads."""

from __future__ import annotations

import random
from collections.abc import Sequence

from toolscale.task import Preference
from toolscale.tool import Tool, ToolCall

COST = "Please keep this as cheap as possible; avoid unnecessary lookups."
LATENCY = "I'm in a hurry, so please be quick about it."


def sample_preference(
    rng: random.Random,
    tools: list[Tool],
    calls: Sequence[ToolCall],
    share: float = 0.3,
    lean: bool = True,
) -> Preference | None:
    """A preference for a share of tasks; cost or latency only for a `lean` gold (one with no
    avoidable call), or the words would ask for less than the gold does; an avoided tool
    weighs cost beside it only there too."""
    if rng.random() >= share:
        return None
    used = {c.name for c in calls}
    # a lookup of what the task is about: finance's transfer task said "don't use the get
    # loans service", a service no agent would reach for there
    about = {t.returned_table() for t in tools if t.name in used} - {None}
    avoidable = sorted(
        (t for t in tools if t.kind == "read" and t.name not in used),
        key=lambda t: (t.returned_table() not in about, -t.price, t.name),
    )
    profiles = (["cost", "latency"] if lean else []) + (["avoid"] if avoidable else [])
    if not profiles:
        return None
    profile = rng.choice(profiles)
    if profile == "cost":
        return Preference(accuracy=1.0, cost=1.0, statement=COST)
    if profile == "latency":
        return Preference(accuracy=1.0, latency=1.0, statement=LATENCY)
    tool = avoidable[0]
    name = tool.name.replace("_", " ")
    # its words say that one tool is dear; the reward's cost weight asks for no other
    # avoidable call, which only a lean gold keeps
    return Preference(
        accuracy=1.0,
        cost=0.5 if lean else 0.0,
        avoid_tools=[tool.name],
        statement=f"Please don't use the {name} service; it is expensive.",
    )


def with_preference(instruction: str, preference: Preference | None) -> str:
    if preference is None or not preference.statement:
        return instruction
    return f"{instruction.rstrip()} {preference.statement}"
