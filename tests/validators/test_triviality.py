"""Stage `triviality`: the task changes the database or has values to communicate."""

from __future__ import annotations

from tests.conftest import mini_task
from tests.validators.verdicts import verdict
from toolscale.environment import Replay
from toolscale.spec import EnvironmentSpec
from toolscale.tool import ToolResult
from validators.triviality import check

LOOK = {"name": "get_account", "arguments": {"account_id": "A1"}}


def test_a_look_that_tells_nothing_is_trivial(mini_spec: EnvironmentSpec) -> None:
    overrides = {"gold_calls": [LOOK], "communicate": [], "instruction": "Look at account A1."}
    assert verdict(mini_spec, **overrides) == ("triviality", "trivial")


def test_a_change_or_a_value_to_tell_is_enough() -> None:
    read = Replay([ToolResult(ok=True, output={"balance": 100})], {})
    wrote = Replay([ToolResult(ok=True)], {"accounts": {("A1",): ("A1", 1, 70.0, 0, None)}})
    silent = mini_task(gold_calls=[LOOK], communicate=[])
    telling = mini_task(gold_calls=[LOOK], communicate=[{"call": 0, "path": "balance"}])
    found = check(silent, read)
    assert found is not None and (found.stage, found.reason) == ("triviality", "trivial")
    assert "any agent would pass it" in found.detail
    assert check(telling, read) is None
    assert check(silent, wrote) is None
