"""Stage `determinism`: a second replay, and a replay on the other engine, agree exactly."""

from __future__ import annotations

from tests.conftest import expected_of, mini_task
from tests.generators.basketball import basketball_spec
from tests.validators.verdicts import W30
from toolscale.environment import Environment, Replay
from toolscale.sandbox.base import ENGINE_NAMES
from toolscale.sandbox.ddl import create_statements
from toolscale.sandbox.state import Changes
from toolscale.spec import EnvironmentSpec
from toolscale.task import GoldCall, Task
from toolscale.tool import Tool, ToolResult
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


def test_a_reference_only_sqlite_declares_is_an_engine_mismatch() -> None:
    """DuckDB declares no foreign key of a table others reference (so a player whom
    contracts point to can be traded); a write that leaves such a reference dangling is
    refused by SQLite alone, and the determinism stage rejects the task for it."""
    spec = basketball_spec()
    players = next(s for s in create_statements(spec.schema_, "duckdb") if "players" in s)
    assert "FOREIGN KEY" not in players and "FOREIGN KEY" in next(
        s for s in create_statements(spec.schema_, "sqlite") if "TABLE players" in s
    )
    move = Tool(
        name="move_player",
        description="d",
        kind="write",
        parameters={
            "type": "object",
            "properties": {"player_id": {"type": "integer"}, "team_id": {"type": "integer"}},
            "required": ["player_id", "team_id"],
        },
        run=["UPDATE players SET team_id = :team_id WHERE player_id = :player_id"],
    )
    spec = spec.model_copy(update={"tools": [*spec.tools, move]})
    calls = [GoldCall(name="move_player", arguments={"player_id": 10, "team_id": 99})]
    replays = {}
    for engine in ENGINE_NAMES:
        with Environment(spec, engine=engine) as env:
            replays[engine] = env.replay(calls)
    assert not replays["sqlite"].results[0].ok and replays["duckdb"].results[0].ok
    task = Task(id="t", instruction="Move player 10 to team 99.", gold_calls=calls)
    found = check(task, replays["sqlite"], replays["sqlite"], replays["duckdb"], "duckdb")
    assert found is not None and found.reason == "engine_mismatch"
