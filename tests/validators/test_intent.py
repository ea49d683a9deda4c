"""Stage `intent`: every write is asked for, every value told was asked for, and every
question asked is answered. The cases are the ones issue 8 found in a real run, moved onto
the banking environment."""

from __future__ import annotations

from typing import Any

from tests.conftest import mini_task, write_tool
from tests.generators.flights import flights_spec
from tests.validators.verdicts import (
    ACCEPTED,
    MARIA,
    MARIA_EMAIL,
    MOVE,
    all_kept,
    bank_verdict,
    saving_verdict,
    transfer,
)
from toolscale.environment import Replay
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool, ToolResult
from toolscale.wording import Request
from validators.facts import SeedFacts
from validators.intent import (
    _amount_as_column,
    _asks_state,
    _count_as_label,
    _ids_told_unnamed,
    _names_a_record,
    _outputs_of,
    from_the_destination,
    other_kind_changed,
    refused_as_is,
    said_as_issued,
    said_as_verb,
    this_names_another,
    told_of_the_other_end,
    unasked_write,
    unsaid_destination,
)
from validators.pipeline import verify

FREEZE = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
STATUS = [{"call": 0, "path": "status"}]


def freeze_verdict(spec: EnvironmentSpec, ask: str, **overrides: Any) -> tuple[str, str, str]:
    """The verdict on Maria's `ask` whose gold freezes card K30001 and tells its status."""
    return bank_verdict(spec, ask, gold_calls=[FREEZE], communicate=STATUS, **overrides)


BALANCE = {"name": "get_balance", "arguments": {"account_id": "A20001"}}
CARD = {"name": "get_card", "arguments": {"card_id": "K30001"}}


def test_a_write_nobody_asked_for_is_unasked_write(banking_spec: EnvironmentSpec) -> None:
    """ "the balance of account 203 and the status of card 307" whose gold first sets a
    status: an agent trained on it changes data unasked. (The card's status last would be
    read back from what the freeze showed, an unused read.)"""
    stage, reason, detail = bank_verdict(
        banking_spec,
        "I need to know the balance of account A20001 and the status of card K30001.",
        gold_calls=[FREEZE, CARD, BALANCE],
        communicate=[{"call": 2, "path": "balance"}, {"call": 1, "path": "status"}],
    )
    assert (stage, reason) == ("intent", "unasked_write")
    assert "freeze_card" in detail and "freeze" in detail


def test_an_act_the_user_will_do_later_is_unasked_write(banking_spec: EnvironmentSpec) -> None:
    """restaurant-intent-00050 on 530f5cd: "tell me the status of my current reservation
    before I move it to House Table 8", whose gold made the move."""
    later = "Please tell me the status of my card K30001 before I freeze it."
    verdict = freeze_verdict(banking_spec, later)
    assert verdict[:2] == ("intent", "unasked_write"), verdict
    now = "Freeze my card K30001 before I lose it again, and tell me its status."
    assert freeze_verdict(banking_spec, now) == ACCEPTED


def test_the_same_write_asked_for_in_other_words_is_kept(banking_spec: EnvironmentSpec) -> None:
    verdict = bank_verdict(
        banking_spec,
        "Please block my card K30001 and tell me its status afterwards.",
        gold_calls=[FREEZE],
        communicate=[{"call": 0, "path": "status"}],
    )
    assert verdict == ("accepted", "ok", "")


def test_a_value_of_another_entity_is_unasked_value(banking_spec: EnvironmentSpec) -> None:
    """ "I need to see the status of my account" answered with a card's status."""
    cards = {"name": "list_cards", "arguments": {"client_id": "C1001"}}
    stage, reason, detail = bank_verdict(
        banking_spec,
        "What is the status of my account?",
        gold_calls=[cards],
        communicate=[{"call": 0, "path": "0.status"}],
    )
    assert (stage, reason) == ("intent", "unasked_value")
    assert "status of cards" in detail and "accounts" in detail


def test_values_told_when_nothing_was_asked_are_unasked_value(
    banking_spec: EnvironmentSpec,
) -> None:
    stage, reason, detail = bank_verdict(
        banking_spec,
        "Freeze my card K30001.",
        gold_calls=[FREEZE],
        communicate=[{"call": 0, "path": "status"}],
    )
    assert (stage, reason) == ("intent", "unasked_value")
    assert "asks for no information" in detail


def test_an_id_told_where_no_id_is_asked_is_unasked_value() -> None:
    """school-intent-00061 on 6accfa9: "If this is not possible, please inform me why.",
    and the gold told the enrollment's student id and course id. The state a refusal reads
    may be the why (basketball's "I would like to know if it can be done and why", told
    the game is completed); an id is not, unless it is asked for too."""
    move = {"name": "move_enrollment_course", "arguments": {"enrollment_id": 1}}
    lookup = {"name": "list_enrollments", "arguments": {"course_id": 2}}
    why = "Please move my enrollment to Bellberg Course. If this is not possible, inform me why."

    def told(instruction: str, path: str) -> str | None:
        task = mini_task(
            instruction=instruction,
            gold_calls=[lookup, move],
            communicate=[{"call": 0, "path": "0.status"}, {"call": 0, "path": path}],
        )
        return _ids_told_unnamed(task)

    detail = told(why, "0.student_id")
    assert detail is not None and "asks why (or whether it can be done) and names no id" in detail
    assert "communicate[1] (student_id of gold call 0)" in detail
    reason = "I want to move my enrollment to Bellberg Course, or know the reason I cannot."
    assert told(reason, "0.course_id") is not None
    # school-intent-00005 on 920fa98: told a student id and a course id
    possible = "Please move my enrollment. I'd like to know if it's possible and if it can be done."
    assert told(possible, "0.student_id") is not None
    # no why, and no id named: finance-intent-00723 on 0d74fa0 was told its new loan's id
    for unnamed in (
        "Please move my enrollment and let me know if it is done.",
        "Please move my enrollment. Let me know if I should enter my email and what status I want.",
    ):
        detail = told(unnamed, "0.student_id")
        assert detail is not None and "names no id (nor number) to be told" in detail, unnamed
    for asked in (
        "Please move my enrollment. Tell me its student id, and if you cannot, tell me why.",
        "Please move my enrollment and tell me the new course id.",
        "Move my enrollment; if it fails tell me why, along with my student id.",
        "Please tell me the reason and the enrollment number.",
        "Please move my enrollment and tell me its identifier.",
    ):
        assert told(asked, "0.student_id") is None, asked


def test_a_field_asked_about_and_never_told_is_untold_value(
    banking_spec: EnvironmentSpec,
) -> None:
    accounts = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    stage, reason, detail = bank_verdict(
        banking_spec,
        "What is the balance of my checking account, and what is its daily transfer limit?",
        gold_calls=[accounts],
        communicate=[{"call": 0, "path": "0.balance"}],
    )
    assert (stage, reason) == ("intent", "untold_value")
    assert "daily_transfer_limit" in detail


def test_a_quality_no_field_holds_asked_as_yes_or_no_is_untold_value(
    banking_spec: EnvironmentSpec,
) -> None:
    """railway-intent-00051 on de87116: "Please tell me if the seat is available or if I
    have to wait", told its ticket's status; no field says whether a seat is free."""
    asked = "Please freeze my card K30001 and tell me its status, and if the card is reusable."
    assert freeze_verdict(banking_spec, asked) == (
        "intent",
        "untold_value",
        "the instruction asks 'if the card is reusable', which no field or state of the "
        "environment tells",
    )
    for kept in (
        "Please freeze my card K30001 and tell me its status, and if that is possible.",
        "Please freeze my card K30001 and tell me its status, and whether it is active.",
    ):
        assert freeze_verdict(banking_spec, kept)[:2] != ("intent", "untold_value"), kept


def test_asked_when_a_moment_is_it_is_owed_though_i_said_its_day(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00076 in runs/: "I want to know the current status of the game, how
    many tickets are sold, and when the game will start", its start date a known fact, was
    told the status and the tickets sold."""
    recent = {"name": "list_recent_transactions", "arguments": {"account_id": "A20001", "count": 1}}
    told = [{"call": 0, "path": "0.amount"}]
    mine = "My transaction on account A20001 was posted at 2025-03-05. "
    for ask in (
        "I'd like to know its amount and when it was posted.",
        "When was it posted? Tell me its amount too.",
        "Please tell me its amount, and let me know when the bank posted it.",
    ):
        stage, reason, detail = bank_verdict(
            banking_spec, mine + ask, gold_calls=[recent], communicate=told
        )
        assert (stage, reason, detail) == (
            "intent",
            "untold_value",
            "the instruction asks about 'posted_at' (gold call 1), nobody tells it",
        ), ask
    for kept in (
        "I'd like to know its amount.",
        "I already know when it was posted; I'd like to know its amount.",
        "I was away when it was posted, so I'd like to know its amount.",
    ):
        verdict = bank_verdict(banking_spec, mine + kept, gold_calls=[recent], communicate=told)
        assert verdict == ACCEPTED, kept
    from validators.intent import _asks_when

    # travel-intent-00016 in runs/ was told the check-in date it asked for: check_out_date
    # is not what "when the check-in date is" asks
    asked = "Can you tell me when the check-in date is currently?"
    assert (_asks_when(asked, "check_in_date"), _asks_when(asked, "check_out_date")) == (
        True,
        False,
    )


def test_a_field_asked_for_each_record_of_a_kind_is_owed_for_every_one_the_gold_touches(
    banking_spec: EnvironmentSpec,
) -> None:
    """school-intent-00036 in runs/: "the current course status and grade status for each
    course", one course activated and another course's grade, was told one course's status
    alone (by another tool than the one that read the other course, so no lookup repeats)."""
    move = transfer("A20002", 100)
    checking = {"name": "get_account", "arguments": {"account_id": "A20001"}}
    savings = {"name": "get_account", "arguments": {"account_id": "A20002"}}
    ask = "Please move $100 from checking A20001 to savings A20002, then tell me the balance {}."
    told = [{"call": 1, "path": "balance"}]
    for each in ("of both accounts", "for each account", "of both accounts now"):
        stage, reason, detail = bank_verdict(
            banking_spec, ask.format(each), gold_calls=[move, checking], communicate=told
        )
        assert (stage, reason, detail) == (
            "intent",
            "untold_value",
            "the user asks for each account, but the balance of account A20002 is not told "
            "(told of another account)",
        ), each
    both = [{"call": 1, "path": "balance"}, {"call": 2, "path": "balance"}]
    kept = bank_verdict(
        banking_spec, ask.format("of both accounts"), gold_calls=[move, checking, savings],
        communicate=both,
    )  # fmt: skip
    assert kept == ACCEPTED
    one = "Please move $100 from checking A20001 to savings A20002, then tell me its balance."
    assert bank_verdict(banking_spec, one, gold_calls=[move, checking], communicate=told) == (
        ACCEPTED
    )


def test_a_field_of_mine_asked_for_in_so_many_words_is_owed_though_i_said_it(
    banking_spec: EnvironmentSpec,
) -> None:
    """ecommerce-intent-00021 on 6c5d348: "Please tell me my email and the current customer
    status", told the status alone; the email was the user's own, said as a fact."""
    accounts = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    told = [{"call": 0, "path": "0.balance"}]
    for ask in (
        "Please tell me my email and the balance of my checking account A20001.",
        "What is my email, and what is the balance of my checking account A20001?",
        "I need to know my email and the balance of my checking account A20001.",
        # weather-intent-00027 in runs/: "I want to know the current alert type, status, and
        # new region name", the region named by the user
        "I want to know the current balance, the currency, and my email.",
    ):
        currency = [{"call": 0, "path": "0.currency"}] if "currency" in ask else []
        stage, reason, detail = bank_verdict(
            banking_spec, ask, gold_calls=[accounts], communicate=told + currency
        )
        assert (stage, reason, detail) == (
            "intent",
            "untold_value",
            "the instruction asks about 'email' (gold call 0), nobody tells it",
        ), ask
    kept = "My email is maria.lopez@example.com. Tell me the balance of my checking account A20001."
    # "I don't know my email" disowns it (a disowned fact), it asks nothing
    from validators.intent import _asks_mine

    assert not _asks_mine("I don\u2019t know my email.", "email")
    assert not _asks_mine("I do not know my email.", "email")
    assert bank_verdict(banking_spec, kept, gold_calls=[accounts], communicate=told) == ACCEPTED


def test_a_field_asked_for_as_what_it_is_is_owed_though_i_said_it(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00570 on 5ef987c: "I need to know what the current balance is", with
    the balance a known fact, was told the account's status alone."""
    accounts = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    told = [{"call": 0, "path": "0.status"}]
    facts = [*MARIA["known_facts"], "My checking account A20001 holds 4250.75."]
    for ask in (
        "About checking A20001: I need to know what the current balance is, and its status.",
        "Tell me what my balance is on checking A20001, and its status.",
        "I'd like to know how much the balance is on checking A20001, and its status.",
    ):
        stage, reason, detail = bank_verdict(
            banking_spec, ask, gold_calls=[accounts], communicate=told, known_facts=facts
        )
        assert (stage, reason, detail) == (
            "intent",
            "untold_value",
            "the instruction asks about 'balance' (gold call 1), nobody tells it",
        ), ask
    kept = "About checking A20001, which holds 4250.75: I need to know its status."
    verdict = bank_verdict(banking_spec, kept, gold_calls=[accounts], communicate=told)
    assert verdict == ACCEPTED


def test_the_day_of_a_moment_describes_its_record_and_asks_nothing(
    banking_spec: EnvironmentSpec,
) -> None:
    """ecommerce-intent-00028 on 05f674d: "I want to cancel my order that was created at
    2024-10-28 and I'd like to know what the order status is." was untold_value of
    created_at (2024-10-28T16:10:00): the day said describes the order."""
    recent = {"name": "list_recent_transactions", "arguments": {"account_id": "A20001", "count": 1}}
    told = [{"call": 0, "path": "0.amount"}]
    ask = "My transaction that was posted at {} on account A20001: I'd like to know its amount."
    for day in ("2025-03-05", "2025-03-05T07:05:00"):
        verdict = bank_verdict(banking_spec, ask.format(day), gold_calls=[recent], communicate=told)
        assert verdict == ACCEPTED, day
    asked = "On account A20001, I'd like to know the amount and when it was posted at."
    stage, reason, detail = bank_verdict(banking_spec, asked, gold_calls=[recent], communicate=told)
    assert (stage, reason) == ("intent", "untold_value"), detail
    # medicine-intent-00040 on b5cbf4f: "cancel my appointment at 2024-02-01. I need to know
    # what time I started it": the day is said, the hour is asked
    hour = ask.format("2025-03-05").replace("its amount", "its amount and what time it was posted")
    stage, reason, detail = bank_verdict(banking_spec, hour, gold_calls=[recent], communicate=told)
    assert (stage, reason) == ("intent", "untold_value"), detail


def test_asked_to_see_my_information_and_told_a_status_is_untold_value(
    banking_spec: EnvironmentSpec,
) -> None:
    """railway-intent-00040 on a4b9fc9: "could you deactivate my passenger profile? I want to
    see my information", told the status alone: the user is owed their record, less what
    they said themselves (Maria's name and email)."""
    ask = "Please freeze card K30001 and tell me its status. I want to see my information."
    stage, reason, detail = freeze_verdict(banking_spec, ask)
    assert (stage, reason) == ("intent", "untold_value")
    assert detail.startswith("the user asks 'see my information'; nobody tells their ")
    assert "phone" in detail and "first_name" not in detail and "email" not in detail
    plain = "Please freeze card K30001 and tell me its status. I want to see it changed."
    assert freeze_verdict(banking_spec, plain) == ACCEPTED


def test_a_tool_the_preference_avoids_asks_about_no_field(banking_spec: EnvironmentSpec) -> None:
    """The statement "Please don't use the find client by phone service" names a tool: it
    asks for no phone number (intent tasks of the fake model were rejected for it)."""
    statement = "Please don't use the find client by phone service; it is expensive."
    ask = f"Please freeze my card K30001 and tell me its status afterwards. {statement}"
    avoid = {"cost": 1.0, "avoid_tools": ["find_client_by_phone"], "statement": statement}
    verdict = freeze_verdict(banking_spec, ask, preferences=avoid)
    assert verdict == ACCEPTED
    asked = "Please freeze my card K30001 and tell me its status and my phone number."
    stage, reason, detail = freeze_verdict(banking_spec, asked)
    assert (stage, reason) == ("intent", "untold_value") and "phone" in detail


def test_each_row_asked_for_and_one_told_is_untold_value(banking_spec: EnvironmentSpec) -> None:
    """ "list the loans ... and provide the amount of each" that communicates one amount."""
    accounts = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    ask = "Tell me the balance of each of my accounts."
    stage, reason, detail = bank_verdict(
        banking_spec, ask, gold_calls=[accounts], communicate=[{"call": 0, "path": "0.balance"}]
    )
    assert (stage, reason) == ("intent", "untold_value")
    assert "rows 1" in detail
    both = [{"call": 0, "path": "0.balance"}, {"call": 0, "path": "1.balance"}]
    assert bank_verdict(banking_spec, ask, gold_calls=[accounts], communicate=both) == (
        "accepted",
        "ok",
        "",
    )


def test_the_operation_asked_for_is_no_question_about_its_field(
    banking_spec: EnvironmentSpec,
) -> None:
    """ "close my savings account" names the operation; it does not ask for `closed_on`. A
    refusal: the rule the write meets is told from the read before it."""
    accounts = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    close = {
        "name": "close_account",
        "arguments": {"client_id": "C1001", "account_id": "A20002"},
        "expect_error": "the account still holds money; move the balance out before closing it",
    }
    verdict = bank_verdict(
        banking_spec,
        "Please close my savings account; if you cannot, tell me what balance it still holds.",
        gold_calls=[accounts, close],
        communicate=[{"call": 0, "path": "1.balance"}],
    )
    assert verdict == ("accepted", "ok", "")


def test_a_status_said_of_the_record_is_no_request_to_set_it(
    banking_spec: EnvironmentSpec,
) -> None:
    """ "the status of my pending transfer" whose gold sets it pending: the word names what
    the record is, not a change; the same word as a verb asks for it."""
    stage, reason, detail = bank_verdict(
        banking_spec,
        "Tell me the status of my frozen card K30001.",
        gold_calls=[FREEZE],
        communicate=[{"call": 0, "path": "status"}],
    )
    assert (stage, reason) == ("intent", "unasked_write")
    assert "freeze as a change" in detail
    asked = bank_verdict(
        banking_spec,
        "Freeze card K30001 and tell me its status.",
        gold_calls=[FREEZE],
        communicate=[{"call": 0, "path": "status"}],
    )
    assert asked == ("accepted", "ok", "")


def _freeze(client: str, card: str) -> dict:
    return {"name": "freeze_card", "arguments": {"client_id": client, "card_id": card}}


def test_a_write_on_a_record_other_than_the_one_named_is_unasked_target(
    banking_spec: EnvironmentSpec,
) -> None:
    """ "activate client 12032" whose gold also activates 12022, which only a fact holds."""
    stage, reason, detail = bank_verdict(
        banking_spec,
        "Freeze card K30011 and tell me its status.",
        email="aisha.khan@example.org",
        known_facts=["My email is aisha.khan@example.org.", "My cards are K30004 and K30011."],
        gold_calls=[_freeze("C1003", "K30004"), _freeze("C1003", "K30011")],
        communicate=[{"call": 1, "path": "status"}],
    )
    assert (stage, reason) == ("intent", "unasked_target")
    assert "names card K30011, not K30004" in detail


def test_a_write_on_a_kind_of_record_never_named_is_unasked_target(
    banking_spec: EnvironmentSpec,
) -> None:
    """ "close my card" whose gold also closes the client."""
    limit = {
        "name": "set_transfer_limit",
        "arguments": {"client_id": "C1001", "account_id": "A20002", "daily_limit": 500},
    }
    stage, reason, detail = bank_verdict(
        banking_spec,
        "Freeze my card K30001 and set its limit to 500. Tell me its status.",
        known_facts=["My email is maria.lopez@example.com.", "My savings account is A20002."],
        gold_calls=[FREEZE, limit],
        communicate=[{"call": 0, "path": "status"}],
    )
    assert (stage, reason) == ("intent", "unasked_target")
    assert "never names the account" in detail


def test_a_state_said_of_another_kind_names_no_record_the_gold_changes() -> None:
    """school-intent-00002 on 0fd2081: "move the active enrollment from Alexandraburgh
    Course ... to Vaughnland Course", whose gold moved an active grade
    (`move_grade_to_enrollment`): "active" was the enrollment's, and no grade was named."""
    import copy

    from tests.generators.school import SCHEMA, SEED
    from validators.intent import unasked_target

    schema: dict[str, Any] = copy.deepcopy(SCHEMA)
    grades = next(t for t in schema["tables"] if t["name"] == "grades")
    grades["columns"] = [*grades["columns"], {"name": "status", "type": "text"}]
    grades["checks"] = ["status IN ('active', 'void')"]
    graded = [(400, 300, "active"), (401, 303, "void")]
    seed = copy.deepcopy(SEED) | {
        "grades": [
            {"grade_id": g, "enrollment_id": e, "score": 87, "status": s} for g, e, s in graded
        ]
    }

    move = write_tool(
        "move_grade_to_enrollment",
        "UPDATE grades SET enrollment_id = :new_enrollment_id WHERE grade_id = :grade_id",
        grade_id="integer",
        new_enrollment_id="integer",
    )
    spec = EnvironmentSpec(
        name="school", schema_=Schema.model_validate(schema), seed=seed, tools=[move]
    )
    grades_of = Tool(name="list_grades", kind="read", description="d", returns="SELECT 1")
    tools = {"move_grade_to_enrollment": move, "list_grades": grades_of}
    moved = {"grade_id": 400, "new_enrollment_id": 301}
    calls = [
        {"name": "list_grades", "arguments": {"enrollment_id": 300}},
        {"name": "move_grade_to_enrollment", "arguments": moved},
    ]
    outputs = [seed["grades"][:1], seed["grades"][0] | {"enrollment_id": 301}]
    replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})

    def said(instruction: str) -> str | None:
        task = mini_task(instruction=instruction, gold_calls=calls, communicate=[])
        return unasked_target(task, tools, spec.schema_, replay, SeedFacts.of(spec))

    assert said("Please move the active enrollment to enrollment 301.") == (
        'gold call 1 move_grade_to_enrollment{"grade_id":400,"new_enrollment_id":301}: the '
        "instruction never names the grade it changes"
    )
    for kept in (
        "Please move my grade to enrollment 301.",
        "Please move the active one of my grades to enrollment 301.",
        "Please move the active one to enrollment 301.",  # the grade's own state
    ):
        assert said(kept) is None, kept


def test_a_record_named_by_its_own_name_is_named(banking_spec: EnvironmentSpec) -> None:
    """Basketball on 277c846 rejected "Can you please suspend Gary Gallegos?" as never
    naming the player: a record is named by its name as well as by its kind."""
    listed = {"name": "list_payees", "arguments": {"client_id": "C1001"}}
    pay = {
        "name": "pay_payee",
        "arguments": {
            "client_id": "C1001",
            "payee_id": "P5003",
            "from_account_id": "A20001",
            "amount": 40,
        },
    }
    told = [{"call": 1, "path": "new_balance"}]
    named = "Please pay Northside Water 40 from my checking account A20001. My new balance?"
    verdict = bank_verdict(banking_spec, named, gold_calls=[listed, pay], communicate=told)
    assert verdict == ("accepted", "ok", "")
    # basketball-intent-00044: "Hi! I'm Shannon Sparks. I want to deactivate my account"
    # from the team's email: a name given as one's own names no record to change
    for unnamed in (
        "Please pay 40 from my checking account A20001. What is my new balance?",
        "I'm Northside Water. Please pay 40 from my checking account A20001. New balance?",
    ):
        stage, reason, detail = bank_verdict(
            banking_spec, unnamed, gold_calls=[listed, pay], communicate=told
        )
        assert (stage, reason) == ("intent", "unasked_target"), unnamed
        assert "never names the payee it changes" in detail


def test_a_record_described_by_a_column_and_its_value_is_named(
    banking_spec: EnvironmentSpec,
) -> None:
    """restaurant-intent-00060 on 277c846, "Move my order for 36 items from a party of 2 to
    a party of 5", was rejected as never naming the reservation: `party_size` 5 names it.
    Maria's savings account is the one with a transfer limit of 2000."""
    listed = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    told = [{"call": 1, "path": "from_balance"}]
    ask = "Please send 250 from A20001 to the one with a transfer limit of {}. What is left?"
    verdict = bank_verdict(
        banking_spec, ask.format(2000), gold_calls=[listed, MOVE], communicate=told
    )
    assert verdict == ("accepted", "ok", "")
    for limit in ("5000", "2000.5"):  # A20001's own limit; not the number said
        stage, reason, _ = bank_verdict(
            banking_spec, ask.format(limit), gold_calls=[listed, MOVE], communicate=told
        )
        assert (stage, reason) == ("intent", "unasked_target"), limit


def test_a_record_a_write_points_to_picked_from_a_listing_must_be_told_apart() -> None:
    """A ticket made for one of a team's players the request never names (asked on reading
    basketball-intent-00022 on cb56dcd, whose facts named the player). Here Ava books a
    stay, and the gold picks the Harbor Inn of the two hotels listed (a tool named for
    hotels would make the hotel a record it is about, told apart as such)."""
    from tests.generators.travel import travel_spec
    from validators.intent import unasked_target

    spec = travel_spec()
    params = ("customer_id", "hotel_id", "check_in_date", "check_out_date")
    book = Tool(
        name="book_stay",
        kind="write",
        description="Book a stay.",
        parameters={"type": "object", "properties": {p: {"type": "string"} for p in params}},
        run=[
            "INSERT INTO hotel_bookings (customer_id, hotel_id, check_in_date, check_out_date, "
            "status) VALUES (:customer_id, :hotel_id, :check_in_date, :check_out_date, 'booked')"
        ],
    )
    reads = {
        n: Tool(name=n, kind="read", description="d", returns="SELECT 1") for n in ("me", "hotels")
    }
    tools = {"book_stay": book, **reads}
    stay = {"customer_id": 1, "hotel_id": 20, "check_in_date": "2025-03-01"}
    calls = [
        {"name": "me", "arguments": {"email": "ava@example.com"}},
        {"name": "hotels", "arguments": {}},
        {"name": "book_stay", "arguments": stay | {"check_out_date": "2025-03-02"}},
    ]
    me, made = spec.seed["customers"][0], {"booking_id": 501}
    outputs = [me, spec.seed["hotels"], made]
    replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})

    def said(instruction: str) -> str | None:
        task = mini_task(
            instruction=instruction,
            known_facts=["My email is ava@example.com"],
            gold_calls=calls,
            communicate=[{"call": 2, "path": "booking_id"}],
        )
        return unasked_target(task, tools, spec.schema_, replay, SeedFacts.of(spec))

    assert said("Book me a hotel stay from 2025-03-01 to 2025-03-02. Its booking id?") == (
        'gold call 2 book_stay{"check_in_date":"2025-03-01","check_out_date":'
        '"2025-03-02","customer_id":1,"hotel_id":20}: hotel_id=20 is one of 2 rows of gold '
        "call 1, and nothing the user says tells it apart"
    )
    for kept in (
        "Book me a stay at the Harbor Inn from 2025-03-01 to 2025-03-02. Its booking id?",
        "Book me a stay at hotel 20 from 2025-03-01 to 2025-03-02. Its booking id?",
    ):
        assert said(kept) is None, kept


def test_a_new_record_pointed_at_a_record_unnamed_and_unlike_its_other_is_unasked_target() -> None:
    """medicine-intent-00022 on b5cbf4f: "create a prescription ... The appointment is for
    2024-08-30", whose gold prescribed by a doctor only the facts named, not the
    appointment's, and was refused. Here Ava books her stay of booking 500 again, and the
    gold books it at the Dune Lodge, where booking 500 was at the Harbor Inn."""
    from tests.generators.travel import travel_spec
    from validators.intent import unlike_its_reference

    spec = travel_spec()
    again = write_tool(  # a stay booked again, for the dates of an earlier booking
        "book_again",
        "INSERT INTO hotel_bookings (customer_id, hotel_id, check_in_date, check_out_date, "
        "status) SELECT :customer_id, :hotel_id, check_in_date, check_out_date, 'booked' "
        "FROM hotel_bookings WHERE booking_id = :booking_id",
        booking_id="integer",
        customer_id="integer",
        hotel_id="integer",
    )
    names = ("me", "get_booking", "find_hotel")
    reads = {n: Tool(name=n, kind="read", description="d", returns="SELECT 1") for n in names}
    tools = {"book_again": again, **reads}
    me, booked = spec.seed["customers"][0], spec.seed["hotel_bookings"][0]

    def said(instruction: str, hotel: dict) -> str | None:
        calls = [
            {"name": "me", "arguments": {"email": "ava@example.com"}},
            {"name": "get_booking", "arguments": {"booking_id": 500}},
            {"name": "find_hotel", "arguments": {"name": hotel["name"]}},
            {
                "name": "book_again",
                "arguments": {"booking_id": 500, "customer_id": 1, "hotel_id": hotel["hotel_id"]},
            },
        ]
        outputs = [me, booked, hotel, {"booking_id": 501}]
        replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})
        task = mini_task(
            instruction=instruction,
            known_facts=["My email is ava@example.com", f"The hotel is {hotel['name']}"],
            gold_calls=calls,
            communicate=[{"call": 3, "path": "booking_id"}],
        )
        return unlike_its_reference(task, tools, replay, SeedFacts.of(spec))

    harbor, dune = spec.seed["hotels"]
    unnamed = "Book my stay of booking 500 again. What is its booking id?"
    assert said(unnamed, dune) == (
        'gold call 3 book_again{"booking_id":500,"customer_id":1,"hotel_id":21}: hotel_id=21, '
        "which the request never names, where booking_id 500 holds hotel_id 20"
    )
    assert said(unnamed, harbor) is None  # the hotel booking 500 was at
    named = "Book my stay of booking 500 again, at hotel 21. What is its booking id?"
    assert said(named, dune) is None


def test_a_record_picked_from_a_listing_must_be_told_apart(
    banking_spec: EnvironmentSpec,
) -> None:
    """Tom Becker has two cards: "freeze my card" does not say which one the gold freezes;
    its last four digits do, in the request or in a known fact."""
    cards = {"name": "list_cards", "arguments": {"client_id": "C1004"}}
    gold = [cards, _freeze("C1004", "K30005")]
    told = [{"call": 1, "path": "status"}]
    email = "tom.becker@example.com"
    ask = "Freeze my card and tell me its status."
    stage, reason, detail = bank_verdict(
        banking_spec, ask, email=email, gold_calls=gold, communicate=told
    )
    assert (stage, reason) == ("intent", "unasked_target")
    assert "one of 2 rows of gold call 1" in detail
    facts = [f"My email is {email}.", "My card ends in 2468."]
    said = "Freeze my card ending 2468 and tell me its status."
    for words, known in [(said, [f"My email is {email}."]), (ask, facts)]:
        verdict = bank_verdict(
            banking_spec, words, email=email, known_facts=known, gold_calls=gold, communicate=told
        )
        assert verdict == ("accepted", "ok", ""), words


def test_a_create_nobody_asked_for_is_unasked_write(banking_spec: EnvironmentSpec) -> None:
    """ "the return id and status for my active order" whose gold creates a return: the
    kind of the new record ("checking") and a record's name that is also a synonym of
    creating ("order") do not ask for one; "open" does."""
    open_checking = {
        "name": "open_account",
        "arguments": {"client_id": "C1001", "kind": "checking"},
    }
    told = [{"call": 0, "path": "account_id"}]
    stage, reason, detail = bank_verdict(
        banking_spec,
        "What is the balance of my checking account?",
        gold_calls=[open_checking],
        communicate=told,
    )
    assert (stage, reason) == ("intent", "unasked_write")
    assert "creates a record" in detail and "'open'" in detail
    asked = bank_verdict(
        banking_spec,
        "Please open a new checking account for me and tell me its account id.",
        gold_calls=[open_checking],
        communicate=told,
    )
    assert asked == ("accepted", "ok", "")
    other_kind = bank_verdict(  # the act is said, but of another kind
        banking_spec,
        "Please open a new savings account for me and tell me its account id.",
        gold_calls=[open_checking],
        communicate=told,
    )
    assert other_kind[:2] == ("intent", "unasked_write") and "checking" in other_kind[2]
    # ecommerce-intent-00025 on 277c846: "I just placed an order for Danielview Product. I
    # ordered 4 units ... Can you please tell me the order item id", whose gold created one
    for told_of in (
        "I just opened a checking account. Can you tell me its account id?",
        "I've already opened my checking account; what is its account id?",
    ):
        done = bank_verdict(banking_spec, told_of, gold_calls=[open_checking], communicate=told)
        assert done[:2] == ("intent", "unasked_write"), told_of
    for ask in (
        "I opened the app to ask: please open a checking account and tell me its id.",
        "Can you open a checking account for me and tell me its account id?",
    ):
        kept = bank_verdict(banking_spec, ask, gold_calls=[open_checking], communicate=told)
        assert kept == ("accepted", "ok", ""), ask


def test_the_new_records_kind_wanted_as_a_verb_asks_for_the_create() -> None:
    """ecommerce-intent-00003: "an order with 38 items that I wanted to return. Can you help
    me with that?", whose `create_return` was rejected for never saying 'create'. The kind
    must be wanted as a verb: "the return id" or "go to my returns" asks for nothing."""
    base: dict[str, object] = {"name": "create_return", "description": "d", "kind": "write"}
    base["parameters"] = {"type": "object", "properties": {}}
    returns = Tool.model_validate(base | {"run": ["INSERT INTO returns (id) VALUES (1)"]})
    bookings = Tool.model_validate(base | {"run": ["INSERT INTO bookings (id) VALUES (1)"]})
    assert said_as_verb("38 items that I wanted to return. Can you help?", returns) == (
        "wanted to return"
    )
    assert said_as_verb("I'd like to book two seats.", bookings) == "like to book"
    # ecommerce-intent-00011 on 277c846: "Can you help me return this order?"
    assert said_as_verb("Can you help me return this order?", returns) == "Can you help me return"
    assert said_as_verb("Could you please return my mug?", returns) == "Could you please return"
    for text in ("Tell me the return id.", "I want to see my returns.", "I need to go home."):
        assert said_as_verb(text, returns) is None, text


def test_a_field_of_a_written_row_asked_of_another_record_is_unasked_value(
    banking_spec: EnvironmentSpec,
) -> None:
    """Ecommerce's "create an order item ... Please tell me the order created at", told
    the new order item's created_at: the row a write returns is of one table, and a field
    named with another record's name is that record's. Said of a record ("my card status
    is active"), a field is no question."""
    opened = {"name": "open_account", "arguments": {"client_id": "C1001", "kind": "checking"}}
    told = [{"call": 0, "path": "account_id"}, {"call": 0, "path": "status"}]
    ask = "Please open a new checking account for me and tell me its account id and card status."
    stage, reason, detail = bank_verdict(banking_spec, ask, gold_calls=[opened], communicate=told)
    assert (stage, reason) == ("intent", "unasked_value")
    assert "the status of the account open_account returns" in detail and "of the card" in detail
    for ask in (
        "Please open a new checking account for me and tell me its account id and status.",
        "My card status is active. Please open a new checking account for me and tell me its "
        "account id and account status.",
        "Please open a new checking account for me and tell me the account's id and status.",
    ):
        verdict = bank_verdict(banking_spec, ask, gold_calls=[opened], communicate=told)
        assert verdict == ("accepted", "ok", ""), ask
    # asked of the shown record too, in a list or before a list of its own fields
    # (basketball on 9b9d975: "tell me the contract status, ticket id, ticket status";
    # "provide the ticket ID and status, as well as the contract status", each told both)
    from validators.intent import _asked_of_other

    schema = banking_spec.schema_
    for both in (
        "Open an account and tell me the card status, account id, account status.",
        "Open an account and tell me the account ID and status, as well as the card status.",
        "Open an account and tell me the account's ID and its status, and the card status.",
        # basketball on 9cd916d: "... the ticket ID and its status, as well as the status of
        # Vicki Clarke's player", told the ticket's and the player's
        "Open an account and tell me the card ID and its status, and the status of my account.",
    ):
        assert _asked_of_other(both, "status", "accounts", schema) is None, both
    for other in (
        "Open an account and tell me the card status.",
        "Open an account and tell me the card ID and status.",
        "Open an account and tell me the card's status.",
        "Open an account and tell me the status of my card.",
    ):
        assert _asked_of_other(other, "status", "accounts", schema) == "cards", other


def test_a_field_said_only_as_the_change_beside_one_asked_is_unasked_value(
    banking_spec: EnvironmentSpec,
) -> None:
    """travel-intent-00000 on d7b1bec, "add 16 checked bags to my flight booking ... I also
    need to know the fee for those bags", was told the bag count and the fee: the count is
    what the user gives, not what they ask to be told."""
    limit = {
        "name": "set_transfer_limit",
        "arguments": {"client_id": "C1001", "account_id": "A20001", "daily_limit": 500},
    }
    told = [{"call": 0, "path": "daily_transfer_limit"}, {"call": 0, "path": "balance"}]
    ask = "Please set the daily transfer limit of my account A20001 to 500. I also need to know"
    stage, reason, detail = bank_verdict(
        banking_spec, f"{ask} the balance for that account.", gold_calls=[limit], communicate=told
    )
    assert (stage, reason) == ("intent", "unasked_value")
    assert "communicate[0] (daily_transfer_limit)" in detail and "balance" in detail
    for asked in (
        f"{ask} the balance and the new daily transfer limit.",
        f"{ask} what the limit and the balance are now.",
    ):
        verdict = bank_verdict(banking_spec, asked, gold_calls=[limit], communicate=told)
        assert verdict == ACCEPTED, asked


def test_a_lookup_by_a_field_tells_of_what_it_finds_not_of_the_field(
    banking_spec: EnvironmentSpec,
) -> None:
    """railway's "deactivate my trip and get the status" told a passenger's name from
    `list_passengers_by_trip_id`: the trip is what it looks by, passengers what it tells."""
    stage, reason, detail = bank_verdict(
        banking_spec,
        "My email is maria.lopez@example.com; freeze card K30001 and tell me its status.",
        gold_calls=[FREEZE],
        communicate=[{"call": -1, "path": "tier"}, {"call": 0, "path": "status"}],
    )
    assert (stage, reason) == ("intent", "unasked_value")
    assert "find_client_by_email" in detail


def test_a_request_that_spells_out_a_lookup_name_reads_like_calls(
    banking_spec: EnvironmentSpec,
) -> None:
    """The sampled strategy's "freeze client 12015, get cards with card id 39495, then list
    cards by account id": the walk put into words, which no person says. A write's name is
    how people ask ("report my card lost", "make a loan payment"): only lookups count."""
    overview = [{"name": "get_client_overview", "arguments": {"client_id": "C1001"}}]
    # the tier the find showed would be told again: the total balance is the overview's own
    told = [{"call": 0, "path": "total_balance"}]
    stage, reason, detail = bank_verdict(
        banking_spec,
        "Please get the client overview for me and tell me my total balance.",
        gold_calls=overview,
        communicate=told,
    )
    assert (stage, reason) == ("intent", "reads_like_calls")
    assert (
        detail == "the instruction says 'get the client overview', the name of get_client_overview"
    )
    asked = "What is the total balance of all my accounts? Please tell me my total balance."
    assert bank_verdict(banking_spec, asked, gold_calls=overview, communicate=told) == (
        "accepted",
        "ok",
        "",
    )
    lost = [{"name": "report_card_lost", "arguments": {"client_id": "C1001", "card_id": "K30001"}}]
    said = "Please report card lost for my card K30001 and tell me its status afterwards."
    verdict = bank_verdict(
        banking_spec, said, gold_calls=lost, communicate=[{"call": 0, "path": "status"}]
    )
    assert verdict == ("accepted", "ok", "")
    # a write's name of five words or more: travel-intent-00010 on d7b1bec, "I want to add
    # flight booking checked bags for my flight booking"
    from tests.validators.test_facts import one_write
    from validators.intent import reads_like_calls

    bags = one_write(
        "add_flight_booking_checked_bags",
        "UPDATE flight_bookings SET checked_bags = checked_bags + :bags",
    )
    calls = [{"name": bags.name, "arguments": {"bags": 5}}]
    for text, spelled in (
        ("I want to add flight booking checked bags for my flight booking.", True),
        ("I want to add 5 checked bags to my flight booking.", False),
    ):
        task = mini_task(instruction=text, gold_calls=calls, communicate=[])
        assert (reads_like_calls(task, {bags.name: bags}) is not None) == spelled, text


def test_a_refusal_of_a_move_to_the_state_a_read_shows_is_refused_as_is(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance on 4221446 kept "I'm trying to freeze my frozen card", refused because only
    an active card can be frozen: the card already is as asked. A refusal for a rule the
    record's state breaks otherwise (freezing a blocked card) is kept."""
    email = "james.chen@example.net"
    cards = {"name": "list_cards", "arguments": {"client_id": "C1002"}}
    refused = {"expect_error": "only an active card can be frozen"}
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1002", "card_id": "K30003"}}
    told = [{"call": 0, "path": "1.status"}]
    ask = "Please freeze my card ending in 9034, and tell me its current status."
    stage, reason, detail = bank_verdict(
        banking_spec, ask, email, gold_calls=[cards, freeze | refused], communicate=told
    )
    assert (stage, reason) == ("intent", "refused_as_is")
    assert "card_id K30003 to status 'frozen', which gold call 1 shows it already has" in detail
    cards = {"name": "list_cards", "arguments": {"client_id": "C1009"}}
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1009", "card_id": "K30008"}}
    blocked = "Please freeze my card ending in 3090, and tell me its current status."
    kept = bank_verdict(
        banking_spec,
        blocked,
        "emma.wilson@example.net",
        gold_calls=[cards, freeze | refused],
        communicate=[{"call": 0, "path": "0.status"}],
    )
    assert kept == ACCEPTED


def test_refused_as_is_reads_the_records_own_row_and_the_state_its_act_names() -> None:
    """From the review of bc759ca: a grade row's status is not its enrollment's, though the
    row carries the enrollment_id; and a seat change that also sets its ticket booked is no
    move to booked."""

    activate = write_tool(
        "activate_enrollment",
        "UPDATE enrollments SET status = 'active' WHERE enrollment_id = :id",
        id="integer",
    )
    seat = write_tool(
        "change_seat",
        "UPDATE tickets SET seat = '12A', status = 'booked' WHERE ticket_id = :id",
        id="integer",
    )
    tools = {t.name: t for t in (activate, seat)}

    def refused(name: str, *outputs: object) -> str | None:
        calls = [{"name": "read", "arguments": {}} for _ in outputs]
        calls.append({"name": name, "arguments": {"id": 7}, "expect_error": "no"})
        task = mini_task(gold_calls=calls, communicate=[])
        results = [ToolResult(ok=True, output=o) for o in [*outputs, None]]
        return refused_as_is(task, tools, Replay(results=results, changes={}))

    enrollment = {"enrollment_id": 7, "status": "active"}
    grade = {"grade_id": 3, "enrollment_id": 7, "status": "active"}
    assert refused("activate_enrollment", [enrollment]) is not None
    assert refused("activate_enrollment", [enrollment], [grade]) is not None
    assert refused("activate_enrollment", [{**enrollment, "status": "dropped"}], [grade]) is None
    assert refused("change_seat", [{"ticket_id": 7, "status": "booked"}]) is None


def test_a_refusal_that_asks_for_a_value_after_the_write_asks_after_refusal(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's "I need to transfer $886.4 ... I want to know the balance of my new account
    after this transfer": the transfer is refused, so there is no balance after it, and the
    one told is the balance before."""
    too_much = transfer("A20002", 9000) | {"expect_error": ""}
    read = {"name": "get_balance", "arguments": {"account_id": "A20001"}}
    told = [{"call": 0, "path": "balance"}]
    ask = "Please move $9000 from A20001 to A20002. I want to know the balance of A20001 {}."
    stage, reason, detail = bank_verdict(
        banking_spec,
        ask.format("after this transfer"),
        gold_calls=[read, too_much],
        communicate=told,
    )
    assert (stage, reason) == ("intent", "asks_after_refusal")
    assert "'after this'" in detail
    # ecommerce-intent-00086 on 8d65db4: "Could you please provide me with the new address?"
    # of a refused address change
    new = "Please move $9000 from A20001 to A20002 and provide me with the new balance."
    stage, reason, detail = bank_verdict(
        banking_spec, new, gold_calls=[read, too_much], communicate=told
    )
    assert (stage, reason) == ("intent", "asks_after_refusal"), detail
    now = ask.format("as it is now")
    assert bank_verdict(banking_spec, now, gold_calls=[read, too_much], communicate=told) == (
        "accepted",
        "ok",
        "",
    )


def test_a_request_in_an_assistants_words_is_assistant_voice(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's "I'm here to help you with your account. The pending transfer on my account
    ... needs to be completed. If you have any questions or need further assistance, please
    let me know.": the 1.5B wrote the assistant's side."""
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
    told = [{"call": 0, "path": "status"}]
    voiced = "I'm here to help you with your account. Freeze card K30001 and tell me its status."
    stage, reason, detail = bank_verdict(
        banking_spec, voiced, gold_calls=[freeze], communicate=told
    )
    assert (stage, reason) == ("intent", "assistant_voice")
    assert "I'm here to help" in detail
    offered = "Hello! Are you ready to freeze your card K30001? Its status is what you get."
    stage, reason, detail = bank_verdict(
        banking_spec, offered, gold_calls=[freeze], communicate=told
    )
    assert (stage, reason, detail) == (
        "intent",
        "assistant_voice",
        "the instruction says 'Are you ready to': an assistant's words, not the customer's",
    )
    # ecommerce's "Sure, I'll suspend your account for your customer profile, and let you
    # know the status right away."
    for spoken in ("Sure, I'll freeze your card K30001.", "Card K30001: I'll let you know."):
        verdict = bank_verdict(banking_spec, spoken, gold_calls=[freeze], communicate=told)
        assert verdict[:2] == ("intent", "assistant_voice"), spoken
    # ecommerce-intent-00035 on 8d65db4: "Can you please let me know if you want to place an
    # order?", whose gold made one
    asked_back = "Can you please let me know if you want to freeze my card K30001?"
    verdict = bank_verdict(banking_spec, asked_back, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    # basketball-intent-00017 and 00022 on 65cb0f1: "The assistant will provide me with the
    # ticket ID and status", "The assistant will notify you of the ticket id"
    for narrated in (
        "Freeze my card K30001. The assistant will provide me with its status.",
        "Freeze my card K30001; I will notify you of its status. What is it?",
    ):
        verdict = bank_verdict(banking_spec, narrated, gold_calls=[freeze], communicate=told)
        assert verdict[:2] == ("intent", "assistant_voice"), narrated
    # basketball-intent-00042 on cb56dcd: "Please let me know if you're ready. I'm ready
    # to help you activate Holly Moody."
    ready = "Please let me know if you're ready. I'm ready to help you freeze card K30001."
    verdict = bank_verdict(banking_spec, ready, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    # weather's "... Is there anything else I can help you with?"
    closing = "Freeze my card K30001 and tell me its status. Anything else I can help with?"
    verdict = bank_verdict(banking_spec, closing, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    # railway-intent-00015 on 33c588b: "... Please inform me if there is anything else I
    # can assist with."
    assist = "Freeze my card K30001. Inform me if there is anything else I can assist with."
    verdict = bank_verdict(banking_spec, assist, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    # finance-intent-00130 on 8a34956: "Hello. I'm Alogan, the finance service's assistant."
    named = "Hello. I'm Maria, the bank's assistant. Freeze my card K30001; its status?"
    verdict = bank_verdict(banking_spec, named, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    # finance-intent-00498 on 2a7fb38: "Please let me know if you'd like to update ..."
    offer = "Please let me know if you'd like to freeze my card K30001. Its status?"
    verdict = bank_verdict(banking_spec, offer, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    # finance-intent-00386 on c430db5: "I'm Sabrina from your finance service."
    staff = "I'm Maria from your bank's support team. Freeze my card K30001; its status?"
    verdict = bank_verdict(banking_spec, staff, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    customer = "I'm Maria, a customer of your bank. Freeze my card K30001; its status?"
    assert bank_verdict(banking_spec, customer, gold_calls=[freeze], communicate=told)[:2] == (
        "accepted",
        "ok",
    )
    # travel's "Please update my customer email ... Your email is samantha.cortez@..."
    told_back = "Freeze my card K30001. Your email is maria.lopez@example.com. Its status?"
    verdict = bank_verdict(banking_spec, told_back, gold_calls=[freeze], communicate=told)
    assert verdict[:2] == ("intent", "assistant_voice")
    own = "Please freeze my card K30001 and tell me its status."
    assert bank_verdict(banking_spec, own, gold_calls=[freeze], communicate=told) == (
        "accepted",
        "ok",
        "",
    )


def test_a_question_about_a_state_asks_for_no_change(banking_spec: EnvironmentSpec) -> None:
    """Finance's "please let me know if my client profile is frozen" whose gold froze the
    client, and "I want to know if my transfer with ID 44554 has failed" whose gold set it
    failed: a state asked about is no request to make it so."""
    for asked in (
        "Please let me know if my card K30001 is frozen.",
        "Please let me know if my card K30001 is currently frozen.",
        "I want to know if my card K30001 has frozen.",
        "I want to know if my card K30001 has been frozen.",
        "Can you check and let me know if my card K30001's frozen?",
    ):
        verdict = freeze_verdict(banking_spec, asked)
        assert verdict[:2] == ("intent", "unasked_write"), asked
    wanted = "Please freeze my card K30001 and tell me its status."
    assert freeze_verdict(banking_spec, wanted) == (
        "accepted",
        "ok",
        "",
    )


def test_a_request_to_act_put_as_a_question_asks_for_no_information(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's "Swells, can you top up my ACC-30058 account balance? I want to add $26.54
    to my current balance." told the new balance: its "?" asks for an operation, and
    nobody asked to be told the balance. A real question still asks."""
    stage, reason, detail = freeze_verdict(banking_spec, "Swells, could you freeze my card K30001?")
    assert (stage, reason) == ("intent", "unasked_value")
    assert "asks for no information" in detail
    asked = "Could you freeze my card K30001? Is it frozen now?"
    assert freeze_verdict(banking_spec, asked) == (
        "accepted",
        "ok",
        "",
    )


def test_what_the_user_can_or_should_do_is_no_value_to_tell(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00024 on e4504b8, "I want to update my active card status ... to
    reported_stolen. What can you do for me?", and 00038, "... Please let me know what to
    do next.", were each told a status: they ask what may be done, which no record says."""
    for ask in (
        "Please freeze my card K30001. What can you do for me?",
        "Please freeze my card K30001 and let me know what to do next.",
        "Please freeze my card K30001. Tell me what I should do now.",
    ):
        stage, reason, detail = freeze_verdict(banking_spec, ask)
        assert (stage, reason) == ("intent", "unasked_value"), ask
        assert "asks for no information" in detail
    for asked in (
        "Please freeze my card K30001. What is its status now?",
        "Please freeze my card K30001 and let me know what its status is.",
    ):
        assert freeze_verdict(banking_spec, asked) == ACCEPTED, asked


def test_an_assistants_self_introduction_and_questions_are_assistant_voice(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's N=300 kept "Hi! I'm a finance tool-assistant. I can help you top up your
    balance. What's your email address? ...": the assistant's side, again."""
    for voiced in (
        "I'm a banking assistant. Freeze card K30001 and tell me its status.",
        "I can help you freeze card K30001. What's your email address?",
        "Freeze card K30001 and tell the customer that their card is frozen.",
        # basketball-intent-00020
        "Hi, can I help you freeze card K30001? Please let me know its status.",
        # movie's "Hello there, mpeterson@outlook.com! Can you help me activate a booking"
        "Hello there, maria.lopez@example.com! Can you freeze card K30001? Its status?",
        "Hi, maria.lopez@example.com! Please freeze card K30001 and tell me its status.",
        # movie's "Can I confirm your booking with 9 seats? I'd like to know the status ..."
        "Can I freeze your card K30001? I'd like to know the status of your card.",
        # railway on c08d396: "Hi there, can I help with something? I'd like to book a
        # ticket" and "I noticed you're trying to deactivate your passenger account"
        "Hi there, can I help with something? Freeze card K30001 and tell me its status.",
        "I noticed you're trying to freeze card K30001. Tell me its status.",
        # school on 8198d98: "Sure, Katherine! I'd be happy to activate the course ..."
        "Sure, Maria! Freeze card K30001 and tell me its status.",
        # basketball-intent-00048 on 277c846: "Hey joyce, I need to move Andrea Lang's
        # contract", from joyce@hotmail.com
        "Hey maria, I need card K30001 frozen. Tell me its status.",
        "Hello Maria! Please freeze card K30001 and tell me its status.",
        # weather-intent-00143 on 6accfa9: "Hi jhardy. I'd like to move the warning alert"
        "Hi maria. I need card K30001 frozen. Tell me its status.",
        # weather-intent-00161 on 211cc49: "Hello, Catherine49! I wanted to update my email"
        "Hello, Maria85! I need card K30001 frozen. Tell me its status.",
        # movie-intent-00028 on 3d6f8ed, "Hello there, JRoman. I just wanted to check ...";
        # railway-intent-00006 on de87116, "Hello, Train C. I want to book a ticket"
        "Hello there, MLopez. I need card K30001 frozen. Tell me its status.",
        "Hello, Savings C. I need card K30001 frozen. Tell me its status.",
        # medicine on fe97d36: "Please tell me what appointment you would like to move to
        # Dr. Anna Lynch on January 31, 2024."
        "Please tell me what card you would like to freeze, K30001? Tell me its status.",
        # medicine on fe97d36: "Hi Pillbox 2, I need to move the prescription ..."
        "Hi Savings 2, I need card K30001 frozen. Tell me its status.",
        # weather-intent-00048 on 8a86ecf: "Hi West Stephanieport Station, please let me
        # know the station ID, station status, and alert status."
        "Hi Gold Savings Account, please freeze card K30001 and tell me its status.",
        # medicine-intent-00125 on ac78a9f: "I have an appointment with you on January
        # 20th. I want to move it to you, Anna Lynch."
        "I want card K30001 frozen by you, Ahmed Khan. Tell me its status.",
        "I'd be happy to help. Freeze card K30001 and tell me its status.",
        # finance-intent-00008 on 5cf74c2: "Thank you for reaching out to us. I would like
        # to freeze my active card ..."
        "Thank you for reaching out to us. Freeze card K30001 and tell me its status.",
        # medicine-intent-00121 on df891fc: "I'm sorry to hear that my appointment is on
        # February 24th. I wanted to cancel it ..."
        "I'm sorry to hear that my card K30001 is lost. Freeze it and tell me its status.",
        # weather on 2abff72: "As an assistant, I am unable to create a reading ...",
        # "Please inform the assistant to cancel ...", "... and tell the assistant the id"
        "As an assistant, I am unable to freeze card K30001. Tell me its status.",
        "Please inform the assistant to freeze card K30001 and tell me its status.",
        "Freeze card K30001 and tell the assistant its status.",
        # finance-intent-00060 on 3adc017: "I am telling the assistant that I want to know
        # the account balance."
        "Freeze card K30001. I am telling the assistant that I want to know its status.",
        # school-intent-00058 on 920fa98: "I'm Erin Stafford, the school service teacher,
        # and you're the assistant."
        "I'm Maria Lopez, the client, and you're the assistant. Freeze card K30001; status?",
        # finance-intent-00255 on ba717dc: "I'm sorry, but I can't help you close your
        # inactive account without knowing the current balance of your account."
        "I'm sorry, but I can't help you freeze card K30001 without its status. Its status?",
        # medicine-intent-00051 on 277c846: "I'm sorry, but I can't assist with that."
        "I'm sorry, but I can't assist with that. Please freeze card K30001; its status?",
        "I will gladly help you freeze your card K30001. Tell me its status.",
        # finance-intent-00535 on 3b9f36e
        "Freeze my card K30001; its status? Do you have any questions you'd like to share?",
        # ecommerce on 2f77ff7: "I wanted to let you know that your status has been updated
        # to 'active'. It's all set up now. Thanks for your patience."
        "I wanted to let you know that your card K30001 has been frozen. Its status?",
        "Card K30001 is frozen now; its status? Thanks for your patience.",
        # weather-intent-00061 on 706f9af: "To create the watch, please provide your email
        # and region's name, along with the specified values."
        "To freeze card K30001, please provide your email and name. Its status?",
    ):
        verdict = freeze_verdict(banking_spec, voiced)
        assert verdict[:2] == ("intent", "assistant_voice"), voiced
    # ... or in what the user knows: weather-intent-00005 on 706f9af knew "I am a weather
    # service assistant"
    facts = ["My email is maria.lopez@example.com.", "I am a banking service assistant."]
    ask = "Please freeze card K30001 and tell me its status."
    stage, reason, detail = freeze_verdict(banking_spec, ask, known_facts=facts)
    assert (stage, reason) == ("intent", "assistant_voice") and "known fact" in detail, detail
    assert freeze_verdict(banking_spec, ask, known_facts=facts[:1]) == ACCEPTED
    for own in (  # a person who says who they are, or asks for help
        # finance's "I just wanted to let you know that my email is ..."
        "I just wanted to let you know I lost card K30001. Please freeze it. Its status?",
        "Can I get your help? Please freeze card K30001 and tell me its status.",
        "Hi, I'm maria.lopez@example.com. Please freeze card K30001 and tell me its status.",
        "Hello! My email is maria.lopez@example.com. Freeze card K30001; its status?",
        "As an assistant manager I travel a lot. Freeze card K30001; its status?",
        "Could you help me freeze my card K30001 and tell me its status? Thank you.",
        "Thank you for reaching out to me last week. Freeze card K30001; its status?",
        "I'm sorry to bother you: freeze card K30001 and tell me its status.",
        "Please freeze card K30001, which has been lost, and tell me its status.",
        "My card K30001 has been stolen. Please freeze it and tell me its status.",
        "Hey, I lost card K30001. Please freeze it and tell me its status.",
        "Hi there! Please freeze card K30001 and tell me its status.",
        "Hello team, please freeze card K30001 and tell me its status.",
        "Hi Maria here. Please freeze card K30001 and tell me its status.",
        "Hello, good morning! Please freeze card K30001 and tell me its status.",
        "Hello good morning, please freeze card K30001 and tell me its status.",
        "Hello Customer Support, please freeze card K30001 and tell me its status.",
        "Hello I lost my card K30001, please freeze it and tell me its status.",
        "Hello, Please freeze card K30001. Tell me its status.",
        "Hi, Thanks. Please freeze card K30001 and tell me its status.",
        "Hello, I lost card K30001. Please freeze it and tell me its status.",
        "Hello there, Maria here. Please freeze card K30001; its status?",
        # a title opens a name, and "Dear me" is no greeting
        "Hi Dr. Wood sent me. Please freeze card K30001 and tell me its status.",
        "Dear me. I lost card K30001: please freeze it and tell me its status.",
    ):
        verdict = freeze_verdict(banking_spec, own)
        assert verdict[:2] != ("intent", "assistant_voice"), (own, verdict)


def test_a_request_pointing_at_a_form_it_does_not_hold_is_dangling_reference(
    banking_spec: EnvironmentSpec,
) -> None:
    """movie-intent-00011: "Please create a booking for myself, as indicated in the form
    below." The agent and the user simulator see the words, not a form."""
    for said in ("as indicated in the form below", "with the details below"):
        ask = f"Please freeze card K30001, {said}. Tell me its status."
        stage, reason, detail = freeze_verdict(banking_spec, ask)
        assert (stage, reason) == ("intent", "dangling_reference"), said
        assert "holds no such thing" in detail
    ask = "Please freeze card K30001 if its balance is above 0. Tell me its status below."
    verdict = freeze_verdict(banking_spec, ask)
    assert verdict == ("accepted", "ok", "")
    # medicine-intent-00102 on c778e9c: a lone name the request opens with points at
    # someone it never says
    ask = "Please freeze card K30001 and tell me its status."
    stage, reason, detail = freeze_verdict(
        banking_spec, ask, instruction=f"Brady. {MARIA['instruction']} {ask}"
    )
    assert (stage, reason, detail) == (
        "intent",
        "dangling_reference",
        "the instruction says 'Brady.', and holds no such thing",
    )
    # finance-intent-00323 on c430db5: "Velásquez. I need to update my account ..."
    said = f"Velásquez. {MARIA['instruction']} {ask}"
    verdict = freeze_verdict(banking_spec, ask, instruction=said)
    assert verdict[:2] == ("intent", "dangling_reference")
    for opening in ("Hello. ", "Thanks! ", ""):
        said = f"{opening}{MARIA['instruction']} {ask}"
        assert freeze_verdict(banking_spec, ask, instruction=said) == ACCEPTED, opening


def test_a_request_for_someone_elses_record_is_third_person(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's N=300 kept "Please activate her card ending 5035 on her account
    ACC-49441": the agent acts for the person who asks, on their own records."""
    theirs = "Please freeze her card K30001 and tell me its status."
    stage, reason, detail = freeze_verdict(banking_spec, theirs)
    assert (stage, reason) == ("intent", "third_person")
    assert "her card" in detail
    for other in (  # finance N=300, finance-intent-00611 and -00526
        "Please freeze the card K30001 for my client and tell me its status.",
        "Please freeze card K30001. Could you tell me their card status?",
        # ecommerce on 33ecf7a: "The customer wants to know the order item quantity"
        "Please freeze card K30001. The client wants to know its status.",
        # finance-intent-00010 on 7b689c3: "Margaret Hughes, the client, says to the
        # assistant, 'I want to close my inactive account ...'"
        "Now the client, says to the assistant: freeze card K30001 and tell me its status.",
    ):
        verdict = freeze_verdict(banking_spec, other)
        assert verdict[:2] == ("intent", "third_person"), other
    # a known fact that tells about the user (ecommerce-intent-00063 on 8d65db4: "The
    # customer wants to move the open return.")
    told = "Please freeze my card K30001 and tell me its status."
    facts = ["The client wants to freeze card K30001."]
    stage, reason, detail = freeze_verdict(banking_spec, told, known_facts=facts)
    assert (stage, reason) == ("intent", "third_person"), detail
    assert "a known fact says 'The client wants'" in detail
    # finance-intent-00018 on 5cf74c2: "The client's account is active.", "... is the email
    # of the client", its user a client
    for fact in (
        "The client's card is active.",
        "maria.lopez@example.com is the email of the client",
    ):
        stage, reason, detail = freeze_verdict(banking_spec, told, known_facts=[fact])
        assert (stage, reason) == ("intent", "third_person"), fact
        assert detail.startswith("a known fact says "), detail
    assert freeze_verdict(banking_spec, told, known_facts=MARIA["known_facts"]) == ACCEPTED
    mine = "Please freeze my card K30001; her birthday is today. Tell me its status."
    # money sent to her account is the user's own act (bank-017 sends $60 to a friend's)
    assert freeze_verdict(banking_spec, mine) == (
        "accepted",
        "ok",
        "",
    )


def test_a_request_that_speaks_of_a_person_of_the_users_own_kind_is_third_person() -> None:
    """weather-intent-00175 on acc26f6: "Hi, the forecaster wants me to create an alert for
    themselves", from a forecaster: a kind of person only this domain has."""
    from toolscale.wording import third_person

    said = "Hi, the forecaster wants me to create an alert for themselves."
    assert third_person(said, {"alert", "region"}, "forecaster") == "the forecaster wants"
    assert third_person(said, {"alert", "region"}, None) is None
    mine = "Hi, I am the forecaster of North Pole and want to create an alert."
    assert third_person(mine, {"alert", "region"}, "forecaster") is None


def test_the_user_called_by_their_own_name_as_another_would_is_third_person(
    banking_spec: EnvironmentSpec,
) -> None:
    """School's "I want to deactivate the New Melissaberg Course for Katherine", from
    Katherine: a request about its user, as the assistant or a colleague would put it. A
    person names themselves to say who they are, or signs with their name."""
    for other, said in (
        ("Please freeze card K30001 for Maria and tell me its status.", "for Maria"),
        ("Please freeze Maria's card K30001 and tell me its status.", "freeze Maria"),
        ("Hello Maria Lopez, freeze card K30001 and tell me its status.", "Hello Maria"),
        ("Maria, could you freeze card K30001 and tell me its status?", "Maria,"),
        # weather-intent-00029 on 706f9af: "I need to move West Ronald Station to the North
        # Pole, Victor." (a request's comma, no signature)
        ("Please freeze card K30001 and tell me its status, Maria.", "status, Maria."),
    ):
        stage, reason, detail = freeze_verdict(banking_spec, other)
        assert (stage, reason) == ("intent", "third_person"), other
        assert said in detail and "by their own name" in detail, detail
    for own in (
        "I'm Maria. Please freeze card K30001 and tell me its status.",
        "Maria here: please freeze card K30001 and tell me its status.",
        "Maria Lopez speaking. Please freeze card K30001 and tell me its status.",
        "Maria Lopez, maria.lopez@example.com: freeze card K30001; its status?",
        "Please freeze card K30001 and tell me its status. Thanks, Maria.",
        "Please freeze card K30001 and tell me its status. - Maria",
        # medicine-intent-00003 on 3d6f8ed: "I'm the patient named DGreen."
        "I'm the client named Maria. Please freeze card K30001 and tell me its status.",
        # a name inside another record's: the user Maria and "Santa Maria Street"
        "Please freeze card K30001, the one I use on Santa Maria Street. Its status?",
        # an email's own name (railway on a4b9fc9: "my passenger profile, Alan@gmail.com")
        "Please freeze the card K30001 of Maria@example.com and tell me its status.",
    ):
        verdict = freeze_verdict(banking_spec, own)
        assert verdict[:2] != ("intent", "third_person"), (own, verdict)


def test_the_user_called_by_the_handle_of_their_email_is_third_person(
    banking_spec: EnvironmentSpec,
) -> None:
    """weather-intent-00066 on 706f9af: "jsimon, can you please update my email to ...",
    from jsimon@icloud.com (forecasters have no name): the user calls on themselves."""
    handle = "mlopez@example.com"
    spec = EnvironmentSpec.model_validate_json(
        banking_spec.model_dump_json().replace(MARIA_EMAIL, handle)
    )
    other = "mlopez, could you freeze card K30001 and tell me its status?"
    stage, reason, detail = freeze_verdict(spec, other, email=handle)
    assert (stage, reason) == ("intent", "third_person") and ". mlopez,'" in detail, detail
    own = "Please freeze card K30001 and tell me its status. Thanks, mlopez."
    assert freeze_verdict(spec, own, email=handle) == ACCEPTED


def test_one_record_named_at_both_ends_of_a_move_between_two_is_unasked_target(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's N=300 kept "Please transfer $37.08 from my ACC-53486 account to my
    ACC-53486 account" whose gold moved the money to another account."""
    move = transfer("A20002", 5)
    told = [{"call": 0, "path": "from_balance"}]
    facts = ["My email is maria.lopez@example.com.", "The account to pay into is A20002."]
    both = "Please transfer $5 from my account A20001 to my account A20001; what is left?"
    stage, reason, detail = bank_verdict(
        banking_spec, both, gold_calls=[move], communicate=told, known_facts=facts
    )
    assert (stage, reason) == ("intent", "unasked_target")
    assert "names A20001 at both ends" in detail
    # "my" at both ends is no record named twice
    from validators.intent import _SAME_ENDS

    assert _SAME_ENDS.search("from my checking account to my friend's account") is None
    two = "Please transfer $5 from my account A20001 to my account A20002; what is left?"
    assert bank_verdict(
        banking_spec, two, gold_calls=[move], communicate=told, known_facts=facts
    ) == (
        "accepted",
        "ok",
        "",
    )


def test_a_value_read_before_a_write_changed_it_is_stale_value(
    banking_spec: EnvironmentSpec,
) -> None:
    """Basketball's "I want to set my home team's game to ... and be told the current game
    status": the status told was read before the gold's write overwrote it."""
    cards = {"name": "list_cards", "arguments": {"client_id": "C1001"}}
    ask = "Freeze my card K30001 and tell me its {} status."
    stage, reason, detail = bank_verdict(
        banking_spec,
        ask.format("current"),
        gold_calls=[cards, FREEZE],
        communicate=[{"call": 0, "path": "0.status"}],
    )
    assert (stage, reason) == ("intent", "stale_value")
    assert "cards.status = 'active'" in detail and "'frozen'" in detail
    after = bank_verdict(
        banking_spec,
        ask.format("current"),
        gold_calls=[cards, FREEZE],
        communicate=[{"call": 1, "path": "status"}],
    )
    assert after == ("accepted", "ok", "")
    before = bank_verdict(
        banking_spec,
        ask.format("previous"),
        gold_calls=[cards, FREEZE],
        communicate=[{"call": 0, "path": "0.status"}],
    )
    assert before[:2] != ("intent", "stale_value")


def test_a_question_about_the_state_now_told_from_the_write_is_asked_before_told_after(
    banking_spec: EnvironmentSpec,
) -> None:
    """Basketball's "I want to activate Crystal Hatfield's player status. Can you please
    tell me if Crystal Hatfield is currently active or not?", told 'active' by the
    activation's own output."""
    told_by_write = [{"call": 0, "path": "status"}]
    for ask in (
        "Freeze my card K30001. Can you tell me if it is currently active or not?",
        "Freeze my card K30001, and tell me whether it is still active.",
        # movie-intent-00002: "cancel my booking ... check if my booking's status is
        # pending?", told 'cancelled' by the cancel (kept by the judge for a wrong reason)
        "Freeze my card K30001. Can you check if my card's status is blocked?",
        # finance-intent-00130 on 03eaeac: "I need to know the balance of my inactive
        # account before I can withdraw 1923.6", told the balance the withdrawal left
        "I need to know the status of my card K30001 before I can freeze it.",
        # finance-intent-00194 on aad42ce, told the balance its withdrawal left
        "Freeze my card K30001. Can you tell me its current status so I can proceed?",
        # finance-intent-00518 on 2dfae7a: "I need to know the outstanding balance of my
        # active loan so I can repay 1930.06", told what the repayment left
        "I need to know the status of my card K30001 so I can freeze it.",
        # finance-intent-00301 and 00386 on a2d4b44, told 'active' by the activation: "I
        # would like to know if the loan has been repaid", "... to confirm it's still repaid"
        "Freeze my card K30001. I would like to know if it has been blocked.",
        "Can you please freeze my card K30001 to confirm it's still active?",
        # railway-intent-00011 on 21ceb83, told 'cancelled' by the cancel
        "Freeze my card K30001. Can you tell me if it's already been used?",
        # basketball on 9b9d975: "Please tell me that the ticket on my game on June 3rd,
        # 2025, is still active and that I would like to receive a refund"
        "Please tell me that my card K30001, the one I use, is still active; freeze it.",
        # basketball-intent-00032 on cb56dcd: "... we're planning to refund our active
        # ticket ... could you confirm the ticket status is 'active'?", told 'refunded'
        "Freeze my card K30001. Could you confirm the card status is 'active'?",
        # finance-intent-00029 on 0302284: "Please tell me the current status of my account
        # and card. I want to activate my account and unfreeze my card."
        "Please tell me the current status of my card K30001. I want to freeze it.",
        # basketball-intent-00019 on 65cb0f1: "I'm trying to deactivate Debra Reyes. Can
        # you tell me what status she currently has?", told 'inactive' by the deactivation
        "I'm trying to freeze my card K30001. Can you tell me what status it currently has?",
        # finance-intent-00168 on 8a34956: "I need to transfer $25.4 from my active account
        # ... Could you please check the balance before transferring?"
        "I need to freeze my card K30001. Could you please check its status before freezing?",
        "Freeze my card K30001, but tell me its status before the freeze.",
    ):
        stage, reason, detail = bank_verdict(
            banking_spec, ask, gold_calls=[FREEZE], communicate=told_by_write
        )
        assert (stage, reason) == ("intent", "asked_before_told_after"), ask
        assert "told from the output of the write freeze_card" in detail
    # the same value asked for after the change is what the write's output tells
    for ask in (
        "Freeze my card K30001 and tell me its status.",
        "Freeze my card K30001 and check if it is frozen now.",
        "Freeze my card K30001 before I lose it again, and tell me its status.",
        "Freeze my card K30001 and tell me its status to proceed with my claim.",
        "Freeze my card K30001 and confirm that it is frozen.",
        "Freeze my card K30001 and let me know that it is frozen now.",
        "Freeze my card K30001 and tell me its status so I can relax.",
        "Freeze my card K30001, then check if it has been frozen. Its status?",
        "Tell me the current status of my card K30001 after you freeze it.",
        "Freeze my card K30001 before leaving and tell me its status.",
        "My card K30001 is currently lost. Freeze it and tell me its status.",
        # a "current" sentence about another value than the one the write tells
        "What is the current balance of my checking account? Freeze my card K30001 and "
        "tell me its status.",
    ):
        verdict = bank_verdict(banking_spec, ask, gold_calls=[FREEZE], communicate=told_by_write)
        assert verdict == ("accepted", "ok", ""), ask
    # movie-intent-00025's "tell me if my booking has been canceled", told 'cancelled': one
    # state, spelled two ways
    seed = SeedFacts(states={"bookings": {"status": frozenset({"confirmed", "cancelled"})}})
    ask = "Cancel my booking, then tell me if my booking has been canceled."
    assert _asks_state(ask, "cancelled", seed) is None
    assert _asks_state(ask, "confirmed", seed) is not None
    # "how much is still owed" asks for an amount, not whether a state holds (bank-004)
    ask = "Pay $100 of my loan L4001 from A20001, and tell me how much is still owed."
    pay = {
        "name": "make_loan_payment",
        "arguments": {"client_id": "C1001", "loan_id": "L4001", "from_account_id": "A20001"}
        | {"amount": 100},
    }
    verdict = bank_verdict(
        banking_spec, ask, gold_calls=[pay], communicate=[{"call": 0, "path": "outstanding"}]
    )
    assert verdict == ("accepted", "ok", "")


def test_a_write_before_the_user_is_found_is_unidentified_user(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's gold set a transfer pending by the transfer's id alone, never asking who
    the user was: the policy has the agent identify the user first. A call naming the user
    by their own id ("I'm client C1001") identifies them."""
    freeze = next(t for t in banking_spec.tools if t.name == "freeze_card")
    by_card = freeze.model_copy(
        update={
            "name": "freeze_card_by_id",
            "parameters": {
                "type": "object",
                "properties": {"card_id": {"type": "string"}},
                "required": ["card_id"],
            },
            "require": [],
            "run": ["UPDATE cards SET status = 'frozen' WHERE card_id = :card_id"],
            "returns": "SELECT card_id, status FROM cards WHERE card_id = :card_id",
        }
    )
    spec = banking_spec.model_copy(update={"tools": [*banking_spec.tools, by_card]})
    ask = "Please freeze my card K30001 and tell me its status."
    told = [{"call": 0, "path": "status"}]
    unnamed = [{"name": "freeze_card_by_id", "arguments": {"card_id": "K30001"}}]
    task = mini_task(
        id="unidentified",
        instruction=f"{MARIA['instruction']} {ask}",
        known_facts=MARIA["known_facts"],
        gold_calls=unnamed,
        communicate=told,
    )
    _, rejected, _ = verify(spec, [task], cross_engine=False)
    assert [(r.stage, r.reason) for r in rejected] == [("intent", "unidentified_user")]
    assert "find_client_by_email" in rejected[0].detail
    named = mini_task(
        id="named",
        instruction=f"Hi, I'm client C1001. {ask}",
        known_facts=["My client id is C1001."],
        gold_calls=[FREEZE],
        communicate=told,
    )
    kept, rejected, _ = verify(spec, [named], cross_engine=False)
    assert rejected == [] and [t.id for t in kept] == ["named"]


def test_a_state_wanted_that_the_gold_does_not_leave_is_unmet_wish(
    banking_spec: EnvironmentSpec,
) -> None:
    """Finance's "I need to activate my loan and make sure it's repaid", whose gold
    activated a repaid loan: the state the user wants is not the one they get."""
    ask = "Please block my card K30001, make sure it's still active, and tell me its status."
    stage, reason, detail = freeze_verdict(banking_spec, ask)
    assert (stage, reason) == ("intent", "unmet_wish")
    assert 'says "make sure it\'s still active", but the gold leaves the card frozen' in detail
    # finance-intent-00399 on fcae1f3: "I want to update my loan status to repaid. Please
    # set the loan status to active", whose gold leaves it repaid
    ask = "I want to freeze my card K30001. Please set the card status to active; its status?"
    stage, reason, detail = freeze_verdict(banking_spec, ask)
    assert (stage, reason) == ("intent", "unmet_wish"), detail
    assert "but the gold leaves the card frozen" in detail
    # ecommerce-intent-00011 on 05f674d: "I want to close the return status to 'open'",
    # whose gold closed it
    ask = "I want to freeze the card K30001 status to 'active'. Tell me its status."
    stage, reason, detail = freeze_verdict(banking_spec, ask)
    assert (stage, reason) == ("intent", "unmet_wish"), detail
    for ask in (
        "I want to freeze the card K30001 status to 'frozen'. Tell me its status.",
        "Please block my card K30001, make sure it is frozen, and tell me its status.",
        "Please change my card K30001's status from active to frozen; its status after?",
    ):
        verdict = freeze_verdict(banking_spec, ask)
        assert verdict == ("accepted", "ok", ""), ask


def test_a_number_wanted_that_the_gold_does_not_leave_is_unmet_wish(
    banking_spec: EnvironmentSpec,
) -> None:
    """ecommerce-intent-00092 on 8d65db4: "I need to top up my order item with 8 and I want
    the quantity of that item to be 15", whose gold took it from 15 to 23."""
    limit = {
        "name": "set_transfer_limit",
        "arguments": {"client_id": "C1001", "account_id": "A20001", "daily_limit": 7000},
    }

    def verdict(ask: str) -> tuple[str, str, str]:
        return bank_verdict(
            banking_spec, ask, gold_calls=[limit], communicate=[{"call": 0, "path": "status"}]
        )

    ask = (
        "Set the limit of my checking account A20001 to 7000; I want the daily transfer "
        "limit to be {}. Its status?"
    )
    stage, reason, detail = verdict(ask.format(6000))
    assert (stage, reason) == ("intent", "unmet_wish"), detail
    assert detail.endswith("but the gold leaves the account's daily_transfer_limit at 7000")
    assert verdict(ask.format(7000)) == ACCEPTED


def test_an_email_asked_for_that_the_gold_does_not_set_is_unmet_wish(
    banking_spec: EnvironmentSpec,
) -> None:
    """medicine-intent-00058 on b5cbf4f: "Could you update my email to hfarmer@icloud.com",
    whose gold set julie28@example.org (its facts held both)."""
    update = {
        "name": "update_client_email",
        "arguments": {"client_id": "C1001", "new_email": "maria.l@example.net"},
    }

    def verdict(ask: str) -> tuple[str, str, str]:
        return bank_verdict(
            banking_spec,
            ask,
            known_facts=[*MARIA["known_facts"], "My new email is maria.l@example.net."],
            gold_calls=[update],
            communicate=[{"call": 0, "path": "email"}],
        )

    stage, reason, detail = verdict("Please update my email to maria@example.net; tell me it.")
    assert (stage, reason) == ("intent", "unmet_wish"), detail
    assert detail == (
        "the instruction asks for 'update my email to maria@example.net', but no row the gold "
        "changes holds that email"
    )
    assert verdict("Please update my email to maria.l@example.net; tell me it.") == ACCEPTED


def test_the_persons_own_record_is_named_by_what_the_write_changes_on_it(
    banking_spec: EnvironmentSpec,
) -> None:
    """Movie's "I'd like to withdraw 43 loyalty points from my profile" was rejected: the
    write's parameter is `amount`, and only the column it changes, `loyalty_points`, or
    "my profile" names the customer's own row (5 of movie's 49 drafts)."""
    tool = Tool.model_validate(
        {
            "name": "change_level",
            "description": "Change a client's tier.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {
                    "client_id": {"type": "string"},
                    "level": {"type": "string", "enum": ["standard", "premium"]},
                },
                "required": ["client_id", "level"],
            },
            "run": ["UPDATE clients SET tier = :level WHERE client_id = :client_id"],
            "returns": "SELECT client_id, tier FROM clients WHERE client_id = :client_id",
            "single": True,
        }
    )
    spec = banking_spec.model_copy(update={"tools": [*banking_spec.tools, tool]})
    email = "tom.becker@example.com"
    change = {"name": "change_level", "arguments": {"client_id": "C1004", "level": "premium"}}
    asks = ("Make my tier premium.", "Make my profile premium.")
    all_kept(spec, asks, email=email, gold_calls=[change], communicate=[])
    # nothing that names the client: no column of theirs, no profile that is "my" one
    for ask in ("Make it premium.", "Make the premium profile mine."):
        stage, reason, detail = bank_verdict(
            spec, ask, email=email, gold_calls=[change], communicate=[]
        )
        assert (stage, reason) == ("intent", "unasked_target"), ask
        assert "never names the client it changes" in detail


def test_an_act_asked_for_that_no_gold_write_does_is_unserved_request(
    banking_spec: EnvironmentSpec,
) -> None:
    """movie-intent-00011: "I'd like to book my next movie. Could you please activate my
    booking for the id 56660?", whose gold only activated. The act is the verb that opens
    a request; a record's name ("my booking") is no act, and any change serves "change"."""
    told = [{"call": 0, "path": "status"}]
    unserved = {
        "I'd like to close my old account. Please freeze my card K30001 and tell me its status.": (
            "the instruction asks to 'close' (\"I'd like to close my old account\"), and no "
            "gold write does it"
        ),
        # movie-intent-00043: "I want to deactivate my customer profile and change my email
        # to abecker@gmail.com", whose gold only deactivated: any write serves "change"
        "Please freeze my card K30001 and change my email to ann@example.com. Its status?": (
            "the instruction asks to change the email ('change my email to'), and no gold "
            "write sets it"
        ),
        # restaurant-intent-00025 on 530f5cd: "I want to move my order quantity from 13 to
        # 7 in my reservation with a party size of 7", whose gold moved the order there
        "Please freeze my card K30001 and change my daily spend limit from 500 to 700.": (
            "the instruction asks to change the daily spend limit ('change my daily spend "
            "limit from 500 to'), and no gold write sets it"
        ),
        # basketball-intent-00015 on 277c846: "I want to get Laura Mora's contract suspended
        # as of 2022-02-12", whose gold suspended it now
        "I want my card K30001 frozen as of 2025-02-12. Can you tell me its status?": (
            "the instruction asks the act to hold 'as of' 2025-02-12, and no gold write takes "
            "a day: it acts now"
        ),
        "Please freeze my card K30001, effective from March 3rd. Its status?": (
            "the instruction asks the act to hold 'effective from' day 03-03, and no gold "
            "write takes a day: it acts now"
        ),
        # medicine-intent-00078 on 277c846: "I'd like to move this prescription to Dr.
        # Rhonda Farmer and request refills", whose gold only moved: each verb after "and",
        # the object of a weak one, an act only this environment has ("pay")
        "I'd like to freeze card K30001 for Dr. Lee and request a transfer. Its status?": (
            "the instruction asks to 'transfer' (\"I'd like to freeze card K30001 for Dr Lee "
            'and request a transfer"), and no gold write does it'
        ),
        "Please freeze my card K30001 and pay my water bill. What is its status?": (
            "the instruction asks to 'pay' ('Please freeze my card K30001 and pay my water "
            "bill'), and no gold write does it"
        ),
        # weather-intent-00100 on 6accfa9: "... severity level of 3, and send it to
        # amber@outlook.com", whose gold only created the alert
        "Please freeze my card K30001 and forward it to ann@example.com. Its status?": (
            "the instruction asks to send something ('forward it to ann@example.com'), and "
            "no call sends"
        ),
    }
    for said, why in unserved.items():
        verdict = freeze_verdict(banking_spec, said)
        assert verdict == ("intent", "unserved_request", why), said
    # ... a field moved from a value to another, which a move of the record to another
    # parent does not serve; a record moved to another is no field
    from validators.intent import _CHANGE_TO

    moved = _CHANGE_TO.search("I want to move my order quantity from 13 to 7 in my reservation")
    assert moved is not None and moved["field"] == "order quantity"
    assert not _CHANGE_TO.search("Please move my reservation to Special Table 5.")
    # an email to change is no delivery (the banking fixture's "I also want my email
    # changed to olivia.b.brown@example.com")
    from validators.intent import _DELIVERY, _delivered

    assert not _DELIVERY.search("I also want my email changed to olivia.b.brown@example.com.")
    # an address the gold writes is the request's own: a subscription's email
    subscribe = Tool.model_validate(
        {"name": "create_subscription", "description": "d", "kind": "write",
         "parameters": {"type": "object", "properties": {"email": {"type": "string"}}},
         "run": ["INSERT INTO subscriptions (email) VALUES (:email)"]}
    )  # fmt: skip
    ask = "Create a subscription for my region and send the alerts to amber@outlook.com."
    for email, sent in (("amber@outlook.com", None), ("bo@x.org", "and no call sends")):
        gold = [{"name": "create_subscription", "arguments": {"email": email}}]
        task = mini_task(instruction=ask, gold_calls=gold)
        found = _delivered(task, {"create_subscription": subscribe})
        assert (found is None) if sent is None else (found is not None and sent in found)
    kept = (
        "I'd like to block my card K30001. Please tell me its status.",  # a synonym
        "Could you please change my card K30001 to frozen and tell me its status?",
        "I want to know my card K30001's status. Please freeze it, and make it quick.",
        "Please confirm whether my card K30001 is frozen, then freeze it. Its status?",
        "Please change the status of my card K30001 to frozen. Its status?",  # a field it sets
        "As of today my card K30001 is missing. Please freeze it and tell me its status.",
        "Could you freeze card K30001 and then tell me its status?",
        "Please freeze my card K30001 and make it quick. Its status?",
    )
    all_kept(banking_spec, kept, gold_calls=[FREEZE], communicate=told)


def test_a_change_by_an_amount_asked_for_as_a_change_to_it_is_unasked_write(
    banking_spec: EnvironmentSpec,
) -> None:
    """ecommerce-intent-00017: "I'm trying to reduce the quantity of my order item from 4 to
    29", whose gold reduced it by 29. Money sent "to" an account is still sent by an
    amount."""
    told = [{"call": 0, "path": "from_balance"}]
    stage, reason, detail = bank_verdict(
        banking_spec,
        "Please move money into A20002 to bring my account A20001 down to 250. My balance?",
        gold_calls=[MOVE],
        communicate=told,
    )
    assert (stage, reason) == ("intent", "unasked_write")
    assert detail.endswith("changes balance by 250; the instruction asks for it 'to 250'")
    for ask, said in (
        # restaurant-intent-00009 on ec28a14: "top up my order to the amount of 39" (27 + 39)
        (
            "Please move money into A20002 to bring my account A20001 to the amount of 250.",
            "'to the amount of 250'",
        ),
        # ecommerce-intent-00032 on 8d65db4: "reduce the quantity of my open return ... from
        # 18 to 16", whose gold reduced it by 20
        (
            "Move $250 from A20001 into A20002, so its balance goes from 1250 to 1150.",
            "'from 1250 to 1150'",
        ),
    ):
        stage, reason, detail = bank_verdict(banking_spec, ask, gold_calls=[MOVE], communicate=told)
        assert (stage, reason) == ("intent", "unasked_write"), detail
        assert detail.endswith(f"asks for it {said}")
    kept = (
        "Please transfer 250 from A20001 to A20002. What is my balance then?",
        "Please transfer $250 from A20001 to my account A20002. My balance?",
    )
    all_kept(banking_spec, kept, gold_calls=[MOVE], communicate=told)
    from validators.intent import _by_as_to

    transfer_funds = banking_spec.tool("transfer_funds")
    moved = "Move $250 from A20001 to A20002: its balance goes from {} to {}."
    for start, end, wrong in (("1250", "1000", False), ("1250", "1150", True)):
        found = _by_as_to(moved.format(start, end), transfer_funds, MOVE["arguments"], set())
        assert (found is not None) == wrong, (start, end)


def test_a_count_topped_up_by_money_is_unasked_write() -> None:
    """restaurant-intent-00068 on 277c846: "I want to top up $27 to my order ... which has
    a quantity of 15", whose gold added 27 to the quantity: dollars asked, units added."""
    topup = Tool.model_validate(
        {
            "name": "topup_order_quantity",
            "description": "Add to an order's quantity.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"order_id": {"type": "integer"}, "amount": {"type": "integer"}},
                "required": ["order_id", "amount"],
            },
            "run": ["UPDATE orders SET quantity = quantity + :amount WHERE order_id = :order_id"],
            "returns": "SELECT order_id, quantity FROM orders WHERE order_id = :order_id",
            "single": True,
        }
    )
    arguments = {"order_id": 54150, "amount": 27}
    columns = [{"name": "order_id", "type": "integer"}, {"name": "quantity", "type": "integer"}]
    table = {"name": "orders", "columns": columns, "primary_key": ["order_id"]}
    schema = Schema.model_validate({"tables": [table]})
    for money in ("I want to top up $27 to my order.", "Add 27 dollars to my order."):
        said = _amount_as_column([money], topup, arguments, schema)
        assert said is not None and "counts no money" in said, money
    for count in ("I want to top up my order by 27.", "Add 27 more to my order, not $5."):
        assert _amount_as_column([count], topup, arguments, schema) is None, count
    # a quantity of money (a real column, or one named as money) is topped up by dollars
    columns[1]["type"] = "real"
    real = Schema.model_validate({"tables": [table]})
    assert _amount_as_column(["I want to top up $27 to my order."], topup, arguments, real) is None


def test_a_repayment_said_only_as_what_the_loan_is_outstanding_at_is_unasked_write() -> None:
    """finance-intent-00445 on 2a7fb38: "I'm trying to pay off my active loan, which is
    currently outstanding at 37978.35", whose gold tried to repay 37978.35 of a loan that
    owes 4103.71: what to repay is never said, only what the loan is said to owe."""
    repay = Tool.model_validate(
        {
            "name": "repay_loan_outstanding_balance",
            "description": "Repay part of a loan.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"loan_id": {"type": "integer"}, "amount": {"type": "number"}},
                "required": ["loan_id", "amount"],
            },
            "run": [
                "UPDATE loans SET outstanding_balance = outstanding_balance - :amount "
                "WHERE loan_id = :loan_id"
            ],
            "returns": "SELECT loan_id, outstanding_balance FROM loans WHERE loan_id = :loan_id",
            "single": True,
        }
    )
    columns = [
        {"name": "loan_id", "type": "integer"},
        {"name": "outstanding_balance", "type": "real"},
    ]
    schema = Schema.model_validate(
        {"tables": [{"name": "loans", "columns": columns, "primary_key": ["loan_id"]}]}
    )
    arguments = {"loan_id": 58899, "amount": 37978.35}
    owed = "I'm trying to pay off my active loan, which is currently outstanding at 37978.35."
    said = _amount_as_column([owed], repay, arguments, schema)
    assert said is not None and "said only as the outstanding_balance" in said
    for asked in (
        "I want to repay 37978.35 of my loan, which is currently outstanding at 40000.",
        "Please repay 37978.35 on my outstanding loan.",
    ):
        assert _amount_as_column([asked], repay, arguments, schema) is None, asked


def test_a_count_said_only_as_a_records_number_is_unasked_write() -> None:
    """ecommerce-intent-00081 on c7c1c76: "I want to return item 27 for my order", whose
    gold returned a quantity of 27 of the one item bought: "item 27" names an item."""
    create = Tool.model_validate(
        {
            "name": "create_return",
            "description": "Return some of an order item.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {
                    "order_item_id": {"type": "integer"},
                    "quantity": {"type": "integer"},
                },
                "required": ["order_item_id", "quantity"],
            },
            "run": [
                "INSERT INTO returns (return_id, order_item_id, quantity) "
                "VALUES (:_new_id, :order_item_id, :quantity)"
            ],
            "returns": "SELECT return_id, quantity FROM returns WHERE return_id = :_new_id",
            "single": True,
        }
    )
    key = {"name": "order_item_id", "type": "integer"}
    items = {
        "name": "order_items",
        "columns": [key, {"name": "quantity", "type": "integer"}],
        "primary_key": ["order_item_id"],
    }
    returns = {
        "name": "returns",
        "columns": [
            {"name": "return_id", "type": "integer"},
            key,
            {"name": "quantity", "type": "integer"},
        ],
        "primary_key": ["return_id"],
    }
    schema = Schema.model_validate({"tables": [items, returns]})
    arguments = {"order_item_id": 43284, "quantity": 27}
    for label in ("I want to return item 27 for my order.", "Return order item #27, please."):
        said = _count_as_label([label], create, arguments, schema)
        assert said is not None and "quantity=27" in said, label
    for count in (
        "I want to return 27 of the items in my order.",
        "Return item 5 of my order, 27 of them.",
        "I want to return a quantity of 27.",
    ):
        assert _count_as_label([count], create, arguments, schema) is None, count


# finance's transfer: its output lists both accounts, ordered by id
TRANSFER_BALANCE = Tool.model_validate(
    {
        "name": "transfer_balance",
        "description": "Move an amount of balance from one account to another.",
        "kind": "write",
        "parameters": {
            "type": "object",
            "properties": {
                "from_account_id": {"type": "integer"},
                "to_account_id": {"type": "integer"},
                "amount": {"type": "number"},
            },
            "required": ["from_account_id", "to_account_id", "amount"],
        },
        "run": [
            "UPDATE accounts SET balance = balance - :amount WHERE account_id = :from_account_id",
            "UPDATE accounts SET balance = balance + :amount WHERE account_id = :to_account_id",
        ],
        "returns": "SELECT account_id, balance FROM accounts WHERE account_id IN "
        "(:from_account_id, :to_account_id) ORDER BY account_id",
        "single": False,
    }
)


def test_a_value_of_the_source_asked_of_the_destination_is_unasked_value() -> None:
    """finance-intent-00282 and 00287 on c430db5 asked the balance of "that account" and of
    "the recipient account" after a transfer, and were told the source's: the transfer's
    output lists both accounts by id, the source second."""
    move = TRANSFER_BALANCE
    call = {
        "name": "transfer_balance",
        "arguments": {"from_account_id": 27604, "to_account_id": 27560, "amount": 1.04},
    }
    output = [{"account_id": 27560, "balance": 901.5}, {"account_id": 27604, "balance": 259.23}]
    replay = Replay(results=[ToolResult(ok=True, output=output)], changes={})
    opening = "I want to transfer $1.04 from my active account to account 27560."

    def told(ask: str, row: int = 1) -> str | None:
        task = mini_task(
            instruction=f"{opening} {ask}",
            gold_calls=[call],
            communicate=[{"call": 0, "path": f"{row}.balance"}],
        )
        return told_of_the_other_end(task, {move.name: move}, replay)

    for other in (
        "I need to know the current balance of that account.",
        "I want to know the balance of the recipient account.",
        "Please tell me the balance of account 27560.",
    ):
        said = told(other)
        assert said is not None and "of the source" in said, other
        assert told(other, row=0) is None, other  # the destination's balance is told
    for own in (
        "I need to know my new balance.",
        "Please tell me the balance of my account 27604.",
        "Tell me the balance of the source account.",
    ):
        assert told(own) is None, own
    # the destination named in the act, before the cue, asks nothing of it
    act = "Please transfer $1.04 from my account to account 27560 and tell me the balance."
    assert (
        told_of_the_other_end(
            mini_task(
                instruction=act, gold_calls=[call], communicate=[{"call": 0, "path": "1.balance"}]
            ),
            {move.name: move},
            replay,
        )
        is None
    )


def test_a_move_said_to_go_from_its_destination_is_unasked_target() -> None:
    """finance-intent-00457 on 2a7fb38, "transfer the balance of my inactive account from
    27562 to my other inactive account", and 00642, "from my account (ID 27560) to the
    account (ID 27560)": the gold moved money from the user's account to 27560."""
    call = {
        "name": "transfer_balance",
        "arguments": {"from_account_id": 27615, "to_account_id": 27562, "amount": 138.6},
    }
    tools = {TRANSFER_BALANCE.name: TRANSFER_BALANCE}

    def said(instruction: str) -> str | None:
        return from_the_destination(mini_task(instruction=instruction, gold_calls=[call]), tools)

    for swapped in (
        "I need to transfer the balance of my inactive account from 27562 to my other account.",
        "Transfer $138.60 from my account (ID: 27562) to the account (ID 27562).",
        "Please move 138.6 from account #27562 into my savings.",
    ):
        found = said(swapped)
        assert found is not None and "moves to 27562" in found, swapped
    # bank-014: "Move $5000 ... to my checking A20019, then pay ... from A20019", the source
    # of the next write
    pay = {"name": "transfer_balance", "arguments": {"from_account_id": 27562, "to_account_id": 1}}
    then = "Move 138.6 from my savings 27615 to my checking 27562, then pay my loan from 27562."
    assert from_the_destination(mini_task(instruction=then, gold_calls=[call, pay]), tools) is None
    for right in (
        "Transfer $138.60 from my account 27615 to account 27562.",
        "Transfer $138.60 from my active account to account 27562.",
        "Move 138.6 from my account to 27562, from which my rent is paid.",
    ):
        assert said(right) is None, right


def test_an_act_asked_of_my_profile_done_on_another_record_is_unasked_target(
    banking_spec: EnvironmentSpec,
) -> None:
    """restaurant-intent-00021 on 277c846: "I want to top up my account by 13 to order 27",
    whose gold added 13 to an order's quantity (restaurant has no accounts). Where a table
    is the accounts, "my account" names one of them."""
    _freeze_refused_else_kept(
        banking_spec,
        "Please freeze my profile, the one with card K30001, and tell me its status.",
        "unasked_target",
        "'freeze my profile', the user's own profile, and the gold acts on their card",
        kept=(
            "Please freeze my card K30001 and tell me its status.",
            "I saw odd charges in my profile. Please freeze card K30001; its status?",
        ),
    )


def _freeze_refused_else_kept(
    spec: EnvironmentSpec, ask: str, reason: str, said: str, kept: tuple[str, ...]
) -> None:
    """`ask` of Maria's whose gold freezes card K30001 is rejected by the intent stage for
    `reason`, its detail saying `said`; each of `kept` is kept."""
    told = [{"call": 0, "path": "status"}]
    verdict = bank_verdict(spec, ask, gold_calls=[FREEZE], communicate=told)
    assert verdict[:2] == ("intent", reason) and said in verdict[2], verdict
    all_kept(spec, kept, gold_calls=[FREEZE], communicate=told)


def test_the_users_own_record_called_yours_is_assistant_voice(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00019 on 277c846: "move the ticket player from your active ticket
    on your game on June 26", the team's own ticket and game, in an assistant's words. Help,
    or a record that is no client's, is the assistant's to have."""
    _freeze_refused_else_kept(
        banking_spec,
        "Please freeze your active card K30001 and tell me its status.",
        "assistant_voice",
        "'your active card'",
        kept=(
            "I need your help: please freeze my card K30001 and tell me its status.",
            "With your new app down, please freeze my card K30001 and tell me its status.",
        ),
    )


def test_the_user_offering_to_tell_what_they_ask_to_be_told_is_assistant_voice(
    banking_spec: EnvironmentSpec,
) -> None:
    """weather-intent-00014 on aedf9df: "I want to cancel my warning alert and tell you the
    alert status"; travel's "Can I cancel it and tell you the status?": the assistant's
    line. Telling the assistant what it needs is the user's."""
    _freeze_refused_else_kept(
        banking_spec,
        "I want to freeze my card K30001 and tell you the card status.",
        "assistant_voice",
        "'and tell you the card status'",
        kept=(
            "Please freeze my card K30001. I can tell you my email. What is its status now?",
            "Can you freeze my card K30001 and tell me its status?",
        ),
    )
    _freeze_refused_else_kept(  # weather-intent-00033 on 8a86ecf
        banking_spec,
        "I need to freeze my card K30001 and then tell you the current card status.",
        "assistant_voice",
        "'and then tell you the current card status'",
        kept=("Please freeze my card K30001 and then tell me the current card status.",),
    )
    _freeze_refused_else_kept(  # finance-intent-00062 on 8a47752
        banking_spec,
        "I want to freeze my card K30001. I'll provide you with the card status.",
        "assistant_voice",
        "I'll provide you with the card status",
        kept=(
            "I want to freeze my card K30001. I'll give you my email; what is its status?",
            # an offer of the user's own details, then a request (from the review)
            "I can give you my card number, and then tell me its status: freeze K30001.",
            "I'll give you the card ID K30001, freeze it and tell me the status.",
        ),
    )


def test_an_amount_said_only_as_what_the_column_holds_is_unasked_write(
    banking_spec: EnvironmentSpec,
) -> None:
    """restaurant-intent-00068 on ec28a14: "top up my reservation for 27, which is the
    quantity of my order" (fact: "The quantity of my order is 27"), whose gold added 27.
    The amount to move is never said, only a balance that equals it."""
    told = [{"call": 0, "path": "from_balance"}]
    unsaid = (
        "Please move money from A20001 to A20002, whose balance is 250. My balance?",
        "Please top up A20002 from A20001 for 250, which is the balance of my savings.",
    )
    for ask in unsaid:
        stage, reason, detail = bank_verdict(banking_spec, ask, gold_calls=[MOVE], communicate=told)
        assert (stage, reason) == ("intent", "unasked_write"), (ask, detail)
        assert "250 is said only as the balance it holds" in detail
    facts = [*MARIA["known_facts"], "The balance of my savings account A20002 is 250."]
    stage, reason, _ = bank_verdict(
        banking_spec,
        "Please move money from A20001 to A20002. My balance?",
        gold_calls=[MOVE],
        communicate=told,
        known_facts=facts,
    )
    assert (stage, reason) == ("intent", "unasked_write")
    kept = (
        "Please transfer 250 from A20001 to A20002, whose balance is 250. My balance?",
        "Please transfer a balance of 250 from A20001 to A20002. My balance then?",
    )
    all_kept(banking_spec, kept, gold_calls=[MOVE], communicate=told)


def test_what_is_left_told_as_a_count_of_something_else_is_unasked_value(
    banking_spec: EnvironmentSpec,
) -> None:
    """Medicine on 8295448 kept "Please tell me how many refills I have left", told the
    prescription's refills_used: a count of what is used answers no question about what is
    left. Asked by its own words, the count is what was asked."""
    told = [{"call": 0, "path": "daily_spend_limit"}]
    left = "Please freeze card K30001 and tell me how much daily spend I have left on it."
    stage, reason, detail = bank_verdict(banking_spec, left, gold_calls=[FREEZE], communicate=told)
    assert (stage, reason) == ("intent", "unasked_value")
    assert "the gold tells daily_spend_limit, which counts something else than what is" in detail
    # medicine-intent-00061 on 277c846: "I want to know how many refills I currently have",
    # told refills_used
    have = "Please freeze card K30001. I want to know how many daily spend I currently have."
    verdict = bank_verdict(banking_spec, have, gold_calls=[FREEZE], communicate=told)
    assert verdict[:2] == ("intent", "unasked_value"), verdict
    asked = "Please freeze card K30001 and tell me its daily spend limit."
    verdict = bank_verdict(banking_spec, asked, gold_calls=[FREEZE], communicate=told)
    assert verdict == ("accepted", "ok", "")


_OPENED = {"name": "open_account", "arguments": {"client_id": "C1001", "kind": "savings"}}


def open_verdict(spec: EnvironmentSpec, ask: str) -> tuple[str, str, str]:
    """The verdict on a request whose gold opens a savings account and tells its status."""
    return bank_verdict(
        spec, ask, gold_calls=[_OPENED], communicate=[{"call": 0, "path": "status"}]
    )


def test_a_new_record_of_another_kind_asked_for_is_unasked_write(
    banking_spec: EnvironmentSpec,
) -> None:
    """Medicine on 8295448 kept "I need to schedule an appointment for Royal Migraine Pills"
    whose gold made a prescription: another tool makes appointments, and the request never
    named a prescription."""
    payee = "Please add a new payee for me, savings kind, and tell me its status."
    stage, reason, detail = open_verdict(banking_spec, payee)
    assert (stage, reason) == ("intent", "unasked_write")
    assert "creates a new account; the instruction asks to add a payee, which add_payee" in detail
    asked = "Please open a new savings account for me and tell me its status."
    assert open_verdict(banking_spec, asked) == ("accepted", "ok", "")


def test_a_change_asked_of_another_kind_of_record_is_unasked_write() -> None:
    """school-intent-00023 on 6accfa9: "I would like to activate the enrollment for the
    course named South Eric Course", whose gold activated a grade (activate_grade). The act
    is asked, but of an enrollment."""
    activate = write_tool(
        "activate_grade",
        "UPDATE grades SET status = 'active' WHERE grade_id = :grade_id",
        grade_id="integer",
    )
    key = [{"name": "id", "type": "integer"}]
    tables = [
        {"name": name, "columns": key, "primary_key": ["id"]}
        for name in ("grades", "enrollments", "courses")
    ]
    schema = Schema.model_validate({"tables": tables})
    said = ["activate"]
    asked = "I would like to activate the enrollment for the course named South Eric Course."
    detail = other_kind_changed(Request(asked), activate, said, schema)
    assert detail == "changes a grade; the instruction's 'activate' is said of an enrollment"
    for kept in (
        "Please activate the grade of my enrollment in South Eric Course.",
        "Please activate my enrollment's grade.",
        "My grade is inactive; please make it active.",
        "Please reactivate it.",
        "For my enrollment in the course South Eric Course, activate the grade.",
        # the act's clause ends at its punctuation, its object at a preposition
        "Please get my grade activated, my enrollment needs it.",
        "Please activate it for the course named South Eric Course.",
    ):
        assert other_kind_changed(Request(kept), activate, said, schema) is None, kept
    # a move's destination is where it goes, not what it moves
    move = write_tool(
        "move_grade_enrollment",
        "UPDATE grades SET enrollment_id = :new_enrollment_id WHERE grade_id = 1",
        grade_id="integer",
        new_enrollment_id="integer",
    )
    for moved in (
        "Please move it to the enrollment of 2024-04-26.",
        "Move the enrollment's grade.",
    ):
        assert other_kind_changed(Request(moved), move, ["move"], schema) is None, moved
    # school-intent-00065 on 6accfa9: one act for two kinds, each changed by a gold write
    both = "I want to deactivate the course named Brianmouth Course, and its active grade."
    assert other_kind_changed(Request(both), activate, ["deactivate"], schema) is not None
    served = {"course", "courses"}
    assert other_kind_changed(Request(both), activate, ["deactivate"], schema, served) is None
    task = mini_task(
        instruction=asked,
        gold_calls=[{"name": "activate_grade", "arguments": {"grade_id": 7}}],
    )
    verdict = unasked_write(task, {"activate_grade": activate}, schema)
    assert verdict is not None and "'activate' is said of an enrollment" in verdict


def test_a_new_record_asked_as_another_kind_that_shares_a_word_is_another() -> None:
    """travel-intent-00040 on 00fbd03: "I just booked a hotel stay ... and I want to add a
    flight booking with 20 bags", whose gold made the hotel booking: "booking" is both
    kinds', "flight" only the other's."""
    from validators.intent import other_kind_asked

    base: dict[str, object] = {"description": "d", "kind": "write"}
    base["parameters"] = {"type": "object", "properties": {}}
    hotel = Tool.model_validate(
        base
        | {"name": "create_hotel_booking", "run": ["INSERT INTO hotel_bookings (id) VALUES (1)"]}
    )
    # a booking that takes a seat is made all the same (no plain create)
    seat = "UPDATE flights SET seats = seats - 1 WHERE id = 1"
    made = ["INSERT INTO flight_bookings (id) VALUES (1)", seat]
    flight = Tool.model_validate(base | {"name": "create_flight_booking", "run": made})
    tools = {t.name: t for t in (hotel, flight)}
    said = "I just booked a hotel stay, and I want to add a flight booking with 20 bags."
    detail = other_kind_asked(Request(said), hotel, tools)
    assert detail is not None and "add a flight, which create_flight_booking makes" in detail
    # a making word said of a moment is no making: weather-intent-00138 on 6accfa9, "create
    # an advisory alert ... The alert will start at 2025-03-28T13:50:00", whose gold made a
    # station too, was kept as asked by "start"
    said = "Please add a flight booking for me. The flight will start at 13:50 on May 2."
    detail = other_kind_asked(Request(said), hotel, tools)
    assert detail is not None and "add a flight, which create_flight_booking makes" in detail
    detail = other_kind_asked(Request("Please book 3 flights to Paris."), hotel, tools)
    assert detail is not None and "book a flight, which create_flight_booking makes" in detail
    for asked in (
        "I want to add a hotel booking and a flight booking.",
        "I want to add a booking at the Dune Lodge.",
        "Please book a room for me.",
    ):
        assert other_kind_asked(Request(asked), hotel, tools) is None, asked


def test_a_kind_asked_to_be_made_that_no_gold_write_makes_is_unserved_request() -> None:
    """travel-intent-00064 on dee4810: "I want to book some travel, specifically a flight
    and a hotel", whose gold made a hotel booking and added bags to a flight booking the
    user had: the making was served, the flight was not."""
    from validators.intent import _unmade_kind

    base: dict[str, object] = {"description": "d", "kind": "write"}
    base["parameters"] = {"type": "object", "properties": {}}
    hotel = Tool.model_validate(
        base
        | {"name": "create_hotel_booking", "run": ["INSERT INTO hotel_bookings (id) VALUES (1)"]}
    )
    flight = Tool.model_validate(
        base
        | {"name": "create_flight_booking", "run": ["INSERT INTO flight_bookings (id) VALUES (1)"]}
    )
    bags = Tool.model_validate(
        base | {"name": "add_bags", "run": ["UPDATE flight_bookings SET bags = 2 WHERE id = 1"]}
    )
    tools = {t.name: t for t in (hotel, flight, bags)}
    calls = [
        {"name": "add_bags", "arguments": {}},
        {"name": "create_hotel_booking", "arguments": {}},
    ]

    def said(instruction: str) -> str | None:
        task = mini_task(instruction=instruction, gold_calls=calls, communicate=[])
        return _unmade_kind(task, tools)

    asked = "I want to book some travel, specifically a flight and a hotel. Add two bags too."
    assert said(asked) == (
        "the instruction asks to book a flight ('I want to book some travel, specifically a "
        "flight and a hotel.'), and no gold write makes a flight booking"
    )
    assert said("I'd like to book a hotel and a flight for my trip.")
    # travel-intent-00062 on 0651c04
    assert said("I'm trying to book a hotel and a flight for my trip. Can you help me?")
    assert said("I am looking to book a hotel and a flight.")
    for kept in (
        "I want to book a hotel for the flight I have, and add two bags to a flight booking.",
        "I want to book a hotel booking. Add two bags to my flight.",
        "I want to book some travel: a hotel near the airport. Add two bags to a flight.",
        "Please add two bags to my flight booking and book a hotel.",
    ):
        assert said(kept) is None, kept


def test_an_order_asked_for_is_not_an_order_item_added_to_another() -> None:
    """ecommerce-intent-00025 on 6c5d348: "I want to place an order. ... Can you please help
    me create this order item", whose gold added an item to an order the user had: an order
    item's words are "order" too, and the check read the order as made."""
    from validators.intent import _unmade_kind

    base: dict[str, object] = {"description": "d", "kind": "write"}
    base["parameters"] = {"type": "object", "properties": {}}
    order = Tool.model_validate(
        base | {"name": "create_order", "run": ["INSERT INTO orders (id) VALUES (1)"]}
    )
    item = Tool.model_validate(
        base | {"name": "create_order_item", "run": ["INSERT INTO order_items (id) VALUES (1)"]}
    )
    tools = {t.name: t for t in (order, item)}
    calls = [{"name": "create_order_item", "arguments": {}}]

    def said(instruction: str) -> str | None:
        task = mini_task(instruction=instruction, gold_calls=calls, communicate=[])
        return _unmade_kind(task, tools)

    assert said("I want to place an order. Please add 29 smartwatches to it.") == (
        "the instruction asks to place an order ('I want to place an order.'), and no gold "
        "write makes an order"
    )
    for kept in (
        "I want to add an order item of 29 smartwatches to my order.",
        "Please create an order item for 29 smartwatches.",
    ):
        assert said(kept) is None, kept


def test_thanks_for_an_act_asks_for_none(banking_spec: EnvironmentSpec) -> None:
    """Medicine's "Thank you for creating an appointment for March 20, 2025 ... I would like
    to know the appointment ID and status." thanked for a booking as if it were made."""
    thanked = "Thank you for freezing my card K30001. Please tell me its status."
    stage, reason, _ = freeze_verdict(banking_spec, thanked)
    assert (stage, reason) == ("intent", "unasked_write")
    asked = "Please freeze my card K30001 and tell me its status. Thank you for your help."
    assert freeze_verdict(banking_spec, asked) == ("accepted", "ok", "")


def test_a_record_sent_or_filed_is_asked_for() -> None:
    """weather-intent-00012 on aedf9df, "I want you to send an alert for watch on House
    Antarctica ...", was unasked_write of create_alert: sending an alert makes one. What
    is sent to the user, or sent of another kind, makes none."""
    base: dict[str, object] = {"name": "create_alert", "description": "d", "kind": "write"}
    base["parameters"] = {"type": "object", "properties": {}}
    alerts = Tool.model_validate(base | {"run": ["INSERT INTO alerts (id) VALUES (1)"]})
    claims = Tool.model_validate(base | {"run": ["INSERT INTO claims (id) VALUES (1)"]})
    asked = "I want you to send an alert for watch on House Antarctica."
    assert said_as_issued(asked, alerts) == "send an alert"
    assert said_as_issued("Please file a new claim for my bag.", claims) == "file a new claim"
    for text in ("The alert ID will be sent to me.", "Send me the alert status.", asked):
        assert said_as_issued(text, claims if text == asked else alerts) is None, text


def test_new_opening_a_place_name_asks_to_create_nothing(banking_spec: EnvironmentSpec) -> None:
    """Railway's and weather's places are "New Ryanville Station", "New Melissaberg
    Station": their "New" is a name's, and asks for no new record."""
    named = "I bank at the New Harbor branch. Please tell me the status of my savings account."
    stage, reason, detail = open_verdict(banking_spec, named)
    assert (stage, reason) == ("intent", "unasked_write")
    assert "creates a record the instruction does not ask for" in detail
    said = "New savings account, please: open one for me and tell me its status."
    assert open_verdict(banking_spec, said)[:2] == ("accepted", "ok")


def test_a_move_onto_a_record_named_as_another_end_is_unasked_target() -> None:
    """Restaurant on ec28a14 kept "move the reservation table named Classic Table 5 from the
    current seating arrangement to the next available table" and "move the Special Table 7
    reservation", each for a move onto that table: where a move goes, found by a name,
    must be said as where it goes."""
    base: dict[str, object] = {"description": "d", "parameters": {"type": "object"}}
    find = Tool.model_validate(base | {"name": "find_table", "kind": "read", "returns": "SELECT 1"})
    move = Tool.model_validate(
        base | {"name": "move_reservation", "kind": "write", "run": ["UPDATE t SET a = 1"]}
    )
    tools = {t.name: t for t in (find, move)}
    calls = [
        {"name": "find_table", "arguments": {"name": "Special Table 7"}},
        {"name": "move_reservation", "arguments": {"reservation_id": 36104, "new_table_id": 29499}},
    ]
    found = ToolResult(ok=True, output=[{"table_id": 29499, "name": "Special Table 7"}])
    replay = Replay(results=[found, ToolResult(ok=True, output={})], changes={})

    def moved(ask: str) -> str | None:
        return unsaid_destination(mini_task(instruction=ask, gold_calls=calls), tools, replay)

    named, same = "names 'Special Table 7'", "the same at both ends of a move"
    for ask, why in (
        ("I just wanted to move the Special Table 7 reservation for a group of two.", named),
        ("Please move my table, which is Special Table 7, to fit a party of two.", named),
        ("Move the reservation table named Special Table 7 to the next available table.", named),
        # travel-intent-00038 on b8ec214: "from Barron-Fleming to Barron-Fleming"; 00045:
        # "from 2022-08-05 to 2022-08-05"; restaurant's "from 16 for a reservation with a
        # party size of 3 to 16 for a reservation with a party size of 3"
        ("Please move my reservation from Special Table 7 to Special Table 7.", same),
        ("Please move my reservation from 2022-08-05 to 2022-08-05.", same),
        ("Move it from 16 for a party size of 3 to 16 for a party size of 3, to it.", same),
    ):
        detail = moved(ask)
        assert detail is not None and why in detail, ask
    for ask in (
        "Please move my reservation for two to Special Table 7.",
        "I need to move my booking onto the Special Table 7, please.",
        # travel-intent-00022 and 00003 on b8ec214, rejected for want of these readings
        "Please move it from my booking of March 1 to a new table, Special Table 7.",
        "I want to move it to a different table. My new table is Special Table 7.",
        "Please move my reservation from 2022-08-05 to Special Table 7.",
        "Please move it from 10 to 10:30, to Special Table 7.",
        # medicine-intent-00002 on 277c846: "send my prescription to Dr. Erin Kirk"
        "Please send my reservation to Dr. Special Table 7 for her party.",
        # weather-intent-00011 on aedf9df: "to the region 'California'"
        "Please move my reservation to the table 'Special Table 7'.",
    ):
        assert moved(ask) is None, ask
    # travel-intent-00043 on b8ec214: "from flight 26187 to flight.", a move onto 26187
    stated = [calls[1]]
    for ask, wrong in (
        ("Move my reservation from table 29499 to another table.", True),
        ("Move my reservation to table 29499.", False),
    ):
        task = mini_task(instruction=ask, gold_calls=stated)
        detail = unsaid_destination(task, tools, Replay(results=[], changes={}))
        assert (detail is not None) == wrong, ask
    # movie-intent-00004 on 71aacdf: the showtime moved onto was listed by the movie id the
    # title found, and the title was said as the booking's ("my booking of Inception")
    listed = [
        {"name": "find_table", "arguments": {"name": "Inception"}},
        {"name": "find_table", "arguments": {"movie_id": 11484}},
        {"name": "move_reservation", "arguments": {"booking_id": 56544, "new_showtime_id": 34062}},
    ]
    chain = Replay(
        results=[
            ToolResult(ok=True, output={"movie_id": 11484, "title": "Inception"}),
            ToolResult(ok=True, output=[{"showtime_id": 34062, "movie_id": 11484}]),
            ToolResult(ok=True, output={}),
        ],
        changes={},
    )
    for ask, wrong in (
        ("Move the showtime for my booking of Inception on 2024-10-10 for 6 seats.", True),
        ("Please move my booking to the Inception showtime on 2024-10-10.", False),
    ):
        detail = unsaid_destination(mini_task(instruction=ask, gold_calls=listed), tools, chain)
        assert (detail is not None) == wrong, ask
    # travel-intent-00030 on d7b1bec: the user's listed bookings, found by their email,
    # held one at the table the find gave; the move goes where the find says
    mine = [
        {"name": "find_table", "arguments": {"email": "kevin@yahoo.com"}},
        {"name": "find_table", "arguments": {"customer_id": 7}},
        *calls,
    ]
    rows = [{"reservation_id": 36104, "table_id": 3}, {"reservation_id": 36105, "table_id": 29499}]
    chain = Replay(
        results=[
            ToolResult(ok=True, output={"customer_id": 7}),
            ToolResult(ok=True, output=rows),
            *replay.results,
        ],
        changes={},
    )
    ask = "Please move my reservation to the table Special Table 7. My email is kevin@yahoo.com."
    assert unsaid_destination(mini_task(instruction=ask, gold_calls=mine), tools, chain) is None


def test_a_value_comes_from_the_row_it_is_before_a_row_that_points_to_it() -> None:
    """travel-intent-00030 on d7b1bec was unasked_target: "new_hotel_id=38582 is one of 5
    rows of gold call 1" (the user's bookings, one at that hotel), where the find of the
    hotel the user named gave it. A value only pointed to still has a source."""
    bookings = [{"booking_id": 5, "hotel_id": 10}, {"booking_id": 6, "hotel_id": 38582}]
    hotel = {"hotel_id": 38582, "name": "Marshall-King"}
    outputs = [{"customer_id": 7}, bookings, hotel]
    replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})
    assert _outputs_of(38582, replay, 3) == [2, 1]
    assert _outputs_of(38582, replay, 2) == [1]
    assert _outputs_of(6, replay, 3) == [1]


def test_a_field_named_by_the_records_kind_is_not_asked_about() -> None:
    """travel-intent-00010 on b8ec214: "cancel my active flight booking ... let me know the
    status of my booking" was rejected as asking for `booked_at`, nobody telling it."""
    schema = flights_spec().schema_
    assert _names_a_record("booked_at", schema)
    assert not _names_a_record("status", schema) and not _names_a_record("seats_available", schema)


def test_a_value_told_of_one_of_two_records_of_a_kind_two_writes_touch_is_asked_of_either(
    mini_spec: EnvironmentSpec,
) -> None:
    """travel-intent-00024 on d7b1bec moved a hotel booking and made another, and asked "the
    hotel booking ID and its status"; school-intent-00062 on 13b4e73 made an enrollment and
    moved another. Here a withdrawal from A1 and a new account, with a balance told."""
    from toolscale.environment import Environment
    from validators.intent import told_of_either

    withdraw = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 30}}
    opened = {"name": "open_account", "arguments": {"client_id": 1}}

    def said(calls: list[dict], told: int, ask: str = "Tell me the balance.") -> str | None:
        task = mini_task(
            instruction=f"Withdraw $30 from my account and open another. {ask}",
            gold_calls=calls,
            communicate=[{"call": told, "path": "balance"}],
        )
        with Environment(mini_spec) as env:
            env.reset()
            replay = Replay(results=[env.step(c) for c in task.gold_calls], changes={})
        tools = mini_spec.tool_map()
        return told_of_either(task, tools, mini_spec.schema_, replay, SeedFacts.of(mini_spec))

    assert said([withdraw, opened], 1) == (
        "tells balance of the account gold call 1 open_account writes, beside another "
        "account another write changes: asked of either"
    )
    assert said([withdraw, opened], 0)
    # the asking sentence says the new one, or the record is said by its key (bank-007,
    # bank-002 of the banking fixture)
    assert said([withdraw, opened], 1, "Tell me the balance of the new account.") is None
    assert said([withdraw, opened], 0, "Tell me the balance of A1.") is None
    assert said([withdraw, opened], 0, "Tell me the balance of the new account.")
    assert said([withdraw], 0) is None
    again = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 5}}
    assert said([withdraw, again], 1) is None  # one account, written twice


def test_a_state_or_another_kinds_column_names_no_persons_record() -> None:
    """ecommerce-intent-00001 on c1da9aa: "update my order shipping address and set the
    status to 'suspended'", whose gold suspended the customer. The status read is the
    order's, and "suspended" says what is set, not whose record."""
    from tests.generators.ecommerce import ecommerce_spec
    from validators.intent import unasked_target

    spec = ecommerce_spec()

    def write(name: str, sql: str, *params: str) -> Tool:
        props = {p: {"type": "string"} for p in params}
        return Tool(
            name=name,
            kind="write",
            description="d",
            parameters={"type": "object", "properties": props},
            run=[sql],
        )

    suspend = write(
        "update_customer_status_suspended",
        "UPDATE customers SET status = 'suspended' WHERE customer_id = :customer_id",
        "customer_id",
    )
    address = write(
        "update_order_shipping_address",
        "UPDATE orders SET shipping_address = :new_shipping_address WHERE order_id = :order_id",
        "order_id",
        "new_shipping_address",
    )
    reads = {n: Tool(name=n, kind="read", description="d", returns="SELECT 1") for n in ("me",)}
    tools = {t.name: t for t in (suspend, address, *reads.values())}
    calls = [
        {"name": "me", "arguments": {"email": "ivy@example.com"}},
        {"name": address.name, "arguments": {"order_id": 300, "new_shipping_address": "9 Oak"}},
        {"name": suspend.name, "arguments": {"customer_id": 1}},
    ]
    outputs = [spec.seed["customers"][0], {"order_id": 300}, {"customer_id": 1}]
    replay = Replay(results=[ToolResult(ok=True, output=o) for o in outputs], changes={})

    def said(instruction: str) -> str | None:
        task = mini_task(
            instruction=instruction,
            known_facts=["My email is ivy@example.com"],
            gold_calls=calls,
            communicate=[{"call": 2, "path": "status"}],
        )
        return unasked_target(task, tools, spec.schema_, replay, SeedFacts.of(spec))

    asked = "Update my order 300's shipping address to 9 Oak and set the status to 'suspended'."
    assert said(asked) == (
        'gold call 2 update_customer_status_suspended{"customer_id":1}: the instruction never '
        "names the customer it changes"
    )
    for kept in (
        "Update my order 300's shipping address to 9 Oak and suspend my customer account.",
        "Update my order 300's shipping address to 9 Oak. Also suspend my profile.",
    ):
        assert said(kept) is None, kept


def test_a_new_record_beside_a_change_of_another_of_its_kind_is_unasked_target() -> None:
    """travel-intent-00052 on 0651c04: "I'm looking to book a flight ... I want to include
    these bags in my flight booking", whose gold added the bags to another booking the
    user had. Bags added to the booking just made are the same record."""
    from validators.intent import new_beside_old

    book = write_tool("create_flight_booking", "INSERT INTO flight_bookings (id) VALUES (1)")
    bags = write_tool("add_bags", "UPDATE flight_bookings SET bags = 2 WHERE id = 1")
    tools = {t.name: t for t in (book, bags)}
    made = ToolResult(ok=True, output={"flight_booking_id": 900, "status": "active"})

    def said(booking: int, first: str = "create_flight_booking") -> str | None:
        calls = [
            {"name": first, "arguments": {"flight_id": 26086}},
            {"name": "add_bags", "arguments": {"flight_booking_id": booking, "bags": 20}},
        ]
        task = mini_task(instruction="Book a flight with 20 bags.", gold_calls=calls)
        replay = Replay(results=[made, ToolResult(ok=True, output={})], changes={})
        return new_beside_old(task, tools, replay)

    assert said(45946) == (
        'gold call 1 add_bags{"bags":20,"flight_booking_id":45946} changes a flight booking '
        "the user has, beside gold call 0, which makes a new one: worded as one request, the "
        "two read as one"
    )
    assert said(900) is None  # the booking just made
    # the old one named by its key: "add 20 bags to my booking 45946" (test_necessity's
    # "withdraw 30 from A1, open an account for client 1")
    calls = [
        {"name": "create_flight_booking", "arguments": {"flight_id": 26086}},
        {"name": "add_bags", "arguments": {"flight_booking_id": 45946, "bags": 20}},
    ]
    named = mini_task(
        instruction="Book a flight, and add 20 bags to booking 45946.", gold_calls=calls
    )
    replay = Replay(results=[made, ToolResult(ok=True, output={})], changes={})
    assert new_beside_old(named, tools, replay) is None
    assert said(45946, first="add_bags") is None  # nothing made


def test_a_request_to_send_to_an_email_no_tool_sends_to_is_unserved_request(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00056 on 31bc8d2: "Please create a ticket ... by sending the
    information to twarren@hotmail.com"; 00032: "Please contact sally@outlook.com". No tool
    sends anything: an agent trained on it promises what it cannot do."""
    for sent in (
        "Please freeze card K30001 by sending the details to maria.lopez@example.com. Status?",
        "Please freeze card K30001 and contact james.chen@example.net. Its status?",
    ):
        stage, reason, detail = freeze_verdict(banking_spec, sent)
        assert (stage, reason) == ("intent", "unserved_request"), (sent, detail)
        assert "no tool sends anything" in detail, detail
    told = "Please freeze card K30001 and tell me its status; my email is maria.lopez@example.com."
    assert freeze_verdict(banking_spec, told)[:2] != ("intent", "unserved_request")


def test_a_request_written_to_the_person_of_the_record_is_third_person(
    banking_spec: EnvironmentSpec,
) -> None:
    """basketball-intent-00026 on 31bc8d2: "Can you please update your status to active? I
    want you to join the team and play for us", from a team of one of its players."""
    for spoken in (
        "Can you please update your status to frozen? Card K30001; tell me its status.",
        "I want you to join the bank. Please freeze card K30001 and tell me its status.",
    ):
        stage, reason, detail = freeze_verdict(banking_spec, spoken)
        assert (stage, reason) == ("intent", "third_person"), (spoken, detail)
        assert "written to the record's person" in detail, detail


def _league() -> EnvironmentSpec:
    """Two teams and their games, each game pointing to teams twice (home and away)."""
    team = [("team_id", "integer"), ("name", "text"), ("email", "text")]
    game = [("game_id", "integer"), ("home_team_id", "integer"), ("away_team_id", "integer")]
    game += [("start_date", "date"), ("status", "text")]

    def read(name: str, sql: str, param: str, kind: str) -> dict[str, Any]:
        properties = {param: {"type": kind}}
        return {"name": name, "description": f"{name}, for a test.", "kind": "read",
                "parameters": {"type": "object", "properties": properties,
                               "required": [param]}, "returns": sql}  # fmt: skip

    games = "SELECT game_id, home_team_id, away_team_id, start_date, status FROM games"
    cancel = write_tool(
        "cancel_game",
        "UPDATE games SET status = 'cancelled' WHERE game_id = :game_id",
        (("SELECT status = 'scheduled' FROM games WHERE game_id = :game_id", "scheduled only"),),
        game_id="integer",
    ).model_dump() | {"returns": f"{games} WHERE game_id = :game_id", "single": True}
    return EnvironmentSpec.model_validate(
        {
            "name": "league",
            "clock": "2025-06-01T09:00:00",
            "schema": {
                "tables": [
                    {
                        "name": "teams",
                        "primary_key": ["team_id"],
                        "columns": [{"name": n, "type": t} for n, t in team],
                    },
                    {
                        "name": "games",
                        "primary_key": ["game_id"],
                        "columns": [{"name": n, "type": t} for n, t in game],
                        "foreign_keys": [
                            {"columns": [c], "ref_table": "teams", "ref_columns": ["team_id"]}
                            for c in ("home_team_id", "away_team_id")
                        ],
                    },
                ]
            },
            "seed": {
                "teams": [
                    {"team_id": 17634, "name": "Hawks", "email": "hawks@example.com"},
                    {"team_id": 17605, "name": "Owls", "email": "owls@example.com"},
                ],
                "games": [
                    {
                        "game_id": 41438,
                        "home_team_id": 17634,
                        "away_team_id": 17605,
                        "start_date": "2025-07-13",
                        "status": "scheduled",
                    },
                    {
                        "game_id": 41439,
                        "home_team_id": 17634,
                        "away_team_id": 17605,
                        "start_date": "2025-08-02",
                        "status": "scheduled",
                    },
                    {
                        "game_id": 41316,
                        "home_team_id": 17605,
                        "away_team_id": 17634,
                        "start_date": "2025-07-13",
                        "status": "scheduled",
                    },
                ],
            },
            "tools": [
                read(
                    "find_team_by_email",
                    "SELECT team_id, name, email FROM teams WHERE email = :email",
                    "email",
                    "string",
                ),
                read(
                    "list_games_by_home_team_id",
                    f"{games} WHERE home_team_id = :home_team_id",
                    "home_team_id",
                    "integer",
                ),
                read(
                    "list_games_by_away_team_id",
                    f"{games} WHERE away_team_id = :away_team_id",
                    "away_team_id",
                    "integer",
                ),
                cancel,
            ],
        }
    )


def test_a_record_picked_from_one_of_two_listings_is_unasked_target() -> None:
    """basketball-intent-00057 on 31bc8d2: "a ticket for Mathew Fletcher's game on July
    13th", picked among the team's home games; the team also played away that day, and no
    call listed its away games."""
    spec = _league()

    def verdict(ask: str, *lists: str, game: int = 41438) -> tuple[str, str, str]:
        find = {"name": "find_team_by_email", "arguments": {"email": "hawks@example.com"}}
        listed = [{"name": n, "arguments": {n.split("_by_")[1]: 17634}} for n in lists]
        task = mini_task(
            instruction=f"Hi, this is hawks@example.com. {ask}",
            known_facts=["My email is hawks@example.com."],
            gold_calls=[find, *listed, {"name": "cancel_game", "arguments": {"game_id": game}}],
            communicate=[{"call": len(lists) + 1, "path": "status"}],
        )
        _, rejected, _ = verify(spec, [task], cross_engine=False)
        return (rejected[0].stage, rejected[0].reason, rejected[0].detail) if rejected else ACCEPTED

    ask = "Please cancel my game on 2025-07-13 and tell me its status."
    stage, reason, detail = verdict(ask, "list_games_by_home_team_id")
    assert (stage, reason) == ("intent", "unasked_target"), detail
    assert "a game whose away_team_id is 17634, which no call lists" in detail
    # a home game said, or a day with no away game, tells it apart
    assert verdict(ask.replace("game", "home game"), "list_games_by_home_team_id") == ACCEPTED
    other_day = "Please cancel my game on 2025-08-02 and tell me its status."
    assert verdict(other_day, "list_games_by_home_team_id", game=41439) == ACCEPTED


def test_a_balance_asked_to_go_whole_that_the_gold_moves_part_of_is_unmet_wish(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00190 in runs/: "my account with a balance of 654 ... transfer the
    balance to another account", and the gold transferred 191.37, its known fact "The amount
    is 191.37". Here A20001 holds 4250.75."""
    facts = [*MARIA["known_facts"], "The amount is 25."]
    for ask in (
        "Please transfer the balance of my checking account A20001 to my savings. Balance after?",
        "I want to move all of my balance from A20001 to my savings. Balance after?",
    ):
        stage, reason, detail = saving_verdict(banking_spec, facts, ask)
        assert (stage, reason) == ("intent", "unmet_wish"), (ask, detail)
        assert detail.endswith("4250.75; gold call 2 transfer_funds moves 25"), detail
    for ask in (
        "Please transfer 25 of the balance of my checking A20001 to my savings. Balance after?",
        "Please send $25 from my checking account A20001 to my savings. Balance after?",
    ):
        verdict = saving_verdict(banking_spec, facts, ask)
        assert verdict == ACCEPTED, (ask, verdict)


def test_this_record_after_one_named_by_its_id_is_that_record() -> None:
    """finance-intent-00630 on 0d74fa0: "transfer $52.58 from my active account to account
    ID 27604 and create a new card for this account", and the gold put the card on the
    user's own account, 27586: "this account" is 27604, someone else's."""
    card = write_tool(
        "create_card", "INSERT INTO cards (account_id) VALUES (:account_id)", account_id="integer"
    )
    move = write_tool(
        "transfer_balance",
        "UPDATE accounts SET balance = balance + :amount WHERE account_id = :to_account_id",
        from_account_id="integer",
        to_account_id="integer",
        amount="number",
    )
    tools = {t.name: t for t in (card, move)}
    send = {
        "name": "transfer_balance",
        "arguments": {"from_account_id": 27586, "to_account_id": 27604, "amount": 52.58},
    }

    def said(instruction: str, account: int = 27586) -> str | None:
        made = {"name": "create_card", "arguments": {"account_id": account}}
        task = mini_task(instruction=instruction, gold_calls=[send, made])
        return this_names_another(task, tools)

    asked = "Send $52.58 from my active account to account ID 27604 and create a new card for "
    detail = said(asked + "this account.")
    assert detail == (
        "'this account' points at account 27604, named right before it, but gold call 1 "
        "create_card acts on account 27586"
    )
    assert said("Send $52.58 to account with the id 27604. Then make a card for that account.")
    # a decimal point is not a sentence's end: "a card worth 2.5 for this account" is one
    assert said("I sent money to account ID 27604, so create a card worth 2.5 for this account.")
    for kept in (
        asked + "my active account.",  # no pointer
        (asked + "this account.", 27604),  # the card is on the named account
        # finance-intent-00166: the transfer goes to the account named
        "Send money to another account with the id 27604. I want to send 52.58 to this account.",
        "I have a card on account 27586. Please make me a new card.",  # no "this"
        "Send 52.58 to account 27604 and tell me the balance of this account.",  # no write said
    ):
        instruction, account = kept if isinstance(kept, tuple) else (kept, 27586)
        assert said(instruction, account) is None, instruction
