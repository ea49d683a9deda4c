"""The data plan: checked (problems name table and column), expanded deterministically into
rows that keep keys, foreign keys, CHECKs and uniqueness, and load on both engines."""

from __future__ import annotations

import datetime as dt
import itertools
import re
import time
from pathlib import Path
from typing import Any

import pytest

from generators.dataplan import (
    CLOCK,
    ColumnPlan,
    DataPlan,
    Expansion,
    TablePlan,
    column_problems,
    complete,
    default_plan,
    plan_problems,
)
from generators.dataplan import expand as _expand
from generators.dataplan import expand_plan as _expand_plan
from generators.realise import seed_problems
from generators.toolkit import schema_tools
from tests.generators.library import library_schema
from toolscale.schema import Column, ColumnType, ForeignKey, Schema, Table
from toolscale.spec import EnvironmentSpec

BANKING = Path(__file__).parents[1] / "fixtures" / "banking" / "environment.json"


def banking_schema() -> Schema:
    return EnvironmentSpec.model_validate_json(BANKING.read_text()).schema_


def shop() -> Schema:
    """Customers (unique email, a tier CHECK) own orders (amount bounds, dates in order)."""
    customers = Table(
        name="customers",
        columns=[
            Column(name="customer_id", type="integer", nullable=False),
            Column(name="full_name", type="text", nullable=False),
            Column(name="email", type="text", nullable=False, unique=True),
            Column(name="tier", type="text", nullable=False),
            Column(name="credit", type="real", nullable=False),
        ],
        primary_key=["customer_id"],
        checks=["tier IN ('basic', 'gold')", "credit >= 0 AND credit <= 500"],
    )
    orders = Table(
        name="orders",
        columns=[
            Column(name="order_id", type="integer", nullable=False),
            Column(name="customer_id", type="integer", nullable=False),
            Column(name="amount", type="real", nullable=False),
            Column(name="quantity", type="integer", nullable=False),
            Column(name="placed_on", type="date", nullable=False),
            Column(name="shipped_on", type="date", nullable=False),
            Column(name="code", type="text", nullable=False, unique=True),
        ],
        primary_key=["order_id"],
        foreign_keys=[
            ForeignKey(columns=["customer_id"], ref_table="customers", ref_columns=["customer_id"])
        ],
        checks=["amount > 0", "quantity BETWEEN 1 AND 9", "shipped_on >= placed_on"],
    )
    return Schema(tables=[customers, orders])


PLAN = DataPlan(
    tables=[
        TablePlan(
            table="customers",
            rows=1,
            columns=[
                ColumnPlan(column="full_name", kind="person_name"),
                ColumnPlan(column="email", kind="email"),
                ColumnPlan(column="tier", kind="choice", values=["basic", "gold"], weights=[4, 1]),
                ColumnPlan(column="credit", kind="real", low=-100, high=900, decimals=2),
            ],
        ),
        TablePlan(
            table="orders",
            min_children=0,
            max_children=6,
            columns=[
                ColumnPlan(column="amount", kind="real", low=5, high=900, distribution="lognormal"),
                ColumnPlan(column="quantity", kind="integer", low=0, high=20),
                ColumnPlan(column="placed_on", kind="date", start="2024-01-01", end="2024-12-31"),
                ColumnPlan(column="shipped_on", kind="date", start="2024-01-01", end="2024-12-31"),
                ColumnPlan(column="code", kind="identifier", pattern="ORD-@@###"),
            ],
        ),
    ]
)


Rows = dict[str, list[dict[str, Any]]]  # the tests compare values freely


def expand(plan: DataPlan, schema: Schema, seed: int, total_rows: int) -> Rows:
    return _expand(plan, schema, seed=seed, total_rows=total_rows)


def expand_plan(plan: DataPlan, schema: Schema, seed: int, total_rows: int) -> Any:
    got: Expansion = _expand_plan(plan, schema, seed=seed, total_rows=total_rows)
    return got


def keyed_table(name: str, **types: ColumnType) -> Table:
    """A table with an integer key named after it and the given columns."""
    key = f"{name.removesuffix('s')}_id"
    columns = [Column(name=key, type="integer")]
    columns += [Column(name=c, type=t) for c, t in types.items()]
    return Table(name=name, columns=columns, primary_key=[key])


def loads_on_both_engines(schema: Schema, rows: dict) -> list[str]:
    spec = EnvironmentSpec(name="probe", schema_=schema, seed=rows, tools=schema_tools(schema))
    return seed_problems(spec)


def test_same_seed_same_rows_other_seed_other_rows() -> None:
    schema = shop()
    one = expand(PLAN, schema, seed=7, total_rows=300)
    assert one == expand(PLAN, schema, seed=7, total_rows=300)
    assert repr(one) == repr(expand(PLAN, schema, seed=7, total_rows=300))  # byte for byte
    other = expand(PLAN, schema, seed=8, total_rows=300)
    assert other != one
    assert [r["full_name"] for r in other["customers"]] != [
        r["full_name"] for r in one["customers"]
    ]


def test_rows_keep_keys_checks_and_uniqueness_and_load_on_both_engines() -> None:
    schema = shop()
    got = expand_plan(PLAN, schema, seed=3, total_rows=400)
    rows = got.rows
    assert sum(len(r) for r in rows.values()) == 400 and not got.dropped
    customers, orders = rows["customers"], rows["orders"]
    ids = [r["customer_id"] for r in customers]
    assert len(set(ids)) == len(ids)
    assert {r["customer_id"] for r in orders} <= set(ids)
    assert {r["tier"] for r in customers} == {"basic", "gold"}
    assert all(0 <= r["credit"] <= 500 for r in customers)  # the CHECK narrows -100..900
    assert all(r["amount"] > 0 and 1 <= r["quantity"] <= 9 for r in orders)
    assert all(r["shipped_on"] >= r["placed_on"] for r in orders)
    assert all(re.fullmatch(r"ORD-[A-Z]{2}\d{3}", r["code"]) for r in orders)
    assert len({r["code"] for r in orders}) == len(orders)
    assert len({r["email"] for r in customers}) == len(customers)
    assert loads_on_both_engines(schema, rows) == []


def test_emails_are_made_from_the_same_rows_name() -> None:
    rows = expand(PLAN, shop(), seed=1, total_rows=200)["customers"]
    for r in rows:
        first, *_, last = str(r["full_name"]).lower().split()
        local = str(r["email"]).split("@")[0]
        assert local.startswith((first, first[0])) and (last in local or local == first), r


def test_integer_keys_look_like_real_ids_in_ranges_that_never_overlap() -> None:
    rows = expand(PLAN, shop(), seed=2, total_rows=600)
    customers = [r["customer_id"] for r in rows["customers"]]
    orders = [r["order_id"] for r in rows["orders"]]
    for ids in (customers, orders):
        assert all(10_000 <= i < 10_000_000 for i in ids)  # 5 to 7 digits
        assert ids == sorted(ids) and any(b - a > 1 for a, b in itertools.pairwise(ids))
    assert max(customers) < min(orders)


def test_text_keys_get_a_prefix() -> None:
    rows = expand(default_plan(banking_schema()), banking_schema(), seed=0, total_rows=300)
    assert all(re.fullmatch(r"CLI-\d{5,7}", str(r["client_id"])) for r in rows["clients"])


def test_plan_problems_name_the_table_and_column() -> None:
    bad = DataPlan(
        tables=[
            TablePlan(
                table="customers",
                columns=[
                    ColumnPlan(column="nickname", kind="text"),
                    ColumnPlan(column="credit", kind="email"),
                    ColumnPlan(column="tier", kind="choice", values=["basic", "platinum"]),
                    ColumnPlan(column="full_name", kind="sentence"),
                ],
            ),
            TablePlan(table="refunds"),
        ]
    )
    problems = plan_problems(bad, shop())
    assert any("'customers' column 'nickname'" in p and "no such column" in p for p in problems)
    assert any(
        "'customers' column 'credit'" in p and "'email' does not fit a real column" in p
        for p in problems
    )
    assert any("'customers' column 'tier'" in p and "platinum" in p for p in problems)
    # railway's passengers were named "Talk system wind off analysis turn natural may."
    assert "table 'customers' column 'full_name': a person's name: use kind 'person_name'" in (
        problems
    )
    assert any("table 'refunds'" in p for p in problems)
    assert plan_problems(PLAN, shop()) == []


def test_a_bad_column_plan_is_replaced_by_the_default_when_expanding() -> None:
    bad = DataPlan(
        tables=[TablePlan(table="customers", columns=[ColumnPlan(column="credit", kind="email")])]
    )
    rows = expand(bad, shop(), seed=0, total_rows=50)
    assert all(isinstance(r["credit"], float) for r in rows["customers"])


@pytest.mark.parametrize("schema", [banking_schema, library_schema, shop], ids=lambda f: f.__name__)
def test_the_default_planner_makes_a_plan_that_loads(schema: Any) -> None:
    s = schema()
    plan = default_plan(s)
    assert plan_problems(plan, s) == []
    got = expand_plan(plan, s, seed=0, total_rows=500)
    assert sum(len(r) for r in got.rows.values()) == 500 - sum(got.dropped.values())
    assert all(got.rows.values())
    assert loads_on_both_engines(s, got.rows) == []


def test_expansion_at_100000_rows() -> None:
    schema = shop()
    started = time.perf_counter()
    got = expand_plan(PLAN, schema, seed=0, total_rows=100_000)
    seconds = time.perf_counter() - started
    rows = got.rows
    assert sum(len(r) for r in rows.values()) == 100_000 and not got.dropped
    for table in schema.tables:
        key = table.primary_key[0]
        assert len({r[key] for r in rows[table.name]}) == len(rows[table.name])
    customers = {r["customer_id"] for r in rows["customers"]}
    assert all(r["customer_id"] in customers for r in rows["orders"])
    assert len({r["email"] for r in rows["customers"]}) == len(customers)
    assert seconds < 30, seconds  # about 2 s on the 2-core dev box


def test_a_column_of_one_state_is_filled_only_in_that_state() -> None:
    cards = Table(
        name="cards",
        columns=[
            Column(name="card_id", type="integer"),
            Column(name="status", type="text"),
            Column(name="frozen_reason", type="text", nullable=True),
        ],
        primary_key=["card_id"],
        checks=["status IN ('active', 'frozen')", "frozen_reason IN ('stolen', 'lost')"],
    )
    schema = Schema(tables=[cards])
    rows = expand(default_plan(schema), schema, seed=0, total_rows=200)["cards"]
    frozen = [r for r in rows if r["status"] == "frozen"]
    assert frozen and len(frozen) < len(rows)
    assert all(r["frozen_reason"] in ("stolen", "lost") for r in frozen)
    assert all(r["frozen_reason"] is None for r in rows if r["status"] != "frozen")


def test_a_column_whose_name_says_what_it_holds_gets_that_kind() -> None:
    """Travel's 1.5B plan made last names Faker sentences ("Sister gas face offer
    administration indicate answer.") and hotel locations catch phrases."""
    hotels = keyed_table("hotels", last_name="text", location="text", notes="text")
    said = {
        "last_name": ColumnPlan(column="last_name", kind="sentence"),
        "location": ColumnPlan(column="location", kind="text"),
        "notes": ColumnPlan(column="notes", kind="sentence"),
    }
    assert column_problems(hotels, said["last_name"]) == [
        "table 'hotels' column 'last_name': the column's name says kind 'last_name'; use it"
    ]
    assert column_problems(hotels, said["notes"]) == []
    # a reason is a short phrase (finance froze a card "because my marriage resulted in
    # anything", a Faker sentence in its frozen_reason)
    cards = keyed_table("cards", frozen_reason="text")
    rambling = ColumnPlan(column="frozen_reason", kind="sentence")
    assert column_problems(cards, rambling) == [
        "table 'cards' column 'frozen_reason': a reason is one of a few short phrases: use "
        "kind 'choice'"
    ]
    fixed = complete(
        DataPlan(tables=[TablePlan(table="cards", columns=[rambling])]), Schema(tables=[cards])
    )
    assert fixed.tables[0].columns[0].kind == "choice" and fixed.tables[0].columns[0].values
    plan = DataPlan(tables=[TablePlan(table="hotels", columns=list(said.values()))])
    kinds = {c.column: c.kind for c in complete(plan, Schema(tables=[hotels])).tables[0].columns}
    assert kinds == {"last_name": "last_name", "location": "city", "notes": "sentence"}


def test_a_period_rows_are_grouped_by_is_one_of_a_few() -> None:
    """School's 1.5B planned courses.term as text: 300 courses, 300 catch phrases for terms,
    so "a student cannot have more than 6 active enrollments in the same term" counted one
    course each time and never held a student back."""
    courses = keyed_table("courses", term="text", title="text")
    plain = ColumnPlan(column="term", kind="text")
    assert column_problems(courses, plain) == [
        "table 'courses' column 'term': rows share a few periods (e.g. 'Fall 2024'): use kind "
        "'choice'"
    ]
    pooled = ColumnPlan(column="term", kind="text", values=["2024-25 autumn", "2024-25 spring"])
    assert column_problems(courses, pooled) == []
    schema = Schema(tables=[courses])
    plan = DataPlan(tables=[TablePlan(table="courses", rows=1, columns=[plain])])
    rows = expand(complete(plan, schema), schema, seed=0, total_rows=300)["courses"]
    assert len(rows) == 300 and len({r["term"] for r in rows}) <= 4
    assert len({r["title"] for r in rows}) > 4  # a column of no period keeps its pool


def test_a_settled_row_owes_nothing() -> None:
    """Finance's seed had loans with status repaid that still owed thousands, and the 1.5B
    worded "repay my loan ... my loan status is repaid"."""
    loans = Table(
        name="loans",
        columns=[
            Column(name="loan_id", type="integer"),
            Column(name="status", type="text"),
            Column(name="outstanding_balance", type="real"),
            Column(name="amount", type="real"),
        ],
        primary_key=["loan_id"],
        checks=["status IN ('active', 'repaid', 'closed')"],
    )
    schema = Schema(tables=[loans])
    rows = expand(default_plan(schema), schema, seed=0, total_rows=300)["loans"]
    settled = [r for r in rows if r["status"] in ("repaid", "closed")]
    assert settled and all(r["outstanding_balance"] == 0 for r in settled)
    assert any(r["amount"] > 0 for r in settled)  # what was lent stays
    assert all(r["outstanding_balance"] > 0 for r in rows if r["status"] == "active")


def test_a_span_named_by_its_columns_never_ends_before_it_starts() -> None:
    """Travel's seed had hotel stays that checked out before they checked in (no CHECK
    said the order), and its tasks stated those dates."""
    stays = keyed_table(
        "hotel_bookings",
        check_in_date="datetime",
        check_out_date="datetime",
        start_date="date",
        end_date="date",
    )
    schema = Schema(tables=[stays])
    rows = expand(default_plan(schema), schema, seed=0, total_rows=300)["hotel_bookings"]
    assert len(rows) == 300
    assert all(r["check_out_date"] >= r["check_in_date"] for r in rows)
    assert all(r["end_date"] >= r["start_date"] for r in rows)
    # ... and lasts what such a thing lasts: a stay days, even held as times (travel's
    # checked in at 11:15 and out at 20:45 the same day)
    nights = [
        (
            dt.datetime.fromisoformat(r["check_out_date"])
            - dt.datetime.fromisoformat(r["check_in_date"])
        )
        / dt.timedelta(days=1)
        for r in rows
    ]
    assert min(nights) > 0.5 and max(nights) <= 15
    days = [
        (dt.date.fromisoformat(r["end_date"]) - dt.date.fromisoformat(r["start_date"])).days
        for r in rows
    ]
    assert min(days) >= 1 and max(days) <= 30
    # medicine's appointments ran for a year
    visits = keyed_table("appointments", start_time="datetime", end_time="datetime")
    schema = Schema(tables=[visits])
    rows = expand(default_plan(schema), schema, seed=0, total_rows=300)["appointments"]
    hours = [
        (dt.datetime.fromisoformat(r["end_time"]) - dt.datetime.fromisoformat(r["start_time"]))
        / dt.timedelta(hours=1)
        for r in rows
    ]
    assert min(hours) >= 0.25 and max(hours) <= 3  # a sitting: medicine's ran 12 hours
    # on the minute: a new appointment copied from one at 11:20:10 could not be booked from
    # "11:20 AM" (medicine on 6789a02)
    assert {r[c][-3:] for r in rows for c in ("start_time", "end_time")} == {":00"}
    # a thing of one day is over within it, whatever its columns say: basketball's games
    # lasted up to 30 days and travel's flights up to 14, on 277c846
    games = keyed_table("games", start_date="date", end_date="date")
    flights = keyed_table("flights", departure_date="datetime", arrival_date="datetime")
    later = keyed_table("matches", start_date="date", end_date="date")
    later.checks.append("start_date < end_date")
    schema = Schema(tables=[games, flights, later])
    made = expand(default_plan(schema), schema, seed=0, total_rows=300)
    assert made["games"] and all(r["end_date"] == r["start_date"] for r in made["games"])
    hours = [
        (
            dt.datetime.fromisoformat(r["arrival_date"])
            - dt.datetime.fromisoformat(r["departure_date"])
        )
        / dt.timedelta(hours=1)
        for r in made["flights"]
    ]
    assert hours and min(hours) >= 0.25 and max(hours) <= 12
    ends = [
        (dt.date.fromisoformat(r["end_date"]) - dt.date.fromisoformat(r["start_date"])).days
        for r in made["matches"]
    ]
    assert set(ends) == {1}  # later, as its CHECK says, and no more
    # ecommerce's orders were updated before they were created, and delivered before either
    orders = keyed_table(
        "orders", created_at="datetime", updated_at="datetime", delivered_date="date"
    )
    schema = Schema(tables=[orders])
    rows = expand(default_plan(schema), schema, seed=0, total_rows=300)["orders"]
    assert all(r["updated_at"] >= r["created_at"] for r in rows)
    assert all(r["delivered_date"] >= r["created_at"][:10] for r in rows)
    assert all(len(r["delivered_date"]) == 10 and "T" in r["created_at"] for r in rows)


def test_what_one_person_brings_is_counted_in_a_few() -> None:
    """Travel's 1.5B planned 1 to 1000 additional bags per hotel booking, and a task booked
    803 bags: the plan is refused with why, and the default counts a few."""
    bookings = keyed_table(
        "hotel_bookings",
        additional_bags="integer",
        rooms_available="integer",
        tickets_sold="integer",
    )
    bags = ColumnPlan(column="additional_bags", kind="integer", low=1, high=1000)
    assert column_problems(bookings, bags) == [
        "table 'hotel_bookings' column 'additional_bags': counts what one person has or "
        "brings; high 1000.0 is more than anyone does: at most 20"
    ]
    assert column_problems(bookings, bags.model_copy(update={"high": 3})) == []
    for stock in ("rooms_available", "tickets_sold"):  # a stock and a tally are no luggage
        assert (
            column_problems(bookings, ColumnPlan(column=stock, kind="integer", low=0, high=500))
            == []
        )
    schema = Schema(tables=[bookings])
    plan = DataPlan(tables=[TablePlan(table="hotel_bookings", columns=[bags])])
    rows = expand(plan, schema, seed=0, total_rows=200)["hotel_bookings"]
    assert max(r["additional_bags"] for r in rows) <= 4


def test_an_email_is_planned_as_one_persons_own() -> None:
    """Finance's 1.5B planned clients' emails as a choice of 10 for 63 clients: a find by
    email gave up to 8 people, and no task could tell which one the user was."""
    clients = keyed_table("clients", first_name="text", email="text")
    chosen = ColumnPlan(column="email", kind="choice", values=["a@example.com", "b@example.com"])
    assert column_problems(clients, chosen) == [
        "table 'clients' column 'email': an email is one person's own, made from their name: "
        "use kind 'email'"
    ]
    # and a person's names are drawn from many: 10 first names for 57 clients gave 16 who
    # shared their whole name with another
    named = ColumnPlan(column="first_name", kind="choice", values=["Eve", "Ian"])
    assert column_problems(clients, named) == [
        "table 'clients' column 'first_name': a person's first name: use kind 'first_name'"
    ]
    plan = DataPlan(tables=[TablePlan(table="clients", columns=[chosen, named])])
    schema = Schema(tables=[clients])
    rows = expand(complete(plan, schema), schema, seed=0, total_rows=60)["clients"]
    assert len({r["email"] for r in rows}) == len(rows) == 60
    assert len({r["first_name"] for r in rows}) > 30
    # the email is made from the row's own name
    assert all(r["first_name"].lower()[0] in r["email"] for r in rows)


def test_what_is_held_at_a_time_is_partly_still_to_come() -> None:
    """Movie's 69 showtimes all lay before the clock (the model's window, and the default it
    was shown, ended in the past), and its screens held 2 to 39 seats: no booking could be
    made, so no create task was ever drafted."""
    screens = keyed_table("screens", capacity="integer")
    showtimes = keyed_table("showtimes", showtime_date="datetime", created_at="datetime")
    schema = Schema(tables=[screens, showtimes])
    clock = "2025-01-15"
    past = ColumnPlan(column="showtime_date", kind="datetime", start="2022-01-01", end="2024-12-31")
    said = DataPlan(tables=[TablePlan(table="showtimes", columns=[past])])
    for plan in (default_plan(schema), said):
        rows = expand(plan, schema, seed=0, total_rows=400)
        shows = [r["showtime_date"] for r in rows["showtimes"]]
        assert sum(s > clock for s in shows) >= len(shows) // 5, plan
        assert sum(s < clock for s in shows) >= len(shows) // 5, plan
        # a record's own history stays in the past
        assert all(r["created_at"] < clock for r in rows["showtimes"])
    capacities = [r["capacity"] for r in expand(default_plan(schema), schema, 0, 400)["screens"]]
    assert min(capacities) >= 40


def test_a_stay_booked_is_partly_still_to_come() -> None:
    """Travel's 237 hotel stays on ade7166 all lay before the clock: every new stay its
    users asked for copied a past one, and 4 of the first 7 drafts were rejected for it. A
    booking's own moment of booking stays in the past."""
    stays = keyed_table(
        "hotel_bookings",
        check_in_date="datetime",
        check_out_date="datetime",
        booked_at="datetime",
    )
    schema = Schema(tables=[stays])
    clock = "2025-01-15"
    rows = expand(default_plan(schema), schema, seed=0, total_rows=300)["hotel_bookings"]
    assert sum(r["check_in_date"] > clock for r in rows) >= len(rows) // 5
    assert all(r["check_out_date"] >= r["check_in_date"] for r in rows)
    assert all(r["booked_at"] < clock for r in rows)


def test_what_is_still_to_come_lies_ahead_and_what_was_held_behind() -> None:
    """Restaurant's seed had booked reservations last March and seated ones next month (a
    task then moved an order to a "seated" reservation of 2025-03-06, and food was ordered
    for parties seated last July), and trips depart only ahead of the clock whatever their
    status."""
    reservations = keyed_table("reservations", date="date", created_at="datetime")
    reservations.checks.append("status IN ('booked', 'seated', 'cancelled')")
    reservations.columns.append(Column(name="status", type="text"))
    trips = keyed_table("trips", departure_time="datetime", arrival_time="datetime")
    trips.checks.append("status IN ('scheduled', 'delayed', 'completed')")
    trips.columns.append(Column(name="status", type="text"))
    schema = Schema(tables=[reservations, trips])
    clock = "2025-01-15"
    rows = expand(default_plan(schema), schema, seed=0, total_rows=600)
    by = {
        state: [r["date"] for r in rows["reservations"] if r["status"] == state]
        for state in ("booked", "seated", "cancelled")
    }
    assert by["booked"] and all(d > clock for d in by["booked"])
    assert by["seated"] and all(d == clock for d in by["seated"])  # seated now
    assert any(d < clock for d in by["cancelled"]) and any(d > clock for d in by["cancelled"])
    assert all(r["created_at"] < clock for r in rows["reservations"])  # its own history
    done = [r for r in rows["trips"] if r["status"] == "completed"]
    stays = keyed_table("hotel_bookings", check_in_date="datetime", check_out_date="datetime")
    stays.checks.append("status IN ('pending', 'confirmed', 'cancelled')")
    stays.columns.append(Column(name="status", type="text"))
    booked = expand(default_plan(Schema(tables=[stays])), Schema(tables=[stays]), 0, 300)
    waiting = [r for r in booked["hotel_bookings"] if r["status"] != "cancelled"]
    assert waiting and all(r["check_in_date"] > clock for r in waiting)  # travel's were 2023
    assert done and all(r["departure_time"] < clock for r in done)
    assert all(r["departure_time"] > clock for r in rows["trips"] if r["status"] == "scheduled")
    assert all(r["departure_time"] <= r["arrival_time"] for r in rows["trips"])


def test_a_thing_called_by_name_gets_a_name_and_a_measure_its_range() -> None:
    """Weather's stations were named "Right-sized full-range forecast" (a Faker catch
    phrase), its humidity ran to 927.75 and its alert severity to 497."""
    stations = keyed_table("stations", humidity="real", severity="integer")
    stations.columns.insert(1, Column(name="name", type="text"))
    plan = DataPlan(
        tables=[TablePlan(table="stations", columns=[ColumnPlan(column="name", kind="text")])]
    )
    schema = Schema(tables=[stations])
    rows = expand(plan, schema, seed=0, total_rows=200)["stations"]
    assert all(re.fullmatch(r"[A-Z][\w .'-]+ Station", r["name"]) for r in rows), rows[:3]
    assert all(5 <= r["humidity"] <= 100 for r in rows)
    assert all(1 <= r["severity"] <= 5 for r in rows)
    # restaurant's time slots were catch phrases, its no_shows ran to 295 (3 bar a
    # reservation) and a burger cost 2200.05
    guests = keyed_table("customers", no_shows="integer")
    slots = keyed_table("reservations", time_slot="text")
    menu = keyed_table("menu_items", price="real")
    schema = Schema(tables=[guests, slots, menu])
    said = DataPlan(
        tables=[
            TablePlan(table="reservations", columns=[ColumnPlan(column="time_slot", kind="text")])
        ]
    )
    drawn = expand(complete(said, schema), schema, seed=0, total_rows=300)
    # a thing's name from a small pool is still one thing's: its menu had "Sushi" twice,
    # and its users ordered "item 42317"
    dishes = ColumnPlan(column="name", kind="text", values=["Sushi", "Burger", "Ramen"])
    menu.columns.insert(1, Column(name="name", type="text"))
    pooled = DataPlan(tables=[TablePlan(table="menu_items", rows=5, columns=[dishes])])
    names = [r["name"] for r in expand(pooled, Schema(tables=[menu]), 0, 40)["menu_items"]]
    assert len(names) == 40 and len(set(names)) == 40
    assert {"Sushi", "House Sushi"} <= set(names)
    # movie's 13 films had 8 titles: no lookup by title found "The Hobbit", and its users
    # booked "showtime ID 34116"; a repeated title is a sequel
    films = ColumnPlan(column="title", kind="text", values=["The Hobbit", "Inception"])
    movies = keyed_table("movies", title="text")
    pooled = DataPlan(tables=[TablePlan(table="movies", rows=5, columns=[films])])
    titles = [r["title"] for r in expand(pooled, Schema(tables=[movies]), 0, 13)["movies"]]
    assert len(set(titles)) == len(titles) == 13
    assert {"The Hobbit", "The Hobbit 2"} <= set(titles)
    assert all(re.fullmatch(r"\d\d:[03]0", r["time_slot"]) for r in drawn["reservations"])
    assert all(0 <= r["no_shows"] <= 4 for r in drawn["customers"])
    assert all(4 <= r["price"] <= 60 for r in drawn["menu_items"])
    # finance's loans ran from 7.12 (median 259), and its users asked for "a loan of $7.59"
    loans = keyed_table("loans", amount="real", outstanding_balance="real", principal="integer")
    lent = expand(default_plan(Schema(tables=[loans])), Schema(tables=[loans]), 0, 200)["loans"]
    for column in ("amount", "outstanding_balance", "principal"):
        assert all(1000 <= r[column] <= 50000 for r in lent), column


def test_what_is_taken_stays_within_the_most_there_may_be() -> None:
    """Basketball's games sold more tickets than they held (no CHECK said so) on 277c846."""
    games = keyed_table("games", tickets_sold="integer", tickets_capacity="integer")
    classes = keyed_table("classes", enrolled="integer", max_students="integer", fee="real")
    # medicine's prescriptions on 8fb416f: 17 of 348 used more refills than they allowed
    refills = keyed_table("prescriptions", refills_allowed="integer", refills_used="integer")
    schema = Schema(tables=[games, classes, refills])
    plan = default_plan(schema)
    made = expand(plan, schema, seed=0, total_rows=400)
    assert made["prescriptions"]
    assert all(r["refills_used"] <= r["refills_allowed"] for r in made["prescriptions"])
    assert made["games"] and all(r["tickets_sold"] <= r["tickets_capacity"] for r in made["games"])
    assert made["classes"] and all(r["enrolled"] <= r["max_students"] for r in made["classes"])
    assert len({r["tickets_sold"] for r in made["games"]}) > 5  # still drawn, not pinned


def test_what_is_owed_stays_within_what_was_lent() -> None:
    """Finance's loans on 5cf74c2 owed more than was lent (outstanding_balance 31,842.30 of
    an amount of 7,938.94), and a refusal to repay was worded from it."""
    loans = keyed_table("loans", amount="real", outstanding_balance="real")
    schema = Schema(tables=[loans])
    made = expand(default_plan(schema), schema, seed=0, total_rows=300)["loans"]
    assert made and all(r["outstanding_balance"] <= r["amount"] for r in made)
    assert len({r["outstanding_balance"] for r in made}) > 100  # still drawn, not pinned


def test_a_childs_part_stays_within_its_parents_whole() -> None:
    """Ecommerce's returns on 05f674d took back 30 of an order item of 15: a child's number
    named as its parent's (a return's quantity) is a part of it. A quantity under a
    reference to a table that holds none is drawn freely."""
    items = keyed_table("order_items", quantity="integer")
    returns = Table(
        name="returns",
        columns=[
            Column(name="return_id", type="integer"),
            Column(name="order_item_id", type="integer", nullable=False),
            Column(name="quantity", type="integer", nullable=False),
        ],
        primary_key=["return_id"],
        foreign_keys=[
            ForeignKey(
                columns=["order_item_id"], ref_table="order_items", ref_columns=["order_item_id"]
            )
        ],
    )
    schema = Schema(tables=[items, returns])
    plan = complete(
        DataPlan(
            tables=[
                TablePlan(
                    table="order_items",
                    columns=[ColumnPlan(column="quantity", kind="integer", low=0, high=40)],
                ),
                TablePlan(
                    table="returns",
                    columns=[ColumnPlan(column="quantity", kind="integer", low=1, high=50)],
                ),
            ]
        ),
        schema,
    )
    expansion = expand_plan(plan, schema, seed=0, total_rows=400)
    made = expansion.rows
    whole = {r["order_item_id"]: r["quantity"] for r in made["order_items"]}
    assert made["returns"]
    assert all(1 <= r["quantity"] <= whole[r["order_item_id"]] for r in made["returns"])
    assert len({r["quantity"] for r in made["returns"]}) > 5
    # an item of 0 holds no return: the rows it owned are dropped, and counted
    empty = sum(1 for q in whole.values() if q == 0)
    assert empty and expansion.dropped.get("returns", 0) > 0


def test_a_day_a_record_lapses_lies_mostly_ahead() -> None:
    """Medicine's data plan on 8fb416f put every prescription's expiry_date before the
    clock: no refill could ever succeed (348 of 348 refused by the expiry step). A plan
    that ends such a column before today is fed back and replaced by the default, where
    some have lapsed and most are still to come."""
    scripts = keyed_table("prescriptions", expiry_date="date")
    schema = Schema(tables=[scripts])
    past = ColumnPlan(column="expiry_date", kind="date", start="2023-01-01", end="2024-12-31")
    problems = column_problems(scripts, past)
    assert problems and "before today (2025-01-15)" in problems[0]
    ahead = past.model_copy(update={"end": "2026-06-30"})
    assert column_problems(scripts, ahead) == []
    plan = complete(DataPlan(tables=[TablePlan(table="prescriptions", columns=[past])]), schema)
    days = [r["expiry_date"] for r in expand(plan, schema, seed=0, total_rows=200)["prescriptions"]]
    still = sum(day > "2025-01-15" for day in days)
    assert 0 < len(days) - still < still, (still, len(days))


def test_keys_to_the_same_table_come_in_routes_that_rows_share() -> None:
    """Railway's 75 trips ran on 75 origin-destination pairs, so no ticket could move to
    another trip of its route (the rule asks for the same stations): rows share a few
    combinations of keys that point to one table, each of distinct rows."""
    stations = Table(
        name="stations",
        columns=[
            Column(name="station_id", type="integer", nullable=False),
            Column(name="name", type="text", nullable=False),
        ],
        primary_key=["station_id"],
    )
    trips = Table(
        name="trips",
        columns=[
            Column(name="trip_id", type="integer", nullable=False),
            Column(name="origin_station_id", type="integer", nullable=False),
            Column(name="destination_station_id", type="integer", nullable=False),
        ],
        primary_key=["trip_id"],
        foreign_keys=[
            ForeignKey(columns=[c], ref_table="stations", ref_columns=["station_id"])
            for c in ("origin_station_id", "destination_station_id")
        ],
        checks=["origin_station_id <> destination_station_id"],
    )
    schema = Schema(tables=[stations, trips])
    rows = _expand(default_plan(schema), schema, seed=3, total_rows=400)["trips"]
    routes = {(r["origin_station_id"], r["destination_station_id"]) for r in rows}
    assert len(rows) >= 100
    assert len(routes) <= len(rows) // 2, (len(routes), len(rows))  # 266 of 267 before
    assert all(a != b for a, b in routes)


def _refs(name: str, *parents: str, **types: ColumnType) -> Table:
    """A keyed table with a reference to each of `parents`."""
    keys = [f"{p.removesuffix('s')}_id" for p in parents]
    ids: dict[str, ColumnType] = {k: "integer" for k in keys}
    table = keyed_table(name, **ids, **types)
    table.foreign_keys = [
        ForeignKey(columns=[k], ref_table=p, ref_columns=[k])
        for k, p in zip(keys, parents, strict=True)
    ]
    return table


@pytest.mark.parametrize("parent", ["", "patient_id", "appointment_id"])
def test_two_ways_to_one_row_lead_to_the_same_row(parent: str) -> None:
    """Medicine on 8fb416f wrote 345 of 348 prescriptions at another patient's appointment
    with another doctor, and basketball's contracts were with a team their player was not
    on (283 of 288): a row's reference to a table that another of its references reaches
    is that one's, whichever of them owns the rows."""
    schema = Schema(
        tables=[
            keyed_table("patients", full_name="text"),
            keyed_table("doctors", full_name="text"),
            _refs("appointments", "patients", "doctors"),
            _refs("prescriptions", "patients", "doctors", "appointments", refills="integer"),
        ]
    )
    plan = complete(DataPlan(tables=[TablePlan(table="prescriptions", parent=parent)]), schema)
    made = expand_plan(plan, schema, seed=3, total_rows=400).rows
    visits = {a["appointment_id"]: a for a in made["appointments"]}
    assert len(made["prescriptions"]) > 50
    for p in made["prescriptions"]:
        visit = visits[p["appointment_id"]]
        assert (p["patient_id"], p["doctor_id"]) == (visit["patient_id"], visit["doctor_id"])
    # the rows still spread over many parents
    assert len({p["patient_id"] for p in made["prescriptions"]}) > 10


def test_a_row_is_made_after_the_parents_it_belongs_to() -> None:
    """ecommerce's seed on 5b7cc66 had 144 of 266 order items made before their order and
    140 of 267 returns before their item: a task that reads both dates states it."""
    orders = keyed_table("orders", created_at="datetime", updated_at="datetime")
    items = keyed_table("order_items", order_id="integer", created_at="datetime")
    returns = keyed_table("returns", order_item_id="integer", created_at="date")
    items.foreign_keys = [
        ForeignKey(columns=["order_id"], ref_table="orders", ref_columns=["order_id"])
    ]
    returns.foreign_keys = [
        ForeignKey(
            columns=["order_item_id"], ref_table="order_items", ref_columns=["order_item_id"]
        )
    ]
    schema = Schema(tables=[orders, items, returns])
    rows = expand(default_plan(schema), schema, seed=0, total_rows=600)
    made = {o["order_id"]: o["created_at"] for o in rows["orders"]}
    assert all(i["created_at"] >= made[i["order_id"]] for i in rows["order_items"])
    made = {i["order_item_id"]: i["created_at"][:10] for i in rows["order_items"]}
    assert all(r["created_at"] >= made[r["order_item_id"]] for r in rows["returns"])
    clock = dt.datetime.combine(CLOCK, dt.time()).isoformat()
    assert all(r["created_at"] < clock for table in rows.values() for r in table)
    # an update comes after the making it follows
    assert all(o["updated_at"] >= o["created_at"] for o in rows["orders"])
    assert not loads_on_both_engines(schema, rows)


def test_an_age_is_counted_from_the_rows_birth_day() -> None:
    """Movie's seed on 3d6f8ed drew `age` and `birth_date` apart: customer 47345, born
    2003-04-11, was 43. An age beside a birth day is the whole years from it to the clock,
    whatever the plan drew."""
    people = keyed_table("customers", birth_date="date", age="integer")
    schema = Schema(tables=[people])
    said = DataPlan(
        tables=[
            TablePlan(
                table="customers",
                columns=[ColumnPlan(column="age", kind="integer", low=18, high=90)],
            )
        ]
    )
    rows = expand(complete(said, schema), schema, seed=3, total_rows=200)["customers"]
    assert len(rows) == 200
    for row in rows:
        born = dt.date.fromisoformat(str(row["birth_date"]))
        had_birthday = (CLOCK.month, CLOCK.day) >= (born.month, born.day)
        assert row["age"] == CLOCK.year - born.year - (not had_birthday), row
    # an age with no birth day beside it is drawn as planned
    alone = keyed_table("customers", age="integer")
    drawn = expand(said, Schema(tables=[alone]), seed=3, total_rows=50)["customers"]
    assert all(18 <= r["age"] <= 90 for r in drawn)
