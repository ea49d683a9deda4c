"""Stage `tools`: planned, written one by one, smoke-run on the seed, priced; the broken
one dropped with its reason."""

from __future__ import annotations

import json
from pathlib import Path

from generators.tools import (
    price_and_latency,
    propose_tools,
    smoke_problems,
)
from tests.generators.library import (
    GOOD_TOOLS,
    Library,
    ask,
    brief,
    last_user,
    library_tool,
    stage_of,
)
from toolscale.testing.fakedomain import library
from toolscale.testing.fakellm import Reply
from toolscale.tool import Tool


def test_smoke_problems_runs_tools_on_the_seed(lib: Library) -> None:
    base = lib.spec.model_copy(update={"tools": lib.core})
    assert smoke_problems(library_tool("borrow_book"), base) == []
    never = Tool(
        name="renew_loan",
        description="Renew a loan.",
        kind="write",
        parameters={
            "type": "object",
            "properties": {"loan_id": {"type": "integer"}},
            "required": ["loan_id"],
        },
        require=[{"sql": "SELECT 0", "error": "Renewals are closed this week."}],
        run=["UPDATE loans SET due_on = '2025-03-01' WHERE loan_id = :loan_id"],
    )
    problems = smoke_problems(never, base, tries=4)
    assert problems[0].startswith("it never succeeded in 4 calls")
    assert any("Renewals are closed this week." in p for p in problems[1:])
    idle = never.model_copy(
        update={"require": [], "run": ["UPDATE loans SET due_on = due_on WHERE loan_id = -1"]}
    )
    assert any("changed no row" in p for p in smoke_problems(idle, base, tries=3))


def test_price_and_latency_are_deterministic_and_writes_cost_more() -> None:
    borrow = library_tool("borrow_book")
    assert price_and_latency(borrow) == price_and_latency(borrow.model_copy())
    assert (borrow.price, borrow.latency_ms) == price_and_latency(borrow)
    for name in ("renew", "lookup", "pay_fine", "x"):
        read = Tool(name=name, description="d", kind="read", returns="SELECT 1", require=[])
        write = Tool(name=name, description="d", kind="write", run=["DELETE FROM loans"])
        assert len(read.statements()) == len(write.statements())
        (rp, rl), (wp, wl) = price_and_latency(read), price_and_latency(write)
        assert wp > rp and wl > rl
    longer = borrow.model_copy(update={"run": [*borrow.run, borrow.run[-1]]})
    assert price_and_latency(longer)[0] > price_and_latency(borrow)[0]


def test_propose_tools_samples_the_plan_again_when_it_keeps_failing(
    tmp_path: Path, lib: Library
) -> None:
    from toolscale.testing.fakellm import faulty

    base = lib.spec.model_copy(update={"tools": lib.core, "policy": ""})
    looping = Reply(content='{"tools": [{"name": "a", "description": "aaaa', finish_reason="length")
    responder = faulty(library, dict.fromkeys(range(3), looping))  # the first sample, repaired
    asked = ask(responder, tmp_path, lambda llm: propose_tools(llm, brief(), base))
    kept, _ = asked.value
    assert sorted(t.name for t in kept) == sorted(GOOD_TOOLS)
    plan_seeds = [
        r["seed"] for r in asked.requests if "ToolPlan" in json.dumps(r.get("response_format"))
    ]
    assert plan_seeds == [0, 0, 0, 1]  # three tries of sample 0, then sample 1 succeeds
    assert asked.llm.ledger.stage("tool_plan").failures == {"truncated": 1}


def test_propose_tools_keeps_the_good_and_says_why_the_broken_was_dropped(
    tmp_path: Path, lib: Library
) -> None:
    base = lib.spec.model_copy(update={"tools": lib.core, "policy": ""})
    asked = ask(library, tmp_path, lambda llm: propose_tools(llm, brief(), base))
    kept, dropped = asked.value
    assert sorted(t.name for t in kept) == sorted(GOOD_TOOLS)
    assert all(t.price > 0 and t.latency_ms > 0 for t in kept)
    assert kept == [library_tool(t.name) for t in kept]
    assert len(dropped) == 1
    assert dropped[0].reason == "sql_rejected"
    assert dropped[0].detail.startswith("tool 'broken_tool': after 4 attempt(s)")
    assert asked.llm.ledger.stage("tools").repairs == 3
    assert asked.llm.ledger.stage("tools").failures == {"sql_rejected": 1}
    plan = [b for b in asked.requests if stage_of(b) == "ToolPlan"]
    assert len(plan) == 1 and "get_members" in last_user(plan[0])
