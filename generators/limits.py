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
from collections.abc import Mapping
from dataclasses import dataclass, field

from generators.dataplan import SETTLED, owed_column
from generators.patterns import TERMINAL, enum_values, parts_into, parts_open
from generators.rulemap import changes, is_subject, rule_verb
from toolscale.rules import Enforcement, RuleCoverage
from toolscale.schema import Scalar, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import RequireStep, Tool

Seed = dict[str, list[dict[str, Scalar]]]

_COUNTED = re.compile(
    r"^\s*SELECT\s+COUNT\(\*\)\s*\+\s*(?P<add>[01])\s*<=\s*(?P<most>\d+)\s+AS\s+\w+\s+"
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


def limit_of(sql: str, made: Mapping[str, str] | None = None) -> Limit | None:
    """The limit a step guards, or None where its WHERE is more than equalities (a move's
    step reads a subquery: the create's step says the same limit). A create's "none before"
    (`COUNT(*) + 0 <= 0`: "a player can be signed only if the player has no contract with
    status active") leaves one after it, at most N + 1, where the create makes its row in
    the state counted (`made`: column -> what its INSERT gives it); "no new contract while
    one is disputed" beside a create of an active one says no limit on disputed ones."""
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
    if m["add"] == "0" and any((made or {}).get(c) != f"'{v}'" for c, v in held):
        return None
    return Limit(m["table"], int(m["most"]) + 1 - int(m["add"]), tuple(per), tuple(held))


def _made(tool: Tool, table: str) -> dict[str, str]:
    """What a create's INSERT into `table` gives each column, or nothing."""
    made = made_in(tool)
    return made[1] if made is not None and made[0] == table else {}


def guarded(tools: list[Tool]) -> dict[Limit, str]:
    """Each limit some write guards, once, with the error of the first step that says it."""
    out: dict[Limit, str] = {}
    for tool in tools:
        for step in tool.require if tool.kind == "write" else []:
            counted = _COUNTED.match(step.sql)
            found = limit_of(step.sql, _made(tool, counted["table"])) if counted else None
            if found is not None:
                out.setdefault(found, step.error)
    return out


def limits(tools: list[Tool]) -> list[Limit]:
    """Each limit some write guards, once."""
    return list(guarded(tools))


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
    """The seed with each group's rows past a limit given another value of the state column
    the limit counts by its value."""
    seed = {name: [dict(r) for r in rows] for name, rows in spec.seed.items()}
    out = Kept(seed=seed)
    for limit in limits(spec.tools):
        table = spec.schema_.table(limit.table)
        state = table.status()
        held = dict(limit.held)
        if state is None or state[0] not in held:
            continue  # no state to move a row out of (a kind, a region): left as drawn
        column, value = state[0], held[state[0]]
        rows = seed.get(limit.table, [])
        other = _other(spec, limit.table, column, value, seed)
        if other is None or not rows or any(c not in rows[0] for c in limit.per):
            continue
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
            if None in group:
                continue  # `c = :p` never counts a NULL
            seen[group] += 1
            if seen[group] > limit.most:
                row[column] = other
                row.update(owed)
                name = ",".join(str(row[k]) for k in table.primary_key)
                out.moved.setdefault(str(limit), []).append(
                    f"{limit.table} {name}: {column} {value} -> {other}"
                )
    return out


_INTO = re.compile(
    r"^\s*UPDATE\s+(?P<table>\w+)\s+SET\s+(?P<sets>.+?)\s+"
    r"WHERE\s+(?P<key>\w+)\s*=\s*:(?P<param>\w+)\s*$",
    re.IGNORECASE | re.DOTALL,
)
_SET_TO = re.compile(r"(?:^|,)\s*(?P<column>\w+)\s*=\s*'(?P<value>[^']*)'\s*(?=,|$)")


def _moves_into(tool: Tool, keys: Mapping[str, str]) -> tuple[str, str, str, str, str] | None:
    """(table, key, param, column, value) of a write that changes one row, named by its
    table's one-column primary key (`keys`), and sets `column` to the literal `value`
    (a stamp or a reason may be set beside it: freeze_card's frozen_reason)."""
    if tool.kind != "write" or len(tool.run) != 1:
        return None
    m = _INTO.match(tool.run[0])
    if m is None or keys.get(m["table"]) != m["key"]:
        return None
    sets = sorted(
        ((s["column"], s["value"]) for s in _SET_TO.finditer(m["sets"])),
        key=lambda cv: "status" not in cv[0] and cv[0] != "state",
    )
    return (m["table"], m["key"], m["param"], *sets[0]) if sets else None


def _limit_step(limit: Limit, key: str, param: str) -> str:
    """The step a move of row `:param` into the counted state asks: its group, read from the
    row itself, holds fewer than the limit's most, not counting the row."""
    same = " AND ".join(
        f"{c} = (SELECT {c} FROM {limit.table} WHERE {key} = :{param})" for c in limit.per
    )
    held = " AND ".join(f"{c} = '{v}'" for c, v in limit.held)
    return (
        f"SELECT COUNT(*) + 1 <= {limit.most} AS within_limit FROM {limit.table} "
        f"WHERE {held} AND {same} AND {key} <> :{param}"
    )


_INSERT = re.compile(
    r"^\s*INSERT\s+INTO\s+(?P<table>\w+)\s*\((?P<columns>[^)]*)\)\s*VALUES\s*\((?P<values>.*)\)\s*$",
    re.IGNORECASE | re.DOTALL,
)
_PARAM = re.compile(r":(\w+)")


def made_in(tool: Tool) -> tuple[str, dict[str, str]] | None:
    """(table, column -> what the INSERT gives it) of a create of one row."""
    m = _INSERT.match(tool.run[0]) if tool.kind == "write" and len(tool.run) == 1 else None
    if m is None:
        return None
    columns = [c.strip() for c in m["columns"].split(",")]
    values = [v.strip() for v in re.split(r",(?![^(]*\))", m["values"])]
    if len(columns) != len(values):
        return None
    return m["table"], dict(zip(columns, values, strict=True))


def on_parents(tool: Tool) -> list[tuple[str, RequireStep]]:
    """(table, step) of each step of a create that reads other rows through the new row's
    own columns only ("only on an active account": `FROM accounts WHERE account_id =
    :account_id`): what a row made in that state must hold, moved there or made. A step on
    the created table itself ("no such enrollment yet") would count the moved row: left."""
    made = made_in(tool)
    if made is None:
        return []
    table, given = made
    out = []
    for step in tool.require:
        params = set(_PARAM.findall(step.sql))
        read = _read_tables(step.sql)
        if not params or not read or table.casefold() in read:
            continue
        if re.search(r"\bAS\s+(?:found|still_open)\b|COUNT\(\*\)\s*\+|\bSUM\(", step.sql, re.I):
            # a lookup the row's own key passes, a count or sum `limits` reads, or the
            # parent not over, whose words ("no card can be added to") are the create's
            continue
        if all(given.get(p) == f":{p}" for p in params):
            out.append((table, step))
    return out


def _through_row(sql: str, table: str, key: str, param: str) -> str:
    """A create's step with each of its arguments read from the row `:param` names."""

    def column(found: re.Match[str]) -> str:
        return f"(SELECT {found.group(1)} FROM {table} WHERE {key} = :{param})"

    return _PARAM.sub(column, sql)


def guarded_moves(
    tools: list[Tool], keys: Mapping[str, str], schema: Schema | None = None
) -> tuple[list[Tool], list[Enforcement]]:
    """The tools with each change of one row's state into a state the creates guard given
    their steps too, and the steps given. A limit the state counts: basketball's
    activate_contract (from suspended) turned on a fifth active contract for a player, where
    create_contract read "a player can be signed only if the player has no contract with
    status active". A step on the row's parents, where the create makes the row in that
    state: finance's activate_card turned on a card of a closed account, where create_card
    read "a card can only be issued on an active account" (finance-intent-00007 on
    0ee2fcd). A step's error is the create's, the rule as the agent is told it. Only a
    change of one row by its table's one-column key (`keys`), and only a limit on that one
    state: a limit that also counts a kind ("active rookie contracts") or reads a subquery
    (a course's capacity) is not carried. Also a create's bound on a value a write adds to
    (`_adjusted_bounds`), a rule barring any change of a record (`_changes_barred`) and,
    given the `schema`, a part's parent not over (`patterns.parts_open`) and a moved row's
    new parent open to it (`patterns.parts_into`)."""
    errors = {limit: error for limit, error in guarded(tools).items() if len(limit.held) == 1}
    parents: dict[tuple[str, str, str], list[RequireStep]] = {}  # (table, column, state)
    for tool in tools:
        made = made_in(tool)
        for table, step in on_parents(tool):
            for column, value in made[1].items() if made else []:
                if value.startswith("'") and value.endswith("'"):
                    parents.setdefault((table, column, value[1:-1]), []).append(step)
    bounds = _bounds(tools)
    changes = _change_rules(tools, keys)
    out: list[Tool] = []
    given: list[Enforcement] = []
    for tool in tools:
        into = _moves_into(tool, keys)
        steps = list(tool.require)
        wanted = _adjusted_bounds(tool, keys, bounds) + _changes_barred(tool, keys, changes)
        # a part's own state may still move: a booking of a cancelled flight is refunded
        left: set[str] = set()  # the parts steps of a parent the write moves the part off
        for table, param in [] if _sets_state(tool, keys) else _rows_named(tool, keys):
            moved = set(tool.assigned(table))
            parts = (
                parts_open(schema, schema.table(table), param, moved)
                + parts_into(schema, schema.table(table), tool.assigned_from(table))
                if schema
                else []
            )
            wanted += [(step.sql, step.error) for step in parts]
            if schema is not None and moved:
                every = parts_open(schema, schema.table(table), param)
                left |= {step.sql for step in every} - {step.sql for step in parts}
        # read back as a rule barring any change, such a step came to the move off the
        # parent on a second pass (travel's move_flight_booking_flight_id)
        wanted = [(sql, error) for sql, error in wanted if sql not in left]
        if into is not None:
            table, key, param, column, value = into
            for limit, error in errors.items():
                if limit.table == table and limit.held == ((column, value),):
                    wanted.append((_limit_step(limit, key, param), error))
            for step in parents.get((table, column, value), []):
                wanted.append((_through_row(step.sql, table, key, param), step.error))
        for sql, error in wanted:
            if all(s.sql != sql for s in steps):
                steps.append(RequireStep(sql=sql, error=error))
                given.append(Enforcement(tool=tool.name, step=len(steps) - 1, check=error))
        changed = len(steps) > len(tool.require)
        out.append(tool.model_copy(update={"require": steps}) if changed else tool)
    return out, given


def _bounds(tools: list[Tool]) -> dict[str, list[RequireStep]]:
    """Per table, the steps of its creates that bound a value the new row is given against
    other rows (`:quantity <= 1.0 * quantity FROM order_items ...`): what a later change of
    that value must keep to. A step on a table the create also changes (stock taken) is the
    create's own taking, not a bound on the row."""
    out: dict[str, list[RequireStep]] = {}
    for tool in tools:
        made = made_in(tool)
        if made is None:
            continue
        table = made[0]
        out.setdefault(table, []).extend(step for _, step in on_parents(tool))
    return out


def _adjusted_bounds(
    tool: Tool, keys: Mapping[str, str], bounds: Mapping[str, list[RequireStep]]
) -> list[tuple[str, str]]:
    """(sql, error) of each create's bound on a value the tool adds to or takes from, read
    with the row's value after the change: ecommerce's `topup_return_quantity` raised a
    return of 23 to 39 on an item of 23 bought, where `create_return` read "a return
    quantity cannot exceed the quantity bought on that order item" (ecommerce-intent-00066
    on 6c5d348). Only a change of one row by its table's one-column key."""
    tables = tool.updated_tables()
    key = keys.get(tables[0]) if tables else None
    if key is None or key not in tool.param_types():
        return []
    table = tables[0]
    out = []
    for column, amount, sign in tool.adjustments():
        for step in bounds.get(table, []):
            if column in _PARAM.findall(step.sql):
                sql = _through_row(step.sql, table, key, key)
                row = f"(SELECT {column} FROM {table} WHERE {key} = :{key})"
                out.append((sql.replace(row, f"({row} {sign} :{amount})"), step.error))
    return out


_UPDATE_BY = re.compile(
    r"^\s*UPDATE\s+(?P<table>\w+)\s+SET\s+.+\s+WHERE\s+(?P<key>\w+)\s*=\s*:(?P<param>\w+)\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _rows_changed(tool: Tool, keys: Mapping[str, str]) -> set[tuple[str, str]]:
    """(table, key) of each row the write changes by its table's one-column key, passed
    under the key's own name (`_rows_named`, where the parameter is the key)."""
    return {(table, param) for table, param in _rows_named(tool, keys) if keys[table] == param}


def _sets_state(tool: Tool, keys: Mapping[str, str]) -> bool:
    """The write changes one row's status (a cancel, a refund; ecommerce's cancel_order
    also puts the items back in stock)."""
    into = _moves_into(tool, keys)
    return bool(tool.state_moves()) or (
        into is not None and ("status" in into[3] or into[3] == "state")
    )


def _rows_named(tool: Tool, keys: Mapping[str, str]) -> list[tuple[str, str]]:
    """(table, parameter) of each row the write changes by its table's one-column key."""
    out = []
    for sql in tool.run if tool.kind == "write" else []:
        m = _UPDATE_BY.match(sql)
        if m and keys.get(m["table"]) == m["key"] and (m["table"], m["param"]) not in out:
            out.append((m["table"], m["param"]))
    return out


def _read_tables(sql: str) -> set[str]:
    return {t.casefold() for t in re.findall(r"\b(?:FROM|JOIN)\s+(\w+)", sql, re.IGNORECASE)}


def _change_rules(
    tools: list[Tool], keys: Mapping[str, str]
) -> dict[tuple[str, str], list[RequireStep]]:
    """Per (table, key), the steps of a rule that bars any change of the record, read
    through the record's key alone, as some write of it carries them."""
    out: dict[tuple[str, str], list[RequireStep]] = {}
    for tool in tools:
        for table, key in _rows_changed(tool, keys):
            for step in tool.require:
                # "A flight booking with fare_class basic_economy cannot be changed or
                # refunded" bars every change of the record, not one operation
                # and of the record itself: "the shipping address of an order can be
                # changed only before ..." is the address's (cancel_order on a4d02fb)
                if (
                    changes(rule_verb(step.error))
                    and is_subject(table, step.error.casefold())
                    and set(_PARAM.findall(step.sql)) == {key}
                    and table.casefold() in _read_tables(step.sql)
                ):
                    out.setdefault((table, key), []).append(step)
    return out


def _changes_barred(
    tool: Tool, keys: Mapping[str, str], changes: Mapping[tuple[str, str], list[RequireStep]]
) -> list[tuple[str, str]]:
    """(sql, error) of each rule barring any change of a record the tool changes, where
    another write of that record carries it. `rulemap` gives such a rule to the record's
    moves; a write of another pattern changes the record too: travel's rule "a
    basic_economy booking cannot be changed or refunded" went to the moves and the refund,
    and
    `add_flight_booking_checked_bags` added bags to a basic_economy booking
    (travel-intent-00059 on 0651c04). A change of the record's status is left: "cancel" is
    an operation of its own, which such a rule does not name."""
    if _sets_state(tool, keys):
        return []
    return [
        (step.sql, step.error)
        for row in sorted(_rows_changed(tool, keys))
        for step in changes.get(row, [])
    ]


def covered(coverage: list[RuleCoverage], given: list[Enforcement]) -> list[RuleCoverage]:
    """The rules with the steps `guarded_moves` gave beside the create's that says them."""
    out = []
    for rule in coverage:
        said = {e.check for e in rule.enforced_by}
        extra = [e for e in given if e.check in said and e not in rule.enforced_by]
        out.append(rule.model_copy(update={"enforced_by": [*rule.enforced_by, *extra]}))
    return out
