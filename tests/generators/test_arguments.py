"""Arguments drawn from real rows: values that exist, and that belong together."""

from __future__ import annotations

import datetime as dt
import json
import random

from generators.arguments import ArgumentSampler, parameter_columns
from generators.patterns import catalogue
from generators.tools import (
    smoke_problems,
)
from tests.generators.finance import SEED, finance_spec
from tests.generators.library import (
    Library,
    library_tool,
)
from tests.generators.movie import SCHEMA as MOVIE_SCHEMA
from tests.generators.movie import SEED as MOVIE_SEED
from tests.generators.railway import bed, col, railway_spec, seated
from tests.generators.travel import travel_spec
from tests.generators.weather import weather_spec
from toolscale.environment import Environment
from toolscale.tool import Tool, ToolCall


def test_parameter_columns_of_borrow_book(lib: Library) -> None:
    assert parameter_columns(library_tool("borrow_book"), lib.spec) == {
        "member_id": ("members", "member_id"),
        "book_id": ("books", "book_id"),
    }
    assert parameter_columns(library_tool("search_books"), lib.spec) == {
        "author": ("books", "author")
    }


FIND_LOAN = Tool(
    name="find_loan",
    description="The loan of a book to a member.",
    kind="read",
    parameters={
        "type": "object",
        "properties": {"member_id": {"type": "integer"}, "book_id": {"type": "integer"}},
        "required": ["member_id", "book_id"],
    },
    returns="SELECT l.loan_id, l.due_on FROM loans AS l "
    "WHERE l.member_id = :member_id AND l.book_id = :book_id",
)


def test_sampler_draws_values_that_exist_and_belong_together(lib: Library) -> None:
    spec = lib.spec.model_copy(update={"tools": [*lib.spec.tools, FIND_LOAN]})
    sampler = ArgumentSampler(spec)
    assert sampler.columns["find_loan"] == {
        "member_id": ("loans", "member_id"),
        "book_id": ("loans", "book_id"),
    }
    pairs = {(r["member_id"], r["book_id"]) for r in lib.seed["loans"]}
    members = {r["member_id"] for r in lib.seed["members"]}
    books = {r["book_id"] for r in lib.seed["books"]}
    authors = {r["author"] for r in lib.seed["books"]}
    borrow, search = spec.tool("borrow_book"), spec.tool("search_books")
    with Environment(spec) as environment:
        for seed in range(25):
            rng = random.Random(seed)
            args = sampler.arguments(FIND_LOAN, rng)
            assert (args["member_id"], args["book_id"]) in pairs
            assert environment.step(ToolCall(name="find_loan", arguments=args)).output
            args = sampler.arguments(borrow, rng)
            assert args["member_id"] in members and args["book_id"] in books
            assert sampler.arguments(search, rng)["author"] in authors
    given = sampler.arguments(FIND_LOAN, random.Random(0), given={"member_id": 7})
    assert given["member_id"] == 7


RENEW_LOAN = Tool(
    name="renew_loan",
    description="Renew a loan until today.",
    kind="write",
    parameters={
        "type": "object",
        "properties": {"member_id": {"type": "integer"}, "loan_id": {"type": "integer"}},
        "required": ["member_id", "loan_id"],
    },
    require=[
        {
            "sql": "SELECT COUNT(*) > 0 FROM members WHERE member_id = :member_id",
            "error": "No such member.",
        },
        {
            "sql": "SELECT member_id = :member_id FROM loans WHERE loan_id = :loan_id",
            "error": "That loan is not the member's.",
        },
    ],
    run=["UPDATE loans SET due_on = substr(:_now, 1, 10) WHERE loan_id = :loan_id"],
)


def test_sampler_takes_a_parent_key_from_the_child_row_drawn(lib: Library) -> None:
    """loan_id is drawn first (loans points to two tables); the member is then that loan's
    member, though member_id is compared with members, not loans."""
    spec = lib.spec.model_copy(update={"tools": [*lib.spec.tools, RENEW_LOAN]})
    sampler = ArgumentSampler(spec)
    assert sampler.columns["renew_loan"] == {
        "member_id": ("members", "member_id"),
        "loan_id": ("loans", "loan_id"),
    }
    member_of = {r["loan_id"]: r["member_id"] for r in lib.seed["loans"]}
    for seed in range(25):
        args = sampler.arguments(RENEW_LOAN, random.Random(seed))
        assert member_of[args["loan_id"]] == args["member_id"]
    assert smoke_problems(RENEW_LOAN, lib.spec, tries=1) == []


LOAN_BY_NAME = Tool(
    name="loan_by_name",
    description="A loan, checked against the member's name.",
    kind="read",
    parameters={
        "type": "object",
        "properties": {"loan_id": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["loan_id", "name"],
    },
    require=[
        {
            "sql": "SELECT m.name = :name FROM loans AS l JOIN members AS m "
            "ON m.member_id = l.member_id WHERE l.loan_id = :loan_id",
            "error": "That is not the borrower's name.",
        }
    ],
    returns="SELECT due_on FROM loans WHERE loan_id = :loan_id",
)


def test_sampler_follows_a_drawn_row_to_its_parent(lib: Library) -> None:
    """`name` is a members column the loan row does not hold: the member drawn is the one
    the loan points to, so the call passes its check."""
    spec = lib.spec.model_copy(update={"tools": [*lib.spec.tools, LOAN_BY_NAME]})
    sampler = ArgumentSampler(spec)
    assert sampler.columns["loan_by_name"] == {
        "name": ("members", "name"),
        "loan_id": ("loans", "loan_id"),
    }
    name_of = {r["member_id"]: r["name"] for r in lib.seed["members"]}
    borrower = {r["loan_id"]: name_of[r["member_id"]] for r in lib.seed["loans"]}
    assert len(set(borrower.values())) > 1
    with Environment(spec) as environment:
        for seed in range(25):
            args = sampler.arguments(LOAN_BY_NAME, random.Random(seed))
            assert borrower[args["loan_id"]] == args["name"]
            assert environment.step(ToolCall(name="loan_by_name", arguments=args)).ok


def test_a_new_email_is_nobodys_email() -> None:
    """School's tasks changed a student's email to another student's: a new value is drawn
    from other rows, which for an email is a person's own."""
    spec = railway_spec()
    update = next(
        c for c in catalogue(spec.schema_, spec.seed) if c.id == "update:passengers.email"
    )
    sampler = ArgumentSampler(spec.model_copy(update={"tools": [update.tool]}))
    taken = {p["email"] for p in spec.seed["passengers"]}
    drawn = [sampler.value(update.tool, "new_email", random.Random(i)) for i in range(20)]
    assert all(isinstance(e, str) and "@" in e and e not in taken for e in drawn)
    assert len(set(drawn)) > 10
    assert drawn == [sampler.value(update.tool, "new_email", random.Random(i)) for i in range(20)]


def _tool(called: str, sql: str, /, **types: str) -> Tool:
    """A tool of the given parameters (name: JSON type), all required: a write where `sql`
    changes rows, else a read that returns it."""
    writes = sql.startswith(("INSERT", "UPDATE"))
    return Tool.model_validate(
        {
            "name": called,
            "description": f"{called}, for a test.",
            "kind": "write" if writes else "read",
            "parameters": {
                "type": "object",
                "properties": {p: {"type": t} for p, t in types.items()},
                "required": list(types),
            },
            "run": [sql] if writes else [],
            "returns": "SELECT 1" if writes else sql,
        }
    )


def test_a_new_records_name_is_no_records_name() -> None:
    """Weather's drafts on 8a86ecf created "Cortezbury Station", "East Melanie Station" and
    "Pamelaberg Station", each a station the seed already had in that region: a lookup by
    name then finds two. A new record's name is made one no row has; a name looked up is
    still a seed row's."""
    spec = weather_spec()
    create = _tool(
        "create_region",
        "INSERT INTO regions (region_id, name) VALUES (:_new_id, :name)",
        name="string",
    )
    find = _tool("find_region", "SELECT * FROM regions WHERE name = :name", name="string")
    sampler = ArgumentSampler(spec.model_copy(update={"tools": [create, find]}))
    taken = {r["name"] for r in spec.seed["regions"]}
    made = [sampler.arguments(create, random.Random(i))["name"] for i in range(20)]
    assert all(isinstance(n, str) and n not in taken for n in made)
    assert {str(n).split()[-1] for n in made} <= taken  # like the seed's: "House north"
    found = {sampler.arguments(find, random.Random(i))["name"] for i in range(20)}
    assert found <= taken


def test_a_new_rows_number_is_a_rows_own_and_a_moved_amount_a_share() -> None:
    """Weather's new readings on 8a86ecf were shares of seed temperatures, never below 1.0
    ("a temperature of 1.0" in 5 of its 30 tasks) where the seed's ran from -20 to 40: a
    new row's number is copied whole. An amount a write moves stays a share of a figure."""

    lend = _tool(
        "create_loan",
        "INSERT INTO loans (loan_id, client_id, amount, outstanding, status, opened_on) "
        "VALUES (:_new_id, :client_id, :amount, :amount, 'active', '2025-01-01')",
        client_id="integer",
        amount="number",
    )
    repay = _tool(
        "repay_loan",
        "UPDATE loans SET outstanding = outstanding - :amount WHERE client_id = :client_id",
        client_id="integer",
        amount="number",
    )
    sampler = ArgumentSampler(finance_spec([lend, repay]))
    lent = {loan["amount"] for loan in SEED["loans"]}
    made = {sampler.arguments(lend, random.Random(i))["amount"] for i in range(20)}
    assert made <= lent and len(made) > 1
    repaid = {sampler.arguments(repay, random.Random(i))["amount"] for i in range(20)}
    assert repaid and not repaid & {loan["outstanding"] for loan in SEED["loans"]}


def test_a_new_record_copies_its_moments_from_a_row_still_to_come() -> None:
    """Travel on 277c846 booked stays from 2023-03-17 under a 2025-01-15 clock
    (travel-intent-00011), copied from a cancelled past stay; the validator's past_moment
    rejected them. Where no row lies ahead, any row still serves."""
    spec = travel_spec()
    past = {
        "booking_id": 400,
        "customer_id": 2,
        "hotel_id": 21,
        "check_in_date": "2023-03-17",
        "check_out_date": "2023-03-19",
        "status": "cancelled",
    }
    book = Tool.model_validate(
        {
            "name": "book_hotel",
            "description": "Book a stay.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {
                    "customer_id": {"type": "integer"},
                    "hotel_id": {"type": "integer"},
                    "check_in_date": {"type": "string"},
                    "check_out_date": {"type": "string"},
                },
                "required": ["customer_id", "hotel_id", "check_in_date", "check_out_date"],
            },
            "run": [
                "INSERT INTO hotel_bookings (booking_id, customer_id, hotel_id, "
                "check_in_date, check_out_date, status) VALUES (:_new_id, :customer_id, "
                ":hotel_id, :check_in_date, :check_out_date, 'booked')"
            ],
            "returns": "SELECT 1",
        }
    )
    seed = {**spec.seed, "hotel_bookings": [*spec.seed["hotel_bookings"], past] * 10}
    spec = spec.model_copy(update={"seed": seed, "tools": [book]})
    sampler = ArgumentSampler(spec)
    drawn = [sampler.arguments(book, random.Random(n), given={"customer_id": 2}) for n in range(40)]
    days = {str(a["check_in_date"]) for a in drawn}
    # few rows lie ahead, so rows behind come too, moved ahead whole: weather's 4 alerts of
    # 69 ahead gave every new alert of 503981f's run the same moment
    assert "2025-02-01" in days and len(days) > 3
    assert all(day > "2025-01-15" for day in days)
    nights = {
        (
            dt.date.fromisoformat(str(a["check_out_date"]))
            - dt.date.fromisoformat(str(a["check_in_date"]))
        ).days
        for a in drawn
    }
    assert 2 in nights  # the past stay's two nights kept as they were
    # and so does one that takes a room as it books (a create of two statements)
    taking = book.model_copy(
        update={"run": [*book.run, "UPDATE hotels SET rooms_available = rooms_available - 1"]}
    )
    spec = spec.model_copy(update={"tools": [taking]})
    sampler = ArgumentSampler(spec)
    days = {
        str(sampler.arguments(taking, random.Random(n), given={"customer_id": 2})["check_in_date"])
        for n in range(40)
    }
    assert "2025-02-01" in days and all(day > "2025-01-15" for day in days)
    spec = spec.model_copy(update={"tools": [book]})
    sampler = ArgumentSampler(spec)
    refused = {  # a refusal's draft: a stay in the past is what a rule on the moment refuses
        sampler.arguments(book, random.Random(n), ahead=False)["check_in_date"] for n in range(40)
    }
    assert refused == {"2025-02-01", "2023-03-17"}
    behind = spec.model_copy(update={"seed": {**seed, "hotel_bookings": [past]}})
    sampler = ArgumentSampler(behind)
    assert sampler.arguments(book, random.Random(1))["check_in_date"] == "2023-03-17"


def test_a_record_to_move_onto_is_still_to_come() -> None:
    """A trial on movie's 71aacdf environment moved a booking onto a showtime of 2024-06-04
    under a 2025-01-15 clock: where some showtimes lie ahead, a served move takes one."""
    seed = json.loads(json.dumps(MOVIE_SEED))
    seed["showtimes"].append(
        {"showtime_id": 12, "movie_id": 1, "screen_id": 1, "start_time": "2024-10-10T18:00:00"}
    )
    spec = bed("movie", MOVIE_SCHEMA, seed)
    move = next(
        c.tool for c in catalogue(spec.schema_, spec.seed) if c.id == "move:bookings.showtime_id"
    )
    assert move.name == "move_booking_to_showtime"
    sampler = ArgumentSampler(spec.model_copy(update={"tools": [*spec.tools, move]}))

    def drawn(ahead: bool) -> set[object]:
        rngs = (random.Random(i) for i in range(40))
        return {sampler.value(move, "new_showtime_id", r, {}, ahead) for r in rngs}

    assert drawn(ahead=True) == {10, 11}
    assert 12 in drawn(ahead=False)  # a refusal may move onto what is over


def test_a_value_trimmed_and_lowered_is_still_its_columns() -> None:
    """The banking fixture's `SET email = lower(trim(:new_email))` was read as no column,
    and the new email drawn as 'standard', which its own check refused."""
    from pathlib import Path

    from toolscale.spec import EnvironmentSpec

    fixture = Path(__file__).parents[1] / "fixtures" / "banking" / "environment.json"
    banking = EnvironmentSpec.model_validate_json(fixture.read_text())
    email = banking.tool("update_client_email")
    assert parameter_columns(email, banking)["new_email"] == ("clients", "email")
    drawn = ArgumentSampler(banking).arguments(email, random.Random(0))["new_email"]
    assert isinstance(drawn, str) and "@" in drawn


def test_a_new_records_moment_is_on_the_minute() -> None:
    """Medicine's seed, made before 6789a02, held appointments at 11:20:10: a new one copied
    the moment, and the user who asked for "11:20 AM" was refused as false_fact (10 of
    medicine's proposals at fdf189b). A moment looked up stays the row's own."""
    schema = {
        "tables": [
            {
                "name": "visits",
                "columns": [col("visit_id", "integer"), col("start_time", "datetime")],
                "primary_key": ["visit_id"],
            }
        ]
    }
    held = ["2099-06-03T11:20:10", "2099-06-04T09:05:33", "2099-06-05T14:00:00"]
    seed = {"visits": [{"visit_id": i, "start_time": t} for i, t in enumerate(held)]}
    book = _tool(
        "book_visit",
        "INSERT INTO visits (visit_id, start_time) VALUES (:_new_id, :start_time)",
        start_time="string",
    )
    find = _tool(
        "find_visit", "SELECT * FROM visits WHERE start_time = :start_time", start_time="string"
    )
    sampler = ArgumentSampler(
        bed("clinic", schema, seed).model_copy(update={"tools": [book, find]})
    )
    made = {sampler.arguments(book, random.Random(i))["start_time"] for i in range(20)}
    assert made == {"2099-06-03T11:20:00", "2099-06-04T09:05:00", "2099-06-05T14:00:00"}
    found = {sampler.arguments(find, random.Random(i))["start_time"] for i in range(20)}
    assert found == set(held)


def test_a_new_records_number_its_parents_rows_keep_apart_is_one_none_of_them_has() -> None:
    """Railway's create_ticket copied a ticket's trip and seat together and sold seat 445 of
    trip 31079 again (railway-intent-00032 on a4b9fc9; 157 of 200 drafts over its seed
    took a seat of their trip). A number siblings share (a quantity) is copied as it is."""
    sell = _tool(
        "create_ticket",
        "INSERT INTO tickets (ticket_id, trip_id, seat_number, bags) "
        "VALUES (:_new_id, :trip_id, :seat_number, :bags)",
        trip_id="integer",
        seat_number="integer",
        bags="integer",
    )
    # 6 trips of seats 1 to 5: 60 pairs of one trip's tickets, no seat twice
    sampler = ArgumentSampler(seated().model_copy(update={"tools": [sell]}))
    drawn = [sampler.arguments(sell, random.Random(i)) for i in range(20)]
    assert {a["seat_number"] for a in drawn} == {6}  # the first seat no ticket of its trip has
    assert {a["bags"] for a in drawn} == {1}
    given = sampler.arguments(sell, random.Random(0), given={"trip_id": 1, "seat_number": 3})
    assert given["seat_number"] == 3  # a number the caller gives stays
