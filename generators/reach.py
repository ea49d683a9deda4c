"""Seed rows a guarded write can act on. The data plan draws a balance from a range, so no
finance account held exactly 0 and `close_account` ("only when its balance is exactly 0")
was refused on every one of its 57 rows: every task about closing was a refusal, and no
agent could learn to close an account. Where a write on one row is refused on every seed
row by a step that asks a column of that row to equal a value (or the row to have no
child of a kind: school's "drop ... only while no grade has been recorded for it", where
every enrollment had a grade), a few rows are given that value (their children of that
kind left out), each only where the write then succeeds (the other rules and the CHECKs
still hold).
A step that asks a date of a row to lie within some days of now (ecommerce's "a return can
be opened only ... within 30 days of its delivered_date", where every delivered order of
the seed lay 110 days or more behind the clock) has a few rows moved in time so that their
date does: every date of the row moves by the same days, so the row still reads in order.
Deterministic: the same environment gives the same rows.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field

from toolscale.environment import Environment
from toolscale.schema import Scalar
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool, ToolCall

SHARE = 10  # one row in this many is given the value the write needs...
FEWEST = 2  # ...and at least this many
TRIES = 200  # rows tried per write: a 100,000-row seed is not walked
PROBE = "reach_probe_set"  # the tool that gives a row the value, in a probe only

_EQUALS = re.compile(
    r"^\s*SELECT\s+(?P<column>\w+)\s*=\s*(?P<value>'[^']*'|-?\d+(?:\.\d+)?)\s+AS\s+\w+\s+"
    r"FROM\s+(?P<table>\w+)\s+WHERE\s+(?P<key>\w+)\s*=\s*:(?P<param>\w+)\s*$",
    re.IGNORECASE,
)

_NONE = re.compile(  # "no grade has been recorded for it": none of its child rows (with ...)
    r"^\s*SELECT\s+COUNT\(\*\)\s*\+\s*0\s*<=\s*0\s+AS\s+\w+\s+FROM\s+(?P<child>\w+)\s+"
    r"WHERE\s+(?P<fk>\w+)\s*=\s*:(?P<param>\w+)(?P<also>(?:\s+AND\s+\w+\s*=\s*'[^']*')*)\s*$",
    re.IGNORECASE,
)
_ALSO = re.compile(r"AND\s+(\w+)\s*=\s*'([^']*)'", re.IGNORECASE)

_WITHIN = re.compile(  # "within 30 days of its delivered_date"
    r"^\s*SELECT\s+julianday\(:_now\)\s*-\s*julianday\((?P<column>\w+)\)\s*<=\s*"
    r"(?P<days>\d+)(?:\.0+)?\s+AS\s+\w+\s+FROM\s+(?P<table>\w+)\s+WHERE\b",
    re.IGNORECASE,
)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")

Seed = dict[str, list[dict[str, Scalar]]]


@dataclass
class Reach:
    """The seed with the rows given what a write needs, and what was done."""

    seed: Seed
    given: dict[str, list[str]] = field(default_factory=dict)  # write -> "accounts 12: balance = 0"
    unreached: list[str] = field(default_factory=list)  # writes still acting on no seed row


def one_row(tool: Tool, spec: EnvironmentSpec) -> tuple[str, str] | None:
    """(parameter, table) of a write whose only parameter names one row by its key."""
    params = list(tool.parameters.get("properties", {}))
    if tool.kind != "write" or len(params) != 1:
        return None
    for table in spec.schema_.tables:
        if table.primary_key == params:
            return params[0], table.name
    return None


def _needs(tool: Tool, param: str, table: str) -> dict[str, str]:
    """column -> SQL literal: the steps asking the row itself to hold a value."""
    out = {}
    for step in tool.require:
        m = _EQUALS.match(step.sql)
        if m and m["table"] == table and m["param"] == param:
            out[m["column"]] = m["value"]
    return out


def _none_of(tool: Tool, param: str, spec: EnvironmentSpec) -> list[tuple[str, str, dict]]:
    """(child table, its column naming the row, values it must also hold) of each step
    asking that the row have no such child; only children no table points at, so that
    leaving some out breaks no reference."""
    pointed = {fk.ref_table for t in spec.schema_.tables for fk in t.foreign_keys}
    out = []
    for step in tool.require:
        m = _NONE.match(step.sql)
        if m and m["param"] == param and m["child"] not in pointed:
            out.append((m["child"], m["fk"], dict(_ALSO.findall(m["also"]))))
    return out


def _value(literal: str) -> Scalar:
    if literal.startswith("'"):
        return literal[1:-1]
    return float(literal) if "." in literal else int(literal)


def _probe(
    param: str, table: str, needs: dict[str, str], none: list[tuple[str, str, dict]], key_type: dict
) -> Tool:
    run = []
    if needs:
        sets = ", ".join(f"{c} = {v}" for c, v in needs.items())
        run.append(f"UPDATE {table} SET {sets} WHERE {param} = :{param}")
    for child, fk, also in none:
        where = "".join(f" AND {c} = '{v}'" for c, v in also.items())
        run.append(f"DELETE FROM {child} WHERE {fk} = :{param}{where}")
    return Tool(
        name=PROBE,
        description="Gives a row what a write needs (reach probe only).",
        kind="write",
        parameters={"type": "object", "properties": {param: key_type}, "required": [param]},
        run=run,
    )


def reach(spec: EnvironmentSpec) -> Reach:
    """The seed with, for each write on one row that no seed row lets succeed, up to one row
    in SHARE given the values its steps ask for, where the write then succeeds."""
    seed = {name: [dict(r) for r in rows] for name, rows in spec.seed.items()}
    out = Reach(seed=seed)
    out.given.update(_windows(spec, seed))
    spec = spec.model_copy(update={"seed": seed})
    stuck = []
    with Environment(spec) as env:
        for tool in spec.tools:
            at = one_row(tool, spec)
            if at is not None and not _acts(env, tool, at, seed):
                stuck.append((tool, *at))
    for tool, param, table in stuck:
        rows = seed.get(table, [])
        every = _needs(tool, param, table)
        # a value some row holds already (the state a change starts from) is first looked
        # for, not given: school's drop needs an active enrollment, not a completed one
        # made active; finance's zero balance, held only by closed accounts, is then given
        unheld = {c: v for c, v in every.items() if all(r.get(c) != _value(v) for r in rows)}
        none = _none_of(tool, param, spec)
        chosen: list[dict[str, Scalar]] = []
        for needs in [unheld] if unheld == every else [unheld, every]:
            if needs or none:  # on the seed as the writes before have left it
                now = spec.model_copy(update={"seed": seed})
                chosen = _chosen(now, tool, param, table, needs, none, rows)
            if chosen:
                break
        if not chosen:
            out.unreached.append(tool.name)
            continue
        for row in chosen:
            row.update({c: _value(v) for c, v in needs.items()})
        keys = {row[param] for row in chosen}
        for child, fk, also in none:
            seed[child] = [
                r
                for r in seed.get(child, [])
                if r.get(fk) not in keys or any(str(r.get(c)) != v for c, v in also.items())
            ]
        said = ", ".join(
            [f"{c} = {v}" for c, v in needs.items()] + [f"no {child}" for child, _, _ in none]
        )
        out.given[tool.name] = [f"{table} {row[param]}: {said}" for row in chosen]
    return out


def _chosen(
    spec: EnvironmentSpec,
    tool: Tool,
    param: str,
    table: str,
    needs: dict[str, str],
    none: list[tuple[str, str, dict]],
    rows: list[dict[str, Scalar]],
) -> list[dict[str, Scalar]]:
    """Up to one row in SHARE the write succeeds on once given `needs` and `none`."""
    probe = _probe(param, table, needs, none, tool.parameters["properties"][param])
    wanted = max(FEWEST, len(rows) // SHARE)
    chosen: list[dict[str, Scalar]] = []
    with Environment(spec.model_copy(update={"tools": [*spec.tools, probe]})) as env:
        for row in rows[:TRIES]:
            calls = [ToolCall(name=n, arguments={param: row[param]}) for n in (PROBE, tool.name)]
            if all(r.ok for r in env.replay(calls).results):
                chosen.append(row)
                if len(chosen) == wanted:
                    break
    return chosen


def _acts(env: Environment, tool: Tool, at: tuple[str, str], seed: Seed) -> bool:
    """Some seed row (of the first TRIES) lets the write succeed."""
    param, table = at
    for row in seed.get(table, [])[:TRIES]:
        if env.replay([ToolCall(name=tool.name, arguments={param: row[param]})]).results[0].ok:
            return True
    return False


def _windows(spec: EnvironmentSpec, seed: Seed) -> dict[str, list[str]]:
    """Per write, the rows moved in time so that a date its step asks to lie within some
    days of now does (`seed` is changed in place): up to one row in SHARE of those holding
    the date, where none does yet, each to a day 1 to `days` - 1 days before now."""
    today = dt.date.fromisoformat(spec.clock[:10])
    out: dict[str, list[str]] = {}
    for tool in spec.tools:
        for step in tool.require:
            m = _WITHIN.match(step.sql)
            if m is None or tool.kind != "write":
                continue
            column, days, table = m["column"], int(m["days"]), m["table"]
            dated = [(r, d) for r in seed.get(table, []) if (d := _day(r.get(column)))]
            if not dated or days < 2:
                continue
            if any(0 <= (today - d).days <= days for _, d in dated):
                continue  # some row lies within already
            wanted = max(FEWEST, len(dated) // SHARE)
            moved = []
            for i, (row, was) in enumerate(dated[:: max(1, len(dated) // wanted)][:wanted]):
                shift = today - dt.timedelta(days=1 + i % (days - 1)) - was
                for name, value in row.items():
                    if (day := _day(value)) is not None:
                        row[name] = _moved(str(value), day + shift, spec.clock)
                key = spec.schema_.table(table).primary_key
                name = ",".join(str(row.get(k)) for k in key)
                moved.append(f"{table} {name}: {column} {was} -> {row[column]}")
            out.setdefault(tool.name, []).extend(moved)
    return out


def _day(value: object) -> dt.date | None:
    """The day a date or datetime string holds, else None."""
    if not isinstance(value, str) or not _DAY.match(value):
        return None
    try:
        return dt.date.fromisoformat(value[:10])
    except ValueError:
        return None


def _moved(value: str, day: dt.date, now: str) -> str:
    """The value on another day, its time and form kept, and no later than now."""
    moved = day.isoformat() + value[10:]
    latest = now[:10] + (value[10] + now[11 : len(value)] if len(value) > 10 else "")
    return min(moved, latest) if len(value) == len(latest) else moved
