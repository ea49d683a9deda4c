"""Environment: reset / step / evaluate, the interface validators and the trainer share."""

from __future__ import annotations

import json

import pytest

from tests.conftest import mini_task
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.tool import ToolCall
from validators.pipeline import verify


def _call(i: int, name: str, **arguments: object) -> dict:
    return {
        "id": f"c{i}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }


def _trajectory(calls: list[dict], answer: str) -> list[dict]:
    messages: list[dict] = [
        {"role": "system", "content": "policy"},
        {"role": "user", "content": "hi"},
    ]
    for call in calls:
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": call["id"], "content": "{}"})
    messages.append({"role": "assistant", "content": answer})
    return messages


@pytest.fixture
def verified(mini_spec: EnvironmentSpec):
    task = mini_task(preferences={"cost": 1.0, "avoid_tools": ["get_account"]})
    (accepted,), rejected, _ = verify(mini_spec, [task], cross_engine=False)
    assert rejected == []
    return accepted


def test_reset_gives_policy_and_instruction(mini_spec: EnvironmentSpec, verified) -> None:
    with Environment(mini_spec) as env:
        system, user = env.reset(verified)
        assert system.content is not None
        assert "not frozen" in system.content and "2025-03-14T09:30:00" in system.content
        assert user.content == verified.instruction


def test_step_reports_invalid_calls_without_touching_the_database(
    mini_spec: EnvironmentSpec,
) -> None:
    with Environment(mini_spec) as env:
        env.reset()
        bad = env.step(ToolCall(name="withdraw", arguments={"account_id": "A1", "amount": "lots"}))
        assert (bad.ok, bad.code) == (False, "invalid_arguments")
        assert "amount" in (bad.error or "")
        extra = env.step(
            ToolCall(name="withdraw", arguments={"account_id": "A1", "amount": 1, "x": 2})
        )
        assert extra.code == "invalid_arguments"
        unknown = env.step(ToolCall(name="rob_bank", arguments={}))
        assert unknown.code == "unknown_tool" and "withdraw" in (unknown.error or "")
        assert env.invalid_calls == 3
        assert env.sandbox.changes() == {}


def test_evaluate_success(mini_spec: EnvironmentSpec, verified) -> None:
    traj = _trajectory(
        [_call(0, "withdraw", account_id="A1", amount=30)], "Done: balance is $70.00."
    )
    with Environment(mini_spec) as env:
        ev = env.evaluate(verified, traj)
    assert ev.success and ev.state_match and ev.communicated == 1.0
    assert (ev.price, ev.latency_ms, ev.turns, ev.n_calls, ev.invalid_calls) == (0.01, 200, 2, 1, 0)
    assert ev.diff.empty


def test_evaluate_wrong_state_explains_the_difference(mini_spec: EnvironmentSpec, verified) -> None:
    traj = _trajectory(
        [
            _call(0, "get_account", account_id="A1"),
            _call(1, "withdraw", account_id="A1", amount=3),
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "withdraw", "arguments": "{oops"},
            },
        ],
        "Your balance is 97.",
    )
    with Environment(mini_spec) as env:
        ev = env.evaluate(verified, traj)
    assert not ev.success and not ev.state_match
    assert ev.missing == [70] and ev.communicated == 0.0
    assert ev.invalid_calls == 1 and ev.n_calls == 3
    assert ev.avoided_tools_used == ["get_account"]
    (row,) = ev.diff.tables["accounts"]
    assert row.before is not None and row.after is not None
    assert (row.before["balance"], row.after["balance"]) == (70, 97)


def test_evaluate_needs_a_verified_task(mini_spec: EnvironmentSpec) -> None:
    with Environment(mini_spec) as env, pytest.raises(ValueError, match="verify it first"):
        env.evaluate(mini_task(), [])
