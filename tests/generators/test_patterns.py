"""The catalogue: every candidate on the banking fixture and on a finance schema passes the
static checks and runs on the seed; the built-in guards and menu conditions refuse what the
rules forbid, with the rule's words."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from generators.catalogue import ToolChoice, fallback_choice, realise
from generators.patterns import (
    DEBTS,
    DECREASABLE,
    Candidate,
    Condition,
    catalogue,
    condition_problems,
    condition_step,
    named,
    quantity,
    with_conditions,
)
from generators.realise import tool_sql_problems
from generators.rulemap import candidate_for, candidates_for, guess_conditions
from generators.toolkit import schema_tools
from generators.tools import smoke_problems
from tests.generators.basketball import SCHEMA as COURT
from tests.generators.basketball import SEED as PLAYED
from tests.generators.basketball import basketball_rules, basketball_spec
from tests.generators.ecommerce import ecommerce_rules, ecommerce_spec
from tests.generators.finance import SEED, finance_schema
from tests.generators.flights import SCHEMA as FLIGHTS
from tests.generators.flights import SEED as FLOWN
from tests.generators.flights import flights_rules, flights_spec
from tests.generators.medicine import medicine_spec
from tests.generators.movie import SCHEMA as SCREENED
from tests.generators.movie import SEATS, SLOT, booked_beside, movie_spec
from tests.generators.movie import SEED as BOOKED
from tests.generators.railway import bed, col, fk, railway_rules, railway_spec, seated
from tests.generators.restaurant import restaurant_rules, restaurant_spec
from tests.generators.school import school_rules, school_spec
from tests.generators.travel import travel_spec
from tests.generators.weather import weather_rules, weather_spec
from toolscale.environment import Environment
from toolscale.schema import Column, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool, ToolCall, ToolResult

FIXTURE = Path(__file__).parents[1] / "fixtures" / "banking" / "environment.json"


def banking() -> EnvironmentSpec:
    spec = EnvironmentSpec.model_validate_json(FIXTURE.read_text())
    return spec.model_copy(update={"tools": schema_tools(spec.schema_)})


def finance() -> EnvironmentSpec:
    schema = finance_schema()
    return EnvironmentSpec(name="finance", schema_=schema, seed=SEED, tools=schema_tools(schema))


def by_id(spec: EnvironmentSpec) -> dict[str, Candidate]:
    return {c.id: c for c in catalogue(spec.schema_, spec.seed)}


def call(spec: EnvironmentSpec, tool: Tool, **arguments: object):
    with Environment(spec.model_copy(update={"tools": [*spec.tools, tool]})) as env:
        result = env.step(ToolCall(name=tool.name, arguments=arguments))
        return result, env.sandbox.changes()


# Candidates that cannot succeed on these seeds, and why: a database CHECK the status move
# alone cannot satisfy (closing needs a zero balance, paid_off needs outstanding 0).
UNRUNNABLE = {"status:accounts.status=closed", "status:loans.status=paid_off"}


@pytest.mark.parametrize("make", [banking, finance], ids=["banking", "finance"])
def test_every_candidate_passes_the_checks_and_runs_on_the_seed(make) -> None:
    spec = make()
    cands = catalogue(spec.schema_, spec.seed)
    patterns = {c.pattern for c in cands}
    assert patterns >= {"transfer", "create", "status", "adjust", "update", "total", "find"}
    assert len({c.tool.name for c in cands}) == len(cands)
    for cand in cands:
        assert cand.tool.origin == "pattern"
        assert tool_sql_problems(cand.tool, spec.schema_) == [], cand.id
        if cand.id in UNRUNNABLE and make is banking:
            continue
        assert smoke_problems(cand.tool, spec, tries=40) == [], cand.id
    writes = [c for c in cands if c.tool.kind == "write"]
    assert len(writes) >= 8 and all(c.tool.require for c in writes)


def test_a_transfer_moves_money_and_refuses_an_overdraft() -> None:
    spec = finance()
    transfer = by_id(spec)["transfer:accounts.balance"].tool
    result, changes = call(spec, transfer, from_account_id=10, to_account_id=11, amount=500)
    assert result.ok, result.error
    assert {r["account_id"]: r["balance"] for r in result.output} == {10: 2000.0, 11: 800.0}
    assert "transfers" in str(changes)  # the ledger row of the transfer
    result, _ = call(spec, transfer, from_account_id=11, to_account_id=10, amount=301)
    assert not result.ok and result.error == "The source account does not hold enough balance."
    result, _ = call(spec, transfer, from_account_id=10, to_account_id=10, amount=1)
    assert not result.ok and "must differ" in (result.error or "")


def test_a_transfer_pays_into_no_closed_account() -> None:
    """Finance's `transfer_balance` paid into a closed account (the audit of 310b6d0),
    where its `topup_balance` refused one: the target of a move is open, as a top-up's."""
    spec = finance()
    seed = {**spec.seed, "accounts": [dict(a) for a in spec.seed["accounts"]]}
    seed["accounts"][2]["status"] = "closed"  # account 12
    spec = spec.model_copy(update={"seed": seed})
    transfer = with_conditions(by_id(spec)["transfer:accounts.balance"], [])
    refused, changes = call(spec, transfer, from_account_id=10, to_account_id=12, amount=5)
    assert refused.error == "The target account is closed: nothing can be added to it."
    assert changes == {}
    assert call(spec, transfer, from_account_id=10, to_account_id=11, amount=5)[0].ok


def test_an_email_update_takes_no_email_another_person_has() -> None:
    """Railway's `update_passenger_email` gave a passenger another one's email (audit):
    the agent finds the user by email, so it names one person."""
    spec = finance()
    update = with_conditions(by_id(spec)["update:clients.email"], [])
    taken, changes = call(spec, update, client_id=1, new_email="alan@example.com")
    assert taken.error == "Another client already has that email."
    assert changes == {}
    assert call(spec, update, client_id=1, new_email="ada.byron@example.com")[0].ok


def test_a_status_change_refuses_a_disallowed_transition() -> None:
    spec = finance()
    freeze = by_id(spec)["status:cards.status=frozen"].tool
    assert freeze.name == "freeze_card"
    assert call(spec, freeze, card_id=100, frozen_reason="stolen")[0].ok
    refused, _ = call(spec, freeze, card_id=102, frozen_reason="lost")  # already frozen
    assert refused.error == "Only a card whose status is active can be frozen."
    # finance's refusal on 2054a46 read "Only a account whose status is inactive can be active."
    activate = by_id(spec)["status:accounts.status=active"].tool
    again, _ = call(spec, activate, account_id=10)  # active already
    assert again.error == "Only an account whose status is frozen can be active."


def test_a_column_of_one_state_is_set_by_the_move_into_it_and_never_asked_at_creation() -> None:
    spec = finance()
    cands = by_id(spec)
    freeze = cands["status:cards.status=frozen"].tool
    assert freeze.parameters["required"] == ["card_id", "frozen_reason"]
    done, changes = call(spec, freeze, card_id=101, frozen_reason="lost")
    assert done.ok and changes == {"cards": {(101,): (101, 10, "frozen", "lost", "2023-02-01")}}
    assert "frozen_reason" not in cands["status:cards.status=active"].tool.parameters["properties"]
    assert "frozen_reason" not in cands["create:cards under accounts"].tool.parameters["properties"]


def test_a_repayment_refuses_more_than_owed_and_closes_at_zero() -> None:
    spec = finance()
    repay = by_id(spec)["adjust:loans.outstanding"].tool
    refused, _ = call(spec, repay, loan_id=700, amount=4000.01)
    assert refused.error == "The amount cannot exceed the loan's outstanding."
    done, _ = call(spec, repay, loan_id=700, amount=4000)
    assert done.output == {"loan_id": 700, "outstanding": 0.0, "status": "closed"}


def test_a_debt_is_repaid_and_never_moved_or_deposited_to() -> None:
    """Finance's catalogue moved `outstanding_balance` from one loan to another and let a
    client deposit to a loan's debt; the judge rejected every such task."""
    schema = Schema.model_validate(
        {
            "tables": [
                {
                    "name": "accounts",
                    "columns": [col("account_id", "integer"), col("balance", "real")],
                    "primary_key": ["account_id"],
                },
                {
                    "name": "loans",
                    "columns": [
                        col("loan_id", "integer"),
                        col("outstanding_balance", "real"),
                        col("status", "text"),
                    ],
                    "primary_key": ["loan_id"],
                    "checks": ["status IN ('active', 'closed')"],
                },
            ]
        }
    )
    seed: dict[str, list[dict]] = {
        "accounts": [{"account_id": 1, "balance": 10.0}, {"account_id": 2, "balance": 0.0}],
        "loans": [{"loan_id": 7, "outstanding_balance": 50.0, "status": "active"}],
    }
    ids = {c.id for c in catalogue(schema, seed)}
    assert {"transfer:accounts.balance", "topup:accounts.balance"} <= ids
    assert "adjust:loans.outstanding_balance" in ids  # repaid
    assert not {"transfer:loans.outstanding_balance", "topup:loans.outstanding_balance"} & ids


def test_a_rules_step_of_the_states_beside_another_refuses_in_the_changes_words() -> None:
    """finance-intent-00038 on e4504b8: "A frozen card cannot be unfrozen by the agent if it
    was reported stolen (its frozen_reason is stolen)" was mapped onto the reason and the
    state frozen, both with the rule's words, so a card that was not frozen at all was
    refused as one whose frozen_reason is stolen. A rule of the states alone keeps its own."""
    spec = finance()
    unfreeze = by_id(spec)["status:cards.status=active"]
    rule = "A frozen card cannot be unfrozen if it was reported stolen (frozen_reason stolen)."
    stolen = Condition(kind="value", column="frozen_reason", op="<>", value="stolen")
    frozen = Condition(kind="in", column="status", op="in", values=["frozen"])
    steps = [condition_step(unfreeze, c, spec.schema_, rule) for c in (stolen, frozen)]
    tool = with_conditions(unfreeze, steps)
    assert call(spec, tool, card_id=100)[0].error == (
        "Only a card whose status is frozen can be active."
    )
    assert call(spec, tool, card_id=102)[0].error == rule  # frozen because stolen
    assert call(spec, tool, card_id=103)[0].ok  # frozen because lost
    alone = "Only a frozen card can be unfrozen."
    tool = with_conditions(unfreeze, [condition_step(unfreeze, frozen, spec.schema_, alone)])
    assert call(spec, tool, card_id=100)[0].error == alone


def test_menu_conditions_become_require_steps_with_the_rules_words() -> None:
    spec = finance()
    cands = by_id(spec)
    unfreeze = cands["status:cards.status=active"]
    rule = "A card reported stolen cannot be unfrozen."
    stolen = Condition(kind="value", column="frozen_reason", op="<>", value="stolen")
    tool = with_conditions(unfreeze, [condition_step(unfreeze, stolen, spec.schema_, rule)])
    assert call(spec, tool, card_id=103)[0].ok  # frozen because lost
    assert call(spec, tool, card_id=102)[0].error == rule  # frozen because stolen
    loan = cands["create:loans under clients"]
    rules = {
        "at most one active loan": Condition(
            kind="count", row="client_id", child="loans", column="status", value="active", number=1
        ),
        "at most 5 times the income": Condition(
            kind="amount", row="client_id", column="annual_income", op="<=", factor=5
        ),
    }
    steps = [condition_step(loan, c, spec.schema_, r) for r, c in rules.items()]
    tool = with_conditions(loan, steps)
    assert tool_sql_problems(tool, spec.schema_) == []
    assert call(spec, tool, client_id=1, amount=100)[0].error == "at most one active loan"
    assert call(spec, tool, client_id=3, amount=450001)[0].error == "at most 5 times the income"
    assert call(spec, tool, client_id=3, amount=450000)[0].ok


def test_a_condition_that_does_not_fit_names_what_is_wrong() -> None:
    spec = finance()
    cand = by_id(spec)["transfer:accounts.balance"]
    missing = Condition(kind="value", row="from_account_id", column="colour", value="red")
    assert condition_problems(cand, missing, spec.schema_) == [
        "transfer:accounts.balance: condition value: table accounts has no column 'colour'"
    ]
    stray = Condition(kind="in", row="card_id", column="status", values=["active"])
    assert (
        "row 'card_id' is not one of its rows" in condition_problems(cand, stray, spec.schema_)[0]
    )
    guard = Condition(kind="guard", guard="magic")
    assert "no built-in guard 'magic'" in condition_problems(cand, guard, spec.schema_)[0]


def test_a_loans_amount_is_what_is_owed_when_no_column_says_so() -> None:
    """The 1.5B model's finance schema has loans(amount, status) and no `outstanding`: the
    repayment rule ("at most the loan's outstanding balance; repaid to 0 becomes closed")
    still gets its tool, and the rule maps onto it, not onto the status change to repaid."""
    spec = finance()
    assert "adjust:loans.amount" not in by_id(spec)  # `outstanding` says what is owed
    loans = spec.schema_.table("loans")
    table = loans.model_copy(
        update={
            "columns": [c for c in loans.columns if c.name != "outstanding"],
            "checks": [c for c in loans.checks if "outstanding" not in c],
        }
    )
    tables = [table if t.name == "loans" else t for t in spec.schema_.tables]
    schema = spec.schema_.model_copy(update={"tables": tables})
    seed = {
        **spec.seed,
        "loans": [{k: v for k, v in r.items() if k != "outstanding"} for r in spec.seed["loans"]],
    }
    cands = catalogue(schema, seed)
    rule = (
        "A loan repayment must be greater than 0 and at most the loan's outstanding balance; "
        "a loan repaid to 0 becomes closed."
    )
    chosen = candidate_for(rule, cands)
    assert chosen is not None and chosen.id == "adjust:loans.amount"
    assert {c.guard for c in guess_conditions(rule, chosen, schema, seed)} == {
        "positive",
        "not_above",
        "close_at_zero",
    }
    owed = spec.model_copy(update={"schema_": schema, "seed": seed, "tools": []})
    done, _ = call(owed, chosen.tool, loan_id=700, amount=10000)
    assert done.output == {"loan_id": 700, "amount": 0.0, "status": "closed"}


@pytest.mark.parametrize(
    ("rule", "cand", "wanted"),
    [
        # the sentence's full stop is not part of the value
        ("An account can be closed only while its status is active.",
         "status:accounts.status=closed", [("value", "status", "=", "active")]),
        # a negation in another clause does not turn the value around
        ("An account can be closed only while its status is active, and never twice.",
         "status:accounts.status=closed", [("value", "status", "=", "active")]),
        ("An account can be closed only while its status is not frozen.",
         "status:accounts.status=closed", [("value", "status", "<>", "frozen")]),
        # "an account whose status is active" says nothing of the card's own status
        ("A card can be frozen only on an account whose status is active.",
         "status:cards.status=frozen", []),
        # a comparison with another column is no value to match
        ("An account can be closed only while balance is below opened_on.",
         "status:accounts.status=closed", []),
    ],
)  # fmt: skip
def test_rule_wording_gives_the_conditions_it_states(
    rule: str, cand: str, wanted: list[tuple[str, str, str, str]]
) -> None:
    """Cases from the medicine run, where three of six rules went unenforced."""
    spec = finance()
    conditions = guess_conditions(rule, by_id(spec)[cand], spec.schema_, spec.seed)
    got = [(c.kind, c.column, c.op, c.value) for c in conditions if c.kind == "value"]
    assert got == wanted


def test_a_quantity_is_named_by_a_whole_word_and_a_bound_is_none() -> None:
    """medicine's `refills_allowed` became `repay_prescription_refills_allowed` ("owed" is
    in "allowed"), and finance's `max_balance` a balance to withdraw from."""
    assert named("copies_available", DECREASABLE) and named("outstanding", DEBTS)
    assert not named("refills_allowed", DEBTS)
    cap = Column(name="max_balance", type="real")
    assert not quantity(cap, DECREASABLE)
    assert quantity(Column(name="balance", type="real"), DECREASABLE)


def test_rules_reading_rows_across_foreign_keys_are_mapped_and_enforced() -> None:
    """Railway enforced 1 rule of 6: the seat limit is on the trip's train, the departure
    on the ticket's trip, the ticket limit per trip; none was a row the operation names."""
    spec = railway_spec()
    cands = by_id(spec)
    writes = [c for c in cands.values() if c.tool.kind == "write"]
    sold, _, per_trip, refund, *_ = railway_rules()

    def enforced(rule: str, wanted: str) -> Tool:
        cand = candidate_for(rule, writes)
        assert cand is not None and cand.id == wanted
        conditions = guess_conditions(rule, cand, spec.schema_, spec.seed)
        assert conditions and not any(condition_problems(cand, c, spec.schema_) for c in conditions)
        tool = with_conditions(
            cand, [condition_step(cand, c, spec.schema_, rule) for c in conditions]
        )
        assert tool_sql_problems(tool, spec.schema_) == []
        return tool

    sell = enforced(sold, "create:tickets under passengers counting trips.seats_sold")
    assert call(spec, sell, passenger_id=51, trip_id=11, price=40)[0].ok  # delayed, seats left
    assert call(spec, sell, passenger_id=51, trip_id=10, price=40)[0].error == sold  # train full
    assert call(spec, sell, passenger_id=51, trip_id=12, price=40)[0].error == sold  # cancelled
    hold = enforced(per_trip, "create:tickets under passengers")
    assert call(spec, hold, passenger_id=50, trip_id=11, price=40)[0].error == per_trip  # 4 held
    assert call(spec, hold, passenger_id=50, trip_id=13, price=40)[0].ok  # none on this trip
    booked = enforced(railway_rules()[5], "create:tickets under passengers")  # not a new trip
    assert call(spec, booked, passenger_id=51, trip_id=12, price=40)[0].error  # cancelled
    assert call(spec, booked, passenger_id=51, trip_id=11, price=40)[0].ok
    back = enforced(refund, "status:tickets.status=refunded")
    assert call(spec, back, ticket_id=904)[0].ok  # the trip leaves tomorrow
    assert call(spec, back, ticket_id=905)[0].error == refund  # the trip has left


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_number_of_hours_bounds_no_column(engine: str) -> None:
    """Railway's "the refund is the full price more than 24 hours before departure" was
    read as price > 24 as well: a ticket of 20 on a trip leaving tomorrow was refused."""
    spec = railway_spec()
    cheap = [{**t, "price": 20.0} if t["ticket_id"] == 904 else t for t in spec.seed["tickets"]]
    spec = spec.model_copy(update={"seed": {**spec.seed, "tickets": cheap}})
    refund = railway_rules()[3]
    back = _enforced(spec, refund, "status:tickets.status=refunded")
    assert _on(spec, back, engine, ticket_id=904).ok  # 20, the trip leaves tomorrow
    assert _on(spec, back, engine, ticket_id=905).error == refund  # the trip has left


def test_a_row_across_a_key_that_is_no_foreign_key_is_named() -> None:
    spec = railway_spec()
    refund = by_id(spec)["status:tickets.status=refunded"]
    wrong = Condition(kind="days_ahead", row="ticket_id.price", column="departure_time", number=0)
    assert condition_problems(refund, wrong, spec.schema_) == [
        "status:tickets.status=refunded: condition days_ahead: row 'ticket_id.price': 'price' "
        "is no foreign key of tickets (it has ['passenger_id', 'trip_id'])"
    ]
    unlike = Condition(
        kind="compare", row="ticket_id.trip_id", column="seats_sold", op="<",
        other="ticket_id.trip_id", other_column="departure_time",
    )  # fmt: skip
    assert "are not alike" in condition_problems(refund, unlike, spec.schema_)[0]


@pytest.mark.parametrize(
    ("rule", "wanted"),
    [
        # a status word before the child's name, and a limit per another row of the call
        ("A passenger cannot have more than 2 active tickets on the same trip.",
         [("count", "passenger_id", "status", "active", 2, "trip_id")]),
        ("A passenger can have only one ticket with status active.",
         [("count", "passenger_id", "status", "active", 1, "")]),
        # "the same term" is no row the operation names: no guess, looser or stricter
        ("A passenger cannot have more than 6 active tickets in the same term.", []),
        # a word before the child that is no status: the filter is unknown, so no limit
        ("A passenger may hold at most 2 cheap tickets.", []),
        # a number parameter kept between two bounds, named before or after them
        ("A ticket price must be between 5 and 500.",
         [("amount", "price", ">=", 5.0), ("amount", "price", "<=", 500.0)]),
        ("One ticket costs between 5 and 500 price units.",
         [("amount", "price", ">=", 5.0), ("amount", "price", "<=", 500.0)]),
        # several statuses of a row the call reaches, as one condition
        ("A ticket can be sold only for a trip whose status is scheduled or delayed.",
         [("in", "trip_id", "status", "in", ("scheduled", "delayed"))]),
        ("A ticket cannot be sold for a trip whose status is cancelled or delayed.",
         [("in", "trip_id", "status", "not in", ("cancelled", "delayed"))]),
    ],
)  # fmt: skip
def test_rule_wording_gives_limits_bounds_and_status_lists(rule: str, wanted: list) -> None:
    """Phrasings of school, weather, movie and restaurant rules, on the railway test bed."""
    spec = railway_spec()
    sell = by_id(spec)["create:tickets under passengers"]
    got: list[tuple] = []
    for c in guess_conditions(rule, sell, spec.schema_, spec.seed):
        if c.kind == "count":
            got.append((c.kind, c.row, c.column, c.value, c.number, c.per))
        elif c.kind == "amount":
            got.append((c.kind, c.parameter, c.op, c.value))
        elif c.kind == "in":
            got.append((c.kind, c.row, c.column, c.op, tuple(c.values)))
    assert got == wanted
    for c in guess_conditions(rule, sell, spec.schema_, spec.seed):
        assert condition_problems(sell, c, spec.schema_) == []


def test_limits_from_a_column_and_twice_on_the_same_row_are_enforced() -> None:
    """School's "the number of active enrollments is below the course's capacity" and "a
    student cannot enroll twice in the same course", on the railway test bed."""
    spec = railway_spec()
    sell = by_id(spec)["create:tickets under passengers"]
    for rule, refused, allowed in [
        (
            "A ticket can be sold only while the number of active tickets is below the trip's "
            "seats.",
            {"passenger_id": 50, "trip_id": 13},  # 1 seat, 1 active ticket
            {"passenger_id": 50, "trip_id": 11},  # 300 seats, 5 active tickets
        ),
        (
            "A passenger cannot book twice on the same trip.",
            {"passenger_id": 51, "trip_id": 11},  # holds ticket 904 there
            {"passenger_id": 51, "trip_id": 10},
        ),
    ]:
        conditions = guess_conditions(rule, sell, spec.schema_, spec.seed)
        assert [c.kind for c in conditions] == ["count"]
        tool = with_conditions(sell, [condition_step(sell, conditions[0], spec.schema_, rule)])
        assert call(spec, tool, price=10, **refused)[0].error == rule
        assert call(spec, tool, price=10, **allowed)[0].ok


def test_a_rule_whose_verb_is_a_state_goes_to_the_write_that_sets_it() -> None:
    """Railway on de87116 gave "a ticket can be refunded only before the trip's
    departure_time" to `cancel_ticket` (a cancel may be called a refund), though
    `refund_ticket` sets the very state; the refund went unchecked."""
    from tests.generators.railway import SCHEMA as LINES
    from tests.generators.railway import SEED as RIDDEN

    schema = json.loads(
        json.dumps(LINES).replace("'active', 'refunded'", "'active', 'cancelled', 'refunded'")
    )
    spec = bed("railway", schema, RIDDEN)
    writes = [c for c in by_id(spec).values() if c.tool.kind == "write"]
    assert {"cancel:tickets", "status:tickets.status=refunded"} <= {c.id for c in writes}
    rule = "A ticket can be refunded only before the trip's departure_time."
    assert candidates_for(rule, writes)[0].id == "status:tickets.status=refunded"
    cancelled = "A ticket can be cancelled only before the trip's departure_time."
    assert candidates_for(cancelled, writes)[0].id == "cancel:tickets"


def test_a_rule_about_an_operation_no_candidate_does_is_left_unmapped() -> None:
    """ "can be moved" and "can drop": a ticket's create or refund shares its nouns, not its
    verb, so no guess passes for the rule (school's drop rule had gone to enrolling)."""
    spec = railway_spec()
    writes = [c for c in by_id(spec).values() if c.tool.kind == "write"]
    moved = railway_rules()[4]
    assert moved.startswith("A ticket can be moved")
    # the move, and its form that moves the trips' seats_sold along
    move, counting = candidates_for(moved, writes)  # the trips' stations are not read: unmapped
    assert (move.id, counting.id) == (
        "move:tickets.trip_id",
        "move:tickets.trip_id counting trips.seats_sold",
    )
    assert guess_conditions(moved, move, spec.schema_, spec.seed) == []
    dropped = "A passenger can drop a ticket only while no ticket has been sold on the trip."
    assert candidate_for(dropped, writes) is None


def test_a_status_of_a_row_reached_through_a_key_is_read() -> None:
    """Basketball's "a ticket can be refunded only if its game has status scheduled or
    postponed": the game is the ticket's, not a row the refund names."""
    spec = railway_spec()
    refund = by_id(spec)["status:tickets.status=refunded"]
    rule = "A ticket can be refunded only if its trip has status scheduled or delayed."
    conditions = guess_conditions(rule, refund, spec.schema_, spec.seed)
    assert [(c.kind, c.row, c.values) for c in conditions] == [
        ("in", "ticket_id.trip_id", ["scheduled", "delayed"])
    ]
    tool = with_conditions(refund, [condition_step(refund, conditions[0], spec.schema_, rule)])
    assert call(spec, tool, ticket_id=904)[0].ok  # trip 11 is delayed
    assert call(spec, tool, ticket_id=906)[0].error == rule  # trip 12 is cancelled


def _enforced(spec: EnvironmentSpec, rule: str, wanted: str) -> Tool:
    writes = [c for c in by_id(spec).values() if c.tool.kind == "write"]
    cand = candidate_for(rule, writes)
    assert cand is not None and cand.id == wanted
    conditions = guess_conditions(rule, cand, spec.schema_, spec.seed)
    assert conditions and not any(condition_problems(cand, c, spec.schema_) for c in conditions)
    steps = [condition_step(cand, c, spec.schema_, rule) for c in conditions if c.kind != "guard"]
    tool = with_conditions(cand, steps)
    assert tool_sql_problems(tool, spec.schema_) == []
    return tool


def test_a_drop_while_no_grade_is_recorded_is_mapped_and_enforced() -> None:
    """School's sixth rule went unmapped: no status said "dropped", "drop" matched no
    candidate's verb, and "no grade has been recorded" was no limit."""
    spec = school_spec()
    rule = school_rules()[5]
    assert rule.startswith("A student can drop a course only while the enrollment status")
    drop = _enforced(spec, rule, "status:enrollments.status=dropped")
    assert drop.name == "drop_enrollment"
    assert call(spec, drop, enrollment_id=301)[0].ok
    assert call(spec, drop, enrollment_id=300)[0].error == rule  # graded
    assert "can be dropped" in (call(spec, drop, enrollment_id=302)[0].error or "")


def test_none_before_the_operation_counts_what_the_operation_adds() -> None:
    """Basketball's "a player can be signed only if the player has no contract with status
    active": signing adds the active contract, so the count is of those before it."""
    spec = school_spec()
    rule = "A student can enroll only if the student has no enrollment with status active."
    enroll = _enforced(spec, rule, "create:enrollments under students")
    assert call(spec, enroll, student_id=1, course_id=10, grading="letter")[0].error == rule
    alone = spec.model_copy(
        update={"seed": {**spec.seed, "enrollments": spec.seed["enrollments"][:3]}}
    )
    assert call(alone, enroll, student_id=2, course_id=11, grading="letter")[0].ok  # one dropped


def test_a_value_said_with_the_rules_subject_is_a_condition_on_it() -> None:
    """Travel's "a flight booking with fare_class basic_economy cannot be changed or
    refunded"."""
    spec = school_spec()
    rule = "An enrollment with grading pass_fail cannot be dropped."
    drop = _enforced(spec, rule, "status:enrollments.status=dropped")
    assert call(spec, drop, enrollment_id=303)[0].error == rule
    assert call(spec, drop, enrollment_id=301)[0].ok
    sell = by_id(railway_spec())["create:tickets under passengers"]
    said = "A ticket with status refunded cannot be sold."  # a new row has no value yet
    assert guess_conditions(said, sell, railway_spec().schema_, railway_spec().seed) == []


def test_a_state_a_record_cannot_be_set_back_to_names_the_status_change() -> None:
    """Weather's "a station with status decommissioned cannot be set back to active": the
    verb is the state, not "set"."""
    spec = railway_spec()
    writes = [c for c in by_id(spec).values() if c.tool.kind == "write"]
    rule = "A trip with status delayed cannot be set back to scheduled."
    cand = candidate_for(rule, writes)
    assert cand is not None and cand.id == "status:trips.status=scheduled"
    conditions = guess_conditions(rule, cand, spec.schema_, spec.seed)
    assert [(c.kind, c.op, c.values) for c in conditions] == [("in", "not in", ["delayed"])]
    tool = with_conditions(cand, [condition_step(cand, conditions[0], spec.schema_, rule)])
    assert call(spec, tool, trip_id=11)[0].error == rule  # delayed


def test_a_limit_of_the_same_value_counts_the_rows_with_the_new_rows_value() -> None:
    """Weather's "a region can have only one alert with status active of the same
    alert_type": the alert type is the new alert's own, a parameter of the create."""
    spec = school_spec()
    rule = "A student can have only one enrollment with status active of the same grading."
    enroll = _enforced(spec, rule, "create:enrollments under students")
    assert call(spec, enroll, student_id=1, course_id=10, grading="letter")[0].error == rule
    assert call(spec, enroll, student_id=1, course_id=10, grading="pass_fail")[0].ok
    cand = by_id(spec)["create:enrollments under students"]
    wrong = Condition(kind="count", row="student_id", child="enrollments", number=1, per="score")
    assert condition_problems(cand, wrong, spec.schema_) == [
        "create:enrollments under students: condition count: per 'score' is no row of it that "
        "enrollments rows belong to, nor a column of the enrollments row it creates"
    ]


@pytest.mark.parametrize(
    ("rule", "refused", "allowed"),
    [
        # movie: "a booking needs a showtime in the future"
        ("A ticket can be sold only for a trip in the future.", 13, 10),
        # movie: "the showtime starts more than 2 hours later"; trip 11 leaves in 22 hours
        ("A ticket can be sold only if the trip starts more than 24 hours later.", 11, 10),
    ],
)
def test_a_moment_ahead_of_now_is_read_off_the_row_it_names(
    rule: str, refused: int, allowed: int
) -> None:
    spec = railway_spec()
    sell = _enforced(spec, rule, "create:tickets under passengers")
    assert call(spec, sell, passenger_id=51, trip_id=refused, price=9)[0].error == rule
    assert call(spec, sell, passenger_id=51, trip_id=allowed, price=9)[0].ok


def test_a_rule_about_one_kind_of_record_holds_only_for_that_kind() -> None:
    """Railway's "a first class ticket can only be sold on a trip whose train has
    has_first_class set to true" and medicine's "a medication marked controlled can only be
    prescribed by a doctor with can_prescribe_controlled set to true": enforced on every
    ticket or prescription, they refuse what the rule allows."""
    spec = school_spec()
    rule = "A pass_fail enrollment can only be created for a course whose allows_pass_fail is true."
    enroll = _enforced(spec, rule, "create:enrollments under students")
    assert call(spec, enroll, student_id=2, course_id=11, grading="pass_fail")[0].error == rule
    assert call(spec, enroll, student_id=2, course_id=11, grading="letter")[0].ok
    assert call(spec, enroll, student_id=2, course_id=10, grading="pass_fail")[0].ok
    core = "An enrollment in a course marked core cannot be dropped."
    drop = _enforced(spec, core, "status:enrollments.status=dropped")
    assert call(spec, drop, enrollment_id=301)[0].ok  # Geography
    assert call(spec, drop, enrollment_id=300)[0].error == core  # Biology 2
    cands = by_id(spec)
    for unread in (
        "An honours enrollment can only be created for a course whose "
        "allows_pass_fail is true.",  # no column says honours
        "A course marked elective cannot be dropped.",
    ):  # no flag says so
        cand = candidate_for(unread, [c for c in cands.values() if c.tool.kind == "write"])
        assert cand is not None
        assert guess_conditions(unread, cand, spec.schema_, spec.seed) == []


def test_a_limit_in_the_same_term_counts_the_rows_whose_course_has_this_term() -> None:
    """School's "a student cannot have more than 6 active enrollments in the same term":
    the term is the course's, so the count is of the student's active enrollments in
    courses of the new course's term."""
    spec = school_spec()
    rule = "A student cannot have more than 1 active enrollment in the same term."
    enroll = _enforced(spec, rule, "create:enrollments under students")
    # Emma holds Biology 2 (spring) and Geography (fall); Chemistry is spring
    assert call(spec, enroll, student_id=1, course_id=12, grading="letter")[0].error == rule
    # Noah dropped Biology 2 and holds Geography (fall)
    assert call(spec, enroll, student_id=2, course_id=12, grading="letter")[0].ok


def _on(spec: EnvironmentSpec, tool: Tool, engine: str, **arguments: object):
    env_spec = spec.model_copy(update={"tools": [*spec.tools, tool]})
    with Environment(env_spec, engine=engine) as env:  # type: ignore[arg-type]
        return env.step(ToolCall(name=tool.name, arguments=arguments))


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_rules_on_the_calls_own_parameters_are_mapped_and_enforced(engine: str) -> None:
    """Travel's "a hotel booking's check_out date must be after its check_in date, and the
    hotel must have rooms_available above 0" and restaurant's "reservations are only for
    future dates", "a customer with 3 or more recorded no_shows cannot make a new
    reservation": rules with no operation verb, or on the new row's own values, that no
    phrasing the mapper read could enforce (the clock is 2025-01-15)."""
    spec = travel_spec()
    stay = (
        "A hotel booking's check_out date must be after its check_in date, and the hotel "
        "must have rooms_available above 0."
    )
    book = _enforced(spec, stay, "create:hotel_bookings under customers")
    ok = {"customer_id": 1, "hotel_id": 20, "check_in_date": "2025-03-01"}
    assert _on(spec, book, engine, **ok, check_out_date="2025-03-04").ok
    assert _on(spec, book, engine, **ok, check_out_date="2025-02-27").error == stay
    full = ok | {"hotel_id": 21}
    assert _on(spec, book, engine, **full, check_out_date="2025-03-04").error == stay
    future = "Hotel bookings are only for future dates."
    book = _enforced(spec, future, "create:hotel_bookings under customers")
    late = {"customer_id": 1, "hotel_id": 20, "check_out_date": "2025-03-04"}
    assert _on(spec, book, engine, **late, check_in_date="2025-01-10").error == future
    assert _on(spec, book, engine, **late, check_in_date="2025-01-20").ok
    missed = "A customer with 3 or more recorded no_shows cannot make a new hotel booking."
    book = _enforced(spec, missed, "create:hotel_bookings under customers")
    stay_args = {"hotel_id": 20, "check_in_date": "2025-03-01", "check_out_date": "2025-03-04"}
    assert _on(spec, book, engine, customer_id=2, **stay_args).error == missed
    assert _on(spec, book, engine, customer_id=1, **stay_args).ok
    before = "A hotel booking can be cancelled only before its check_in date."
    cancel = _enforced(spec, before, "cancel:hotel_bookings")
    assert _on(spec, cancel, engine, booking_id=500).ok  # 2025-02-01 is ahead
    late_spec = spec.model_copy(update={"clock": "2025-02-02T09:00:00"})
    assert _on(late_spec, cancel, engine, booking_id=500).error == before


def test_two_parameters_said_unequal_or_ordered_are_a_pair() -> None:
    """Basketball's "the home and away scores cannot be equal" and weather's "its end_time
    must be after its start_time", read off a create that takes both; a name no parameter
    holds gives nothing."""
    spec = travel_spec()
    book = by_id(spec)["create:hotel_bookings under customers"]
    scored = book.model_copy(
        update={
            "tool": book.tool.model_copy(
                update={
                    "parameters": {
                        "type": "object",
                        "properties": {
                            **book.tool.parameters["properties"],
                            "home_score": {"type": "integer"},
                            "away_score": {"type": "integer"},
                        },
                    }
                }
            )
        }
    )
    rule = "A hotel booking's home and away scores cannot be equal."
    (pair,) = [c for c in guess_conditions(rule, scored, spec.schema_, spec.seed)]
    assert (pair.kind, pair.parameter, pair.op, pair.other_parameter) == (
        "pair",
        "home_score",
        "<>",
        "away_score",
    )
    assert condition_problems(scored, pair, spec.schema_) == []
    unlike = pair.model_copy(update={"other_parameter": "check_in_date"})
    assert "are not alike" in condition_problems(scored, unlike, spec.schema_)[0]
    none = "A hotel booking's end_time must be after its start_time."
    assert guess_conditions(none, scored, spec.schema_, spec.seed) == []


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_movie_rules_sums_other_rows_at_the_same_time_and_fixed_costs(engine: str) -> None:
    """Movie enforced 1 rule of 6: a sum of seats against the screen's capacity, "no other
    showtime starting at the same time" on the screen named last, a status with an
    underscore (`now_showing`), "costs 100 loyalty points" and "cannot go below 0" were
    all unread, and "cannot exceed" was taken for the operation."""
    spec = movie_spec()
    seats = SEATS
    book = _enforced(spec, seats, "create:bookings under customers")
    assert _on(spec, book, engine, customer_id=6, showtime_id=10, seats=78).ok  # 2 + 78 = 80
    assert _on(spec, book, engine, customer_id=6, showtime_id=10, seats=79).error == seats
    add = _slot_checked(spec, engine, "start_time")
    at = {"start_time": "2025-01-20T18:00:00"}
    assert _on(spec, add, engine, movie_id=2, screen_id=2, **at).error == SLOT  # Heat ended
    free = (
        "Redeeming a free ticket costs 100 loyalty points, and the customer's loyalty_points "
        "cannot go below 0."
    )
    redeem = _enforced(spec, free, "adjust:customers.loyalty_points")
    assert _on(spec, redeem, engine, customer_id=5, amount=100).ok
    assert _on(spec, redeem, engine, customer_id=5, amount=60).error == free
    assert _on(spec, redeem, engine, customer_id=6, amount=100).error  # 40 points


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_the_same_time_is_the_one_moment_the_new_row_has(engine: str) -> None:
    """Movie on 3d6f8ed named its showtime's moment `showtime_date`, and "no other showtime
    starting at the same time" on the screen went unread: no parameter had the word
    "time". A row's one date or moment is its time."""
    schema = json.loads(json.dumps(SCREENED).replace('"start_time"', '"showtime_date"'))
    seed = json.loads(json.dumps(BOOKED).replace('"start_time"', '"showtime_date"'))
    _slot_checked(bed("movie", schema, seed), engine, "showtime_date")


def _slot_checked(spec: EnvironmentSpec, engine: str, moment: str) -> Tool:
    """The showtime create for `SLOT`, refused on screen 1 at 18:00 (taken), done on 2."""
    add = _enforced(spec, SLOT, "create:showtimes under movies")
    at = {moment: "2025-01-20T18:00:00"}
    assert _on(spec, add, engine, movie_id=1, screen_id=1, **at).error == SLOT  # taken
    assert _on(spec, add, engine, movie_id=1, screen_id=2, **at).ok
    return add


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_cancelled_booking_holds_no_seat(engine: str) -> None:
    """Movie on 3d6f8ed counted 36 seats booked on a showtime whose live bookings held 26:
    a cancelled one was summed against the screen's capacity. Here 40 cancelled seats
    beside the 2 confirmed leave 78 of 80."""
    spec = booked_beside(10, 40, "cancelled")
    book = _enforced(spec, SEATS, "create:bookings under customers")
    assert _on(spec, book, engine, customer_id=6, showtime_id=10, seats=78).ok
    assert _on(spec, book, engine, customer_id=6, showtime_id=10, seats=79).error == SEATS


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_booking_moved_to_a_showtime_counts_its_seats_there(engine: str) -> None:
    """Movie's `move_booking_showtime` on 3d6f8ed carried the capacity rule's message and
    checked only the day: a booking could be moved onto a full showtime. Here Mia's 2 seats
    go to showtime 11 (screen of 40), which holds 38 or 39 already."""

    def moved(held: int) -> ToolResult:
        spec = booked_beside(11, held, "confirmed")
        cand = by_id(spec)["move:bookings.showtime_id"]
        conditions = guess_conditions(SEATS, cand, spec.schema_, spec.seed)
        kept = [c for c in conditions if c.kind != "guard"]
        tool = with_conditions(cand, [condition_step(cand, c, spec.schema_, SEATS) for c in kept])
        assert tool_sql_problems(tool, spec.schema_) == []
        return _on(spec, tool, engine, booking_id=70, new_showtime_id=11)

    assert moved(38).ok  # 38 + 2 = 40
    assert moved(39).error == SEATS


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_no_other_appointment_at_that_time_is_one_that_overlaps(engine: str) -> None:
    """Medicine's create_appointment on b5cbf4f read "at a time when that doctor has no
    other scheduled appointment" as none ending at the same minute: one from 09:30 to
    10:30 was booked over Dr. Lee's 09:00 to 10:00."""
    spec = medicine_spec()
    rule = (
        "An appointment can be booked only at a time when that doctor has no other "
        "scheduled appointment."
    )
    book = _enforced(spec, rule, "create:appointments under patients")
    clash = "status = 'scheduled' AND start_time < :end_time AND end_time > :start_time"
    assert any(step.sql.endswith(clash) for step in book.require), book.require
    day = {"patient_id": 5, "start_time": "2025-02-01T09:30:00", "end_time": "2025-02-01T10:30:00"}
    assert _on(spec, book, engine, doctor_id=1, **day).error == rule  # overlaps 09:00-10:00
    assert _on(spec, book, engine, doctor_id=2, **day).ok  # Dr. Kim is free
    after = {"start_time": "2025-02-01T10:00:00", "end_time": "2025-02-01T11:00:00"}
    assert _on(spec, book, engine, doctor_id=1, patient_id=5, **after).ok  # starts as it ends
    cancelled = {"start_time": "2025-02-02T09:30:00", "end_time": "2025-02-02T10:30:00"}
    assert _on(spec, book, engine, doctor_id=1, patient_id=5, **cancelled).ok


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_count_between_bounds_names_its_column_in_the_plural(engine: str) -> None:
    """Movie at 822d671 left "one booking holds between 1 and 10 seats" unenforced: its
    column was `seat_count`, and "seats" is no word of it until made singular."""
    schema = json.loads(json.dumps(SCREENED).replace('"seats"', '"seat_count"'))
    seed = json.loads(json.dumps(BOOKED).replace('"seats"', '"seat_count"'))
    spec = bed("movie", schema, seed)
    rule = "One booking holds between 1 and 10 seats."
    book = _enforced(spec, rule, "create:bookings under customers")
    assert _on(spec, book, engine, customer_id=6, showtime_id=10, seat_count=10).ok
    assert _on(spec, book, engine, customer_id=6, showtime_id=10, seat_count=11).error == rule


def test_a_sum_over_rows_of_one_status_and_the_verb_that_names_the_record() -> None:
    """Basketball's "the sum of yearly salaries of a team's active contracts cannot exceed
    the team's salary_cap", on the movie test bed; a sum over rows the call does not add
    is none."""
    spec = movie_spec()
    rule = (
        "The sum of seats of a showtime's confirmed bookings cannot exceed the screen's capacity."
    )
    book = _enforced(spec, rule, "create:bookings under customers")
    assert "status = 'confirmed'" in book.require[-1].sql
    assert _on(spec, book, "sqlite", customer_id=6, showtime_id=10, seats=79).error == rule
    writes = [c for c in by_id(spec).values() if c.tool.kind == "write"]
    chosen = candidate_for(rule, writes)
    other = "The sum of seats of a screen's showtimes cannot exceed the screen's capacity."
    assert chosen is not None and guess_conditions(other, chosen, spec.schema_, spec.seed) == []


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_an_age_from_a_birth_date_holds_for_the_rating_it_names(engine: str) -> None:
    """Movie's "a customer younger than 18 (from birth_date) cannot book a movie rated R":
    a booking is what booking makes (the screen it had picked shares the movie), the age
    is read off the customer's birth date, and only for a movie so rated. Sam is 14."""
    spec = movie_spec()
    rated = "A customer younger than 18 (from birth_date) cannot book a movie rated R."
    book = _enforced(spec, rated, "create:bookings under customers")
    assert _on(spec, book, engine, customer_id=6, showtime_id=11, seats=1).error == rated
    assert _on(spec, book, engine, customer_id=6, showtime_id=10, seats=1).ok  # rated PG
    assert _on(spec, book, engine, customer_id=5, showtime_id=11, seats=1).ok  # Mia is 34


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_refill_uses_one_of_an_allowance_while_it_lasts_and_has_not_expired(
    engine: str,
) -> None:
    """Medicine's "a prescription can be refilled only while refills_used is below
    refills_allowed and its expiry_date has not passed": no operation could refill."""
    schema = {
        "tables": [
            {
                "name": "prescriptions",
                "columns": [
                    col("prescription_id", "integer"),
                    col("refills_used", "integer"),
                    col("refills_allowed", "integer"),
                    col("expiry_date", "date"),
                ],
                "primary_key": ["prescription_id"],
            }
        ]
    }
    rows = [(1, 1, 2, "2025-06-01"), (2, 2, 2, "2025-06-01"), (3, 0, 2, "2025-01-01")]
    seed = {
        "prescriptions": [
            {"prescription_id": k, "refills_used": u, "refills_allowed": a, "expiry_date": d}
            for k, u, a, d in rows
        ]
    }
    spec = bed("medicine", schema, seed)
    rule = (
        "A prescription can be refilled only while refills_used is below refills_allowed and "
        "its expiry_date has not passed."
    )
    refill = _enforced(spec, rule, "use:prescriptions.refills_used")
    assert refill.name == "refill_prescription"
    done = _on(spec, refill, engine, prescription_id=1)
    assert done.ok and done.output == {"prescription_id": 1, "refills_used": 2}
    assert _on(spec, refill, engine, prescription_id=2).error == rule  # none left
    assert _on(spec, refill, engine, prescription_id=3).error == rule  # expired


def clinic() -> dict:
    """Medicine's patients, doctors, appointments (scheduled or completed) and
    prescriptions, each pointing to the parties it is between."""
    return {
        "tables": [
            {
                "name": name,
                "columns": [col(f"{name[:-1]}_id", "integer"), col("name", "text")],
                "primary_key": [f"{name[:-1]}_id"],
            }
            for name in ("patients", "doctors")
        ]
        + [
            {
                "name": "appointments",
                "columns": [
                    col("appointment_id", "integer"),
                    col("patient_id", "integer"),
                    col("doctor_id", "integer"),
                    col("status", "text"),
                ],
                "primary_key": ["appointment_id"],
                "foreign_keys": [fk("patient_id", "patients"), fk("doctor_id", "doctors")],
                "checks": ["status IN ('scheduled', 'completed')"],
            },
            {
                "name": "prescriptions",
                "columns": [
                    col("prescription_id", "integer"),
                    col("patient_id", "integer"),
                    col("doctor_id", "integer"),
                    col("appointment_id", "integer"),
                ],
                "primary_key": ["prescription_id"],
                "foreign_keys": [
                    fk("patient_id", "patients"),
                    fk("doctor_id", "doctors"),
                    fk("appointment_id", "appointments"),
                ],
            },
        ]
    }


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_record_required_between_the_same_parties_points_to_the_rows_named(
    engine: str,
) -> None:
    """Medicine's "a prescription requires a completed appointment between the same patient
    and the prescribing doctor": appointment 40 is Ana's with Dr Roe, completed; 41 is
    Ana's with Dr Roe, still scheduled."""
    schema = clinic()
    seed = {
        "patients": [{"patient_id": 1, "name": "Ana"}, {"patient_id": 2, "name": "Ben"}],
        "doctors": [{"doctor_id": 7, "name": "Dr Roe"}],
        "appointments": [
            {"appointment_id": 40, "patient_id": 1, "doctor_id": 7, "status": "completed"},
            {"appointment_id": 41, "patient_id": 1, "doctor_id": 7, "status": "scheduled"},
        ],
        "prescriptions": [],
    }
    spec = bed("medicine", schema, seed)
    rule = (
        "A prescription requires a completed appointment between the same patient and the "
        "prescribing doctor."
    )
    write = _enforced(spec, rule, "create:prescriptions under patients")
    assert _on(spec, write, engine, patient_id=1, doctor_id=7, appointment_id=40).ok
    assert _on(spec, write, engine, patient_id=2, doctor_id=7, appointment_id=40).error == rule
    assert _on(spec, write, engine, patient_id=1, doctor_id=7, appointment_id=41).error == rule


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_restaurants_reservation_rules_are_mapped_and_enforced(engine: str) -> None:
    """Restaurant enforced 1 rule of 6: "between 1 and 12 and no larger than the table's
    seats" lost its parameter after "and", "cannot have two reservations ... on the same
    date and time slot" was no limit, "time slots between 12:00 and 22:00" no bound, and
    "changed or cancelled" picked an email change for its first verb."""
    spec = restaurant_spec()
    size, two, future, _, booked, _ = restaurant_rules()
    make = "create:reservations under customers"
    at = {"customer_id": 1, "table_id": 3, "date": "2025-01-21", "time_slot": "19:00"}
    book = _enforced(spec, size, make)
    assert _on(spec, book, engine, **at, party_size=4).ok
    assert _on(spec, book, engine, **at, party_size=5).error == size  # four seats
    assert _on(spec, book, engine, **at, party_size=0).error  # a party of none
    book = _enforced(spec, two, make)
    taken = at | {"date": "2025-01-20", "party_size": 2}
    assert _on(spec, book, engine, **taken).error == two
    assert _on(spec, book, engine, **taken | {"time_slot": "20:00"}).ok
    book = _enforced(spec, future, make)
    assert _on(spec, book, engine, **at, party_size=2).ok
    assert _on(spec, book, engine, **at | {"time_slot": "22:30"}, party_size=2).error == future
    assert _on(spec, book, engine, **at | {"date": "2025-01-10"}, party_size=2).error == future
    cancel = _enforced(spec, booked, "cancel:reservations")
    assert _on(spec, cancel, engine, reservation_id=90).ok
    assert _on(spec, cancel, engine, reservation_id=91).error == booked  # seated
    # no time limit the brief does not state: the restaurant run's seed held only past
    # dates, and a made-up 30-day window refused every cancellation, so the tool was dropped
    years_on = spec.model_copy(update={"clock": "2031-06-01T12:00:00"})
    assert _on(years_on, cancel, engine, reservation_id=90).ok


def _built(spec: EnvironmentSpec, rule: str) -> dict[str, Tool]:
    """The deterministic choice's tools for one rule, by candidate pattern and table."""
    candidates = list(by_id(spec).values())
    choice = fallback_choice(candidates, [rule], spec.schema_, spec.seed)
    mapped = {m.candidate for m in choice.rules}
    built = realise(choice, candidates, [rule], spec)
    enforcing = {e.tool for e in built.rules[0].enforced_by}
    tools = {by_id(spec)[m].tool.name: m for m in mapped}
    return {tools[t.name]: t for t in built.tools if t.name in enforcing and t.name in tools}


def test_a_rules_enforcement_is_reported_as_the_tool_is_built() -> None:
    """Ecommerce's cancel on 6b0b758 was reported as enforcing "only while pending or paid"
    by "Set the status of a order to cancelled (allowed from pending, shipped, delivered)":
    the pattern's description, naming the states the rule's own step had replaced."""
    spec = ecommerce_spec()
    cancelled = ecommerce_rules()[2]
    candidates = list(by_id(spec).values())
    choice = fallback_choice(candidates, [cancelled], spec.schema_, spec.seed)
    built = realise(choice, candidates, [cancelled], spec)
    cancel = next(t for t in built.tools if t.name in built.rules[0].tools())
    checks = {e.step: e.check for e in built.rules[0].enforced_by}
    assert checks[None] == cancel.description  # the restocking, built into the writes
    assert "allowed from" not in checks[None]
    steps = [k for k in checks if k is not None]
    assert steps and all(checks[k] == cancel.require[k].error for k in steps)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_change_rule_guards_every_move_of_its_record(engine: str) -> None:
    """Restaurant's "a reservation can be changed or cancelled only while its status is
    booked" went to the cancellation alone: the run's `move_reservation_table` moved a
    seated reservation to another table. A change is every move of the record, and the
    state read is the record's own: travel's "a flight booking with fare_class
    basic_economy cannot be changed" reads the booked flight, not the one it moves to."""
    spec = restaurant_spec()
    seed = {
        **spec.seed,
        "customers": [*spec.seed["customers"], {**spec.seed["customers"][0], "customer_id": 2}],
        "dining_tables": [*spec.seed["dining_tables"], {"table_id": 4, "seats": 4}],
    }
    spec = spec.model_copy(update={"seed": seed})
    booked = restaurant_rules()[4]
    tools = _built(spec, booked)
    assert set(tools) == {
        "cancel:reservations",
        "move:reservations.table_id",
        "move:reservations.customer_id",
    }
    table = tools["move:reservations.table_id"]
    assert _on(spec, table, engine, reservation_id=90, new_table_id=4).ok
    assert _on(spec, table, engine, reservation_id=91, new_table_id=4).error == booked  # seated
    owner = tools["move:reservations.customer_id"]
    assert _on(spec, owner, engine, reservation_id=91, new_customer_id=2).error == booked
    assert _on(spec, tools["cancel:reservations"], engine, reservation_id=91).error == booked
    flights = flights_spec()
    fixed = flights_rules()[1]
    assert fixed.startswith("A flight booking with fare_class basic_economy cannot be changed")
    move = _built(flights, fixed)["move:flight_bookings.flight_id"]
    assert _on(flights, move, engine, flight_booking_id=30, new_flight_id=21).error == fixed
    assert _on(flights, move, engine, flight_booking_id=31, new_flight_id=20).ok


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_move_keeps_what_a_rule_asks_of_the_row_a_record_is_made_under(engine: str) -> None:
    """Restaurant's "an order can only be placed for a reservation with status seated and
    for a menu item whose is_available is true" held for a new order only; the picked
    `move_order_to_menu_item` took an order to any dish. Here: a ticket is sold only on a
    scheduled or delayed trip, so it is moved only onto one."""
    spec = railway_spec()
    sold = railway_rules()[0]
    candidates = list(by_id(spec).values())
    choice = fallback_choice(candidates, [sold], spec.schema_, spec.seed)
    assert "move:tickets.trip_id" not in {p.candidate for p in choice.tools}  # no rule asks
    moving = ToolChoice(candidate="move:tickets.trip_id")
    choice = choice.model_copy(update={"tools": [*choice.tools, moving]})
    built = realise(choice, candidates, [sold], spec)
    move = next(t for t in built.tools if t.name == by_id(spec)[moving.candidate].tool.name)
    assert move.name in built.rules[0].tools()
    assert _on(spec, move, engine, ticket_id=904, new_trip_id=12).error == sold  # cancelled
    assert _on(spec, move, engine, ticket_id=904, new_trip_id=13).ok  # scheduled


def _table_move(spec: EnvironmentSpec, rule: str) -> Tool:
    """Restaurant's move of a reservation to another table, picked beside what `rule` maps
    to, with the rule carried onto it."""
    candidates = list(by_id(spec).values())
    choice = fallback_choice(candidates, [rule], spec.schema_, spec.seed)
    moving = ToolChoice(candidate="move:reservations.table_id")
    choice = choice.model_copy(update={"tools": [*choice.tools, moving]})
    built = realise(choice, candidates, [rule], spec)
    move = next(t for t in built.tools if t.name == by_id(spec)[moving.candidate].tool.name)
    assert move.name in built.rules[0].tools()
    return move


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_move_to_another_table_keeps_the_party_within_its_seats(engine: str) -> None:
    """Restaurant's "a reservation's party_size must be ... no larger than the table's
    seats" bounded the new reservation's parameter; a move to another table has no such
    parameter, so the reservation's own party_size is read against the new table."""
    spec = restaurant_spec()
    small = [*spec.seed["dining_tables"], {"table_id": 4, "seats": 1}, {"table_id": 5, "seats": 2}]
    spec = spec.model_copy(update={"seed": {**spec.seed, "dining_tables": small}})
    size = restaurant_rules()[0]
    move = _table_move(spec, size)
    assert _on(spec, move, engine, reservation_id=90, new_table_id=4).error == size  # 2 > 1
    assert _on(spec, move, engine, reservation_id=90, new_table_id=5).ok


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_move_to_another_table_is_refused_where_it_is_booked_at_that_date_and_time(
    engine: str,
) -> None:
    """Restaurant's "a table cannot have two reservations with status booked on the same
    date and time slot" held for a new reservation, and `move_reservation_table` moved one
    onto a table booked at its date and time (the audit of 0fd2081's run)."""
    spec = restaurant_spec()
    tables = [*spec.seed["dining_tables"], {"table_id": 4, "seats": 4}, {"table_id": 5, "seats": 4}]
    taken = {**spec.seed["reservations"][0], "reservation_id": 92, "table_id": 4}  # 19:00, 20th
    other = {**taken, "reservation_id": 93, "table_id": 5, "time_slot": "20:00"}
    reservations = [*spec.seed["reservations"], taken, other]
    seed = {**spec.seed, "dining_tables": tables, "reservations": reservations}
    spec = spec.model_copy(update={"seed": seed})
    twice = restaurant_rules()[1]
    assert twice.startswith("A table cannot have two reservations")
    move = _table_move(spec, twice)
    assert _on(spec, move, engine, reservation_id=90, new_table_id=4).error == twice
    assert _on(spec, move, engine, reservation_id=90, new_table_id=5).ok  # booked at 20:00


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_place_a_trip_holds_is_sold_once_by_a_sale_or_a_move(engine: str) -> None:
    """Railway's `create_ticket` sold seat 12 of a trip another live ticket held (the audit
    of de87116's run): the `outcome` stage rejected such tasks, the tool let them through.
    Trips 1 to 6 hold seats 1 to 5 each; trip 2's seat 2 (ticket 121) is free."""
    spec = seated(5, slots=True)
    tickets = [t for t in spec.seed["tickets"] if t["ticket_id"] != 121]
    spec = spec.model_copy(update={"seed": {**spec.seed, "tickets": tickets}})
    cands = by_id(spec)
    sell = with_conditions(cands["create:tickets under trips"], [])
    taken = "That seat_number is already taken on the trip."
    assert _on(spec, sell, engine, trip_id=1, seat_number=3, bags=0).error == taken
    assert _on(spec, sell, engine, trip_id=1, seat_number=6, bags=0).ok
    assert _on(spec, sell, engine, trip_id=2, seat_number=2, bags=0).ok
    move = with_conditions(cands["move:tickets.trip_id"], [])
    assert _on(spec, move, engine, ticket_id=111, new_trip_id=2).ok  # seat 2: free on trip 2
    assert _on(spec, move, engine, ticket_id=112, new_trip_id=2).error == taken  # seat 3
    # bags differ by chance (all 1): no place, no check
    assert all("bags" not in step.sql for step in sell.require)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_ticket_of_a_game_played_moves_nowhere(engine: str) -> None:
    """Basketball-intent-00031 and 00061 on 31bc8d2 moved ticket 57917 of game 41455,
    completed, to another player and to another game. Ticket 51 is of game 21 (finished);
    a booking under a parent that holds no places (a completed appointment) still moves."""
    spec = basketball_spec()
    tickets = [*spec.seed["tickets"], {"ticket_id": 51, "game_id": 21, "status": "sold"}]
    spec = spec.model_copy(update={"seed": {**spec.seed, "tickets": tickets}})
    move = with_conditions(by_id(spec)["move:tickets.game_id"], [])
    spent = "A ticket of a game that is finished cannot be moved."
    assert _on(spec, move, engine, ticket_id=51, new_game_id=20).error == spent
    assert _on(spec, move, engine, ticket_id=50, new_game_id=21).ok  # 20 is scheduled
    # games that hold no places (no capacity): a ticket is no place at one, and moves
    tables: list[dict[str, Any]] = [dict(t) for t in COURT["tables"]]
    for table in tables:
        if table["name"] == "games":
            table["columns"] = [c for c in table["columns"] if c["name"] != "capacity"]
    games = [{k: v for k, v in g.items() if k != "capacity"} for g in spec.seed["games"]]
    plain = bed("basketball", {"tables": tables}, {**spec.seed, "games": games})
    free = with_conditions(by_id(plain)["move:tickets.game_id"], [])
    assert _on(plain, free, engine, ticket_id=51, new_game_id=20).ok


def _stock(spec: EnvironmentSpec, tool: Tool, engine: str, **arguments: object) -> dict:
    """The products' stock after the call."""
    env_spec = spec.model_copy(update={"tools": [*spec.tools, tool]})
    with Environment(env_spec, engine=engine) as env:  # type: ignore[arg-type]
        assert env.step(ToolCall(name=tool.name, arguments=arguments)).ok
        found = env.step(ToolCall(name="get_products", arguments={"product_id": 10}))
        lamp = found.output
        found = env.step(ToolCall(name="get_products", arguments={"product_id": 11}))
        return {"lamp": lamp["stock"], "mug": found.output["stock"]}


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_ecommerce_stock_moves_with_items_and_cancellations(engine: str) -> None:
    """E-commerce's "the stock then goes down by that quantity" and "cancelling puts the
    items back in stock" had no operation that moved stock; "only before its status
    becomes shipped" and "cannot exceed the quantity bought on that order item" were
    unread."""
    spec = ecommerce_spec()
    added, _, cancelled, address, _, returned = ecommerce_rules()
    add = _enforced(spec, added, "create:order_items under orders taking products.stock")
    assert _stock(spec, add, engine, order_id=300, product_id=10, quantity=3)["lamp"] == 0
    assert _on(spec, add, engine, order_id=300, product_id=10, quantity=4).error
    cancel = _enforced(spec, cancelled, "cancel:orders restocking products.stock")
    assert _stock(spec, cancel, engine, order_id=300) == {"lamp": 5, "mug": 21}
    assert _on(spec, cancel, engine, order_id=301).error == cancelled  # shipped
    # the rule's states replace the pattern's own (from pending, shipped or delivered): a
    # paid order is cancelled, as the policy says (ecommerce on d0b7383 refused it)
    paid = {**spec.seed["orders"][0], "order_id": 302, "status": "paid"}
    with_paid = spec.model_copy(
        update={"seed": {**spec.seed, "orders": [*spec.seed["orders"], paid]}}
    )
    assert _on(with_paid, cancel, engine, order_id=302).ok
    assert "allowed from" not in cancel.description
    assert [s.error for s in cancel.require].count(cancelled) == 1
    move = _enforced(spec, address, "update:orders.shipping_address")
    assert _on(spec, move, engine, order_id=300, new_shipping_address="2 Oak St").ok
    assert _on(spec, move, engine, order_id=301, new_shipping_address="2 Oak St").error == address
    back = _enforced(spec, returned, "create:returns under orders")
    assert _on(spec, back, engine, order_id=301, order_item_id=402, quantity=2).ok
    assert _on(spec, back, engine, order_id=301, order_item_id=402, quantity=3).error == returned


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_basketballs_league_rules_are_mapped_and_enforced(engine: str) -> None:
    """Basketball's signing, roster, result, ticket and trade rules: a game's scores are
    set as it finishes, a sale counts itself on the game's tickets_sold, a trade moves a
    player to another team, and "a player can be signed" is a new contract, whose rows
    the rule can read (a new player has none)."""
    spec = basketball_spec()
    signed, salary, roster, result, sold, refund, traded = basketball_rules()
    writes = [c for c in by_id(spec).values() if c.tool.kind == "write"]
    choice = fallback_choice(list(by_id(spec).values()), [signed], spec.schema_, spec.seed)
    assert [m.candidate for m in choice.rules] == ["create:contracts under players"]
    # the deterministic choice sells through one tool, the plain one's name on the variant
    sales = fallback_choice(list(by_id(spec).values()), [sold], spec.schema_, spec.seed)
    built = realise(sales, list(by_id(spec).values()), [sold], spec)
    selling = [t for t in built.tools if t.name.startswith("create_ticket")]
    assert [t.name for t in selling] == ["create_ticket"]
    assert any("tickets_sold = tickets_sold + 1" in sql for sql in selling[0].run)
    sign = _enforced(spec, salary, "create:contracts under players")
    assert _on(spec, sign, engine, player_id=11, team_id=1, yearly_salary=40.0).ok
    assert _on(spec, sign, engine, player_id=11, team_id=1, yearly_salary=41.0).error == salary
    finish = _enforced(spec, result, "status:games.status=finished")
    assert _on(spec, finish, engine, game_id=20, home_score=70, away_score=68).ok
    assert _on(spec, finish, engine, game_id=20, home_score=70, away_score=70).error == result
    sell = _enforced(spec, sold, "create:tickets under games counting games.tickets_sold")
    with Environment(spec.model_copy(update={"tools": [*spec.tools, sell]}), engine=engine) as env:  # type: ignore[arg-type]
        assert env.step(ToolCall(name=sell.name, arguments={"game_id": 20})).ok  # 3 of 3
        assert env.step(ToolCall(name=sell.name, arguments={"game_id": 20})).error == sold
    # contracts point to players, and DuckDB declares no foreign key of a referenced table,
    # so a player can change teams there too (the trade rule was unenforced: 6 of 7 rules)
    trade = _enforced(spec, traded, "move:players.team_id")
    assert _on(spec, trade, engine, player_id=10, new_team_id=2).ok  # contract 30 is his
    same = _on(spec, trade, engine, player_id=10, new_team_id=1)  # the move's own guard
    assert same.code == "policy" and same.error == "The player already belongs to that team."
    assert candidate_for(roster, writes) is not None
    assert candidate_for(roster, writes).id == "create:contracts under players"  # type: ignore[union-attr]
    back = _enforced(spec, refund, "status:tickets.status=refunded")
    assert _on(spec, back, engine, ticket_id=50).ok
    # the game's status read through the ticket is not the ticket's own: a refunded ticket
    # is not refunded again (basketball on 65cb0f1 lost the guard)
    once = "Only a ticket whose status is sold can be refunded."
    assert [s.error for s in back.require].count(once) == 1, back.require


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_column_named_by_the_last_word_of_its_name_is_read(engine: str) -> None:
    """Basketball on 65cb0f1 named the column `tickets_capacity`, and "while tickets_sold
    is below the game's capacity" was read as the status half alone: a sold-out game kept
    selling. A rule's word names the one column that ends in it."""
    schema = json.loads(json.dumps(COURT).replace('"capacity"', '"tickets_capacity"'))
    seed = json.loads(json.dumps(PLAYED).replace('"capacity"', '"tickets_capacity"'))
    spec = bed("basketball", schema, seed)
    sold = basketball_rules()[4]
    sell = _enforced(spec, sold, "create:tickets under games counting games.tickets_sold")
    assert any("tickets_capacity" in step.sql for step in sell.require)
    with Environment(spec.model_copy(update={"tools": [*spec.tools, sell]}), engine=engine) as env:  # type: ignore[arg-type]
        assert env.step(ToolCall(name=sell.name, arguments={"game_id": 20})).ok  # 3 of 3
        assert env.step(ToolCall(name=sell.name, arguments={"game_id": 20})).error == sold


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_limit_keyed_by_a_value_counts_every_row_with_it(engine: str) -> None:
    """Weather's "an email address can have at most 5 subscriptions with status active, and
    only one per region": no row holds the email, so the rows counted are those with the
    new row's email (and, for the second limit, its region), whoever's they are."""
    spec = weather_spec()
    rule = weather_rules()[5].replace("at most 5", "at most 3")  # the seed holds 2 active
    subscribe = _enforced(spec, rule, "create:subscriptions under regions")
    assert _on(spec, subscribe, engine, region_id=4, email="ana@x.org").ok  # a third
    assert _on(spec, subscribe, engine, region_id=1, email="ana@x.org").error == rule  # north
    assert _on(spec, subscribe, engine, region_id=3, email="ana@x.org").ok  # east: cancelled
    assert _on(spec, subscribe, engine, region_id=1, email="bo@x.org").ok
    spec3 = spec.model_copy(
        update={"seed": spec.seed | {"subscriptions": [*spec.seed["subscriptions"], {
            "subscription_id": 13, "region_id": 3, "email": "ana@x.org", "status": "active"}]}}
    )  # fmt: skip
    assert _on(spec3, subscribe, engine, region_id=4, email="ana@x.org").error == rule  # 4th


def test_a_new_loan_owes_its_principal_whatever_its_debt_column_is_called() -> None:
    """Finance's N=300 run kept "create a loan ... with an amount of 106.07 and an
    outstanding balance of 0": `outstanding_balance` was a parameter, not the principal."""
    spec = finance()
    schema = spec.schema_.model_copy(deep=True)
    loans = schema.table("loans")
    loans.columns = [
        c.model_copy(update={"name": "outstanding_balance"}) if c.name == "outstanding" else c
        for c in loans.columns
    ]
    loans.checks = [c.replace("outstanding", "outstanding_balance") for c in loans.checks]
    cand = next(c for c in catalogue(schema, {}) if c.id.startswith("create:loans"))
    assert "outstanding_balance" not in cand.tool.param_types()
    assert ":amount" in cand.tool.run[0].split("VALUES")[1]
    assert cand.tool.run[0].count(":amount") == 2  # the amount, and what is owed of it


def test_money_is_withdrawn_and_deposited_a_quantity_reduced_and_increased() -> None:
    """Ecommerce's users asked to "withdraw the quantity of an order item": the verb of a
    money pattern on a count of goods."""
    from tests.generators.ecommerce import ecommerce_spec

    spec = ecommerce_spec()
    names = {c.tool.name for c in catalogue(spec.schema_, spec.seed)}
    assert "reduce_product_stock" in names and "increase_product_stock" in names
    assert not {n for n in names if n.startswith(("withdraw_", "deposit_"))}
    money = banking()
    banked = {c.tool.name for c in catalogue(money.schema_, money.seed)}
    assert any(n.startswith("withdraw_") for n in banked)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_travel_flight_booking_rules_read_the_booked_flight(engine: str) -> None:
    """Travel enforced 2 of 6 rules: "the flight's status to be scheduled" was not read as
    a status, and "a flight booking with fare_class basic_economy cannot be ... refunded"
    went to cancelling a flight (a "flight booking" scored as a flight), with the fare
    class, which is the booked flight's, unread."""
    spec = flights_spec()
    booked, fixed, *_ = flights_rules()
    # the booking that takes a seat (`test_a_booking_that_says_no_count_takes_one_seat`)
    book = _enforced(
        spec, booked, "create:flight_bookings under customers taking flights.seats_available"
    )
    assert _on(spec, book, engine, customer_id=1, flight_id=20).ok
    assert _on(spec, book, engine, customer_id=1, flight_id=21).error == booked
    cancel = _enforced(spec, fixed, "cancel:flight_bookings")
    assert _on(spec, cancel, engine, flight_booking_id=31).ok
    assert _on(spec, cancel, engine, flight_booking_id=30).error == fixed


def test_a_rule_a_record_needs_is_its_makings_even_beside_a_move_to_the_state() -> None:
    """Travel's 1.5B flights on f716f2d were scheduled, active or cancelled, so the move of
    a flight to scheduled scored as "a flight booking needs the flight's status to be
    scheduled", and no booking checked its flight (4 of 6 rules on bench/rules.py)."""
    schema = json.loads(json.dumps(FLIGHTS))
    flights = next(t for t in schema["tables"] if t["name"] == "flights")
    flights["checks"][0] = "status IN ('scheduled', 'active', 'cancelled')"
    spec = bed("travel", schema, FLOWN)
    booked = flights_rules()[0]
    assert "status:flights.status=scheduled" in by_id(spec)
    _enforced(spec, booked, "create:flight_bookings under customers taking flights.seats_available")


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_move_of_a_booking_that_took_a_seat_takes_one_on_the_new_flight(engine: str) -> None:
    """Travel's move of a flight booking to another flight took no seat: a full flight took
    one more, and the one left kept the seat given up. Booking 31 (flight 21, cancelled, 9
    seats) moves to flight 22 (scheduled, 3 seats) and gives its seat back; flight 23 is
    scheduled and full."""
    seed = json.loads(json.dumps(FLOWN))
    paid = "business_class"
    seed["flights"] += [
        {"flight_id": f, "status": "scheduled", "seats_available": n, "fare_class": paid}
        for f, n in ((22, 3), (23, 0))
    ]
    seed["flights"].append(
        {"flight_id": 24, "status": "cancelled", "seats_available": 9, "fare_class": paid}
    )
    spec = bed("travel", FLIGHTS, seed)
    booked, fixed = flights_rules()[:2]  # "... cannot be changed or refunded" too
    candidates = list(by_id(spec).values())
    choice = fallback_choice(candidates, [booked, fixed], spec.schema_, spec.seed)
    moving = ToolChoice(candidate="move:flight_bookings.flight_id")
    choice = choice.model_copy(update={"tools": [*choice.tools, moving]})
    built = realise(choice, candidates, [booked, fixed], spec)
    # under the plain move's name: one tool for one act, with the rules of both
    move = next(t for t in built.tools if t.name == "move_flight_booking_to_flight")
    assert move.name in built.rules[0].tools() and move.name in built.rules[1].tools()
    assert _on(spec, move, engine, flight_booking_id=30, new_flight_id=22).error == fixed
    assert _on(spec, move, engine, flight_booking_id=31, new_flight_id=24).error == booked
    env_spec = spec.model_copy(update={"tools": [*spec.tools, move]})
    with Environment(env_spec, engine=engine) as env:  # type: ignore[arg-type]
        full = env.step(ToolCall(name=move.name, arguments={"flight_booking_id": 31,
                                                            "new_flight_id": 23}))  # fmt: skip
        assert full.error == "The flight has not enough seats_available left."
        done = env.step(ToolCall(name=move.name, arguments={"flight_booking_id": 31,
                                                            "new_flight_id": 22}))  # fmt: skip
        assert done.ok, done.error
        left = [
            env.step(ToolCall(name="get_flights", arguments={"flight_id": f})).output[
                "seats_available"
            ]
            for f in (21, 22, 23)
        ]
        assert left == [10, 2, 0]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_refund_in_either_of_two_cases_is_enforced_as_either(engine: str) -> None:
    """Travel's third rule allows a refund in two cases; mapped as one `either`, a booking
    made 3 hours ago and one of a cancelled flight are refunded, and one made weeks ago of
    a scheduled flight is refused with the rule's words."""
    spec = flights_spec()
    rule = flights_rules()[2]
    assert rule.startswith("A flight booking gets a full refund only within 24 hours")
    refund = _enforced(spec, rule, "cancel:flight_bookings")
    assert _on(spec, refund, engine, flight_booking_id=32).ok  # booked 3 hours ago
    assert _on(spec, refund, engine, flight_booking_id=31).ok  # its flight is cancelled
    assert _on(spec, refund, engine, flight_booking_id=30).error == rule


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_sum_reads_a_column_named_with_fewer_words_than_the_rule(engine: str) -> None:
    """Basketball's 1.5B named the column `salary`; "the sum of yearly salaries of a team's
    active contracts" was read only off a `yearly_salary`, so the cap went unenforced."""
    spec = bed(
        "basketball",
        json.loads(json.dumps(COURT).replace("yearly_salary", "salary")),
        json.loads(json.dumps(PLAYED).replace("yearly_salary", "salary")),
    )
    salary = basketball_rules()[1]
    sign = _enforced(spec, salary, "create:contracts under players")
    assert _on(spec, sign, engine, player_id=11, team_id=1, salary=40.0).ok
    assert _on(spec, sign, engine, player_id=11, team_id=1, salary=41.0).error == salary


def test_the_day_a_new_record_is_made_is_today_not_asked() -> None:
    """Ecommerce's `create_order` asked the user for the `order_date`, and the 1.5B's
    users created orders dated 2024-05-16 ("create an order for myself on
    2024-08-27T13:45:38"): an order is placed now, and last changed now (its users also said
    "Updated at 2024-10-14T07:50:02"). A time a record is held for (a reservation's) is
    still the user's to give."""
    orders = {
        "name": "orders",
        "columns": [
            col(name, kind)
            for name, kind in (
                ("order_id", "integer"),
                ("customer_id", "integer"),
                ("order_date", "datetime"),
                ("updated_at", "datetime"),
                ("status", "text"),
            )
        ],
        "primary_key": ["order_id"],
        "foreign_keys": [fk("customer_id", "customers")],
        "checks": ["status IN ('pending', 'paid')"],
    }
    held = {
        "name": "reservations",
        "columns": [
            col(name, kind)
            for name, kind in (
                ("reservation_id", "integer"),
                ("customer_id", "integer"),
                ("reservation_date", "datetime"),
            )
        ],
        "primary_key": ["reservation_id"],
        "foreign_keys": [fk("customer_id", "customers")],
    }
    customers = {
        "name": "customers",
        "columns": [col("customer_id", "integer"), col("email", "text")],
        "primary_key": ["customer_id"],
    }
    spec = bed("shop", {"tables": [customers, orders, held]}, {})
    cands = {c.id: c.tool for c in catalogue(spec.schema_, spec.seed)}
    order = cands["create:orders under customers"]
    assert "order_date" not in order.param_types()
    assert "updated_at" not in order.param_types()
    assert ":_now" in order.run[0]
    assert "reservation_date" in cands["create:reservations under customers"].param_types()


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_booking_that_says_no_count_takes_one_seat(engine: str) -> None:
    """Travel's "A flight booking needs the flight's status to be scheduled and
    seats_available to be at least the number of passengers; seats_available then goes
    down" on 277c846: a flight booking has no passengers column, so no operation took a
    seat, and a full flight was booked."""
    spec = flights_spec()
    rule = flights_rules()[0]
    assert rule.endswith("seats_available then goes down.")
    book = _enforced(
        spec, rule, "create:flight_bookings under customers taking flights.seats_available"
    )
    assert "Takes one from the flight's seats_available." in book.description
    env_spec = spec.model_copy(update={"tools": [*spec.tools, book]})
    with Environment(env_spec, engine=engine) as env:  # type: ignore[arg-type]
        for left in (4, 3, 2, 1, 0):
            made = env.step(ToolCall(name=book.name, arguments={"customer_id": 1, "flight_id": 20}))
            assert made.ok, made.error
            found = env.step(ToolCall(name="get_flights", arguments={"flight_id": 20}))
            assert found.output["seats_available"] == left
        full = env.step(ToolCall(name=book.name, arguments={"customer_id": 1, "flight_id": 20}))
    assert full.error == "The flight has no seats_available left."


def test_a_tools_description_takes_the_article_its_noun_needs() -> None:
    """medicine's environment on 9bfe401 said "Set the status of a appointment to cancelled"
    and "The 20 most recent prescriptions of a appointment", in its tools and its policy."""
    said = [c.tool.description for c in by_id(ecommerce_spec()).values()]
    said += [c.summary for c in by_id(ecommerce_spec()).values()]
    wrong = [d for d in said if re.search(r"\ba [aeio]", d)]
    assert not wrong, wrong
    assert any("of an order" in d for d in said)


def test_a_new_rows_number_that_may_be_below_zero_is_not_refused_at_zero() -> None:
    """Weather's `create_reading` on 8a86ecf refused any temperature of 0 or below ("The
    temperature must be > 0."), beside a rule that allows -90 to 60 and seed readings of
    -12.5. A number a CHECK or a seed row lets be negative gets no such guard; a price
    still does."""

    def guarded(check: str, values: list[float]) -> bool:
        readings = {
            "name": "readings",
            "columns": [col("reading_id", "integer"), col("station_id", "integer"),
                        col("temperature", "real")],
            "primary_key": ["reading_id"],
            "foreign_keys": [fk("station_id", "stations")],
            "checks": [check],
        }  # fmt: skip
        stations = {"name": "stations", "columns": [col("station_id", "integer")],
                    "primary_key": ["station_id"]}  # fmt: skip
        seed = {
            "stations": [{"station_id": 1}],
            "readings": [
                {"reading_id": i, "station_id": 1, "temperature": v}
                for i, v in enumerate(values, 1)
            ],
        }
        spec = bed("weather", {"tables": [stations, readings]}, seed)
        create = by_id(spec)["create:readings under stations"]
        assert create.amount == "temperature"
        return "positive" in create.guards

    assert not guarded("temperature >= -90.0", [3.5, 20.1])  # the CHECK lets it be negative
    assert not guarded("temperature <= 60.0", [-12.5, 20.1])  # a seed row is
    assert guarded("temperature >= 0", [3.5, 20.1])  # a price, a dose: none is


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_rules_least_value_replaces_the_patterns_must_be_above_zero(engine: str) -> None:
    """School's `create_grade` on 90db91a kept "The grade_score must be > 0." beside "a grade
    score must be between 0 and 100": a grade of 0, which the rule allows, was refused."""
    spec = school_spec()
    rule = school_rules()[4]
    grade = _enforced(spec, rule, "create:grades under enrollments")
    assert not any("AS positive" in r.sql for r in grade.require)
    assert _on(spec, grade, engine, enrollment_id=301, score=0).ok
    assert _on(spec, grade, engine, enrollment_id=301, score=-1).error == rule


def test_a_span_of_its_records_day_reads_the_row_holding_that_day() -> None:
    """Ecommerce on 05f674d: "a return can be opened only for an order with status delivered
    and within 30 days of its delivered_date" read "its" as the order item a return is made
    under, which has no delivered_date: the span was dropped, and a return of an order
    delivered 952 days before the clock was opened (ecommerce-intent-00043)."""
    rule = (
        "A return can be opened only for an order with status delivered and within 30 days "
        "of its delivered_date."
    )
    tables = [
        {"name": "orders", "primary_key": ["order_id"],
         "columns": [col("order_id", "integer"), col("status", "text"),
                     col("delivered_date", "date")],
         "checks": ["status IN ('pending', 'delivered')"]},
        {"name": "order_items", "primary_key": ["order_item_id"],
         "columns": [col("order_item_id", "integer"), col("order_id", "integer"),
                     col("quantity", "integer")],
         "foreign_keys": [fk("order_id", "orders")]},
        {"name": "returns", "primary_key": ["return_id"],
         "columns": [col("return_id", "integer"), col("order_item_id", "integer"),
                     col("quantity", "integer")],
         "foreign_keys": [fk("order_item_id", "order_items")]},
    ]  # fmt: skip
    seed = {
        "orders": [
            {"order_id": 1, "status": "delivered", "delivered_date": "2025-01-10"},
            {"order_id": 2, "status": "delivered", "delivered_date": "2022-06-08"},
        ],
        "order_items": [
            {"order_item_id": 10, "order_id": 1, "quantity": 3},
            {"order_item_id": 20, "order_id": 2, "quantity": 3},
        ],
        "returns": [{"return_id": 5, "order_item_id": 10, "quantity": 1}],
    }
    spec = bed("ecommerce", {"tables": tables}, seed)
    opened = _enforced(spec, rule, "create:returns under order_items")
    assert _on(spec, opened, "sqlite", order_item_id=10, quantity=1).ok
    assert _on(spec, opened, "sqlite", order_item_id=20, quantity=1).error == rule


def test_a_move_into_a_live_state_is_never_allowed_from_an_ended_one() -> None:
    """Finance on 4221446 kept "activate my repaid loan" (3 of its first 10 tasks): the
    catalogue's activation was allowed from every non-final state, and repaid was one. A
    repaid loan may still be closed."""
    from generators.patterns import statuses

    schema = finance_schema()
    loans = schema.table("loans")
    checks = [c for c in loans.checks if "status" not in c]
    checks.append("status IN ('active', 'repaid', 'closed')")
    loans = loans.model_copy(update={"checks": checks})
    schema = schema.model_copy(
        update={"tables": [loans if t.name == "loans" else t for t in schema.tables]}
    )
    moves = {c.id: c.moves_from for c in statuses(schema, SEED)}
    assert "status:loans.status=active" not in moves  # from repaid only: no such move
    assert moves["status:loans.status=closed"] == ["active", "repaid"]
    assert moves["status:loans.status=repaid"] == ["active"]
    assert moves["status:accounts.status=active"] == ["frozen"]  # frozen is no ended state


def test_a_status_moves_forward_along_a_lifecycle_never_back() -> None:
    """ecommerce on 7b45113 could set a shipped order back to pending and a delivered one
    back to paid or shipped; restaurant a seated reservation back to booked. A paid order
    still ships: `paid` ends a loan, not an order."""
    from generators.patterns import statuses

    spec = ecommerce_spec()
    moves = {c.id: c.moves_from for c in statuses(spec.schema_, spec.seed)}
    assert "status:orders.status=pending" not in moves  # from nothing but later stages
    assert moves["status:orders.status=paid"] == ["pending"]
    assert moves["status:orders.status=shipped"] == ["pending", "paid"]
    assert moves["status:orders.status=delivered"] == ["pending", "paid", "shipped"]
    assert moves["cancel:orders"] == ["pending", "paid", "shipped"]  # delivered: ended
    assert moves["status:customers.status=active"] == ["suspended"]  # no lifecycle
    shipped = by_id(spec)["status:orders.status=shipped"].tool
    assert call(spec, shipped, order_id=300, shipping_address="2 Oak St")[0].ok  # pending
    paid = by_id(spec)["status:orders.status=paid"].tool
    back = call(spec, paid, order_id=301)[0]  # shipped
    assert back.error == "Only an order whose status is pending can be paid."
    booked = {c.id: c.moves_from for c in statuses(restaurant_spec().schema_, {})}
    assert "status:reservations.status=booked" not in booked
    assert booked["status:reservations.status=seated"] == ["booked"]


def test_what_failed_is_tried_again_never_marked_done() -> None:
    """finance's tools in runs/ complete a failed transfer (`complete_transfer`, allowed from
    pending or failed): done by a word, no money moving. A failed one may go back to
    pending, and a pending one still completes."""
    from generators.patterns import statuses

    schema = Schema.model_validate(
        {
            "tables": [
                {
                    "name": "transfers",
                    "columns": [
                        {"name": "transfer_id", "type": "integer"},
                        {"name": "amount", "type": "real"},
                        {"name": "status", "type": "text"},
                    ],
                    "primary_key": ["transfer_id"],
                    "checks": ["status IN ('pending', 'completed', 'failed')"],
                }
            ]
        }
    )
    moves = {c.id: c.moves_from for c in statuses(schema, {})}
    assert moves["status:transfers.status=completed"] == ["pending"]
    assert moves["status:transfers.status=pending"] == ["failed"]
    assert moves["status:transfers.status=failed"] == ["pending"]


def test_a_debt_is_settled_by_a_word_only_when_it_owes_nothing() -> None:
    """finance-intent-00003 on 0ee2fcd closed an active loan owing 2,655.58 with
    close_loan, a write-off no rule allows; the repayment closes a loan at 0 itself."""
    spec = finance()
    close = with_conditions(by_id(spec)["status:loans.status=closed"], [])
    assert (
        close.require[-1].sql
        == "SELECT outstanding = 0 AS settled FROM loans WHERE loan_id = :loan_id"
    )
    owing, _ = call(spec, close, loan_id=700)  # active, 4000 outstanding
    assert owing.error == "A loan can be closed only when its outstanding is 0."
    paid = [
        loan | {"outstanding": 0.0} if loan["loan_id"] == 700 else loan
        for loan in spec.seed["loans"]
    ]
    done, _ = call(
        spec.model_copy(update={"seed": spec.seed | {"loans": paid}}), close, loan_id=700
    )
    assert done.ok, done.error
    # an account's close is no debt's: its balance rule comes from the brief (rulemap)
    shut = with_conditions(by_id(spec)["status:accounts.status=closed"], [])
    assert not any("settled" in step.sql for step in shut.require)


def test_repaying_the_rest_of_a_debt_in_parts_leaves_nothing_and_settles_it() -> None:
    """In floats 0.3 - 0.1 is 0.19999999999999998: a repayment of the rest (0.2) was refused
    as more than owed, and one of a rest the float gives leaves a residue that keeps the loan
    open and is told as its balance; a real column is rounded at the plan's finest decimal."""
    spec = finance()
    owing = [
        loan | {"outstanding": 0.3} if loan["loan_id"] == 700 else loan
        for loan in spec.seed["loans"]
    ]
    spec = spec.model_copy(update={"seed": spec.seed | {"loans": owing}})
    repay = by_id(spec)["adjust:loans.outstanding"].tool
    with Environment(spec.model_copy(update={"tools": [*spec.tools, repay]})) as env:
        part = env.step(ToolCall(name=repay.name, arguments={"loan_id": 700, "amount": 0.1}))
        assert part.ok and part.output["outstanding"] == 0.2, part
        rest = env.step(ToolCall(name=repay.name, arguments={"loan_id": 700, "amount": 0.2}))
    assert rest.ok, rest.error
    assert rest.output["outstanding"] == 0 and rest.output["status"] == "closed"


def test_a_top_up_of_a_record_that_is_over_is_refused() -> None:
    """finance-intent-00000 on 203d876 topped up a closed account: the deposit asked only
    that the account exist and the amount be positive."""
    spec = finance()
    closed = [
        a | {"status": "closed", "balance": 0.0} if a["account_id"] == 12 else a
        for a in spec.seed["accounts"]
    ]
    spec = spec.model_copy(update={"seed": spec.seed | {"accounts": closed}})
    deposit = with_conditions(by_id(spec)["topup:accounts.balance"], [])
    shut, _ = call(spec, deposit, account_id=12, amount=50.0)
    assert shut.error == "An account that is closed cannot be added to."
    done, _ = call(spec, deposit, account_id=13, amount=50.0)  # frozen is not over
    assert done.ok and done.output["balance"] == 950.0


def test_a_record_is_over_by_its_own_status_not_another_columns() -> None:
    """From the review of 203d876..90756d3: with a kyc_status before the status, every
    verified account was refused a deposit as 'completed'."""
    spec = finance()
    accounts = spec.schema_.table("accounts")
    kyc = Column(name="kyc_status", type="text")
    table = accounts.model_copy(
        update={
            "columns": [kyc, *accounts.columns],
            "checks": [*accounts.checks, "kyc_status IN ('pending', 'completed', 'rejected')"],
        }
    )
    tables = [table if t.name == "accounts" else t for t in spec.schema_.tables]
    schema = spec.schema_.model_copy(update={"tables": tables})
    seed = {
        **spec.seed,
        "accounts": [a | {"kyc_status": "completed"} for a in spec.seed["accounts"]],
    }
    spec = spec.model_copy(update={"schema_": schema, "seed": seed})
    deposit = with_conditions(by_id(spec)["topup:accounts.balance"], [])
    done, _ = call(spec, deposit, account_id=10, amount=50.0)
    assert done.ok, done.error


def test_a_rise_of_what_a_row_takes_from_stock_takes_it_too() -> None:
    """ecommerce on 5b7cc66 raised an order item's quantity by 4 and took nothing from its
    product's stock, where making the item takes it; a cut gives it back."""
    spec = ecommerce_spec()
    cands = by_id(spec)
    up = with_conditions(cands["topup:order_items.quantity"], [])
    down = with_conditions(cands["adjust:order_items.quantity"], [])
    assert up.adjustments() == [("quantity", "amount", "+")]
    with Environment(spec.model_copy(update={"tools": [*spec.tools, up, down]})) as env:

        def lamps() -> object:
            return env.step(ToolCall(name="get_products", arguments={"product_id": 10})).output

        more = env.step(ToolCall(name=up.name, arguments={"order_item_id": 400, "amount": 2}))
        assert more.ok and more.output["quantity"] == 4, more.error
        assert lamps() == {"product_id": 10, "name": "Lamp", "stock": 1}
        over = env.step(ToolCall(name=up.name, arguments={"order_item_id": 400, "amount": 2}))
        assert over.error == "The product's stock is less than the amount."
        less = env.step(ToolCall(name=down.name, arguments={"order_item_id": 400, "amount": 3}))
        assert less.ok and less.output["quantity"] == 1, less.error
        assert lamps() == {"product_id": 10, "name": "Lamp", "stock": 4}


def test_a_new_row_goes_under_no_parent_that_is_over() -> None:
    """ecommerce's run in runs/ (tools of c1da9aa) kept items added to shipped and delivered
    orders (00003, 00015, 00026): an item is a part of its order, and goes in no order sent
    out or ended. A return is not: only an order that is over refuses it."""
    spec = ecommerce_spec()
    made = by_id(spec)
    item = with_conditions(made["create:order_items under orders taking products.stock"], [])
    sent, _ = call(spec, item, order_id=301, product_id=11, quantity=1)
    assert sent.error == (
        "No order item can be added to an order that is paid, shipped, delivered or cancelled."
    )
    done, _ = call(spec, item, order_id=300, product_id=11, quantity=1)
    assert done.ok, done.error
    back = [s.error for s in made["create:returns under orders"].checks]
    assert back == ["No return can be added to an order that is cancelled."]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_create_limit_holds_for_a_change_that_brings_a_record_into_the_state(
    engine: str,
) -> None:
    """Basketball's `activate_contract` on 31bc8d2 held the roster limit (the model mapped
    it) and not the salary cap: a suspended contract came back over the team's cap (audit).
    A create's limit on the records of a state under its parent holds for the status
    change into that state, read off the record's own parent, its own salary summed in."""
    schema = json.loads(json.dumps(COURT))
    contracts = next(t for t in schema["tables"] if t["name"] == "contracts")
    contracts["checks"] = ["status IN ('active', 'suspended', 'expired')"]
    seed = json.loads(json.dumps(PLAYED))
    seed["contracts"].append(
        {"contract_id": 31, "player_id": 11, "team_id": 1, "yearly_salary": 50.0,
         "status": "suspended"}
    )  # fmt: skip
    spec = bed("basketball", schema, seed)
    salary = basketball_rules()[1]
    cands = list(by_id(spec).values())
    choice = fallback_choice(cands, [salary], spec.schema_, spec.seed)
    assert [m.candidate for m in choice.rules] == ["create:contracts under players"]
    activate = "status:contracts.status=active"
    choice = choice.model_copy(update={"tools": [*choice.tools, ToolChoice(candidate=activate)]})
    built = realise(choice, cands, [salary], spec)
    tool = next(t for t in built.tools if t.name == "activate_contract")
    assert _on(spec, tool, engine, contract_id=31).error == salary  # 60 + 50 > 100
    assert "activate_contract" in [e.tool for e in built.rules[0].enforced_by]
    roomy = json.loads(json.dumps(seed))
    roomy["teams"][0]["salary_cap"] = 110.0
    assert _on(bed("basketball", schema, roomy), tool, engine, contract_id=31).ok
