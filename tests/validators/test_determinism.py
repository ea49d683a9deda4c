"""Stage `determinism`: a second replay, and a replay on the other engine, agree exactly."""

from __future__ import annotations

from tests.conftest import expected_of, mini_task
from tests.validators.verdicts import W30
from toolscale.environment import Replay
from toolscale.sandbox.state import Changes
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import ToolResult
from validators.determinism import check
from validators.pipeline import verify


def test_nondeterministic_and_engine_mismatch(mini_dict: dict) -> None:
    integers = {
        "type": "object",
        "required": ["total", "people"],
        "properties": {"total": {"type": "integer"}, "people": {"type": "integer"}},
    }
    mini_dict["tools"] += [
        {
            "name": "lucky",
            "description": "A lucky number.",
            "kind": "read",
            "returns": "SELECT abs(random()) % 1000000 AS n",
        },
        {
            "name": "split",
            "description": "Split a bill.",
            "kind": "read",
            "parameters": integers,
            "returns": "SELECT :total / :people AS share",
        },
        {
            "name": "fmt",
            "description": "Split a bill, in dollars.",
            "kind": "read",
            "parameters": integers,
            "returns": "SELECT printf('%.1f', :total / 100.0 / :people) AS share",
        },
    ]
    spec = EnvironmentSpec.model_validate(mini_dict)

    def ask(tid: str, tool: str, total: int) -> Task:
        return mini_task(
            id=tid,
            instruction=f"What is my share when {total} is split between 3 people?",
            gold_calls=[{"name": tool, "arguments": {"total": total, "people": 3}}],
            communicate=[{"call": 0, "path": "0.share"}],
        )

    lucky = mini_task(
        id="lucky",
        instruction="Give me a lucky number.",
        gold_calls=[{"name": "lucky", "arguments": {}}],
        communicate=[{"call": 0, "path": "0.n"}],
    )
    split, fmt = ask("split", "split", 100), ask("fmt", "fmt", 75)
    accepted, rejected, _ = verify(spec, [lucky, split, fmt])
    assert [(r.task_id, r.stage, r.reason) for r in rejected] == [
        ("lucky", "determinism", "nondeterministic"),
        ("fmt", "determinism", "engine_mismatch"),  # printf rounds 0.25 differently
    ]
    assert "duckdb" in rejected[1].detail
    # integer division is compiled for DuckDB with SQLite's semantics: 100 / 3 is 33 on both
    assert [(t.id, expected_of(t).communicate) for t in accepted] == [("split", [33])]
    # without the cross-engine replay the printf difference slips through: the check matters
    accepted, _, _ = verify(spec, [fmt], cross_engine=False)
    assert [t.id for t in accepted] == ["fmt"]


def replay(*outputs: object, changes: Changes | None = None) -> Replay:
    return Replay([ToolResult(ok=True, output=o) for o in outputs], changes or {})


TWO_CALLS = mini_task(
    gold_calls=[{"name": "get_account", "arguments": {"account_id": "A1"}}, W30],
    communicate=[],
)
WROTE: Changes = {"accounts": {("A1",): ("A1", 1, 70.0, 0, "2024-01-02")}}


def test_identical_replays_pass() -> None:
    first = replay({"balance": 100}, {"balance": 70}, changes=WROTE)
    assert (
        check(TWO_CALLS, first, replay({"balance": 100}, {"balance": 70}, changes=WROTE), None)
        is None
    )
    same = replay({"balance": 100}, {"balance": 70}, changes=WROTE)
    assert check(TWO_CALLS, first, same, same, "duckdb") is None


def test_the_first_differing_call_is_named() -> None:
    first = replay({"balance": 100}, {"balance": 70}, changes=WROTE)
    again = replay({"balance": 100}, {"balance": 71}, changes=WROTE)
    found = check(TWO_CALLS, first, again, None)
    assert found is not None and (found.stage, found.reason) == ("determinism", "nondeterministic")
    assert found.detail == (
        'two replays on the same engine differ: gold call 1 withdraw: {"balance":70} vs '
        '{"balance":71}'
    )


def test_the_same_outputs_with_other_rows_are_named_by_table() -> None:
    first = replay({"balance": 100}, {"balance": 70}, changes=WROTE)
    other = replay({"balance": 100}, {"balance": 70})
    found = check(TWO_CALLS, first, first, other, "duckdb")
    assert found is not None and found.reason == "engine_mismatch"
    assert found.detail == "the replay on duckdb differs: final states differ in accounts"
