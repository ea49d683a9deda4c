"""Preferences: their share, their statement, and never avoiding a tool the task uses."""

from __future__ import annotations

import random

from generators.preferences import COST, LATENCY, sample_preference, with_preference
from tests.generators.library import (
    Library,
)
from toolscale.tool import ToolCall


def test_sample_preference_share_and_statement(lib: Library) -> None:
    calls = [ToolCall(name="borrow_book", arguments={"member_id": 101, "book_id": 203})]
    assert all(
        sample_preference(random.Random(s), lib.spec.tools, calls, 0.0) is None for s in range(20)
    )
    drawn = [sample_preference(random.Random(s), lib.spec.tools, calls, 1.0) for s in range(40)]
    prefs = [p for p in drawn if p is not None]
    assert len(prefs) == len(drawn)
    assert {p.statement for p in prefs if p.cost == 1.0} == {COST}
    assert {p.statement for p in prefs if p.latency == 1.0} == {LATENCY}
    instruction = "Please lend me book 203."
    for p in prefs:
        assert p.statement
        assert with_preference(instruction, p) == f"{instruction} {p.statement}"
    assert with_preference(instruction, None) == instruction


def test_an_avoid_profile_never_avoids_a_used_tool(lib: Library) -> None:
    tools = lib.spec.tools
    reads = sorted(t.name for t in tools if t.kind == "read")
    avoided = set()
    for s in range(60):
        rng = random.Random(s)
        calls = [ToolCall(name=n) for n in rng.sample(reads, k=rng.randint(1, len(reads) - 1))]
        p = sample_preference(rng, tools, calls, 1.0)
        assert p is not None
        if p.avoid_tools:
            (name,) = p.avoid_tools
            assert name not in {c.name for c in calls}
            assert lib.spec.tool(name).kind == "read"
            assert name.replace("_", " ") in p.statement
            avoided.add(name)
    assert avoided
    everything = [ToolCall(name=n) for n in reads]
    for s in range(20):
        p = sample_preference(random.Random(s), tools, everything, 1.0)
        assert p is not None and p.avoid_tools == []


def test_the_tool_to_avoid_is_a_lookup_of_what_the_task_is_about(lib: Library) -> None:
    """Finance's transfer task said "Please don't use the get loans service": no agent
    would reach for it there. The avoided lookup reads a table the gold's calls return."""
    tools = lib.spec.tools
    reads = [t for t in tools if t.kind == "read" and t.returned_table()]
    used = next(
        t for t in reads if sum(u.returned_table() == t.returned_table() for u in reads) > 1
    )
    same = [t.name for t in reads if t is not used and t.returned_table() == used.returned_table()]
    assert len(same) < len(reads) - 1  # others there are, of other tables
    for s in range(40):
        p = sample_preference(random.Random(s), tools, [ToolCall(name=used.name)], 1.0)
        assert p is not None
        assert not p.avoid_tools or p.avoid_tools[0] in same, p.avoid_tools


def test_an_avoided_tool_weighs_cost_only_beside_a_lean_gold(lib: Library) -> None:
    """The reward reads an avoid profile's cost weight as "no avoidable call": a gold with
    one (not `lean`) gets the tool avoided and no cost weight."""
    calls = [ToolCall(name="borrow_book", arguments={"member_id": 101, "book_id": 203})]
    for lean in (True, False):
        drawn = [
            sample_preference(random.Random(s), lib.spec.tools, calls, 1.0, lean=lean)
            for s in range(40)
        ]
        avoids = [p for p in drawn if p is not None and p.avoid_tools]
        assert avoids, lean
        assert {p.cost for p in avoids} == ({0.5} if lean else {0.0})
