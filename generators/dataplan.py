"""Seed rows at scale from a data plan: the model says what kind of value each column holds
and how many children a parent has; this program writes the rows.

A small model cannot type 600 rows, let alone 100,000, but it can pick a kind from a list
and fill one to three fields. `expand` turns the plan into rows deterministically (same plan
and seed, same rows), with pools drawn once from Faker and values sampled with one
`random.Random` per table; emails come from the same row's name, unique columns stay
unique, keys look like real ids, CHECKs bound the values, and every row is loaded through
the real SQLite DDL before it is kept (a refused row is drawn again, or dropped and
counted)."""

from __future__ import annotations

import datetime as dt
import functools
import itertools
import math
import random
import re
import sqlite3
import unicodedata
from collections import Counter
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field
from sqlglot import exp

from toolscale.sandbox.ddl import create_statements
from toolscale.schema import ColumnType, Scalar, Schema, Table
from toolscale.wording import COUNTERS, singular, spans

Kind = Literal[
    "person_name",
    "first_name",
    "last_name",
    "email",
    "phone",
    "company",
    "city",
    "country",
    "address",
    "choice",
    "integer",
    "real",
    "date",
    "datetime",
    "identifier",
    "text",
    "sentence",
    "boolean",
    "reference",
]
KINDS: tuple[str, ...] = get_args(Kind)
TEXT_ONLY = (
    "person_name",
    "first_name",
    "last_name",
    "email",
    "phone",
    "company",
    "city",
    "country",
    "address",
    "text",
    "sentence",
)
FITS: dict[ColumnType, tuple[str, ...]] = {
    "text": (*TEXT_ONLY, "choice", "identifier", "date", "datetime"),
    "integer": ("integer", "choice", "identifier"),
    "real": ("real", "integer", "choice"),
    "date": ("date",),
    "datetime": ("datetime", "date"),
    "boolean": ("boolean",),
}
Distribution = Literal["uniform", "normal", "lognormal"]
ID_GAPS = (1, 1, 1, 2, 3)  # ids go up with small gaps, like a live table's after deletions
MAX_DRAWS = 20  # a row the database refuses is drawn again this often, then dropped
PER_ROUTE = 4  # rows that share one combination of keys to the same table (a route)
POOL = 600  # names, companies, cities ... drawn from Faker once per seed
MAX_ROWS = 100_000
CLOCK = dt.date(2025, 1, 15)  # EnvironmentSpec's default clock: windows end before it


class ColumnPlan(BaseModel):
    """What one column holds. Only the fields of its kind matter; the rest keep defaults."""

    model_config = ConfigDict(extra="forbid")

    column: str
    kind: Kind
    values: list[str | int | float] = Field(
        default_factory=list, description="choice: the values; text: a pool to draw from"
    )
    weights: list[float] = Field(
        default_factory=list, description="choice: one weight per value (default equal)"
    )
    low: float | None = Field(default=None, description="integer / real: smallest value")
    high: float | None = Field(default=None, description="integer / real: largest value")
    distribution: Distribution = "uniform"
    decimals: int | None = Field(default=None, ge=0, le=6, description="real: 2 for cents")
    start: str | None = Field(default=None, description="date / datetime: first day, ISO")
    end: str | None = Field(default=None, description="date / datetime: last day, ISO")
    pattern: str = Field(
        default="", description="identifier: '#' a digit, '@' a capital letter, e.g. ACC-#####"
    )
    probability: float | None = Field(default=None, description="boolean: chance of true")
    nulls: float = Field(default=0.0, ge=0, le=1, description="share of nulls (nullable only)")
    source: str = Field(default="", description="email: the name column it is made from")


class TablePlan(BaseModel):
    """How many rows and what goes in each column; columns left out get a default plan."""

    model_config = ConfigDict(extra="forbid")

    table: str
    rows: int | None = Field(
        default=None, ge=1, description="a table without parents: its relative size"
    )
    parent: str = Field(default="", description="the foreign key that owns a row (default: first)")
    min_children: int = Field(default=1, ge=0, description="rows per parent row, at least")
    max_children: int = Field(default=3, ge=0, description="rows per parent row, at most")
    columns: list[ColumnPlan] = Field(default_factory=list)


class DataPlan(BaseModel):
    """The model's plan for a whole domain's seed rows."""

    model_config = ConfigDict(extra="forbid")

    tables: list[TablePlan] = Field(default_factory=list)

    def table(self, name: str) -> TablePlan | None:
        return next((t for t in self.tables if t.table == name), None)


# -- what the schema says ----------------------------------------------------------------


def foreign_key_of(table: Table) -> dict[str, str]:
    """column -> referenced table, for single-column foreign keys."""
    return {fk.columns[0]: fk.ref_table for fk in table.foreign_keys if len(fk.columns) == 1}


def own_key(table: Table) -> str | None:
    """The one-column primary key whose values are ours (integer ids, or text ids with a
    prefix), if the table has one that is not also a foreign key."""
    keys = table.primary_key
    single = len(keys) == 1 and table.column(keys[0]).type in ("integer", "text")
    return keys[0] if single and keys[0] not in foreign_key_of(table) else None


def key_prefix(table: Table) -> str:
    """What a text key starts with: ACC-2045731 in accounts."""
    return (re.sub(r"[^a-z]", "", table.name)[:3] or "id").upper() + "-"


def length_bounds(table: Table) -> dict[str, tuple[int, int]]:
    """column -> (shortest, longest) from CHECK terms `length(col) = n` / `BETWEEN a AND b`."""
    out: dict[str, tuple[int, int]] = {}
    for term in table.check_terms():
        target = term.this if isinstance(term, exp.EQ | exp.Between) else None
        if not isinstance(target, exp.Length) or not isinstance(target.this, exp.Column):
            continue
        if isinstance(term, exp.EQ):
            n = _literal(term.expression)
            low = high = n
        else:
            low, high = _literal(term.args["low"]), _literal(term.args["high"])
        if isinstance(low, float) and isinstance(high, float):
            out[target.this.name] = (int(low), int(high))
    return out


def _literal(node: exp.Expr) -> float | str | None:
    if isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal):
        value = _literal(node.this)
        return -value if isinstance(value, float) else None
    if isinstance(node, exp.Literal):
        if node.is_string:
            return str(node.this)
        try:
            return float(node.this)
        except ValueError:
            return None
    return None


_FLIP: dict[type[exp.Expr], type[exp.Expr]] = {
    exp.GT: exp.LT,
    exp.GTE: exp.LTE,
    exp.LT: exp.GT,
    exp.LTE: exp.GTE,
    exp.EQ: exp.EQ,
}


@dataclass
class Bounds:
    """What a table's CHECKs say about one column's values."""

    low: float | str | None = None
    high: float | str | None = None
    strict_low: bool = False
    strict_high: bool = False

    def add(self, op: type[exp.Expr], value: float | str) -> None:
        if op in (exp.GT, exp.GTE, exp.EQ) and (self.low is None or _gt(value, self.low)):
            self.low, self.strict_low = value, op is exp.GT
        if op in (exp.LT, exp.LTE, exp.EQ) and (self.high is None or _gt(self.high, value)):
            self.high, self.strict_high = value, op is exp.LT


def _gt(a: float | str, b: float | str) -> bool:
    return type(a) is type(b) and a > b  # type: ignore[operator]


def check_bounds(table: Table) -> dict[str, Bounds]:
    """column -> bounds from CHECK terms `col op literal` (and BETWEEN) joined by AND."""
    out: dict[str, Bounds] = {}
    for term in table.check_terms():
        if isinstance(term, exp.Between) and isinstance(term.this, exp.Column):
            low, high = _literal(term.args["low"]), _literal(term.args["high"])
            bounds = out.setdefault(term.this.name, Bounds())
            if low is not None:
                bounds.add(exp.GTE, low)
            if high is not None:
                bounds.add(exp.LTE, high)
            continue
        op: type[exp.Expr] = type(term)
        if op not in _FLIP:
            continue
        left, right = term.this, term.expression
        if isinstance(right, exp.Column) and not isinstance(left, exp.Column):
            left, right, op = right, left, _FLIP[op]
        value = _literal(right)
        if isinstance(left, exp.Column) and value is not None:
            out.setdefault(left.name, Bounds()).add(op, value)
    return out


# -- checking a plan ----------------------------------------------------------------------


def is_iso(text: str | None, kind: str) -> bool:
    """A date (or, for any other kind, a date and time) as ISO 8601 writes it; None is."""
    if text is None:
        return True
    try:
        (dt.date if kind == "date" else dt.datetime).fromisoformat(text)
    except ValueError:
        return False
    return True


SETTLED = {"closed", "repaid", "paid", "paid_off", "settled"}  # states that owe or hold nothing
OWED = re.compile(r"balance|outstanding|owed|remaining|debt")


def owed_column(table: Table, column: str) -> bool:
    """A number that a settled row has none of: a closed account's balance, a repaid loan's
    outstanding balance (finance's seed had repaid loans still owing thousands)."""
    col = table.column(column)
    return col.type in ("integer", "real") and bool(OWED.search(column)) and "max" not in column


# what a reason column holds when the plan names none: short, and fit for most records
REASONS = (
    "requested by the customer", "no longer needed", "suspected fraud", "lost",
    "entered in error", "other",
)  # fmt: skip
PERIODS: dict[str, Any] = {  # what rows are grouped by: a term, a season
    "kind": "choice",
    "values": ["Fall 2024", "Spring 2025", "Summer 2025", "Fall 2025"],
    "weights": [4, 4, 1, 3],
}
NAMED_KINDS = {"first_name", "last_name", "person_name", "city", "country", "address", "phone"}


def column_problems(table: Table, plan: ColumnPlan) -> list[str]:
    """What is wrong with one column's plan, each naming the table and column."""
    where = f"table {table.name!r} column {plan.column!r}"
    if plan.column not in table.column_names:
        return [f"{where}: no such column; columns are {', '.join(table.column_names)}"]
    col = table.column(plan.column)
    fks = foreign_key_of(table)
    if plan.kind == "reference" or plan.column in fks:
        if plan.kind != "reference" or plan.column not in fks:
            return [f"{where}: kind 'reference' is for the foreign keys ({', '.join(fks)}) only"]
        return []
    if plan.kind not in FITS[col.type]:
        fits = ", ".join(k for k in FITS[col.type] if k != "reference")
        return [f"{where}: kind {plan.kind!r} does not fit a {col.type} column; use one of {fits}"]
    out = []
    if _persons_name(table, col.name) and plan.kind not in ("person_name", "first_name"):
        # railway's passengers were named "Talk system wind off analysis turn natural may."
        out.append(f"{where}: a person's name: use kind 'person_name'")
    elif col.type == "text" and (
        plan.kind == "sentence" or (plan.kind == "text" and not plan.values)
    ):
        # travel's last names were "Sister gas face offer administration indicate answer."
        # and hotel locations "Ergonomic multi-state standardization"
        named = _default_text(
            table, col.name, col.name.lower(), functools.partial(ColumnPlan, column=col.name)
        )
        if named.kind in NAMED_KINDS:
            out.append(f"{where}: the column's name says kind {named.kind!r}; use it")
        elif "reason" in col.name.lower():
            # finance froze cards "because my marriage resulted in anything" (a Faker
            # sentence in frozen_reason, passed on as the freeze's argument)
            out.append(f"{where}: a reason is one of a few short phrases: use kind 'choice'")
        elif named.values == PERIODS["values"]:
            # school's 1.5B planned its term as text: one catch phrase per course, so "at
            # most 6 active enrollments in the same term" never held anyone back
            out.append(f"{where}: rows share a few periods (e.g. 'Fall 2024'): use kind 'choice'")
    part = re.search(r"first_?name|last_?name", col.name.lower()) if col.type == "text" else None
    people = PERSON_TABLES.search(table.name) and not COMPANY_TABLES.search(table.name)
    kind = "first_name" if part and part.group().startswith("first") else "last_name"
    if part and people and plan.kind != kind:
        # finance's 1.5B chose 10 first and 10 last names for 57 clients: 16 shared a
        # name with another, so a find by name gave several people
        out.append(f"{where}: a person's {kind.replace('_', ' ')}: use kind {kind!r}")
    if plan.kind != "email" and col.type == "text" and "email" in col.name.lower():
        # finance's 1.5B chose 10 emails for 63 clients, so finding a client by email
        # gave up to 8 people, and an email did not go with its name
        out.append(f"{where}: an email is one person's own, made from their name: use kind 'email'")
    enum = table.enum_values(col.name)
    if plan.kind == "choice":
        if not plan.values:
            out.append(f"{where}: a choice needs values")
        if plan.weights and len(plan.weights) != len(plan.values):
            out.append(f"{where}: {len(plan.weights)} weights for {len(plan.values)} values")
        if plan.weights and (min(plan.weights) < 0 or sum(plan.weights) <= 0):
            out.append(f"{where}: weights must be positive")
        if col.type in ("integer", "real") and not all(_number(v) for v in plan.values):
            out.append(f"{where}: a {col.type} column's choice values must be numbers")
        if enum is not None and any(str(v) not in enum for v in plan.values):
            bad = [v for v in plan.values if str(v) not in enum]
            out.append(f"{where}: values {bad} break the CHECK; allowed: {enum}")
    elif enum is not None and plan.kind not in ("choice",):
        out.append(f"{where}: a CHECK allows only {enum}: use kind 'choice' with those values")
    low, high = plan.low, plan.high
    if plan.kind in ("integer", "real") and low is not None and high is not None and low > high:
        out.append(f"{where}: low {plan.low} is above high {plan.high}")
    if plan.kind == "integer" and _carried(col.name) and (high or 0) > MOST_CARRIED:
        # travel's 1.5B planned 1 to 1000 additional bags, and a task booked 803 of them
        out.append(
            f"{where}: counts what one person has or brings; high {plan.high} is more than "
            f"anyone does: at most {MOST_CARRIED}"
        )
    if plan.kind in ("date", "datetime"):
        if not (is_iso(plan.start, plan.kind) and is_iso(plan.end, plan.kind)):
            out.append(f"{where}: start and end must be ISO dates like 2024-01-31")
        elif plan.start and plan.end and plan.start > plan.end:
            out.append(f"{where}: start {plan.start} is after end {plan.end}")
        elif LAPSES.search(plan.column) and plan.end and plan.end[:10] <= CLOCK.isoformat():
            out.append(
                f"{where}: every day planned lies before today ({CLOCK.isoformat()}), so "
                f"nothing is still valid: end it after today"
            )
    if plan.kind == "identifier":
        if "#" not in plan.pattern and "@" not in plan.pattern:
            out.append(f"{where}: an identifier pattern needs '#' (digit) or '@' (letter)")
        if col.type == "integer" and set(plan.pattern) - {"#"} - set("0123456789"):
            out.append(f"{where}: an integer identifier pattern holds only '#' and digits")
    chance = plan.probability
    if plan.kind == "boolean" and chance is not None and not 0 <= chance <= 1:
        out.append(f"{where}: probability must be between 0 and 1")
    if plan.kind == "email" and plan.source and plan.source not in table.column_names:
        out.append(f"{where}: source {plan.source!r} is not a column")
    if plan.nulls and not col.nullable:
        out.append(f"{where}: the column is NOT NULL, so nulls must be 0")
    return out


# what one booking or order holds a few of: its bags, guests, nights, passengers, items
CARRIED = re.compile(
    r"(?:^|_)(?:bags?|luggage|guests?|nights?|passengers?|adults?|children|kids|items?|"
    r"party|people|persons?|pets?)(?:_|$)"
)
MOST_CARRIED = 20
# what goes wrong now and then: a few times at most, most often never
MISHAPS = re.compile(r"no_?shows?|strikes?|violations?|warnings?|missed|late_|absences?|penalt")
FOOD = re.compile(r"menu|dish|food|drink|meal|beverage")
# what is lent runs to thousands: finance's 1.5B copied the 5-20,000 lognormal suggestion for
# its loans (median 259, one of 7.12), and its users asked for "a loan of $7.59"
LENT = re.compile(r"loan|mortgage|debt|lease|credit_line")
# a time of day a text column holds: restaurant's time slots were Faker catch phrases
TIMES = re.compile(r"(?:^|_)(?:time|slot|hour)(?:_|s?$)")
TIMES_OF_DAY = tuple(f"{h:02d}:{m:02d}" for h in range(8, 22) for m in (0, 30))


def _carried(column: str) -> bool:
    """A column that counts what one person has or brings (`additional_bags`), not stock
    (`rooms_available`) or a tally (`tickets_sold`)."""
    n = column.lower()
    return bool(CARRIED.search(n)) and not re.search(r"available|capacity|stock|sold|total", n)


def _number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def plan_problems(plan: DataPlan, schema: Schema) -> list[str]:
    """Every problem of a plan, each naming the table (and column): fed back to the model."""
    out = []
    seen: set[str] = set()
    for tp in plan.tables:
        if tp.table not in schema.table_names:
            out.append(f"table {tp.table!r}: no such table; tables are {schema.table_names}")
            continue
        if tp.table in seen:
            out.append(f"table {tp.table!r}: planned twice")
        seen.add(tp.table)
        out.extend(table_plan_problems(schema.table(tp.table), tp))
    return out


def table_plan_problems(table: Table, tp: TablePlan) -> list[str]:
    out = []
    fks = foreign_key_of(table)
    if tp.parent and tp.parent not in fks:
        out.append(f"table {table.name!r}: parent {tp.parent!r} is not a foreign key column")
    if tp.min_children > tp.max_children:
        out.append(f"table {table.name!r}: min_children is above max_children")
    named = [c.column for c in tp.columns]
    for name in sorted({n for n in named if named.count(n) > 1}):
        out.append(f"table {table.name!r} column {name!r}: planned twice")
    for cp in tp.columns:
        out.extend(column_problems(table, cp))
    return out


# -- the default planner: names and types alone ------------------------------------------

PERSON_TABLES = re.compile(
    r"client|customer|member|user|patient|student|employee|player|passenger|guest|doctor|"
    r"teacher|staff|people|person|driver|author|owner|coach|traveler|traveller|contact|agent|"
    r"instructor|physician|nurse|tenant|buyer|seller|applicant|subscriber|rider|diner|"
    r"forecaster"
)
COMPANY_TABLES = re.compile(
    r"compan|bank|vendor|supplier|airline|merchant|store|shop|brand|carrier|insurer|"
    r"restaurant|hotel|hospital|clinic|pharmac|agency|firm|organi[sz]ation|team|club|operator"
)
MONEY = re.compile(
    r"amount|balance|price|cost|fee|total|income|salary|limit|payment|fare|wage|principal"
)


def _persons_name(table: Table, column: str) -> bool:
    """The column holds a person's whole name: `name` or `full_name` of a people table."""
    people = PERSON_TABLES.search(table.name) and not COMPANY_TABLES.search(table.name)
    return bool(people) and column in ("name", "full_name", "customer_name", "passenger_name")


# what is held at a time and booked ahead: some are past, some still to come. Movie's
# showtimes all lay before the clock, so no booking could be made (its rule wants a
# showtime in the future) and no create task was ever drafted
UPCOMING = re.compile(
    r"show|screening|appointment|reserv|event|session|game|match|lesson|class|exam|"
    r"concert|performance|meeting|visit|forecast|slot|pickup|delivery|"
    # travel's hotel stays on ade7166 all lay before the clock: every booking drafted
    # copied a past one and was rejected (4 of its first 7 drafts)
    r"booking|stay|check_?in|check_?out|trip|rental"
)
AHEAD = 180  # days an upcoming window reaches past the clock
# the states of something held at a time that say whether it is still to come or already
# held: restaurant's seed had booked reservations last March and seated ones next month
AWAITED = {"booked", "scheduled", "pending", "confirmed", "upcoming", "reserved", "planned"}
NOW = {"seated", "checked_in", "in_progress", "ongoing", "boarding"}  # today
HELD = {
    *("completed", "finished", "attended", "played", "departed", "arrived"),
    *("fulfilled", "delivered", "no_show", "missed", "checked_out", "done"),
}


def _names(column: str, noun: str) -> bool:
    """The column is what a record is called: `name`, `station_name`."""
    return column in ("name", f"{noun}_name") and not PERSON_TABLES.search(noun)


def _titles(column: str, noun: str) -> bool:
    """The column is a work's title (`title`, `course_title`), not a person's job title."""
    return column in ("title", f"{noun}_title") and not PERSON_TABLES.search(noun)


def names_record(table: str, column: str) -> bool:
    """The column is what a record of `table` is called or titled, one record's own."""
    noun = singular(table.lower())
    return _names(column.lower(), noun) or _titles(column.lower(), noun)


def unused_name(name: str, taken: Collection[Scalar]) -> str:
    """A name like `name` that no record has: a qualifier before it ("Grand Cortezbury
    Station"), then a number after it."""
    for qualifier in QUALIFIERS:
        if (candidate := f"{qualifier} {name}") not in taken:
            return candidate
    k = 2
    while (candidate := f"{name} {k}") in taken:
        k += 1
    return candidate


# a day after which a record no longer holds: medicine's data plan on 8fb416f put every
# prescription's expiry_date before the clock, so no refill could ever succeed (348 of 348)
LAPSES = re.compile(r"expir|valid_(?:until|to|through)|good_until")


def _window(name: str, table: str = "") -> tuple[str, str]:
    if re.search(r"birth|dob", name):
        return "1950-01-01", "2005-12-31"
    if LAPSES.search(name):  # some lapsed already, most still to come
        return (CLOCK - dt.timedelta(days=180)).isoformat(), (
            CLOCK + dt.timedelta(days=730)
        ).isoformat()
    if re.search(r"due|expir|end|until|valid|scheduled|departure|arrival|return", name):
        return CLOCK.isoformat(), (CLOCK + dt.timedelta(days=730)).isoformat()
    if _upcoming(name, table):
        return (CLOCK - dt.timedelta(days=365)).isoformat(), _ahead().isoformat()
    return (CLOCK - dt.timedelta(days=1095)).isoformat(), (CLOCK - dt.timedelta(days=1)).isoformat()


def _upcoming(name: str, table: str) -> bool:
    """A moment of something held at a time (a showtime, an appointment), not of a record's
    own history (`created_at`, `opened_on`)."""
    own = re.search(r"creat|open|join|regist|issu|post|updat|paid|birth|dob|booked|placed", name)
    return not own and bool(UPCOMING.search(name) or UPCOMING.search(table))


def event_moment(table: Table) -> str | None:
    """The date or time a record of the table is held at, when its status says whether
    that is still to come (`AWAITED`), today (`NOW`) or past (`HELD`): a reservation's
    `date`, a trip's `departure_time`."""
    found = table.status()
    if found is None or not set(found[1]) & (AWAITED | NOW | HELD):
        return None
    for col in table.columns:
        if col.type not in ("date", "datetime"):
            continue
        named = re.search(r"departure|start|check_?in|scheduled_(?:at|for|time|date)", col.name)
        own = re.search(r"creat|open|join|regist|issu|post|updat|paid|birth|dob", col.name)
        if _upcoming(col.name, table.name) or (named and not own):
            return col.name
    return None


def _ahead() -> dt.date:
    return CLOCK + dt.timedelta(days=AHEAD)


def default_column(table: Table, name: str) -> ColumnPlan:
    """A plan for one column from its name, type and CHECKs alone."""
    col = table.column(name)
    n = name.lower()
    plan = functools.partial(ColumnPlan, column=name)
    if name in foreign_key_of(table):
        return plan(kind="reference")
    enum = table.enum_values(name)
    if enum:
        return plan(kind="choice", values=list(enum))
    length = length_bounds(table).get(name)
    if length and col.type == "text":
        return plan(kind="identifier", pattern="#" * max(length[0], min(length[1], 12)))
    if col.nullable and re.search(r"closed|ended|cancel|returned|resolved|replace", n):
        return default_column(
            table.model_copy(
                update={
                    "columns": [
                        c.model_copy(update={"nullable": False}) if c.name == name else c
                        for c in table.columns
                    ]
                }
            ),
            name,
        ).model_copy(update={"nulls": 0.7})
    if col.type == "boolean":
        return plan(kind="boolean", probability=0.8 if re.search(r"active|enabled", n) else 0.3)
    if col.type in ("date", "datetime"):
        start, end = _window(n, table.name.lower())
        return plan(kind=col.type, start=start, end=end)
    if col.type == "integer":
        ranges = [
            (r"year", 1960, 2024),
            (r"age", 18, 90),
            (r"rating|stars|severity|priority", 1, 5),
            (r"score|percent", 0, 100),
            (r"minute|duration", 5, 240),
            # a room, a screen, a class holds many: movie's screens of 2 to 39 seats were
            # full before any task, so no booking could be made
            (r"capacity|max_seats|total_seats", 40, 300),
            # a line of an order holds one at least: ecommerce's order items of 0 could be
            # returned nothing of (05f674d)
            (r"qty|quantity", 1, 40),
            (r"count|copies|stock|seats|available", 0, 40),
        ]
        low, high = next(((lo, hi) for p, lo, hi in ranges if re.search(p, n)), (1, 1000))
        if _carried(n) or MISHAPS.search(n):  # restaurant's no_shows ran to 295; 3 bar one
            low, high = 0, 4
        if re.search(MONEY, n):
            low, high = (4, 60) if FOOD.search(table.name.lower()) else (10, 20000)
            low, high = (1000, 50000) if LENT.search(table.name.lower()) else (low, high)
        return plan(kind="integer", low=low, high=high)
    if col.type == "real":
        if re.search(r"humid|percent|pct", n):  # weather's humidity ran to 927.75
            return plan(kind="real", low=5, high=100, decimals=1)
        if re.search(r"rate|interest|ratio|share", n):
            return plan(kind="real", low=0.01, high=0.25, decimals=4)
        if re.search(r"lat", n):
            return plan(kind="real", low=-60, high=70, decimals=5)
        if re.search(r"lon|lng", n):
            return plan(kind="real", low=-170, high=170, decimals=5)
        if re.search(r"temp", n):
            return plan(kind="real", low=-20, high=40, decimals=1, distribution="normal")
        if re.search(MONEY, n) and FOOD.search(table.name.lower()):  # a $2,200.05 burger
            return plan(kind="real", low=4, high=60, decimals=2)
        if re.search(MONEY, n) and LENT.search(table.name.lower()):
            return plan(kind="real", low=1000, high=50000, decimals=2, distribution="lognormal")
        if re.search(MONEY, n):
            return plan(kind="real", low=5, high=20000, decimals=2, distribution="lognormal")
        return plan(kind="real", low=1, high=1000, decimals=2)
    return _default_text(table, name, n, plan)


def _default_text(table: Table, name: str, n: str, plan: Callable[..., ColumnPlan]) -> ColumnPlan:
    person = bool(PERSON_TABLES.search(table.name))
    company = bool(COMPANY_TABLES.search(table.name))
    hints: list[tuple[str, dict[str, Any]]] = [
        (r"email", {"kind": "email"}),
        (r"phone|mobile|fax", {"kind": "phone"}),
        (r"first_?name|given", {"kind": "first_name"}),
        (r"last_?name|surname|family", {"kind": "last_name"}),
        (r"city|town|location", {"kind": "city"}),
        (r"country|nationality", {"kind": "country"}),
        (r"address|street", {"kind": "address"}),
        (r"currency", {"kind": "choice", "values": ["USD", "EUR", "GBP"], "weights": [6, 3, 1]}),
        (r"gender|sex", {"kind": "choice", "values": ["female", "male", "other"]}),
        (r"status|state", {"kind": "choice", "values": ["active", "inactive"], "weights": [4, 1]}),
        (r"card", {"kind": "identifier", "pattern": "card ending ####"}),
        (r"postal|zip", {"kind": "identifier", "pattern": "#####"}),
        (r"author|artist|director|composer|manager|contact|holder", {"kind": "person_name"}),
        (r"iban", {"kind": "identifier", "pattern": "GB## @@@@ #### #### #### ##"}),
        (r"code|number|sku|isbn|ref|serial|plate|license|licence|iata|flight", {}),
        (r"reason", {"kind": "choice", "values": list(REASONS)}),
        (r"^(?:term|semester|season|quarter|academic_term|school_term)$", PERIODS),
        (
            r"description|note|comment|message|detail|bio|summary|review",
            {"kind": "sentence"},
        ),
        (r"company|employer|bank|merchant|vendor|supplier|brand|airline", {"kind": "company"}),
        (r"title|headline|subject", {"kind": "text"}),
    ]
    for pattern, fields in hints:
        if re.search(pattern, n):
            if not fields:
                prefix = re.sub(r"[^A-Z]", "", table.name.upper())[:3] or "ID"
                fields = {"kind": "identifier", "pattern": f"{prefix}-#####"}
            return plan(**fields)
    if n == "name" or n.endswith("_name") or n in ("full_name", "holder"):
        if re.search(r"client|customer|member|patient|player|passenger|holder|person|user", n):
            return plan(kind="person_name")
        if company and not person:
            return plan(kind="company")
        return plan(kind="person_name" if person else "text")
    return plan(kind="text")


def default_table(table: Table) -> TablePlan:
    fks = foreign_key_of(table)
    key = own_key(table)
    columns = [default_column(table, c.name) for c in table.columns if c.name != key]
    return TablePlan(table=table.name, rows=None if fks else 1, columns=columns)


def default_plan(schema: Schema) -> DataPlan:
    """A plan from column names and types alone: the stage never dies for lack of rows."""
    return DataPlan(tables=[default_table(t) for t in schema.tables])


def complete(plan: DataPlan, schema: Schema) -> DataPlan:
    """Every table and column planned: what the plan leaves out or gets wrong gets the
    default plan, column by column."""
    tables = []
    for table in schema.tables:
        tp = plan.table(table.name) or default_table(table)
        good = {c.column: c for c in tp.columns if not column_problems(table, c)}
        key = own_key(table)
        columns = [
            good.get(c.name) or default_column(table, c.name)
            for c in table.columns
            if c.name != key
        ]
        if table_plan_problems(table, tp.model_copy(update={"columns": []})):
            tp = default_table(table)
        tables.append(tp.model_copy(update={"columns": columns}))
    return DataPlan(tables=tables)


# -- expansion ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pools:
    """Values drawn from Faker once per seed; rows sample them with random.Random."""

    first: tuple[str, ...]
    last: tuple[str, ...]
    companies: tuple[str, ...]
    cities: tuple[str, ...]
    countries: tuple[str, ...]
    addresses: tuple[str, ...]
    sentences: tuple[str, ...]
    phrases: tuple[str, ...]
    mail_domains: tuple[str, ...]


@functools.lru_cache(maxsize=8)
def pools(seed: int) -> Pools:
    from faker import Faker  # imported here: only expansion needs it

    fake = Faker("en_US")
    fake.seed_instance(seed)

    def draw(make: Callable[[], str], n: int = POOL) -> tuple[str, ...]:
        return tuple(dict.fromkeys(make() for _ in range(n)))

    return Pools(
        first=draw(fake.first_name),
        last=draw(fake.last_name),
        companies=draw(fake.company),
        cities=draw(fake.city),
        countries=draw(fake.country, 200),
        addresses=draw(lambda: fake.street_address().replace("\n", ", ")),
        sentences=draw(fake.sentence),
        phrases=draw(lambda: fake.catch_phrase()),
        mail_domains=(
            "gmail.com",
            "yahoo.com",
            "outlook.com",
            "hotmail.com",
            "icloud.com",
            *draw(fake.free_email_domain, 20),
        ),
    )


def _ascii(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "", plain.lower())


@dataclass
class Expansion:
    """Rows per table, and how many rows the database refused even after new draws."""

    rows: dict[str, list[dict[str, Scalar]]]
    dropped: dict[str, int] = field(default_factory=dict)


def _counts(plan: DataPlan, schema: Schema, total: int) -> dict[str, int]:
    """Rows per table: roots scaled so that the whole domain holds `total` rows."""
    order = schema.insertion_order()

    def sizes(scale: float) -> dict[str, float]:
        out: dict[str, float] = {}
        for table in order:
            tp = plan.table(table.name) or default_table(table)
            owner = _owner(table, tp)
            if owner is None or owner[1] not in out:
                out[table.name] = (tp.rows or 1) * scale
            else:
                out[table.name] = out[owner[1]] * (tp.min_children + tp.max_children) / 2
        return out

    unit = sum(sizes(1.0).values()) or 1.0
    exact = sizes(total / unit)
    counts = {name: max(1, round(v)) for name, v in exact.items()}
    biggest = max(counts, key=lambda n: counts[n])
    counts[biggest] = max(1, counts[biggest] + total - sum(counts.values()))
    return counts


def _owner(table: Table, tp: TablePlan) -> tuple[str, str] | None:
    """(column, parent table) of the foreign key whose parent owns the rows."""
    fks = {c: t for c, t in foreign_key_of(table).items() if t != table.name}
    if not fks:
        return None
    column = tp.parent if tp.parent in fks else next(iter(fks))
    return column, fks[column]


def _id_block(counts: dict[str, int]) -> int:
    span = max(counts.values()) * max(ID_GAPS) + 1
    return 10 ** max(4, math.ceil(math.log10(span + 1)))


Sampler = Callable[[random.Random, dict[str, Scalar]], Scalar]


def _draw_text(plan: ColumnPlan, p: Pools, noun: str = "") -> Sampler:
    kind = plan.kind
    named = kind == "text" and bool(noun) and _names(plan.column.lower(), noun)
    if kind == "text" and not plan.values and TIMES.search(plan.column.lower()):
        return lambda r, row: r.choice(TIMES_OF_DAY)
    if named and plan.values:
        return _unique_names(tuple(str(v) for v in plan.values))
    if kind == "text" and bool(noun) and _titles(plan.column.lower(), noun):
        # movie's 13 films had 8 titles ("The Hobbit" twice): no lookup by title found
        # either, and its users booked "showtime ID 34116". A repeat is a sequel.
        return _unique_names(tuple(str(v) for v in plan.values) or p.phrases, ())
    if named:
        # a place or thing called by name: "Lake Andrea Station", never a catch phrase
        # (weather's stations were "Right-sized full-range forecast")
        title = noun.replace("_", " ").title()
        return lambda r, row: f"{r.choice(p.cities)} {title}"
    if kind == "person_name":
        return lambda r, row: f"{r.choice(p.first)} {r.choice(p.last)}"
    if kind == "first_name":
        return lambda r, row: r.choice(p.first)
    if kind == "last_name":
        return lambda r, row: r.choice(p.last)
    if kind == "phone":
        return lambda r, row: (
            f"+1 {r.randint(201, 989)}-{r.randint(200, 999)}-{r.randint(0, 9999):04d}"
        )
    pool = {
        "company": p.companies,
        "city": p.cities,
        "country": p.countries,
        "address": p.addresses,
        "sentence": p.sentences,
        "text": tuple(str(v) for v in plan.values) or p.phrases,
    }[kind]
    return lambda r, row: r.choice(pool)


QUALIFIERS = ("House", "Special", "Classic", "Deluxe", "Grand", "Royal", "Golden", "Little")


def _unique_names(pool: tuple[str, ...], qualifiers: tuple[str, ...] = QUALIFIERS) -> Sampler:
    """Names from a pool, each given once: a repeat gets a qualifier ("House Sushi"), so a
    person can name the one they mean. Restaurant's menu had "Sushi" twice, no lookup by
    name found one item, and its users ordered "item 42317"."""
    given: dict[str, int] = {}  # per pool name, how many rows have it so far

    def draw(r: random.Random, row: dict[str, Scalar]) -> Scalar:
        base = r.choice(pool)
        n = given.get(base, 0)
        given[base] = n + 1
        if n == 0:
            return base
        if n <= len(qualifiers):
            return f"{qualifiers[n - 1]} {base}"
        return f"{base} {n - len(qualifiers) + 1}"  # every qualifier taken: "Sushi 2"

    return draw


def _identifier(pattern: str) -> Sampler:
    def draw(r: random.Random, row: dict[str, Scalar]) -> Scalar:
        return "".join(
            str(r.randint(0, 9)) if ch == "#" else chr(65 + r.randint(0, 25)) if ch == "@" else ch
            for ch in pattern
        )

    return draw


def _numeric(plan: ColumnPlan, bounds: Bounds | None, integer: bool) -> Sampler:
    low = plan.low if plan.low is not None else 1.0
    high = plan.high if plan.high is not None else max(low, 1000.0)
    step = 1.0 if integer else 10.0 ** -(plan.decimals if plan.decimals is not None else 2)
    if bounds is not None:
        if isinstance(bounds.low, float):
            floor = bounds.low + (step if bounds.strict_low else 0)
            low, high = max(low, floor), max(high, floor)
        if isinstance(bounds.high, float):
            ceiling = bounds.high - (step if bounds.strict_high else 0)
            low, high = min(low, ceiling), min(high, ceiling)
    if integer:
        lo, hi = math.ceil(low), math.floor(high)
        hi = max(lo, hi)
    dist = plan.distribution
    if dist == "lognormal":
        shift = 1 - low if low < 1 else 0.0
        mu = (math.log(low + shift) + math.log(high + shift)) / 2
        sigma = max((math.log(high + shift) - math.log(low + shift)) / 6, 1e-9)

        def raw(r: random.Random) -> float:
            return min(high, max(low, r.lognormvariate(mu, sigma) - shift))
    elif dist == "normal":
        mean, sd = (low + high) / 2, max((high - low) / 6, 1e-9)

        def raw(r: random.Random) -> float:
            return min(high, max(low, r.gauss(mean, sd)))
    elif integer:
        return lambda r, row: r.randint(lo, hi)
    else:

        def raw(r: random.Random) -> float:
            return r.uniform(low, high)

    if integer:
        return lambda r, row: min(hi, max(lo, round(raw(r))))
    places = plan.decimals if plan.decimals is not None else 2
    return lambda r, row: round(raw(r), places)


def _moment(
    plan: ColumnPlan,
    bounds: Bounds | None,
    kind: str,
    table: str = "",
    window: tuple[dt.date, dt.date] | None = None,
) -> Sampler:
    start_text, end_text = _window(plan.column.lower(), table.lower())
    start = dt.date.fromisoformat((plan.start or start_text)[:10])
    end = dt.date.fromisoformat((plan.end or end_text)[:10])
    if window is not None:  # still to come, or already held (`event_moment`)
        start, end = window
    elif _upcoming(plan.column.lower(), table.lower()) and end < CLOCK:
        # the model's window kept none to come (movie's ran 2022 to 2024): the last year
        # and the next half year, a third of them ahead
        start, end = max(start, CLOCK - dt.timedelta(days=365)), _ahead()
    if bounds is not None:
        if isinstance(bounds.low, str) and is_iso(bounds.low[:10], "date"):
            low = dt.date.fromisoformat(bounds.low[:10]) + dt.timedelta(days=bounds.strict_low)
            start, end = max(start, low), max(end, low)
        if isinstance(bounds.high, str) and is_iso(bounds.high[:10], "date"):
            high = dt.date.fromisoformat(bounds.high[:10]) - dt.timedelta(days=bounds.strict_high)
            start, end = min(start, high), min(end, high)
    first, days = start.toordinal(), max(0, (end - start).days)
    if kind == "date":
        return lambda r, row: dt.date.fromordinal(first + r.randint(0, days)).isoformat()

    def moment(r: random.Random, row: dict[str, Scalar]) -> Scalar:
        day = dt.date.fromordinal(first + r.randint(0, days))
        # on the minute, as a person books: "11:20 AM" is 11:20:00, and a new appointment
        # copied from one at 11:20:10 could not be booked from the user's own words
        # (medicine on 6789a02: "from 11:20 AM to 2:20 PM", the gold's 11:20:10 to 14:20:10)
        hour, minute = r.randint(7, 21), r.choice((0, 5, 10, 15, 20, 30, 40, 45, 50))
        return f"{day.isoformat()}T{hour:02d}:{minute:02d}:00"

    return moment


def _choice(plan: ColumnPlan, col_type: ColumnType) -> Sampler:
    values: list[Scalar] = list(plan.values)
    if col_type == "integer":
        values = [int(float(v)) for v in plan.values]
    elif col_type == "real":
        values = [float(v) for v in plan.values]
    else:
        values = [str(v) for v in plan.values]
    cum = list(itertools.accumulate(plan.weights or [1.0] * len(values)))
    return lambda r, row: r.choices(values, cum_weights=cum)[0]


def _email(table: Table, plan: ColumnPlan, tp: TablePlan, p: Pools) -> Sampler:
    kinds = {c.column: c.kind for c in tp.columns}
    source = plan.source or next(
        (c for c, k in kinds.items() if k in ("person_name", "company")), ""
    )
    first = next((c for c, k in kinds.items() if k == "first_name"), "")
    last = next((c for c, k in kinds.items() if k == "last_name"), "")

    def email(r: random.Random, row: dict[str, Scalar]) -> Scalar:
        if source and isinstance(row.get(source), str):
            words = str(row[source]).split()
        else:  # the row's own first and last name, where it has them
            words = [
                str(row.get(first)) if first else r.choice(p.first),
                str(row.get(last)) if last else r.choice(p.last),
            ]
        parts = [_ascii(w) for w in words if _ascii(w)] or ["user"]
        if kinds.get(source) == "company":
            return f"contact@{''.join(parts[:2])}.com"
        local = r.choice((f"{parts[0]}.{parts[-1]}", f"{parts[0][0]}{parts[-1]}", parts[0]))
        return f"{local}@{r.choice(p.mail_domains)}"

    return email


def _sampler(
    table: Table, plan: ColumnPlan, tp: TablePlan, p: Pools, bounds: Bounds | None
) -> Sampler:
    col = table.column(plan.column)
    kind = plan.kind
    if kind == "choice":
        draw = _choice(plan, col.type)
    elif kind == "email":
        draw = _email(table, plan, tp, p)
    elif kind == "identifier":
        ident = _identifier(plan.pattern)
        draw = (lambda r, row: int(str(ident(r, row)))) if col.type == "integer" else ident
    elif kind in ("integer", "real"):
        draw = _numeric(plan, bounds, integer=kind == "integer" or col.type == "integer")
    elif kind in ("date", "datetime"):
        draw = _moment(plan, bounds, "date" if col.type == "date" else kind, table.name)
    elif kind == "boolean":
        chance = 0.5 if plan.probability is None else plan.probability
        draw = lambda r, row: r.random() < chance  # noqa: E731
    else:
        draw = _draw_text(plan, p, singular(table.name))
    state = table.state_of(col.name)
    found = table.status()
    if state is not None and found is not None:  # a frozen_reason only on frozen cards
        status, given = found[0], draw
        return lambda r, row: given(r, row) if row.get(status) == state else None
    if found is not None and owed_column(table, col.name):  # a repaid loan owes nothing
        status, owed = found[0], draw
        return lambda r, row: 0 if row.get(status) in SETTLED else owed(r, row)
    if found is not None and kind in ("date", "datetime") and col.name == event_moment(table):
        form = "date" if col.type == "date" else kind
        ahead = _moment(plan, bounds, form, window=(CLOCK + dt.timedelta(days=1), _ahead()))
        year = (CLOCK - dt.timedelta(days=365), CLOCK - dt.timedelta(days=1))
        past = _moment(plan, bounds, form, window=year)
        today = _moment(plan, bounds, form, window=(CLOCK, CLOCK))
        status, either = found[0], draw

        def held(r: random.Random, row: dict[str, Scalar]) -> Scalar:
            state = row.get(status)
            if state in NOW:  # a party seated now sits today
                return today(r, row)
            if state in AWAITED:
                return ahead(r, row)
            return past(r, row) if state in HELD else either(r, row)

        return held
    if (born := birth_column(table, col.name)) is not None:
        return lambda r, row: _years_to_clock(row.get(born))
    if plan.nulls and col.nullable:
        share, inner = plan.nulls, draw
        return lambda r, row: None if r.random() < share else inner(r, row)
    return draw


def birth_column(table: Table, column: str) -> str | None:
    """The row's birth day an `age` column is counted from: movie's seed on 3d6f8ed drew
    both, and 124 of 126 customers' ages disagreed with their birth dates."""
    col = table.column(column)
    if col.type != "integer" or not re.fullmatch(r"(?:\w+_)?age(?:_years)?|years_old", column):
        return None
    return next(
        (c.name for c in table.columns if c.type in ("date", "datetime", "text")
         and re.search(r"birth|born|dob", c.name)),
        None,
    )  # fmt: skip


def _years_to_clock(day: Scalar) -> Scalar:
    """Whole years from `day` to the clock, as a person counts their age."""
    if not isinstance(day, str):
        return None
    try:
        born = dt.date.fromisoformat(day[:10])
    except ValueError:
        return None
    return CLOCK.year - born.year - ((CLOCK.month, CLOCK.day) < (born.month, born.day))


def _order_pairs(table: Table) -> list[tuple[str, str, bool]]:
    """(a, b, strict): CHECK terms `a < b` / `a <= b` between two columns, and the spans
    the columns' names say (travel's seed had hotel stays checking out before they checked
    in, which tasks then stated)."""
    moments = [c.name for c in table.columns if c.type in ("date", "datetime")]
    out = [(a, b, False) for a, b in spans(moments)]
    out += [(a, b, False) for a, b in _within(table)]
    for term in table.check_terms():
        if isinstance(term, exp.LT | exp.LTE | exp.GT | exp.GTE):
            a, b = term.this, term.expression
            if isinstance(a, exp.Column) and isinstance(b, exp.Column):
                if isinstance(term, exp.GT | exp.GTE):
                    a, b = b, a
                out.append((a.name, b.name, isinstance(term, exp.LT | exp.GT)))
    return out


# the most there may be of what a row counts as taken (`wording.COUNTERS`): basketball's
# games sold more tickets than they held (tickets_sold 308 of tickets_capacity 54) on 277c846,
# and medicine's prescriptions used more refills than they allowed (17 of 348 on 8fb416f)
MOST = re.compile(r"capacity|max|limit|total|quota|allowed")


# what a debt was at first: finance's loans owed more than was lent (outstanding_balance
# 31,842.30 of an amount of 7,938.94) on 5cf74c2, and a refusal was worded from it
WHOLE = re.compile(r"^(?:\w+_)?(?:amount|principal)$")


def _within(table: Table) -> list[tuple[str, str]]:
    """(taken, most): number columns the first of which counts what the second allows, by
    their names; where a table has more than one most, they must share a word. What is
    still owed is at most the whole it is owed of, where the table has one."""
    numbers = [c.name for c in table.columns if c.type in ("integer", "real")]
    most = [c for c in numbers if MOST.search(c)]
    out = []
    for taken in (c for c in numbers if set(c.split("_")) & set(COUNTERS) and c not in most):
        words = set(taken.split("_"))
        shared = [m for m in most if words & set(m.split("_"))]
        if len(shared) == 1 or (not shared and len(most) == 1):
            out.append((taken, (shared or most)[0]))
    wholes = [c for c in numbers if WHOLE.match(c) and not OWED.search(c)]
    if len(wholes) == 1:
        out += [(c, wholes[0]) for c in numbers if owed_column(table, c) and c != wholes[0]]
    return out


# a part of a parent's count a child row stands for: ecommerce's returns took back 30 of
# an order item of 15 on 05f674d
PART = frozenset(["quantity", "qty", "units", "seats", "nights", "guests", "count"])


def _parts(table: Table, schema: Schema) -> list[tuple[str, str, str]]:
    """(foreign key column, parent table, column): a number column of a child row named as
    one of its parent's, which the child holds a part of (a return's quantity of its order
    item's). A column of the same name under another reference is no part."""
    out = []
    for column, ref in foreign_key_of(table).items():
        parent = schema.table(ref)
        for c in table.columns:
            if (
                c.type in ("integer", "real")
                and PART & set(c.name.split("_"))
                and c.name not in foreign_key_of(table)
                and c.name in parent.column_names
                and parent.column(c.name).type in ("integer", "real")
            ):
                out.append((column, ref, c.name))
    return out


# a span its columns name in days even where they hold times: travel's hotel stays (typed
# datetime) checked in at 11:15 and out at 20:45 the same day
DAYS = re.compile(r"date|day|check_?in|check_?out|stay|nights?\b")
# ... but a thing of one day is over within it, whatever its columns say: basketball's games
# (`start_date`, `end_date`) lasted up to 30 days and travel's flights (`departure_date`,
# `arrival_date`, typed datetime) up to 14, on 277c846
ONE_DAY = re.compile(
    r"game|match|flight|appointment|screening|showing|concert|visit|shift|exam|lesson|meeting"
)
# ... and a sitting lasts hours at most: medicine's appointments on 277c846 ran up to 12
# hours ("January 16th at 21:05 and January 17th at 7:20", medicine-intent-00017)
SITTING = re.compile(r"appointment|screening|showing|visit|exam|lesson|meeting|consultation")


def _lasting(
    start: Scalar,
    end: Scalar,
    r: random.Random,
    days: bool = False,
    one_day: int | None = None,
    sitting: bool = False,
) -> Scalar:
    """The end of a span as long as such a thing lasts: 15 minutes to 12 hours between two
    times (an appointment, an alert, a train's run), 1 to 30 days between two days (a stay,
    a rental; a stay's checkout keeps its own time of day). Medicine's appointments ran
    from January to the next December, and its users asked for one "from 2:15 PM to 2:45
    PM" that ended a year later. A thing of one day (`one_day`, the days its end may lie
    after its start: 0, or 1 where a CHECK wants it later) lasts hours, or ends that day;
    a `sitting` (an appointment, a screening) 15 minutes to 3 hours."""
    if not isinstance(start, str) or not isinstance(end, str) or len(start) != len(end):
        return end
    try:
        begun = dt.datetime.fromisoformat(start)
    except ValueError:
        return end
    if len(start) == 10:
        after = r.randint(1, 30) if one_day is None else one_day
        return (begun + dt.timedelta(days=after)).date().isoformat()
    if one_day is not None and sitting:
        return (begun + dt.timedelta(minutes=15 * r.randint(1, 12))).isoformat(timespec="seconds")
    if days and one_day is None:
        later = (begun + dt.timedelta(days=r.randint(1, 14))).date().isoformat()
        return later + end[10:]
    return (begun + dt.timedelta(minutes=15 * r.randint(1, 48))).isoformat(timespec="seconds")


def _swapped(first: Scalar, second: Scalar) -> tuple[Scalar, Scalar]:
    """Two moments put in order, each kept in its own column's form: a datetime and a date
    (`created_at`, `delivered_date`) trade days, not strings, so a date stays a date."""
    if isinstance(first, str) and isinstance(second, str) and len(first) != len(second):
        day_first, day_second = first[:10], second[:10]
        return day_second + first[10:], day_first + second[10:]
    return second, first


MADE = re.compile(r"^(?:created|creation|made)(?:_at|_on|_date|_time)?$")


def made_column(table: Table) -> str | None:
    """The column that says when a row was made (`created_at`), if one does."""
    return next(
        (c.name for c in table.columns if c.type in ("date", "datetime") and MADE.match(c.name)),
        None,
    )


def _made_after(table: Table, schema: Schema, done: dict[str, list[dict[str, Scalar]]]) -> list[
    tuple[str, dict[Scalar, Scalar]]
]:  # fmt: skip
    """(reference column, parent key -> when the parent was made) for each parent whose
    table says when its rows were made, where this table says so too."""
    if made_column(table) is None:
        return []
    out = []
    for column, ref in foreign_key_of(table).items():
        parent = schema.table(ref)
        made = made_column(parent)
        if made is not None and ref != table.name:
            key = parent.primary_key[0]
            out.append((column, {r[key]: r[made] for r in done.get(ref, []) if r.get(made)}))
    return out


def _after_parents(
    row: dict[str, Scalar],
    column: str,
    kind: str,
    made: list[tuple[str, dict[Scalar, Scalar]]],
    spread: int,
) -> None:
    """A row made before a parent it belongs to (ecommerce's seed on 5b7cc66: 144 of 266
    order items made before their order, 140 of 267 returns before their item) is made
    `spread`-derived days after the latest such parent, not after the clock; no draw of the
    random generator is spent, so every other value stays as drawn."""
    at = row.get(column)
    latest = max((str(m[row[c]]) for c, m in made if row.get(c) in m), default=None)
    if at is None or latest is None or str(at) >= latest:
        return
    start = dt.datetime.fromisoformat(latest[:19] if len(latest) > 10 else f"{latest}T00:00:00")
    end = dt.datetime.combine(CLOCK, dt.time()) - dt.timedelta(days=1)
    room = max(0, (end - start).days)
    moment = start + dt.timedelta(days=spread % (min(room, 60) + 1), hours=spread % 7)
    moment = min(max(moment, start), max(end, start))
    row[column] = moment.date().isoformat() if kind == "date" else moment.isoformat()


def _within_parents(
    row: dict[str, Scalar],
    parts: list[tuple[str, str, dict[Scalar, Scalar]]],
    bounds: dict[str, Bounds],
    r: random.Random,
) -> bool:
    """Draws again each part above its parent's whole, at most the whole and at least what
    its CHECK allows (1 where none says: a return of nothing is no return); False where a
    whole is too small to hold any part (an order item of 0)."""
    for fk, c, whole_of in parts:
        whole, part = whole_of.get(row.get(fk)), row.get(c)
        if not (isinstance(whole, int | float) and isinstance(part, int | float)):
            continue
        check = bounds.get(c)
        low = check.low if check is not None and isinstance(check.low, int | float) else 1
        if isinstance(part, float):
            if low > whole:
                return False
            row[c] = round(r.uniform(low, whole), 2) if part > whole else part
            continue
        least = math.floor(low) + 1 if check and check.strict_low else math.ceil(low)
        if least > whole:
            return False
        if part > whole:
            row[c] = r.randint(least, int(whole))
    return True


def _distribute(r: random.Random, n_parents: int, n: int, lo: int, hi: int) -> list[int]:
    """Children per parent: drawn in [lo, hi], then nudged until they add up to n (below lo
    only when n is too small for every parent to have lo)."""
    counts = [r.randint(lo, hi) for _ in range(n_parents)]
    floor = lo if n >= lo * n_parents else 0
    diff = n - sum(counts)
    while diff:
        i = r.randrange(n_parents)
        if diff > 0:
            add = min(diff, max(1, hi - counts[i]))
            counts[i] += add
            diff -= add
        elif counts[i] > floor:
            take = min(-diff, counts[i] - floor)
            counts[i] -= take
            diff += take
    return counts


def expand_plan(plan: DataPlan, schema: Schema, seed: int = 0, total_rows: int = 600) -> Expansion:
    """Rows for every table of `schema` from `plan` (completed with defaults): the same plan
    and seed give the same rows; every row kept loaded through the real SQLite DDL."""
    if not 1 <= total_rows <= MAX_ROWS:
        raise ValueError(f"total_rows must be between 1 and {MAX_ROWS}, not {total_rows}")
    plan = complete(plan, schema)
    counts = _counts(plan, schema, total_rows)
    block = _id_block(counts)
    p = pools(seed)
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA foreign_keys = ON")
    for ddl in create_statements(schema, "sqlite"):
        db.execute(ddl)
    out = Expansion(rows={})
    for table in schema.insertion_order():
        tp = plan.table(table.name)
        assert tp is not None
        rng = random.Random(f"{seed}/{table.name}")
        rows, dropped = _table_rows(
            table, tp, counts[table.name], schema, out.rows, p, rng, block, db
        )
        out.rows[table.name] = rows
        if dropped:
            out.dropped[table.name] = dropped
    db.close()
    return out


def expand(
    plan: DataPlan, schema: Schema, seed: int = 0, total_rows: int = 600
) -> dict[str, list[dict[str, Scalar]]]:
    """The rows of `expand_plan`, per table."""
    return expand_plan(plan, schema, seed, total_rows).rows


def _table_rows(
    table: Table,
    tp: TablePlan,
    n: int,
    schema: Schema,
    done: dict[str, list[dict[str, Scalar]]],
    p: Pools,
    rng: random.Random,
    block: int,
    db: sqlite3.Connection,
) -> tuple[list[dict[str, Scalar]], int]:
    bounds = check_bounds(table)
    plans = {c.column: c for c in tp.columns}
    moment = event_moment(table)
    derived = [
        c
        for c in plans
        if plans[c].kind == "email"
        or table.state_of(c)
        or owed_column(table, c)
        or c == moment
        or birth_column(table, c)
    ]
    ordered = [c for c in plans if plans[c].kind != "reference" and c not in derived] + derived
    samplers = {c: _sampler(table, plans[c], tp, p, bounds.get(c)) for c in ordered}
    parents: dict[str, list[Scalar]] = {}
    for column, ref in foreign_key_of(table).items():
        ref_table = schema.table(ref)
        parents[column] = [r[ref_table.primary_key[0]] for r in done.get(ref, [])]
    owner = _owner(table, tp)
    linked = _linked(table, parents, owner[0] if owner else None)
    routed = {c for pair, _ in linked for c in pair}
    agreeing = [d for d in _diamonds(table, schema, done) if not {d[0], d[1]} & routed]
    agreeing.sort(key=lambda d: not (owner and d[0] == owner[0]))  # the owner's first
    routes: dict[tuple[tuple[str, ...], Scalar], list[tuple[Scalar, ...]]] = {}
    owned: list[Scalar] = []
    if owner is not None and parents.get(owner[0]):
        keys = parents[owner[0]]
        per = _distribute(rng, len(keys), n, tp.min_children, tp.max_children)
        owned = [k for k, c in zip(keys, per, strict=True) for _ in range(c)]
        rng.shuffle(owned)
    children = Counter(owned)
    key = own_key(table)
    integer_key = key is not None and table.column(key).type == "integer"
    prefix = key_prefix(table)
    next_id = (schema.tables.index(table) + 1) * block
    next_id += rng.randrange(0, max(1, block - n * max(ID_GAPS) - 1))
    unique = [
        c.name
        for c in table.columns
        if c.name != key and (c.unique or (c.name in plans and plans[c.name].kind == "email"))
    ]
    composite = table.primary_key if key is None else []
    seen: dict[str, set[Scalar]] = {c: set() for c in unique}
    seen_keys: set[tuple[Scalar, ...]] = set()
    pairs = _order_pairs(table)
    parts = [
        (fk, c, {r[schema.table(ref).primary_key[0]]: r[c] for r in done.get(ref, [])})
        for fk, ref, c in _parts(table, schema)
    ]
    lasting = spans((c.name for c in table.columns if c.type in ("date", "datetime")), made=False)
    made_at = made_column(table)
    made_after = _made_after(table, schema, done)
    in_days = {(a, b): bool(DAYS.search(f"{a} {b}")) for a, b in lasting}  # once, not per row
    strict = {(a, b) for a, b, s in pairs if s}
    sitting = bool(SITTING.search(table.name))
    one_day = {
        (a, b): int((a, b) in strict) if ONE_DAY.search(table.name) else None for a, b in lasting
    }
    columns = table.column_names
    insert = (
        f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    )
    rows: list[dict[str, Scalar]] = []
    dropped = 0
    for i in range(n):
        for _ in range(MAX_DRAWS):
            row: dict[str, Scalar] = {}
            if key is not None:
                row[key] = next_id if integer_key else f"{prefix}{next_id}"
            for column, keys in parents.items():
                if any(column in pair for pair, _ in linked):
                    continue  # its route's, below
                if owner is not None and column == owner[0] and owned:
                    row[column] = owned[i]
                elif column == key:
                    continue
                elif keys:
                    row[column] = rng.choice(keys)
                elif table.column(column).nullable:
                    row[column] = None
            for pair, by_owner in linked:
                at = row.get(owner[0]) if by_owner and owner else None
                share = n if at is None else children[at]
                route = _route(pair, at, parents[pair[0]], share, routes, rng)
                row |= dict(zip(pair, route, strict=True))
            for direct, via, up, down in agreeing:
                if owner and direct == owner[0]:  # the owner's rows stay its share
                    if options := down.get(row.get(direct)):
                        row[via] = rng.choice(options)
                elif row.get(via) in up:
                    row[direct] = up[row[via]]
            for column in ordered:
                value = samplers[column](rng, row)
                if column in seen and value in seen[column]:
                    value = _fresh(value, seen[column], samplers[column], rng, row)
                row[column] = value
            for a, b, _strict in pairs:
                va, vb = row.get(a), row.get(b)
                if (a, b) in lasting and isinstance(va, str) and len(va) == len(str(vb)):
                    continue  # its end is drawn from its start below (a stay still to come)
                if va is not None and vb is not None and type(va) is type(vb) and va > vb:  # type: ignore[operator]
                    row[a], row[b] = _swapped(va, vb)
            if made_at is not None and made_after:
                kind = table.column(made_at).type
                _after_parents(row, made_at, kind, made_after, i * 7919 + next_id)
                for a, b, _strict in pairs:  # an update not before the making it follows
                    va, vb = row.get(a), row.get(b)
                    if a == made_at and isinstance(va, str) and isinstance(vb, str) and va > vb:
                        row[b] = va[: len(vb)]
            if not _within_parents(row, parts, bounds, rng):
                continue  # a part of a whole too small to hold one: another draw
            for a, b in lasting:
                row[b] = _lasting(
                    row.get(a), row.get(b), rng, in_days[a, b], one_day[a, b], sitting
                )
            if composite and tuple(row.get(c) for c in composite) in seen_keys:
                continue
            values = [int(v) if isinstance(v, bool) else v for v in (row.get(c) for c in columns)]
            try:
                db.execute(insert, values)
            except sqlite3.Error:
                continue
            break
        else:
            dropped += 1
            continue
        for column in seen:
            seen[column].add(row[column])
        if composite:
            seen_keys.add(tuple(row.get(c) for c in composite))
        if key is not None:
            next_id += rng.choice(ID_GAPS)
        rows.append({c: row.get(c) for c in columns})
    return rows, dropped


Diamond = tuple[str, str, dict[Scalar, Scalar], dict[Scalar, list[Scalar]]]


def _diamonds(
    table: Table, schema: Schema, done: dict[str, list[dict[str, Scalar]]]
) -> list[Diamond]:
    """(direct column, via column, via key -> its parent key, parent key -> via keys) for
    each reference to a table that another reference's row points to as well: a
    prescription's patient and its appointment's patient, a contract's team and its
    player's team. Drawn apart, 345 of medicine's 348 prescriptions on 8fb416f were written
    at another patient's appointment, and 283 of basketball's 288 contracts were with a
    team their player was not on; each pair is now one."""
    refs = foreign_key_of(table)
    out: list[Diamond] = []
    for via, middle in refs.items():
        if middle == table.name:
            continue
        m = schema.table(middle)
        key = m.primary_key[0] if len(m.primary_key) == 1 else None
        for direct, top in refs.items():
            if direct == via or top in (table.name, middle) or key is None:
                continue
            ups = [c for c, t in foreign_key_of(m).items() if t == top]
            if len(ups) != 1 or list(refs.values()).count(top) != 1:
                continue  # a trip's two stations: which one is the ticket's is not said
            up = {r[key]: r[ups[0]] for r in done.get(middle, []) if r.get(ups[0]) is not None}
            down: dict[Scalar, list[Scalar]] = {}
            for k, parent in up.items():
                down.setdefault(parent, []).append(k)
            out.append((direct, via, up, down))
    return out


def _linked(
    table: Table, parents: dict[str, list[Scalar]], owner: str | None
) -> list[tuple[tuple[str, ...], bool]]:
    """Foreign keys that point to the same table (a trip's origin and destination station),
    less the owner's, and whether the owner is one of them: their values come in routes
    that rows share (`_route`)."""
    by_parent: dict[str, list[str]] = {}
    for column, ref in foreign_key_of(table).items():
        if ref != table.name and column in parents:
            by_parent.setdefault(ref, []).append(column)
    return [
        (tuple(c for c in columns if c != owner), owner in columns)
        for columns in by_parent.values()
        if len(columns) >= 2 and len(parents[columns[0]]) > len(columns)
    ]


def _route(
    linked: tuple[str, ...],
    at: Scalar,
    keys: list[Scalar],
    rows: int,
    pools: dict[tuple[tuple[str, ...], Scalar], list[tuple[Scalar, ...]]],
    rng: random.Random,
) -> tuple[Scalar, ...]:
    """One of a few combinations of `keys` for the `linked` columns, distinct and none the
    owner's key `at` (None when the owner is not among them): railway's 75 trips ran on 75
    origin-destination pairs, so no ticket could move to another trip of its route. About
    `PER_ROUTE` of the `rows` that draw from one pool share each combination."""
    pool = pools.get((linked, at))
    if pool is None:
        choices = [k for k in keys if k != at]
        count = max(1, rows // PER_ROUTE)
        pool = pools[(linked, at)] = [tuple(rng.sample(choices, len(linked))) for _ in range(count)]
    return rng.choice(pool)


def _fresh(
    value: Scalar, seen: set[Scalar], draw: Sampler, rng: random.Random, row: dict[str, Scalar]
) -> Scalar:
    """A value not taken yet: a few new draws, then a numbered variant."""
    for _ in range(4):
        value = draw(rng, row)
        if value not in seen:
            return value
    if isinstance(value, str):
        base, at, domain = value.partition("@")
        k = 2
        while (candidate := f"{base}{k}{at}{domain}" if at else f"{value} {k}") in seen:
            k += 1
        return candidate
    if isinstance(value, int) and not isinstance(value, bool):
        while value in seen:
            value += 1
    return value
