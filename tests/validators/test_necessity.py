"""Stage `necessity`: dropping any single successful write call changes the final state."""

from __future__ import annotations

import pytest

from tests.conftest import mini_task
from tests.validators.verdicts import W30, verdict
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from validators.necessity import check
from validators.pipeline import verify


def _reject(spec: EnvironmentSpec, *tasks: Task) -> tuple[str, str, str]:
    accepted, rejected, _ = verify(spec, list(tasks))
    assert len(rejected) == 1, [t.id for t in accepted]
    r = rejected[0]
    return r.stage, r.reason, r.detail


def test_unnecessary_write(mini_spec: EnvironmentSpec) -> None:
    needed = mini_task(
        instruction="Withdraw 30 from A1, open an account for client 1, withdraw 30 again.",
        gold_calls=[W30, {"name": "open_account", "arguments": {"client_id": 1}}, W30],
        communicate=[],
    )
    assert verify(mini_spec, [needed])[1] == []
    moot = mini_task(  # opening an account and closing it again leaves no trace: call 1 is moot
        instruction="Withdraw 30 from A1, open an account for client 1 and close it again.",
        gold_calls=[
            W30,
            {"name": "open_account", "arguments": {"client_id": 1}},
            {"name": "close_account", "arguments": {"account_id": "AC1000000"}},
        ],
        communicate=[],
    )
    stage, reason, detail = _reject(mini_spec, moot)
    assert (stage, reason) == ("necessity", "unnecessary_write")
    assert "gold call 1 open_account" in detail


def test_a_second_write_that_changes_the_state_is_needed(mini_spec: EnvironmentSpec) -> None:
    """0.0001 is stated (provenance) and the second withdrawal changes the balance again."""
    overrides = {
        "gold_calls": [
            W30,
            {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 0.0001}},
        ],
        "instruction": "Withdraw $30 and then 0.0001 from account A1.",
        "communicate": [],
    }
    assert verdict(mini_spec, **overrides) == ("accepted", "ok")


def test_a_lone_successful_write_that_changed_the_state_needs_no_second_replay(
    mini_spec: EnvironmentSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = mini_task(
        gold_calls=[{"name": "get_account", "arguments": {"account_id": "A1"}}, W30],
        communicate=[],
    )
    with Environment(mini_spec) as env:
        run = env.replay(task.gold_calls)
        monkeypatch.setattr(env, "replay", None)  # any replay now would raise
        assert check(task, env, run) is None


def test_a_write_that_failed_is_not_judged(mini_spec: EnvironmentSpec) -> None:
    """A declared failure leaves no trace, so dropping it changes nothing: not a reason."""
    frozen = {"name": "withdraw", "arguments": {"account_id": "A2", "amount": 1}}
    task = mini_task(gold_calls=[W30, frozen | {"expect_error": "frozen"}], communicate=[])
    with Environment(mini_spec) as env:
        run = env.replay(task.gold_calls)
        assert [r.ok for r in run.results] == [True, False]
        assert check(task, env, run) is None


def test_the_dropped_write_is_named(mini_spec: EnvironmentSpec) -> None:
    """Without the opening, closing fails and leaves no trace: the same final state."""
    task = mini_task(
        gold_calls=[
            {"name": "open_account", "arguments": {"client_id": 1}},
            {"name": "close_account", "arguments": {"account_id": "AC1000000"}},
        ],
        communicate=[],
    )
    with Environment(mini_spec) as env:
        found = check(task, env, env.replay(task.gold_calls))
    assert found is not None and (found.stage, found.reason) == ("necessity", "unnecessary_write")
    assert found.detail == (
        'gold call 0 open_account{"client_id":1} can be dropped and the final state is the same'
    )
