"""The catalogue of operation patterns, instantiated from a schema and its seed into concrete
candidate operations, each already a checked-shape `Tool(origin="pattern")`.

Small models cannot write free SQL reliably; here they choose. A candidate carries its
built-in guards (the row exists, the amount is positive, the source holds enough...), the
rows it touches (by key parameter) and its amount parameter, so a rule of the brief maps
onto it as conditions from a closed menu (`Condition`): a column against a value, a status
in a set, the amount against a number or a multiple of a column, a count of children, a
date window. Everything here is deterministic: the same schema and seed give the same
candidates, the same conditions the same SQL.

Patterns: transfer (move a quantity between two rows), create (a child row under its
parents), status (change a status along allowed transitions), cancel (to the cancelled
value; a time limit only where a rule of the brief states one),
adjust (decrease a quantity, not below zero, closing at zero), topup (increase one),
update (a validated attribute), total and history (reads over a parent's children), find
(a person by email or by name).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence, Set
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from generators.toolkit import JSON_TYPES, param_schema, row_exists
from toolscale.apart import holds_slots, kept_apart
from toolscale.schema import PLAYED, Column, ForeignKey, Scalar, Schema, Table
from toolscale.tool import RequireStep, Tool
from toolscale.wording import COUNTERS, record_phrase, singular, spans, with_article

Pattern = Literal[
    "transfer",
    "create",
    "status",
    "cancel",
    "adjust",
    "topup",
    "use",
    "move",
    "update",
    "total",
    "history",
    "find",
    "charge",
]
Kind = Literal[
    "value",
    "in",
    "amount",
    "pair",
    "clock",
    "count",
    "within_days",
    "within_hours",
    "age",
    "days_ahead",
    "hours_ahead",
    "compare",
    "guard",
    "either",
]
Op = Literal["<", "<=", ">", ">=", "=", "<>", "in", "not in"]

TRANSFERABLE = ("balance", "points", "credit", "funds", "stock", "quantity")
MONEYLIKE = ("balance", "points", "credit", "funds")  # withdrawn and deposited; the rest is
# reduced and increased (ecommerce's users asked to "withdraw the quantity of an order item")
DECREASABLE = (
    "outstanding", "balance", "owed", "due", "debt", "remaining", "quantity", "stock",
    "copies", "available", "seats", "points", "credit",
)  # fmt: skip
UPDATABLE = ("email", "phone", "address", "street", "city", "postal", "zip", "nickname", "limit")
TERMINAL = {
    "closed", "cancelled", "canceled", "deleted", "paid_off", "paid", "blocked", "expired",
    "completed", "returned", "rejected", "archived", "settled", "refunded", "terminated",
}  # fmt: skip
INITIAL = ("active", "open", "pending", "new", "requested", "scheduled", "booked", "confirmed")
# states a record ends in once the business is done with it: a record moves on from them
# (a delivered order is returned, a repaid loan closed), never back to a live state
# (finance on 4221446 kept "activate my repaid loan" in 3 of its first 10 tasks, served by
# an activation allowed from repaid only)
ENDED_STATES = frozenset(
    (
        *("repaid", "completed", "delivered", "expired", "settled", "finished", "done"),
        *("resolved", "terminated", "fulfilled", "refunded", "used", "attended", "boarded"),
        *("arrived", "departed", "graded"),
    )
)
# the stages a purchase or a visit goes through, in order: a record moves forward along
# one, never back (ecommerce on 7b45113 could send a shipped order back to pending and a
# delivered one back to paid or shipped; restaurant a seated reservation back to booked).
# Where a later stage is among a table's values, an earlier one is no end: a paid order
# ships (`paid` is TERMINAL for a loan or a bill)
LIFECYCLES = (
    ("pending", "placed", "paid", "processing", "packed", "shipped", "in_transit", "delivered"),
    ("booked", "checked_in", "seated", "in_progress", "completed"),
)
# states in which what a record stood for did not happen: it may be tried again (a failed
# transfer back to pending), never marked done as it is (finance's tools in runs/ complete
# a failed transfer, no money moving)
FAILED = frozenset(("failed", "declined", "bounced", "reversed", "errored", "aborted"))
DEBTS = ("outstanding", "owed", "debt", "due", "remaining")
DEBT_TABLES = ("loan", "debt", "mortgage", "invoice", "bill")
AMOUNTS = ("amount", "balance", "price", "total", "cost", "principal", "outstanding", "quantity")
CLOSING = ("closed", "paid_off", "paid", "settled", "completed")
SETTLING = (*CLOSING, "repaid")  # a debt in these owes nothing
CANCELLED = ("cancelled", "canceled")
# what a record in one of these states holds nothing of: a limit on a parent's children
# (seats of a showtime, loans of a client) counts the others only
VOIDED = frozenset((*CANCELLED, "refunded", "rejected", "void", "voided", "declined", "deleted"))
RECORDED = ("completed", "posted", "done", "settled", "succeeded")
# the day a new record is made: ecommerce's users created orders "on 2024-08-27" while the
# order_date was a parameter
NOW_DATES: tuple[str, ...] = ("opened", "created", "issued", "joined", "added", "posted")
NOW_DATES += ("placed", "booked", "order", "purchase", "sale", "requested", "submitted")
NOW_DATES += ("enrolled", "registered")
# a record's last change is the change that makes it: ecommerce's `create_order` asked for
# `updated_at`, and its users said "Updated at 2024-10-14T07:50:02"
NOW_DATES += ("updated", "modified", "changed")
# what a new row has done nothing of yet (`wording.COUNTERS`): basketball's users created
# games "with 344 tickets sold and a capacity of 10"
VERBS = {
    "active": "activate", "frozen": "freeze", "blocked": "block", "closed": "close",
    "suspended": "suspend", "cancelled": "cancel", "canceled": "cancel", "paid_off": "settle",
    "approved": "approve", "rejected": "reject", "confirmed": "confirm", "shipped": "ship",
    "delivered": "deliver", "returned": "return", "open": "reopen", "archived": "archive",
    "completed": "complete", "paused": "pause", "inactive": "deactivate", "lost": "report_lost",
    "dropped": "drop", "refunded": "refund", "withdrawn": "withdraw", "scheduled": "schedule",
    "postponed": "postpone", "terminated": "terminate", "resolved": "resolve", "booked": "book",
    "enrolled": "enroll", "expired": "expire", "discontinued": "discontinue",
}  # fmt: skip
COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}


class Condition(BaseModel):
    """One `require` condition from the closed menu. `row` is the key parameter naming the
    row it reads (the candidate's main row when empty), or that parameter followed by
    foreign-key columns to reach a row it points at ("trip_id.train_id": the trip's train).

    - value: row.column op value          (e.g. balance = 0, frozen_reason <> 'stolen')
    - in: row.column in / not in values   (e.g. status in ['active'])
    - amount: parameter op value, or parameter op factor * row.column
                                          (e.g. amount <= 10000, principal <= 5 * annual_income)
    - pair: parameter op other_parameter  (e.g. end_time > start_time, home_score <> away_score)
    - clock: the time of day of the parameter (a time or a date and time) is within
      values[0] and values[1], both "HH:MM" ("time slots between 12:00 and 22:00")
    - count: at most `number` rows of `child` (with column = value) belong to the row, after
      the operation (e.g. at most 2 cards with status active); with `per`, another key
      parameter, only the child rows that also belong to its row ("on the same trip"), or
      columns of the row a create adds, comma-separated, those with its values ("of the same
      alert_type", "on the same date,time_slot"), or
      such a row and one of its columns ("course_id.term": the child rows whose course has
      the term of this course, "in the same term"); with
      `other_column` instead of `number`, the most is that column of the row ("below the
      course's capacity"); a `number` of 0 means none before the operation ("only if the
      player has no contract with status active", "no grade has been recorded for it");
      with `total`, a number column of the child, its sum (plus the new row's parameter of
      that name) is what is bounded, and `other` names the row holding `other_column` when
      it is not the row itself ("the seats already booked plus the new seats cannot exceed
      the screen's capacity": showtime_id.screen_id); with row "*", every row of the
      table the call creates that has the new row's `per` values ("an email address can
      have at most 5 subscriptions": per email)
    - within_days: row.column is at most `number` days before now
    - within_hours: row.column is at most `number` hours before now ("within 24 hours of its
      booked_at time")
    - age: row.column (a birth date) is at least `number` years before now ("a customer
      younger than 18 ... cannot")
    - days_ahead: row.column (or, with no column, the parameter) is at least `number` days
      after now ("only for future dates": the new reservation's date)
    - hours_ahead: row.column is more than `number` hours after now ("the showtime starts
      more than 2 hours later")
    - compare: row.column op other.other_column, both rows named as `row` is
                                          (e.g. seats_sold < trip_id.train_id's capacity)
    - guard: one of the candidate's built-in guards, by name
    - either: at least one of `cases` holds, each a condition of another kind but guard,
      with no case of its own ("only within 24 hours of its booked_at time or when the
      flight's status is cancelled": a within_hours and an in)

    Any kind but guard may hold only in one case: when the call's `if_parameter`, or the
    column `if_column` of the row `if_row` (named as `row` is), equals `if_value` ("a first
    class ticket ...": fare_class = first; "a medication marked controlled ...": the
    medication's controlled = 1). In the other cases the condition does not apply.
    """

    model_config = ConfigDict(extra="forbid")

    kind: Kind
    row: str = ""
    column: str = ""
    op: Op = "="
    value: str | float | None = None
    values: list[str] = Field(default_factory=list, max_length=10)
    parameter: str = ""
    factor: float | None = None
    child: str = ""
    number: int | None = None
    guard: str = ""
    other: str = ""
    other_column: str = ""
    other_parameter: str = ""
    total: str = ""
    per: str = ""
    if_parameter: str = ""
    if_row: str = ""
    if_column: str = ""
    if_value: str | float | None = None
    cases: list[Condition] = Field(default_factory=list, max_length=4)


class Variant(BaseModel):
    """How an operation differs from the plainer one it is offered beside: it takes from a
    parent's stock, gives back to it, or counts itself sold on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    of: str = Field(description="the id of the plain operation")
    how: Literal["taking", "restocking", "counting", "releasing"]
    column: str = Field(description="the parent's column, as table.column")

    @property
    def id(self) -> str:
        return f"{self.of} {self.how} {self.column}"


class Candidate(BaseModel):
    """A concrete operation the catalogue offers, with its tool already rendered."""

    model_config = ConfigDict(extra="forbid")

    id: str
    pattern: Pattern
    summary: str = Field(description="what it does, in one line")
    rows: dict[str, str] = Field(description="key parameter -> the table of the row it names")
    main: str = Field(description="key parameter of the row the operation is about")
    amount: str | None = Field(default=None, description="the quantity parameter, if any")
    guards: dict[str, int] = Field(
        default_factory=dict, description="built-in guard name -> its require step index"
    )
    creates: str | None = Field(default=None, description="table it inserts a row into")
    sets: tuple[str, str, str] | None = Field(
        default=None, description="(table, column, value) it moves a row into"
    )
    moves_from: list[str] = Field(
        default_factory=list, description="the values of that column it moves a row from"
    )
    owns: list[str] = Field(
        default_factory=list,
        description="columns of its row only it changes: a new row starts them at 0",
    )
    checks: list[RequireStep] = Field(
        default_factory=list,
        description="checks every such operation needs whatever the rules (two references "
        "to one table differ, an end is not before its start): after the rules' own",
    )
    variant: Variant | None = Field(
        default=None, description="what it does beside the plain operation it varies"
    )
    tool: Tool

    @property
    def plain(self) -> str:
        """The id of the operation it is offered beside: its own where it is plain."""
        return self.variant.of if self.variant is not None else self.id


# -- schema reading -----------------------------------------------------------------------


def literal(value: Scalar) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return repr(value)
    if value is None:
        return "NULL"
    return "'" + str(value).replace("'", "''") + "'"


def enum_values(table: Table, column: str, seed: dict[str, list[dict]]) -> list[str]:
    """A text column's allowed values: its CHECK list, else the distinct seed values."""
    allowed = table.enum_values(column)
    if allowed is not None:
        return allowed
    return sorted({str(r[column]) for r in seed.get(table.name, []) if r.get(column) is not None})


def status_column(table: Table, seed: dict[str, list[dict]]) -> tuple[str, list[str]] | None:
    for col in table.columns:
        if col.type == "text" and ("status" in col.name or col.name == "state"):
            values = enum_values(table, col.name, seed)
            if 2 <= len(values) <= 8:
                return col.name, values
    return None


def fk_columns(table: Table) -> set[str]:
    return {c for fk in table.foreign_keys for c in fk.columns}


def keyed(table: Table) -> bool:
    return len(table.primary_key) == 1


def holding(col: Column) -> bool:
    """A quantity a row holds and can pass on (a balance, points, stock), not one it owes:
    finance's catalogue moved `outstanding_balance` from one loan to another and let a
    client "deposit" to a loan's debt, and the judge rejected every such task."""
    return quantity(col, TRANSFERABLE) and not named(col.name, DEBTS)


def quantity(col: Column, words: tuple[str, ...]) -> bool:
    bound = named(col.name, ("max", "min", "maximum", "minimum", "limit", "cap"))
    return col.type in ("real", "integer") and named(col.name, words) and not bound


def named(column: str, words: tuple[str, ...]) -> bool:
    """A word of the column's name is one of `words` (or its plural): `refills_allowed`
    is not `owed`, `copies_available` is `available`."""
    parts = column.split("_")
    return any(p == w or p == w + "s" or p == w + "es" for p in parts for w in words)


def owes(table: Table, status: tuple[str, list[str]] | None) -> bool:
    """A table of debts: named so (loans, invoices) or with a status that says repaid."""
    named = any(w in table.name for w in DEBT_TABLES)
    return named or bool(status and {"repaid", "paid", "paid_off"} & set(status[1]))


def key_expression(table: Table, seed: dict[str, list[dict]]) -> str:
    """The new row's key: :_new_id, with the seed keys' letter prefix for a text key."""
    key = table.column(table.primary_key[0])
    if key.type != "text":
        return ":_new_id"
    sample = next((str(r[key.name]) for r in seed.get(table.name, []) if r.get(key.name)), "")
    prefix = re.match(r"[A-Za-z_-]*", sample)
    return f"{literal(prefix.group(0) if prefix else '')} || :_new_id"


def initial(values: list[str]) -> str:
    return next((v for v in INITIAL if v in values), values[0])


def moved(col: Column, sign: str, param: str) -> str:
    """`col` with a parameter added or taken off; a real one rounded at the data plan's
    finest decimal (6), so that repaying the rest of 1562.74 after 1000 leaves 0, not the
    float residue 1.1e-13 that keeps a loan open and is told as its balance."""
    changed = f"{col.name} {sign} :{param}"
    return f"round({changed}, 6)" if col.type == "real" else changed


def now_value(col: Column) -> str:
    return "substr(:_now, 1, 10)" if col.type == "date" else ":_now"


def stamp_column(table: Table, value: str) -> Column | None:
    """The date a status move records, e.g. closed_on for 'closed'."""
    for name in (f"{value}_on", f"{value}_at", f"{value}_date"):
        if name in table.column_names:
            return table.column(name)
    return None


def pattern_tool(
    name: str,
    description: str,
    kind: Literal["read", "write"],
    props: dict[str, dict],
    require: list[RequireStep],
    run: list[str],
    returns: str,
    single: bool = False,
) -> Tool:
    return Tool(
        name=name[:63],
        description=description,
        kind=kind,
        parameters={"type": "object", "properties": props, "required": list(props)},
        require=require,
        run=run,
        returns=returns,
        single=single,
        origin="pattern",
    )


def _exists(table: Table, param: str) -> RequireStep:
    key = table.primary_key[0]
    if param == key:
        return row_exists(table)
    return RequireStep(
        sql=f"SELECT COUNT(*) > 0 AS found FROM {table.name} WHERE {key} = :{param}",
        error=f"No {table.name} row with that {key} ({param}).",
    )


def counts_up(column: str) -> bool:
    """A count of what was done with a row (`tickets_sold`, `refills_used`): 0 when new."""
    return any(part in COUNTERS for part in column.split("_"))


def _sane_pairs(child: Table, fks: list, props: dict[str, dict]) -> list[RequireStep]:
    """What a new row may not say of itself whatever the rules: two references to one
    table name two rows (a game's home and away team), and an end is not before its
    start (a game from 2023 to 2026, or ending before it began)."""
    out = []
    by_table: dict[str, list[str]] = {}
    for fk in fks:
        by_table.setdefault(fk.ref_table, []).append(fk.columns[0])
    for table, refs in by_table.items():
        for a, b in itertools.pairwise(refs):
            out.append(
                RequireStep(
                    sql=f"SELECT :{a} <> :{b} AS differ",
                    error=f"The {a} and the {b} must be two different {table} rows.",
                )
            )
    moments = [c.name for c in child.columns if c.type in ("date", "datetime") and c.name in props]
    for start, end in spans(moments):
        out.append(
            RequireStep(
                sql=f"SELECT :{end} >= :{start} AS ordered",
                error=f"The {end} cannot be before the {start}.",
            )
        )
    return out


def _positive(param: str) -> RequireStep:
    return RequireStep(sql=f"SELECT :{param} > 0 AS positive", error=f"The {param} must be > 0.")


# -- the patterns -------------------------------------------------------------------------


def transfers(schema: Schema, seed: dict[str, list[dict]]) -> list[Candidate]:
    """Move a quantity between two rows of one table: both exist and differ, the amount is
    positive, the source holds enough; a ledger row is written where a table records them."""
    out = []
    for table in filter(keyed, schema.tables):
        key = table.primary_key[0]
        for col in table.columns:
            if not holding(col) or col.name in table.primary_key:
                continue
            src, dst, amount = f"from_{key}", f"to_{key}", "amount"
            kcol = table.column(key)
            require = [
                _exists(table, src),
                _exists(table, dst),
                RequireStep(
                    sql=f"SELECT :{src} <> :{dst} AS differ",
                    error=f"The source and target {table.name} must differ.",
                ),
                _positive(amount),
                RequireStep(
                    sql=f"SELECT {col.name} >= :{amount} AS enough FROM {table.name} "
                    f"WHERE {key} = :{src}",
                    error=f"The source {singular(table.name)} does not hold enough {col.name}.",
                ),
            ]
            run = [
                f"UPDATE {table.name} SET {col.name} = {moved(col, sign, amount)} "
                f"WHERE {key} = :{param}"
                for sign, param in (("-", src), ("+", dst))
            ]
            record = _ledger_insert(schema, table, seed, src, dst, amount)
            if record:
                run.append(record)
            noun = singular(table.name)
            tool = pattern_tool(
                f"transfer_{col.name}",
                f"Move an amount of {col.name} from one {noun} to another.",
                "write",
                {
                    src: param_schema(kcol, f"the {key} to take the {col.name} from"),
                    dst: param_schema(kcol, f"the {key} to give the {col.name} to"),
                    amount: {"type": JSON_TYPES[col.type], "description": "how much to move"},
                },
                require,
                run,
                f"SELECT {key}, {col.name} FROM {table.name} WHERE {key} IN (:{src}, :{dst}) "
                f"ORDER BY {key}",
            )
            out.append(
                Candidate(
                    id=f"transfer:{table.name}.{col.name}",
                    pattern="transfer",
                    summary=f"move {col.name} between two {table.name} rows",
                    rows={src: table.name, dst: table.name},
                    main=src,
                    amount=amount,
                    guards={"exists": 0, "distinct": 2, "positive": 3, "enough": 4},
                    checks=_target_open(table, dst),
                    tool=tool,
                )
            )
            break
    return out


def _target_open(table: Table, dst: str) -> list[RequireStep]:
    """Nothing moves into a row that is over: finance's `transfer_balance` paid into a
    closed account (the audit of 310b6d0), which its `topup_balance` refused."""
    ended = _over(table)
    if ended is None:
        return []
    status, over = ended
    key, noun = table.primary_key[0], record_phrase(table.name)
    return [
        RequireStep(
            sql=_open_sql(table, status, over, key, f":{dst}"),
            error=f"The target {noun} is {_either(over)}: nothing can be added to it.",
        )
    ]


def _fill(table: Table, col: Column, seed: dict[str, list[dict]]) -> str | None:
    """A default for a NOT NULL column no parameter gives, or None if there is none."""
    if col.type in ("date", "datetime"):
        return now_value(col)
    if col.type == "text":
        values = enum_values(table, col.name, seed)
        if "status" in col.name or col.name == "state":
            done = next((v for v in RECORDED if v in values), None)
            return literal(done or (initial(values) if values else "ok"))
        if table.enum_values(col.name):
            return literal(values[0])
        return None
    if col.type == "boolean":
        return "0"
    return None


def _insert(table: str, values: dict[str, str]) -> str:
    return f"INSERT INTO {table} ({', '.join(values)}) VALUES ({', '.join(values.values())})"


def _ledger_insert(
    schema: Schema, table: Table, seed: dict[str, list[dict]], src: str, dst: str, amount: str
) -> str | None:
    """An INSERT into a table with two keys to `table` and an amount, if every NOT NULL
    column of it can be filled."""
    for ledger in filter(keyed, schema.tables):
        refs = [fk.columns[0] for fk in ledger.foreign_keys if fk.ref_table == table.name]
        numbers = [
            c for c in ledger.columns if c.type in ("real", "integer") and c.name not in refs
        ]
        numbers = [c for c in numbers if c.name not in ledger.primary_key]
        if len(refs) != 2 or not numbers:
            continue
        values = {ledger.primary_key[0]: key_expression(ledger, seed)}
        values |= {refs[0]: f":{src}", refs[1]: f":{dst}", numbers[0].name: f":{amount}"}
        for col in ledger.columns:
            if col.name not in values and not col.nullable:
                filled = _fill(ledger, col, seed)
                if filled is None:
                    return None
                values[col.name] = filled
        return _insert(ledger.name, values)
    return None


def creates(
    schema: Schema, seed: dict[str, list[dict]], owned: frozenset[tuple[str, str]] = frozenset()
) -> list[Candidate]:
    """Insert a child row under its parents (each must exist); NOT NULL columns come from
    parameters or defaults (now for opening dates, the initial status, a running balance of
    0 or the principal, 0 for what only another operation changes: `owned`, (table,
    column) pairs)."""
    out = []
    for child in filter(keyed, schema.tables):
        fks = [fk for fk in child.foreign_keys if len(fk.columns) == 1]
        if not fks:
            continue
        key = child.primary_key[0]
        values: dict[str, str] = {key: key_expression(child, seed)}
        props: dict[str, dict] = {}
        rows: dict[str, str] = {}
        require: list[RequireStep] = []
        for fk in fks:
            ref = fk.columns[0]
            if ref in values:
                continue
            values[ref] = f":{ref}"
            props[ref] = param_schema(child.column(ref), f"the {ref} it belongs to")
            rows[ref] = fk.ref_table
            require.append(_exists(schema.table(fk.ref_table), ref))
        status = status_column(child, seed)
        numbers = [
            c
            for c in child.columns
            if c.type in ("real", "integer") and c.name not in values and not c.nullable
        ]
        # what is still owed starts at the principal: `outstanding_balance` too (the N=300
        # run's users opened loans of $8.73 "with an outstanding balance of 0")
        running = [c for c in numbers if c.name == "balance" or named(c.name, DEBTS)]
        principal = next((c for c in numbers if c not in running), None)
        amount = None
        ok = True
        for col in child.columns:
            if col.name in values or col.nullable:
                continue
            if status and col.name == status[0]:
                values[col.name] = literal(initial(status[1]))
            elif col.type in ("date", "datetime") and any(w in col.name for w in NOW_DATES):
                values[col.name] = now_value(col)
            elif col in running:
                values[col.name] = f":{principal.name}" if principal else "0"
            elif col.type in ("real", "integer") and (
                counts_up(col.name) or (child.name, col.name) in owned
            ):
                values[col.name] = "0"
            else:
                if col.type == "text" and col.unique:
                    ok = False
                    break
                values[col.name] = f":{col.name}"
                prop = param_schema(col, col.description or f"the {col.name}")
                allowed = child.enum_values(col.name) if col.type == "text" else None
                if allowed:
                    prop["enum"] = allowed
                props[col.name] = prop
                if col is principal:
                    amount = col.name
        if not ok:
            continue
        parent = fks[0].columns[0]
        guards = {"exists": 0}
        if amount and not signed(child, amount, seed):
            require.append(_positive(amount))
            guards["positive"] = len(require) - 1
        checks = [*_sane_pairs(child, fks, props), *_parents_open(schema, child, fks)]
        checks += places_free(
            schema, child, seed, {fk.columns[0]: f":{fk.columns[0]}" for fk in fks}
        )
        noun = singular(child.name)
        key_sql = values[key]
        tool = pattern_tool(
            f"create_{noun}",
            f"Create a new {noun} under an existing {singular(fks[0].ref_table)}.",
            "write",
            props,
            require,
            [_insert(child.name, values)],
            f"SELECT {', '.join(child.column_names)} FROM {child.name} WHERE {key} = {key_sql}",
            single=True,
        )
        out.append(
            Candidate(
                id=f"create:{child.name} under {fks[0].ref_table}",
                pattern="create",
                summary=(
                    f"create {with_article(noun)} row under "
                    f"{with_article(singular(fks[0].ref_table))}"
                ),
                rows=rows,
                main=parent,
                amount=amount,
                guards=guards,
                creates=child.name,
                checks=checks,
                tool=tool,
            )
        )
    return out


def signed(table: Table, column: str, seed: dict[str, list[dict]]) -> bool:
    """A number that may be below zero: a seed row's is, or a CHECK lets it be. Weather's
    new readings and stations were refused at a temperature of 0 or below ("The temperature
    must be > 0."), while the rule allows -90 to 60 and the seed held -12.5."""
    bound = re.compile(rf"\b{re.escape(column)}\s*>=?\s*-\s*\d")
    if any(bound.search(check) for check in table.checks):
        return True
    rows = seed.get(table.name, [])
    return any(isinstance(r.get(column), int | float) and r[column] < 0 for r in rows)


def _a(noun: str) -> str:
    """The noun with its article: refusals read "Only an account whose ...", not "a account"."""
    return f"{'an' if noun[:1].casefold() in 'aeiou' else 'a'} {noun}"


def _only_from(table: str, column: str, allowed: list[str], target: str) -> str:
    """A status change's refusal, in one wording: "Only a card whose status is frozen can be
    active." (the pattern's own step, and a rule's step of the states beside others)."""
    noun = record_phrase(table)
    return f"Only {_a(noun)} whose {column} is {' or '.join(allowed)} can be {target}."


def _status_change(
    table: Table, column: str, target: str, allowed: list[str], pattern: Pattern, verb: str
) -> Candidate:
    key = table.primary_key[0]
    noun = singular(table.name)
    sets = [f"{column} = {literal(target)}"]
    stamp = stamp_column(table, target)
    if stamp is not None:
        sets.append(f"{stamp.name} = {now_value(stamp)}")
    props = {key: param_schema(table.column(key), f"the {key} of the {noun}")}
    for col in table.columns:  # what the new state records: freezing says why (frozen_reason)
        if table.state_of(col.name) != target or col is stamp:
            continue
        if col.type in ("date", "datetime"):
            sets.append(f"{col.name} = {now_value(col)}")
            continue
        sets.append(f"{col.name} = :{col.name}")
        props[col.name] = param_schema(col, col.description or f"the {col.name}")
        if allowed_values := table.enum_values(col.name):
            props[col.name]["enum"] = allowed_values
    require = [
        row_exists(table),
        RequireStep(
            sql=f"SELECT {column} IN ({', '.join(map(literal, allowed))}) AS allowed "
            f"FROM {table.name} WHERE {key} = :{key}",
            error=_only_from(table.name, column, allowed, target),
        ),
    ]
    settled = []
    if target in SETTLING and owes(table, (column, table.enum_values(column) or [])):
        # a debt settled by a word: finance's close_loan closed an active loan owing 2,655.58
        # (finance-intent-00003 on 0ee2fcd), and set_repaid_loan marked one repaid; the
        # repayment itself closes it at 0
        for owed in (c.name for c in table.columns if quantity(c, DEBTS)):
            sql = f"SELECT {owed} = 0 AS settled FROM {table.name} WHERE {key} = :{key}"
            said = f"{_a(noun).capitalize()} can be {target} only when its {owed} is 0."
            settled.append(RequireStep(sql=sql, error=said))
    tool = pattern_tool(
        f"{verb}_{noun}",
        f"Set the {column} of {with_article(noun)} to {target} (allowed from {', '.join(allowed)})."
        + "".join(f" Records its {p}." for p in props if p != key),
        "write",
        props,
        require,
        [f"UPDATE {table.name} SET {', '.join(sets)} WHERE {key} = :{key}"],
        f"SELECT {key}, {column} FROM {table.name} WHERE {key} = :{key}",
        single=True,
    )
    ident = (
        f"cancel:{table.name}" if pattern == "cancel" else f"status:{table.name}.{column}={target}"
    )
    return Candidate(
        id=ident,
        pattern=pattern,
        summary=f"set {table.name}.{column} to {target} from {', '.join(allowed)}",
        rows={key: table.name},
        main=key,
        guards={"exists": 0, "transition": 1},
        sets=(table.name, column, target),
        moves_from=allowed,
        checks=settled,
        tool=tool,
    )


def statuses(schema: Schema, seed: dict[str, list[dict]]) -> list[Candidate]:
    """A status change per target value, allowed from every other non-final value (a
    cancellation where the value is a cancelled one), into a live state or a cancelled one
    not from an ended one (`ENDED_STATES`), and never back along a lifecycle (`LIFECYCLES`).
    No time limit is invented: a 30-day window made restaurant's cancel fail on every
    seeded reservation (all in the past)."""
    out = []
    for table in filter(keyed, schema.tables):
        found = status_column(table, seed)
        if found is None:
            continue
        column, values = found
        final = {v for v in values if v in TERMINAL and not _stage_before(v, values)}
        for target in values:
            allowed = [v for v in values if v != target and v not in final]
            # no live state again from one the business ended, and nothing cancelled there:
            # a delivered order is returned
            if target in INITIAL or target in CANCELLED:
                allowed = [v for v in allowed if v not in ENDED_STATES]
            if target in ENDED_STATES:
                allowed = [v for v in allowed if v not in FAILED]
            allowed = [v for v in allowed if not _stage_before(target, [v])]
            if not allowed:
                continue
            if target in CANCELLED:  # a time limit only where a rule states one (rulemap)
                out.append(_status_change(table, column, target, allowed, "cancel", "cancel"))
                continue
            verb = VERBS.get(target, f"set_{target}")
            out.append(_status_change(table, column, target, allowed, "status", verb))
    return out


def _stage_before(state: str, others: list[str]) -> bool:
    """`state` comes before one of `others` in a lifecycle (`LIFECYCLES`): a record in one of
    them is past it."""
    for stages in LIFECYCLES:
        if state in stages and any(
            o in stages and stages.index(o) > stages.index(state) for o in others
        ):
            return True
    return False


def adjustments(schema: Schema, seed: dict[str, list[dict]]) -> list[Candidate]:
    """Decrease a quantity (repay, withdraw, use up): positive, never below zero, and a row
    reaching zero moves to its closing status where it has one; and increase one (top up)."""
    out = []
    for table in filter(keyed, schema.tables):
        key = table.primary_key[0]
        kcol = table.column(key)
        status = status_column(table, seed)
        noun = singular(table.name)
        # a loan's `amount` is what is still owed when no column says so (`outstanding`)
        owed = owes(table, status) and not any(quantity(c, DEBTS) for c in table.columns)
        for col in table.columns:
            if col.name in table.primary_key or col.name in fk_columns(table):
                continue
            if not quantity(col, DECREASABLE) and not (owed and quantity(col, AMOUNTS)):
                continue
            props = {
                key: param_schema(kcol, f"the {key} of the {noun}"),
                "amount": {"type": JSON_TYPES[col.type], "description": f"how much {col.name}"},
            }
            require = [
                row_exists(table),
                _positive("amount"),
                RequireStep(
                    sql=f"SELECT :amount <= {col.name} AS covered FROM {table.name} "
                    f"WHERE {key} = :{key}",
                    error=f"The amount cannot exceed the {noun}'s {col.name}.",
                ),
            ]
            guards = {"exists": 0, "positive": 1, "not_above": 2}
            stocked = _stocked(schema, table, col.name)
            sets = [f"{col.name} = {moved(col, '-', 'amount')}"]
            debt = owed or named(col.name, DEBTS)
            closing = next((v for v in CLOSING if debt and status and v in status[1]), None)
            if status and closing:
                sets.append(
                    f"{status[0]} = CASE WHEN {moved(col, '-', 'amount')} = 0 "
                    f"THEN {literal(closing)} "
                    f"ELSE {status[0]} END"
                )
                guards["close_at_zero"] = -1
            verb = "repay" if debt else "withdraw" if quantity(col, MONEYLIKE) else "reduce"
            tool = pattern_tool(
                f"{verb}_{noun}_{col.name}",
                f"Reduce the {col.name} of {with_article(noun)} by an amount"
                + (f"; at 0 it becomes {closing}." if closing else "."),
                "write",
                props,
                require,
                [
                    f"UPDATE {table.name} SET {', '.join(sets)} WHERE {key} = :{key}",
                    *([_restock(stocked, table, "+")] if stocked else []),
                ],
                f"SELECT {key}, {col.name}"
                + (f", {status[0]}" if status else "")
                + f" FROM {table.name} WHERE {key} = :{key}",
                single=True,
            )
            out.append(
                Candidate(
                    id=f"adjust:{table.name}.{col.name}",
                    pattern="adjust",
                    summary=f"decrease {table.name}.{col.name} by an amount, not below 0"
                    + (f", {closing} at 0" if closing else ""),
                    rows={key: table.name},
                    main=key,
                    amount="amount",
                    guards=guards,
                    tool=tool,
                )
            )
            if holding(col):
                up = pattern_tool(
                    f"{'deposit' if quantity(col, MONEYLIKE) else 'increase'}_{noun}_{col.name}",
                    f"Increase the {col.name} of {with_article(noun)} by an amount."
                    + (f" Takes it from the {singular(stocked[0].name)}'s {stocked[2]}."
                       if stocked else ""),
                    "write",
                    props,
                    [*require[:2], *([_enough(stocked, table)] if stocked else [])],
                    [f"UPDATE {table.name} SET {col.name} = {moved(col, '+', 'amount')} "
                     f"WHERE {key} = :{key}",
                     *([_restock(stocked, table, "-")] if stocked else [])],
                    f"SELECT {key}, {col.name} FROM {table.name} WHERE {key} = :{key}",
                    single=True,
                )  # fmt: skip
                out.append(
                    Candidate(
                        id=f"topup:{table.name}.{col.name}",
                        pattern="topup",
                        summary=f"increase {table.name}.{col.name} by an amount",
                        rows={key: table.name},
                        main=key,
                        amount="amount",
                        guards={"exists": 0, "positive": 1},
                        checks=still_open(table, "added to"),
                        tool=up,
                    )
                )
    return out


def _stocked(schema: Schema, table: Table, column: str) -> tuple[Table, str, str] | None:
    """(parent, the row's column naming it, its stock) where `column` is what the row takes
    from a parent's stock when made (an order item's quantity, from its product's stock):
    ecommerce on 5b7cc66 raised an item's quantity by 4 and took nothing from the stock."""
    if counted_column(table) != column:
        return None
    for fk in table.foreign_keys:
        parent = schema.table(fk.ref_table)
        stock = stock_column(parent)
        if stock is not None and len(fk.columns) == 1 and parent.primary_key == fk.ref_columns:
            return parent, fk.columns[0], stock
    return None


def _restock(stocked: tuple[Table, str, str], table: Table, sign: str) -> str:
    """The parent's stock given the amount back (`+`) or taking it (`-`)."""
    parent, ref, stock = stocked
    pk, key = parent.primary_key[0], table.primary_key[0]
    return (
        f"UPDATE {parent.name} SET {stock} = {stock} {sign} :amount WHERE {pk} = "
        f"(SELECT {ref} FROM {table.name} WHERE {key} = :{key})"
    )


def _enough(stocked: tuple[Table, str, str], table: Table) -> RequireStep:
    parent, ref, stock = stocked
    pk, key, noun = parent.primary_key[0], table.primary_key[0], singular(parent.name)
    return RequireStep(
        sql=f"SELECT :amount <= {stock} AS enough FROM {parent.name} WHERE {pk} = "
        f"(SELECT {ref} FROM {table.name} WHERE {key} = :{key})",
        error=f"The {noun}'s {stock} is less than the amount.",
    )


def usages(schema: Schema) -> list[Candidate]:
    """Use one of a row's allowance (refill a prescription): a count of uses
    (`refills_used`) goes up by one; what bounds it is the rules' to say."""
    out = []
    for table in filter(keyed, schema.tables):
        key = table.primary_key[0]
        noun = singular(table.name)
        for col in table.columns:
            parts = col.name.split("_")
            if col.type != "integer" or len(parts) != 2 or parts[1] != "used":
                continue
            use = singular(parts[0])  # refills_used: a refill
            tool = pattern_tool(
                f"{use}_{noun}",
                f"Use one {use} of {with_article(noun)}: its {col.name} goes up by one.",
                "write",
                {key: param_schema(table.column(key), f"the {key} of the {noun}")},
                [row_exists(table)],
                [f"UPDATE {table.name} SET {col.name} = {col.name} + 1 WHERE {key} = :{key}"],
                f"SELECT {key}, {col.name} FROM {table.name} WHERE {key} = :{key}",
                single=True,
            )
            out.append(
                Candidate(
                    id=f"use:{table.name}.{col.name}",
                    pattern="use",
                    summary=f"use one {use}: {table.name}.{col.name} + 1",
                    rows={key: table.name},
                    main=key,
                    guards={"exists": 0},
                    tool=tool,
                )
            )
    return out


def places_free(
    schema: Schema, child: Table, seed: dict[str, list[dict]], parents: dict[str, str]
) -> list[RequireStep]:
    """A place a parent holds is taken once: railway's `create_ticket` sold seat 12 of a
    trip another live ticket held (the audit of de87116's run), and the `outcome` stage
    only rejected the tasks that did. For each parent in `parents` (its key column -> the
    SQL of the key the row goes under) that holds places, each number the seed keeps apart
    under it (`toolscale.apart`) is free there among the rows in the new row's state; a
    moved row brings its own (`parents` names `new_...` parameters, the row its key)."""
    key = child.primary_key[0]
    moving = any(sql.startswith(":new_") for sql in parents.values())
    keys = {c for fk in child.foreign_keys for c in fk.columns} | set(child.primary_key)
    rows = seed.get(child.name, [])
    status = status_column(child, seed)
    out = []
    for ref, at in parents.items():
        fk = next((f for f in child.foreign_keys if f.columns == [ref]), None)
        if fk is None or not holds_slots(schema.table(fk.ref_table)):
            continue
        parent = singular(fk.ref_table)
        for col in child.columns:
            if col.type != "integer" or col.name in keys or not kept_apart(rows, ref, col.name):
                continue
            own = f"(SELECT {col.name} FROM {child.name} WHERE {key} = :{key})"
            value = own if moving else f":{col.name}"
            where = f"o.{ref} = {at} AND o.{col.name} = {value}"
            if moving:
                where += f" AND o.{key} <> :{key}"
            if status is not None:
                state = (
                    f"(SELECT {status[0]} FROM {child.name} WHERE {key} = :{key})"
                    if moving
                    else literal(initial(status[1]))
                )
                where += f" AND o.{status[0]} = {state}"
            out.append(
                RequireStep(
                    sql=f"SELECT COUNT(*) = 0 AS free FROM {child.name} o WHERE {where}",
                    error=f"That {col.name} is already taken on the {parent}.",
                )
            )
    return out


def moves(schema: Schema, seed: dict[str, list[dict]] | None = None) -> list[Candidate]:
    """Move a row to another parent (move a ticket to another trip): the new parent must
    exist and differ from the one it has (trade a player to another team), and a place it
    holds there be free."""
    out = []
    for table in filter(keyed, schema.tables):
        key, noun = table.primary_key[0], singular(table.name)
        for fk in table.foreign_keys:
            if len(fk.columns) != 1 or fk.ref_table == table.name:
                continue
            ref, parent = fk.columns[0], schema.table(fk.ref_table)
            param = f"new_{ref}"
            tool = _setter(
                table,
                ref,
                param_schema(table.column(ref), f"the {ref} it moves to"),
                _exists(parent, param),
                f"The {noun} already belongs to that {singular(parent.name)}.",
                f"move_{noun}_to_{singular(parent.name)}",
                f"Move {with_article(noun)} to another {singular(parent.name)}.",
            )
            out.append(
                Candidate(
                    id=f"move:{table.name}.{ref}",
                    pattern="move",
                    summary=f"move {with_article(noun)} to another {singular(parent.name)} ({ref})",
                    rows={key: table.name, param: parent.name},
                    main=key,
                    guards={"exists": 0, "differs": 2},
                    checks=[
                        *still_open(table),
                        *held_at_past(schema, table),
                        *places_free(schema, table, seed or {}, {ref: f":{param}"}),
                    ],
                    tool=tool,
                )
            )
    return out


def held_at_past(schema: Schema, table: Table) -> list[RequireStep]:
    """A place at an event that has been played (a ticket of a completed game) is spent:
    it moves to no other game or holder. Basketball-intent-00031 and 00061 on 31bc8d2 moved
    ticket 57917 of game 41455, completed on 2024-09-27. Only a parent that holds places
    (`toolscale.apart.holds_slots`): a prescription of a completed appointment moves."""
    key = table.primary_key[0]
    out = []
    for fk in table.foreign_keys:
        if len(fk.columns) != 1 or fk.ref_table == table.name:
            continue
        parent = schema.table(fk.ref_table)
        ended = _over(parent, set(PLAYED)) if holds_slots(parent) else None
        if ended is None or parent.primary_key != fk.ref_columns:
            continue
        out.append(_under_open(table, fk, parent, ended, key, "moved"))
    return out


def _under_open(
    child: Table, fk: ForeignKey, parent: Table, ended: tuple[str, list[str]], at: str, done: str
) -> RequireStep:
    """The step that the parent of the `child` row named by `:at` is in none of the states
    `ended` names (its status column, the states): else the row cannot be `done`."""
    status, over = ended
    row = f"(SELECT {fk.columns[0]} FROM {child.name} WHERE {child.primary_key[0]} = :{at})"
    return RequireStep(
        sql=_open_sql(parent, status, over, fk.ref_columns[0], row),
        error=f"{_a(record_phrase(child.name)).capitalize()} of "
        f"{_a(record_phrase(parent.name))} that is {_either(over)} cannot be {done}.",
    )


def still_open(table: Table, done: str = "moved") -> list[RequireStep]:
    """A record that is over stays where it is: movie-intent-00004 on 71aacdf moved a
    cancelled booking to another showtime, and its user asked for it; finance-intent-00000
    on 203d876 topped up a closed account."""
    ended = _over(table)
    if ended is None:
        return []
    status, over = ended
    key, noun = table.primary_key[0], record_phrase(table.name)  # "a flight booking"
    return [
        RequireStep(
            sql=_open_sql(table, status, over, key, f":{key}"),
            error=f"{_a(noun).capitalize()} that is {_either(over)} cannot be {done}.",
        )
    ]


# states of a record that has gone out to its owner: nothing more goes into it
SENT = ("shipped", "dispatched", "in_transit", "out_for_delivery")
# states of a record given up, under which nothing new is made; a completed appointment
# still takes a prescription, a paid order a return
SHUT = frozenset(TERMINAL - {"completed", "paid", "paid_off", "settled", "returned"})


def _over(table: Table, states: Set[str] = TERMINAL) -> tuple[str, list[str]] | None:
    """(status column, its states among `states`: the record is over), where it has some."""
    named = [c.name for c in table.columns if "status" in c.name or c.name == "state"]
    # the record's own status before a kyc_status (from the review of 203d876..90756d3)
    status = next((n for n in named if n in ("status", "state")), next(iter(named), None))
    over = [v for v in table.enum_values(status) or [] if v in states] if status else []
    return (status, over) if status and over else None


def _either(states: list[str]) -> str:
    """ "paid, shipped or cancelled"."""
    return " or ".join([", ".join(states[:-1]), states[-1]] if len(states) > 1 else states)


def _open_sql(table: Table, status: str, over: list[str], key: str, at: str) -> str:
    """The row of `table` whose `key` is `at` (a parameter or a subquery) is not over."""
    return (
        f"SELECT {status} IS NULL OR {status} NOT IN ({', '.join(map(literal, over))}) "
        f"AS still_open FROM {table.name} WHERE {key} = {at}"
    )


def _parent_over(
    schema: Schema, child: Table, fk: ForeignKey, shut: bool
) -> tuple[Table, str, list[str]] | None:
    """The parent a row's key points to, its status column and the states in which it
    takes no part: for a part named for its parent (an order item, a flight booking), sent
    out or ended; for any other child, given up where `shut` (a new row), else none."""
    if len(fk.columns) != 1 or fk.ref_table == child.name:
        return None
    parent = schema.table(fk.ref_table)
    part = record_phrase(child.name).startswith(f"{record_phrase(parent.name)} ")
    states = TERMINAL | ENDED_STATES | set(SENT) if part else SHUT if shut else None
    ended = _over(parent, states) if states else None
    if ended is None or parent.primary_key != fk.ref_columns:
        return None
    return parent, *ended


def _parents_open(schema: Schema, child: Table, fks: list[ForeignKey]) -> list[RequireStep]:
    """A new row goes under parents not given up (a prescription under a cancelled
    appointment). A part named for its parent (an order item, a flight booking) goes in
    none sent out or ended either: ecommerce's run in runs/ (tools of c1da9aa) kept items
    added to shipped and delivered orders (00003, 00015, 00026), where a completed
    appointment still takes a prescription."""
    return [step for fk in fks if (step := _into_open(schema, child, fk, fk.columns[0]))]


def _into_open(schema: Schema, child: Table, fk: ForeignKey, at: str) -> RequireStep | None:
    """The step that the parent `:at` names, which a row of `child` goes under through
    `fk`, is not over (`_parent_over`, as for a new row)."""
    if (found := _parent_over(schema, child, fk, shut=True)) is None:
        return None
    parent, status, over = found
    return RequireStep(
        sql=_open_sql(parent, status, over, fk.ref_columns[0], f":{at}"),
        error=f"No {record_phrase(child.name)} can be added to "
        f"{_a(record_phrase(parent.name))} that is {_either(over)}.",
    )


def parts_into(schema: Schema, child: Table, to: Mapping[str, str]) -> list[RequireStep]:
    """A row moved to another parent (`to`: its key column -> the parameter naming the new
    parent) goes only where a new row could: ecommerce's move_order_item (tools of d3bc077)
    moved an item of a pending order into a shipped one (00169), where create_order_item
    refused "No order item can be added to an order that is paid, shipped, delivered or
    cancelled"."""
    return [
        step
        for fk in child.foreign_keys
        if fk.columns[0] in to and (step := _into_open(schema, child, fk, to[fk.columns[0]]))
    ]


def parts_open(
    schema: Schema, child: Table, param: str, moved: Set[str] = frozenset()
) -> list[RequireStep]:
    """A part named for its parent (an order item), changed through `:param`, changes in
    no parent sent out or ended: ecommerce on c379f84 topped up and moved quantities of
    items of delivered orders (00082, 00097, 00109, 00113, 00125), as an item had been
    added to one. A part moved off its parent (`moved`: the columns the write sets) may
    leave an ended one: a booking of a cancelled flight is moved to another flight."""
    out = []
    for fk in child.foreign_keys:
        found = _parent_over(schema, child, fk, shut=False) if fk.columns[0] not in moved else None
        if found is None:
            continue
        parent, status, over = found
        out.append(_under_open(child, fk, parent, (status, over), param, "changed"))
    return out


def _setter(
    table: Table,
    column: str,
    prop: dict,
    check: RequireStep,
    same: str,
    name: str,
    description: str,
) -> Tool:
    """A tool that sets one column of a row to `new_<column>`: the row exists, the new
    value passes `check`, and differs from the one it has (`same` says so)."""
    key, noun = table.primary_key[0], singular(table.name)
    param = f"new_{column}"
    require = [
        row_exists(table),
        check,
        RequireStep(
            sql=f"SELECT {column} IS NULL OR {column} <> :{param} AS differs "
            f"FROM {table.name} WHERE {key} = :{key}",
            error=same,
        ),
    ]
    return pattern_tool(
        name,
        description,
        "write",
        {key: param_schema(table.column(key), f"the {key} of the {noun}"), param: prop},
        require,
        [f"UPDATE {table.name} SET {column} = :{param} WHERE {key} = :{key}"],
        f"SELECT {key}, {column} FROM {table.name} WHERE {key} = :{key}",
        single=True,
    )


def _validation(column: Column, param: str) -> RequireStep:
    if "email" in column.name:
        return RequireStep(
            sql=f"SELECT :{param} LIKE '%_@_%._%' AS valid", error="That is not an email address."
        )
    if column.type in ("real", "integer"):
        return RequireStep(sql=f"SELECT :{param} > 0 AS valid", error=f"The {param} must be > 0.")
    return RequireStep(
        sql=f"SELECT length(trim(:{param})) >= 2 AS valid", error=f"The {param} cannot be empty."
    )


def updates(schema: Schema, seed: dict[str, list[dict]]) -> list[Candidate]:
    """Change a contact detail or a limit: validated, and never a no-op."""
    out = []
    for table in filter(keyed, schema.tables):
        key = table.primary_key[0]
        noun = singular(table.name)
        for col in table.columns:
            if col.name in table.primary_key or col.name in fk_columns(table):
                continue
            text = col.type == "text" and any(w in col.name for w in UPDATABLE if w != "limit")
            limit = col.type in ("real", "integer") and "limit" in col.name
            if not (text or limit) or (col.unique and col.type == "text"):
                continue  # a UNIQUE value would collide, and DuckDB refuses the update
            param = f"new_{col.name}"
            tool = _setter(
                table,
                col.name,
                param_schema(col, f"the new {col.name}"),
                _validation(col, param),
                f"The {noun} already has that {col.name}.",
                f"update_{noun}_{col.name}",
                f"Change the {col.name} of {with_article(noun)}.",
            )
            out.append(
                Candidate(
                    id=f"update:{table.name}.{col.name}",
                    pattern="update",
                    summary=f"change {table.name}.{col.name} (validated)",
                    rows={key: table.name},
                    main=key,
                    amount=param if limit else None,
                    guards={"exists": 0, "valid": 1, "differs": 2},
                    checks=_held_once(table, col.name, param),
                    tool=tool,
                )
            )
    return out


def _held_once(table: Table, column: str, param: str) -> list[RequireStep]:
    """An email names one person (the agent finds the user by it), so none takes another's:
    railway's `update_passenger_email` gave a passenger an email another one had (audit)."""
    if "email" not in column:
        return []
    key, noun = table.primary_key[0], singular(table.name)
    return [
        RequireStep(
            sql=f"SELECT COUNT(*) = 0 AS free FROM {table.name} "
            f"WHERE {column} = :{param} AND {key} <> :{key}",
            error=f"Another {noun} already has that {column}.",
        )
    ]


def reads(schema: Schema) -> list[Candidate]:
    """Totals and histories of a parent's children; people found by email or by name."""
    out = []
    for child in filter(keyed, schema.tables):
        for fk in child.foreign_keys:
            if len(fk.columns) != 1:
                continue
            col = fk.columns[0]
            parent = schema.table(fk.ref_table)
            pnoun = singular(parent.name)
            props = {col: param_schema(child.column(col), f"the {col} of the {pnoun}")}
            exists = [_exists(parent, col)]
            numbers = [
                c
                for c in child.columns
                if c.type in ("real", "integer")
                and c.name not in child.primary_key
                and c.name not in fk_columns(child)
                and any(w in c.name for w in AMOUNTS)
            ]
            if numbers:
                num = numbers[0].name
                out.append(
                    Candidate(
                        id=f"total:{child.name}.{num} by {col}",
                        pattern="total",
                        summary=f"count and sum {child.name}.{num} of one {pnoun}",
                        rows={col: parent.name},
                        main=col,
                        guards={"exists": 0},
                        tool=pattern_tool(
                            f"total_{child.name}_by_{col}",
                            f"How many {child.name} {with_article(pnoun)} has and their "
                            f"total {num}.",
                            "read",
                            props,
                            exists,
                            [],
                            f"SELECT COUNT(*) AS count, COALESCE(SUM({num}), 0) AS total_{num} "
                            f"FROM {child.name} WHERE {col} = :{col}",
                            single=True,
                        ),
                    )
                )
            dates = [c for c in child.columns if c.type in ("date", "datetime")]
            if dates:
                date = dates[0].name
                out.append(
                    Candidate(
                        id=f"history:{child.name} of {col}",
                        pattern="history",
                        summary=f"the latest {child.name} of one {pnoun}, newest first",
                        rows={col: parent.name},
                        main=col,
                        guards={"exists": 0},
                        tool=pattern_tool(
                            f"recent_{child.name}_by_{col}",
                            f"The 20 most recent {child.name} of {with_article(pnoun)} by {date}.",
                            "read",
                            props,
                            exists,
                            [],
                            f"SELECT {', '.join(child.column_names)} FROM {child.name} "
                            f"WHERE {col} = :{col} ORDER BY {date} DESC, "
                            f"{child.primary_key[0]} DESC LIMIT 20",
                        ),
                    )
                )
    for table in filter(keyed, schema.tables):
        names = table.column_names
        noun = singular(table.name)
        select = f"SELECT {', '.join(names)} FROM {table.name}"
        if "email" in names:
            out.append(
                Candidate(
                    id=f"find:{table.name} by email",
                    pattern="find",
                    summary=f"find {with_article(noun)} by email",
                    rows={},
                    main="",
                    tool=pattern_tool(
                        f"find_{noun}_by_email",
                        f"Find {with_article(noun)} by email address (case does not matter).",
                        "read",
                        {"email": param_schema(table.column("email"), "the email address")},
                        [],
                        [],
                        f"{select} WHERE lower(email) = lower(:email)",
                    ),
                )
            )
        parts = (
            ["first_name", "last_name"]
            if {"first_name", "last_name"} <= set(names)
            else [n for n in ("full_name", "name", "title") if n in names][:1]
        )
        if parts:  # a movie by its title: the one way a person names it
            by = "title" if parts == ["title"] else "name"
            where = " AND ".join(f"lower({p}) = lower(:{p})" for p in parts)
            out.append(
                Candidate(
                    id=f"find:{table.name} by {by}",
                    pattern="find",
                    summary=f"find {with_article(noun)} by {' and '.join(parts)}",
                    rows={},
                    main="",
                    tool=pattern_tool(
                        f"find_{noun}_by_{by}",
                        f"Find {with_article(noun)} by {' and '.join(parts)} "
                        "(case does not matter).",
                        "read",
                        {p: param_schema(table.column(p), f"the {p}") for p in parts},
                        [],
                        [],
                        f"{select} WHERE {where} ORDER BY {table.primary_key[0]}",
                    ),
                )
            )
    return out


STOCKS = ("stock", "available", "inventory")
COUNTED = ("quantity", "seats", "passengers", "tickets", "rooms", "copies", "count", "units")


def stock_column(table: Table) -> str | None:
    """The column that holds how many of a row are left to take: `stock`, `seats_available`."""
    return next(
        (c.name for c in table.columns if c.type == "integer" and named(c.name, STOCKS)), None
    )


def counted_column(table: Table) -> str | None:
    """The column that says how many a row takes: `quantity`, `passengers`, `seats`."""
    refs = fk_columns(table)
    return next(
        (
            c.name
            for c in table.columns
            if c.type == "integer" and c.name not in refs and named(c.name, COUNTED)
        ),
        None,
    )


def takings(schema: Schema, made: list[Candidate]) -> list[Candidate]:
    """A create that takes what it counts from the row it names ("the stock then goes down
    by that quantity", "seats_available then goes down"): enough must be left, and the
    parent's stock goes down in the same call."""
    out = []
    for cand in made:
        if cand.creates is None:
            continue
        counted = counted_column(schema.table(cand.creates))
        if counted not in cand.tool.param_types():
            counted = None
        for ref, parent_name in cand.rows.items():
            parent = schema.table(parent_name)
            sold = sold_column(parent)
            if sold is not None:
                out.append(_selling(cand, parent, ref, sold, counted))
            stock = stock_column(parent)
            if stock is None:
                continue
            pk, noun = parent.primary_key[0], singular(parent.name)
            # a row that says no count takes one: travel's flight booking ("seats_available
            # ... then goes down") had no passengers column, and no operation took a seat
            step = f":{counted}" if counted else "1"
            enough = RequireStep(
                sql=f"SELECT {step} <= {stock} AS enough FROM {parent.name} WHERE {pk} = :{ref}",
                error=f"The {noun}'s {stock} is less than the {counted}."
                if counted
                else f"The {noun} has no {stock} left.",
            )
            take = f"UPDATE {parent.name} SET {stock} = {stock} - {step} WHERE {pk} = :{ref}"
            taken = f"its {counted}" if counted else "one"
            out.append(
                _taking(
                    cand,
                    f"{parent.name}.{stock}",
                    f"Takes {taken} from the {noun}'s {stock}.",
                    enough,
                    [*cand.tool.run, take],
                    f"{taken} comes off {parent.name}.{stock}",
                )
            )
    return out


def _varied(
    cand: Candidate,
    variant: Variant,
    name: str,
    said: str,
    run: list[str],
    summary: str,
    guards: dict[str, int],
    require: list[RequireStep] | None = None,
) -> Candidate:
    """`cand` doing more beside what it does (`variant`): its tool's name, a sentence more
    of description, its statements (and steps), and its built-in guards."""
    update: dict[str, object] = {
        "name": name,
        "description": f"{cand.tool.description} {said}",
        "run": run,
    }
    tool = cand.tool.model_copy(update=update | ({"require": require} if require else {}))
    return cand.model_copy(
        update={
            "id": variant.id,
            "variant": variant,
            "summary": f"{cand.summary}; {summary}",
            "guards": cand.guards | guards,
            "tool": tool,
        }
    )


def _taking(
    cand: Candidate, stock: str, said: str, enough: RequireStep, run: list[str], summary: str
) -> Candidate:
    """`cand` taking from a parent's `stock` ("table.column"): `enough` must hold, and `run`
    is what the call does."""
    return _varied(
        cand,
        Variant(of=cand.id, how="taking", column=stock),
        f"{cand.tool.name}_taking_{stock.split('.')[1]}",
        said,
        run,
        summary,
        {"enough": len(cand.tool.require), "takes": -1},
        [*cand.tool.require, enough],
    )


def moved_takings(schema: Schema, moved: list[Candidate]) -> list[Candidate]:
    """A move onto another parent whose stock its record took when made ("seats_available
    then goes down"): enough must be left on the new one, which gives it up, and the old
    one gets it back. Travel's moves of a flight booking to another flight took no seat."""
    out = []
    for cand in moved:
        table = schema.table(cand.rows[cand.main])
        key = table.primary_key[0]
        counted = counted_column(table)
        for param, parent_name in cand.rows.items():
            parent = schema.table(parent_name)
            stock = stock_column(parent)
            if param == cand.main or stock is None:
                continue
            ref, pk, noun = param.removeprefix("new_"), parent.primary_key[0], singular(parent.name)
            step = counted or "1"
            mine = f"(SELECT {step} FROM {table.name} WHERE {key} = :{key})"
            enough = RequireStep(
                sql=f"SELECT {mine} <= {stock} AS enough FROM {parent.name} WHERE {pk} = :{param}",
                error=f"The {noun} has not enough {stock} left.",
            )
            back = (
                f"UPDATE {parent.name} SET {stock} = {stock} + {mine} WHERE {pk} = "
                f"(SELECT {ref} FROM {table.name} WHERE {key} = :{key})"
            )
            take = f"UPDATE {parent.name} SET {stock} = {stock} - {mine} WHERE {pk} = :{param}"
            out.append(
                _taking(
                    cand,
                    f"{parent.name}.{stock}",
                    f"Takes what it holds from the new {noun}'s {stock} and gives it back to "
                    "the old one.",
                    enough,
                    [back, take, *cand.tool.run],
                    f"its {step} moves between the {parent.name}' {stock}",
                )
            )
    return out


def moved_sellings(schema: Schema, moved: list[Candidate]) -> list[Candidate]:
    """A move of a record its parent counts sold ("seats_sold"): the old parent counts it
    no more and the new one does. Railway's ticket moved onto another trip while both
    trips' seats_sold stayed, so a full trip kept taking moved tickets."""
    out = []
    for cand in moved:
        table = schema.table(cand.rows[cand.main])
        key, counted = table.primary_key[0], counted_column(table)
        for param, parent_name in cand.rows.items():
            parent = schema.table(parent_name)
            sold = sold_column(parent)
            if param == cand.main or sold is None:
                continue
            ref, pk = param.removeprefix("new_"), parent.primary_key[0]
            mine = f"(SELECT {counted} FROM {table.name} WHERE {key} = :{key})" if counted else "1"
            off = (
                f"UPDATE {parent.name} SET {sold} = {sold} - {mine} WHERE {pk} = "
                f"(SELECT {ref} FROM {table.name} WHERE {key} = :{key})"
            )
            on = f"UPDATE {parent.name} SET {sold} = {sold} + {mine} WHERE {pk} = :{param}"
            tool = cand.tool.model_copy(
                update={
                    "name": f"{cand.tool.name}_counting_{sold}",
                    "description": f"{cand.tool.description} Its {sold} moves with it.",
                    "run": [off, on, *cand.tool.run],
                }
            )
            variant = Variant(of=cand.id, how="counting", column=f"{parent.name}.{sold}")
            out.append(
                cand.model_copy(
                    update={
                        "id": variant.id,
                        "variant": variant,
                        "summary": f"{cand.summary}; moves its count of {parent.name}.{sold}",
                        "tool": tool,
                    }
                )
            )
    return out


def sold_column(table: Table) -> str | None:
    """The column that counts what was sold of a row: `tickets_sold`, `seats_sold`."""
    return next(
        (c.name for c in table.columns if c.type == "integer" and "sold" in c.name.split("_")),
        None,
    )


def _selling(cand: Candidate, parent: Table, ref: str, sold: str, counted: str | None) -> Candidate:
    """The create that also counts itself sold on its parent ("while tickets_sold is below
    the game's capacity": a sale that never moved tickets_sold could not be held to it)."""
    pk, noun = parent.primary_key[0], singular(parent.name)
    step = f":{counted}" if counted else "1"
    count = f"UPDATE {parent.name} SET {sold} = {sold} + {step} WHERE {pk} = :{ref}"
    return _varied(
        cand,
        Variant(of=cand.id, how="counting", column=f"{parent.name}.{sold}"),
        f"{cand.tool.name}_counting_{sold}",
        f"Adds it to the {noun}'s {sold}.",
        [*cand.tool.run, count],
        f"adds to {parent.name}.{sold}",
        {"counts": -1},
    )


def restockings(schema: Schema, moves: list[Candidate]) -> list[Candidate]:
    """A cancellation that gives back what the record took ("cancelling puts the items back
    in stock"): its own count, or its items' counts, go back on the stock they came from."""
    out = []
    for cand in moves:
        if cand.pattern != "cancel" or cand.sets is None:
            continue
        table = schema.table(cand.sets[0])
        key = table.primary_key[0]
        back = None
        own = counted_column(table)
        for fk in table.foreign_keys:  # a booking's passengers back on its flight
            parent = schema.table(fk.ref_table)
            stock, pk = stock_column(parent), parent.primary_key[0]
            if own and stock and len(fk.columns) == 1:
                ref = fk.columns[0]
                back = (
                    f"UPDATE {parent.name} SET {stock} = {stock} + (SELECT {own} FROM "
                    f"{table.name} WHERE {key} = :{key}) WHERE {pk} = (SELECT {ref} FROM "
                    f"{table.name} WHERE {key} = :{key})",
                    parent.name,
                    stock,
                )
                break
        for child in schema.tables if back is None else []:  # an order's items
            up = link(child, table)
            counted = counted_column(child)
            if up is None or up[1] != "direct" or counted is None:
                continue
            for fk in child.foreign_keys:
                parent = schema.table(fk.ref_table)
                stock, pk = stock_column(parent), parent.primary_key[0]
                if stock is None or len(fk.columns) != 1 or parent.name == table.name:
                    continue
                ref = fk.columns[0]
                given = (
                    f"SELECT COALESCE(SUM(i.{counted}), 0) FROM {child.name} i "
                    f"WHERE i.{up[0]} = :{key} AND i.{ref} = {parent.name}.{pk}"
                )
                back = (
                    f"UPDATE {parent.name} SET {stock} = {stock} + ({given}) WHERE {pk} IN "
                    f"(SELECT {ref} FROM {child.name} WHERE {up[0]} = :{key})",
                    parent.name,
                    stock,
                )
                break
            if back is not None:
                break
        if back is None:
            continue
        sql, parent_name, stock = back
        out.append(
            _varied(
                cand,
                Variant(of=cand.id, how="restocking", column=f"{parent_name}.{stock}"),
                f"{cand.tool.name}_restocking",
                f"Puts what it took back on the {singular(parent_name)}'s {stock}.",
                [*cand.tool.run, sql],
                f"gives back to {parent_name}.{stock}",
                {"restocks": -1},
            )
        )
    return out


# the states a record leaves its place in, beside the cancellations: a refunded ticket's
# seat is for sale again (and a refund schedule's refunds, `generators.refunds`)
RELEASED = ("refunded",)


def releasings(schema: Schema, moved: list[Candidate]) -> list[Candidate]:
    """A cancellation or refund that gives back the place its record was counted in
    (`seats_sold`, `tickets_sold`): railway's cancel_ticket and refund_ticket left the
    trip's seats_sold as the sale made it, so a cancelled seat stayed sold (the audit of
    the runs on 82a0e57). Never below 0: a seed may count fewer than it holds."""
    out = []
    for cand in moved:
        if cand.sets is None or not (cand.pattern == "cancel" or cand.sets[2] in RELEASED):
            continue
        table = schema.table(cand.sets[0])
        key, own = table.primary_key[0], counted_column(table)
        for fk in table.foreign_keys:
            parent = schema.table(fk.ref_table)
            sold = sold_column(parent)
            if sold is None or len(fk.columns) != 1 or len(parent.primary_key) != 1:
                continue
            held = f"(SELECT {own} FROM {table.name} WHERE {key} = :{key})" if own else "1"
            back = (
                f"UPDATE {parent.name} SET {sold} = CASE WHEN {sold} >= {held} THEN {sold} - "
                f"{held} ELSE 0 END WHERE {parent.primary_key[0]} = (SELECT {fk.columns[0]} "
                f"FROM {table.name} WHERE {key} = :{key})"
            )
            out.append(
                _varied(
                    cand,
                    Variant(of=cand.id, how="releasing", column=f"{parent.name}.{sold}"),
                    f"{cand.tool.name}_releasing_{sold}",
                    f"Takes it off the {singular(parent.name)}'s {sold}.",
                    [*cand.tool.run, back],
                    f"takes off {parent.name}.{sold}",
                    {"releases": -1},
                )
            )
            break
    return out


def catalogue(
    schema: Schema, seed: dict[str, list[dict]], charged: list[Candidate] | None = None
) -> list[Candidate]:
    """Every candidate operation of this schema, writes first, each id and name once;
    `charged` are the operations the brief's allowance rules make (`allowances.charges`)."""
    # travel's create_flight_booking on f716f2d took the bag fees as a parameter: a new
    # booking charged whatever its user said, beside the tool that charges by the rule
    owned = frozenset((c.rows[c.main], col) for c in charged or [] for col in c.owns)
    made, moved = creates(schema, seed, owned), statuses(schema, seed)
    moved_rows = moves(schema, seed)
    found = [
        *transfers(schema, seed),
        *(charged or []),
        *made,
        *takings(schema, made),
        *moved,
        *restockings(schema, moved),
        *releasings(schema, moved),
        *adjustments(schema, seed),
        *usages(schema),
        *updates(schema, seed),
        *moved_rows,
        *moved_takings(schema, moved_rows),
        *moved_sellings(schema, moved_rows),
        *reads(schema),
    ]
    out, ids, names = [], set(), set()
    for cand in found:
        if cand.id not in ids and cand.tool.name not in names:
            ids.add(cand.id)
            names.add(cand.tool.name)
            out.append(cand)
    return out


# -- conditions ---------------------------------------------------------------------------

NUMERIC_OPS = ("<", "<=", ">", ">=", "=", "<>")


def condition_problems(cand: Candidate, cond: Condition, schema: Schema) -> list[str]:
    """What does not fit: each problem names the candidate and the field, for the model."""
    where = f"{cand.id}: condition {cond.kind}"
    if cond.kind == "guard":
        if cond.guard not in cand.guards:
            return [f"{where}: no built-in guard {cond.guard!r}; it has {sorted(cand.guards)}"]
        return []
    if case := _case_problems(cand, cond, schema):
        return [f"{where}: {case}"]
    if cond.kind == "either":
        return _either_problems(cand, cond, schema, where)
    if cond.cases:
        return [f"{where}: only a condition of kind either has cases"]
    if cond.kind in ("pair", "clock") or (cond.kind == "days_ahead" and not cond.column):
        return _parameter_problems(cand, cond, where)
    if cond.kind == "count" and cond.row == EVERY:
        return _every_problems(cand, cond, schema, where)
    table = None
    if cond.kind != "amount" or cond.column:
        try:
            table, _ = resolve_row(cand, cond.row or cand.main, schema)
        except ValueError as e:
            return [f"{where}: {e}"]
    if table is not None and cond.kind != "count" and cond.column not in table.column_names:
        return [f"{where}: table {table.name} has no column {cond.column!r}"]
    if cond.kind in ("value", "in") and table is not None:
        column = table.column(cond.column)
        said = [cond.value] if cond.kind == "value" else list(cond.values)
        if column.type in ("integer", "real") and not all(
            isinstance(v, int | float) or re.fullmatch(r"-?\d+(?:\.\d+)?", str(v)) for v in said
        ):
            # railway's 1.5B wrote train_id = 'first_class': a check no row ever passes
            return [f"{where}: {table.name}.{cond.column} is a number; {said} is not"]
        allowed = table.enum_values(cond.column)
        if allowed is not None and any(str(v) not in allowed for v in said):
            return [f"{where}: {table.name}.{cond.column} is one of {allowed}; not {said}"]
    if cond.kind == "value":
        if cond.op not in NUMERIC_OPS or cond.value is None:
            return [f"{where}: needs an op among {list(NUMERIC_OPS)} and a value"]
    elif cond.kind == "in":
        if not cond.values:
            return [f"{where}: needs values"]
    elif cond.kind == "amount":
        param = cond.parameter or cand.amount or ""
        types = cand.tool.param_types()
        if types.get(param) not in ("number", "integer"):
            numbers = sorted(p for p, t in types.items() if t in ("number", "integer"))
            return [f"{where}: parameter {param!r} is not a number parameter; it has {numbers}"]
        if cond.op not in NUMERIC_OPS:
            return [f"{where}: op must be one of {list(NUMERIC_OPS)}"]
        if (
            cond.column
            and table is not None
            and table.column(cond.column).type
            not in (
                "real",
                "integer",
            )
        ):
            return [f"{where}: column {cond.column!r} is not a number"]
        if not cond.column and not isinstance(cond.value, int | float):
            return [f"{where}: needs a number value, or a column (with a factor)"]
    elif cond.kind == "count":
        assert table is not None
        if cond.other_column:
            try:
                holder = resolve_row(cand, cond.other, schema)[0] if cond.other else table
            except ValueError as e:
                return [f"{where}: other {e}"]
            if cond.other_column not in holder.column_names:
                return [f"{where}: table {holder.name} has no column {cond.other_column!r}"]
            kind = holder.column(cond.other_column).type
            if kind != "integer" and not (cond.total and kind == "real"):
                return [f"{where}: {holder.name}.{cond.other_column} is no whole number"]
        elif cond.number is None or cond.number < 0:
            return [f"{where}: needs a number (the most rows allowed)"]
        child = next((t for t in schema.tables if t.name == cond.child), None)
        if child is None:
            return [f"{where}: no table {cond.child!r}"]
        if link(child, table) is None:
            return [f"{where}: {cond.child} rows do not belong to {table.name} rows"]
        if cond.column and cond.column not in child.column_names:
            return [f"{where}: table {child.name} has no column {cond.column!r}"]
        if cond.total and (
            cond.total not in child.column_names
            or child.column(cond.total).type not in ("integer", "real")
        ):
            return [f"{where}: total {cond.total!r} is no number column of {child.name}"]
        own = cand.creates == child.name and set(cond.per.split(",")) <= set(child.column_names)
        if cond.per and own and not set(cond.per.split(",")) <= set(cand.tool.param_types()):
            return [f"{where}: per {cond.per!r} is no parameter of {cand.id}"]
        if "." in cond.per:
            for part in cond.per.split(","):  # each "row.column", one per value shared
                path, field = part.rsplit(".", 1) if "." in part else ("", part)
                try:
                    peer: Table | None = resolve_row(cand, path, schema)[0]
                except ValueError:
                    peer = None
                apart = peer is not None and peer.name != child.name and link(child, peer) is None
                if peer is None or field not in peer.column_names or apart:
                    return [
                        f"{where}: per {cond.per!r} must be a row of it that {child.name} rows "
                        "belong to, a dot, and a column of that row's table (several: commas)"
                    ]
        elif (
            cond.per
            and not own
            and (
                cond.per not in cand.rows or link(child, schema.table(cand.rows[cond.per])) is None
            )
        ):
            return [
                f"{where}: per {cond.per!r} is no row of it that {child.name} rows belong to, "
                f"nor a column of the {child.name} row it creates"
            ]
    elif cond.kind in ("within_days", "within_hours", "days_ahead", "hours_ahead", "age"):
        assert table is not None
        if table.column(cond.column).type not in ("date", "datetime"):
            return [f"{where}: column {cond.column!r} is not a date"]
        if cond.number is None or cond.number < 0:
            unit = {"hours_ahead": "hours", "within_hours": "hours", "age": "years"}.get(
                cond.kind, "days"
            )
            return [f"{where}: needs a number of {unit}"]
    elif cond.kind == "compare":
        assert table is not None
        try:
            other, _ = resolve_row(cand, cond.other or cand.main, schema)
        except ValueError as e:
            return [f"{where}: other {e}"]
        if cond.other_column not in other.column_names:
            return [f"{where}: table {other.name} has no column {cond.other_column!r}"]
        if cond.op not in NUMERIC_OPS:
            return [f"{where}: op must be one of {list(NUMERIC_OPS)}"]
        kinds = {
            _comparable(table.column(cond.column)),
            _comparable(other.column(cond.other_column)),
        }
        if len(kinds) > 1:
            return [f"{where}: {cond.column!r} and {cond.other_column!r} are not alike ({kinds})"]
    return []


def _either_problems(cand: Candidate, cond: Condition, schema: Schema, where: str) -> list[str]:
    """Two or more cases, each a condition that fits on its own and holds always (a case
    inside a case would say "or, when X, Y", which no rule phrases)."""
    if len(cond.cases) < 2:
        return [f"{where}: needs two or more cases"]
    out = []
    for i, case in enumerate(cond.cases, 1):
        if case.kind in ("guard", "either") or case.if_parameter or case.if_column:
            out.append(
                f"{where}: case {i} must be a condition of another kind than guard or "
                "either, with no if_ fields"
            )
            continue
        out += condition_problems(cand, case, schema)
    return out


EVERY = "*"  # a count's row: every row of the child table, not those of one owner


def _every_problems(cand: Candidate, cond: Condition, schema: Schema, where: str) -> list[str]:
    """A count over the whole child table keyed by the new row's own values ("an email
    address can have at most 5 subscriptions"): the call makes such a row, and says them."""
    per = [p for p in cond.per.split(",") if p]
    child = next((t for t in schema.tables if t.name == cond.child), None)
    if child is None or cand.creates != child.name:
        return [f"{where}: row '*' counts rows of the table the call creates"]
    if not per or not set(per) <= set(child.column_names) & set(cand.tool.param_types()):
        return [f"{where}: row '*' needs per: columns of the new row the call is given"]
    if cond.column and cond.column not in child.column_names:
        return [f"{where}: table {child.name} has no column {cond.column!r}"]
    if cond.number is None or cond.number < 0:
        return [f"{where}: needs a number (the most rows allowed)"]
    return []


def _parameter_problems(cand: Candidate, cond: Condition, where: str) -> list[str]:
    """A condition on the call's own parameters: they exist and are alike."""
    types = cand.tool.param_types()
    names = [cond.parameter] + ([cond.other_parameter] if cond.kind == "pair" else [])
    missing = [n for n in names if n not in types]
    if missing:
        return [f"{where}: {missing[0]!r} is no parameter of {cand.id}; it has {sorted(types)}"]
    if cond.kind == "days_ahead":
        if types[cond.parameter] != "string" or cond.number is None or cond.number < 0:
            return [f"{where}: needs a date parameter and a number of days"]
        return []
    if cond.kind == "clock":
        hours = [v for v in cond.values if re.fullmatch(r"[0-2]\d:[0-5]\d", v)]
        if types[cond.parameter] != "string" or len(hours) != 2 or len(cond.values) != 2:
            return [f"{where}: needs a time parameter and two values 'HH:MM'"]
        return []
    if cond.op not in NUMERIC_OPS or cond.parameter == cond.other_parameter:
        return [f"{where}: needs two parameters and an op among {list(NUMERIC_OPS)}"]
    numeric = {types[n] in ("number", "integer") for n in names}
    if len(numeric) > 1:
        return [f"{where}: {names[0]!r} and {names[1]!r} are not alike"]
    return []


def _case_problems(cand: Candidate, cond: Condition, schema: Schema) -> str | None:
    """What does not fit in the one case a condition holds in, if it has one."""
    if not (cond.if_parameter or cond.if_column):
        return None
    if cond.if_value is None:
        return "a case (if_parameter or if_column) needs an if_value"
    if cond.if_parameter:
        prop = cand.tool.parameters.get("properties", {}).get(cond.if_parameter)
        if prop is None:
            return f"if_parameter {cond.if_parameter!r} is no parameter of {cand.tool.name}"
        allowed = prop.get("enum")
        if allowed and str(cond.if_value) not in map(str, allowed):
            return f"if_value {cond.if_value!r} is not one of {allowed}"
        return None
    try:
        table, _ = resolve_row(cand, cond.if_row or cand.main, schema)
    except ValueError as e:
        return f"if_row: {e}"
    if cond.if_column not in table.column_names:
        return f"table {table.name} has no column {cond.if_column!r}"
    allowed = table.enum_values(cond.if_column)
    if allowed is not None and str(cond.if_value) not in allowed:
        return f"if_value {cond.if_value!r} is not one of {allowed}"
    return None


def _case_sql(cand: Candidate, cond: Condition, schema: Schema) -> str | None:
    """The SQL test of the case a condition holds in, or None when it always holds."""
    if cond.if_parameter:
        return f":{cond.if_parameter} = {literal(cond.if_value)}"
    if cond.if_column:
        table, key = resolve_row(cand, cond.if_row or cand.main, schema)
        return (
            f"(SELECT {cond.if_column} FROM {table.name} WHERE {table.primary_key[0]} = {key}) "
            f"= {literal(cond.if_value)}"
        )
    return None


def _comparable(column: Column) -> str:
    return "number" if column.type in ("integer", "real") else column.type


def reachable(cand: Candidate, schema: Schema, hops: int = 2) -> list[tuple[str, Table]]:
    """Every row a condition of `cand` can read, as (row, table): its key parameters, then
    the rows they point at, up to `hops` foreign keys away."""
    out = [(p, schema.table(t)) for p, t in cand.rows.items()]
    frontier = list(out)
    for _ in range(hops):
        step = [
            (f"{row}.{fk.columns[0]}", schema.table(fk.ref_table))
            for row, table in frontier
            for fk in table.foreign_keys
            if len(fk.columns) == 1
        ]
        out += step
        frontier = step
    return out


def resolve_row(cand: Candidate, row: str, schema: Schema) -> tuple[Table, str]:
    """The table a condition's row is in and the SQL giving that row's key: a key parameter
    (":trip_id"), or one followed by foreign keys ("trip_id.train_id" is the train of the
    trip, found by a subquery), so a rule may read a row the operation does not name."""
    first, *hops = row.split(".")
    if first not in cand.rows:
        raise ValueError(f"row {first!r} is not one of its rows {sorted(cand.rows)}")
    table, key = schema.table(cand.rows[first]), f":{first}"
    for hop in hops:
        fk = next((f for f in table.foreign_keys if f.columns == [hop]), None)
        if fk is None:
            keys = sorted(f.columns[0] for f in table.foreign_keys if len(f.columns) == 1)
            raise ValueError(
                f"row {row!r}: {hop!r} is no foreign key of {table.name} (it has {keys})"
            )
        key = f"(SELECT {hop} FROM {table.name} WHERE {table.primary_key[0]} = {key})"
        table = schema.table(fk.ref_table)
    return table, key


def link(child: Table, parent: Table) -> tuple[str, str] | None:
    """(how child rows point at the parent row, sibling or direct): a direct key, or the
    same parent when child and parent are one table."""
    for fk in child.foreign_keys:
        if fk.ref_table == parent.name and len(fk.columns) == 1:
            return fk.columns[0], "direct"
    if child.name == parent.name:
        up = next((f for f in child.foreign_keys if len(f.columns) == 1), None)
        if up is not None:
            return up.columns[0], "sibling"
    return None


def condition_step(cand: Candidate, cond: Condition, schema: Schema, rule: str) -> RequireStep:
    """The require step of a condition that fits (see `condition_problems`); its error is the
    rule it enforces. A condition with a case passes outside it."""
    test, frm, alias = _condition_sql(cand, cond, schema)
    case = _case_sql(cand, cond, schema)
    if case is not None:
        test = f"NOT COALESCE({case}, 0) OR ({test})"
    return RequireStep(sql=f"SELECT {test} AS {alias}{frm}", error=rule)


_OTHER_END = {"start": "end", "starts": "ends", "begin": "end", "begins": "ends"}


def span(columns: Sequence[str]) -> tuple[str, str] | None:
    """(start, end) where two columns are the ends of one span (start_time, end_time)."""
    if len(columns) != 2:
        return None
    for first, last in (columns, columns[::-1]):
        if "_".join(_OTHER_END.get(w, w) for w in first.split("_")) == last != first:
            return first, last
    return None


def _same_as_new(per: str) -> str:
    """The rows whose `per` values are the new row's, or whose span overlaps its span: a
    doctor "has no other appointment at that time" clashes with one that overlaps, not only
    one that ends at the same minute (medicine's create_appointment on b5cbf4f)."""
    columns = [p for p in per.split(",") if p]
    if ends := span(columns):
        start, end = ends
        return f" AND {start} < :{end} AND {end} > :{start}"
    return "".join(f" AND {p} = :{p}" for p in columns)


def _condition_sql(cand: Candidate, cond: Condition, schema: Schema) -> tuple[str, str, str]:
    """(the test, the FROM clause it reads, its name) of a condition."""
    if cond.kind == "guard":  # already a step (or, for close_at_zero, the write itself)
        raise ValueError("a built-in guard has no new step")
    if cond.kind == "either":  # each case's test on its own row, a missing row failing it
        tests = []
        for case in cond.cases:
            test, frm, _ = _condition_sql(cand, case, schema)
            tests.append(f"COALESCE((SELECT {test}{frm}), 0)" if frm else f"COALESCE({test}, 0)")
        return " OR ".join(tests), "", "ok"
    if cond.kind == "pair":
        return f":{cond.parameter} {cond.op} :{cond.other_parameter}", "", "ok"
    if cond.kind == "days_ahead" and not cond.column:
        return f"julianday(:{cond.parameter}) - julianday(:_now) >= {cond.number}", "", "ok"
    if cond.kind == "count" and cond.row == EVERY:
        filt = f" AND {cond.column} = {literal(cond.value)}" if cond.column else ""
        filt += _same_as_new(cond.per)
        adds = "1" if cond.number != 0 and _adds(cand, cond) else "0"
        return (
            f"COUNT(*) + {adds} <= {cond.number}",
            f" FROM {cond.child} WHERE 1 = 1{filt}",
            "within_limit",
        )
    if cond.kind == "clock":  # "19:30", "19:30:00" or "2025-01-20T19:30:00"
        p = f":{cond.parameter}"
        hour = f"(CASE WHEN length({p}) > 8 THEN substr({p}, 12, 5) ELSE substr({p}, 1, 5) END)"
        low, high = (literal(v) for v in cond.values)
        return f"{hour} >= {low} AND {hour} <= {high}", "", "ok"
    table, key = None, ""
    if cond.kind != "amount" or cond.column:
        table, key = resolve_row(cand, cond.row or cand.main, schema)
    frm = f" FROM {table.name} WHERE {table.primary_key[0]} = {key}" if table else ""
    if cond.kind == "value":
        lit = literal(cond.value)
        test = (
            f"({cond.column} IS NULL OR {cond.column} <> {lit})"
            if cond.op == "<>"
            else f"{cond.column} {cond.op} {lit}"
        )
    elif cond.kind == "in":
        listed = ", ".join(literal(v) for v in cond.values)
        test = f"{cond.column} {'NOT IN' if cond.op == 'not in' else 'IN'} ({listed})"
        if cond.op == "not in":
            test = f"({cond.column} IS NULL OR {test})"
    elif cond.kind == "amount":
        param = cond.parameter or cand.amount
        if cond.column:
            factor = cond.factor if cond.factor is not None else 1
            test = f":{param} {cond.op} {factor!r} * {cond.column}"
        else:
            test, frm = f":{param} {cond.op} {literal(cond.value)}", ""
    elif cond.kind == "count":
        assert table is not None
        child = schema.table(cond.child)
        fk, how = link(child, table) or ("", "")
        owner = (
            f"(SELECT {fk} FROM {table.name} WHERE {table.primary_key[0]} = {key})"
            if how == "sibling"
            else key
        )
        filt = f" AND {cond.column} = {literal(cond.value)}" if cond.column else ""
        if not cond.column and (state := child.status()):
            # a cancelled booking holds no seat: movie on 3d6f8ed counted 36 seats booked
            # for a showtime with 26 live, and refused a booking the screen had room for
            void = [v for v in state[1] if v in VOIDED]
            filt += f" AND {state[0]} NOT IN ({', '.join(map(literal, void))})" if void else ""
        if cond.per in cand.rows:
            also, _ = link(child, schema.table(cand.rows[cond.per])) or ("", "")
            filt += f" AND {also} = :{cond.per}"
        elif "." in cond.per:  # "in the same term": rows whose course has this course's term
            for part in cond.per.split(","):  # a moved reservation's own date and time slot
                path, column = part.rsplit(".", 1)
                peer, peer_key = resolve_row(cand, path, schema)
                pk = peer.primary_key[0]
                same = f"(SELECT {column} FROM {peer.name} WHERE {pk} = {peer_key})"
                if peer.name == child.name:  # a moved record's own: rows with its course_id
                    filt += f" AND {column} = {same}"
                else:
                    also, _ = link(child, peer) or ("", "")
                    filt += f" AND {also} IN (SELECT {pk} FROM {peer.name} WHERE {column} = {same})"
        elif cond.per:  # columns of the new row: those with the same values
            filt += _same_as_new(cond.per)
        if cand.pattern == "move" and cand.rows[cand.main] == child.name and _adds(cand, cond):
            # the moved record is counted where it goes (`_adds`), never where it is
            filt += f" AND {child.primary_key[0]} <> :{cand.main}"
        adds = "1" if cond.number != 0 and _adds(cand, cond) else "0"  # 0: none before it
        if adds == "1" and cand.pattern == "move" and cond.column:
            # the moved record is one more only where it is one of those counted: weather's
            # expired warning moved into a region with an active one breaks no "one active
            # alert of a type per region"
            adds = (
                f"(SELECT COUNT(*) FROM {child.name} WHERE {child.primary_key[0]} = "
                f":{cand.main} AND {cond.column} = {literal(cond.value)})"
            )
        holder, holder_key = resolve_row(cand, cond.other, schema) if cond.other else (table, key)
        most = (
            f"(SELECT {cond.other_column} FROM {holder.name} "
            f"WHERE {holder.primary_key[0]} = {holder_key})"
            if cond.other_column
            else str(cond.number)
        )
        counted = "COUNT(*)"
        if cond.total:  # the sum of a quantity, and the new row's own
            counted, adds = f"COALESCE(SUM({cond.total}), 0)", "0"
            if cond.total in cand.tool.param_types() and _adds(cand, cond):
                counted += f" + :{cond.total}"  # the new row's own
            elif (cand.pattern == "move" or cand.sets) and _adds(cand, cond):
                # the moved row's, where it goes; the row a status change brings into the
                # state summed, its own (basketball's activated contract, its salary)
                counted += (
                    f" + (SELECT {cond.total} FROM {child.name} "
                    f"WHERE {child.primary_key[0]} = :{cand.main})"
                )
        test = f"{counted} + {adds} <= {most}"
        if adds.startswith("("):
            # a moved record not of the state counted adds none, and breaks no limit however
            # many are there: weather's seed holds 3 active advisories in Greenland, and a
            # cancelled one moved there was refused by this rule (weather-intent-00178)
            test = f"{adds} = 0 OR {test}"
        return test, f" FROM {child.name} WHERE {fk} = {owner}{filt}", "within_limit"
    elif cond.kind == "within_days":
        test = f"julianday(:_now) - julianday({cond.column}) <= {cond.number}"
    elif cond.kind == "within_hours":
        test = f"(julianday(:_now) - julianday({cond.column})) * 24 <= {cond.number}"
    elif cond.kind == "age":
        test = f"julianday(:_now) - julianday({cond.column}) >= {cond.number} * 365.25"
    elif cond.kind == "compare":
        other, other_key = resolve_row(cand, cond.other or cand.main, schema)
        test = (
            f"{cond.column} {cond.op} (SELECT {cond.other_column} FROM {other.name} "
            f"WHERE {other.primary_key[0]} = {other_key})"
        )
    elif cond.kind == "hours_ahead":
        test = f"(julianday({cond.column}) - julianday(:_now)) * 24 > {cond.number}"
    else:  # days_ahead
        test = f"julianday({cond.column}) - julianday(:_now) >= {cond.number}"
    return test, frm, "ok"


def _adds(cand: Candidate, cond: Condition) -> bool:
    """Whether the operation itself adds a row to what the count counts."""
    if cand.creates == cond.child:
        if not cond.column:
            return True
        return cond.value is not None and str(cond.value) in cand.tool.run[0]
    if cand.sets is not None:
        table, column, value = cand.sets
        return table == cond.child and column == cond.column and str(cond.value) == value
    # a record moved under the counted row is one more of its own there (where it is of
    # the state counted: `_condition_sql` reads the moved row's own)
    return (
        cand.pattern == "move" and cand.rows.get(cand.main) == cond.child and cond.row != cand.main
    )


def with_conditions(
    cand: Candidate, steps: list[RequireStep], name: str = "", description: str = ""
) -> Tool:
    """The candidate's tool with extra require steps (after the built-ins, before any
    write), then its own checks, each once, and the chosen name and description."""
    require = list(cand.tool.require)
    said = description
    if _restates_transition(cand, steps):
        # the rule says from which states: ecommerce's cancel kept its own "from pending,
        # shipped or delivered" beside the brief's "only while pending or paid", so a paid
        # order was refused against the policy, and only pending ones could be cancelled
        del require[cand.guards["transition"]]
        said = description or re.sub(r" \(allowed from [^)]*\)", "", cand.tool.description)
        steps = _from_states_said_as_such(cand, steps)
    if cand.amount and "positive" in cand.guards and _bounds(cand.amount, steps):
        # the rule says how low it may go: school's "a grade score must be between 0 and
        # 100" beside the pattern's "must be > 0" refused a grade of 0 the rule allows
        positive = cand.tool.require[cand.guards["positive"]]
        require = [r for r in require if r.sql != positive.sql]
    for step in [*steps, *cand.checks]:
        if all(step.sql != r.sql for r in require):
            require.append(step)
    update: dict = {"require": require}
    if name:
        update["name"] = name
    if said:
        update["description"] = said
    return Tool.model_validate({**cand.tool.model_dump(), **update})


def _bounds(param: str, steps: list[RequireStep]) -> bool:
    """A rule's step sets the parameter's least value (`:grade_score >= 0.0`)."""
    low = re.compile(rf"^\s*SELECT\s+:{re.escape(param)}\s*>=?\s*-?[\d.]+\s+AS\b", re.I)
    return any(low.search(step.sql) for step in steps)


def _restates_transition(cand: Candidate, steps: list[RequireStep]) -> bool:
    """A rule's step names the states the change is allowed from, on the row it changes."""
    return any(_from_states(cand, step) for step in steps)


def _from_states(cand: Candidate, step: RequireStep) -> list[str]:
    """The states a rule's step allows the change from, where it reads the changed row's
    own column (`SELECT status IN ('frozen') AS ok FROM cards ...`), else none."""
    if cand.sets is None or "transition" not in cand.guards:
        return []
    table, column, _ = cand.sets
    # the FROM of the select itself: basketball's refund rule on 65cb0f1 read the game's
    # status through the ticket (`FROM games WHERE game_id = (SELECT ... FROM tickets`),
    # was taken for the ticket's own, and the refund lost its "only an active ticket" guard
    states = re.compile(
        rf"^\s*SELECT\s+{column}\s+IN\s*\(([^)]*)\)(?:\s+AS\s+\w+)?\s+FROM\s+{table}\b",
        re.I,
    )
    m = states.search(step.sql)
    return re.findall(r"'((?:[^']|'')*)'", m.group(1)) if m else []


def _from_states_said_as_such(cand: Candidate, steps: list[RequireStep]) -> list[RequireStep]:
    """A rule's step of the states a change starts from, beside another step of the same
    rule, refuses with the transition's own words: finance's "A frozen card cannot be
    unfrozen by the agent if it was reported stolen (its frozen_reason is stolen)" was
    mapped onto `frozen_reason <> 'stolen'` and `status IN ('frozen')`, so a card whose
    status is reported_stolen, its frozen_reason empty, was refused as one whose
    frozen_reason is stolen (finance-intent-00038 on e4504b8). A rule of the states alone
    ("an order can be cancelled only while pending or paid") keeps its own words."""
    assert cand.sets is not None
    table, column, target = cand.sets
    out: list[RequireStep] = []
    for step in steps:
        states = _from_states(cand, step)
        if states and any(s.error == step.error and s is not step for s in steps):
            step = RequireStep(sql=step.sql, error=_only_from(table, column, states, target))
        out.append(step)
    return out
