"""Tasks: a lossless JSON round trip, and references that point at real gold calls."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tests.conftest import mini_task
from toolscale.task import Preference, Task


def test_task_round_trips_losslessly() -> None:
    task = mini_task(
        preferences={"cost": 0.7, "accuracy": 0.3, "avoid_tools": ["get_account"]},
        known_facts=["My account is A1."],
        provenance={"source": "llm", "model": "qwen", "seed": 3, "prompt": "p"},
    )
    again = Task.model_validate_json(task.model_dump_json())
    assert again == task
    assert again.preferences is not None
    assert again.preferences.weights() == pytest.approx((0.3, 0.7, 0.0))


def test_task_reference_out_of_range_is_refused() -> None:
    with pytest.raises(ValidationError, match="communicate\\[0\\] refers to gold call 3"):
        mini_task(communicate=[{"call": 3, "path": "balance"}])


def test_preference_weights_are_shares_of_one() -> None:
    assert Preference(cost=3.0, accuracy=1.0).weights() == (0.25, 0.75, 0.0)
    assert Preference(accuracy=0.0).weights() == (1.0, 0.0, 0.0)  # nothing valued: be right
    with pytest.raises(ValidationError):
        Preference(latency=-1)


def test_the_user_can_say_the_instruction_and_the_facts() -> None:
    task = mini_task(known_facts=["My account is A1.", "I am Ann."])
    assert task.user_text() == f"{task.instruction}\nMy account is A1.\nI am Ann."
    assert mini_task().user_text() == mini_task().instruction


def test_a_gold_call_may_declare_its_error_and_provenance_keeps_extra_keys() -> None:
    task = mini_task(
        gold_calls=[
            {
                "name": "withdraw",
                "arguments": {"account_id": "A2", "amount": 1},
                "expect_error": "frozen",
            }
        ],
        communicate=[],
        provenance={"source": "hand", "expect_reason": "expected_error_missing"},
    )
    again = Task.model_validate_json(task.model_dump_json())
    assert again.gold_calls[0].expect_error == "frozen"
    assert again.provenance.model_extra == {"expect_reason": "expected_error_missing"}


def test_a_task_has_words_and_calls() -> None:
    with pytest.raises(ValidationError, match="instruction"):
        mini_task(instruction="")
    with pytest.raises(ValidationError, match="gold_calls"):
        mini_task(gold_calls=[], communicate=[])
    with pytest.raises(ValidationError, match="source"):
        mini_task(provenance={"source": "dreamt"})
