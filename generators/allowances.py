"""Allowances: a rule that gives each tier of customer so many of a thing free and charges
for each one beyond ("free checked bags per passenger on a flight booking are 2 for gold
members, 1 for silver and 0 for regular; each extra bag costs 50").

No refusal enforces such a rule: the operation that adds to the count must charge for what
goes over. The rule is read once here, for the schema (the columns it needs) and for the
catalogue (the operation that adds and charges), so both read it alike; the seed's fees
are settled by it too, so a record holds what the operation would have charged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from generators.patterns import Candidate, literal, pattern_tool, still_open
from generators.toolkit import param_schema, row_exists
from toolscale.schema import Scalar, Schema, Table
from toolscale.tool import RequireStep
from toolscale.wording import record_phrase, singular, with_article

_FREE = re.compile(
    r"\bfree (?P<thing>[a-z]+(?: [a-z]+)?) (?:per (?P<per>[a-z]+) )?(?:(?:on|of|for|with) "
    r"(?:an? |the |each )?(?P<record>[a-z]+(?: [a-z]+)?) )?(?:are|is) (?P<tiers>[^;.]+)"
)
_TIER = re.compile(r"(\d+) for (?:an? )?([a-z_]+)")
_PRICE = re.compile(
    r"\beach (?:extra|additional|further) [a-z]+ costs? (?:\$|usd )?(\d+(?:\.\d+)?)"
)
TIER_WORDS = ("tier", "member", "level", "loyalty", "plan")  # a column naming a tier


class Allowance(BaseModel):
    """What an allowance rule says: `free[tier]` of `thing` per `per` (a count column of the
    record, where it has one), and `price` for each one beyond."""

    model_config = ConfigDict(extra="forbid")

    thing: str  # "checked bags"
    record: str = ""  # "flight booking": the record the count is on, where the rule says
    per: str = ""  # "passenger": the allowance is for each one the record holds
    free: dict[str, int]  # tier -> how many are free
    price: float

    @property
    def column(self) -> str:
        """The count's column: "checked bags" is `checked_bags`."""
        return self.thing.replace(" ", "_")

    @property
    def fee_column(self) -> str:
        """Where the charges add up: `bag_fees`."""
        return f"{singular(self.thing.split()[-1])}_fees"


def allowance_said(rule: str) -> Allowance | None:
    """The allowance a rule states, or None where it states none (or only in part)."""
    text = rule.lower()
    free, price = _FREE.search(text), _PRICE.search(text)
    if free is None or price is None:
        return None
    tiers = {tier: int(n) for n, tier in _TIER.findall(free["tiers"])}
    if len(tiers) < 2:
        return None
    return Allowance(
        thing=free["thing"],
        record=free["record"] or "",
        per=free["per"] or "",
        free=tiers,
        price=float(price.group(1)),
    )


def count_column(table: Table, allowance: Allowance) -> str | None:
    """The column counting the thing: `checked_bags`, or one named for its noun (`bags`)."""
    head = allowance.thing.split()[-1]
    ints = [c.name for c in table.columns if c.type == "integer"]
    if allowance.column in ints:
        return allowance.column
    return next((c for c in ints if head in c.split("_") or singular(head) in c.split("_")), None)


def tier_column(table: Table, allowance: Allowance) -> str | None:
    """The column whose values are the rule's tiers (at least two of them)."""
    for column in table.columns:
        values = table.enum_values(column.name) or []
        if len(set(values) & set(allowance.free)) >= 2:
            return column.name
    return None


def charges(schema: Schema, rules: list[str]) -> list[Candidate]:
    """For each allowance rule the schema can hold, the write that adds to the count and
    charges for what goes beyond the allowance of the owner's tier: its fee column grows by
    the price of each one over, counted from what the record already held."""
    out = []
    for rule in rules:
        allowance = allowance_said(rule)
        if allowance is None:
            continue
        for table in schema.tables:
            cand = _charging(schema, table, allowance)
            if cand is not None:
                out.append(cand)
                break
    return out


@dataclass(frozen=True)
class Charged:
    """Where an allowance is kept: `table`'s `count` of the thing and the `fee` charged for
    it, the tier on `owner.tier` (through `ref`), and the `per` count it is for each of."""

    table: Table
    count: str
    fee: str
    owner: Table
    tier: str
    ref: str
    per: str | None


def charged_columns(schema: Schema, table: Table, allowance: Allowance) -> Charged | None:
    """The columns the allowance is kept in on `table`, or None where it has not all of them
    (nothing to charge by, or nowhere to charge to: not enforced)."""
    if not table.primary_key or len(table.primary_key) != 1:
        return None
    if allowance.record and record_phrase(table.name) != allowance.record:
        return None
    count = count_column(table, allowance)
    if count is None:
        return None
    holder = None
    for fk in table.foreign_keys:  # the tier is the owner's, one key up
        owner = schema.table(fk.ref_table)
        tier = tier_column(owner, allowance)
        if len(fk.columns) == 1 and tier is not None and len(owner.primary_key) == 1:
            holder = (owner, tier, fk.columns[0])
            break
    fee = next(
        (
            c.name
            for c in table.columns
            if c.type in ("real", "integer")
            and c.name != count
            and re.search(r"fee|charge", c.name)
        ),
        None,
    )
    if holder is None or fee is None:
        return None
    per = next(
        (
            c.name
            for c in table.columns
            if c.type == "integer"
            and allowance.per
            and singular(allowance.per) in map(singular, c.name.split("_"))
        ),
        None,
    )
    return Charged(table, count, fee, *holder, per)


def settled(
    seed: dict[str, list[dict[str, Scalar]]], schema: Schema, rules: list[str]
) -> dict[str, list[dict[str, Scalar]]]:
    """The seed with each record's fees what its allowance charges for the count it holds:
    travel's plan drew `bag_fees` apart from `checked_bags` (167.58 charged for no bags, on
    7e55d3f), where the charging write counts from what a record holds."""
    out = dict(seed)
    for rule in rules:
        allowance = allowance_said(rule)
        if allowance is None:
            continue
        at = next((c for t in schema.tables if (c := charged_columns(schema, t, allowance))), None)
        if at is None:
            continue
        okey = at.owner.primary_key[0]
        tiers = {r.get(okey): r.get(at.tier) for r in seed.get(at.owner.name, [])}
        rows = seed.get(at.table.name, [])
        out[at.table.name] = [{**r, at.fee: _fee(r, allowance, at, tiers)} for r in rows]
    return out


def _fee(row: dict[str, Scalar], allowance: Allowance, at: Charged, tiers: dict) -> float:
    """What the allowance charges for the count `row` holds, `tiers` its owners' tiers."""
    held, per = row.get(at.count), row.get(at.per) if at.per else 1
    count = held if isinstance(held, int) else 0
    free = allowance.free.get(str(tiers.get(row.get(at.ref))), 0)
    return round(allowance.price * max(0, count - free * (per if isinstance(per, int) else 1)), 2)


def _charging(schema: Schema, table: Table, allowance: Allowance) -> Candidate | None:
    at = charged_columns(schema, table, allowance)
    if at is None:
        return None
    count, fee, owner, tier, ref, per = at.count, at.fee, at.owner, at.tier, at.ref, at.per
    key, noun = table.primary_key[0], singular(table.name)
    tier_sql = (
        f"(SELECT {tier} FROM {owner.name} WHERE {owner.primary_key[0]} = "
        f"(SELECT {ref} FROM {table.name} WHERE {key} = :{key}))"
    )
    cases = " ".join(f"WHEN {literal(t)} THEN {n}" for t, n in allowance.free.items())
    free = f"(CASE {tier_sql} {cases} ELSE 0 END)"
    if per is not None:
        free = f"{free} * {per}"

    def over(held: str) -> str:
        return f"(CASE WHEN {held} > {free} THEN {held} - {free} ELSE 0 END)"

    held = f"COALESCE({count}, 0)"

    price = f"{allowance.price:g}"
    # the parameter is named for the thing: "amount" came back as the fact "Amount is 1"
    # (travel-intent-00005 on ade7166)
    n = allowance.thing.split()[-1]
    charged = f"{price} * ({over(f'{held} + :{n}')} - {over(held)})"
    # one UPDATE: both sides read the count as it was before the call
    sets = [f"{fee} = COALESCE({fee}, 0) + {charged}", f"{count} = COALESCE({count}, 0) + :{n}"]
    tiers = ", ".join(f"{n} for {t}" for t, n in allowance.free.items())
    said = (
        f"Add {allowance.thing} to {with_article(noun)}. Free {allowance.thing}"
        + (f" per {allowance.per}" if per else "")
        + f": {tiers} ({owner.name}.{tier}); each one beyond costs {price}, added to its {fee}."
    )
    tool = pattern_tool(
        f"add_{noun}_{count}",
        said,
        "write",
        {
            key: param_schema(table.column(key), f"the {key} of the {noun}"),
            n: {"type": "integer", "description": f"how many {allowance.thing} to add"},
        },
        [
            row_exists(table),
            RequireStep(sql=f"SELECT :{n} > 0 AS positive", error=f"The {n} must be > 0."),
        ],
        [f"UPDATE {table.name} SET {', '.join(sets)} WHERE {key} = :{key}"],
        f"SELECT {key}, {count}, {fee} FROM {table.name} WHERE {key} = :{key}",
        single=True,
    )
    return Candidate(
        id=f"charge:{table.name}.{count}",
        pattern="charge",
        summary=f"add to {table.name}.{count}, charging {price} for each beyond the "
        f"allowance of {owner.name}.{tier} into {fee}",
        rows={key: table.name},
        main=key,
        amount=n,
        guards={"exists": 0, "positive": 1, "charges": -1},
        owns=[count, fee],
        # no bags on a refunded booking (travel-intent-00059 on 0651c04)
        checks=still_open(table, "added to"),
        tool=tool,
    )
