"""The intent strategy: a purpose on one person's own records, the calls that serve it, and
refusals where a rule forbids it; every kept task passes every validator stage."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from generators.arguments import ArgumentSampler, parameter_columns
from generators.config import GenerationConfig
from generators.intents import (
    STAGE,
    Listing,
    Purpose,
    _asks_what_is,
    _destination,
    _rule_columns,
    _still_live,
    _to_unasked_state,
    capped,
    draft_purpose,
    gold_chain,
    key_params,
    propose_intent_task,
    purpose_words,
    refusal_share,
    route,
    second_change,
)
from generators.patterns import catalogue
from generators.sampling import Chain
from tests.conftest import mini_task, write_tool
from tests.generators.ecommerce import SEED as SEED_SHOP
from tests.generators.ecommerce import ecommerce_spec
from tests.generators.library import Library, ask
from tests.generators.movie import SCHEMA as MOVIE_SCHEMA
from tests.generators.movie import SEED as MOVIE_SEED
from tests.generators.movie import movie_spec
from tests.generators.railway import bed, col, fk, railway_spec
from tests.generators.test_patterns import clinic
from tests.generators.travel import travel_spec
from toolscale.brief import load_brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient, Outcome
from toolscale.matching import day_of
from toolscale.reasons import GeneratorReason
from toolscale.rules import Enforcement, RuleCoverage
from toolscale.schema import Column, Scalar, Schema, Table
from toolscale.spec import EnvironmentSpec
from toolscale.task import GoldCall, Task
from toolscale.testing.fakedomain import library
from toolscale.tool import Tool, ToolCall
from toolscale.wording import Request
from validators.pipeline import Verifier

FIXTURE = Path(__file__).parents[1] / "fixtures" / "banking" / "environment.json"
FINANCE = Path(__file__).parents[2] / "domains" / "finance" / "brief.yaml"


def with_picked(spec: EnvironmentSpec, picked: list[str]) -> tuple[EnvironmentSpec, dict]:
    """The spec with the catalogue's `picked` tools added, and the catalogue by id."""
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    return spec.model_copy(update={"tools": [*spec.tools, *(cands[i].tool for i in picked)]}), cands


@pytest.fixture(scope="module")
def banking() -> EnvironmentSpec:
    return EnvironmentSpec.model_validate_json(FIXTURE.read_text())


@pytest.fixture(scope="module")
def bank_env(banking: EnvironmentSpec) -> Iterator[Environment]:
    with Environment(banking) as env:
        yield env


def _propose(env: Environment, n: int, tmp_path: Path) -> list[Outcome[Task]]:
    brief = load_brief(FINANCE)
    sampler = ArgumentSampler(env.spec)

    async def many(llm: LLMClient) -> list[Outcome[Task]]:
        return [
            await propose_intent_task(
                llm, brief, env, sampler, f"finance-intent-{i}", random.Random(i), i
            )
            for i in range(n)
        ]

    outcomes: list[Outcome[Task]] = ask(library, tmp_path, many).value
    return outcomes


def test_the_people_are_the_table_with_an_email_and_own_what_points_to_them(
    banking: EnvironmentSpec,
) -> None:
    people = banking.schema_.people()
    assert people is not None and people.name == "clients"
    owned = banking.owners(people)
    account = banking.seed["accounts"][0]
    assert owned["accounts"][account["account_id"]] == account["client_id"]
    card = next(c for c in banking.seed["cards"] if c["account_id"] == account["account_id"])
    assert owned["cards"][card["card_id"]] == account["client_id"]  # two hops: card, account
    assert owned["clients"][account["client_id"]] == account["client_id"]


def test_intent_tasks_identify_the_user_serve_the_purpose_and_verify(
    tmp_path: Path, bank_env: Environment, banking: EnvironmentSpec
) -> None:
    outcomes = _propose(bank_env, 30, tmp_path)
    drafted = [o.value for o in outcomes if o.value is not None]
    for o in outcomes:  # a work item with no purpose found costs no model call
        if o.value is None:
            assert o.rejection is not None and o.rejection.reason == GeneratorReason.NO_CHAIN
    verified: list[Task] = []
    with Verifier(banking) as verifier:
        for task in drafted:
            result = verifier.verify(task)
            if result.value is not None:
                verified.append(result.value)
    assert len(drafted) >= 20 and len(verified) >= 0.85 * len(drafted)
    writes = {t.name for t in banking.tools if t.kind == "write"}
    for task in verified:
        assert task.provenance.source == STAGE
        assert task.gold_calls[0].name == "find_client_by_email"  # identify the user first
        assert sum(c.name in writes for c in task.gold_calls) in (1, 2)  # a write per purpose
    refusals = [t for t in verified if any(c.expect_error for c in t.gold_calls)]
    served = [t for t in verified if not any(c.expect_error for c in t.gold_calls)]
    assert refusals and served
    # some ask for two changes: each a write of its own, on a record of another kind
    two = [t for t in served if sum(c.name in writes for c in t.gold_calls) == 2]
    assert two
    owned = banking.owners(banking.schema_.table("clients"))

    def kind(call: GoldCall) -> str:  # the kind of record the write acts on, as drafted
        keys = key_params(banking.tool(call.name), banking)
        targets = [k.table for k in keys if k.table in owned and k.table != "clients"]
        return (targets or ["clients"])[0]

    for task in two:
        first, second = [c for c in task.gold_calls if c.name in writes]
        assert first.name != second.name and kind(first) != kind(second)
    for task in refusals:  # the gold shows the rule that says no, and changes nothing
        assert task.expected is not None and task.expected.diff.empty
        refused = [c for c in task.gold_calls if c.expect_error]
        assert len(refused) == 1 and refused[0].name in writes
    for task in served:
        assert task.expected is not None and not task.expected.diff.empty
    accounts = {a["account_id"]: a for a in banking.seed["accounts"]}
    transfers = [c for t in served for c in t.gold_calls if c.name == "transfer_funds"]
    assert transfers
    for task in served:  # the account money goes to is named as its owner would name it
        for call in task.gold_calls:
            if call.name == "transfer_funds":
                to = accounts[str(call.arguments["to_account_id"])]
                said = " ".join([task.instruction, *task.known_facts])
                assert str(to["kind"]) in said or str(to["account_id"]) in said


def _with_picked(schema: dict, seed: dict, picked: tuple[str, ...]) -> tuple[EnvironmentSpec, dict]:
    """A movie bed with the catalogue's `picked` operations, and the catalogue's tools."""
    spec = bed("movie", schema, seed)
    made = {c.id: c.tool for c in catalogue(spec.schema_, spec.seed)}
    return spec.model_copy(update={"tools": [*spec.tools, *(made[i] for i in picked)]}), made


def _second_changes(spec: EnvironmentSpec, first: Purpose, n: int) -> list[Chain | None]:
    """What `second_change` joins, for `n` seeds, to the chain serving the customer's
    `first` purpose."""
    people = spec.schema_.table("customers")
    owned = spec.owners(people)
    with Environment(spec) as env:
        chain = gold_chain(env, first, people, owned)
        assert chain is not None
        sampler = ArgumentSampler(spec)
        return [
            second_change(env, sampler, first, chain, people, owned, random.Random(i))
            for i in range(n)
        ]


def test_a_second_change_acts_on_a_record_of_another_kind() -> None:
    """A trial on movie's 71aacdf environment set one booking active, moved another and
    asked "let me know the booking status": of two records of one kind, of either. Mia
    cancels one of her two bookings; moving the other does not join it."""
    seed = json.loads(json.dumps(MOVIE_SEED))
    seed["bookings"].append(
        {"booking_id": 72, "customer_id": 5, "showtime_id": 11, "seats": 1, "status": "confirmed"}
    )
    picked = ("find:customers by email", "cancel:bookings", "move:bookings.showtime_id")
    spec, made = _with_picked(MOVIE_SCHEMA, seed, picked)
    first = Purpose(made["cancel:bookings"], "bookings", 70, {"booking_id": 70})
    assert _second_changes(spec, first, 20) == [None] * 20
    # nor does making a new booking: a create's kind is the record it makes
    picked = (
        "find:customers by email",
        "create:bookings under customers",
        "move:bookings.showtime_id",
    )
    spec, made = _with_picked(MOVIE_SCHEMA, seed, picked)
    move = made["move:bookings.showtime_id"]
    first = Purpose(move, "bookings", 70, {"booking_id": 70, "new_showtime_id": 11})
    assert _second_changes(spec, first, 20) == [None] * 20


def test_a_second_change_acts_only_on_a_record_still_to_come() -> None:
    """A second change has no other person to turn to: where all of the person's records of
    a kind lie behind while others' lie ahead, none of that kind is its target (the first
    purpose draws a person with one ahead; travel-intent-00024 on d7b1bec moved a stay of
    2024-12-11 under a 2025 clock)."""
    schema = json.loads(json.dumps(MOVIE_SCHEMA))
    schema["tables"].append(
        {
            "name": "visits",
            "columns": [
                col("visit_id", "integer"),
                col("customer_id", "integer"),
                col("day", "date"),
                col("status", "text"),
            ],
            "primary_key": ["visit_id"],
            "foreign_keys": [fk("customer_id", "customers")],
            "checks": ["status IN ('booked', 'cancelled')"],
        }
    )
    seed = json.loads(json.dumps(MOVIE_SEED))
    seed["visits"] = [
        {"visit_id": 80, "customer_id": 5, "day": "2024-11-02", "status": "booked"},
        {"visit_id": 81, "customer_id": 6, "day": "2025-02-02", "status": "booked"},
    ]
    picked = ("find:customers by email", "cancel:bookings", "cancel:visits")
    spec, made = _with_picked(schema, seed, picked)
    first = Purpose(made["cancel:bookings"], "bookings", 70, {"booking_id": 70})
    assert _second_changes(spec, first, 10) == [None] * 10
    # Sam's visit lies ahead: a first purpose on a visit is his, never Mia's of 2024
    people = spec.schema_.table("customers")
    owned = spec.owners(people)
    sampler = ArgumentSampler(spec)
    with Environment(spec) as env:
        drafted = [
            draft_purpose(env, sampler, people, owned, random.Random(i), False) for i in range(10)
        ]
    assert {p.target for p in drafted if p is not None and p.table == "visits"} == {81}


def test_a_work_item_is_deterministic(tmp_path: Path, bank_env: Environment) -> None:
    first = _propose(bank_env, 4, tmp_path / "a")
    second = _propose(bank_env, 4, tmp_path / "b")
    assert [o.value for o in first] == [o.value for o in second]
    assert any(o.value is not None for o in first)


def test_intent_tasks_verify_without_an_email_to_identify_by(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    outcomes = _propose(env, 12, tmp_path)
    drafted = [o.value for o in outcomes if o.value is not None]
    assert drafted
    with Verifier(lib.spec) as verifier:
        kept = [verifier.verify(t).value for t in drafted]
    assert sum(t is not None for t in kept) >= len(drafted) // 2


def test_a_record_under_a_record_is_found_in_two_listings(
    banking: EnvironmentSpec, bank_env: Environment
) -> None:
    """No tool lists a client's transactions: the route goes through the account that holds
    one, each step with what the client would say to pick the row."""
    clients = banking.schema_.table("clients")
    transactions = banking.schema_.table("transactions")
    accounts = {a["account_id"]: a for a in banking.seed["accounts"]}
    txn = next(
        t for t in banking.seed["transactions"] if accounts[t["account_id"]]["client_id"] == "C1001"
    )
    steps = route(bank_env, transactions, clients, "C1001", txn["txn_id"])
    assert [s.call.name for s in steps] == ["list_accounts", "list_recent_transactions"]
    assert [s.table for s in steps] == ["accounts", "transactions"]
    assert steps[1].call.arguments == {"account_id": txn["account_id"]}
    for step, key in zip(steps, ["account_id", "txn_id"], strict=True):
        assert step.described is not None
        column, value = step.described
        # a moment by its day where the day tells it apart ("my payment of 2024-03-02")
        picked = [r for r in step.rows if value in (r.get(column), day_of(r.get(column)))]
        assert len(picked) == 1 and column != key


def test_a_refusal_never_asks_for_the_value_a_record_already_has(
    banking: EnvironmentSpec,
) -> None:
    """The medicine run kept "set my appointment to 'completed'" whose gold set it to
    'scheduled', refused only because it already was: a no-op is no refusal to learn."""
    set_status = Tool.model_validate(
        {
            "name": "set_cards_status",
            "description": "Change the status of one card.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {
                    "card_id": {"type": "string"},
                    "status": {"type": "string", "enum": ["active", "frozen", "blocked"]},
                },
                "required": ["card_id", "status"],
            },
            "require": [
                {
                    "sql": "SELECT status <> :status AS differs FROM cards "
                    "WHERE card_id = :card_id",
                    "error": "The cards row already has that status.",
                }
            ],
            "run": ["UPDATE cards SET status = :status WHERE card_id = :card_id"],
        }
    )
    spec = banking.model_copy(update={"tools": [*banking.tools, set_status]})
    card = banking.seed["cards"][0]
    assert _asks_what_is(set_status, {"card_id": card["card_id"], "status": card["status"]}, spec)
    other = "frozen" if card["status"] != "frozen" else "active"
    assert not _asks_what_is(set_status, {"card_id": card["card_id"], "status": other}, spec)
    # railway: "set my refunded ticket to status 'refunded'", a tool whose value is fixed
    fixed = set_status.model_copy(
        update={
            "name": "freeze_this_card",
            "parameters": {
                "type": "object",
                "properties": {"card_id": {"type": "string"}},
                "required": ["card_id"],
            },
            "run": ["UPDATE cards SET status = 'frozen' WHERE card_id = :card_id"],
        }
    )
    frozen = next(c for c in banking.seed["cards"] if c["status"] == "frozen")
    assert _asks_what_is(fixed, {"card_id": frozen["card_id"]}, spec)
    assert not _asks_what_is(fixed, {"card_id": card["card_id"]}, spec)  # active
    # finance on 4221446: "freeze my frozen card" with another reason than the card's
    freeze = "UPDATE cards SET status = 'frozen', note = :note WHERE card_id = :card_id"
    reasoned = fixed.model_copy(update={"run": [freeze]})
    assert _asks_what_is(reasoned, {"card_id": frozen["card_id"], "note": "other"}, spec)
    assert not _asks_what_is(reasoned, {"card_id": card["card_id"], "note": "other"}, spec)
    # school: "update my email to jaime@yahoo.com", the email the student has
    rail = railway_spec()
    cands = catalogue(rail.schema_, rail.seed)
    email = next(c for c in cands if c.id == "update:passengers.email")
    given: dict[str, Scalar] = {"passenger_id": 50, "new_email": "ines@example.com"}
    assert _asks_what_is(email.tool, given, rail)
    assert not _asks_what_is(email.tool, {**given, "new_email": "ines.d@example.com"}, rail)


def test_a_persons_own_row_is_their_profile(banking: EnvironmentSpec) -> None:
    """ "their own client record" came back from the 1.5B as "close my client and get their
    own client record"; the purpose calls the row what a customer would."""
    tool = next(t for t in banking.tools if t.name == "update_client_email")
    clients = banking.schema_.table("clients")
    purpose = Purpose(tool, "clients", "C1001", {"client_id": "C1001", "email": "a@b.co"})
    text = purpose_words(purpose, clients, [], own=True)
    # "update client email, for their client profile" came back as "update my client's
    # email" (42 of finance's 124): the person's email is their own, not a client's
    assert text == "update email, for their own profile."
    close = tool.model_copy(update={"name": "deactivate_client"})  # nothing left to say
    assert purpose_words(Purpose(close, "clients", "C1001", {}), clients, [], own=True) == (
        "deactivate client, for their client profile."
    )
    # what the write sets is said as a change: "frozen reason: stolen" came back as "the
    # card is currently frozen for the reason stolen" when it was active
    freeze = Tool.model_validate(
        {
            "name": "freeze_card",
            "description": "Freeze a card.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {
                    "card_id": {"type": "string"},
                    "frozen_reason": {"type": "string", "enum": ["stolen", "lost"]},
                },
                "required": ["card_id", "frozen_reason"],
            },
            "run": ["UPDATE cards SET status = 'frozen' WHERE card_id = :card_id"],
        }
    )
    cards = banking.schema_.table("cards")
    wanted = Purpose(freeze, "cards", "K1", {"card_id": "K1", "frozen_reason": "stolen"})
    # the act as a verb on the record: "refund ticket, for their ticket whose seat number is
    # 889" came back as "I need to get my ticket status" (railway on 21ceb83)
    assert purpose_words(wanted, cards, [], own=False) == (
        "freeze their card, with frozen reason set to stolen."
    )
    # an amount added or taken off is said with its way: "withdraw account balance" came
    # back as "withdraw my current balance", the amount only in a known fact (finance)
    withdraw = freeze.model_copy(
        update={
            "name": "withdraw_account_balance",
            "run": ["UPDATE accounts SET balance = balance - :amount WHERE account_id = :id"],
        }
    )
    accounts = banking.schema_.table("accounts")
    taken = Purpose(withdraw, "accounts", "A1", {"id": "A1", "amount": 18.31})
    assert purpose_words(taken, accounts, [], own=False) == (
        "withdraw 18.31 from the balance of their account."
    )
    # a record of a kind other people hold is not theirs: school's teachers were asked to
    # "activate their enrollment ... on their course" and said "activate my enrollment"
    listed = [
        Listing(ToolCall(name="list_accounts", arguments={}), "accounts", [], ("kind", "checking")),
        Listing(ToolCall(name="list_cards", arguments={}), "cards", [], ("last4", 2468)),
    ]
    assert purpose_words(wanted, cards, listed, own=False, held={"cards"}) == (
        "freeze the card whose last4 is 2468 on their checking account, with frozen reason "
        "set to stolen."
    )
    assert purpose_words(wanted, cards, [], own=False, held={"cards"}) == (
        "freeze the card, with frozen reason set to stolen."
    )


def test_a_refusal_tells_no_column_the_row_leaves_empty(
    bank_env: Environment, banking: EnvironmentSpec
) -> None:
    """finance-intent-00039 on 5cf74c2 was to tell a reported card's frozen_reason, which
    was null (communicate_unresolved): a refusal tells the rule's columns that hold a
    value."""
    freeze = next(t for t in banking.tools if t.name == "freeze_card")
    card = next(c for c in banking.seed["cards"] if c["status"] == "frozen")
    account = next(a for a in banking.seed["accounts"] if a["account_id"] == card["account_id"])
    people = banking.schema_.table("clients")
    args = {"client_id": account["client_id"], "card_id": card["card_id"]}
    bank_env.reset()
    step = bank_env.step(GoldCall(name=freeze.name, arguments=args))
    assert not step.ok and step.error
    for checked, told in ((["replaces", "status"], ["card_status"]), (["replaces"], None)):
        refused = Purpose(freeze, "cards", card["card_id"], args, step.error, checked)
        chain = gold_chain(bank_env, refused, people, banking.owners(people))
        assert (chain.wanted if chain is not None else None) == told, checked


def test_a_write_whose_output_lists_its_row_is_not_read_back(banking: EnvironmentSpec) -> None:
    """finance-intent-00036 on e4504b8 read the account back after a transfer whose output,
    the two accounts' rows, held its new balance: the told value is the write's own."""
    freeze = next(t for t in banking.tools if t.name == "freeze_card")
    listed = freeze.model_copy(
        update={
            "returns": "SELECT card_id, status FROM cards WHERE card_id = :card_id",
            "single": False,
        }
    )
    spec = banking.model_copy(
        update={"tools": [listed if t.name == freeze.name else t for t in banking.tools]}
    )
    card = next(c for c in spec.seed["cards"] if c["status"] == "active")
    account = next(a for a in spec.seed["accounts"] if a["account_id"] == card["account_id"])
    args = {"client_id": account["client_id"], "card_id": card["card_id"]}
    people = spec.schema_.table("clients")
    with Environment(spec) as env:
        chain = gold_chain(env, Purpose(listed, "cards", card["card_id"], args), people,
                           spec.owners(people))  # fmt: skip
    assert chain is not None
    assert chain.calls[-1].name == "freeze_card"
    assert [(r.call, r.path) for r in chain.communicate] == [(len(chain.calls) - 1, "0.status")]
    assert chain.wanted == ["card_status"]


def test_what_the_user_wants_told_names_its_record(
    bank_env: Environment, banking: EnvironmentSpec
) -> None:
    """ "Tell me the status" after a freeze was read by the judge as the status of the
    freeze: the customer is asked to want the card's status."""
    freeze = next(t for t in banking.tools if t.name == "freeze_card")
    card = next(c for c in banking.seed["cards"] if c["status"] == "active")
    account = next(a for a in banking.seed["accounts"] if a["account_id"] == card["account_id"])
    args = {"client_id": account["client_id"], "card_id": card["card_id"]}
    people = banking.schema_.table("clients")
    chain = gold_chain(bank_env, Purpose(freeze, "cards", card["card_id"], args), people,
                       banking.owners(people))  # fmt: skip
    assert chain is not None and chain.wanted and all(w.startswith("card") for w in chain.wanted)
    # a new record's fields are its own: "the account card id" was asked for a new card
    opened = next(t for t in banking.tools if t.name == "open_account")
    verified = next(c for c in banking.seed["clients"] if c["kyc_verified"])
    wanted = Purpose(opened, "clients", verified["client_id"],
                     {"client_id": verified["client_id"], "kind": "savings"})  # fmt: skip
    made = gold_chain(bank_env, wanted, people, banking.owners(people))
    assert made is not None and made.wanted
    assert all(w.startswith("account_") for w in made.wanted), made.wanted
    # what the user sets is no news: the change is checked by its end state alone
    email = next(t for t in banking.tools if t.name == "update_client_email")
    client = banking.seed["clients"][0]["client_id"]
    mine = Purpose(email, "clients", client, {"client_id": client, "new_email": "n@example.com"})
    changed = gold_chain(bank_env, mine, people, banking.owners(people))
    assert changed is not None and changed.wanted == [] and changed.communicate == []
    # what the write makes besides is news, and the person's own field is theirs: "tell me
    # my tier", not "my client tier"
    run = [email.run[0].replace("SET email", "SET tier = 'premium', email")]
    tiered = email.model_copy(update={"run": run})
    spec = banking.model_copy(
        update={"tools": [tiered if t.name == email.name else t for t in banking.tools]}
    )
    client = next(c for c in banking.seed["clients"] if c["tier"] != "premium")["client_id"]
    mine = Purpose(tiered, "clients", client, {"client_id": client, "new_email": "n@example.com"})
    with Environment(spec) as env:
        changed = gold_chain(env, mine, people, spec.owners(people))
    assert changed is not None and changed.wanted == ["tier"]


def test_a_record_the_user_does_not_own_is_named_and_looked_up() -> None:
    """travel-intent-00025's user said "hotel id: 48580": nobody booking a hotel knows its
    id. The user names the hotel, and the gold finds it by that name before booking."""
    spec = travel_spec()
    picked = ["create:hotel_bookings under customers", "find:customers by email"]
    picked.append("find:hotels by name")
    spec, cands = with_picked(spec, picked)
    find = cands["find:hotels by name"].tool
    # `lower(name) = lower(:name)` is the hotel's name, not the first table's with a name
    assert parameter_columns(find, spec) == {"name": ("hotels", "name")}
    book = cands["create:hotel_bookings under customers"].tool
    given: dict[str, Scalar] = {"customer_id": 1, "hotel_id": 20}
    given |= {"check_in_date": "2025-03-01", "check_out_date": "2025-03-03", "status": "booked"}
    arguments = {k: v for k, v in given.items() if k in book.param_types()}
    people = spec.schema_.table("customers")
    with Environment(spec) as env:
        chain = gold_chain(
            env, Purpose(book, "customers", 1, arguments), people, spec.owners(people)
        )
    assert chain is not None
    assert [c.name for c in chain.calls] == [
        "find_customer_by_email",
        "find_hotel_by_name",
        book.name,
    ]
    assert chain.calls[1].arguments == {"name": "Harbor Inn"}
    # another record's field is said as that record's ("hotel's name"): school's "student
    # first name" came back as "My student first name is Pamela", then as "my child"
    assert ("hotel's name", "Harbor Inn") in chain.facts
    assert chain.speaker == "customer"
    assert 20 not in [v for _, v in chain.facts]  # the id comes from the lookup's output


def test_where_a_record_moves_is_said_as_the_new_one() -> None:
    """medicine on c778e9c: the doctor an appointment moves to was given as "My doctor's first
    name is Sydney", and the 1.5B wrote "move it to you" (27 of 116 drafts rejected as
    unasked_target on a move, 19 "to you" or the like). The destination's fields are the
    new record's."""
    spec = travel_spec()
    picked = ["move:hotel_bookings.hotel_id", "find:customers by email", "find:hotels by name"]
    spec, cands = with_picked(spec, picked)
    move = cands["move:hotel_bookings.hotel_id"].tool
    people = spec.schema_.table("customers")
    owned = spec.owners(people)
    booking = next(iter(owned["hotel_bookings"]))
    stay = next(b for b in spec.seed["hotel_bookings"] if b["booking_id"] == booking)
    hotel = next(h for h in spec.seed["hotels"] if h["hotel_id"] != stay["hotel_id"])
    arguments: dict[str, Scalar] = {"booking_id": booking, "new_hotel_id": hotel["hotel_id"]}
    with Environment(spec) as env:
        chain = gold_chain(env, Purpose(move, "hotel_bookings", booking, arguments), people, owned)
    assert chain is not None
    assert ("new hotel's name", hotel["name"]) in chain.facts
    assert not any(label == "hotel's name" for label, _ in chain.facts)


def test_a_status_set_by_a_generic_verb_is_worded_as_the_change() -> None:
    """`set_pending_hotel_booking` was worded "set pending hotel booking, for their hotel
    booking", and the 1.5B wrote "set a pending hotel booking for my hotel booking" (a
    description, not a change: 11 of travel's 37 rejections, all unasked_write)."""
    pending = Tool.model_validate(
        {
            "name": "set_pending_hotel_booking",
            "description": "Set the status of a hotel booking to pending.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"booking_id": {"type": "integer"}},
                "required": ["booking_id"],
            },
            "run": ["UPDATE hotel_bookings SET status = 'pending' WHERE booking_id = :booking_id"],
        }
    )
    spec = travel_spec()
    bookings = spec.schema_.table("hotel_bookings")
    purpose = Purpose(pending, "hotel_bookings", 500, {"booking_id": 500})
    said = purpose_words(purpose, bookings, [], own=False)
    assert said == "set the status of their hotel booking to pending."
    assert Request(said.replace("their", "my")).requests("pending", {"hotel", "booking"})


def test_a_move_is_worded_as_a_verb_on_the_record_and_where_it_goes() -> None:
    """School on 5d152ba worded `move_enrollment_student` as "move enrollment student, for
    their enrollment ..., to the student Kari Spencer", and its 1.5B wrote "the enrollment for
    student Kari Spencer ... to the student named Kari Spencer" (3 of its moves)."""
    keys = {k: {"type": "integer"} for k in ("booking_id", "new_hotel_id")}
    move = Tool(
        name="move_hotel_booking_hotel",
        description="Move a hotel booking to another hotel.",
        kind="write",
        parameters={"type": "object", "properties": keys},
        run=["UPDATE hotel_bookings SET hotel_id = :new_hotel_id WHERE booking_id = 500"],
    )
    bookings = travel_spec().schema_.table("hotel_bookings")
    purpose = Purpose(move, "hotel_bookings", 500, {"booking_id": 500, "new_hotel_id": 21})
    said = purpose_words(purpose, bookings, [], own=False, to="to the hotel Dune Lodge")
    assert said == "move their hotel booking, to the hotel Dune Lodge."


# a team (the person, with an email) and its players: basketball's beds start from them
TEAM_TABLES = [
    {
        "name": "teams",
        "columns": [col("team_id", "integer"), col("name", "text"), col("email", "text")],
        "primary_key": ["team_id"],
    },
    {
        "name": "players",
        "columns": [
            col("player_id", "integer"),
            col("team_id", "integer"),
            col("name", "text"),
        ],
        "primary_key": ["player_id"],
        "foreign_keys": [fk("team_id", "teams")],
    },
]


def test_the_writes_other_records_of_the_person_are_named_and_listed() -> None:
    """Basketball's tasks said "the player ID is 24182" for the player a new ticket is for:
    the team's own player is named and picked from the team's players, as the game is."""
    schema = {
        "tables": [
            *TEAM_TABLES,
            {
                "name": "games",
                "columns": [
                    col("game_id", "integer"),
                    col("home_team_id", "integer"),
                    col("start_date", "date"),
                ],
                "primary_key": ["game_id"],
                "foreign_keys": [
                    {"columns": ["home_team_id"], "ref_table": "teams", "ref_columns": ["team_id"]}
                ],
            },
            {
                "name": "tickets",
                "columns": [
                    col("ticket_id", "integer"),
                    col("game_id", "integer"),
                    col("player_id", "integer"),
                    col("price", "real"),
                ],
                "primary_key": ["ticket_id"],
                "foreign_keys": [fk("game_id", "games"), fk("player_id", "players")],
            },
        ]
    }
    seed = {
        "teams": [{"team_id": 1, "name": "Hawks", "email": "hawks@example.com"}],
        "players": [
            {"player_id": 10, "team_id": 1, "name": "Kai Moss"},
            {"player_id": 11, "team_id": 1, "name": "Lee Park"},
        ],
        "games": [
            {"game_id": 20, "home_team_id": 1, "start_date": "2025-02-01"},
            {"game_id": 21, "home_team_id": 1, "start_date": "2025-03-01"},
        ],
        "tickets": [],
    }
    spec = bed("basketball", schema, seed)
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    sell = cands["create:tickets under games"].tool
    spec = spec.model_copy(update={"tools": [*spec.tools, cands["find:teams by email"].tool, sell]})
    teams = spec.schema_.table("teams")
    purpose = Purpose(sell, "games", 21, {"game_id": 21, "player_id": 11, "price": 40.0})
    with Environment(spec) as env:
        chain = gold_chain(env, purpose, teams, spec.owners(teams))
    assert chain is not None
    names = [c.name for c in chain.calls]
    assert names[0] == "find_team_by_email" and names[-1] == sell.name
    assert "list_players_by_team_id" in names and "list_games_by_home_team_id" in names
    assert ("player name", "Lee Park") in chain.facts
    assert 11 not in [v for _, v in chain.facts]  # the player's id comes from the listing


def test_a_refusal_on_the_persons_own_row_tells_from_the_find(banking: EnvironmentSpec) -> None:
    """travel-intent-00007 found the customer by email, then read the same customer again
    to tell why deactivating was refused: the find already shows the row."""
    error = "Only a standard client can be upgraded."
    upgrade = Tool.model_validate(
        {
            "name": "upgrade_client",
            "description": "Upgrade a standard client to premium.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"client_id": {"type": "string"}},
                "required": ["client_id"],
            },
            "require": [
                {
                    "sql": "SELECT tier = 'standard' AS ok FROM clients "
                    "WHERE client_id = :client_id",
                    "error": error,
                }
            ],
            "run": ["UPDATE clients SET tier = 'premium' WHERE client_id = :client_id"],
        }
    )
    spec = banking.model_copy(update={"tools": [*banking.tools, upgrade]})
    clients = spec.schema_.table("clients")
    purpose = Purpose(upgrade, "clients", "C1001", {"client_id": "C1001"}, error, ["tier"])
    with Environment(spec) as env:
        chain = gold_chain(env, purpose, clients, spec.owners(clients))
    assert chain is not None
    assert [c.name for c in chain.calls] == ["find_client_by_email", "upgrade_client"]
    assert [(r.call, r.path) for r in chain.communicate] == [(0, "tier")]
    assert chain.errors == {1: error}


def test_a_write_that_works_on_few_records_still_gets_its_share(
    bank_env: Environment, banking: EnvironmentSpec
) -> None:
    """A write is tried on several records before another is drawn: redrawing at every
    failure gave the writes that rarely fail most tasks (travel: 56 of 120 drafts moved a
    booking, none cancelled a flight booking). Unfreezing works only on a frozen card."""
    people = banking.schema_.table("clients")
    owned = banking.owners(people)
    sampler = ArgumentSampler(banking)
    drafted = [
        draft_purpose(bank_env, sampler, people, owned, random.Random(i), False) for i in range(120)
    ]
    writes = [p.write.name for p in drafted if p is not None]
    assert writes.count("unfreeze_card") >= 4  # 0 when every failure drew again
    assert max(writes.count(w) for w in set(writes)) <= 24
    # a new record of the person's is as much theirs as one they have: movie's one create
    # was drawn for 1 in 17 work items and never kept (here: 1 of 60 opened an account)
    assert writes.count("open_account") >= 8


def test_a_record_nothing_but_its_id_tells_apart_is_still_found_among_the_persons_own() -> None:
    """Finance's gold set a transfer pending by its id alone: no find, no read, against the
    policy (identify the user, read the record first). The user gives the id; the gold
    finds them and lists their loans, the one among them."""
    schema = {
        "tables": [
            {
                "name": "clients",
                "columns": [col("client_id", "integer"), col("name", "text"), col("email", "text")],
                "primary_key": ["client_id"],
            },
            {
                "name": "loans",
                "columns": [
                    col("loan_id", "integer"),
                    col("client_id", "integer"),
                    col("amount", "real"),
                    col("status", "text"),
                ],
                "primary_key": ["loan_id"],
                "foreign_keys": [fk("client_id", "clients")],
                "checks": ["status IN ('active', 'closed')"],
            },
        ]
    }
    seed = {
        "clients": [{"client_id": 1, "name": "Ann Lee", "email": "ann@example.com"}],
        "loans": [  # two active loans: only the amount, a float, differs
            {"loan_id": 70, "client_id": 1, "amount": 100.5, "status": "active"},
            {"loan_id": 71, "client_id": 1, "amount": 200.5, "status": "active"},
        ],
    }
    spec = bed("finance", schema, seed)
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    close = cands["status:loans.status=closed"].tool
    spec = spec.model_copy(
        update={"tools": [*spec.tools, cands["find:clients by email"].tool, close]}
    )
    clients = spec.schema_.table("clients")
    loans = spec.schema_.table("loans")
    with Environment(spec) as env:
        assert route(env, loans, clients, 1, 71) == []  # nothing the user would say picks it
        chain = gold_chain(env, Purpose(close, "loans", 71, {"loan_id": 71}), clients,
                           spec.owners(clients))  # fmt: skip
    assert chain is not None
    assert [c.name for c in chain.calls] == [
        "find_client_by_email",
        "list_loans_by_client_id",
        close.name,
    ]
    assert ("loan_id", 71) in chain.facts


def test_a_move_says_where_the_record_goes() -> None:
    """Basketball's "I need to move the contract team for Briana Ward" named no team (the
    gold moved it to the user's own): the judge refused all 5 moves it saw. The purpose
    says where: the person's own team, or their player picked from a listing."""
    schema = {
        "tables": [
            *TEAM_TABLES,
            {
                "name": "contracts",
                "columns": [
                    col("contract_id", "integer"),
                    col("player_id", "integer"),
                    col("team_id", "integer"),
                    col("salary", "real"),
                ],
                "primary_key": ["contract_id"],
                "foreign_keys": [fk("player_id", "players"), fk("team_id", "teams")],
            },
        ]
    }
    seed = {
        "teams": [
            {"team_id": 1, "name": "Hawks", "email": "hawks@example.com"},
            {"team_id": 2, "name": "Owls", "email": "owls@example.com"},
            {"team_id": 3, "name": "Ravens", "email": "ravens@example.com"},
        ],
        "players": [
            {"player_id": 10, "team_id": 1, "name": "Kai Moss"},
            {"player_id": 11, "team_id": 1, "name": "Lee Park"},
        ],
        "contracts": [{"contract_id": 30, "player_id": 10, "team_id": 2, "salary": 10.5}],
    }
    spec = bed("basketball", schema, seed)
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    to_team = cands["move:contracts.team_id"].tool
    to_player = cands["move:contracts.player_id"].tool
    find, named = cands["find:teams by email"].tool, cands["find:teams by name"].tool
    spec = spec.model_copy(update={"tools": [*spec.tools, find, named, to_team, to_player]})
    teams = spec.schema_.table("teams")
    owned = spec.owners(teams)
    person = owned["contracts"][30]
    assert person == 1, person  # through its player: the team the user is
    moves: list[tuple[Tool, dict[str, Scalar], str]] = [
        (to_team, {"contract_id": 30, "new_team_id": 1}, "to their own team."),
        (to_player, {"contract_id": 30, "new_player_id": 11}, "to their player whose name is"),
        # a record of nobody's by its name (medicine's "move appointment to doctor" came
        # back as "move it to my preferred time", no doctor said)
        (to_team, {"contract_id": 30, "new_team_id": 3}, "to the team Ravens."),
    ]
    for tool, arguments, said in moves:
        with Environment(spec) as env:
            chain = gold_chain(env, Purpose(tool, "contracts", 30, arguments), teams, owned)
        assert chain is not None and chain.purpose is not None, tool.name
        assert said in chain.purpose, chain.purpose


def test_a_record_without_a_name_is_named_by_what_it_belongs_to_and_looked_up() -> None:
    """Movie's bookings needed a showtime, which has no name: the user would have had to
    state "showtime id 34026". A trip is named by its train and its departure, and the gold
    finds the train by name and lists its trips, as a clerk would."""
    spec = railway_spec()
    picked = ["create:tickets under passengers", "find:passengers by email", "find:trains by name"]
    spec, cands = with_picked(spec, picked)
    book = cands["create:tickets under passengers"].tool
    people = spec.schema_.table("passengers")
    purpose = Purpose(book, "passengers", 50, {"passenger_id": 50, "trip_id": 11, "price": 40.0})
    with Environment(spec) as env:
        chain = gold_chain(env, purpose, people, spec.owners(people))
    assert chain is not None
    assert [c.name for c in chain.calls] == [
        "find_passenger_by_email",
        "find_train_by_name",
        "list_trips_by_train_id",
        book.name,
    ]
    assert chain.calls[1].arguments == {"name": "Valley"}
    assert ("train's name", "Valley") in chain.facts
    assert chain.speaker == "passenger"  # who speaks is of the people's kind
    assert ("trip departure_time", "2025-01-16") in chain.facts  # its one trip that day
    assert 11 not in [v for _, v in chain.facts]  # the trip's id comes from the listing
    assert chain.purpose == "create ticket, for themselves."  # not "for their own profile"
    # a column named for its table is said once: movie's "The showtime showtime date is"
    renamed = json.loads(
        json.dumps(spec.model_dump(by_alias=True)).replace("departure_time", "trip_departure")
    )
    spec = EnvironmentSpec.model_validate(renamed)
    book = next(t for t in spec.tools if t.name == book.name)
    purpose = Purpose(book, "passengers", 50, {"passenger_id": 50, "trip_id": 11, "price": 40.0})
    with Environment(spec) as env:
        chain = gold_chain(env, purpose, people, spec.owners(people))
    assert chain is not None and ("trip_departure", "2025-01-16") in chain.facts
    # a record named by its title is found by it: a movie
    movies = Schema.model_validate(
        {
            "tables": [
                {
                    "name": "movies",
                    "columns": [col("movie_id", "integer"), col("title", "text")],
                    "primary_key": ["movie_id"],
                }
            ]
        }
    )
    finds = {c.id: c.tool.name for c in catalogue(movies, {}) if c.pattern == "find"}
    assert finds == {"find:movies by title": "find_movie_by_title"}


def test_the_briefs_operations_are_drawn_before_the_catalogues_others(
    bank_env: Environment, banking: EnvironmentSpec
) -> None:
    """Ecommerce's shoppers set their own orders to paid and delivered (operations the
    catalogue offers) more often than they cancelled one (what the brief's rules are
    about): 2 of 60 drafts cancelled, 9 moved a return. A write that enforces a rule is
    drawn three times as often. Adding a payee: 3 of 60 without a rule."""
    rule = RuleCoverage(
        rule="A client can add at most 10 payees.",
        enforced_by=[Enforcement(tool="add_payee", step=1, check="At most 10 payees.")],
    )
    spec = banking.model_copy(update={"rules": [rule]})
    people = spec.schema_.table("clients")
    owned = spec.owners(people)
    sampler = ArgumentSampler(spec)
    with Environment(spec) as env:
        drafted = [
            draft_purpose(env, sampler, people, owned, random.Random(i), False) for i in range(60)
        ]
    writes = [p.write.name for p in drafted if p is not None]
    assert writes.count("add_payee") >= 7


def test_a_refusal_whose_rule_also_reads_another_record_tells_nothing_of_the_target() -> None:
    """Restaurant's create_order refused "an order can only be placed for a reservation with
    status seated and for a menu item whose is_available is true" (two steps, one error)
    and told the reservation's status, seated: the item was what was unavailable."""
    tool = Tool.model_validate(
        {
            "name": "create_order",
            "description": "Order a menu item for a reservation.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {}, "required": []},
            "require": [
                {
                    "sql": "SELECT status IN ('seated') AS ok FROM reservations "
                    "WHERE reservation_id = :reservation_id",
                    "error": "Seated reservations and available items only.",
                },
                {
                    "sql": "SELECT is_available AS ok FROM menu_items "
                    "WHERE menu_item_id = :menu_item_id",
                    "error": "Seated reservations and available items only.",
                },
            ],
            "run": ["DELETE FROM reservations WHERE 0"],
        }
    )
    reservations = _with_status("reservations", "reservation_id")
    error = "Seated reservations and available items only."
    assert _rule_columns(tool, error, reservations) is None
    alone = tool.model_copy(update={"require": tool.require[:1]})
    assert _rule_columns(alone, error, reservations) == ["status"]
    # the row's own columns before the ids it points by: medicine asked for "the current
    # appointment patient id and appointment doctor id" while the status went untold
    appointments = Schema.model_validate(clinic()).table("appointments")
    check = "SELECT COUNT(*) > 0 AS ok FROM appointments WHERE appointment_id = :appointment_id "
    both = {"sql": check + "AND patient_id = :patient_id AND status = 'completed'", "error": error}
    ids = {"sql": check + "AND patient_id = :patient_id AND doctor_id = :doctor_id", "error": error}
    rule = Tool.model_validate(tool.model_dump() | {"require": [both]})
    assert _rule_columns(rule, error, appointments) == ["status"]
    # ... and no ids alone (school-intent-00005 on 920fa98 told a student id and a course
    # id to "I'd like to know if it's possible")
    by_ids = Tool.model_validate(tool.model_dump() | {"require": [ids]})
    assert _rule_columns(by_ids, error, appointments) is None


def _with_status(name: str, key: str) -> Table:
    """A table of a key and a status."""
    table = {"name": name, "columns": [col(key, "integer"), col("status", "text")]}
    return Schema.model_validate({"tables": [table | {"primary_key": [key]}]}).table(name)


def test_a_refusal_for_its_argument_tells_no_column_the_same_error_names() -> None:
    """school-intent-00012 on 5d152ba: one error for "a score between 0 and 100" and "an
    active enrollment" told the enrollment's active status of a grade refused for its score
    3462.6."""
    error = "A score is 0 to 100, and only for an active enrollment."
    on_score = {"sql": "SELECT :score <= 100.0 AS ok", "error": error}
    active = {
        "sql": "SELECT status IN ('active') AS ok FROM enrollments WHERE enrollment_id = :e",
        "error": error,
    }
    tool = Tool.model_validate(
        {
            "name": "create_grade",
            "description": "Record a grade.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"e": {"type": "integer"}, "score": {"type": "number"}},
                "required": ["e", "score"],
            },
            "require": [on_score, active],
            "run": ["INSERT INTO grades (enrollment_id, score) VALUES (:e, :score)"],
        }
    )
    enrollments = _with_status("enrollments", "enrollment_id")
    assert _rule_columns(tool, error, enrollments, {"e": 1, "score": 3462.6}) is None
    assert _rule_columns(tool, error, enrollments, {"e": 1, "score": 88.5}) == ["status"]


def _shop(orders: list[dict]) -> EnvironmentSpec:
    """Ecommerce's orders, with every status move and cancel the catalogue offers."""
    schema = {
        "tables": [
            {
                "name": "customers",
                "columns": [col("customer_id", "integer"), col("email", "text")],
                "primary_key": ["customer_id"],
            },
            {
                "name": "orders",
                "columns": [
                    col("order_id", "integer"),
                    col("customer_id", "integer"),
                    col("order_date", "datetime"),
                    col("status", "text"),
                ],
                "primary_key": ["order_id"],
                "foreign_keys": [fk("customer_id", "customers")],
                "checks": ["status IN ('pending', 'paid', 'shipped', 'delivered', 'cancelled')"],
            },
        ]
    }
    customers = [{"customer_id": c, "email": f"c{c}@example.com"} for c in range(1, 5)]
    spec = bed("ecommerce", schema, {"customers": customers, "orders": orders})
    made = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    tools = [c.tool for c in made.values() if c.pattern in ("status", "cancel")]
    return spec.model_copy(
        update={"tools": [*spec.tools, made["find:customers by email"].tool, *tools]}
    )


def test_a_move_into_a_state_only_the_business_reaches_is_not_drafted() -> None:
    """Ecommerce's shoppers set their own orders to paid, delivered and back to pending: the
    catalogue offers each move, no customer asks a shop for one. Only the moves a customer
    asks for (here: cancel) are drafted while there are some."""
    states = ["pending", "paid", "shipped", "delivered"]
    spec = _shop(
        [
            {
                "order_id": 100 + i,
                "customer_id": 1 + i % 4,
                "order_date": f"2024-05-{10 + i}T21:40:34",
                "status": states[i % 4],
            }
            for i in range(16)
        ]
    )
    moves = {t.name for t in spec.tools if t.kind == "write"}
    assert moves >= {"cancel_order", "deliver_order", "ship_order"}
    people = spec.schema_.table("customers")
    owned = spec.owners(people)
    sampler = ArgumentSampler(spec)
    with Environment(spec) as env:
        drafted = [
            draft_purpose(env, sampler, people, owned, random.Random(i), refusal)
            for i in range(30)
            for refusal in (False, True)
        ]
    writes = {p.write.name for p in drafted if p is not None}
    assert writes == {"cancel_order"}
    # where every write is such a move, they are drafted: a domain keeps its tasks
    alone = spec.model_copy(update={"tools": [t for t in spec.tools if t.name != "cancel_order"]})
    with Environment(alone) as env:
        purpose = draft_purpose(env, sampler, people, owned, random.Random(0), False)
    assert purpose is not None and purpose.write.name != "cancel_order"


def _served(spec: EnvironmentSpec, n: int = 30) -> list[Purpose | None]:
    """`n` served purposes drafted for the shop's customers, one per seed."""
    people = spec.schema_.table("customers")
    sampler = ArgumentSampler(spec)
    with Environment(spec) as env:
        return [
            draft_purpose(env, sampler, people, spec.owners(people), random.Random(i), False)
            for i in range(n)
        ]


def _order(spec: EnvironmentSpec, key: object) -> dict:
    return next(o for o in spec.seed["orders"] if o["order_id"] == key)


def test_a_served_write_acts_on_a_record_still_to_come() -> None:
    """travel-intent-00003 on 7e55d3f added 18 bags to a flight booking of 2024-08-05
    under a 2025-01-15 clock: where some of a table's records lie ahead, a served write
    takes one of those; where none of the person's does, any of theirs."""
    spec = _shop(
        [
            {
                "order_id": 100 + i,
                "customer_id": 1 + i % 4,
                "order_date": "2025-03-01T10:00:00" if i >= 4 else "2024-08-05T10:00:00",
                "status": "pending",
            }
            for i in range(8)
        ]
    )
    assert spec.clock[:10] == "2025-01-15"
    people = spec.schema_.table("customers")
    sampler = ArgumentSampler(spec)
    days = {_order(spec, p.target)["order_date"] for p in _served(spec) if p is not None}
    assert days == {"2025-03-01T10:00:00"}
    # customer 1's orders all lie behind: one of them is still theirs to act on
    past = [o for o in spec.seed["orders"] if o["customer_id"] != 1 or o["order_id"] == 100]
    alone = spec.model_copy(update={"seed": {**spec.seed, "orders": past}})
    owned: dict[str, dict[Scalar, Scalar]] = {"customers": {1: 1}, "orders": {100: 1}}
    with Environment(alone) as env:
        purpose = draft_purpose(env, sampler, people, owned, random.Random(0), False)
    assert purpose is not None and purpose.target == 100


def test_a_served_write_is_drawn_for_someone_with_a_record_still_to_come() -> None:
    """travel-intent-00024 on d7b1bec moved a hotel stay of 2024-12-11 under a 2025 clock,
    its customer's only one, while other customers held stays ahead: the person of a served
    write is one of those."""
    spec = _shop(
        [
            {
                "order_id": 100 + i,
                "customer_id": 1 + i % 4,
                "order_date": "2024-08-05T10:00:00"
                if i % 4 == 0 or i < 4
                else "2025-03-01T10:00:00",
                "status": "pending",
            }
            for i in range(12)
        ]
    )
    days = {_order(spec, p.target)["order_date"] for p in _served(spec, 40) if p is not None}
    assert days == {"2025-03-01T10:00:00"}


def test_a_transfer_failed_or_a_loan_marked_repaid_is_no_customers_request() -> None:
    """Finance on d608f62 kept "I need to fail my pending transfer on my inactive account":
    a bank fails a transfer, a customer cancels one; a loan is repaid by paying it."""
    from generators.intents import _to_unasked_state

    def setting(table: str, state: str) -> Tool:
        return Tool(
            name=f"set_{state}",
            kind="write",
            description=f"Set a {table} {state}.",
            parameters={"type": "object", "properties": {"id": {"type": "integer"}}},
            run=[f"UPDATE {table} SET status = '{state}' WHERE id = :id"],
        )

    assert _to_unasked_state(setting("transfers", "failed"))
    assert _to_unasked_state(setting("loans", "repaid"))
    assert not _to_unasked_state(setting("transfers", "cancelled"))
    assert not _to_unasked_state(setting("cards", "frozen"))


def test_a_served_write_that_never_reads_the_status_acts_on_a_record_not_over() -> None:
    """Nothing stops ecommerce's `create_order_item` on a shipped order: a served write whose
    checks never read the status takes an order not yet shipped, cancelled or delivered;
    one whose rule reads it (cancel: pending only) is left to its rule."""
    states = ["shipped", "pending", "cancelled", "delivered"]
    spec = _shop(
        [
            {
                "order_id": 100 + i,
                "customer_id": 1 + i // 4,
                "order_date": "2024-05-10T21:40:34",
                "status": states[i % 4],
            }
            for i in range(8)
        ]
    )
    gift = Tool(
        name="add_order_gift_wrap",
        kind="write",
        description="Gift-wrap an order.",
        parameters={"type": "object", "properties": {"order_id": {"type": "integer"}}},
        run=["UPDATE orders SET order_date = '2024-06-01T00:00:00' WHERE order_id = :order_id"],
    )
    reads = [t for t in spec.tools if t.kind == "read"]
    shop = spec.model_copy(update={"tools": [*reads, gift]})
    picked = {_order(shop, p.target)["status"] for p in _served(shop) if p is not None}
    assert picked == {"pending"}
    orders = shop.schema_.table("orders")
    keys: list[Scalar] = [100, 101, 102, 103]
    cancel = next(t for t in spec.tools if t.name == "cancel_order")
    assert _still_live(shop, orders, gift, keys) == [101]
    assert _still_live(shop, orders, cancel, keys) == keys


def test_a_record_with_no_state_of_its_own_is_changed_only_on_a_live_parent() -> None:
    """ecommerce-intent-00014 on a310e34 moved an item of an order delivered in 2022 to
    another product: an item has no status, and its order's was never read. A write whose
    rule reads the order's state (a return on a delivered order) takes any item."""
    spec = ecommerce_spec()
    items = spec.schema_.table("order_items")
    swap = write_tool(
        "move_order_item_product",
        "UPDATE order_items SET product_id = :new_product_id WHERE order_item_id = :order_item_id",
        order_item_id="integer",
        new_product_id="integer",
    )
    keys: list[Scalar] = [400, 401, 402]  # 402 is on order 301, shipped
    assert _still_live(spec, items, swap, keys) == [400, 401]
    shipped = "SELECT status IN ('shipped') AS ok FROM orders WHERE order_id = :order_id"
    returns = write_tool(
        "create_return",
        "INSERT INTO returns (return_id, order_id, order_item_id) "
        "VALUES (:_new_id, :order_id, :order_item_id)",
        ((shipped, "Only a shipped order."),),
        order_id="integer",
        order_item_id="integer",
    )
    assert _still_live(spec, items, returns, keys) == keys
    # where every item's order is over, the items are kept: the draft still has a record
    assert _still_live(spec, items, swap, [402]) == [402]


def test_a_record_of_a_moment_is_named_by_its_day() -> None:
    """Ecommerce's shoppers named their orders "my order from 2024-05-27T21:40:34": a person
    says the day, where the day alone tells the order apart, and the checks take it."""
    spec = _shop(
        [
            {"order_id": 100, "customer_id": 1, "order_date": "2024-05-27T21:40:34"},
            {"order_id": 101, "customer_id": 1, "order_date": "2024-06-02T09:12:00"},
            {"order_id": 102, "customer_id": 1, "order_date": "2024-06-02T17:30:00"},
        ]
    )
    spec.seed["orders"] = [{**o, "status": "pending"} for o in spec.seed["orders"]]
    cancel = next(t for t in spec.tools if t.name == "cancel_order")
    customers = spec.schema_.table("customers")
    with Environment(spec) as env:
        chain = gold_chain(env, Purpose(cancel, "orders", 100, {"order_id": 100}), customers,
                           spec.owners(customers))  # fmt: skip
        # two orders on one day: the day tells neither apart, its moment does
        later = gold_chain(env, Purpose(cancel, "orders", 102, {"order_id": 102}), customers,
                           spec.owners(customers))  # fmt: skip
    assert chain is not None and later is not None
    assert ("order_date", "2024-05-27") in chain.facts
    assert ("order_date", "2024-06-02T17:30:00") in later.facts

    def task(day: str) -> Task:
        return Task(
            id=f"shop-{day}",
            instruction=f"Please cancel my order from {day}.",
            known_facts=["My email is c1@example.com", f"The order date is {day}"],
            gold_calls=[GoldCall(name=c.name, arguments=c.arguments) for c in chain.calls],
        )

    with Verifier(spec) as verifier:
        kept = verifier.verify(task("2024-05-27"))
        wrong = verifier.verify(task("2024-05-28"))  # no order of that day picks none
    assert kept.value is not None, kept.rejection
    assert wrong.rejection is not None and wrong.rejection.reason == "unasked_target"


def test_a_value_the_user_decides_is_theirs_to_state_even_where_a_lookup_shows_it(
    banking: EnvironmentSpec,
) -> None:
    """Ecommerce's users added 27 of a product to an order without saying how many: 27 was
    the product's stock, which the lookup before the write returned, so the amount was
    taken as found, not said. Moving a whole balance is still an amount the user states,
    and a new record's field is named as its."""
    transfer = banking.tool_map()["transfer_funds"]
    checking = next(a for a in banking.seed["accounts"] if a["account_id"] == "A20001")
    arguments: dict[str, Scalar] = {
        "client_id": "C1001",
        "from_account_id": "A20001",
        "to_account_id": "A20002",
        "amount": checking["balance"],
    }
    clients = banking.schema_.table("clients")
    with Environment(banking) as env:
        purpose = Purpose(transfer, "accounts", "A20001", arguments)
        chain = gold_chain(env, purpose, clients, banking.owners(clients))
    assert chain is not None
    assert ("amount", checking["balance"]) in chain.facts
    assert "list_accounts" in [c.name for c in chain.calls]  # the lookup showed the balance
    assert not any(name.endswith("_id") for name, _ in chain.facts)  # keys are looked up
    assert chain.foreign == []  # both accounts are Maria's
    # money sent to Ahmed's A20003: its id is no value of Maria's to call "my"
    with Environment(banking) as env:
        theirs = Purpose(transfer, "accounts", "A20001", arguments | {"to_account_id": "A20003"})
        chain = gold_chain(env, theirs, clients, banking.owners(clients))
    assert chain is not None and chain.foreign == ["A20003"]
    # a new record's field is its own: the bank's users said "my name is Sunrise Rentals"
    add = banking.tool_map()["add_payee"]
    payee: dict[str, Scalar] = {
        "client_id": "C1001",
        "name": "Sunrise Rentals",
        "external_account": "US48485886892113",
    }
    with Environment(banking) as env:
        chain = gold_chain(env, Purpose(add, "clients", "C1001", payee), clients,
                           banking.owners(clients))  # fmt: skip
    assert chain is not None and ("payee name", "Sunrise Rentals") in chain.facts


def test_a_write_that_adds_a_row_under_its_target_tells_the_new_rows_fields() -> None:
    """Ecommerce's order item taking stock adds a row and changes a product: its new row's
    created_at was told as "the order created at", the order being its target. What is told
    is the new row's own, named as its (and not the moment it was made, which is now)."""
    spec = ecommerce_spec()
    made = {c.id: c.tool for c in catalogue(spec.schema_, spec.seed)}
    add = made["create:order_items under orders taking products.stock"]
    assert not add.creates  # it also takes stock: an UPDATE beside the INSERT
    spec = spec.model_copy(update={"tools": [*spec.tools, made["find:customers by email"], add]})
    customers = spec.schema_.table("customers")
    order = next(o for o in spec.seed["orders"] if o["status"] == "pending")
    purpose = Purpose(add, "orders", order["order_id"], {"order_id": order["order_id"]} | {
        "product_id": 11, "quantity": 2})  # fmt: skip
    with Environment(spec) as env:
        chain = gold_chain(env, purpose, customers, spec.owners(customers))
    assert chain is not None
    write = next(i for i, c in enumerate(chain.calls) if c.name == add.name)
    assert [(r.call, r.path) for r in chain.communicate] == [(write, "order_item_id")]
    assert chain.wanted == ["order_item_id"]


def test_a_new_record_with_nothing_of_the_users_in_it_is_drawn_as_the_short_task() -> None:
    """Ecommerce kept 9 "create an order for myself" of 16 tasks: `create_order` takes the
    customer alone, an order of nothing, yet it was weighed as a task on one's records."""
    spec = _shop(
        [
            {"order_id": 100 + i, "customer_id": 1 + i % 4, "order_date": "2024-05-10T09:00:00"}
            | {"status": "pending"}
            for i in range(8)
        ]
    )
    made = {c.id: c.tool for c in catalogue(spec.schema_, spec.seed)}
    create = made["create:orders under customers"]
    assert set(create.param_types()) == {"customer_id"}
    spec = spec.model_copy(update={"tools": [*spec.tools, create]})
    people = spec.schema_.table("customers")
    weighed: list[dict[str, float]] = []

    class Spy(random.Random):
        def choices(self, population, weights=None, **kw):
            weighed.append({t.name: w for (t, _), w in zip(population, weights, strict=True)})
            return super().choices(population, weights, **kw)

    with Environment(spec) as env:
        draft_purpose(env, ArgumentSampler(spec), people, spec.owners(people), Spy(0), False)
    assert weighed and weighed[0]["create_order"] < weighed[0]["cancel_order"]


def test_no_write_takes_more_than_a_third_of_the_draws_where_others_can_be_drawn() -> None:
    """Railway's weights were 12 for cancel_ticket (a ruled write on the person's tickets)
    against 3, 4, 1 and 1: it was drawn for 25 of 44 drafts and kept in 19 of 30 tasks.
    The heaviest are cut to a third of the sum; the others keep theirs."""
    shares = capped([3.0, 1.0, 1.0, 12.0, 4.0], 1 / 3)
    total = sum(shares)
    assert [round(w / total, 3) for w in shares] == [0.222, 0.074, 0.074, 0.333, 0.296]
    assert capped([4.0, 3.0, 3.0, 2.0], 1 / 3) == [4.0, 3.0, 3.0, 2.0]  # none too heavy
    # three writes or fewer cannot each stay under a third: the weights stand (an order of
    # nothing is still drawn less than a cancel)
    assert capped([12.0, 1.0, 1.0], 1 / 3) == [12.0, 1.0, 1.0]
    assert capped([], 1 / 3) == []


def test_a_record_no_read_leads_to_from_its_person_makes_no_gold() -> None:
    """Ecommerce drafted close_return by the return's id alone (returns sit three tables
    below their customer, and no read leads there): the gold wrote before finding the
    user, and the intent stage rejected both drafts as unidentified_user after the model
    had worded them. Such a purpose is dropped before any words are asked for."""
    orders = [{"order_id": 100, "customer_id": 1, "order_date": "2024-05-27T21:40:34"}]
    spec = _shop([{**o, "status": "pending"} for o in orders])
    cancel = next(t for t in spec.tools if t.name == "cancel_order")
    customers = spec.schema_.table("customers")
    purpose = Purpose(cancel, "orders", 100, {"order_id": 100})
    with Environment(spec) as env:
        reached = gold_chain(env, purpose, customers, spec.owners(customers))
    assert reached is not None and reached.calls[0].name == "find_customer_by_email"
    unlisted = spec.model_copy(
        update={"tools": [t for t in spec.tools if not t.name.startswith(("list_", "get_"))]}
    )
    with Environment(unlisted) as env:
        assert gold_chain(env, purpose, customers, unlisted.owners(customers)) is None


def test_a_work_item_that_finds_no_refusal_still_makes_a_task(banking: EnvironmentSpec) -> None:
    """Where no rule refuses any write drawn (an address change refuses nothing a person asks
    for), a refusal's work item drafts a served purpose instead of none."""
    address = [t for t in banking.tools if t.kind != "write" or t.name == "update_client_address"]
    spec = banking.model_copy(update={"tools": address})
    people = spec.schema_.table("clients")
    owned = spec.owners(people)
    sampler = ArgumentSampler(spec)
    with Environment(spec) as env:
        purpose = draft_purpose(env, sampler, people, owned, random.Random(0), True)
        assert purpose is not None and purpose.error is None
        assert purpose.write.name == "update_client_address"
    with Environment(banking) as env:  # where a rule refuses, the refusal is drafted
        whole = ArgumentSampler(banking)
        refused = draft_purpose(env, whole, people, banking.owners(people), random.Random(0), True)
        assert refused is not None and refused.error


def test_a_refusal_keeps_a_past_day_only_where_its_rule_reads_the_moment() -> None:
    """medicine-intent-00005 on 277c846 was refused for its doctor, and asked for a
    prescription expiring 2024-07-16 under a 2025 clock: a day drawn from a past row the
    refusing rule never reads. A rule on the moment ("only future dates") keeps it."""
    from generators.intents import _past_for_nothing

    def booking(step: str) -> Tool:
        return Tool.model_validate(
            {
                "name": "book",
                "description": "Book a stay.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {}},
                "require": [{"sql": step, "error": "refused"}],
                "run": ["INSERT INTO stays (stay_id) VALUES (:_new_id)"],
            }
        )

    rooms = booking("SELECT rooms > 0 FROM hotels WHERE hotel_id = :hotel_id")
    ahead = booking("SELECT :check_in > :_now")
    clock = "2025-01-15T10:00:00"
    past: dict[str, Scalar] = {"hotel_id": 21, "check_in": "2023-03-17"}
    assert _past_for_nothing(rooms, past, "refused", clock)
    assert not _past_for_nothing(ahead, past, "refused", clock)
    assert not _past_for_nothing(rooms, past | {"check_in": "2025-03-17"}, "refused", clock)


def test_a_move_onto_a_record_without_a_name_says_its_moment_only_where_a_call_shows_it() -> None:
    """Movie on 71aacdf kept 4 moves of a booking onto another showtime, and all 4 said
    the film as the booking's ("Move the showtime for my booking of Inception on
    2024-10-10"): the purpose named no destination, a showtime having no name. Said by its
    parent and moment, where no call reads it, travel's "to the flight at
    2025-02-01T20:15:25" was unrelated_fact (4 of 18 drafts on d7b1bec): it goes by its id."""
    spec = movie_spec()
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    move = cands["move:bookings.showtime_id"].tool
    find = cands["find:customers by email"].tool
    spec = spec.model_copy(update={"tools": [*spec.tools, find, move]})
    customers = spec.schema_.table("customers")
    owned = spec.owners(customers)
    purpose = Purpose(move, "bookings", 70, {"booking_id": 70, "new_showtime_id": 11})
    with Environment(spec) as env:
        chain = gold_chain(env, purpose, customers, owned)
    assert chain is not None and chain.purpose is not None
    assert "2025-01-20T21:00:00" not in chain.purpose, chain.purpose  # no call shows it
    assert ("new_showtime_id", 11) in chain.facts
    shown = {"2025-01-20T21:00:00"}
    said = _destination(purpose, spec, customers, 5, [], shown)
    assert said == "to the showtime of Alien at 2025-01-20T21:00:00", said


def test_a_record_three_tables_below_its_person_is_found_through_each_listing() -> None:
    """Ecommerce's returns on 6b0b758 hang off order items, the items off orders, the orders
    off their customer: no listing of the customer's order items exists, so each of the
    8 of 40 drafts on a return (`close_return`, `reduce_return_quantity`, ...) found no
    gold and was dropped. The route now finds the parent the same way it finds the
    record."""
    from tests.generators.ecommerce import SCHEMA as SHOP

    tables: dict[str, Any] = {str(t["name"]): t for t in SHOP["tables"]}
    returns = {
        **tables["returns"],
        "columns": [c for c in tables["returns"]["columns"] if c["name"] != "order_id"],
        "foreign_keys": [fk("order_item_id", "order_items")],
    }
    schema = {"tables": [*(t for n, t in tables.items() if n != "returns"), returns]}
    seed = {
        **SEED_SHOP,
        "returns": [{"return_id": 700, "order_item_id": 402, "quantity": 1}],
    }
    spec = bed("ecommerce", schema, seed)
    people = spec.schema_.table("customers")
    with Environment(spec) as env:
        steps = route(env, spec.schema_.table("returns"), people, 1, 700, by_id=True)
        assert [s.table for s in steps] == ["orders", "order_items", "returns"]
        assert steps[-1].call.arguments == {"order_item_id": 402}
        deep = route(env, spec.schema_.table("returns"), people, 1, 700, by_id=True, depth=2)
    assert deep == []  # two tables down at most: the way before


def _person(table: str) -> dict:
    """A table of people: a key named for it, a name and an email."""
    key = f"{table.removesuffix('s')}_id"
    columns = [col(key, "integer"), col("name", "text"), col("email", "text")]
    return {"name": table, "primary_key": [key], "columns": columns}


def _picked(spec: EnvironmentSpec, *ids: str) -> tuple[EnvironmentSpec, list[Tool]]:
    """The spec with the catalogue's tools of `ids` added, and those tools."""
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    tools = [cands[i].tool for i in ids]
    return spec.model_copy(update={"tools": [*spec.tools, *tools]}), tools


def _someone(key: str, value: int, name: str) -> dict:
    return {key: value, "name": name, "email": f"{name.split()[0].lower()}@x.org"}


def test_a_move_that_gives_another_persons_record_to_a_third_is_not_drafted() -> None:
    """School's teachers moved a student's enrollment to another student (school-intent-
    00008 on 637bf78) and a grade from one student's enrollment to another's (00002): no
    school does that for whoever asks. A grade moved between two enrollments of one student
    (its right course) is still drafted."""
    schema = {
        "tables": [
            _person("teachers"),
            _person("students"),
            {"name": "courses", "primary_key": ["course_id"],
             "columns": [col("course_id", "integer"), col("teacher_id", "integer")],
             "foreign_keys": [fk("teacher_id", "teachers")]},
            {"name": "enrollments", "primary_key": ["enrollment_id"],
             "columns": [col("enrollment_id", "integer"), col("student_id", "integer"),
                         col("course_id", "integer")],
             "foreign_keys": [fk("student_id", "students"), fk("course_id", "courses")]},
            {"name": "grades", "primary_key": ["grade_id"],
             "columns": [col("grade_id", "integer"), col("enrollment_id", "integer"),
                         col("score", "integer")],
             "foreign_keys": [fk("enrollment_id", "enrollments")]},
        ]
    }  # fmt: skip
    seed = {
        "teachers": [_someone("teacher_id", 1, "Ann Lee")],
        "students": [
            _someone("student_id", 10, "Bo Kim"),
            _someone("student_id", 11, "Cy Ray"),
        ],
        "courses": [{"course_id": 20, "teacher_id": 1}, {"course_id": 21, "teacher_id": 1}],
        "enrollments": [
            {"enrollment_id": 30, "student_id": 10, "course_id": 20},
            {"enrollment_id": 31, "student_id": 11, "course_id": 20},
            {"enrollment_id": 32, "student_id": 10, "course_id": 21},
        ],
        "grades": [{"grade_id": 40, "enrollment_id": 30, "score": 80}],
    }
    spec, (to_student, to_enrollment) = _picked(
        bed("school", schema, seed), "move:enrollments.student_id", "move:grades.enrollment_id"
    )
    teachers = spec.schema_.table("teachers")
    owned = spec.owners(teachers)
    with Environment(spec) as env:
        drafted = [
            draft_purpose(env, ArgumentSampler(spec), teachers, owned, random.Random(i), False)
            for i in range(40)
        ]
    moves = [p for p in drafted if p is not None and p.write.name.startswith("move_")]
    assert moves, [p.write.name for p in drafted if p is not None]
    names = {p.write.name for p in moves}
    assert to_student.name not in names and names == {to_enrollment.name}
    assert {p.arguments["new_enrollment_id"] for p in moves} == {32}  # Bo's other course


def test_a_move_onto_a_person_who_does_not_hold_the_record_is_drafted() -> None:
    """A patient's appointment moved to another doctor stays the patient's: medicine kept
    three such tasks, and a filter on every move onto a person would have dropped them."""
    schema = {
        "tables": [
            _person("patients"),
            _person("doctors"),
            {"name": "appointments", "primary_key": ["appointment_id"],
             "columns": [col("appointment_id", "integer"), col("patient_id", "integer"),
                         col("doctor_id", "integer")],
             "foreign_keys": [fk("patient_id", "patients"), fk("doctor_id", "doctors")]},
        ]
    }  # fmt: skip
    seed = {
        "patients": [_someone("patient_id", 1, "Bo Kim")],
        "doctors": [_someone("doctor_id", 10 + i, n) for i, n in enumerate(("Ann Lee", "Cy Ray"))],
        "appointments": [{"appointment_id": 20, "patient_id": 1, "doctor_id": 10}],
    }
    spec, (to_doctor,) = _picked(bed("medicine", schema, seed), "move:appointments.doctor_id")
    patients = spec.schema_.table("patients")
    with Environment(spec) as env:
        drafted = [
            draft_purpose(
                env, ArgumentSampler(spec), patients, spec.owners(patients), random.Random(i), False
            )
            for i in range(20)
        ]
    assert to_doctor.name in {p.write.name for p in drafted if p is not None}


def test_a_refusal_on_the_rows_state_is_drafted_where_pushed_numbers_break_the_rule_too() -> None:
    """Weather on 907b94d: "a reading can be recorded only for a station with status
    active; temperature must be between -90 and 60" was one error for both checks. Its
    refusal drafts pushed the temperature past the range, so the error told nothing of the
    station (`_rule_columns`), and none of 69 drafts became a refusal. The plain request
    on a decommissioned station is the refusal."""
    schema = {
        "tables": [
            {"name": "forecasters", "primary_key": ["forecaster_id"],
             "columns": [col("forecaster_id", "integer"), col("email", "text")]},
            {"name": "stations", "primary_key": ["station_id"],
             "columns": [col("station_id", "integer"), col("forecaster_id", "integer"),
                         col("name", "text"), col("status", "text")],
             "foreign_keys": [fk("forecaster_id", "forecasters")],
             "checks": ["status IN ('active', 'decommissioned')"]},
            {"name": "readings", "primary_key": ["reading_id"],
             "columns": [col("reading_id", "integer"), col("station_id", "integer"),
                         col("temperature", "real")],
             "foreign_keys": [fk("station_id", "stations")]},
        ]
    }  # fmt: skip
    seed = {
        "forecasters": [{"forecaster_id": 1, "email": "f@x.org"}],
        "stations": [
            {"station_id": 10, "forecaster_id": 1, "name": "Hill", "status": "decommissioned"}
        ],
        "readings": [{"reading_id": 100, "station_id": 10, "temperature": 35.0}],
    }
    error = "A reading needs an active station; temperature must be between -90 and 60."
    record = write_tool(
        "create_reading",
        "INSERT INTO readings (reading_id, station_id, temperature) "
        "VALUES (:_new_id, :station_id, :temperature)",
        (
            ("SELECT :temperature BETWEEN -90 AND 60 AS ok", error),
            ("SELECT status = 'active' AS ok FROM stations WHERE station_id = :station_id", error),
        ),
        station_id="integer",
        temperature="number",
    )
    spec = bed("weather", schema, seed)
    spec = spec.model_copy(update={"tools": [*spec.tools, record], "id_start": 500})
    people = spec.schema_.table("forecasters")
    with Environment(spec) as env:
        sampler = ArgumentSampler(spec)
        drafted = [
            draft_purpose(env, sampler, people, spec.owners(people), random.Random(i), True)
            for i in range(5)
        ]
    refusals = [p for p in drafted if p is not None and p.error == error]
    assert len(refusals) == 5, drafted
    for purpose in refusals:
        assert -90 <= float(str(purpose.arguments["temperature"])) <= 60, purpose.arguments
        assert purpose.checked == ["status"]


def test_a_run_that_resumes_under_the_refusal_floor_looks_for_refusals_more_often() -> None:
    """Weather on 907b94d resumed with 1 refusal in 30 kept tasks, under the issue's floor
    of 10%, and its work items still looked for one a third of the time, while refusals are
    kept less often than served tasks (2 of 24 refusal proposals, 28 of 142 others)."""
    config = GenerationConfig()

    def kept(refusals: int, served: int) -> list[Task]:
        refused = [{"name": "freeze", "arguments": {}, "expect_error": "only active"}]
        return [
            mini_task(id=f"r{i}", gold_calls=refused, communicate=[]) for i in range(refusals)
        ] + [mini_task(id=f"s{i}") for i in range(served)]

    assert refusal_share([], config) == config.refusal_share  # a fresh run
    assert refusal_share(kept(1, 29), config) == config.refusal_catch_up
    assert refusal_share(kept(4, 26), config) == config.refusal_share
    assert refusal_share(kept(0, 5), GenerationConfig(refusal_floor=0.0)) == 0.33


def test_a_move_only_out_of_a_state_the_business_ended_is_unasked() -> None:
    """Finance on 4221446 kept "activate my repaid loan" in 3 of its first 10 tasks: the
    catalogue's `activate_loan` is allowed from repaid only, and no customer reopens a loan
    they paid off. A move allowed from a state a customer leaves (inactive), or from an
    ended one and a live one, is still asked."""

    def activate(table: str, allowed: str) -> Tool:
        return write_tool(
            f"activate_{table}",
            f"UPDATE {table}s SET status = 'active' WHERE id = :id",
            ((f"SELECT status IN ({allowed}) AS allowed FROM {table}s WHERE id = :id", "no"),),
            id="integer",
        )

    assert _to_unasked_state(activate("loan", "'repaid'"))
    assert _to_unasked_state(activate("order", "'delivered', 'completed'"))
    assert not _to_unasked_state(activate("account", "'inactive'"))
    assert not _to_unasked_state(activate("loan", "'repaid', 'frozen'"))


def test_a_refusal_a_plain_request_meets_keeps_the_plain_request(banking: EnvironmentSpec) -> None:
    """finance-intent-00017 on 0ee2fcd asked to "repay 69391.2 from my closed loan", 2.9
    times the loan: the amount was pushed past the rows though any amount is refused on a
    loan that owes nothing. The plain request is tried first; a push is for a limit only."""
    loans = [loan | {"status": "paid_off", "outstanding": 0} for loan in banking.seed["loans"]]
    tools = [t for t in banking.tools if t.kind != "write" or t.name == "make_loan_payment"]
    spec = banking.model_copy(update={"tools": tools, "seed": banking.seed | {"loans": loans}})
    people = spec.schema_.table("clients")
    sampler = ArgumentSampler(spec)
    pay = spec.tool("make_loan_payment")
    plain = max(
        float(str(sampler.arguments(pay, random.Random(j), optional=0.0, ahead=True)["amount"]))
        for j in range(300)
    )  # the most a plain request asks (pushed ones ask 4 to 40 times theirs)
    with Environment(spec) as env:
        for i in range(6):
            purpose = draft_purpose(
                env, sampler, people, spec.owners(people), random.Random(i), True
            )
            assert purpose is not None and purpose.error == "the loan is already paid off"
            assert float(str(purpose.arguments["amount"])) <= plain, purpose.arguments


def test_a_person_is_never_drafted_suspending_themself_or_lifting_their_own_suspension() -> None:
    """ecommerce on 2f77ff7 kept three of 30: "set the status to 'suspended'" (the gold
    suspended the shopper), "update my status from suspended" and "your status has been
    updated to 'active'", from a suspended shopper. A card frozen is still asked."""
    from generators.intents import _sanctions_self

    key = Column(name="customer_id", type="integer")
    customers = Table(name="customers", columns=[key], primary_key=["customer_id"])

    def moving(table: str, state: str, allowed: str) -> Tool:
        return write_tool(
            f"set_{state}_{table}",
            f"UPDATE {table} SET status = '{state}' WHERE customer_id = :customer_id",
            ((f"SELECT status IN ({allowed}) AS allowed FROM {table} WHERE 1", "no"),),
            customer_id="integer",
        )

    assert _sanctions_self(moving("customers", "suspended", "'active'"), customers)
    assert _sanctions_self(moving("customers", "active", "'suspended'"), customers)
    assert not _sanctions_self(moving("customers", "active", "'inactive'"), customers)
    assert not _sanctions_self(moving("cards", "blocked", "'active'"), customers)
