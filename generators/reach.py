"""Seed rows a guarded write can act on. The data plan draws a balance from a range, so no
finance account held exactly 0 and `close_account` ("only when its balance is exactly 0")
was refused on every one of its 57 rows: every task about closing was a refusal, and no
agent could learn to close an account. Where a write on one row is refused on every seed
row by a step that asks a column of that row to equal a value, a few rows are given that
value, each only where the write then succeeds (the other rules and the CHECKs still hold).
Deterministic: the same environment gives the same rows.
"""

from __future__ import annotations

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


def _value(literal: str) -> Scalar:
    if literal.startswith("'"):
        return literal[1:-1]
    return float(literal) if "." in literal else int(literal)


def _probe(param: str, table: str, needs: dict[str, str], key_type: dict) -> Tool:
    sets = ", ".join(f"{c} = {v}" for c, v in needs.items())
    return Tool(
        name=PROBE,
        description="Gives a row the values a write needs (reach probe only).",
        kind="write",
        parameters={"type": "object", "properties": {param: key_type}, "required": [param]},
        run=[f"UPDATE {table} SET {sets} WHERE {param} = :{param}"],
    )


def reach(spec: EnvironmentSpec) -> Reach:
    """The seed with, for each write on one row that no seed row lets succeed, up to one row
    in SHARE given the values its steps ask for, where the write then succeeds."""
    seed = {name: [dict(r) for r in rows] for name, rows in spec.seed.items()}
    out = Reach(seed=seed)
    stuck = []
    with Environment(spec) as env:
        for tool in spec.tools:
            at = one_row(tool, spec)
            if at is not None and not _acts(env, tool, at, seed):
                stuck.append((tool, *at))
    for tool, param, table in stuck:
        needs = _needs(tool, param, table)
        if not needs:
            out.unreached.append(tool.name)
            continue
        probe = _probe(param, table, needs, tool.parameters["properties"][param])
        rows = seed.get(table, [])
        wanted = max(FEWEST, len(rows) // SHARE)
        chosen = []
        with Environment(spec.model_copy(update={"tools": [*spec.tools, probe]})) as env:
            for row in rows[:TRIES]:
                calls = [
                    ToolCall(name=n, arguments={param: row[param]}) for n in (PROBE, tool.name)
                ]
                if all(r.ok for r in env.replay(calls).results):
                    chosen.append(row)
                    if len(chosen) == wanted:
                        break
        if not chosen:
            out.unreached.append(tool.name)
            continue
        for row in chosen:
            row.update({c: _value(v) for c, v in needs.items()})
        said = ", ".join(f"{c} = {v}" for c, v in needs.items())
        out.given[tool.name] = [f"{table} {row[param]}: {said}" for row in chosen]
    return out


def _acts(env: Environment, tool: Tool, at: tuple[str, str], seed: Seed) -> bool:
    """Some seed row (of the first TRIES) lets the write succeed."""
    param, table = at
    for row in seed.get(table, [])[:TRIES]:
        if env.replay([ToolCall(name=tool.name, arguments={param: row[param]})]).results[0].ok:
            return True
    return False
