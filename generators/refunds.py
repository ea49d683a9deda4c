"""Refund schedules: a rule that sets what a refund gives back by how early it is asked for
("the refund is the full price more than 24 hours before departure, otherwise half the
price").

No refusal enforces such a rule: the write that refunds must work the amount out, so no
caller picks it. The rule is read once here, for the schema (the price and the amount it
needs), for the catalogue (the refund that works the amount out) and for the seed (a
refunded record holds an amount the schedule gives), so all three read it alike. Railway's
1.5B schema had no price, and its refund rule was enforced in part on every run up to
82a0e57.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

from generators.patterns import RELEASED, Candidate, reachable, resolve_row
from toolscale.schema import Scalar, Schema, Table
from toolscale.wording import singular, words

_SCHEDULE = re.compile(
    r"\bthe refund is (?:the )?full (?P<measure>[a-z_]+) (?:if |when )?(?:more than|over|at "
    r"least) (?P<number>\d+(?:\.\d+)?) (?P<unit>hours?|days?) before (?:the )?(?:[a-z]+'s )?"
    r"(?P<moment>[a-z_]+)[,;]? (?:and )?otherwise (?P<share>half|a third|a quarter|\d+%) "
    r"(?:of )?the (?P=measure)\b"
)
_SHARES = {"half": 0.5, "a third": 1 / 3, "a quarter": 0.25}


class Schedule(BaseModel):
    """What a refund rule says: the full `measure` when asked more than `hours` before the
    record's `moment`, otherwise `share` of it."""

    model_config = ConfigDict(extra="forbid")

    measure: str  # "price"
    hours: float
    moment: str  # "departure"
    share: float

    @property
    def amount_column(self) -> str:
        """Where a refund's amount is kept: `refund_amount`."""
        return "refund_amount"


def schedule_said(rule: str) -> Schedule | None:
    """The refund schedule a rule states, or None where it states none."""
    m = _SCHEDULE.search(rule.lower())
    if m is None:
        return None
    share = m["share"]
    hours = float(m["number"]) * (24 if m["unit"].startswith("day") else 1)
    return Schedule(
        measure=m["measure"],
        hours=hours,
        moment=m["moment"],
        share=float(share[:-1]) / 100 if share.endswith("%") else _SHARES[share],
    )


def amount_column(table: Table, target: str) -> str | None:
    """The column a refund into `target` records its amount in: a number with a meaning
    only in that state (`refund_amount` for refunded)."""
    return next(
        (
            c.name
            for c in table.columns
            if c.type in ("real", "integer")
            and table.state_of(c.name) == target
            and {"refund", "amount", "refunded"} & set(words(c.name))
        ),
        None,
    )


def measure_column(table: Table, schedule: Schedule) -> str | None:
    """The record's own column of what the refund gives back (`price`, `ticket_price`)."""
    return next(
        (
            c.name
            for c in table.columns
            if c.type in ("real", "integer") and schedule.measure in words(c.name)
        ),
        None,
    )


def _moment(cand: Candidate, schema: Schema, schedule: Schedule) -> tuple[str, Table, str] | None:
    """(row, table, column) of the moment the refund is timed against ("departure": the
    trip's departure_time), the record's own first."""
    for row, table in reachable(cand, schema):
        for column in table.columns:
            said = schedule.moment in (column.name, *words(column.name))
            if column.type in ("date", "datetime") and said:
                return row, table, column.name
    return None


def refunding(cands: list[Candidate], schema: Schema, rules: list[str]) -> list[Candidate]:
    """The candidates with each refund a schedule rule governs working its amount out: the
    full measure more than so many hours before the moment, otherwise the share (rounded
    to cents), where the caller had named the amount."""
    schedules = [s for s in map(schedule_said, rules) if s is not None]
    return [_refund(c, schema, schedules) for c in cands]


def _refund(cand: Candidate, schema: Schema, schedules: list[Schedule]) -> Candidate:
    if cand.sets is None or cand.sets[2] not in RELEASED:
        return cand
    table = schema.table(cand.sets[0])
    amount = amount_column(table, cand.sets[2])
    if amount is None or f"{amount} = :{amount}" not in cand.tool.run[0]:
        return cand
    for schedule in schedules:
        measure, found = measure_column(table, schedule), _moment(cand, schema, schedule)
        if measure is None or found is None:
            continue
        row, moment, column = found
        other, key = resolve_row(cand, row, schema)
        when = f"(SELECT {column} FROM {other.name} WHERE {other.primary_key[0]} = {key})"
        early = f"(julianday({when}) - julianday(:_now)) * 24 > {schedule.hours:g}"
        worked = (
            f"CASE WHEN {early} THEN {measure} ELSE ROUND({measure} * {schedule.share:g}, 2) END"
        )
        props = {p: s for p, s in cand.tool.parameters["properties"].items() if p != amount}
        required = [p for p in cand.tool.parameters.get("required", []) if p != amount]
        said = (
            f" Records its {amount}: the full {measure} more than {schedule.hours:g} hours "
            f"before the {singular(moment.name)}'s {column}, otherwise "
            f"{schedule.share:g} of it."
        )
        tool = cand.tool.model_copy(
            update={
                "parameters": cand.tool.parameters | {"properties": props, "required": required},
                "run": [cand.tool.run[0].replace(f":{amount}", worked), *cand.tool.run[1:]],
                "description": cand.tool.description.replace(f" Records its {amount}.", said),
            }
        )
        return cand.model_copy(
            update={"tool": tool, "summary": f"{cand.summary}; {amount} by rule"}
        )
    return cand


def schedule_columns(schedule: Schedule, table: Table) -> list[tuple[str, str]]:
    """(name, type) of the columns a record refunded by the schedule lacks: its measure
    (`price`) and where a refund's amount is kept, the latter only where it can be
    refunded at all."""
    found = table.status()
    if found is None or not set(found[1]) & set(RELEASED):
        return []
    out = [] if measure_column(table, schedule) else [(schedule.measure, "real")]
    refunded = any(amount_column(table, state) for state in RELEASED)
    return out + ([] if refunded else [(schedule.amount_column, "real")])


def settled(
    seed: dict[str, list[dict[str, Scalar]]], schema: Schema, rules: list[str]
) -> dict[str, list[dict[str, Scalar]]]:
    """The seed with each refunded record's amount one the schedule gives: the full measure
    (the plan drew the amount apart from the price, so a refund could exceed what was
    paid)."""
    out = dict(seed)
    for schedule in filter(None, map(schedule_said, rules)):
        for table in schema.tables:
            found = table.status()
            measure = measure_column(table, schedule)
            if found is None or measure is None:
                continue
            for state in set(found[1]) & set(RELEASED):
                amount = amount_column(table, state)
                if amount is None:
                    continue
                out[table.name] = [
                    {**r, amount: r.get(measure)} if r.get(found[0]) == state else r
                    for r in out.get(table.name, [])
                ]
    return out
