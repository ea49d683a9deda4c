"""Seed rows under a parent in the state their create asks of it. The data plan draws a
child's parent and a parent's status apart, and knows no rule: ecommerce's seed on 369ec82
held 151 of its 178 returns on orders that were never delivered, where `create_return`
read "only a delivered order can be returned"; a task that reads such a return shows the
rule broken, and a trainer learns that it need not hold.

Where a create asks its row's parent, named by one of the row's own columns, to hold a
state (`SELECT status = 'delivered' AS ok FROM orders WHERE order_id = :order_id`, or `IN
(...)`), each parent a seed row breaks it under is given the first state asked, with the
columns that state records taken from a row already in it (a `delivered_at`), and those of
the state it leaves emptied, where the parent's state is one a record is in before the one
asked (`before`: a pending or shipped order, never delivered). Any other state is history,
left as drawn: an order cancelled since, an enrollment dropped after its grades, an item on
an order that has shipped since. A move that would break another create's ask, of a row
that held it, is not made. Deterministic: the same environment gives the same rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from generators.dataplan import SETTLED, owed_column
from generators.limits import made_in, on_parents
from toolscale.schema import Scalar, Table
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool

Seed = dict[str, list[dict[str, Scalar]]]

# states a record is in before others (an order placed, not yet paid), and the ones it passes
# on its way (paid, shipped) before it ends up where a create may ask it to be (delivered)
FIRST = ("draft", "new", "pending", "requested", "created", "unpaid", "placed", "submitted")
UNDERWAY = (
    *("paid", "processing", "confirmed", "scheduled", "booked", "shipped", "dispatched"),
    *("in_transit", "in_progress", "awaiting"),
)

_STATE = re.compile(
    r"^\s*SELECT\s+(?P<column>\w+)\s*(?:=\s*'(?P<value>[^']*)'|IN\s*\((?P<values>[^)]*)\))\s+"
    r"AS\s+\w+\s+FROM\s+(?P<table>\w+)\s+WHERE\s+(?P<key>\w+)\s*=\s*:(?P<param>\w+)\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Asked:
    """A create of `child` rows asks the `table` row its `param` column names to hold
    `column` in one of `states`."""

    tool: str
    child: str
    param: str
    table: str
    column: str
    states: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.tool}: {self.table}.{self.column} in ({', '.join(self.states)})"


def asked(spec: EnvironmentSpec, tools: list[Tool]) -> list[Asked]:
    """Each state a create asks of its row's parent, by the parent's own key."""
    out = []
    for tool in tools:
        made = made_in(tool)
        for child, step in on_parents(tool) if made else []:
            m = _STATE.match(step.sql)
            if m is None or m["table"] not in spec.schema_.table_names:
                continue
            parent = spec.schema_.table(m["table"])
            status = parent.status()
            if status is None or status[0] != m["column"] or parent.primary_key != [m["key"]]:
                continue
            said = [m["value"]] if m["value"] is not None else re.findall(r"'([^']*)'", m["values"])
            states = tuple(s for s in said if s in status[1])
            if states:
                out.append(Asked(tool.name, child, m["param"], m["table"], m["column"], states))
    return out


@dataclass
class Placed:
    """The seed with parents moved into the states their children's creates ask, and per ask
        the parents moved, those left in a state that is history, and those left because another
    create asks them the state they hold."""

    seed: Seed
    moved: dict[str, list[str]] = field(default_factory=dict)  # str(ask) -> "orders 7: ..."
    history: dict[str, int] = field(default_factory=dict)  # str(ask) -> parents left
    held: dict[str, int] = field(default_factory=dict)  # str(ask) -> parents another ask holds


def before(state: str) -> tuple[str, ...]:
    """The states a record is in before it can be in `state`: none before a first one (an
    item added to a pending order), the first ones before one underway, and both before any
    other (a delivered order, an active account). Any other state is history: the record
    moved on after its children were made (a cancelled order, a dropped enrollment)."""
    if state in FIRST:
        return ()
    return FIRST if state in UNDERWAY else (*FIRST, *UNDERWAY)


def _parents(seed: Seed, table: Table) -> dict[Scalar, dict[str, Scalar]]:
    key = table.primary_key[0]
    return {row[key]: row for row in seed.get(table.name, [])}


def _broken(ask: Asked, seed: Seed, parents: dict[Scalar, dict[str, Scalar]]) -> list[Scalar]:
    """The keys of the parents each child row breaks the ask under (repeated per row)."""
    out = []
    for row in seed.get(ask.child, []):
        parent = parents.get(row.get(ask.param))
        if parent is not None and parent.get(ask.column) not in ask.states:
            out.append(row[ask.param])
    return out


def _moved(
    table: Table, row: dict[str, Scalar], state: str, seed: Seed
) -> dict[str, Scalar] | None:
    """`row` in `state`: the columns its old state records emptied, those the new one records
    taken from the first row already in it, and nothing owed in a settled one; None where no
    row in that state gives a column it must hold."""
    column = table.status()
    assert column is not None
    old, out = row[column[0]], dict(row)
    out[column[0]] = state
    donor = next((r for r in seed.get(table.name, []) if r.get(column[0]) == state), {})
    for col in table.columns:
        recorded = table.state_of(col.name)
        if recorded == state:
            if donor.get(col.name) is None and not col.nullable:
                return None
            out[col.name] = donor.get(col.name)
        elif recorded == old and col.nullable:
            out[col.name] = None
        elif owed_column(table, col.name) and state in SETTLED:
            out[col.name] = 0.0 if col.type == "real" else 0
        elif owed_column(table, col.name) and old in SETTLED and col.name in donor:
            out[col.name] = donor[col.name]
    return out


def place(spec: EnvironmentSpec) -> Placed:
    """The seed with each parent a child row breaks its create's ask under moved into the
    first state asked, where its own state is no history and no other ask then breaks."""
    seed = {name: [dict(r) for r in rows] for name, rows in spec.seed.items()}
    out = Placed(seed=seed)
    asks = asked(spec, spec.tools)
    tables = {t.name: t for t in spec.schema_.tables}
    for ask in asks:
        table = tables[ask.table]
        parents = _parents(seed, table)
        held = {a: set(_broken(a, seed, parents)) for a in asks if a.table == ask.table}
        for key in dict.fromkeys(_broken(ask, seed, parents)):
            parent = parents[key]
            state = str(parent.get(ask.column))
            if state not in before(ask.states[0]):
                out.history[str(ask)] = out.history.get(str(ask), 0) + 1
                continue
            moved = _moved(table, parent, ask.states[0], seed)
            trial = {**parents, key: moved} if moved is not None else parents
            if moved is None or any(key in set(_broken(a, seed, trial)) - held[a] for a in held):
                out.held[str(ask)] = out.held.get(str(ask), 0) + 1
                continue
            parent.clear()
            parent.update(moved)
            out.moved.setdefault(str(ask), []).append(
                f"{ask.table} {key}: {ask.column} {state} -> {ask.states[0]}"
            )
    return out
