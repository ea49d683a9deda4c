"""Stage `provenance`: no invented values. Every gold argument is stated by the user or was
returned by an earlier call; closed choices (enum, boolean) and defaults are exempt."""

from __future__ import annotations

from typing import Any

from tests.conftest import mini_task
from tests.validators.verdicts import verdict
from toolscale.environment import Replay
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import Tool, ToolResult
from validators.provenance import check


def writer(name: str, properties: dict[str, Any], required: list[str], run: str) -> Tool:
    """A write tool taking `properties`, of which `required` must be given."""
    parameters = {"type": "object", "properties": properties, "required": required}
    return Tool(name=name, description=f"{name}.", kind="write", parameters=parameters, run=[run])


TRANSFER = writer(
    "transfer",
    {
        "to_account": {"type": "string"},
        "amount": {"type": "number"},
        "speed": {"type": "string", "enum": ["normal", "express"]},
        "notify": {"type": "boolean"},
        "memo": {"type": "string", "default": "transfer"},
    },
    ["to_account", "amount"],
    "UPDATE accounts SET balance = balance - :amount",
)
LOOKUP = Tool(
    name="lookup", description="Find the savings account.", kind="read", returns="SELECT 1"
)
TOOLS = {"transfer": TRANSFER, "lookup": LOOKUP}


def transfer(instruction: str, **arguments: Any) -> Task:
    return mini_task(
        instruction=instruction,
        gold_calls=[
            {"name": "lookup", "arguments": {}},
            {"name": "transfer", "arguments": arguments},
        ],
        communicate=[],
    )


FOUND = Replay(
    [ToolResult(ok=True, output=[{"id": "SAV-9", "owner": "Ann"}]), ToolResult(ok=True)], {}
)


def test_an_invented_value_is_refused(mini_spec: EnvironmentSpec) -> None:
    overrides = {
        "gold_calls": [{"name": "open_account", "arguments": {"client_id": 2}}],
        "instruction": "Open me a new account please.",
        "communicate": [{"call": 0, "path": "id"}],
    }
    assert verdict(mini_spec, **overrides) == ("provenance", "unsupported_argument")


def test_values_the_user_said_or_an_earlier_call_returned_are_supported() -> None:
    said = transfer("Move $25.50 to my savings.", to_account="sav-9", amount=25.5)
    assert check(said, TOOLS, FOUND) is None  # the account came back from lookup (any case)


def test_closed_choices_and_defaults_need_no_words() -> None:
    task = transfer(
        "Move $10 to SAV-9.",
        to_account="SAV-9",
        amount=10,
        speed="express",
        notify=True,
        memo="transfer",
    )
    assert check(task, TOOLS, FOUND) is None


def test_the_first_unsupported_argument_is_named() -> None:
    task = transfer("Move $10 to my savings.", to_account="SAV-9", amount=10, memo="rent")
    found = check(task, TOOLS, FOUND)
    assert found is not None and (found.stage, found.reason) == (
        "provenance",
        "unsupported_argument",
    )
    assert found.detail == (
        "gold call 1 transfer: memo='rent' is not in the instruction, the known facts or an "
        "earlier output"
    )
    facts = task.model_copy(update={"known_facts": ["The memo is rent."]})
    assert check(facts, TOOLS, FOUND) is None  # what the user knows counts as said


def test_a_failed_call_supports_nothing() -> None:
    task = transfer("Move $10 to my savings.", to_account="SAV-9", amount=10)
    failed = Replay([ToolResult(ok=False, error="no savings account"), ToolResult(ok=True)], {})
    found = check(task, TOOLS, failed)
    assert found is not None and "to_account='SAV-9'" in found.detail


BOOK = writer(
    "book",
    {
        "hotel_id": {"type": "integer"},
        "check_in": {"type": "string"},
        "additional_bags": {"type": "integer"},
    },
    ["hotel_id", "check_in", "additional_bags"],
    "UPDATE hotels SET rooms_available = rooms_available - 1",
)


def book(instruction: str, hotel: dict[str, Any], bags: int) -> tuple[Task, Replay]:
    task = mini_task(
        instruction=instruction,
        gold_calls=[
            {"name": "lookup", "arguments": {}},
            {
                "name": "book",
                "arguments": {"hotel_id": 7, "check_in": "2025-02-02", "additional_bags": bags},
            },
        ],
        communicate=[],
    )
    return task, Replay([ToolResult(ok=True, output=[hotel]), ToolResult(ok=True)], {})


def test_a_number_said_only_as_part_of_a_day_or_found_as_another_measure_is_unsupported() -> None:
    """travel-intent-00002 on b8ec214 booked 2 extra bags nobody asked for: "2022-11-02"
    counted as saying 2. A measure an earlier call returned must be returned as that
    measure: the hotel's 2 rooms available are no 2 bags."""
    tools = {"book": BOOK, "lookup": LOOKUP}
    task, replay = book("Book the Harbor Inn for 2025-02-02 at 14:02.", {"hotel_id": 7}, 2)
    found = check(task, tools, replay)
    assert found is not None and "additional_bags=2 is not in the instruction" in found.detail
    hotel = {"hotel_id": 7, "rooms_available": 2}
    task, replay = book("Book the Harbor Inn for 2025-02-02.", hotel, 2)
    found = check(task, tools, replay)
    assert found is not None and found.detail.endswith(
        "holds it only as rooms_available, not as additional_bags"
    )
    for said, hotel in (
        ("Book the Harbor Inn for 2025-02-02 with 2 extra bags.", {"hotel_id": 7}),
        ("Book the Harbor Inn for 2025-02-02 with my usual bags.", {"hotel_id": 7, "bags": 2}),
    ):
        task, replay = book(said, hotel, 2)
        assert check(task, tools, replay) is None, said
