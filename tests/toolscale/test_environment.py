"""Environment: reset / step / evaluate / demonstrate, the interface validators and the trainer
share."""

from __future__ import annotations

import json

import pytest

from tests.conftest import expected_of, mini_task
from toolscale.environment import Environment
from toolscale.matching import mentions
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import ToolCall
from toolscale.trajectory import CONFIRMED, Message
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


@pytest.fixture
def two_calls(mini_spec: EnvironmentSpec) -> Task:
    """A verified task of a read then a write, with a known fact and a value to tell."""
    task = mini_task(
        instruction="Check my account, withdraw $30 and tell me the new balance.",
        known_facts=["My account is A1."],
        gold_calls=[
            {"name": "get_account", "arguments": {"account_id": "A1"}},
            {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 30}},
        ],
        communicate=[{"call": 1, "path": "balance"}],
    )
    (accepted,), rejected, _ = verify(mini_spec, [task], cross_engine=False)
    assert rejected == []
    return accepted


def test_demonstrate_gives_the_gold_conversation(
    mini_spec: EnvironmentSpec, two_calls: Task
) -> None:
    verified = two_calls
    assert expected_of(verified).communicate == [70]
    with Environment(mini_spec) as env:
        trajectory = env.demonstrate(verified)
        roles = [m.role for m in trajectory.messages]
        n = len(verified.gold_calls)
        # get_account, then the yes the policy asks for before withdraw's write
        assert roles == [
            "system", "user", "assistant", "tool", "assistant", "user", "assistant", "tool",
            "assistant",
        ]  # fmt: skip
        assert trajectory.messages[0].content == env.system_prompt()
        assert trajectory.messages[1].content == verified.user_text()
        ask, yes = trajectory.messages[4:6]
        assert ask.content == (
            "Before I make this change, please confirm: I will call "
            'withdraw(account_id="A1", amount=30). Shall I go ahead (yes/no)?'
        )
        assert (yes.content, ask.tool_calls) == (CONFIRMED, None)
        run = env.replay(verified.gold_calls)
        calls = [m for m in trajectory.messages if m.tool_calls]
        for i, call in enumerate(verified.gold_calls):
            asks = calls[i]
            answer = trajectory.messages[trajectory.messages.index(asks) + 1]
            (tool_call,) = asks.tool_calls or []
            assert tool_call.function.name == call.name
            assert json.loads(tool_call.function.arguments) == call.arguments
            assert answer.tool_call_id == tool_call.id
            assert answer.content == run.results[i].content()
        final = trajectory.final_answer()
        assert final == trajectory.messages[-1].content
        for value in expected_of(verified).communicate:
            assert mentions(final, value)
        evaluation = env.evaluate(verified, trajectory)
    assert evaluation.success and evaluation.state_match and evaluation.communicated == 1.0
    assert evaluation.n_calls == n and evaluation.failed_calls == 0
    assert evaluation.price == pytest.approx(0.001 + 0.01)


def test_a_refusals_demonstration_tells_the_reason(mini_spec: EnvironmentSpec) -> None:
    """The policy says "When a tool refuses a call, tell the user the reason it gives":
    weather's refusal demonstrations on 6accfa9 told only the record's status."""
    task = mini_task(
        instruction="Please close my account A1, and tell me its balance.",
        gold_calls=[
            {"name": "get_account", "arguments": {"account_id": "A1"}},
            {
                "name": "close_account",
                "arguments": {"account_id": "A1"},
                "expect_error": "only empty accounts can be closed",
            },
        ],
        communicate=[{"call": 0, "path": "balance"}],
    )
    (verified,), rejected, _ = verify(mini_spec, [task], cross_engine=False)
    assert rejected == []
    with Environment(mini_spec) as env:
        trajectory = env.demonstrate(verified)
        evaluation = env.evaluate(verified, trajectory)
    assert trajectory.final_answer().startswith(
        "I could not do it: only empty accounts can be closed. Here is what you asked for:"
    )
    assert evaluation.success


def test_a_demonstration_without_the_answer_is_not_a_success(
    mini_spec: EnvironmentSpec, two_calls: Task
) -> None:
    with Environment(mini_spec) as env:
        messages = env.demonstrate(two_calls).messages[:-1]
        evaluation = env.evaluate(two_calls, [m.model_dump() for m in messages])
    assert evaluation.state_match and not evaluation.success
    assert evaluation.missing == expected_of(two_calls).communicate


def test_demonstrate_needs_a_verified_task(mini_spec: EnvironmentSpec) -> None:
    with Environment(mini_spec) as env, pytest.raises(ValueError, match="verify it first"):
        env.demonstrate(mini_task())


def test_the_user_says_yes_only_to_a_question_before_a_write_the_gold_makes(
    mini_spec: EnvironmentSpec, two_calls: Task
) -> None:
    """Every policy has the agent ask before a write and go on only on a yes; the episode's
    user gives that yes, once per gold write, and nothing else."""

    def said(text: str) -> Message:
        return Message(role="assistant", content=text)

    withdraw = Message.model_validate(
        {"role": "assistant", "tool_calls": [_call(0, "withdraw", account_id="A1", amount=30)]}
    )
    with Environment(mini_spec) as env:
        opening = env.reset(two_calls)
        ask = said("I will withdraw $30 from A1. Shall I go ahead?")
        yes = Message(role="user", content=CONFIRMED)
        for words in (ask.content or "", "I will withdraw $30 from A1. Please confirm (yes/no)."):
            assert env.user_reply([*opening, said(words)]) == yes, words
        for words in ("Would you like me to proceed", "Your balance is 70. Anything else?"):
            assert env.user_reply([*opening, said(words)]) is None  # no question, or no ask
        assert env.user_reply([*opening, ask, yes, ask]) is None  # one write, one yes
        after = [*opening, withdraw, said("Done. Would you like me to do anything else?")]
        assert env.user_reply(after) is None  # the gold's one write is tried
        reading = mini_task(gold_calls=[{"name": "get_account", "arguments": {"account_id": "A1"}}])
        env.reset(reading)
        assert env.user_reply([*opening, ask]) is None  # a read-only task has nothing to confirm
