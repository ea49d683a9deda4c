"""What each stage spent: totals, merges, and what was spent since a snapshot."""

from __future__ import annotations

from toolscale.llm.ledger import Ledger, Usage


def test_ledger_total_and_merge_add_up_stages() -> None:
    a, b = Ledger(), Ledger()
    a.stage("x").calls, a.stage("x").cost_usd = 2, 0.5
    b.stage("x").calls, b.stage("y").prompt_tokens = 3, 7
    b.fail("y", "bad_json")
    a.merge(b)
    assert list(a.stages) == ["x", "y"]
    assert (a.stage("x").calls, a.stage("y").failures) == (5, {"bad_json": 1})
    total: Usage = a.total()
    assert (total.calls, total.prompt_tokens, total.cost_usd) == (5, 7, 0.5)


def test_ledger_since_a_snapshot_is_what_was_spent_after_it() -> None:
    ledger = Ledger()
    ledger.stage("x").calls = 2
    ledger.stage("idle").cached = 1
    mark = ledger.snapshot()
    ledger.stage("x").calls += 3
    ledger.fail("y", "bad_json")
    assert mark.stage("x").calls == 2  # the snapshot is not touched by later spending
    spent = ledger.since(mark)
    assert list(spent.stages) == ["x", "y"]  # a stage that spent nothing since is left out
    assert (spent.stage("x").calls, spent.stage("y").failures) == (3, {"bad_json": 1})


def test_usage_adds_and_subtracts_and_forgets_failures_that_cancel() -> None:
    a = Usage(stage="x", calls=3, prompt_tokens=10, completion_tokens=5, cost_usd=0.25)
    a.failures = {"bad_json": 1, "truncated": 2}
    b = Usage(stage="x", calls=1, completion_tokens=5, failures={"bad_json": 1}, seconds=2.0)
    a.add(b, sign=-1)
    assert (a.calls, a.tokens, a.cost_usd, a.seconds) == (2, 10, 0.25, -2.0)
    assert a.failures == {"truncated": 2}
    a.add(b)
    assert (a.calls, a.tokens, a.failures) == (3, 15, {"bad_json": 1, "truncated": 2})


def test_a_ledger_counts_failures_by_stage_and_reason() -> None:
    ledger = Ledger()
    ledger.fail("rows", "schema_violation")
    ledger.fail("rows", "schema_violation")
    ledger.fail("tools", "sql_rejected")
    assert list(ledger.stages) == ["rows", "tools"]
    assert ledger.stage("rows").failures == {"schema_violation": 2}
    assert ledger.total().failures == {"schema_violation": 2, "sql_rejected": 1}
    assert Ledger.model_validate_json(ledger.model_dump_json()) == ledger
