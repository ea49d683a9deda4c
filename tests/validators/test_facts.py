"""Stage `facts`: every value the user states is in the gold's arguments or outputs, and a
known fact that names a record says what that record is."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.conftest import mini_task
from tests.validators.verdicts import (
    ACCEPTED,
    MARIA,
    all_kept,
    bank_verdict,
    saving_verdict,
    transfer,
)
from toolscale.environment import Replay
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import Tool, ToolResult
from validators import intent
from validators.facts import SeedFacts, _keys, claimed_kin, literals, lone_names, names, unknown_id
from validators.pipeline import TASK_STAGES

LOAN = {"name": "list_loans", "arguments": {"client_id": "C1001"}}
ASK = "How much is still outstanding on my loan?"
TOLD = [{"call": 0, "path": "0.outstanding"}]


# every task stage but intent: a facts check pinned where intent rejects first
NOT_INTENT = tuple(s for s in TASK_STAGES if s is not intent)


def loan_verdict(spec: EnvironmentSpec, ask: str) -> tuple[str, str, str]:
    """The verdict on Maria's `ask` whose gold reads her loan and tells what is left."""
    return bank_verdict(spec, ask, gold_calls=[LOAN], communicate=TOLD)


def test_literals_are_the_values_a_person_states() -> None:
    text = (
        "I'm ann@example.com, phone 555-0101; on 2025-03-01 card K30001 was charged "
        "$1,250.50 twice, 3 days ago, on my 2nd card."
    )
    assert literals(text) == ["ann@example.com", "2025-03-01", "555-0101", "K30001", 1250.5]
    assert literals("my 3 cards, 2 loans and 12 Harbor Street") == []


def test_the_true_task_is_kept(banking_spec: EnvironmentSpec) -> None:
    assert loan_verdict(banking_spec, ASK) == (
        "accepted",
        "ok",
        "",
    )


def test_an_id_the_seed_does_not_hold_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """ "My loan id is 456", in a seed that has no such loan."""
    facts = [*MARIA["known_facts"], "My other loan id is L4999."]
    stage, reason, detail = bank_verdict(
        banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
    )
    assert (stage, reason) == ("facts", "false_fact")
    assert "L4999" in detail


def test_part_of_an_email_is_another_address(banking_spec: EnvironmentSpec) -> None:
    """weather-intent-00005 on 8a86ecf opened "Frazier@yahoo.com. I need to create ...", its
    user richard.frazier@yahoo.com: every word of it is in her address, but it is another
    one, and an agent looking it up finds nobody or someone else."""
    stage, reason, detail = loan_verdict(banking_spec, f"Lopez@example.com. {ASK}")
    assert (stage, reason) == ("facts", "false_fact")
    assert "Lopez@example.com" in detail
    assert loan_verdict(banking_spec, f"Maria.Lopez@Example.com. {ASK}") == ACCEPTED


def test_a_status_the_record_does_not_have_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """ "The status of my loan is paid": L4001 is active in the seed."""
    facts = [*MARIA["known_facts"], "Loan L4001 is paid_off."]
    stage, reason, detail = bank_verdict(
        banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
    )
    assert (stage, reason) == ("facts", "false_fact")
    assert "paid off, which the loans record it names is not" in detail
    facts = [*MARIA["known_facts"], "Loan L4001 is active."]
    verdict = bank_verdict(
        banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
    )
    assert verdict == ("accepted", "ok", "")
    # a value is said whole: travel rejected "The new flight id is 26176" as a flight that
    # is not "new" (from a destination, New York); "paid" alone says nothing of paid_off
    facts = [*MARIA["known_facts"], "Loan L4001 is active and I have paid every bill so far."]
    verdict = bank_verdict(
        banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
    )
    assert verdict == ("accepted", "ok", "")


def test_a_true_value_of_another_record_is_unrelated_fact(banking_spec: EnvironmentSpec) -> None:
    """ "the balance of my account 207" with the known fact "My account id is 203"."""
    facts = [*MARIA["known_facts"], "My account id is A20003."]
    stage, reason, detail = bank_verdict(
        banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
    )
    assert (stage, reason) == ("facts", "unrelated_fact")
    assert "A20003" in detail


def test_a_column_name_with_a_digit_states_no_value(banking_spec: EnvironmentSpec) -> None:
    """ "tell me the last4 of my card" names a field; L4999 still is a false fact."""
    cards = {"name": "list_cards", "arguments": {"client_id": "C1001"}}
    told = [{"call": 0, "path": "0.last4"}]
    ask = "What are the last4 digits of my card?"
    assert bank_verdict(banking_spec, ask, gold_calls=[cards], communicate=told)[:2] == (
        "accepted",
        "ok",
    )
    stage, reason, _ = bank_verdict(
        banking_spec, f"{ask} And of card L4999?", gold_calls=[cards], communicate=told
    )
    assert (stage, reason) == ("facts", "false_fact")


def test_a_status_the_request_gives_a_named_record_must_be_its_own(
    banking_spec: EnvironmentSpec,
) -> None:
    """The 1.5B wrote "a card for my account ACC-83392, which is currently frozen" for an
    active account; a status the gold sets ("freeze card K30001") is no claim."""
    cards = {"name": "list_cards", "arguments": {"client_id": "C1001"}}
    told = [{"call": 0, "path": "0.last4"}]
    wrong = "My card K30001 is frozen. What are its last4 digits?"
    stage, reason, detail = bank_verdict(banking_spec, wrong, gold_calls=[cards], communicate=told)
    assert (stage, reason) == ("facts", "false_fact")
    assert "frozen, which the cards record it names is not" in detail
    right = "My card K30001 is active. What are its last4 digits?"
    verdict = bank_verdict(banking_spec, right, gold_calls=[cards], communicate=told)
    assert verdict[:2] == ("accepted", "ok")
    freeze = [{"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}]
    asked = "Please set my card K30001 to frozen."
    assert bank_verdict(banking_spec, asked, gold_calls=freeze) == ("accepted", "ok", "")


def test_a_number_given_as_a_fields_value_must_be_that_fields(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's "I have a closed loan with an outstanding balance of 1700.55. I would like
    to repay it": the loan owed 808.79, and 1700.55 was the amount pushed past it to make
    the refusal."""
    pay: dict[str, Any] = {
        "name": "make_loan_payment",
        "arguments": {
            "client_id": "C1001",
            "loan_id": "L4001",
            "from_account_id": "A20001",
            "amount": 9000,
        },
        "expect_error": "",
    }
    read = {"name": "get_loan", "arguments": {"loan_id": "L4001"}}
    told = [{"call": 0, "path": "outstanding"}]
    ask = "My loan L4001 has an outstanding of {}. Please pay $9,000 of it from A20001. " + ASK
    stage, reason, detail = bank_verdict(
        banking_spec, ask.format("9,000"), gold_calls=[read, pay], communicate=told
    )
    assert (stage, reason) == ("facts", "false_fact")
    assert detail == (
        "the user states 'outstanding of 9,000'; the records the gold reads hold outstanding 8400"
    )
    which = "My loan L4001's outstanding, which is 9,000, is too much. Pay $9,000 from A20001. "
    which += ASK  # "which" after a noun asks nothing (a4d72f2): the question is the ask
    verdict = bank_verdict(banking_spec, which, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] == ("facts", "false_fact")  # "my account balance, which is $247.52"
    # the field of a named record: finance's "The balance of my active account is $72.61",
    # the amount of a top-up, for a balance of 1010.61
    record = "The outstanding of my car loan L4001 is 9,000. Please pay $9,000 from A20001. "
    record += ASK
    verdict = bank_verdict(banking_spec, record, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] == ("facts", "false_fact"), verdict
    # finance-00000's "the outstanding balance of my loan with ID 58926 is 603.19": four
    # words between "my" and "is" were past the reach of the record's name
    this = "The outstanding of this loan L4001 is 9,000. Pay $9,000 of it from A20001. " + ASK
    verdict = bank_verdict(banking_spec, this, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] == ("facts", "false_fact"), verdict  # finance-intent-00392
    named = "The outstanding of my loan with ID L4001 is 9,000. Pay $9,000 from A20001. " + ASK
    verdict = bank_verdict(banking_spec, named, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] == ("facts", "false_fact"), verdict
    # finance-intent-00044 on 0ee2fcd: "My outstanding balance for my active loan is
    # 1562.74", the amount it repays
    held = "My outstanding for my car loan L4001 is 9,000. Pay $9,000 of it from A20001. " + ASK
    verdict = bank_verdict(banking_spec, held, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] == ("facts", "false_fact"), verdict
    # finance-intent-00208 on d57e00e: "the outstanding balance of my loan, which is
    # currently 58950.0", the loan's id
    which = "Pay $9,000 from A20001 to the outstanding of my loan L4001, which is now 9,000. "
    verdict = bank_verdict(banking_spec, which + ASK, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] == ("facts", "false_fact"), verdict
    # finance-intent-00254 on ba717dc: "My outstanding loan balance is $10,806.64", the
    # amount pushed past a balance of 0
    inside = "My monthly loan payment is 9,000. Please pay $9,000 of L4001 from A20001. " + ASK
    verdict = bank_verdict(banking_spec, inside, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] == ("facts", "false_fact"), verdict
    assert "monthly_payment 350" in verdict[2]
    # movie-intent-00050 on 9a0577e: "My loyalty points are 0" of a customer with 145
    from validators.facts import _misstated

    found = Replay(results=[ToolResult(ok=True, output={"loyalty_points": 145})], changes={})
    assert "loyalty_points 145" in _misstated("My loyalty points are 0.", found, set())
    assert _misstated("My loyalty points are 145.", found, set()) == ""
    assert bank_verdict(
        banking_spec, ask.format("8,400"), gold_calls=[read, pay], communicate=told
    ) == ("accepted", "ok", "")
    truly = "My monthly loan payment is 350. Please pay $9,000 of L4001 from A20001. " + ASK
    verdict = bank_verdict(banking_spec, truly, gold_calls=[read, pay], communicate=told)
    assert verdict[:2] != ("facts", "false_fact"), verdict
    # the value of an argument of the field's name is what the user asks for, though the
    # transactions read hold other amounts
    paid = {**pay, "arguments": {**pay["arguments"], "amount": 100}, "expect_error": None}
    history = {"name": "list_recent_transactions", "arguments": {"account_id": "A20001"}}
    stated = "I pay an amount of 100 on loan L4001 from A20001. What was my last amount?"
    last = [{"call": 0, "path": "0.amount"}]
    assert bank_verdict(banking_spec, stated, gold_calls=[history, paid], communicate=last) == (
        "accepted",
        "ok",
        "",
    )


def test_a_time_of_day_no_record_holds_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """Basketball's "schedule a game for my home team on July 20th at 10:00 PM", for games
    that hold a date and no time."""
    assert literals("at 10:00 PM, or 22:30, on 2024-07-20T09:05:00") == [
        "2024-07-20T09:05:00",
        "time 22:00",
        "time 22:30",
    ]
    stage, reason, detail = loan_verdict(banking_spec, ASK + " I will call back at 10:00 PM.")
    assert (stage, reason) == ("facts", "false_fact")
    assert "time 22:00" in detail
    # an hour alone: travel-intent-00058 on 277c846 said "June 15th at 6am" of a check-out
    # at 09:40; "from 7pm" of 19:20 is that hour
    assert literals("from 7pm to 6 a.m., 2 rooms") == ["hour 19", "hour 06"]
    assert {"hour 19", "time 19:20"} <= _keys(["2025-06-02T19:20:19"])
    stage, reason, detail = loan_verdict(banking_spec, ASK + " I will call back at 3am.")
    assert (stage, reason) == ("facts", "false_fact") and "hour 03" in detail


def test_a_day_said_by_its_months_name_is_checked_too(banking_spec: EnvironmentSpec) -> None:
    """travel-intent-00006 on 277c846, "move this flight booking from June 17 to June 18", of
    a booking made 2024-06-17 onto a flight leaving 2025-07-08: days said by the month's name
    were not read at all."""
    said = "from June 17 to the 18th of June, on March 1st, 2022, May I? Sept. 3"
    assert literals(said) == ["day 06-17", "day 06-18", "2022-03-01", "day 09-03"]
    assert {"day 06-17", "2024-06-17"} <= _keys(["2024-06-17T12:20:11", "2024-06-17"])
    stage, reason, detail = loan_verdict(banking_spec, ASK + " I paid it on February 30th.")
    assert (stage, reason) == ("facts", "false_fact") and "day 02-30" in detail


CARDS = {"name": "list_cards", "arguments": {"client_id": "C1001"}}


# a freeze of Maria's active card: the facts below are said of a card the gold acts on (a
# refused unfreeze of it is refused_as_is before the facts stage reads them)
FREEZE_VISA = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
FROZEN = [{"call": 1, "path": "status"}]


def test_a_status_given_to_the_record_a_write_acts_on_must_be_its_own(
    banking_spec: EnvironmentSpec,
) -> None:
    """Basketball's "Currently, the game is in progress" (fact: "The current game status is
    in progress") for a completed game the user named by its date, not its id, so no
    literal names the record: the record is the one the write's arguments name."""
    facts = [*MARIA["known_facts"], "My visa card is blocked."]
    ask = "Please freeze my visa card, and tell me its status."
    told = FROZEN
    stage, reason, detail = bank_verdict(
        banking_spec, ask, gold_calls=[CARDS, FREEZE_VISA], known_facts=facts, communicate=told
    )
    assert (stage, reason) == ("facts", "false_fact")
    said = "'My visa card is blocked.' says blocked, but the card the gold acts on is active"
    assert detail == f"{said} (status)"
    # a reason that denies the state the record has: finance's "I want to deactivate my
    # account, as it's no longer active" for an active account
    stage, reason, detail = bank_verdict(
        banking_spec,
        "Please freeze my visa card, as it is no longer active, and tell me its status.",
        gold_calls=[CARDS, FREEZE_VISA],
        communicate=told,
    )
    assert (stage, reason) == ("facts", "false_fact")
    assert "says 'as it is no longer active', but the card the gold acts on is active" in detail
    # the record's own status, a negation, a wish, and the state the write sets are no
    # false claim
    for fact in (
        "My visa card is active.",
        "My visa card is not blocked.",
        "I want my card active.",
        "I want it frozen so that it is no longer active.",
        "My card is not blocked, as it is not frozen.",
        # a question four words on (medicine on 6789a02: "let me know if my appointment is
        # still scheduled ... or if it has been canceled" of a completed one)
        "Let me know if my visa card is still blocked for payments, or if it is active.",
    ):
        facts = [*MARIA["known_facts"], fact]
        verdict = bank_verdict(
            banking_spec,
            ask,
            gold_calls=[CARDS, FREEZE_VISA],
            known_facts=facts,
            communicate=told,
        )
        assert verdict[:2] != ("facts", "false_fact"), (fact, verdict)


def test_a_stay_still_to_come_booked_before_today_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """travel-intent-00011 on 277c846 booked a hotel stay from 2023-03-17 (00025: "for the
    next two days", from 2024-05-24) where the clock is 2025-01-15 and the seed's pending
    stays lie ahead. Where every row lies behind (a birth date), a past day is no claim."""
    from validators.facts import past_moment

    book = Tool.model_validate(
        {
            "name": "create_stay",
            "description": "Book a stay.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {"check_in": {"type": "string"}}},
            "run": ["INSERT INTO stays (stay_id, check_in) VALUES (:_new_id, :check_in)"],
            "returns": "SELECT 1",
        }
    )
    tools = {"create_stay": book}

    def said(day: str, seeded: list[str]) -> str:
        stays = [{"stay_id": i, "check_in": d} for i, d in enumerate(seeded)]
        spec = banking_spec.model_copy(
            update={"seed": {"stays": stays}, "clock": "2025-01-15T10:00:00"}
        )
        calls = [{"name": "create_stay", "arguments": {"check_in": day}}]
        return past_moment(mini_task(gold_calls=calls, communicate=[]), spec, tools)

    ahead = ["2023-01-02T10:00:00", "2025-03-01T12:00:00"]
    assert "check_in='2023-03-17T12:30:45', before today (2025-01-15)" in said(
        "2023-03-17T12:30:45", ahead
    )
    assert said("2025-04-03", ahead) == ""  # still to come
    assert said("1990-05-01", ["1980-01-02", "2001-07-08"]) == ""  # all behind: a birth date
    # and through a create that also takes a room: travel-intent-00004 on 7e55d3f
    tools["create_stay"] = book.model_copy(
        update={"run": [*book.run, "UPDATE hotels SET rooms = rooms - 1"]}
    )
    assert "before today" in said("2023-03-17T12:30:45", ahead)


def test_a_value_with_a_comma_is_read_whole() -> None:
    """Travel on 277c846 rejected "The hotel's name is Russell, Whitehead and Terrell" (and
    "Knox, Parker and Stephens") as naming 'russell', which no hotel has."""
    from validators.facts import _not_a_value

    hotels = ["Russell, Whitehead and Terrell", "Knox, Parker and Stephens", "Meyer Inc"]
    for name in hotels:
        assert _not_a_value(f"The hotel's name is {name}.", "name", hotels, set()) == "", name
    said = _not_a_value("The hotel's name is Hilton, in Paris.", "name", hotels, set())
    assert said == "hilton"
    assert _not_a_value("The hotel's name is Russ.", "name", hotels, set()) == "russ"


def test_a_status_no_record_of_the_kind_has_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """Basketball's "The current game status is in progress", where games are scheduled,
    postponed or completed."""
    facts = [*MARIA["known_facts"], "My visa card status is lost."]
    ask = "Please freeze my visa card, and tell me its status."
    told = FROZEN
    gold = [CARDS, FREEZE_VISA]
    stage, reason, detail = bank_verdict(
        banking_spec, ask, gold_calls=gold, known_facts=facts, communicate=told
    )
    assert (stage, reason) == ("facts", "false_fact")
    assert "says its status is 'lost', which no card has (they are active, blocked, frozen)" in (
        detail
    )
    facts = [*MARIA["known_facts"], "My visa card status is active."]
    verdict = bank_verdict(banking_spec, ask, gold_calls=gold, known_facts=facts, communicate=told)
    assert verdict == ("accepted", "ok", "")
    # a time to come is no claim: finance's "Please notify me when the loan status is updated"
    when = "Please freeze my visa card, and tell me once the card status is lost."
    verdict = bank_verdict(banking_spec, when, gold_calls=gold, communicate=told)
    assert verdict == ("accepted", "ok", "")
    # another record's field of the same name is that record's: "My account kind is
    # savings" beside a loan payment is no loan kind
    pay = {"client_id": "C1001", "loan_id": "L4001", "from_account_id": "A20002", "amount": 100}
    facts = [*MARIA["known_facts"], "My loan kind is auto, my account kind is savings."]
    ask = "Please make a loan payment of 100 on my auto loan from my savings account."
    gold = [
        {"name": "list_loans", "arguments": {"client_id": "C1001"}},
        {"name": "list_accounts", "arguments": {"client_id": "C1001"}},
        {"name": "make_loan_payment", "arguments": pay},
    ]
    assert bank_verdict(banking_spec, ask, gold_calls=gold, known_facts=facts) == (
        "accepted",
        "ok",
        "",
    )


def test_an_id_given_for_a_record_that_does_not_exist_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """Basketball's "my contract ID is 402" for a new player: 402 was a gold argument, so
    the literal check passed it, but no contract has that id."""
    missing: dict[str, Any] = {
        "name": "unfreeze_card",
        "arguments": {"client_id": "C1001", "card_id": "K39999"},
        "expect_error": "the card was not found among this client's cards",
    }
    told = [{"call": 0, "path": "0.status"}]
    ask = "Please unfreeze my card; the card ID is K39999. What is the status of my cards?"
    stage, reason, detail = bank_verdict(
        banking_spec, ask, gold_calls=[CARDS, missing], communicate=told
    )
    assert (stage, reason, detail) == (
        "facts",
        "false_fact",
        "the user states 'card ID is K39999'; no card has that id",
    )
    mine = {**missing, "arguments": {"client_id": "C1001", "card_id": "K30003"}}
    ask = ask.replace("K39999", "K30003")
    verdict = bank_verdict(banking_spec, ask, gold_calls=[CARDS, mine], communicate=told)
    assert verdict[:2] != ("facts", "false_fact")


def test_a_name_no_gold_record_holds_is_unrelated_or_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """Travel's "I'm trying to confirm a hotel booking for my trip to New York": the hotel
    the gold reads is not said to be in New York, so the place is a claim nothing checks."""
    assert names("Hello Scott Alvarez! My trip to New York is on Monday, March 3.") == [
        "Scott Alvarez",
        "New York",
    ]
    # a verb opening a sentence is no part of the name after it (weather-intent-00041 on
    # 8a86ecf: "Activate Riveraside Station, please." was false_fact); one verb only
    assert names("Activate Riveraside Station, please. Cancel New York Flight.") == [
        "Riveraside Station",
        "New York Flight",
    ]
    assert names("I'd like the Move Club Station.") == ["Move Club Station"]
    other = banking_spec.seed["clients"][1]  # a client the gold never reads
    someone = f"{other['first_name']} {other['last_name']}"
    for place, reason in ((someone, "unrelated_fact"), ("Port Nowhere", "false_fact")):
        ask = f"I owe money to {place}. " + ASK
        stage, why, detail = loan_verdict(banking_spec, ask)
        assert (stage, why) == ("facts", reason), (place, detail)
        assert repr(place) in detail
    # one word where a place or a party goes: basketball's "my game against the Lakers"
    assert lone_names(
        "My game against the Lakers, then to Flight 26139 in Paris.", SeedFacts.of(banking_spec)
    ) == [
        "Lakers",
        "Paris",
    ]
    for place, reason in (("Boston", "unrelated_fact"), ("Paris", "false_fact")):
        ask = f"I owe money from my trip to {place}. " + ASK
        stage, why, detail = loan_verdict(banking_spec, ask)
        assert (stage, why) == ("facts", reason), (place, detail)
        assert repr(place) in detail
    # a name the gold reads is stated as it is: Maria Lopez finds herself
    find = {"name": "find_client_by_email", "arguments": {"email": "maria.lopez@example.com"}}
    told = [{"call": 0, "path": "0.outstanding"}]
    ask = "My name is Maria Lopez. " + ASK
    assert bank_verdict(banking_spec, ask, gold_calls=[find, LOAN], communicate=told)[:2] != (
        "facts",
        "false_fact",
    )


def test_an_id_the_gold_files_a_new_row_under_must_exist_too() -> None:
    """Basketball's "my contract ID is 402": the new player was filed under contract 402,
    which no contract has; that the gold writes 402 (as the player's `contract_id`) does
    not make it one. The new row's own key, and a value in a column that is no reference
    (a payee's external account number), are the user's to give."""
    seed = SeedFacts(
        keys={"contracts": frozenset({32375.0}), "players": frozenset({24152.0})},
        columns={
            "contracts": ("contract_id", "status"),
            "players": ("player_id", "name", "contract_id", "account_number"),
        },
        primary={"contracts": ("contract_id",), "players": ("player_id",)},
    )
    new = (1000000, "Gina Fry", 402, "US55MGS000111222")
    replay = Replay(results=[], changes={"players": {(1000000,): new}})
    assert unknown_id("My contract ID is 402.", seed, replay) == (
        "the user states 'contract ID is 402'; no contract has that id"
    )
    assert unknown_id("My contract ID is 32375.", seed, replay) == ""
    assert unknown_id("The new player ID is 1000000.", seed, replay) == ""
    # travel-intent-00024 on b8ec214: "The booking is for Flight 10", no flight 10; a
    # record named by its kind and a number alone, not an order of 12 or a name
    assert unknown_id("I'm on the contract 402 still.", seed, replay) == (
        "the user states 'the contract 402'; no contract has that id"
    )
    assert unknown_id("Move me to my contract 32375.", seed, replay) == ""
    assert unknown_id("I want to contract 402 workers.", seed, replay) == ""
    named = SeedFacts(
        keys={"contracts": frozenset({32375.0})},
        columns={"contracts": ("contract_id", "name")},
        primary={"contracts": ("contract_id",)},
        records={"contract 7": ("contracts", frozenset())},
    )
    assert unknown_id("Renew the Contract 7, please.", named, replay) == ""


def test_a_value_the_user_says_they_do_not_know_is_a_disowned_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """movie-intent-00025: "I forgot the email and seat count", its facts giving both (kept
    by the judge for a wrong reason). A lost card says nothing of a card number."""
    # travel-intent-00039 on 00fbd03: "I don’t know my email or flight ID", a curly quote
    for said in (
        "I forgot the email and my phone.",
        "I don't remember my email address.",
        "I don\u2019t know my email or flight ID.",
    ):
        stage, reason, detail = loan_verdict(banking_spec, f"{said} {ASK}")
        assert (stage, reason) == ("facts", "disowned_fact"), said
        assert "yet a known fact is 'My email is maria.lopez@example.com.'" in detail
    for said in ("I lost my card last week.", "I don't know my outstanding amount."):
        verdict = loan_verdict(banking_spec, f"{said} {ASK}")
        assert verdict == ("accepted", "ok", ""), said


def test_a_known_fact_that_says_nothing_of_the_records_is_not_a_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """ecommerce-intent-00035 on 05f674d kept "I'm not asking for help or greeting you by
    name." as a known fact, finance-intent-00032 on 5cf74c2 "The card ID and status will be
    provided in the response.": the user simulator would say them as known. Generation
    leaves such lines out since eb237b0 and 9450dad; a task that keeps one is rejected."""
    for line in (
        "I'm not asking for help or greeting you by name.",
        "The outstanding amount will be provided in the response.",
        "I want to know what is left on my loan.",
        "Is my loan still active?",
        # weather-intent-00012 on 8a86ecf
        "The loan L4001 is a fictional loan for the purpose of this instruction.",
        # weather-intent-00049 on 8a86ecf
        "The outstanding amount must be sent to the customer.",
        # medicine-intent-00135 on db36aec
        "The status of the loan is important to me.",
        # weather-intent-00102 on 5e5ec77
        "The loan id will be the loan id",
        # weather-intent-00162 on a310e34: "Richardtown Station's name is Richardtown Station"
        "Loan L4001's name is Loan L4001.",
        # school-intent-00009 on 920fa98
        "I am a client and I want to know what is left on my loan.",
        # school-intent-00019 and 00027 on 920fa98
        "The current loan status cannot be determined here as it has not occurred.",
        "I will need the outstanding amount to confirm the loan.",
        # weather-intent-00153 on 211cc49
        "The email for the assistant is maria.lopez@example.com.",
        # finance-intent-00007 on 203d876: "The account balance is $X"
        "The outstanding amount is $X",
        "The outstanding amount is XX.XX.",
        "My loan id is [loan id].",
        "The outstanding amount is <amount>.",
        "The outstanding amount is $X,XXX.XX",
        "The outstanding amount is $0.XX",
        "My loan id is L-XXXX.",
        # ecommerce-intent-00170 on c25a294: "I'm curious to know the current status of my
        # order as it is now"
        "I'm curious to know what is left on my loan.",
        "I am wondering whether my loan is paid off.",
        "I wonder how much is left on my loan.",
        "I'm interested in knowing the outstanding amount.",
    ):
        facts = [*MARIA["known_facts"], line]
        stage, reason, detail = bank_verdict(
            banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
        )
        assert (stage, reason) == ("facts", "not_a_fact"), line
        assert repr(line) in detail
    for line in (
        "I took the loan out last spring.",
        "Loan L4001's kind is auto.",
        "I bought an Xbox with it.",
        "I was curious about loans, so I took one out last spring.",
    ):
        facts = [*MARIA["known_facts"], line]
        verdict = bank_verdict(
            banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
        )
        assert verdict == ACCEPTED, line


def test_a_family_tie_the_records_do_not_hold_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """School on 8198d98 kept "I want to enroll my child, Pamela Dominguez, in West
    Stephaniesport Course" from a teacher: the seed ties no student to anyone. A schema
    that records such ties (a guardian's id) could hold it, and is left to its own checks."""
    for said in ("I'm asking for my daughter.", "My son needs it. "):
        stage, reason, detail = loan_verdict(banking_spec, f"{said} {ASK}")
        assert (stage, reason) == ("facts", "false_fact"), said
        assert "no record holds a family tie between people" in detail
    for said in ("I'm asking for my own loan.", "My personal loan, please."):
        verdict = loan_verdict(banking_spec, f"{said} {ASK}")
        assert verdict == ("accepted", "ok", ""), said
    ties = SeedFacts(columns={"students": ("student_id", "guardian_id")})
    assert claimed_kin("Enroll my child Pamela.", ties) == ""
    seasons = SeedFacts(columns={"games": ("game_id", "season", "person_count")})
    assert claimed_kin("Enroll my child Pamela.", seasons) != ""


def test_a_count_said_to_be_what_is_left_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """Medicine on 8295448 kept "I've only got 44 refills left", 44 being the prescription's
    refills_allowed: what is left is allowed less used. A remainder's own column (a loan's
    outstanding amount) is what is left."""
    stage, reason, detail = loan_verdict(banking_spec, "I only have 18000 left on my loan. " + ASK)
    assert (stage, reason) == ("facts", "false_fact")
    assert detail == "the user says '18000 left'; 18000 is the principal, not what is left"
    kept = loan_verdict(banking_spec, "I think 8400 remaining on my loan. " + ASK)
    assert kept == ("accepted", "ok", "")


def test_a_count_said_with_its_fields_verb_is_checked() -> None:
    """medicine-intent-00029 on 277c846: "It has 60 refills allowed, and I've only used 15",
    of a prescription with refills_used 6: the field's verb beside a number states it."""
    from toolscale.environment import Replay
    from toolscale.tool import ToolResult
    from validators.facts import _misstated

    row = {"prescription_id": 1, "refills_allowed": 60, "refills_used": 6}
    read = Replay(results=[ToolResult(ok=True, output=[row])], changes={})
    said = _misstated("It has 60 refills allowed, and I've only used 15.", read, set())
    assert said == (
        'the user states "I\'ve only used 15"; the records the gold reads hold refills_used 6'
    )
    assert "refills_allowed 60" in _misstated("It has 90 refills allowed.", read, set())
    for true in ("It has 60 refills allowed, and I've used 6.", "6 refills used of 60 allowed."):
        assert _misstated(true, read, set()) == "", true


def test_a_record_said_to_be_at_a_count_it_does_not_hold_is_false_fact() -> None:
    """medicine-intent-00046 on c778e9c: "My prescription is currently at 0 refills", of the
    prescription a refill acts on, with 3 refills used of 100 allowed (another of the user's
    has 0 used). Either count, or what is left between them, is a true thing to say."""
    from toolscale.environment import Replay
    from toolscale.tool import ToolResult
    from validators.facts import count_at

    rows = [
        {"prescription_id": 1, "refills_allowed": 100, "refills_used": 3},
        {"prescription_id": 2, "refills_allowed": 10, "refills_used": 4},
    ]
    read = Replay(results=[ToolResult(ok=True, output=rows)], changes={})
    assert count_at("My prescription is currently at 0 refills", read, []) == (
        "the user says 'is currently at 0 refills'; the records the gold reads hold "
        "refills_allowed 10, 100; refills_used 3, 4"
    )
    for true in ("It is at 3 refills.", "my prescription is at 97 refills", "It's at 6 refills"):
        assert count_at(true, read, []) == "", true
    # a count of a thing no field counts says nothing checkable
    assert count_at("It is at 0 doses.", read, []) == ""
    # said of the record a write acts on, the count is that record's
    unused = {"prescription_id": 3, "refills_allowed": 50, "refills_used": 0}
    read = Replay(results=[ToolResult(ok=True, output=[*rows, unused])], changes={})
    assert count_at("It is at 0 refills.", read, []) == ""
    assert count_at("It is at 0 refills.", read, [rows[0]]) == (
        "the user says 'is at 0 refills'; the records the gold reads hold "
        "refills_allowed 100; refills_used 3"
    )


def test_a_number_said_in_brackets_after_a_description_is_stated() -> None:
    """finance-intent-00027 on 5cf74c2 knew "The current outstanding balance is the amount
    requested (31,842.3)" of a loan owing 7938.94 (the amount pushed past it for a refusal)."""
    from toolscale.environment import Replay
    from toolscale.tool import ToolResult
    from validators.facts import _misstated

    loan = {"loan_id": 59001, "status": "active", "outstanding_balance": 7938.94}
    read = Replay(results=[ToolResult(ok=True, output=[loan])], changes={})
    said = "The current outstanding balance is the amount requested (31,842.3)"
    assert _misstated(said, read, {("amount", 31842.3)}) == (
        "the user states 'outstanding balance is the amount requested (31,842.3'; the records "
        "the gold reads hold outstanding_balance 7938.94"
    )
    for kept in (
        "The outstanding balance is the amount owed (7,938.94).",
        "My outstanding balance is 7938.94.",
    ):
        assert _misstated(kept, read, {("amount", 31842.3)}) == "", kept


def test_a_number_is_read_whole_or_not_at_all() -> None:
    """Weather's "a humidity of 4.85%" was read as a humidity of 4 (the pattern gave up the
    decimals to get past the per cent sign), and rejected against the 4.85 the gold read."""
    from toolscale.environment import Replay
    from toolscale.tool import ToolResult
    from validators.facts import _misstated

    read = Replay(results=[ToolResult(ok=True, output={"humidity": 4.85})], changes={})
    assert _misstated("with a humidity of 4.85%, please", read, set()) == ""
    assert _misstated("with a humidity of 4.85, please", read, set()) == ""
    # finance's "The to account id is 27570": the read holds the user's own account, the
    # number is the transfer's `to_account_id`
    mine = Replay(results=[ToolResult(ok=True, output=[{"account_id": 27562}])], changes={})
    to = {("to_account_id", 27570.0)}
    assert _misstated("The to account id is 27570.", mine, to) == ""
    assert _misstated("The to account id is 27570.", mine, set()) != ""
    assert _misstated("Move it from the account with ID 27570.", mine, to) != ""
    # a trial on movie's 71aacdf: "The amount to topup loyalty points is 891" names the
    # argument first; the field says what the amount is added to
    points = Replay(results=[ToolResult(ok=True, output={"loyalty_points": 722})], changes={})
    amount = {("amount", 891.0)}
    assert _misstated("The amount to topup loyalty points is 891", points, amount) == ""
    assert _misstated("My amount is 891, and my loyalty points is 891", points, amount) != ""
    assert _misstated("The amount to topup loyalty points is 891", points, set()) != ""
    wrong = _misstated("with a humidity of 5.5, please", read, set())
    assert (
        wrong == "the user states 'humidity of 5.5'; the records the gold reads hold humidity 4.85"
    )
    # finance-intent-00027 on 2054a46: "My outstanding balance is currently 31842.3"
    now = _misstated("My humidity is currently 5.5.", read, set())
    assert now.startswith("the user states 'humidity is currently 5.5'; the records the gold")
    assert _misstated("My humidity is currently 4.85.", read, set()) == ""


def test_a_template_blank_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """Travel's "As of now, my customer status is [current status]", kept by the judge."""
    # medicine on fe97d36: "The current date is (provide the current date)"
    for blank in ("[current status]", "<status>", "{status}", "(fill in the status)"):
        ask = f"My loan is {blank}. " + ASK
        stage, reason, detail = loan_verdict(banking_spec, ask)
        assert (stage, reason) == ("facts", "false_fact"), blank
        assert detail == f"the user states {blank!r}, a template's blank, not a value"


def test_a_name_the_user_gives_as_their_own_must_be_the_persons_found(
    banking_spec: EnvironmentSpec,
) -> None:
    """Travel's "My name is Secured leadingedge focus group" (a flight booking's name, a
    Faker catchphrase) from the customer Jeffery Johnson."""
    ask = "My name is Secured leadingedge focus group. " + ASK
    stage, reason, detail = loan_verdict(banking_spec, ask)
    assert (stage, reason) == ("facts", "false_fact")
    assert detail == (
        "the user says 'My name is Secured leadingedge focus group'; the person the gold "
        "finds them as is 'Maria Lopez'"
    )
    # medicine on fe97d36: "My first name is Mary", "My last name is Black", the doctor's
    stage, reason, detail = loan_verdict(banking_spec, "My first name is Ahmed. " + ASK)
    assert (stage, reason, detail) == (
        "facts",
        "false_fact",
        "the user says 'My first name is Ahmed'; their first name is 'Maria'",
    )
    for own in (
        "My name is Maria Lopez. ",
        "I'm Maria and I want to know. ",
        "My first name is Maria. ",
        "My last name is lopez. ",
    ):
        verdict = loan_verdict(banking_spec, own + ASK)
        assert verdict == ("accepted", "ok", ""), own


FREEZE = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
CARDS = {"name": "list_cards", "arguments": {"client_id": "C1001"}}


def false_claim(
    spec: EnvironmentSpec, claim: str, kept: tuple[str, ...], listed: bool = False
) -> str:
    """The detail of `claim`'s rejection as false_fact, where Maria freezes card K30001
    (after listing her cards when `listed`) and is told its status; each `kept` request
    with the same gold is accepted."""
    gold = [CARDS, FREEZE] if listed else [FREEZE]
    told = [{"call": len(gold) - 1, "path": "status"}]
    stage, reason, detail = bank_verdict(spec, claim, gold_calls=gold, communicate=told)
    assert (stage, reason) == ("facts", "false_fact"), detail
    all_kept(spec, kept, gold_calls=gold, communicate=told)
    return detail


def test_a_quoted_value_nothing_holds_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """Ecommerce's "update the order status of my order from 'awaiting payment' to
    'pending'": no order was awaiting payment. A quoted value the gold shows, or a quoted
    field name, is no such claim."""
    detail = false_claim(
        banking_spec,
        "Please freeze my card K30001, now 'awaiting renewal', and tell me its status.",
        kept=(
            "Please freeze my card K30001 and tell me its 'status'.",
            'Please set my card K30001 to "frozen" and tell me its status.',
        ),
    )
    assert detail == "the user states \"'awaiting renewal'\", which the seed does not hold"


def test_a_state_a_record_is_said_to_leave_must_be_its_own(banking_spec: EnvironmentSpec) -> None:
    """Restaurant's "I want to change the status of my reservation from pending to booked"
    for a seated reservation: the user states a state the record is not in."""
    detail = false_claim(
        banking_spec,
        "Please change my card K30001 from blocked to frozen and tell me its status.",
        kept=(
            "Please change my card K30001 from active to frozen and tell me its status.",
            "Please change my card K30001 from my old setting to frozen and tell me its status.",
        ),
    )
    assert detail == "the user says their card goes 'from blocked to frozen'; it is active"


def test_a_state_no_record_of_the_kind_takes_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """Restaurant's "I know this reservation is currently active" of a seated reservation,
    where no reservation is ever active (booked, seated, cancelled); movie-intent-00035 on
    71aacdf's "My booking is currently in the status 'inactive'"."""
    detail = false_claim(
        banking_spec,
        "My card K30001 is currently in the status expired. Please freeze it and tell me "
        "its status.",
        kept=(),
        listed=True,
    )
    assert "says 'expired', which no card is (they are active, blocked, frozen)" in detail
    detail = false_claim(
        banking_spec,
        "My card K30001 is currently expired. Please freeze it and tell me its status.",
        kept=(
            "My card K30001 is currently active. Please freeze it and tell me its status.",
            "My card K30001 is not expired. Please freeze it and tell me its status.",
        ),
        listed=True,
    )
    assert "says 'expired', which no card is (they are active, blocked, frozen)" in detail
    # railway-intent-00041 on a4b9fc9: "cancel my ticket because it's already been used"
    detail = false_claim(
        banking_spec,
        "Please freeze my card K30001 because it's already been used, and tell me its status.",
        kept=(
            "Please freeze my card K30001 if it's been used, and tell me its status.",
            "My card K30001 is used for groceries. Please freeze it and tell me its status.",
            "Please freeze my card K30001 because it's active, and tell me its status.",
        ),
        listed=True,
    )
    assert "says 'used', which no card is (they are active, blocked, frozen)" in detail


def test_a_state_given_to_where_a_write_sends_is_its_own(banking_spec: EnvironmentSpec) -> None:
    """finance-intent-00009 on 5cf74c2: "transfer 10,618.8 from my inactive account to
    another inactive account", of a transfer to an active account no gold call reads: the
    source was inactive, so the check of the records the write acts on let it pass."""
    from validators.facts import SeedFacts, destination_state

    tools = {t.name: t for t in banking_spec.tools}
    seed = SeedFacts.of(banking_spec)

    def said(to: str) -> str:
        ask = f"Please send $25 from my checking account to {to} and tell me my balance."
        task = mini_task(instruction=ask, gold_calls=[transfer("A20003", 25)])
        return destination_state(task, banking_spec, tools, seed)

    assert said("another frozen checking account") == (
        "the user says 'to another frozen checking account'; the account A20003 the gold's "
        "transfer_funds passes as to_account_id is active (status)"
    )
    assert "is checking (kind)" in said("a savings account")
    for kept in ("another active checking account", "account A20003", "Ahmed's account"):
        assert said(kept) == "", kept


def test_a_value_said_as_a_field_of_a_kind_without_it_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00053 on 05f674d: "The card is reported stolen and has a balance of
    $1,013", the balance of the account the card is on: cards hold no balance."""
    mine = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    told = [{"call": 1, "path": "status"}]

    def verdict(said: str) -> tuple[str, str, str]:
        ask = f"Please freeze my card K30001; {said}. Tell me its status."
        return bank_verdict(banking_spec, ask, gold_calls=[mine, FREEZE], communicate=told)

    assert verdict("the card has a balance of $4,250.75") == (
        "facts",
        "false_fact",
        "the user says 'card has a balance of $4,250.75': 4250.75 is the account's balance; "
        "a card has no balance",
    )
    for kept in ("my account has a balance of $4,250.75", "it is on my account"):
        assert verdict(kept) == ("accepted", "ok", ""), kept


def test_a_record_the_user_calls_theirs_must_be_theirs(banking_spec: EnvironmentSpec) -> None:
    """Finance's "I'd like to transfer $56.84 from my inactive account with ID 27534 to the
    same account" and the fact "My active account id is 27546": each id was the account the
    money went to, another client's."""
    send = transfer("A20003", 25)  # A20003 is Ahmed's (C1002)
    mine = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    told = [{"call": 1, "path": "from_balance"}]
    ask = "Please send $25 {} and tell me my balance after."
    # "from my ... A20003" of the destination is intent's unasked_target first
    # (`from_the_destination`); the facts stage is pinned with intent left out
    said = ask.format("from my checking account with ID A20003 to account A20003")
    verdict = bank_verdict(banking_spec, said, gold_calls=[mine, send], communicate=told)
    assert verdict[:2] == ("intent", "unasked_target"), verdict
    stage, reason, detail = bank_verdict(
        banking_spec, said, stages=NOT_INTENT, gold_calls=[mine, send], communicate=told
    )
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert detail == (
        "the user calls account A20003 theirs ('my checking account with ID A20003'); "
        "it is another person's"
    )
    facts = [*MARIA["known_facts"], "My checking account id is A20003."]
    stage, reason, _ = bank_verdict(
        banking_spec,
        ask.format("from my checking account to account A20003"),
        gold_calls=[mine, send],
        communicate=told,
        known_facts=facts,
    )
    assert (stage, reason) == ("facts", "false_fact")
    # finance-intent-00178 on 310b6d0: "I have an active account with account ID 27570"
    facts = [*MARIA["known_facts"], "I have a checking account with account ID A20003"]
    stage, reason, detail = bank_verdict(
        banking_spec,
        ask.format("from my checking account to account A20003"),
        gold_calls=[mine, send],
        communicate=told,
        known_facts=facts,
    )
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert "'I have a checking account with account ID A20003'" in detail
    # finance-intent-00642 and 00676 on 2a7fb38: "from my account (ID 27560)"
    for said in ("from my checking account (ID A20003)", "from my checking account (ID: A20003)"):
        stage, reason, detail = bank_verdict(
            banking_spec,
            ask.format(f"{said} to account A20003"),
            stages=NOT_INTENT,
            gold_calls=[mine, send],
            communicate=told,
        )
        assert (stage, reason) == ("facts", "false_fact"), said
        assert detail.startswith("the user calls account A20003 theirs"), detail
    all_kept(
        banking_spec,
        (
            ask.format("from my checking account A20001 to account A20003"),
            ask.format("from my checking account (ID A20001) to account A20003"),
            ask.format("from my checking account to account A20003; I have an account, id A20001"),
            ask.format("from my checking account to my friend's account A20003"),
            ask.format("from my checking account to account A20003 (my transfer to A20003)"),
        ),
        gold_calls=[mine, send],
        communicate=told,
    )


def test_a_key_two_tables_share_is_read_in_the_table_the_user_names(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance draws each table's ids from a range of its own, so a card and an account can
    share one. "my checking account with ID A20003" names Ahmed's account even where Maria
    holds a card of that id: the card must not hide the account."""
    seed = banking_spec.model_copy(deep=True).seed
    renamed: dict[Any, Any] = {"K30001": "A20003"}  # Maria's card takes Ahmed's account's id
    for table, column in (("cards", "card_id"), ("cards", "replaces"), ("transactions", "card_id")):
        for row in seed[table]:
            row[column] = renamed.get(row[column], row[column])
    stage, reason, detail = bank_verdict(
        banking_spec.model_copy(update={"seed": seed}),
        "Please send $25 from my checking account with ID A20003 to account A20003 and tell "
        "me my balance after.",
        stages=NOT_INTENT,
        gold_calls=[
            {"name": "list_accounts", "arguments": {"client_id": "C1001"}},
            transfer("A20003", 25),
        ],
        communicate=[{"call": 1, "path": "from_balance"}],
    )
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert detail.startswith("the user calls account A20003 theirs"), detail


def _read_then_close(kind: str, row: dict) -> tuple[dict[str, Tool], Replay, list[dict]]:
    """A read of one row of `kind`s and a write closing it, their replay and gold calls."""
    key = f"{kind}_id"
    find = f"SELECT * FROM {kind}s WHERE {key} = :{key}"
    close = f"UPDATE {kind}s SET status = 'closed' WHERE {key} = :{key}"
    tools = {
        f"get_{kind}": Tool(name=f"get_{kind}", description="Find it.", kind="read", returns=find),
        f"close_{kind}": Tool(
            name=f"close_{kind}", description="Close.", kind="write", run=[close]
        ),
    }
    read = Replay(
        results=[ToolResult(ok=True, output=row), ToolResult(ok=True, output=[])], changes={}
    )
    calls = [{"name": n, "arguments": {key: row[key]}} for n in tools]
    return tools, read, calls


def test_a_state_inside_the_records_own_is_that_one() -> None:
    """Weather's region "House Antarctica" holds the region "Antarctica" of other stations:
    "my House Antarctica station" names the station's own region, no other."""
    from validators.facts import _misdescribed_target

    seed = SeedFacts(
        states={"stations": {"region": frozenset({"Antarctica", "House Antarctica", "Arctic"})}},
        columns={"stations": ("station_id", "name", "region")},
        primary={"stations": ("station_id",)},
    )
    station = {"station_id": 36443, "name": "Ryan Station", "region": "House Antarctica"}
    tools, read, calls = _read_then_close("station", station)

    def said(region: str) -> str:
        ask = f"Please close station 36443, my station in the {region} region."
        return _misdescribed_target(mini_task(instruction=ask, gold_calls=calls), read, tools, seed)

    assert said("House Antarctica") == ""
    assert said("Arctic") == (
        "'Please close station 36443, my station in the Arctic region.' says Arctic, but the "
        "station the gold acts on is house antarctica (region)"
    )


def test_a_field_said_of_another_kind_of_record_is_that_ones() -> None:
    """Weather on 6accfa9 refused "The station name is Herreraville Station" beside a move
    of that station to California: "says its name is 'herreraville station', which no
    region has". The station's name is no claim about the region's."""
    from validators.facts import _misdescribed_target

    seed = SeedFacts(
        states={"regions": {"name": frozenset({"Antarctica", "California", "North Pole"})}},
        columns={"regions": ("region_id", "name"), "stations": ("station_id", "name")},
        primary={"regions": ("region_id",), "stations": ("station_id",)},
    )
    tools, read, calls = _read_then_close("region", {"region_id": 5, "name": "California"})

    def said(fact: str) -> str:
        task = mini_task(instruction="Please close region 5.", gold_calls=calls, known_facts=[fact])
        return _misdescribed_target(task, read, tools, seed)

    assert said("The station name is Herreraville Station") == ""
    assert said("My station's name is Herreraville Station") == ""
    assert "which no region has" in said("The region name is Herreraville Station")
    # only that clause is the station's: the rest of the sentence is still read
    both = said("My station name is Herreraville Station and the region name is Greenland.")
    assert "says its name is 'greenland', which no region has" in both


def test_an_id_given_as_an_amount_is_false_fact() -> None:
    """Finance-intent-00409 on fcae1f3: "I want to repay 527.87 from my loan balance of
    58952", 58952 being the id of the loan repaid."""
    from validators.facts import id_as_quantity

    calls = [{"name": "repay_loan", "arguments": {"loan_id": 58952, "amount": 527.87}}]
    task = mini_task(gold_calls=calls, communicate=[])
    said = id_as_quantity("I want to repay 527.87 from my loan balance of 58952.", task)
    assert said == (
        "the user gives 58952, the loan_id of gold call 0, as a quantity ('balance of 58952')"
    )
    for kept in ("I want to repay 527.87 of loan 58952.", "My balance is 58952.5 now."):
        assert id_as_quantity(kept, task) == "", kept
    # a code's number: "a balance of 53486" beside account ACC-53486
    calls = [{"name": "deposit", "arguments": {"account_id": "ACC-53486", "amount": 20}}]
    coded = mini_task(gold_calls=calls, communicate=[])
    said = id_as_quantity("Please deposit 20 into my account with a balance of 53486.", coded)
    assert said.startswith("the user gives 53486, the account_id of gold call 0")
    assert id_as_quantity("Please deposit 20 into my account ACC-53486.", coded) == ""


def test_the_same_record_for_two_is_false_fact(banking_spec: EnvironmentSpec) -> None:
    """Finance-intent-00124: "I would like to transfer balance from my inactive account to
    the same account", whose gold moved money from 27544 to 27604."""
    ask = "Please send $25 from my checking account to the same account. My balance after?"
    facts = [*MARIA["known_facts"], "The account to send to is A20002."]
    stage, reason, detail = saving_verdict(banking_spec, facts, ask)
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert detail == (
        "the user says 'to the same account'; the gold's transfer_funds names A20001 and A20002"
    )
    assert saving_verdict(banking_spec, facts) == ("accepted", "ok", "")


def test_the_first_and_the_second_record_given_one_id_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00707 on d3bc077 knew "The account id of the first account is 27586"
    and "The account id of the second account is 27586", and moved money from 27583 to
    27586."""

    def verdict(first: str, second: str) -> tuple[str, str, str]:
        facts = [
            *MARIA["known_facts"],
            f"The account id of the first account is {first}.",
            f"The account id of the second account is {second}.",
        ]
        return saving_verdict(banking_spec, facts)

    stage, reason, detail = verdict("A20002", "A20002")
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert detail == (
        "the known facts give the first and the second account one value, A20002; the "
        "gold's transfer_funds names A20001 and A20002"
    )
    assert verdict("A20001", "A20002") == ACCEPTED


def test_what_the_making_sets_is_no_fact_before_it() -> None:
    """Ecommerce-intent-00004 on 277c846: "The return id is xxxxxx", "The return status is
    pending", of the return its gold opened (its status 'open'). What the user asks the new
    record to hold is theirs to say."""
    from toolscale.wording import PLACEHOLDER
    from validators.facts import told_before_made

    open_return = Tool.model_validate(
        {
            "name": "create_return",
            "description": "Open a return for an order item.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {"quantity": {"type": "integer"}}},
            "run": [
                "INSERT INTO returns (return_id, quantity, status, opened_at) "
                "VALUES (:_new_id, :quantity, 'open', :_now)"
            ],
            "returns": "SELECT 1",
        }
    )
    assert open_return.set_itself("returns") == ["return_id", "status", "opened_at"]
    tools = {"create_return": open_return}
    calls = [{"name": "create_return", "arguments": {"quantity": 2}}]

    def said(*facts: str) -> str:
        task = mini_task(gold_calls=calls, communicate=[], known_facts=list(facts))
        return told_before_made(task, tools)

    assert "'The return status is' of the return gold call 0 create_return makes" in said(
        "My email is ann@example.com", "The return status is pending"
    )
    assert said("The return id is 59779")
    assert said("My new return's status is open")
    assert said("The return quantity is 2") == ""  # asked of the new record
    assert said("The order status is delivered") == ""  # another record
    refused = [{**calls[0], "expect_error": "Only a delivered order item can be returned."}]
    task = mini_task(gold_calls=refused, communicate=[], known_facts=["The return status is x"])
    assert told_before_made(task, tools) == ""  # nothing made
    assert PLACEHOLDER.search("The return id is xxxxxx")
    assert not PLACEHOLDER.search("My size is XXL and my order is 35572")


def test_one_record_said_by_a_number_and_a_day_no_record_pairs_is_false_fact() -> None:
    """restaurant-intent-00005 on 277c846: "I'm ordering for a party of 5 on June 6th", of
    its reservation of June 6th for 2 (the party of 5 was another, of January 15th)."""
    from toolscale.tool import ToolResult
    from validators.facts import unpaired

    reservations = [
        {"reservation_id": 1, "party_size": 2, "date": "2025-06-06"},
        {"reservation_id": 2, "party_size": 5, "date": "2025-01-15"},
    ]
    orders = [{"order_id": 9, "reservation_id": 1, "quantity": 3}]
    replay = Replay(
        results=[ToolResult(ok=True, output=reservations), ToolResult(ok=True, output=orders)],
        changes={},
    )
    move = [{"name": "move_order", "arguments": {"order_id": 9, "new_reservation_id": 2}}]

    def said(instruction: str) -> str:
        return unpaired(mini_task(instruction=instruction, gold_calls=move), replay)

    assert "no record the gold reads has party_size 5 on day 06-06" in said(
        "I'm ordering for a party of 5 on June 6th. Move my order to my other reservation."
    )
    assert "party_size 2 on 2025-01-15" in said("My party of 2 on 2025-01-15 needs the order.")
    for true in (
        "I'm ordering for a party of 2 on June 6th. Move my order to my party of 5.",
        # an order's quantity and a reservation's day: two records
        "Move my order for the quantity of 3 from the reservation on 2025-06-06 to the other.",
        # two numbers: "from a party of 2 on June 6 to a party of 5" names two records
        "Move my order from a party of 2 on June 6 to a party of 5 on June 6.",
    ):
        assert said(true) == "", true
    create = [{"name": "book", "arguments": {"party_size": 5, "date": "2025-06-06"}}]
    asked = mini_task(instruction="Book a party of 5 on June 6th for me.", gold_calls=create)
    assert unpaired(asked, replay) == ""  # asked of the new record, not said of one


def one_write(name: str, sql: str) -> Tool:
    """A write of one statement, its parameters the names the statement binds."""
    params = {key: {"type": "integer"} for key in re.findall(r":(\w+)", sql)}
    return Tool(
        name=name,
        kind="write",
        description=f"{name.replace('_', ' ').capitalize()}.",
        parameters={"type": "object", "properties": params},
        run=[sql],
    )


def test_a_day_said_from_today_that_no_day_of_the_task_is_is_false_fact() -> None:
    """travel-intent-00032 on 7e55d3f: "a hotel for my trip next week", its stay from
    2025-04-17 under a clock of 2025-01-15; an older run's "a flight from today to tomorrow"
    from 2023-12-14. The days are the text's, the gold's and the rows its writes act on."""
    from validators.facts import not_when_said

    clock = "2025-01-15T10:00:00"
    booking = {"booking_id": 7, "check_in": "2025-01-16T09:00:00"}
    replay = Replay(results=[ToolResult(ok=True, output=[booking])], changes={})
    cancel = one_write(
        "cancel_booking", "UPDATE bookings SET status = 'cancelled' WHERE booking_id = :booking_id"
    )

    def said(instruction: str, gold: list[dict] | None = None, facts: tuple = ()) -> str:
        calls = gold or [{"name": "book", "arguments": {"check_in": "2025-04-17T12:15:00"}}]
        task = mini_task(instruction=instruction, gold_calls=calls, known_facts=list(facts))
        return not_when_said(task, clock, replay, {"cancel_booking": cancel})

    assert said("I want to book a hotel for my trip next week.") == (
        "the user says 'next week', but the task's days are 2025-04-17 and today is 2025-01-15"
    )
    assert said("Book a flight from today to tomorrow.", facts=("Check in is 2023-12-14",))
    assert said("Cancel my booking, it is due in 2 days.", facts=("It is on 2024-01-12",))
    assert said("I booked it 3 days ago.", facts=("Booked on 2025-01-02",))
    assert said("Book it for the day after tomorrow.", facts=("Check in is 2025-01-16.",))
    # ecommerce-intent-00077 on c1da9aa: a record of today's, created on another day
    assert said("Cancel my order from today. It was created on 2022-02-28.") == (
        "the user says 'from today', but the task's days are 2022-02-28, 2025-04-17 and today "
        "is 2025-01-15"
    )
    for true, facts in (
        ("I want to book a hotel for next week.", ("Check in is 2025-01-20",)),
        ("Book it for tomorrow, January 16th.", ()),
        ("Book it for the day after tomorrow.", ("Check in is 2025-01-17.",)),
        ("I booked it 3 days ago.", ("Booked on 2025-01-12",)),
        ("Cancel my booking, it is due in 2 days.", ("It is on 2025-01-17",)),
        ("Please book it next week.", ()),  # no day of the task: nothing to hold it to
        ("Cancel my order from today, 2025-01-15.", ()),
        ("Today I want to cancel my order of 2022-02-28.", ()),  # when one asks
        ("As of today my order of 2022-02-28 is lost.", ()),
    ):
        book = [{"name": "book", "arguments": {"note": "x"}}]
        assert said(true, gold=book, facts=facts) == "", true
    # the day of the row the write acts on: the booking 7 checks in tomorrow
    cancel_7 = [
        {"name": "list_bookings", "arguments": {"customer_id": 1}},
        {"name": "cancel_booking", "arguments": {"booking_id": 7}},
    ]
    assert said("Cancel my booking for tomorrow.", gold=cancel_7) == ""


def test_a_record_called_the_users_by_name_that_none_of_theirs_is_tied_to_is_false_fact() -> None:
    """travel-intent-00017 on 7e55d3f moved a booking of another hotel to Barron-Fleming,
    saying "the hotel booking for my hotel Barron-Fleming" and "The hotel Barron-Fleming is
    my hotel". Ava's one booking is at the Harbor Inn."""
    from tests.generators.travel import travel_spec
    from validators.facts import not_my_named

    spec = travel_spec()
    ava = spec.seed["customers"][0]
    replay = Replay(results=[ToolResult(ok=True, output=ava)], changes={})
    book = one_write("book_hotel", "INSERT INTO hotel_bookings (hotel_id) VALUES (:hotel_id)")
    move = one_write(
        "move_booking", "UPDATE hotel_bookings SET hotel_id = :new_hotel_id WHERE booking_id = 500"
    )
    tools = {t.name: t for t in (book, move)}

    def said(instruction: str, write: Tool, facts: tuple = ()) -> str:
        calls = [
            {"name": "find_customer", "arguments": {"email": "ava@example.com"}},
            {"name": write.name, "arguments": {next(iter(write.param_types())): 21}},
        ]
        task = mini_task(instruction=instruction, gold_calls=calls, known_facts=list(facts))
        return not_my_named(task, spec, tools, replay, SeedFacts.of(spec))

    assert said("Move my booking to my hotel Dune Lodge.", move) == (
        "the user says 'my hotel Dune Lodge'; none of their records is tied to the hotel "
        "'Dune Lodge'"
    )
    assert said("Move my booking.", move, ("The hotel Dune Lodge is my hotel.",))
    # weather-intent-00000 on aedf9df: "My region's name is Antarctica", where a station
    # of theirs moves to
    assert said("Move my booking to the Dune Lodge.", move, ("My hotel's name is Dune Lodge",))
    assert said("Move my booking.", move, ("My hotel is Dune Lodge",))
    assert said("Move my booking.", move, ("My hotel name is Harbor Inn",)) == ""
    # medicine-intent-00098 on 61a5427: "My doctor's first name is Marvin", "My doctor's
    # last name is Fox", of the doctor an appointment moves to
    parts = [h | {"first": "Dune"} if h["hotel_id"] == 21 else h for h in spec.seed["hotels"]]
    with_parts = spec.model_copy(update={"seed": {**spec.seed, "hotels": parts}})
    task = mini_task(
        instruction="Move my booking to the Dune Lodge.",
        gold_calls=[
            {"name": "find_customer", "arguments": {"email": "ava@example.com"}},
            {"name": "move_booking", "arguments": {"new_hotel_id": 21}},
        ],
        known_facts=["My hotel's first name is Dune"],
    )
    assert not_my_named(task, with_parts, tools, replay, SeedFacts.of(with_parts))
    assert said("Move my booking.", move, ("My hotel's full name is Dune Lodge",))
    # a firm's name (travel-intent-00023 on d7b1bec), and a name with more said after it
    hotels = [
        h | {"name": "Martinez, Howard and Le"} if h["hotel_id"] == 21 else h
        for h in spec.seed["hotels"]
    ]
    spec = spec.model_copy(update={"seed": {**spec.seed, "hotels": hotels}})
    assert "'Martinez, Howard and Le'" in said(
        "Move my booking.", move, ("My hotel's name is Martinez, Howard and Le",)
    )
    assert (
        said("Move my booking.", move, ("My hotel is Harbor Inn, and Ben's is Dune Lodge",)) == ""
    )
    for true, write in (
        ("Move my booking from my hotel Harbor Inn to the Dune Lodge.", move),
        ("Please book my hotel Dune Lodge for me.", book),  # the new booking is at it
        ("Move my booking to the Dune Lodge.", move),
    ):
        assert said(true, write) == "", true
    # a new record's own name, though another's has it too (weather-intent-00030 on aedf9df)
    make = one_write("create_hotel", "INSERT INTO hotels (name) VALUES (:name)")
    calls = [
        {"name": "find_customer", "arguments": {"email": "ava@example.com"}},
        {"name": "create_hotel", "arguments": {"name": "Dune Lodge"}},
    ]
    task = mini_task(instruction="Please add my hotel Dune Lodge.", gold_calls=calls)
    assert not_my_named(task, spec, {"create_hotel": make}, replay, SeedFacts.of(spec)) == ""


def test_a_record_said_to_be_todays_on_another_day_is_false_fact() -> None:
    """medicine-intent-00064 on 277c846: "I just got my appointment for today and it starts
    at 2024-04-01", under a clock of 2025-01-15."""
    from validators.facts import not_today

    clock = "2025-01-15T10:00:00"

    def said(instruction: str) -> str:
        return not_today(mini_task(instruction=instruction), clock)

    assert said("I got my appointment for today and it starts at 2024-04-01.") == (
        "the user says 'I got my appointment for today and it starts at 2024-04-01.', but "
        "today is 2025-01-15"
    )
    assert said("My flight is today, March 3rd. Please cancel it.")
    for true in (
        "My appointment is today, 2025-01-15. Please cancel it.",
        "Today I want to cancel my appointment on 2025-03-01.",
        "Please cancel today's appointment.",
    ):
        assert said(true) == "", true


def test_a_record_said_to_be_still_to_come_on_a_past_day_is_false_fact() -> None:
    """basketball on 9b9d975: "I want to create a ticket for my upcoming game at
    2024-10-30", under a clock of 2025-01-15."""
    from validators.facts import not_to_come

    clock = "2025-01-15T10:00:00"

    def said(instruction: str) -> str:
        return not_to_come(mini_task(instruction=instruction), clock)

    assert said("I want a ticket for my upcoming game at 2024-10-30. Its status?") == (
        "the user says 'I want a ticket for my upcoming game at 2024-10-30.', but 2024-10-30 "
        "is before today, 2025-01-15"
    )
    # basketball-intent-00009 on 65cb0f1: a record's "will" of a day gone by
    assert said("Our contract for 2024-03-26 will commence on that date.") == (
        "the user says 'Our contract for 2024-03-26 will commence on that date.', but "
        "2024-03-26 is before today, 2025-01-15"
    )
    for true in (
        "I will need the status of my game of 2024-10-30.",
        "What will happen to my ticket for the game of 2024-10-30?",
        "I want a ticket for my upcoming game at 2025-02-01.",
        "I want a ticket for my upcoming game on March 3rd.",  # no year: either side
        "My game on 2024-10-30 is over; book the upcoming one.",
        "Please refund my ticket for the game of 2024-10-30.",
    ):
        assert said(true) == "", true


def test_a_day_said_as_a_records_end_that_only_its_start_holds_is_false_fact() -> None:
    """basketball-intent-00054 on fe80ced: "I want to activate my contract that expires on
    December 31", of a contract that starts on 2024-12-31 and ends on 2025-01-29."""
    from toolscale.tool import ToolResult
    from validators.facts import wrong_end

    contract = {"contract_id": 7, "start_date": "2024-12-31", "end_date": "2025-01-29"}
    replay = Replay(results=[ToolResult(ok=True, output=[contract])], changes={})
    activate = [{"name": "activate_contract", "arguments": {"contract_id": 7}}]

    def said(instruction: str, calls: list | None = None) -> str:
        return wrong_end(mini_task(instruction=instruction, gold_calls=calls or activate), replay)

    assert said("I want to activate my contract that expires on December 31. Is it active?") == (
        "the user says 'I want to activate my contract that expires on December 31.', but "
        "2024-12-31 is the start_date of a record the gold reads, and none ends on day 12-31"
    )
    assert "none starts on 2025-01-29" in said("Activate my contract starting on 2025-01-29.")
    for true in (
        "I want to activate my contract that expires on January 29th.",
        "Activate my contract that starts on 2024-12-31.",
        "Activate my contract of December 31.",  # said of no end or start
        "Activate my contract; it ends soon. It began on 2024-12-31.",
    ):
        assert said(true) == "", true
    # a day the gold passes is asked of a record: "a new contract that ends on ..."
    create = [{"name": "create_contract", "arguments": {"end_date": "2024-12-31"}}]
    assert said("Create a contract that ends on 2024-12-31 for me.", create) == ""


def test_the_users_own_record_said_to_be_the_other_side_is_false_fact() -> None:
    """basketball-intent-00052 on cb56dcd: "create a ticket for my game on January 18th
    against Briana Ward", a ticket for the user's own player Briana Ward."""
    from toolscale.tool import ToolResult
    from validators.facts import against_own

    players = [{"player_id": 5, "name": "Briana Ward"}, {"player_id": 6, "name": "Gus Hale"}]
    replay = Replay(results=[ToolResult(ok=True, output=players), ToolResult(ok=True)], changes={})
    sell = one_write(
        "create_ticket", "INSERT INTO tickets (game_id, player_id) VALUES (:game_id, :player_id)"
    )
    calls = [
        {"name": "list_players", "arguments": {"team_id": 1}},
        {"name": "create_ticket", "arguments": {"game_id": 9, "player_id": 5}},
    ]

    def said(instruction: str) -> str:
        task = mini_task(instruction=instruction, gold_calls=calls)
        return against_own(task, replay, {"create_ticket": sell})

    assert said("Create a ticket for my game on January 18th against Briana Ward. I pay.") == (
        "the user says 'against Briana Ward', but Briana Ward is the record the gold's write "
        "is for (player_id)"
    )
    for true in (
        "Create a ticket for Briana Ward for my game against the Hawks.",
        "Create a ticket for my game against Gus Hale.",  # listed, not the ticket's
    ):
        assert said(true) == "", true


def test_a_time_asked_for_that_the_gold_sets_to_another_minute_is_false_fact() -> None:
    """medicine on 6789a02: "create a new appointment for myself on April 8th at 8 PM", and
    "from 11:20 AM to 2:20 PM", whose golds set 20:45:33 and 11:20:10 (seed moments)."""
    from toolscale.tool import ToolResult
    from validators.facts import loose_time

    book = one_write(
        "create_appointment",
        "INSERT INTO appointments (start_time, end_time) VALUES (:start_time, :end_time)",
    )
    mine = [{"appointment_id": 3, "start_time": "2025-04-01T16:00:00"}]

    def said(
        instruction: str, start: str, end: str = "2025-04-08T23:00:00", facts: tuple[str, ...] = ()
    ) -> str:
        calls = [
            {"name": "list_appointments", "arguments": {"patient_id": 1}},
            {"name": "create_appointment", "arguments": {"start_time": start, "end_time": end}},
        ]
        replay = Replay(results=[ToolResult(ok=True, output=mine), ToolResult(ok=True)], changes={})
        task = mini_task(instruction=instruction, gold_calls=calls, known_facts=list(facts))
        return loose_time(task, replay, {"create_appointment": book})

    ask = "Book me an appointment on April 8th at {}."
    assert said(ask.format("8 PM"), "2025-04-08T20:45:33") == (
        "the user asks for '8 PM'; the gold's create_appointment sets start_time "
        "2025-04-08T20:45:33"
    )
    assert "sets start_time 2025-04-08T11:20:10" in said(
        ask.format("11:20 AM"), "2025-04-08T11:20:10"
    )
    for kept, start in (
        ("8 PM", "2025-04-08T20:00:00"),
        ("8:45 PM", "2025-04-08T20:45:00"),
        ("20:45:33", "2025-04-08T20:45:33"),
        ("9 PM", "2025-04-08T20:45:33"),  # another hour: another check's
    ):
        assert said(ask.format(kept), start) == "", kept
    # a time a record the gold reads holds names it: "my 4 PM appointment"
    assert said("Move my 4 PM appointment to 4:30 PM.", "2025-04-01T16:30:00") == ""
    # a known fact is the user's word too: what they say when asked
    fact = "I want the appointment to start at 8 PM"
    assert "'8 PM'" in said(
        "Book me an appointment on April 8th.", "2025-04-08T20:45:33", facts=(fact,)
    )
    assert said("Book me an appointment on April 8th.", "2025-04-08T20:00:00", facts=(fact,)) == ""


def test_a_day_and_a_time_no_moment_holds_together_is_false_fact() -> None:
    """medicine on fe97d36: "my appointment on 2024-12-02, starting at 11:05:21", the day of
    the appointment a prescription moved to and the time of the new one, on 2025-02-17."""
    from toolscale.tool import ToolResult
    from validators.facts import unpaired_moment

    mine = [{"appointment_id": 3, "start_time": "2024-12-02T09:30:00"}]
    replay = Replay(results=[ToolResult(ok=True, output=mine), ToolResult(ok=True)], changes={})
    calls = [
        {"name": "list_appointments", "arguments": {"patient_id": 1}},
        {"name": "create_appointment", "arguments": {"start_time": "2025-02-17T11:05:21"}},
    ]

    def said(instruction: str) -> str:
        return unpaired_moment(mini_task(instruction=instruction, gold_calls=calls), replay)

    assert said("Book it like my appointment on 2024-12-02, starting at 11:05:21.") == (
        "the user says 'Book it like my appointment on 2024-12-02, starting at 11:05:21.': no "
        "record the gold reads or writes is at 11:05:21 on 2024-12-02"
    )
    for true in (
        "Book me an appointment on 2025-02-17 at 11:05:21.",
        "My appointment on December 2nd is at 9:30. Book another.",
        "Book one at 11:05:21; my other is on 2024-12-02.",  # two sentences, two records
    ):
        assert said(true) == "", true


def test_a_move_that_calls_its_record_the_new_owners_is_false_fact() -> None:
    """school-intent-00013 on 5d152ba moved Dennis Bishop's enrollment "for the student named
    Scott Underwood ... to another student named Scott Underwood". Here Ava's booking 500 is
    at the Harbor Inn, and the gold moves it to the Dune Lodge."""
    from tests.generators.travel import travel_spec
    from validators.facts import moved_from_named

    spec = travel_spec()
    move = one_write(
        "move_booking",
        "UPDATE hotel_bookings SET hotel_id = :new_hotel_id WHERE booking_id = :booking_id",
    )

    book = one_write("book_hotel", "INSERT INTO hotel_bookings (hotel_id) VALUES (:hotel_id )")

    def said(instruction: str, facts: tuple[str, ...] = (), also: list | None = None) -> str:
        calls = [{"name": "move_booking", "arguments": {"booking_id": 500, "new_hotel_id": 21}}]
        task = mini_task(
            instruction=instruction, gold_calls=calls + (also or []), known_facts=list(facts)
        )
        return moved_from_named(task, spec, {"move_booking": move, "book_hotel": book})

    assert said("Move my booking for the hotel named Dune Lodge to the Dune Lodge.") == (
        "the user ties the hotel booking to Dune Lodge already, but the gold moves it from "
        "Harbor Inn to Dune Lodge"
    )
    assert said("Please move my booking from Dune Lodge to another hotel named Dune Lodge.")
    assert said("Move the Dune Lodge's booking of mine to Dune Lodge, please.")
    # weather-intent-00021 on aedf9df: "The East Desireetown Station is in California", a
    # known fact beside its move to California
    assert said("Move my booking to the Dune Lodge.", ("My booking is at the Dune Lodge.",))
    # weather-intent-00055 on 61a5427: "It's located in the region named Greenland" of a
    # station the gold moves to Greenland
    assert said("Move my booking to a new hotel. It's located in the hotel named Dune Lodge.")
    assert said("Move my booking to the Dune Lodge.", ("My booking is based at Dune Lodge.",))
    # ecommerce-intent-00173 in runs/: "The order item is associated with a product named
    # Laptop", of a TV item moved to the Laptop
    for tied in ("is associated with a hotel named", "is linked to"):
        assert said("Move my booking to the Dune Lodge.", (f"My booking {tied} Dune Lodge.",))
    assert not said("Move it to the Dune Lodge.", ("My booking is associated with Harbor Inn.",))
    # weather-intent-00042 on aedf9df: "The current region is House California" of the
    # region a station moves to
    assert said("Move my booking to the Dune Lodge.", ("The current hotel is Dune Lodge",))
    # restaurant-intent-00034 on 530f5cd: "The reservation for 5 people is already in
    # Special Table 7", the table the gold moves it to
    assert said("Move my booking to the Dune Lodge.", ("My booking is already at Dune Lodge",))
    assert said("Move it to the Dune Lodge.", ("The booking is still in the Dune Lodge",))
    # restaurant-intent-00004 on 530f5cd moved an order of Salad to House Fries: "move my
    # order of 21 House Fries ... to the House Fries menu item"
    assert said("Move my booking of 2 Dune Lodge rooms to the Dune Lodge.")
    # restaurant-intent-00079 on 71a1d95: "move my 36 House Fries on my reservation ... to
    # the menu item House Fries", of a Taco
    assert said("Please move my 2 Dune Lodge nights on my trip to the Dune Lodge.")
    # ecommerce-intent-00049 on 8d65db4, a House Dishwasher moved to the TV: "move the TV
    # from order item quantity 29 to the TV product", "The TV is in my paid order"
    assert said("Please move the Dune Lodge from my booking to the other hotel.")
    assert said("Move my booking to the Dune Lodge.", ("The Dune Lodge is in my booking.",))
    for true in (
        "Move my booking at the Harbor Inn to the Dune Lodge.",
        "Move my booking from the Harbor Inn to the hotel named Dune Lodge.",
        "Move my booking to the Dune Lodge.",
        "Dune Lodge should hold my booking from now on.",
        "Please move my booking over to a room of the Dune Lodge.",
        "Move my booking from the current hotel to the Dune Lodge.",
        "Please move my booking to Dune Lodge.",
        "Move the booking to the Dune Lodge; the Dune Lodge is in my plans.",
        "My booking is at the Harbor Inn; I want it to be at the Dune Lodge.",
    ):
        assert said(true) == "", true
    # another change of the task makes a record of the Dune Lodge (school-intent-00041 on
    # 13b4e73: "... and create an enrollment for Port Gavinburgh Course for David Weaver")
    booked = [{"name": "book_hotel", "arguments": {"hotel_id": 21}}]
    ask = "Move my booking to the Dune Lodge, and book a room for me at the Dune Lodge."
    assert said(ask.replace("at the Dune", "for the Dune"), also=booked) == ""
    assert said(ask.replace("at the Dune", "for the Dune"))


def _said_of_a_move(
    spec: EnvironmentSpec,
    check: Callable[[Task, EnvironmentSpec, dict[str, Tool]], str],
    table: str,
    parent: str,
    ids: tuple[int, int],
) -> Callable[[str], str]:
    """`check` of a request whose gold moves row `ids[0]` of `table` to parent `ids[1]`."""
    key = "booking_id"
    sql = f"UPDATE {table} SET {parent} = :new_{parent} WHERE {key} = :{key}"
    move = one_write("move_booking", sql)
    calls = [{"name": "move_booking", "arguments": {key: ids[0], f"new_{parent}": ids[1]}}]

    def said(text: str) -> str:
        return check(mini_task(instruction=text, gold_calls=calls), spec, {"move_booking": move})

    return said


def test_a_move_that_calls_its_record_by_what_its_new_parent_is_under_is_false_fact() -> None:
    """movie-intent-00073 on 706f9af moved "my booking for Inception" of The Godfather to a
    showtime of Inception. Here Mia's booking 70 is at showtime 10 (Dune), and the gold
    moves it to showtime 11 (Alien)."""
    from tests.generators.movie import movie_spec
    from validators.facts import moved_from_named

    said = _said_of_a_move(movie_spec(), moved_from_named, "bookings", "showtime_id", (70, 11))

    assert said("Move my booking for Alien to the 21:00 showtime.") == (
        "the user ties the booking to Alien already, but the gold moves it from Dune to Alien"
    )
    for true in (
        "Move my booking for Dune to the Alien showtime at 21:00.",
        "Move my booking to the showtime of Alien at 21:00.",
    ):
        assert said(true) == "", true


def test_a_move_asked_toward_another_record_than_the_gold_moves_to_is_false_fact() -> None:
    """school-intent-00034 on 0fd2081: "move the enrollment ... to Riddlechester Course", the
    course it was in, and the gold moved it to Port Barbara Course. Here Ava's booking 500
    is at the Harbor Inn, and the gold moves it to the Dune Lodge."""
    from tests.generators.travel import travel_spec
    from validators.facts import moved_elsewhere

    said = _said_of_a_move(travel_spec(), moved_elsewhere, "hotel_bookings", "hotel_id", (500, 21))

    assert said("Move my booking to the Harbor Inn.") == (
        "the user asks to move the hotel booking 'to the Harbor Inn'; the gold moves it to "
        "Dune Lodge"
    )
    for true in (
        "Move my booking to the Dune Lodge.",
        "Move my booking from the Harbor Inn to the Dune Lodge.",
        "Please move my booking, now at the Harbor Inn, into Dune Lodge.",
    ):
        assert said(true) == "", true


def test_a_record_two_hops_from_the_users_is_theirs_to_name() -> None:
    """railway-intent-00043 on 21ceb83 bought a ticket on a trip of House Train C and said
    "My train's name is House Train C": the train is the new ticket's trip's."""
    from tests.generators.railway import railway_spec
    from validators.facts import not_my_named

    spec = railway_spec()
    person = next(p for p in spec.seed["passengers"] if p["passenger_id"] == 50)
    replay = Replay(results=[ToolResult(ok=True, output=person)], changes={})
    buy = one_write(
        "create_ticket", "INSERT INTO tickets (trip_id, passenger_id) VALUES (:trip_id , 50)"
    )

    def said(fact: str, trip: int | None) -> str:
        calls = [{"name": "find_passenger", "arguments": {"email": person["email"]}}]
        calls += [{"name": "create_ticket", "arguments": {"trip_id": trip}}] if trip else []
        task = mini_task(instruction="Please help me.", gold_calls=calls, known_facts=[fact])
        return not_my_named(task, spec, {"create_ticket": buy}, replay, SeedFacts.of(spec))

    assert said("My train's name is Coastal", 10) == ""  # the new ticket's trip's train
    assert said("My train's name is Valley", None) == ""  # their tickets' trips' train
    assert said("My train's name is Coastal", 11) == (
        'the user says "My train\'s name is Coastal"; none of their records is tied to the '
        "train 'Coastal'"
    )


def test_a_person_called_the_users_by_title_and_full_name_must_be_tied_to_them() -> None:
    """medicine on 6789a02 moved an appointment with Dr. Anna Lynch to Dr. Edward Spencer
    and said "Dr. Edward Spencer is my doctor": doctors hold a first and a last name, and
    the title hid the claim."""
    from tests.generators.railway import bed, col, fk
    from validators.facts import not_my_named

    patients = {"name": "patients", "columns": [col("patient_id", "integer"), col("email", "text")]}
    doctor_columns = [
        col("doctor_id", "integer"),
        col("first_name", "text"),
        col("last_name", "text"),
    ]
    visit_columns = [col(f"{k}_id", "integer") for k in ("appointment", "patient", "doctor")]
    schema = {
        "tables": [
            patients | {"primary_key": ["patient_id"]},
            {"name": "doctors", "columns": doctor_columns, "primary_key": ["doctor_id"]},
            {"name": "appointments", "columns": visit_columns, "primary_key": ["appointment_id"]}
            | {"foreign_keys": [fk("patient_id", "patients"), fk("doctor_id", "doctors")]},
        ]
    }
    me = {"patient_id": 1, "email": "c@x.com"}
    doctors = [
        {"doctor_id": 7, "first_name": "Anna", "last_name": "Lynch"},
        {"doctor_id": 8, "first_name": "Edward", "last_name": "Spencer"},
    ]
    visit = {"appointment_id": 5, "patient_id": 1, "doctor_id": 7}
    spec = bed("medicine", schema, {"patients": [me], "doctors": doctors, "appointments": [visit]})
    replay = Replay(results=[ToolResult(ok=True, output=me)], changes={})
    move = one_write(
        "move_appointment_to_doctor",
        "UPDATE appointments SET doctor_id = :new_doctor_id WHERE appointment_id = :appointment_id",
    )
    calls = [
        {"name": "find_patient", "arguments": {"email": "c@x.com"}},
        {
            "name": "move_appointment_to_doctor",
            "arguments": {"appointment_id": 5, "new_doctor_id": 8},
        },
    ]

    def said(fact: str) -> str:
        task = mini_task(instruction="Move my appointment.", gold_calls=calls, known_facts=[fact])
        return not_my_named(task, spec, {move.name: move}, replay, SeedFacts.of(spec))

    assert said("Dr. Edward Spencer is my doctor") == (
        "the user says 'Dr. Edward Spencer is my doctor'; none of their records is tied to the "
        "doctor 'Edward Spencer'"
    )
    assert said("Dr. Anna Lynch is my doctor") == ""
    # medicine on fe97d36: "My prescription's name is Classic Pillbox", the name of the
    # medication it moved to; appointments have no name, doctors do
    assert said("My appointment's name is Edward Spencer") == (
        'the user says "My appointment\'s name is Edward Spencer"; none of their records is '
        "tied to the doctor 'Edward Spencer'"
    )
    assert said("My appointment's name is Anna Lynch") == ""


def test_a_value_of_the_new_record_said_as_another_records_is_false_fact() -> None:
    """travel-intent-00057 on 00fbd03 cancelled a hotel booking and made a flight booking,
    and said "The check-out date for the hotel booking is 2025-03-04T20:00:38", the new
    flight booking's."""
    from tests.generators.railway import bed, col, fk
    from validators.facts import misattributed

    def bookings(kind: str) -> dict:
        columns = [col(f"{kind}_booking_id", "integer"), col("customer_id", "integer")]
        return {
            "name": f"{kind}_bookings",
            "columns": [*columns, col("check_out_date", "datetime")],
            "primary_key": [f"{kind}_booking_id"],
            "foreign_keys": [fk("customer_id", "customers")],
        }

    customers = {"name": "customers", "columns": [col("customer_id", "integer")]}
    schema = {
        "tables": [
            customers | {"primary_key": ["customer_id"]},
            *map(bookings, ("hotel", "flight")),
        ]
    }
    stay = {"hotel_booking_id": 5, "customer_id": 1, "check_out_date": "2025-07-09T10:00:00"}
    spec = bed("travel", schema, {"customers": [{"customer_id": 1}], "hotel_bookings": [stay]})
    cancel = one_write(
        "cancel_hotel_booking",
        "DELETE FROM hotel_bookings WHERE hotel_booking_id = :hotel_booking_id",
    )
    book = one_write(
        "create_flight_booking",
        "INSERT INTO flight_bookings (check_out_date) VALUES (:check_out_date)",
    )
    tools = {t.name: t for t in (cancel, book)}
    calls = [
        {"name": "list_hotel_bookings", "arguments": {"customer_id": 1}},
        {"name": "cancel_hotel_booking", "arguments": {"hotel_booking_id": 5}},
        {"name": "create_flight_booking", "arguments": {"check_out_date": "2025-03-04T20:00:38"}},
    ]
    outputs = [[stay], stay, {"flight_booking_id": 9}]
    replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})

    def said(fact: str) -> str:
        task = mini_task(
            instruction="Cancel my stay and book a flight.", gold_calls=calls, known_facts=[fact]
        )
        return misattributed(task, replay, tools, SeedFacts.of(spec))

    wrong = said("The check-out date for the hotel booking is 2025-03-04T20:00:38")
    assert "the new flight booking's; the hotel booking the gold acts on has 2025-07-09" in wrong
    # the new kind named too, the value still given as the other's (ecommerce-intent-00004
    # on 63628b9: "create a return for my order item whose quantity is 12")
    assert said("Book a flight for my hotel stay whose check-out date is 2025-03-04T20:00:38")
    assert said("Book a flight for my hotel that has a check-out date of 2025-03-04T20:00:38")
    for true in (
        "Book a flight for my hotel stay, its check-out date 2025-03-04T20:00:38",
        # weather-intent-00050 on 61a5427: "a new reading for New James Station with
        # temperature 2.11" is the new reading's
        "Book a flight for my hotel stay with the check-out date 2025-03-04T20:00:38",
        "Book a flight whose check-out date is 2025-03-04T20:00:38 for my hotel stay",
        "The check-out date for the flight booking is 2025-03-04T20:00:38",
        "My check-out date is 2025-03-04T20:00:38",
        "The check-out date for the hotel booking is 2025-07-09T10:00:00",
    ):
        assert said(true) == "", true


def test_a_value_of_the_new_record_said_of_a_kind_without_that_column_is_false_fact() -> None:
    """basketball-intent-00016 on 277c846 made a ticket at 50.33 for a game, and said "The
    price of the game is $50.33": games have no price, so no held value showed it false."""
    from tests.generators.railway import bed, col, fk
    from validators.facts import misattributed

    games = {"name": "games", "columns": [col("game_id", "integer"), col("day", "date")]}
    tickets = {
        "name": "tickets",
        "columns": [col("ticket_id", "integer"), col("game_id", "integer"), col("price", "real")],
        "primary_key": ["ticket_id"],
        "foreign_keys": [fk("game_id", "games")],
    }
    schema = {"tables": [games | {"primary_key": ["game_id"]}, tickets]}
    game = {"game_id": 4, "day": "2025-03-16"}
    spec = bed("basketball", schema, {"games": [game]})
    sell = one_write(
        "create_ticket", "INSERT INTO tickets (game_id, price) VALUES (:game_id, :price)"
    )
    calls = [
        {"name": "list_games", "arguments": {"day": "2025-03-16"}},
        {"name": "create_ticket", "arguments": {"game_id": 4, "price": 50.33}},
    ]
    outputs = [[game], {"ticket_id": 9}]
    replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})

    def said(fact: str) -> str:
        task = mini_task(
            instruction="Sell me a ticket for my game on March 16th at $50.33.",
            gold_calls=calls,
            known_facts=[fact],
        )
        return misattributed(task, replay, {"create_ticket": sell}, SeedFacts.of(spec))

    assert said("The price of the game is $50.33") == (
        "'The price of the game is $50.33' gives 50.33, the new ticket's price, as the "
        "game's; the game has no price"
    )
    assert said("The game's price is 50.33")
    # basketball-intent-00038 on fe80ced: "My game will cost 287.02", the ticket's price
    assert said("My game will cost 50.33") == (
        "'My game will cost 50.33' gives 50.33, the new ticket's price, as the game's; the "
        "game has no price"
    )
    for true in (
        "The price of the ticket is $50.33",
        "I want a ticket for the game at a price of 50.33",
        "My price is 50.33",
        "My ticket for the game will cost 50.33",
    ):
        assert said(true) == "", true


def test_a_day_of_the_new_record_said_of_another_records_field_is_false_fact() -> None:
    """medicine-intent-00038 on 0d74fa0 moved a prescription and booked an appointment, and
    said "The refills are currently available until April 8th at 20:45 and 23:00": the new
    appointment's times, said of the prescription's refills (it expires 2026-11-28)."""
    from tests.generators.railway import bed, col, fk
    from validators.facts import new_day_said_of_another

    patients = {"name": "patients", "columns": [col("patient_id", "integer")]}
    prescriptions = {
        "name": "prescriptions",
        "columns": [
            col("prescription_id", "integer"),
            col("patient_id", "integer"),
            col("refills_allowed", "integer"),
            col("expiry_date", "date"),
        ],
        "primary_key": ["prescription_id"],
        "foreign_keys": [fk("patient_id", "patients")],
    }
    appointments = {
        "name": "appointments",
        "columns": [
            col("appointment_id", "integer"),
            col("patient_id", "integer"),
            col("start_time", "datetime"),
        ],
        "primary_key": ["appointment_id"],
        "foreign_keys": [fk("patient_id", "patients")],
    }
    schema = {"tables": [patients | {"primary_key": ["patient_id"]}, prescriptions, appointments]}
    script = {
        "prescription_id": 5,
        "patient_id": 1,
        "refills_allowed": 80,
        "expiry_date": "2026-11-28",
    }
    spec = bed("medicine", schema, {"patients": [{"patient_id": 1}], "prescriptions": [script]})
    renew = one_write(
        "renew_prescription",
        "UPDATE prescriptions SET refills_allowed = 81 WHERE prescription_id = :prescription_id",
    )
    book = one_write(
        "create_appointment",
        "INSERT INTO appointments (patient_id, start_time) VALUES (:patient_id, :start_time)",
    )
    tools = {t.name: t for t in (renew, book)}
    calls = [
        {"name": "list_prescriptions", "arguments": {"patient_id": 1}},
        {"name": "renew_prescription", "arguments": {"prescription_id": 5}},
        {
            "name": "create_appointment",
            "arguments": {"patient_id": 1, "start_time": "2025-04-08T20:45:00"},
        },
    ]
    outputs = [[script], script, {"appointment_id": 9}]
    replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})

    def said(sentence: str) -> str:
        task = mini_task(
            instruction=f"Renew my prescription and book me an appointment. {sentence}",
            gold_calls=calls,
        )
        return new_day_said_of_another(task, replay, tools, SeedFacts.of(spec))

    wrong = said("The refills are currently available until April 8th at 20:45.")
    assert "gives 2025-04-08T20:45:00, the new appointment's start_time, of the prescription's" in (
        wrong
    )
    assert said("My refills run out on 2025-04-08.")
    for true in (
        "I'd like it on April 8th at 20:45.",  # no other record's field
        "The appointment should be on April 8th at 20:45, after my refills.",  # its kind
        "The start is April 8th at 20:45, once my refills are renewed.",  # its field
        "The refills are available until November 28th.",  # the prescription's own day
        "The refills are available until April 9th.",  # not the new record's day
    ):
        assert said(true) == "", true


def test_a_value_said_of_both_records_that_one_holds_is_false_fact() -> None:
    """travel-intent-00064 on dee4810 added bags to a flight booking and made a hotel
    booking, "specifying that the check-in date for both is 2025-02-13T15:00:40" (its fact:
    "My flight check-in date is 2025-02-28")."""
    from validators.facts import said_of_both

    book = one_write(
        "book_hotel", "INSERT INTO hotel_bookings (check_in) VALUES (:check_in) RETURNING *"
    )
    made = {"booking_id": 7, "check_in": "2025-02-13T15:00:40"}
    flight = {"flight_booking_id": 3, "check_in": "2025-02-28"}

    def said(text: str, flight_at: str) -> str:
        calls = [
            {"name": "list_flight_bookings", "arguments": {"customer_id": 1}},
            {"name": "book_hotel", "arguments": {"check_in": "2025-02-13T15:00:40"}},
        ]
        outputs = [[flight | {"check_in": flight_at}], made]
        replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})
        task = mini_task(instruction="Book me a hotel.", gold_calls=calls, known_facts=[text])
        return said_of_both(task, replay, {"book_hotel": book})

    fact = "The check-in date for both is 2025-02-13T15:00:40"
    assert said(fact, "2025-02-28") == (
        "the user says 'for both is 2025-02-13T15:00:40' of two records; only one record "
        "the gold reads or writes holds it"
    )
    assert said(fact, "2025-02-13T15:00:40") == ""  # the flight booking's is that day too
    assert said("The check-in date is 2025-02-13T15:00:40", "2025-02-28") == ""


def test_a_record_said_to_be_with_a_named_record_it_does_not_point_to_is_false_fact() -> None:
    """medicine-intent-00015 on 277c846: "I am scheduling an appointment with Dr. Melissa
    Wood ... I would like to create a prescription for this appointment", whose appointment
    was with another doctor. Here Ava's booking 500 is at the Harbor Inn."""
    from tests.generators.travel import travel_spec
    from validators.facts import tied_elsewhere

    spec = travel_spec()
    booking = spec.seed["hotel_bookings"][0]
    cancel = one_write(
        "cancel_booking", "UPDATE hotel_bookings SET status = 'x' WHERE booking_id = :booking_id"
    )
    move = one_write(
        "move_booking", "UPDATE hotel_bookings SET hotel_id = :new_hotel_id WHERE booking_id = 1"
    )
    tools = {t.name: t for t in (cancel, move)}

    def said(text: str, write: dict) -> str:
        calls = [{"name": "list_bookings", "arguments": {"customer_id": 1}}, write]
        outputs = [[booking], booking]
        replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})
        task = mini_task(instruction=text, gold_calls=calls)
        return tied_elsewhere(task, spec, replay, tools, SeedFacts.of(spec))

    cancelled = {"name": "cancel_booking", "arguments": {"booking_id": 500}}
    moved = {"name": "move_booking", "arguments": {"booking_id": 500, "new_hotel_id": 21}}
    assert said("Cancel my booking with Dune Lodge.", cancelled) == (
        "the user says 'booking with Dune Lodge'; the hotel booking the gold acts on is with "
        "another hotel"
    )
    assert said("Cancel my booking with Harbor Inn.", cancelled) == ""
    assert said("Move my booking so that it is with Dune Lodge.", moved) == ""
    # basketball-intent-00040 on 65cb0f1: "The ticket for Michael Wells is priced at $3606"
    assert said("The booking for Dune Lodge is from 2025-02-01. Cancel it.", cancelled) == (
        "the user says 'booking for Dune Lodge'; the hotel booking the gold acts on is with "
        "another hotel"
    )
    assert said("The booking for Harbor Inn is from 2025-02-01. Cancel it.", cancelled) == ""
    # restaurant-intent-00037 on 530f5cd: "move my reservation from House Table 5", which
    # was at Special Table 8; 00023: "My reservation is currently at Table 4"
    for where in ("Cancel my booking at the Dune Lodge.", "My booking is in dune lodge."):
        assert said(where, cancelled).endswith("is with another hotel"), where
    assert said("Cancel my booking at the Harbor Inn.", cancelled) == ""
    assert said("Move my booking from Harbor Inn to Dune Lodge.", moved) == ""
    # restaurant-intent-00063 on 0fd2081: "move my reservation from the dining table House
    # Table 1 to House Table 3", of a reservation at Deluxe Table 5
    assert said("Cancel my booking from the hotel Dune Lodge.", cancelled).endswith(
        "is with another hotel"
    )
    assert said("Cancel my booking at the seaside hotel Dune Lodge.", cancelled)
    assert said("Move my booking from the hotel Harbor Inn to the Dune Lodge.", moved) == ""
    # medicine-intent-00061 in runs/: "a prescription for my appointment, Edward Spencer on
    # 2024-08-06", an appointment with another doctor
    assert said("Cancel my booking, Dune Lodge on February 1.", cancelled).endswith(
        "is with another hotel"
    )
    assert said("Cancel my booking, Harbor Inn on February 1.", cancelled) == ""
    assert said("Cancel my booking, and Dune Lodge is nice.", cancelled) == ""


def test_a_number_said_of_the_one_record_the_gold_writes_that_it_does_not_hold() -> None:
    """restaurant-intent-00031 on 530f5cd moved a party of 6 and said "The current party size
    is 4", which another of the user's reservations held. Here Rosa's reservation 90 is for
    2 and 91, also read, for 5."""
    from tests.generators.restaurant import restaurant_spec
    from validators.facts import number_unlike_target

    spec = restaurant_spec()
    ninety, other = spec.seed["reservations"][0], spec.seed["reservations"][1]
    cancel = one_write(
        "cancel_reservation",
        "UPDATE reservations SET status = 'cancelled' WHERE reservation_id = :reservation_id",
    )
    resize = one_write(
        "set_party_size",
        "UPDATE reservations SET party_size = :party_size WHERE reservation_id = :reservation_id",
    )
    move = one_write(
        "move_reservation",
        "UPDATE reservations SET table_id = :new_table_id WHERE reservation_id = :reservation_id",
    )
    tools = {t.name: t for t in (cancel, resize, move)}

    def said(text: str, *writes: dict) -> str:
        calls = [{"name": "list_reservations", "arguments": {"customer_id": 1}}, *writes]
        outputs = [[ninety, other | {"party_size": 5}], *({} for _ in writes)]
        replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})
        task = mini_task(instruction=text, gold_calls=calls)
        return number_unlike_target(task, replay, tools, SeedFacts.of(spec))

    cancelled = {"name": "cancel_reservation", "arguments": {"reservation_id": 90}}
    assert said("Cancel my reservation. The current party size is 5.", cancelled) == (
        "the user says 'party size is 5'; the reservation the gold acts on has party_size 2"
    )
    # 00017: "move my reservation from the dining table with 4 people", of 6
    assert said("Cancel my reservation with 5 people.", cancelled) == (
        "the user says '5 people'; the reservation the gold acts on has party_size 2"
    )
    for true in (
        "Cancel my reservation. The party size is 2.",
        "Cancel my reservation for 2 guests.",
        "Cancel my reservation on 2025-01-20 at table 5.",  # no count of the reservation's
        "Cancel my reservation and book a new one for 5 people.",  # where one goes
    ):
        assert said(true, cancelled) == "", true
    # the number the user gives a write is what they ask for
    resized = {"name": "set_party_size", "arguments": {"reservation_id": 90, "party_size": 5}}
    assert said("Change my party size to 5 people.", resized) == ""
    assert said("My party size is 5 now; please update it.", resized) == ""
    # two reservations the gold writes: "for 5 people" may be the other's
    other_cancelled = {"name": "cancel_reservation", "arguments": {"reservation_id": 91}}
    assert said("Cancel both: for 2 people and for 5 people.", cancelled, other_cancelled) == ""


def test_one_thing_said_of_a_write_that_counts_more_is_false_fact() -> None:
    """movie-intent-00006 on 71aacdf: "I want to book a seat for myself on Pulp Fiction 3",
    whose gold booked 3 seats. A measure is no count: "a party of 7", "a severity of 5"."""
    from validators.facts import one_said_of_many

    book = one_write("book", "INSERT INTO bookings (seat_count) VALUES (:seat_count)")
    party = one_write("reserve", "INSERT INTO reservations (party_size) VALUES (:party_size)")
    tools = {"book": book, "reserve": party}

    def said(text: str, call: str, param: str, value: int) -> str:
        task = mini_task(instruction=text, gold_calls=[{"name": call, "arguments": {param: value}}])
        return one_said_of_many(task, tools)

    assert said("I want to book a seat for Pulp Fiction 3.", "book", "seat_count", 3) == (
        "the user says 'a seat'; the gold's seat_count is 3"
    )
    for true in ("Book 3 seats for Pulp Fiction.", "Book with a seat count of 3, please."):
        assert said(true, "book", "seat_count", 3) == "", true
    assert said("I want to book a seat for Pulp Fiction 3.", "book", "seat_count", 1) == ""
    assert said("A table for a party of 7, please.", "reserve", "party_size", 7) == ""


def _school(first: str) -> EnvironmentSpec:
    """School as run: teachers teach courses, students enroll in them; `first` lists first
    (people ask from the first table of a tie)."""
    from generators.toolkit import schema_tools
    from tests.generators.railway import col, fk

    def table(name: str, columns: list[str], refs: list[str]) -> dict:
        key = f"{name[:-1]}_id"
        return {
            "name": name,
            "columns": [col(key, "integer"), *(col(c, "text") for c in columns)]
            + [col(f"{r[:-1]}_id", "integer") for r in refs],
            "primary_key": [key],
            "foreign_keys": [fk(f"{r[:-1]}_id", r) for r in refs],
        }

    tables = [
        table("teachers", ["name", "email"], []),
        table("students", ["name", "email"], []),
        table("courses", ["name"], ["teachers"]),
        table("enrollments", ["status"], ["students", "courses"]),
        table("grades", ["score"], ["enrollments"]),
    ]
    tables.sort(key=lambda t: t["name"] != first)
    schema = Schema.model_validate({"tables": tables})
    return EnvironmentSpec(name="school", schema_=schema, seed={}, tools=schema_tools(schema))


def test_a_kind_of_record_of_other_people_is_not_the_users(
    banking_spec: EnvironmentSpec,
) -> None:
    """School's teachers ask (`Schema.people`, the first of a tie): its 1.5B wrote "Can you
    please activate my enrollment on the New Melissaberg Course", an enrollment of a student
    in the teacher's course (school-intent-00000 on a280d7e)."""
    from validators.facts import someone_elses

    seed = SeedFacts.of(_school("teachers"))
    assert seed.people == "teachers"
    assert seed.held_by == {"enrollments": "students", "grades": "students"}
    said = "Can you please activate my enrollment on the New Melissaberg Course?"
    assert someone_elses(said, seed) == (
        "the user calls an enrollment theirs ('my enrollment'); an enrollment is a "
        "student's, and the user is a teacher"
    )
    assert someone_elses("Record my grade of 87 for the course.", seed)
    assert someone_elses("Please drop my active enrollment in Biology.", seed)  # word 2
    for kept in [
        "Please activate the enrollment of Pamela Dominguez in my course Biology.",
        "Please record a score of 87 on my student's grade.",
        "My email is katherine@hotmail.com and my course is Biology.",
    ]:
        assert someone_elses(kept, seed) == "", kept
    # a student's "my course" is one they take: a course reaches no student
    students = SeedFacts.of(_school("students"))
    assert students.people == "students" and students.held_by == {}
    assert SeedFacts.of(banking_spec).held_by == {}


def test_a_temperature_in_a_scale_no_column_is_described_in_is_false_fact() -> None:
    """weather-intent-00132 on 182938e asked for a reading of "19.9 degrees Fahrenheit";
    the gold stored 19.9 in a temperature column described as "The temperature at the
    station.", whose seed runs from -20 to 40."""
    from validators.facts import unheld_scale

    def schema(description: str) -> Schema:
        column = {"name": "temperature", "type": "real", "description": description}
        key = {"name": "reading_id", "type": "integer"}
        table = {"name": "readings", "columns": [key, column], "primary_key": ["reading_id"]}
        return Schema.model_validate({"tables": [table]})

    unscaled, celsius = schema("The temperature at the station."), schema("In degrees Celsius.")
    asked = "Please record a reading of 19.9 degrees Fahrenheit at my station."
    task = mini_task(instruction=asked)
    said = unheld_scale(task, unscaled)
    assert said == (
        "the user says '19.9 degrees Fahrenheit', a scale no column of the schema is described in"
    )
    assert unheld_scale(task, celsius) != ""
    for fine in ("Please record a reading of 19.9 degrees Celsius.", "It reads 19.9 °C."):
        assert unheld_scale(mini_task(instruction=fine), celsius) == "", fine
        assert unheld_scale(mini_task(instruction=fine), unscaled) != "", fine
    plain = mini_task(instruction="Please record a reading of 19.9 degrees at my station.")
    assert unheld_scale(plain, unscaled) == ""
    in_a_fact = mini_task(instruction="Record a reading.", known_facts=["It was 67 °F."])
    assert "67 °F" in unheld_scale(in_a_fact, celsius)
    # a scale a column's name or an abbreviation gives is held; no temperature column, no check
    key = {"name": "reading_id", "type": "integer"}
    named = Schema.model_validate(
        {"tables": [{"name": "readings", "primary_key": ["reading_id"],
                     "columns": [key, {"name": "temperature_f", "type": "real"}]}]}
    )  # fmt: skip
    assert unheld_scale(task, named) == ""
    assert unheld_scale(task, schema("Temperature in deg F.")) == ""
    fridge = mini_task(instruction="I keep my insulin at 4 degrees Celsius; please refill it.")
    drugs = Schema.model_validate(
        {"tables": [{"name": "prescriptions", "primary_key": ["reading_id"], "columns": [key]}]}
    )
    assert unheld_scale(fridge, drugs) == ""


def test_a_state_put_before_a_record_the_gold_goes_through_must_be_its_own() -> None:
    """school-intent-00067 on 49ac475: "deactivate the grade status of the active
    enrollment on Port Jon Course", whose gold listed the course's enrollments and passed
    the dropped one's id on to list its grade, then deactivated that grade."""
    from validators.facts import state_before_kind

    seed = SeedFacts(
        states={
            "enrollments": {
                "status": frozenset({"active", "dropped"}),
                "payment": frozenset({"pending", "paid"}),
            },
            "grades": {"status": frozenset({"active", "inactive"})},
        },
        columns={
            "enrollments": ("enrollment_id", "course_id", "status", "payment"),
            "grades": ("grade_id", "enrollment_id", "status"),
            "enrollment_fees": ("fee_id", "enrollment_id", "status"),
        },
        primary={"enrollments": ("enrollment_id",), "grades": ("grade_id",)},
    )
    sql = "UPDATE grades SET status = 'inactive' WHERE grade_id = :grade_id"
    listed = "SELECT * FROM enrollments WHERE course_id = :course_id"
    graded = "SELECT * FROM grades WHERE enrollment_id = :enrollment_id"
    tools = {
        "list_enrollments": Tool(name="list_enrollments", description="List.", kind="read",
                                 returns=listed),
        "list_grades": Tool(name="list_grades", description="List.", kind="read", returns=graded),
        "deactivate_grade": Tool(name="deactivate_grade", description="Off.", kind="write",
                                 run=[sql]),
    }  # fmt: skip
    enrollments = [
        {"enrollment_id": 40445, "course_id": 34821, "status": "dropped", "payment": "pending"},
        {"enrollment_id": 40467, "course_id": 34821, "status": "active", "payment": "paid"},
    ]
    grade = {"grade_id": 54102, "enrollment_id": 40445, "status": "active"}
    calls = [
        {"name": "list_enrollments", "arguments": {"course_id": 34821}},
        {"name": "list_grades", "arguments": {"enrollment_id": 40445}},
        {"name": "deactivate_grade", "arguments": {"grade_id": 54102}},
    ]
    read = Replay(
        results=[
            ToolResult(ok=True, output=enrollments),
            ToolResult(ok=True, output=[grade]),
            ToolResult(ok=True, output=[]),
        ],
        changes={},
    )

    def said(ask: str) -> str:
        return state_before_kind(mini_task(instruction=ask, gold_calls=calls), read, tools, seed)

    assert said("Please deactivate the grade of the active enrollment on Port Jon Course.") == (
        "'Please deactivate the grade of the active enrollment on Port Jon Course.' says "
        "'the active enrollment', but the enrollment the gold goes through is dropped (status)"
    )
    assert said("Please deactivate the grade of my dropped enrollment.") == ""
    # a state another of its columns holds, and a kind named with the next word, are no
    # such claim (from the review of 369ec82..5318624)
    assert said("Please deactivate the grade of my pending enrollment.") == ""
    assert said("Please deactivate the grade tied to my active enrollment fee.") == ""
    assert said("Please deactivate the grade of my paid enrollment.") != ""
    # the grade the write acts on is active; the state the write sets is no claim
    assert said("Please deactivate my active grade.") == ""
    assert said("I want the inactive grade for my dropped enrollment.") == ""
    # an enrollment the gold reads but goes no further with is not the one it goes through
    read_only = [*calls[:1], {"name": "list_grades", "arguments": {"enrollment_id": 40467}}]
    task = mini_task(instruction="Show the grade of the active enrollment.", gold_calls=read_only)
    assert state_before_kind(task, read, tools, seed) == ""


def test_a_value_said_for_an_argument_named_by_its_phrase_is_no_claim_on_a_field() -> None:
    """ "The amount for the refund is 20." beside an argument `refund_amount` of 20 asks for
    it; a read row's `amount` of 100 is another value (from the review of 369ec82..5318624:
    reading "for" as "of" made it false_fact)."""
    from validators.facts import _misstated

    read = Replay(
        results=[ToolResult(ok=True, output=[{"order_id": 3, "amount": 100}])], changes={}
    )
    assert _misstated("The amount for the refund is 20.", read, {("refund_amount", 20.0)}) == ""
    said = _misstated("The amount for my order is 20.", read, {("refund_amount", 20.0)})
    assert (
        said
        == "the user states 'amount for my order is 20'; the records the gold reads hold amount 100"
    )


def test_a_field_said_with_its_records_kind_is_read_in_records_of_that_kind() -> None:
    """ecommerce-intent-00044 on 6c5d348 asked to "topup 1 to the open return quantity of
    34": 34 was its order item's quantity, the return's was 31."""
    from validators.facts import _misstated

    seed = SeedFacts(
        columns={
            "order_items": ("order_item_id", "order_id", "quantity"),
            "returns": ("return_id", "order_item_id", "quantity"),
        },
        primary={"order_items": ("order_item_id",), "returns": ("return_id",)},
    )
    item = {"order_item_id": 43104, "order_id": 35842, "quantity": 34}
    back = {"return_id": 54590, "order_item_id": 43104, "quantity": 31}
    rows = [ToolResult(ok=True, output=[item]), ToolResult(ok=True, output=[back])]
    read = Replay(results=rows, changes={})
    said = "Please topup 1 to the open return quantity of 34 in my order."
    assert _misstated(said, read, set(), seed) == (
        "the user states 'quantity of 34'; the return records the gold reads hold quantity 31"
    )
    assert _misstated(said, read, set()) == ""  # without the kinds, any row's quantity
    for true in ("The order item quantity 34.", "Please topup 1 to the return quantity of 31."):
        assert _misstated(true, read, set(), seed) == "", true


def test_the_value_a_write_sets_said_as_what_the_record_holds_is_false(
    banking_spec: EnvironmentSpec,
) -> None:
    """ecommerce-intent-00048 on 6c5d348 knew "The current shipping address is 17530 Mary
    Lane Apt. 956" and asked for that same address as the new one, of an order with none.
    "Change my address" names the street, city and postal code it sets (the intent stage
    read no client in it before)."""
    move = {
        "name": "update_client_address",
        "arguments": {
            "client_id": "C1001",
            "street": "40 Elm Road",
            "city": "Portland",
            "postal_code": "97201",
        },
    }
    ask = "Please change my address to 40 Elm Road, Portland 97201."
    for said in ("My current street is 40 Elm Road.", "My street is currently 40 Elm Road."):
        stage, reason, detail = bank_verdict(banking_spec, f"{said} {ask}", gold_calls=[move])
        assert (stage, reason) == ("facts", "false_fact"), said
        assert detail == (
            f"{said!r} says the record holds '40 Elm Road' now, the value gold call 1 "
            "(update_client_address) sets"
        )
    all_kept(
        banking_spec,
        (
            ask,
            "I currently live at 12 Harbor Street. " + ask,
            "Please change my current address to 40 Elm Road, Portland 97201.",
        ),
        gold_calls=[move],
    )


def test_a_state_a_status_write_starts_from_that_the_record_is_not_in_is_false(
    banking_spec: EnvironmentSpec,
) -> None:
    """ecommerce-intent-00047 on 6c5d348, "I need to update my status from suspended for my
    own profile", of an active customer the gold then suspended."""
    freeze = FREEZE
    told = [{"call": 0, "path": "status"}]
    ask = "Please freeze my card K30001 from blocked, and tell me its status."
    stage, reason, detail = bank_verdict(banking_spec, ask, gold_calls=[freeze], communicate=told)
    assert (stage, reason, detail) == (
        "facts",
        "false_fact",
        "the user says their card goes 'from blocked'; it is active",
    )
    all_kept(
        banking_spec,
        (
            "Please freeze my card K30001 from active status, and tell me its status.",
            "Please freeze my card K30001 and tell me its status.",
        ),
        gold_calls=[freeze],
        communicate=told,
    )


def test_the_record_a_move_goes_to_said_as_where_it_is_now_is_false() -> None:
    """travel-intent-00013 on 0651c04 said "I have a hotel booking on 2025-02-05 at the
    Martin LLC" and moved that booking, at Meyer Inc, to the Martin LLC it had found by
    name: the name a write's destination was found by is a value the write sets."""
    from validators.facts import new_as_current

    base: dict[str, object] = {"description": "d", "parameters": {"type": "object"}}
    find = Tool.model_validate(
        base | {"name": "find_hotel_by_name", "kind": "read", "returns": "SELECT 1"}
    )
    move = Tool.model_validate(
        base
        | {
            "name": "move_hotel_booking",
            "kind": "write",
            "run": ["UPDATE hotel_bookings SET hotel_id = :new_hotel_id WHERE id = :id"],
        }
    )
    calls = [
        {"name": "find_hotel_by_name", "arguments": {"name": "Martin LLC"}},
        {"name": "move_hotel_booking", "arguments": {"id": 59064, "new_hotel_id": 38574}},
    ]
    hotel = {"hotel_id": 38574, "name": "Martin LLC"}
    moved = {"hotel_booking_id": 59064, "hotel_id": 38574}
    read = Replay(
        results=[ToolResult(ok=True, output=[hotel]), ToolResult(ok=True, output=moved)],
        changes={},
    )
    tools = {t.name: t for t in (find, move)}

    def said(instruction: str) -> str:
        task = mini_task(instruction=instruction, gold_calls=calls, communicate=[])
        return new_as_current(task, read, tools, SeedFacts())

    assert said("I have a hotel booking on 2025-02-05 at the Martin LLC. Move it there.") == (
        "'I have a hotel booking on 2025-02-05 at the Martin LLC.' says the record holds "
        "'Martin LLC' now, the value gold call 1 (move_hotel_booking) sets"
    )
    for kept in (
        "I have a hotel booking on 2025-02-05. Please move it to the Martin LLC.",
        "I have a hotel booking on 2025-02-05 and the new hotel is Martin LLC.",
    ):
        assert said(kept) == "", kept


def test_a_record_said_to_have_begun_on_a_day_to_come_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00029 on 31bc8d2 knew "The game starting on February 19th has
    already started" under a clock of 2025-01-15 (its game of 2025-02-19, scheduled). A day
    without its year is read off the records the gold reads: card K30001 expires on
    2027-08-31, and issued on 2023-08-15."""
    from validators.facts import not_begun

    clock = "2025-01-15T10:00:00"
    card = {"card_id": "K30001", "expires_on": "2027-08-31", "issued_on": "2023-08-15"}
    read = Replay(results=[ToolResult(ok=True, output=card)], changes={})

    def said(fact: str) -> str:
        return not_begun(mini_task(known_facts=[fact]), clock, read)

    assert said("My card that ends on August 31st has already ended.") == (
        "the user says 'My card that ends on August 31st has already ended.', but it is on a "
        "day after today, 2025-01-15"
    )
    assert said("My booking of 2025-02-19 has already begun.") != ""
    # basketball-intent-00063 on 0d74fa0, of its game of 2025-01-25
    assert said("I want a refund for a game that started on January 25, 2025.") != ""
    for true in (
        "My card issued on August 15th has already begun.",  # 2023: behind
        "My booking of 2024-12-19 has already begun.",
        "My booking on March 3rd has already started.",  # no year, no record of that day
        "My card that ends on August 31st is still valid.",
        "I want a refund for a game that started on January 5, 2025.",
        "I want a refund for a game that starts on January 25, 2025.",
    ):
        assert said(true) == "", true


def test_a_record_said_to_have_none_of_what_it_holds_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00040 on 31bc8d2 knew "My game starting on 2025-05-28 does not
    have an active ticket", and game 41348 held active ticket 57898. Maria's account
    A20001 (opened 2016-04-11) holds card K30001, active."""
    account = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
    ask = "Please freeze card K30001 and tell me its status."
    told = [{"call": 1, "path": "status"}]

    def verdict(fact: str) -> tuple[str, str, str]:
        facts = [*MARIA["known_facts"], fact]
        return bank_verdict(
            banking_spec, ask, gold_calls=[account, freeze], communicate=told, known_facts=facts
        )

    stage, reason, detail = verdict("My account opened on 2016-04-11 does not have an active card.")
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert "of account A20001, which holds card K30001" in detail, detail
    assert verdict("My account A20001 has no cards.")[:2] == ("facts", "false_fact")
    for true in (
        "My account opened on 2016-04-11 does not have a blocked card.",  # none blocked
        "My account opened on 2016-04-11 does not have an extra card.",  # no such state
        "I do not have a savings goal.",  # no record of it
    ):
        assert verdict(true) == ACCEPTED, true


def test_a_day_said_of_one_kind_that_another_kind_holds_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """Ecommerce-intent-00094 on 8d65db4: "The item was created on June 7, 2022", the day
    its order was created (the item's is 2022-07-07); 00102 and 00120 said the same of
    "the order item". The kind named nearest before the day's word is the one it is of."""
    reads = [
        {"name": "list_accounts", "arguments": {"client_id": "C1001"}},
        {"name": "list_cards", "arguments": {"client_id": "C1001"}},
    ]
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
    told = [{"call": 2, "path": "status"}, {"call": 0, "path": "0.balance"}]
    ask = "Please freeze my card and tell me its status and my checking balance."

    def verdict(fact: str) -> tuple[str, str, str]:
        facts = [*MARIA["known_facts"], fact]
        return bank_verdict(
            banking_spec, ask, gold_calls=[*reads, freeze], communicate=told, known_facts=facts
        )

    stage, reason, detail = verdict("My card was issued on April 11, 2016.")
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert detail.startswith(  # Maria joined the bank the day she opened her account
        "the user says 'My card was issued on April 11, 2016.': no card the gold reads has "
        "that issued_on; it is the client's joined_on"
    )
    for kept in (
        "My card was issued on 2023-08-15.",  # the card's own day
        "My card is on my account opened on 2016-04-11.",  # the account's, said as its
    ):
        assert verdict(kept) == ACCEPTED, kept


def test_what_the_user_did_on_a_day_after_today_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """Travel-intent-00058 on d7b1bec: "my hotel booking that I booked on April 22, 2025",
    under a 2025-01-15 clock: the booking's check-in day, a day the gold reads (the bank's
    clock is 2025-03-14)."""
    reads = [{"name": "list_cards", "arguments": {"client_id": "C1001"}}]
    told = [{"call": 0, "path": "0.status"}]

    def verdict(said: str) -> tuple[str, str, str]:
        ask = "What is the status of my card?"
        facts = [*MARIA["known_facts"], f"My card is the one {said}."]
        return bank_verdict(
            banking_spec, ask, gold_calls=reads, communicate=told, known_facts=facts
        )

    stage, reason, detail = verdict("I ordered on August 31, 2027")  # it expires then
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert detail == (
        "the user says they did it on 2027-08-31 ('I ordered on'), a day after today, 2025-03-14"
    )
    assert verdict("I ordered on August 15, 2023") == ACCEPTED  # issued then


def test_a_thing_said_bought_that_none_of_the_users_rows_is_of_is_false_fact() -> None:
    """ecommerce-intent-00145 on 351e25e: "I want to create an order item for the TV I
    ordered", whose orders hold no TV (it knew "The TV is currently delivered")."""
    from tests.generators.ecommerce import ecommerce_spec
    from validators.facts import not_bought

    spec = ecommerce_spec()
    seed = dict(spec.seed)
    seed["products"] = [*seed["products"], {"product_id": 12, "name": "Kettle", "stock": 5}]
    spec = spec.model_copy(update={"seed": seed})
    ivy = seed["customers"][0]
    replay = Replay(results=[ToolResult(ok=True, output=[ivy])], changes={})

    def said(text: str) -> str:
        task = mini_task(instruction=text, known_facts=["My email is ivy@example.com"])
        return not_bought(task, spec, replay, SeedFacts.of(spec))

    assert said("Please add one more of the Kettle I ordered.") == (
        "the user says 'the Kettle I ordered', but no order item of theirs is of the product Kettle"
    )
    assert said("I bought a Kettle, and I want another.").startswith("the user says")
    assert said("Please add one more of the Lamp I ordered.") == ""  # order item 400
    assert said("I bought a Kettle somewhere else; add one to my order.") == ""  # not said whole


def test_another_kinds_state_put_before_a_kind_that_never_takes_it_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00403 on d43fe63: "set the status of my inactive card on my account to
    reported_stolen", of an active card on an inactive account: cards are never inactive."""
    cards = {"name": "list_cards", "arguments": {"client_id": "C1001"}}
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
    told = [{"call": 1, "path": "status"}]

    def verdict(ask: str) -> tuple[str, str, str]:
        return bank_verdict(banking_spec, ask, gold_calls=[cards, freeze], communicate=told)

    stage, reason, detail = verdict("Please freeze my closed card and tell me its status.")
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert "says 'my closed card', but the card the gold goes through is active" in detail
    assert verdict("Please freeze my active card and tell me its status.") == ACCEPTED


def _one_table(name: str, kind: str, rows: list[dict]) -> EnvironmentSpec:
    """An environment of one table of `rows` (every column of type `kind`, the first one its
    key) and a read of it all: the smallest seed a facts check reads."""
    columns = [{"name": c, "type": kind} for c in rows[0]]
    table = {"name": name, "columns": columns, "primary_key": [next(iter(rows[0]))]}
    read = {
        "name": f"get_{name}",
        "description": f"The {name}.",
        "kind": "read",
        "parameters": {"type": "object", "properties": {}},
        "returns": f"SELECT * FROM {name}",
    }
    return EnvironmentSpec.model_validate(
        {"name": "t", "schema": {"tables": [table]}, "seed": {name: rows}, "tools": [read]}
    )


def test_a_field_said_with_its_records_kind_is_that_records_unless_a_write_makes_it() -> None:
    """finance-intent-00466 on 2a7fb38 knew "The loan amount is $11,283.2", the amount it
    repaid, of a loan of 7993.59: the argument `amount` excused it. A field said with its
    record's kind is the record's, unless a gold write makes such a record ("The loan
    amount is $2,156.83" of a new loan) or sets that field."""
    from toolscale.environment import Replay
    from toolscale.tool import ToolResult
    from validators.facts import SeedFacts, _misstated

    loan = {"loan_id": 58908, "amount": 7993.59, "outstanding_balance": 0.0}
    seed = SeedFacts.of(_one_table("loans", "real", [loan]))
    read = Replay(results=[ToolResult(ok=True, output=[loan])], changes={})
    given = {("amount", 11283.2)}
    said = "The loan amount is $11,283.2."
    repaid: set[tuple[str, str | None]] = {("loans", "outstanding_balance")}
    assert "the loan records the gold reads hold amount 7993.59" in _misstated(
        said, read, given, seed, repaid
    )
    assert _misstated(said, read, given, seed, {("loans", None)}) == ""  # a new loan's
    assert _misstated(said, read, given, seed, {("loans", "amount")}) == ""  # set by a write
    assert _misstated(said, read, given, seed) == ""  # the tools unknown: as before
    assert _misstated("My amount is $11,283.2.", read, given, seed, repaid) == ""


def test_a_kind_called_by_a_number_its_record_holds_none_of_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00254 on f61cf75 repaid "my outstanding loan", a repaid loan owing 0,
    while the user's other loan owed 7179.92. Tom Becker's L4004 is paid off (outstanding
    0); Maria Lopez's L4001 owes 8400."""
    tom = "tom.becker@example.com"
    list_toms = {"name": "list_loans", "arguments": {"client_id": "C1004"}}
    toms = {"client_id": "C1004", "loan_id": "L4004", "from_account_id": "A20008", "amount": 100}
    refused = {"name": "make_loan_payment", "arguments": toms}
    refused["expect_error"] = "the loan is already paid off"
    owes = [{"call": 0, "path": "0.outstanding"}]

    def verdict(ask: str) -> tuple[str, str, str]:
        calls = [list_toms, refused]
        return bank_verdict(banking_spec, ask, email=tom, gold_calls=calls, communicate=owes)

    ask = "Please pay 100 from my account A20008 toward my {} L4004 and tell me what it still owes."
    stage, reason, detail = verdict(ask.format("outstanding loan"))
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert "says 'my outstanding loan', but the loan the gold goes through holds outstanding 0" in (
        detail
    )
    assert verdict(ask.format("loan")) == ACCEPTED
    marias = {"client_id": "C1001", "loan_id": "L4001", "from_account_id": "A20001", "amount": 100}
    calls = [
        {"name": "list_loans", "arguments": {"client_id": "C1001"}},
        {"name": "make_loan_payment", "arguments": marias},
    ]
    maria = ask.replace("A20008", "A20001").replace("L4004", "L4001").format("outstanding loan")
    told = [{"call": 1, "path": "outstanding"}]
    assert bank_verdict(banking_spec, maria, gold_calls=calls, communicate=told) == ACCEPTED


def test_a_known_fact_giving_a_record_two_states_of_one_column_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00654 on f61cf75 froze an active card and knew "My active card is
    frozen": the state a write sets was excused as asked, but the fact says both at once.
    Two columns that can hold one each ("my pending order is shipped", its payment
    pending) are no contradiction."""
    from validators.facts import two_states

    cards = {"name": "list_cards", "arguments": {"client_id": "C1001"}}
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}

    def verdict(fact: str) -> tuple[str, str, str]:
        return bank_verdict(
            banking_spec,
            "Please freeze my active card and tell me its status.",
            gold_calls=[cards, freeze],
            communicate=[{"call": 1, "path": "status"}],
            known_facts=[*MARIA["known_facts"], fact],
        )

    for fact in ("My active card is frozen.", "My active card is now frozen"):
        stage, reason, detail = verdict(fact)
        assert (stage, reason) == ("facts", "false_fact"), detail
        assert "gives the card two states of one column: active and frozen" in detail
    for fact in (
        "My card is active.",
        "My active card is K30001.",
        "My active card is not frozen.",
    ):
        assert verdict(fact) == ACCEPTED, fact

    rows = [
        {"order_id": "O1", "status": "pending", "payment_status": "pending"},
        {"order_id": "O2", "status": "shipped", "payment_status": "paid"},
        {"order_id": "O3", "status": "delivered", "payment_status": "paid"},
    ]
    seed = SeedFacts.of(_one_table("orders", "text", rows))

    def said(fact: str) -> str:
        return two_states(mini_task(known_facts=[fact]), seed)

    assert "two states of one column: shipped and delivered" in said(
        "My shipped order is delivered."
    )
    assert said("My pending order is shipped.") == ""  # its payment is pending
    assert said("My shipped order is pending.") == ""
    assert said("My order is shipped.") == ""


def test_a_field_said_to_be_what_the_user_wants_to_pay_must_hold_it(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00425 on f61cf75 knew "The outstanding balance of my loan is the
    balance I want to repay": the loan owed 2198.33, the user repaid 256.85. What the user
    wants to pay is the number the gold's write of that verb passes. "The amount I need to
    pay" is what is owed, so it is left alone."""
    from validators.facts import wanted

    def verdict(amount: float, account: str, fact: str) -> tuple[str, str, str]:
        arguments = {"client_id": "C1001", "loan_id": "L4001", "from_account_id": account}
        calls = [
            {"name": "list_loans", "arguments": {"client_id": "C1001"}},
            {"name": "make_loan_payment", "arguments": arguments | {"amount": amount}},
        ]
        return bank_verdict(
            banking_spec,
            f"Please pay {amount} from my account {account} toward my loan L4001 and tell me "
            "its status.",
            gold_calls=calls,
            communicate=[{"call": 1, "path": "status"}],
            known_facts=[*MARIA["known_facts"], f"The amount I want to pay is {amount}.", fact],
        )

    want = "The outstanding on my loan is the amount I want to pay."
    stage, reason, detail = verdict(100, "A20001", want)
    assert (stage, reason) == ("facts", "false_fact"), detail
    assert "states 'outstanding on my loan is 100'; the records the gold reads" in detail
    assert verdict(8400, "A20002", want) == ACCEPTED  # it does pay the whole
    assert verdict(100, "A20001", want.replace("want", "need")) == ACCEPTED

    tools = {t.name: t for t in banking_spec.tools}
    pays = {"name": "make_loan_payment", "arguments": {"loan_id": "L4001", "amount": 100}}
    task = mini_task(gold_calls=[pays])
    assert wanted("It is the sum I'd like to pay.", task, tools) == (
        "It is 100 (the sum I'd like to pay)."
    )
    assert wanted("It is the sum I'd like to transfer.", task, tools) == (
        "It is the sum I'd like to transfer."  # no gold write transfers
    )


def test_a_state_no_record_of_its_kind_is_ever_in_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00043 in runs/ knew "My game on June 23 is active": its games are
    scheduled, postponed or completed (the ticket it moved was active), and the game was no
    write's target, so the target's check never read it. A loan is never frozen here."""
    for line in ("My loan is frozen.", "My loan from last year is currently blocked."):
        facts = [*MARIA["known_facts"], line]
        stage, reason, detail = bank_verdict(
            banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
        )
        assert (stage, reason) == ("facts", "false_fact"), line
        assert "which no loan is" in detail
    for line in (
        "My loan is not frozen.",  # no claim
        "My card for the loan payments is frozen.",  # the card's state, not the loan's
        "My loan is active.",  # a state loans take
    ):
        facts = [*MARIA["known_facts"], line]
        verdict = bank_verdict(
            banking_spec, ASK, gold_calls=[LOAN], communicate=TOLD, known_facts=facts
        )
        assert verdict == ACCEPTED, (line, verdict)


def test_a_known_fact_saying_the_change_was_made_is_false_fact(
    banking_spec: EnvironmentSpec,
) -> None:
    """medicine-intent-00042 in runs/ knew "My appointment for 2024-03-25 has been moved to a
    different doctor" and asked to move it: the appointment never moved. What the user did
    themselves, or another change, is no such claim."""
    for line in (
        "The $25 has been transferred to my savings account.",
        "My money was already transferred.",
    ):
        stage, reason, detail = saving_verdict(banking_spec, [*MARIA["known_facts"], line])
        assert (stage, reason) == ("facts", "false_fact"), line
        assert "says it has been transferred: the change the gold makes" in detail
    for line in (
        "My savings account has been opened by my bank.",  # no change the gold makes
        "My rent has not been transferred yet.",  # no claim
        # restaurant-intent-00051 in runs/
        "I have not yet received any confirmation that it has been transferred.",
    ):
        verdict = saving_verdict(banking_spec, [*MARIA["known_facts"], line])
        assert verdict == ACCEPTED, (line, verdict)
