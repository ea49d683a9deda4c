"""Trajectories as OpenAI messages: calls read back from them (a broken one as its error
text), the final answer, turns, and the last message a demonstration ends with."""

from __future__ import annotations

from typing import Any

from toolscale.tool import ToolCall
from toolscale.trajectory import Message, Trajectory, final_message


def call(name: str, arguments: str, i: int = 0) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": f"c{i}", "function": {"name": name, "arguments": arguments}}],
    }


def test_of_reads_openai_messages_and_ignores_what_it_does_not_use() -> None:
    messages = [
        {"role": "user", "content": "hi", "name": "ann"},  # extra keys are ignored
        call("withdraw", '{"account_id": "A1"}'),
        {"role": "tool", "tool_call_id": "c0", "content": "{}"},
    ]
    trajectory = Trajectory.of(messages)
    assert [m.role for m in trajectory.messages] == ["user", "assistant", "tool"]
    tool_calls = trajectory.messages[1].tool_calls or []
    assert tool_calls[0].type == "function"
    assert Trajectory.of(trajectory) is trajectory
    assert Trajectory.of(trajectory.messages) == trajectory


def test_calls_in_order_with_a_broken_one_as_its_error_text() -> None:
    trajectory = Trajectory.of(
        [
            call("get_account", '{"account_id": "A1"}', 0),
            call("withdraw", "{oops", 1),
            call("withdraw", "[1, 2]", 2),
            call("withdraw", '{"account_id": ["A1", "A2"]}', 3),
            call("list_accounts", "", 4),
        ]
    )
    got = trajectory.calls()
    assert got[0] == ToolCall(name="get_account", arguments={"account_id": "A1"})
    assert isinstance(got[1], str) and got[1].startswith("withdraw: arguments are not JSON (")
    assert got[2] == "withdraw: arguments must be a JSON object"
    assert isinstance(got[3], str) and got[3].startswith("withdraw: ")
    assert "arguments.account_id" in got[3]  # not a scalar: what pydantic says, named
    assert got[4] == ToolCall(name="list_accounts", arguments={})


def test_several_calls_in_one_message_keep_their_order() -> None:
    message = Message.model_validate(
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "a", "function": {"name": "first", "arguments": "{}"}},
                {"id": "b", "function": {"name": "second", "arguments": "{}"}},
            ],
        }
    )
    calls = Trajectory(messages=[message]).calls()
    assert [c.name for c in calls if isinstance(c, ToolCall)] == ["first", "second"]


def test_the_final_answer_is_the_last_assistant_words() -> None:
    trajectory = Trajectory.of(
        [
            {"role": "assistant", "content": "Let me look."},
            call("get_account", "{}"),
            {"role": "tool", "tool_call_id": "c0", "content": '{"balance": 70}'},
            {"role": "assistant", "content": "Your balance is 70."},
            {"role": "user", "content": "thanks"},
        ]
    )
    assert trajectory.final_answer() == "Your balance is 70."
    assert trajectory.turns == 3
    silent = Trajectory.of([call("get_account", "{}"), {"role": "assistant", "content": ""}])
    assert silent.final_answer() == ""


def test_the_final_message_states_each_value_by_name() -> None:
    assert final_message(["new_balance", "id"], [70, "AC1"], wrote=True) == (
        "All done: the changes you asked for are made. "
        "Here is what you asked for: new balance: 70; id: AC1."
    )
    assert final_message(["balance"], [70], wrote=False) == (
        "Here is what you asked for: balance: 70."
    )
    assert final_message([], [], wrote=True) == "All done: the changes you asked for are made."
    assert final_message([], [], wrote=False) == "All done."


def test_the_final_message_of_a_refusal_says_why() -> None:
    """Weather's refusal demonstrations on 6accfa9 ("A alert that is cancelled cannot be
    moved.") told the alert's status and never the reason, which the policy asks for."""
    why = "A alert that is cancelled cannot be moved."
    assert final_message(["status"], ["cancelled"], wrote=False, refused=[why]) == (
        "I could not do it: A alert that is cancelled cannot be moved. "
        "Here is what you asked for: status: cancelled."
    )
    assert final_message([], [], wrote=True, refused=[why]) == (
        "Part of it is done, but I could not do the rest: A alert that is cancelled cannot be "
        "moved."
    )
