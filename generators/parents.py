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
from collections import Counter
from dataclasses import dataclass, field

from generators.dataplan import AWAITED, CLOCK, SETTLED, event_moment, owed_column
from generators.limits import made_in, on_parents
from toolscale.environment import Environment
from toolscale.errors import ToolscaleError
from toolscale.sandbox.engine import SeedError
from toolscale.schema import Scalar, Table
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool

Seed = dict[str, list[dict[str, Scalar]]]

# states a record is in before others (an order placed, not yet paid), those a record opens
# into (an account), and the ones it passes, in order, on its way (paid, shipped) before it
# ends up where a create may ask it to be (delivered)
FIRST = ("draft", "new", "pending", "requested", "created", "unpaid", "placed", "submitted")
OPENED = ("active", "open")
UNDERWAY = (
    *("paid", "processing", "scheduled", "booked", "confirmed", "shipped", "dispatched"),
    *("in_transit", "in_progress"),
)
# at most one in this many of a state's rows is moved out of it: ecommerce's seed on 5b7cc66
# held 267 returns on its 49 orders, and every pending, paid and shipped order would have
# become delivered, leaving no order to cancel, pay or ship
SPARE = 2
TRIES = 20  # rows the seed's load may refuse, each moved back, before every move is undone

_STATE = re.compile(
    r"^\s*SELECT\s+(?P<column>\w+)\s*(?:=\s*'(?P<value>[^']*)'|IN\s*\((?P<values>[^)]*)\))\s+"
    r"AS\s+\w+\s+FROM\s+(?P<table>\w+)\s+WHERE\s+(?P<key>\w+)\s*=\s*"
    # the parent named by the row's own column, or through the row's parent (a return's
    # order through its item: `(SELECT order_id FROM order_items WHERE order_item_id = :p)`)
    r"(?::(?P<param>\w+)|\(\s*SELECT\s+(?P<fk>\w+)\s+FROM\s+(?P<mid>\w+)\s+WHERE\s+"
    r"(?P<mid_key>\w+)\s*=\s*:(?P<through>\w+)\s*\))\s*$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Asked:
    """A create of `child` rows asks the `table` row its `param` column names (directly, or
    as the `via` = (table, key, column) row it names holds in that column) to hold `column`
    in one of `states`."""

    tool: str
    child: str
    param: str
    table: str
    column: str
    states: tuple[str, ...]
    via: tuple[str, str, str] | None = None
    stamped: tuple[str, ...] = ()  # the child's columns the create gives the moment it runs

    def __str__(self) -> str:
        states = ", ".join(self.states)
        hop = f"{self.via[0]}.{self.via[2]} -> " if self.via else ""
        return (
            f"{self.tool}: {self.child}.{self.param} -> {hop}{self.table}.{self.column} "
            f"in ({states})"
        )


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
            via = (m["mid"], m["mid_key"], m["fk"]) if m["mid"] else None
            if via and (via[0] not in spec.schema_.table_names or via[0] == child):
                continue
            param = m["param"] or m["through"]
            stamped = tuple(c for c, v in made[1].items() if ":_now" in v) if made else ()
            if states:
                out.append(
                    Asked(tool.name, child, param, m["table"], m["column"], states, via, stamped)
                )
    return out


def before(state: str) -> tuple[str, ...]:
    """The states a record is in before it can be in `state`: none before a first one (an
    item added to a pending order), the first ones before one it opens into (an active
    account), those and the ones underway before it before one underway (a paid order
    before it ships), and all of them before any other (a delivered order). Any other state
    is history: the record moved on after its children were made (a cancelled order, a
    dropped enrollment, a ticket in progress since its comment)."""
    if state in FIRST:
        return ()
    if state in OPENED:
        return FIRST
    if state in UNDERWAY:
        return (*FIRST, *UNDERWAY[: UNDERWAY.index(state)])
    return (*FIRST, *UNDERWAY)


def into(ask: Asked, state: str) -> str | None:
    """The first state the ask allows that `state` comes before, if any."""
    return next((s for s in ask.states if state in before(s)), None)


@dataclass
class Placed:
    """The seed with parents moved into the states their children's creates ask, and per ask
    the parents moved and those left: in a state that is history, held in theirs by
    another create's ask, not placeable (no row in the state gives what it records, an
    event still to come, a CHECK), or spared so that their state keeps rows (`SPARE`)."""

    seed: Seed
    asks: int = 0  # the asks read
    moved: dict[str, list[str]] = field(default_factory=dict)  # str(ask) -> "orders 7: ..."
    history: dict[str, int] = field(default_factory=dict)  # str(ask) -> parents left
    held: dict[str, int] = field(default_factory=dict)
    unplaced: dict[str, int] = field(default_factory=dict)
    spared: dict[str, int] = field(default_factory=dict)  # left so their state keeps rows


def _parents(seed: Seed, table: Table) -> dict[Scalar, dict[str, Scalar]]:
    """The table's rows by key, the first of each; a row with no key is no parent."""
    key = table.primary_key[0]
    out: dict[Scalar, dict[str, Scalar]] = {}
    for row in seed.get(table.name, []):
        if row.get(key) is not None:
            out.setdefault(row[key], row)
    return out


def _under(ask: Asked, seed: Seed) -> dict[Scalar, list[dict[str, Scalar]]]:
    """The child rows under each parent key they name: read once per ask, as no move
    changes which parent a row names."""
    hops: dict[Scalar, Scalar] = {}
    if ask.via is not None:
        mid, mid_key, column = ask.via
        hops = {r.get(mid_key): r.get(column) for r in seed.get(mid, [])}
    out: dict[Scalar, list[dict[str, Scalar]]] = {}
    for row in seed.get(ask.child, []):
        named = row.get(ask.param)
        key = hops.get(named) if ask.via is not None and named is not None else named
        if key is not None:
            out.setdefault(key, []).append(row)
    return out


def _broken(
    ask: Asked, under: dict[Scalar, list[dict[str, Scalar]]], parents: dict[Scalar, dict]
) -> Counter[Scalar]:
    """The parents the child rows break the ask under, with how many rows each."""
    return Counter(
        {
            key: len(rows)
            for key, rows in under.items()
            if key in parents and parents[key].get(ask.column) not in ask.states
        }
    )


def _first_made(ask: Asked, rows: list[dict[str, Scalar]]) -> str | None:
    """The earliest moment a child row under the parent was made, by the columns the
    create stamps (a return's `created_at`): the state the create asks held by then."""
    made = [str(row[c]) for row in rows for c in ask.stamped if row.get(c) is not None]
    return min(made) if made else None


def _not_before(
    value: Scalar, row: dict[str, Scalar], table: Table, column: str, by: str | None = None
) -> Scalar:
    """A moment the state records, never before another past one of the row's own
    (delivered before it was placed): the latest of them where the donor's is earlier; and
    never after `by`, the first child made under it (returned before it was delivered)."""
    value = _by(value, by, table.column(column).type)
    clock = CLOCK.isoformat()
    moments = [
        str(row[c.name])
        for c in table.columns
        if c.type in ("date", "datetime") and c.name != column and row.get(c.name) is not None
        and "updat" not in c.name  # a later update may be the delivery itself
    ]  # fmt: skip
    moments = [m for m in moments if m[:10] <= clock]  # a warranty's end is no past moment
    if value is None or not moments or str(value) >= max(moments):
        return value
    return _form(max(moments), table.column(column).type)


def _form(moment: str, kind: str) -> str:
    """A moment in the column's form: a date, or a date and time."""
    if kind == "date":
        return moment[:10]
    return moment if len(moment) > 10 else f"{moment}T00:00:00"


def _by(value: Scalar, by: str | None, kind: str) -> Scalar:
    """`value`, or `by` where `value` comes after it."""
    if value is None or by is None or str(value)[: len(by)] <= by[: len(str(value))]:
        return value
    return _form(by, kind)


def _moved(
    table: Table,
    row: dict[str, Scalar],
    state: str,
    donor: dict[str, Scalar],
    by: str | None = None,
) -> dict[str, Scalar] | None:
    """`row` in `state`: the columns the new one records taken from `donor` (a row drawn in
    it; a moment not before the row's own nor after `by`, the first child's; a unique value
    never), and nothing owed in a settled one; what the states on its way recorded stays
    (a move is forward). None where a column must hold a value the donor does not give,
    the moment would be after the clock or its first child's, or the row's event is still
    to come and the state says it was held."""
    column = table.status()
    assert column is not None
    out = dict(row)
    out[column[0]] = state
    moment = event_moment(table)
    if moment and state not in AWAITED and str(row.get(moment) or "") > CLOCK.isoformat():
        return None  # an appointment next month is not completed
    for col in table.columns:
        if table.state_of(col.name) == state:
            given = None if col.unique else donor.get(col.name)
            if col.type in ("date", "datetime"):
                given = _not_before(given, row, table, col.name, by)
                if given is not None and str(given)[:10] > CLOCK.isoformat():
                    return None
                if given is not None and by is not None and _by(given, by, col.type) != given:
                    return None  # the row's own moments come after its first child's
            if given is None and not col.nullable:
                return None
            out[col.name] = given
        elif owed_column(table, col.name) and state in SETTLED:
            out[col.name] = 0.0 if col.type == "real" else 0
    return out


@dataclass
class _Move:
    ask: str
    table: str
    index: int  # the row's place in the seed's table
    was: dict[str, Scalar]
    line: str


def place(spec: EnvironmentSpec) -> Placed:
    """The seed with each parent a child row breaks its create's ask under moved into the
    first state asked that its own comes before, where no other ask then breaks; each moved
    row the seed's load refuses (a CHECK) is moved back."""
    seed = {name: [dict(r) for r in rows] for name, rows in spec.seed.items()}
    asks = asked(spec, spec.tools)
    out = Placed(seed=seed, asks=len(asks))
    tables = {t.name: t for t in spec.schema_.tables}
    moves: list[_Move] = []

    def count(bucket: dict[str, int], ask: Asked) -> None:
        bucket[str(ask)] = bucket.get(str(ask), 0) + 1

    states = {(a.table, a.column) for a in asks}
    drawn = Counter((t, str(r.get(c))) for t, c in states for r in seed.get(t, []))
    donors = {  # the rows as drawn in each state: a moved row gives no other its moment
        (t, state): [r for r in spec.seed.get(t, []) if str(r.get(c)) == state]
        for t, c in states
        for state in {str(r.get(c)) for r in spec.seed.get(t, [])}
    }
    left: Counter[tuple[str, str]] = Counter()  # rows moved out of each (table, state)
    moved_in: Counter[str] = Counter()  # rows moved per table: which donor is next
    under = {a: _under(a, seed) for a in asks}
    for ask in asks:
        table = tables[ask.table]
        parents = _parents(seed, table)
        key_column = table.primary_key[0]
        index: dict[Scalar, int] = {}
        for i, row in enumerate(seed.get(ask.table, [])):
            index.setdefault(row.get(key_column), i)
        held = {a: set(_broken(a, under[a], parents)) for a in asks if a.table == ask.table}
        broken = _broken(ask, under[ask], parents)
        for key in sorted(broken, key=lambda k: -broken[k]):  # the most rows mended first
            parent = parents[key]
            was = str(parent.get(ask.column))
            state = into(ask, was)
            if state is None:
                count(out.history, ask)
                continue
            given = donors.get((ask.table, state), [])
            donor = given[moved_in[ask.table] % len(given)] if given else {}
            moved = _moved(table, parent, state, donor, _first_made(ask, under[ask][key]))
            if moved is None:
                count(out.unplaced, ask)
                continue
            if any(
                key not in held[a] and key in under[a] and moved.get(a.column) not in a.states
                for a in held
            ):  # another create asks this parent a state it now leaves
                count(out.held, ask)
                continue
            if left[(ask.table, was)] >= drawn[(ask.table, was)] // SPARE:
                count(out.spared, ask)
                continue
            line = f"{ask.table} {key}: {ask.column} {was} -> {state}"
            moves.append(_Move(str(ask), ask.table, index[key], dict(parent), line))
            left[(ask.table, was)] += 1
            moved_in[ask.table] += 1
            parent.clear()
            parent.update(moved)
    first: dict[tuple[str, int], dict[str, Scalar]] = {}
    for move in moves:
        first.setdefault((move.table, move.index), move.was)
    for spot in _refused(spec, seed, first):
        seed[spot[0]][spot[1]] = first[spot]
        for move in [m for m in moves if (m.table, m.index) == spot]:
            moves.remove(move)
            out.unplaced[move.ask] = out.unplaced.get(move.ask, 0) + 1
    for move in moves:
        out.moved.setdefault(move.ask, []).append(move.line)
    return out


def _refused(
    spec: EnvironmentSpec, seed: Seed, first: dict[tuple[str, int], dict[str, Scalar]]
) -> list[tuple[str, int]]:
    """The moved rows (table, place) the seed's load refuses, found one at a time (a CHECK
    no rule told of: `delivered_at >= placed_at`); all of them where a refusal names no
    moved row, the load fails otherwise, or more than `TRIES` are refused."""
    out: list[tuple[str, int]] = []
    while first and len(out) < TRIES:
        trial = dict(seed)
        for table, i in out:
            trial[table] = list(trial[table])
            trial[table][i] = first[(table, i)]
        try:
            Environment(spec.model_copy(update={"seed": trial})).close()
            return out
        except SeedError as e:
            row = (e.table, e.index) if e.index is not None else None
            if row is None or row not in first or row in out:
                return list(first)
            out.append(row)
        except ToolscaleError:  # a tool that does not compile: nothing is moved
            return list(first)
    return list(first)
