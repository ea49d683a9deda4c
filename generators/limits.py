"""Seed rows kept within the count limits the writes guard. The data plan draws a status from
weighted choices and knows no rule, so weather's seed on 369ec82 held 12 (region, alert
type) pairs with two or more active alerts against "A region can have only one alert with
status active of the same alert_type at a time": a task that reads those alerts shows the
rule broken, and a trainer learns that it need not hold. Where a write guards a limit with a
step `SELECT COUNT(*) + 1 <= N ... FROM t WHERE c = :p AND s = 'v'`, each group of rows (one
per value of the `:p` columns) that holds more than N rows with `s = 'v'` keeps its first N;
the others are given another value `s` takes, an ended one where there is one (`cancelled`),
and a settled one (`closed`) owes nothing after it, as the data plan draws such rows.
Deterministic: the same environment gives the same rows.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from generators.dataplan import SETTLED, owed_column
from generators.patterns import TERMINAL, enum_values
from toolscale.schema import Scalar
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool

Seed = dict[str, list[dict[str, Scalar]]]

_COUNTED = re.compile(
    r"^\s*SELECT\s+COUNT\(\*\)\s*\+\s*1\s*<=\s*(?P<most>\d+)\s+AS\s+\w+\s+"
    r"FROM\s+(?P<table>\w+)\s+WHERE\s+(?P<where>.+?)\s*$",
    re.IGNORECASE,
)
_TERM = re.compile(
    r"^(?:1\s*=\s*1|(?P<column>\w+)\s*=\s*(?::(?P<param>\w+)|'(?P<value>[^']*)'))$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Limit:
    """At most `most` rows of `table` holding each of `held` per value of the `per` columns."""

    table: str
    most: int
    per: tuple[str, ...]
    held: tuple[tuple[str, str], ...]

    def __str__(self) -> str:
        held = " and ".join(f"{c} = '{v}'" for c, v in self.held)
        return f"at most {self.most} {self.table} with {held} per {', '.join(self.per)}"


def limit_of(sql: str) -> Limit | None:
    """The limit a step guards, or None where its WHERE is more than equalities (a move's
    step reads a subquery: the create's step says the same limit)."""
    m = _COUNTED.match(sql)
    if m is None:
        return None
    per: list[str] = []
    held: list[tuple[str, str]] = []
    for term in re.split(r"\s+AND\s+", m["where"], flags=re.IGNORECASE):
        said = _TERM.match(term.strip())
        if said is None:
            return None
        if said["param"]:
            per.append(said["column"])
        elif said["column"]:
            held.append((said["column"], said["value"]))
    if not per or not held:
        return None  # no group, or nothing a row can be moved out of
    return Limit(m["table"], int(m["most"]), tuple(per), tuple(held))


def limits(tools: list[Tool]) -> list[Limit]:
    """Each limit some write guards, once."""
    found = (limit_of(step.sql) for t in tools if t.kind == "write" for step in t.require)
    return list(dict.fromkeys(x for x in found if x is not None))


@dataclass
class Kept:
    """The seed with no group over a limit, and per limit the rows moved out of it."""

    seed: Seed
    moved: dict[str, list[str]] = field(default_factory=dict)  # str(limit) -> "alerts 1: ..."


def _other(spec: EnvironmentSpec, table: str, column: str, value: str, seed: Seed) -> str | None:
    """Another value the column takes: an ended one that settles nothing first, then any
    ended one, then the first."""
    others = [v for v in enum_values(spec.schema_.table(table), column, seed) if v != value]
    ended = [v for v in others if v in TERMINAL]
    return next((v for v in ended if v not in SETTLED), next(iter(ended + others), None))


def keep(spec: EnvironmentSpec) -> Kept:
    """The seed with each group's rows past a limit given another value of the first
    column the limit counts by its value."""
    seed = {name: [dict(r) for r in rows] for name, rows in spec.seed.items()}
    out = Kept(seed=seed)
    for limit in limits(spec.tools):
        column, value = limit.held[0]
        rows = seed.get(limit.table, [])
        other = _other(spec, limit.table, column, value, seed)
        if other is None or not rows or any(c not in rows[0] for c in limit.per):
            continue
        table = spec.schema_.table(limit.table)
        owed = {
            c.name: 0.0 if c.type == "real" else 0
            for c in table.columns
            if other in SETTLED and owed_column(table, c.name)
        }
        seen: Counter[tuple[Scalar, ...]] = Counter()
        for row in rows:
            if any(str(row.get(c)) != v for c, v in limit.held):
                continue
            group = tuple(row[c] for c in limit.per)
            seen[group] += 1
            if seen[group] > limit.most:
                row[column] = other
                row.update(owed)
                name = ",".join(str(row[k]) for k in table.primary_key)
                out.moved.setdefault(str(limit), []).append(
                    f"{limit.table} {name}: {column} {value} -> {other}"
                )
    return out
