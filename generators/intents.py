"""The `intent` task strategy: a task starts from a purpose, and the gold calls are the ones
that serve it. A user (a row of the table people are: the one with an email, else the
root the others point to) wants an operation done on one of their own records; the gold
identifies them, finds the record, writes, and tells them what changed. Where a rule
forbids the operation (a require step fails), the task is a refusal: the gold shows the
check that fails (`expect_error`) and writes nothing, so an agent learns to say no.

Everything the user states comes from the seed, true by construction, and is what a person
would know: their email, the kind of account, the last digits of a card; an internal key
only when nothing else tells the record apart. The model only words the request.
"""

from __future__ import annotations

import contextlib
import random
import re
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from generators.arguments import ArgumentSampler, parameter_columns, still_to_come
from generators.compound import joined
from generators.config import DEFAULT_CONFIG, GenerationConfig
from generators.patterns import ENDED_STATES, TERMINAL
from generators.preferences import sample_preference
from generators.sampled import no_chain, verbalized_task
from generators.sampling import Chain
from toolscale.brief import Brief
from toolscale.dataflow import value_key
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient, Outcome
from toolscale.matching import day_of, scalars
from toolscale.schema import Scalar, Schema, Table
from toolscale.spec import EnvironmentSpec
from toolscale.task import OutputRef, Task
from toolscale.tool import RequireStep, Tool, ToolCall, ToolResult
from toolscale.wording import (
    GENERIC,
    NAME_COLUMNS,
    NAME_PARTS,
    closed_choices,
    names_state,
    operation_words,
    record_names,
    singular,
    words,
)

STAGE = "intent"
PREFERENCE_SHARE = 0.2
TWO_SHARE = 0.3  # of served purposes, those the person asks a second change beside
TRIES = 40  # (write, record, arguments) drafts per work item
# and per refusal work item: most writes never fail on their person's records, and at 40,
# 60 drafts over school's environment (0.33 of them refusals) found 3 refusals, at 120, 9;
# a refusal's draft is up to three sandbox steps (pushed, pushed plain, plain), milliseconds
REFUSAL_TRIES = 120
PER_WRITE = 8  # of them on one write before drawing another
OWN_RECORDS = 4.0  # weight of a write on a record the person owns against one on their row
RULED = 3.0  # and of a write that enforces a rule of the brief against one that does not
SHARE_CAP = 1 / 3  # of the draws one write may take where others can be drawn
# states a business moves a record into as it does its work (an order paid, shipped or
# delivered; a reservation seated; a loan approved) or where a record begins (pending,
# booked): the catalogue offers a move to each, but no customer asks a service for one.
# Ecommerce's 1.5B shoppers set their own orders to paid, delivered and pending; a
# restaurant guest set a seated reservation back to booked.
UNASKED_STATES = frozenset(
    (
        *("paid", "shipped", "delivered", "dispatched", "fulfilled", "processed", "posted"),
        *("settled", "seated", "completed", "finished", "done", "resolved", "approved"),
        *("rejected", "denied", "expired", "terminated", "graded", "attended", "boarded"),
        *("departed", "arrived", "no_show", "published", "pending", "new", "booked"),
        *("scheduled", "requested", "in_progress", "in_transit", "overdue", "defaulted"),
        # finance on d608f62: "I need to fail my pending transfer", "set my loan repaid"
        *("failed", "repaid"),
    )
)


# states after which a record is done with: a served write acts on another where it can
OVER = TERMINAL | {"shipped", "delivered", "dispatched", "in_transit", "finished", "done"}
OVER |= {"resolved", "repaid", "failed", "no_show", "departed", "arrived", "attended"}


@dataclass(frozen=True)
class KeyParam:
    """A tool parameter that names a row: the key of `table` (directly or through a
    foreign key column)."""

    param: str
    table: str


def key_params(tool: Tool, spec: EnvironmentSpec) -> list[KeyParam]:
    out = []
    for param, (table_name, column) in parameter_columns(tool, spec).items():
        table = spec.schema_.table(table_name)
        if table.primary_key == [column]:
            out.append(KeyParam(param, table.name))
            continue
        for fk in table.foreign_keys:
            if fk.columns == [column]:
                out.append(KeyParam(param, fk.ref_table))
    return out


@dataclass
class Purpose:
    """What the user wants: `write` called with `arguments` on `target` (a record of
    `table`), and whether a rule refuses it (`error`)."""

    write: Tool
    table: str
    target: Scalar
    arguments: dict[str, Scalar]
    error: str | None = None
    checked: list[str] = field(default_factory=list)  # columns the failing rule reads


def _failing(tool: Tool, error: str) -> list[RequireStep]:
    """The require steps whose error a refused call gave."""
    return [s for s in tool.require if s.error and s.error.casefold() == error.casefold()]


def _on_arguments(step: RequireStep, arguments: dict[str, Scalar]) -> bool | None:
    """Whether a step that reads no table holds for these arguments ("SELECT :grade_score
    <= 100.0"); None for a step that reads a row, or one it cannot bind."""
    if re.search(r"\bFROM\b", step.sql, re.IGNORECASE):
        return None
    with contextlib.closing(sqlite3.connect(":memory:")) as db:
        try:
            row = db.execute(step.sql, arguments).fetchone()
        except sqlite3.Error:
            return None
    return bool(row and row[0])


def _rule_columns(
    tool: Tool, error: str, table: Table, arguments: dict[str, Scalar] | None = None
) -> list[str] | None:
    """The target's columns the failing require step reads; None when the step only checks
    that a row exists (the user's own record always does), is not a require step, or is
    one on the arguments alone that these arguments break (school-intent-00012 on 5d152ba:
    one error for "a score between 0 and 100" and "an active enrollment" told the active
    status of a grade refused for its score 3462.6)."""
    steps = _failing(tool, error)
    if not steps:
        return None
    if arguments is not None and any(_on_arguments(s, arguments) is False for s in steps):
        return None
    # one error for several steps (restaurant's "a reservation with status seated and a menu
    # item whose is_available is true"): which failed is not known, and telling the seated
    # status explained nothing when the item was unavailable
    read = []
    for step in steps:
        sql = re.sub(r":\w+", " ", step.sql)
        hop = r"\(SELECT \w+ FROM \w+ WHERE \w+ =\s*\)"
        while re.search(hop, sql):  # a key found through another row ("the ticket's trip")
            sql = re.sub(hop, " ", sql)
        if any(t != table.name for t in re.findall(r"\bFROM (\w+)", sql)):
            return None  # the rule reads another table's row: the target's own shows nothing
        read.append(sql)
    sql = " ".join(read)
    cols = [
        c
        for c in table.column_names
        if c not in table.primary_key and re.search(rf"\b{re.escape(c)}\b", sql, re.IGNORECASE)
    ]
    # what the rule reads of the row itself before whom it points to: medicine's users asked
    # for "the current appointment patient id and appointment doctor id", the ids the rule
    # compared, while its status went untold
    # ... and never the ids alone: school's "a student cannot enroll twice in the same
    # course" told a student id and a course id to "I'd like to know if it's possible"
    # (school-intent-00005 on 920fa98), or had the user ask for them (00010)
    keys = {c for fk in table.foreign_keys for c in fk.columns}
    return [c for c in cols if c not in keys] or None


def _rows_by_key(spec: EnvironmentSpec, table: Table) -> dict[Scalar, dict]:
    key = table.primary_key[0]
    return {r[key]: r for r in spec.seed.get(table.name, [])}


def draft_purpose(
    env: Environment,
    sampler: ArgumentSampler,
    people: Table,
    owned: dict[str, dict[Scalar, Scalar]],
    rng: random.Random,
    refusal: bool,
) -> Purpose | None:
    """A write on a record of one person, run in the sandbox: kept when it changes the state
    (or, for a refusal, when a rule's require step refuses it). A refusal's work item that
    finds none drafts a served purpose: it still makes a task."""
    spec = env.spec
    writes = []
    for tool in spec.tools:
        if tool.kind != "write":
            continue
        keys = key_params(tool, spec)
        if any(k.table in owned for k in keys):
            writes.append((tool, keys))
    asked = [
        (t, k) for t, k in writes if not _to_unasked_state(t) and not _sanctions_self(t, people)
    ]
    writes = asked or writes  # where every write is such a move, they are all there is
    held = spec.schema_.held_by(people.name)  # once per draft: the loop below runs 40 times
    whose = {p: spec.owners(spec.schema_.table(p)) for p in set(held.values())}
    writes = [(t, k) for t, k in writes if not _to_other_people(k, people, held)]
    if not writes:
        return None
    # a write on one of the person's records (a card, a loan) needs the person found and the
    # record told apart: the longer, more useful task; their own row is the short one
    # a new record of theirs (a booking) too: at weight 1, movie's one create was drawn for
    # 1 in 17 work items, and no booking task was ever kept
    # and the brief's operations (its rules' tools) before the catalogue's others: the 1.5B
    # shoppers of ecommerce set their own orders to paid and delivered, not cancelled
    # a new record of the person's with nothing of theirs in it (an order of no items:
    # ecommerce kept 9 "create an order for myself" of 16 tasks) is the short task too
    ruled = {name for coverage in spec.rules for name in coverage.tools()}
    weights = [
        (
            OWN_RECORDS
            if (tool.creates and _chosen(tool, spec.schema_) | closed_choices(tool))
            or any(k.table != people.name for k in keys if k.table in owned)
            else 1.0
        )
        * (RULED if tool.name in ruled else 1.0)
        for tool, keys in writes
    ]
    weights = capped(weights, SHARE_CAP)
    for attempt in range(REFUSAL_TRIES if refusal else TRIES):
        if attempt % PER_WRITE == 0:  # a write is tried on a few records before another:
            # redrawing each time gave the writes that rarely fail most of the tasks (travel:
            # 56 of 120 drafts moved a booking, none cancelled a flight booking)
            tool, keys = rng.choices(writes, weights)[0]
        targets = [k for k in keys if k.table in owned and k.table != people.name] or [
            k for k in keys if k.table in owned
        ]
        target = targets[0]
        holders = sorted(set(owned[target.table].values()), key=str)
        if not refusal and not _to_unasked_state(tool):
            # travel-intent-00024 on d7b1bec moved a hotel stay of 2024-12-11 under a 2025
            # clock, its customer's only one, while others held stays ahead
            ahead = set(_ahead(owned[target.table], spec, target.table).values())
            holders = [p for p in holders if p in ahead] or holders
        person = rng.choice(holders)
        mine = {
            t: sorted((k for k, o in recs.items() if o == person), key=str)
            for t, recs in owned.items()
        }
        given: dict[str, Scalar] = {}
        used: set[Scalar] = set()
        for k in keys:
            choices = [v for v in mine.get(k.table, []) if v not in used]
            if k == target and not refusal and not _to_unasked_state(tool):
                choices = _still_to_come(spec, spec.schema_.table(k.table), choices)
                choices = _still_live(spec, spec.schema_.table(k.table), tool, choices)
            if k.table == people.name:
                given[k.param] = person
            elif choices:
                given[k.param] = rng.choice(choices)
                used.add(given[k.param])
        if target.param not in given:
            continue
        arguments = sampler.arguments(tool, rng, given=given, optional=0.0, ahead=not refusal)
        if _hands_over(spec, keys, arguments, held, whose):
            continue
        tried = [arguments]
        if refusal:
            # a rule on the row's own state refuses a plain request too: weather's
            # create_reading for an inactive station was always pushed past its temperature
            # range (one error for both, which told nothing) or dated in a past the rule
            # never reads, and none of 69 such drafts became a refusal
            plain = sampler.arguments(tool, rng, given=given, optional=0.0, ahead=True)
            if _hands_over(spec, keys, plain, held, whose):
                plain = arguments  # its own draw of where the record goes is checked too
            # ... and then the plain one is tried first: finance-intent-00017 on 0ee2fcd
            # asked to "repay 69391.2 from my closed loan", 2.9 times the loan, where any
            # amount is refused on a loan that owes nothing
            tried = [plain, _pushed(tool, arguments, rng), _pushed(tool, plain, rng)]
        table = spec.schema_.table(target.table)
        for arguments in tried:
            env.reset()
            before = env.sandbox.changes()
            result = env.step(ToolCall(name=tool.name, arguments=arguments))
            if result.ok and not refusal and env.sandbox.changes() != before:
                return Purpose(tool, target.table, given[target.param], arguments)
            if result.ok or not refusal or not result.error:
                continue
            if _asks_what_is(tool, arguments, spec):
                continue
            if _past_for_nothing(tool, arguments, result.error, spec.clock):
                continue
            cols = _rule_columns(tool, result.error, table, arguments)
            if cols:
                return Purpose(
                    tool, target.table, given[target.param], arguments, result.error, cols
                )
    return draft_purpose(env, sampler, people, owned, rng, False) if refusal else None


def second_change(
    env: Environment,
    sampler: ArgumentSampler,
    first: Purpose,
    chain: Chain,
    people: Table,
    owned: dict[str, dict[Scalar, Scalar]],
    rng: random.Random,
) -> Chain | None:
    """`chain` and after it a second change the same person asks for, by another write on
    a record of another kind (`compound.joined`), or None where none joins it. Two of one
    kind leave "tell me the booking status" asking of either: a trial on movie's 71aacdf
    environment set one booking active, moved another and asked so. Only their records
    still to come are offered: the second change has no other person to turn to."""
    spec = env.spec
    person = owned[first.table][first.target]
    mine = {
        t: theirs
        for t, recs in owned.items()
        if (theirs := _ahead({k: p for k, p in recs.items() if p == person}, spec, t))
    }
    for _ in range(3):
        other = draft_purpose(env, sampler, people, mine, rng, False)
        if other is None:
            return None
        if other.write.name == first.write.name or _kind(other) == _kind(first):
            continue
        second = gold_chain(env, other, people, owned)
        if second is not None and (both := joined(env, chain, second)) is not None:
            return both
    return None


def _kind(purpose: Purpose) -> str:
    """The kind of record a purpose changes: a create's is the new record's, not the table
    of the record it is drafted on. school-intent-00062 on 13b4e73 created an enrollment
    for a course and moved another enrollment, and asked "the enrollment id and enrollment
    status" of either."""
    made = purpose.write.inserts() if purpose.write.creates else []
    return made[0] if made else purpose.table


def _still_to_come(spec: EnvironmentSpec, table: Table, keys: list[Scalar]) -> list[Scalar]:
    """Of the person's records, those still to come (`still_to_come`), else all of them.
    What is over is a refusal's to pick, or a move to a state only the business reaches."""
    ahead = _ahead({k: k for k in keys}, spec, table.name)
    return [k for k in keys if k in ahead] or keys


def _ahead(
    records: dict[Scalar, Scalar], spec: EnvironmentSpec, table: str
) -> dict[Scalar, Scalar]:
    """Of `records` (key to owner) of `table`, those still to come (`still_to_come`)."""
    rows = _rows_by_key(spec, spec.schema_.table(table))
    ahead = still_to_come(spec.schema_.table(table), list(rows.values()), spec.clock)
    return {key: owner for key, owner in records.items() if ahead(rows.get(key, {}))}


def _still_live(
    spec: EnvironmentSpec, table: Table, tool: Tool, keys: list[Scalar]
) -> list[Scalar]:
    """Of the person's records, those not over (cancelled, closed, shipped, ...), where the
    write's checks never read the status: nothing stops ecommerce's `create_order_item` on
    a shipped order, and a task that adds to one teaches an agent to act on what is done.
    A write whose rule reads the status (a return for a delivered order) takes any."""
    found = table.status()
    if found is None:
        return _parent_live(spec, table, tool, keys)
    if any(found[0] in step.sql for step in tool.require):
        return keys
    rows = _rows_by_key(spec, table)
    return [k for k in keys if rows.get(k, {}).get(found[0]) not in OVER] or keys


def _parent_live(
    spec: EnvironmentSpec, table: Table, tool: Tool, keys: list[Scalar]
) -> list[Scalar]:
    """Of records with no status of their own, those whose parent is not over: ecommerce's
    move_order_item_product changed the product of an item on an order delivered in 2022
    (ecommerce-intent-00014 on a310e34), which no customer asks."""
    rows = _rows_by_key(spec, table)
    for fk in table.foreign_keys:
        parent = spec.schema_.table(fk.ref_table)
        found = parent.status()
        if len(fk.columns) != 1 or found is None or len(parent.primary_key) != 1:
            continue
        if any(f"{parent.name}" in step.sql and found[0] in step.sql for step in tool.require):
            continue  # the write's rule reads the parent's state (a return on a delivered order)
        states = {k: r.get(found[0]) for k, r in _rows_by_key(spec, parent).items()}
        keys = [
            k for k in keys if states.get(rows.get(k, {}).get(fk.columns[0])) not in OVER
        ] or keys
    return keys


def _past_for_nothing(tool: Tool, arguments: dict[str, Scalar], error: str, clock: str) -> bool:
    """A refusal's day before today that the refusing rule never reads: medicine-intent-00005
    on 277c846, refused for its doctor, asked for a prescription expiring 2024-07-16 under a
    2025 clock. A past day is kept where the rule is about the moment ("only future dates")."""
    past = [
        p
        for p, v in arguments.items()
        if isinstance(v, str) and re.match(r"\d{4}-\d{2}-\d{2}", v) and v[:10] < clock[:10]
    ]
    read = " ".join(s.sql for s in _failing(tool, error))
    return bool(past) and not any(re.search(rf":(?:{p}|_now)\b", read) for p in past)


def _to_other_people(keys: list[KeyParam], people: Table, held: dict[str, str]) -> bool:
    """A move of a record another kind of person holds (`held`: `Schema.held_by`) to
    another such person: school's teachers moved a student's enrollment to another student
    (school-intent-00008 on 637bf78), which no school does for whoever asks. A move between
    people of the asker's kind (a team trading its player) stays, as does one onto a person
    who does not hold the record (a patient's appointment moved to another doctor)."""
    moved = [k.table for k in keys if not k.param.startswith("new_")]
    return any(
        k.param.startswith("new_") and k.table != people.name and held.get(t) == k.table
        for k in keys
        for t in moved
    )


def _hands_over(
    spec: EnvironmentSpec,
    keys: list[KeyParam],
    arguments: dict[str, Scalar],
    held: dict[str, str],
    whose: dict[str, dict[str, dict[Scalar, Scalar]]],
) -> bool:
    """A move that gives a record another person holds to a third, through the row it goes
    under (`whose`: `EnvironmentSpec.owners` of each kind in `held`): school's teachers
    moved a grade from one student's enrollment to another student's (school-intent-00002
    on 637bf78). A move between the same person's rows (a grade put on the right course of
    its student) stays."""
    moved = next((k for k in keys if not k.param.startswith("new_")), None)
    if moved is None:
        return False
    table = spec.schema_.table(moved.table)
    row = _rows_by_key(spec, table).get(arguments.get(moved.param))
    for k in keys:
        other = held.get(k.table)
        if not k.param.startswith("new_") or other is None or row is None:
            continue
        to = [f for f in table.foreign_keys if f.ref_table == k.table]
        column = k.param.removeprefix("new_")
        fk = next((f for f in to if f.columns == [column]), to[0] if to else None)
        if fk is None:
            continue
        owner = whose[other].get(k.table, {})
        before, after = owner.get(row.get(fk.columns[0])), owner.get(arguments.get(k.param))
        if before is not None and after is not None and before != after:
            return True
    return False


def capped(weights: list[float], cap: float) -> list[float]:
    """The weights with none above `cap` of their sum, the excess cut from the heaviest:
    the weights multiply (a ruled write on the person's records is 12 to a plain 1), and
    railway drew cancel_ticket for 25 of 44 drafts and kept it in 19 of 30 tasks."""
    out = list(weights)
    if len(out) * cap <= 1:
        return out  # too few writes to share them out: the weights stand
    while True:
        total = sum(out)
        over = [i for i, w in enumerate(out) if w > cap * total + 1e-9]
        if not over:
            return out
        rest = total - sum(out[i] for i in over)
        # each heavy one at `cap` of the new sum: w = cap * (rest + len(over) * w)
        level = cap * rest / (1 - cap * len(over))
        for i in over:
            out[i] = level


def _asks_what_is(tool: Tool, arguments: dict[str, Scalar], spec: EnvironmentSpec) -> bool:
    """The write sets a closed choice, or every value it sets, to what the row already has
    ("set my scheduled appointment to scheduled", "set my refunded ticket to refunded",
    "update my email to" the one it has): refused by a no-op guard, it is no request a
    person makes."""
    columns = parameter_columns(tool, spec)
    keys = {k.param: k.table for k in key_params(tool, spec)}
    for name in closed_choices(tool):
        table, column = columns.get(name, ("", ""))
        key_param = next((p for p, t in keys.items() if t == table), None)
        if not table or key_param is None:
            continue
        row = _rows_by_key(spec, spec.schema_.table(table)).get(arguments.get(key_param))
        if row is not None and row.get(column) == arguments.get(name):
            return True
    for sql in tool.run:  # "UPDATE tickets SET status = 'refunded' WHERE ticket_id = ..."
        m = re.match(r"\s*UPDATE (\w+) SET (.+) WHERE (\w+) = :(\w+)\s*$", sql)
        if m is None or m.group(1) not in spec.schema_.table_names:
            continue
        updated = spec.schema_.table(m.group(1))
        row = _rows_by_key(spec, updated).get(arguments.get(m.group(4)))
        if updated.primary_key != [m.group(3)] or row is None:
            continue
        sets = re.findall(r"(\w+) = (?:'([^']*)'|:(\w+))", m.group(2))
        # a fixed value, or a given one ("update my email to" the email it has)
        said = [
            (c, fixed if not param else arguments.get(param))
            for c, fixed, param in sets
            if not param.startswith("_")  # the clock
        ]
        if said and all(row.get(column) == value for column, value in said):
            return True
        # the state it moves to is the one the row is in, whatever else it sets: finance's
        # "freeze my frozen card" (with another reason) on 4221446
        if any(
            not param and "status" in c and row.get(c) == fixed and names_state(tool, fixed)
            for c, fixed, param in sets
        ):
            return True
    return False


def _pushed(tool: Tool, arguments: dict[str, Scalar], rng: random.Random) -> dict[str, Scalar]:
    """Numbers asked for well past what a row holds: how a user runs into a limit."""
    out = dict(arguments)
    for name, value in arguments.items():
        if isinstance(value, float) and tool.param_types().get(name) == "number":
            out[name] = round(value * rng.choice([4, 8, 15, 40]), 2)
    return out


def _describing(
    rows: Sequence[dict], target: dict, key: str, first: Sequence[str] = ()
) -> tuple[str, Scalar] | None:
    """A column whose value tells the target apart from the person's other rows, as a person
    would say it (a kind, a name, the last digits), never a key; the `first` columns are
    tried before the others."""
    order = [c for c in first if c in target] + [c for c in target if c not in first]
    for col, value in ((c, target[c]) for c in order):
        if col == key or col.endswith("_id") or value is None or isinstance(value, bool):
            continue
        if isinstance(value, float) or (isinstance(value, str) and len(value) > 40):
            continue
        day = day_of(value)  # "my order from 2024-05-27", not "from 2024-05-27T21:40:34"
        if day is not None and sum(day_of(r.get(col)) == day for r in rows) == 1:
            return col, day
        if sum(r.get(col) == value for r in rows) == 1:
            return col, value
    return None


def _find_tool(spec: EnvironmentSpec, people: Table) -> tuple[Tool, str] | None:
    """A read that finds a person by their email."""
    email = people.email_column()
    for tool in spec.tools:
        required = tool.parameters.get("required", [])
        if tool.kind != "read" or len(required) != 1:
            continue
        if parameter_columns(tool, spec).get(required[0]) == (people.name, email):
            return tool, required[0]
    return None


def _list_tool(
    env: Environment,
    table: Table,
    owner: Table,
    owner_key: Scalar,
    target: Scalar,
    first: Sequence[str] = (),
) -> Listing | None:
    """A read that lists the rows of `table` under one row of `owner` (a person's cards, an
    account's cards), the target among them, told apart by the `first` columns where they
    can; tried in the sandbox, as a listing may join through other tables."""
    spec = env.spec
    key = table.primary_key[0]
    for tool in spec.tools:
        required = tool.parameters.get("required", [])
        if tool.kind != "read" or tool.single or len(required) != 1:
            continue
        if not any(
            k.table == owner.name and k.param == required[0] for k in key_params(tool, spec)
        ):
            continue
        call = ToolCall(name=tool.name, arguments={required[0]: owner_key})
        env.reset()
        result = env.step(call)
        rows = result.output if result.ok and isinstance(result.output, list) else []
        rows = [r for r in rows if isinstance(r, dict)]
        if any(r.get(key) == target for r in rows):
            described = _describing(rows, _row_of(rows, key, target), key, first)
            return Listing(call, table.name, rows, described, target)
    return None


@dataclass
class Listing:
    """One step of finding a record: the listing call, its rows, and what tells the wanted
    row apart from the others (None when nothing does)."""

    call: ToolCall
    table: str  # whose rows it lists
    rows: list[dict]
    described: tuple[str, Scalar] | None
    picked: Scalar = None  # the key of the wanted row


def _row_of(rows: list[dict], key: str, value: Scalar) -> dict:
    return next(r for r in rows if r.get(key) == value)


def route(
    env: Environment,
    table: Table,
    people: Table,
    person: Scalar,
    target: Scalar,
    by_id: bool = False,
    depth: int = 3,
) -> list[Listing]:
    """How an agent finds the target from the person: their rows of its table, else their
    rows of its parent (an account) and the parent's rows (its cards), the parent itself
    found so where the person lists none of it (ecommerce's returns: the person's orders,
    an order's items, an item's returns; `depth` tables down at most); each step with what
    the person would say to pick the row. With `by_id`, a way where nothing but its id
    tells a row apart (the user then gives the id) is taken when no other is. Empty when
    no such way exists."""
    spec = env.spec
    direct = _list_tool(env, table, people, person, target)
    if direct is not None and direct.described:
        return [direct]
    row = _rows_by_key(spec, table).get(target, {})
    fallback: list[Listing] = []
    for fk in table.foreign_keys:
        if len(fk.columns) != 1 or fk.ref_table in (people.name, table.name):
            continue
        parent = spec.schema_.table(fk.ref_table)
        if len(parent.primary_key) != 1 or row.get(fk.columns[0]) is None:
            continue
        up = _list_tool(env, parent, people, person, row[fk.columns[0]])
        down = _list_tool(env, table, parent, row[fk.columns[0]], target)
        if up and down and up.described and down.described:
            return [up, down]
        if by_id and up and down and not fallback:
            fallback = [up, down]
        if up is None and down is not None and depth > 2:
            ups = route(env, parent, people, person, row[fk.columns[0]], by_id, depth - 1)
            if ups and down.described and all(u.described for u in ups):
                return [*ups, down]
            if by_id and ups and not fallback:
                fallback = [*ups, down]
    if by_id and direct is not None:
        return [direct]
    return fallback


def _get_tool(spec: EnvironmentSpec, table: Table) -> tuple[Tool, str] | None:
    for tool in spec.tools:
        required = tool.parameters.get("required", [])
        if tool.kind != "read" or not tool.single or len(required) != 1:
            continue
        if parameter_columns(tool, spec).get(required[0]) == (table.name, table.primary_key[0]):
            return tool, required[0]
    return None


def _shown(
    results: list[ToolResult], key: str, target: Scalar, columns: list[str]
) -> tuple[int, str] | None:
    """(call, path prefix) of the latest output holding the target row with `columns`."""
    for j in range(len(results) - 1, -1, -1):
        output = results[j].output if results[j].ok else None
        at = _row_at(output, key, target)
        if at is not None and all(c in at[1] for c in columns):
            return j, f"{at[0]}." if isinstance(output, list) else ""
    return None


def _row_at(output: object, key: str, value: Scalar) -> tuple[int, dict] | None:
    rows = output if isinstance(output, list) else [output]
    for i, row in enumerate(rows):
        if isinstance(row, dict) and row.get(key) == value:
            return i, row
    return None


def gold_chain(
    env: Environment, purpose: Purpose, people: Table, owned: dict[str, dict[Scalar, Scalar]]
) -> Chain | None:
    """The calls that serve the purpose, run for real: identify the person by email, list
    their records to find the target (when the person can describe it), the write, and a
    read back (or, for a refusal, the read that shows why) when the write's own output does
    not say what the user wants to know."""
    spec = env.spec
    table = spec.schema_.table(purpose.table)
    key = table.primary_key[0]
    person = owned[purpose.table][purpose.target]
    person_row = _rows_by_key(spec, people)[person]
    seed_target = _rows_by_key(spec, table)[purpose.target]
    plan: list[ToolCall] = []
    facts: list[tuple[str, Scalar]] = []
    own = table.name == people.name
    # a record nothing but its id tells apart is still found among the person's own: the
    # policy has the agent identify the user and read the record first (finance's gold set
    # a transfer pending by the id alone, 17 of 80 drafts skipping both)
    steps = route(env, table, people, person, purpose.target, by_id=True) if not own else []
    found = _find_tool(spec, people)
    email = people.email_column()
    needs_person = bool(steps) or person in purpose.arguments.values()
    if found and email and not own and not needs_person:
        # no read leads from the person to the record (ecommerce's returns, three tables
        # down): a gold that writes by the id alone is rejected as unidentified_user, so it
        # is not worded at all
        return None
    if found and email and needs_person:  # identify first, when what follows uses who it is
        plan.append(ToolCall(name=found[0].name, arguments={found[1]: person_row[email]}))
    plan += [step.call for step in steps]
    others = _other_routes(env, purpose, people, person, owned, table)
    plan += [s.call for s in others if s.call not in plan]
    lookups = _lookups(env, purpose, owned)
    named: dict[int, str] = {}
    for lookup in lookups:
        named[len(plan)] = lookup.noun  # the finder's arguments: "movie title"
        plan += lookup.calls
    write_at = len(plan)
    plan.append(ToolCall(name=purpose.write.name, arguments=purpose.arguments))
    env.reset()
    results: list[ToolResult] = []
    for call in plan:
        results.append(env.step(call))
    if any(not r.ok for r in results[:write_at]):
        return None
    if (purpose.error is None) != results[write_at].ok:
        return None
    told: list[OutputRef] = []
    wanted: list[str] = []
    if purpose.error is None:
        after = results[write_at].output
        row = after if isinstance(after, dict) else None
        at = ""  # a write that shows several rows (a transfer's two accounts): the target's
        if isinstance(after, list):
            at, row = next(
                (
                    (f"{i}.", r)
                    for i, r in enumerate(after)
                    if isinstance(r, dict) and value_key(r.get(key)) == value_key(purpose.target)
                ),
                ("", None),
            )
        changed = [
            c
            for c in table.column_names
            if c != key and row is not None and c in row and row[c] != seed_target.get(c)
        ]
        given = {value_key(v) for v in purpose.arguments.values() if v is not None}
        # the new record: its key, and a field; not the moment it was made, which is now.
        # A write that adds a row and changes another (an order item taking stock) shows
        # the new row too: ecommerce told its created_at as "the order created at"
        made = _made(purpose.write, spec.schema_, row)
        if made is not None and row is not None:
            changed = [
                c
                for c, v in row.items()
                if v is not None and value_key(v) not in given and not _now(v, spec.clock)
            ]
        # what the user set is no news: "tell me the flight booking flight id" after moving
        # it to the flight they named sent the judge looking for another (travel's moves,
        # 28 proposed, none kept); such a change is checked by its end state alone
        news = [c for c in changed if row is not None and value_key(row[c]) not in given]
        if news:
            # finance-intent-00036 on e4504b8 read the account back after a transfer whose
            # output held its new balance (told again from the read: an unused read)
            told = [OutputRef(call=write_at, path=at + c) for c in news[:2]]
        elif not changed:
            getter = _get_tool(spec, table)
            if getter is None:
                return None
            plan.append(ToolCall(name=getter[0].name, arguments={getter[1]: purpose.target}))
            results.append(env.step(plan[-1]))
            back = results[-1].output if results[-1].ok else None
            changed = [
                c
                for c in table.column_names
                if c != key and isinstance(back, dict) and back.get(c) != seed_target.get(c)
            ]
            if not changed:
                return None
            told = [OutputRef(call=len(plan) - 1, path=c) for c in changed[:2]]
        # the new record's fields are its own: "the card id", not "the account card id";
        # the person's own fields are theirs: "my email", not "my client email"
        fields = [ref.path.split(".")[-1] for ref in told]
        wanted = [f if own and made is None else _field_of(made or table, f) for f in fields]
    else:
        # a refusal: tell the values the failing rule reads, from a read before the write
        # the latest read before the write that shows the row (its listing, or the find
        # that identified the person when the row is theirs: travel-intent-00007 read the
        # customer again after finding them)
        # a rule's column the row leaves empty tells nothing: finance-intent-00039 on
        # 5cf74c2 was to tell a reported card's frozen_reason, null (communicate_unresolved)
        checked = [c for c in purpose.checked if seed_target.get(c) is not None][:2]
        if not checked:
            return None
        source = _shown(results[:write_at], key, purpose.target, checked)
        if source is None:
            getter = _get_tool(spec, table)
            if getter is None:
                return None
            plan.insert(
                write_at, ToolCall(name=getter[0].name, arguments={getter[1]: purpose.target})
            )
            env.reset()
            results = [env.step(c) for c in plan]
            if not results[write_at].ok:
                return None
            source = (write_at, "")
            write_at += 1
        told = [OutputRef(call=source[0], path=f"{source[1]}{c}") for c in checked]
        wanted = [_field_of(table, c) for c in checked]
    seen: set[object] = set()
    chosen = _chosen(purpose.write, spec.schema_)
    # a new record's field is its own: "the payee name is Sunrise Rentals", not "my name"
    new = _inserted(purpose.write, spec.schema_) if purpose.write.creates else None
    for i, (call, result) in enumerate(zip(plan, results, strict=True)):
        for name, value in call.arguments.items():
            mine = i == write_at and name in chosen and value not in [v for _, v in facts]
            if value is not None and (value not in seen or mine):
                label = _possessed(named[i], name) if i in named else name
                if i == write_at and new is not None and name in chosen:
                    label = _field_of(new, name).replace("_", " ")
                facts.append((label, value))
                seen.add(value)
        seen.update(scalars(result.output))
    listed = [lookup.listing for lookup in lookups if lookup.listing is not None]
    for step in [*steps, *others, *listed]:
        if step.described is not None and step.described[1] not in [v for _, v in facts]:
            col, value = step.described
            noun = singular(step.table)
            # "showtime showtime_date" came back as "The showtime showtime date is ..."
            facts.append((col if col.startswith(f"{noun}_") else f"{noun} {col}", value))
        elif step.described is None and step.picked not in [v for _, v in facts]:
            facts.append((spec.schema_.table(step.table).primary_key[0], step.picked))
    facts += _other_records(purpose, spec, table, steps[-1].rows if steps else [], seen)
    errors = {write_at: purpose.error} if purpose.error else {}
    to = _destination(purpose, spec, people, person, others, seen)
    held = spec.schema_.held_by(people.name)
    words = purpose_words(purpose, table, steps, own=own, to=to, held=held)
    saying = operation_words(purpose.write, purpose.arguments, spec.schema_)
    speaker = singular(people.name).replace("_", " ") if people.email_column() else "customer"
    foreign: list[Scalar] = [
        value
        for k in key_params(purpose.write, spec)
        if (value := purpose.arguments.get(k.param)) is not None
        and owned.get(k.table, {}).get(value, person) != person
    ]
    return Chain(plan, results, facts, told, wanted, 0, errors, words, [saying], speaker, foreign)


def _destination(
    purpose: Purpose,
    spec: EnvironmentSpec,
    people: Table,
    person: Scalar,
    others: list[Listing],
    shown: Collection[object] | None = None,
) -> str:
    """Where a move takes the record, as its owner says it: "to their own team", "to their
    player whose name is Briana Ward". Basketball's "move the contract team for Briana Ward"
    named no team, and the judge refused all 5 moves: it could not tell where to."""
    for k in key_params(purpose.write, spec):
        value = purpose.arguments.get(k.param)
        if not k.param.startswith("new_") or value is None:
            continue
        noun = singular(k.table).replace("_", " ")
        if k.table == people.name and value == person:
            return f"to their own {noun}"
        step = next((s for s in others if s.table == k.table and s.picked == value), None)
        if step is not None:
            return f"to their {_record(k.table, step.described)}"
        # a record of nobody's by its name: medicine's "move appointment to doctor" came back
        # as "move it to my preferred time" (4 of its first 25 drafts), with no doctor said
        table = spec.schema_.table(k.table)
        row = _rows_by_key(spec, table).get(value)
        if row is not None and (name := _name_of(row)):
            return f"to the {noun} {name}"
        # by its moment only where a call shows it: travel's "to the flight at
        # 2025-02-01T20:15:25", read by no call, was unrelated_fact (4 of 18 drafts on d7b1bec)
        said = _by_its_parent(spec, table, row) if row is not None else ""
        if said and (shown is None or said.split("at ")[-1] in shown):
            return f"to the {noun} {said}"
    return ""


def _by_its_parent(spec: EnvironmentSpec, table: Table, row: dict) -> str:
    """A record with no name of its own, as a person tells it: "of Inception at
    2024-10-10T07:40:20", its parent's name and its moment. Movie's moves onto a showtime
    were told no destination on 71aacdf, and its 1.5B said the film as the booking's ("my
    booking of Inception"): 4 of 4 kept moves were wrong."""
    moment = next(
        (row[c.name] for c in table.columns if c.type in ("date", "datetime") and row.get(c.name)),
        None,
    )
    for fk in table.foreign_keys:
        parent = spec.schema_.table(fk.ref_table)
        if len(fk.columns) != 1 or len(parent.primary_key) != 1:
            continue
        parent_row = _rows_by_key(spec, parent).get(row.get(fk.columns[0]))
        if parent_row is not None and (name := _name_of(parent_row)) and moment:
            return f"of {name} at {moment}"
    return f"at {moment}" if moment else ""


def _name_of(row: dict) -> str:
    return next(iter(record_names(row)), "")


def _other_routes(
    env: Environment,
    purpose: Purpose,
    people: Table,
    person: Scalar,
    owned: dict[str, dict[Scalar, Scalar]],
    table: Table,
) -> list[Listing]:
    """How the agent finds the write's other records of the person (the player a new
    ticket is for): listed and picked as the target is, so the user names the player and
    never states "the player ID is 24182" (basketball's tasks did)."""
    out: list[Listing] = []
    for k in key_params(purpose.write, env.spec):
        value = purpose.arguments.get(k.param)
        if k.table not in owned or k.table in (people.name, table.name) or value is None:
            continue
        if owned[k.table].get(value) != person:
            continue
        steps = route(env, env.spec.schema_.table(k.table), people, person, value)
        out += [s for s in steps if s.call not in [o.call for o in out]]
    return out


NAMES = (*NAME_COLUMNS, *NAME_PARTS)  # what a person calls a record


@dataclass
class Lookup:
    """How the agent finds a record the write refers to that is not the user's: a read by
    its name, or a read of what it belongs to by name and a listing of that one's records
    (`listing`, with what tells the wanted row apart)."""

    calls: list[ToolCall]
    noun: str  # what the finder's arguments are of: "movie" in "movie title"
    listing: Listing | None = None


def _lookups(
    env: Environment, purpose: Purpose, owned: dict[str, dict[Scalar, Scalar]]
) -> list[Lookup]:
    """How the user names the records the write refers to that are not theirs (the hotel of
    a new booking): by its name, found with a read that finds it by that alone and finds no
    other, so the user never states an internal id (travel-intent-00025 gave "hotel id:
    48580") and the agent looks it up, as a travel agent would. A record without a name is
    named by what it belongs to and what tells it apart there: a showtime by its movie's
    title and its time (movie's bookings needed a showtime id no person has)."""
    spec = env.spec
    out: list[Lookup] = []
    for k in key_params(purpose.write, spec):
        value = purpose.arguments.get(k.param)
        if k.table in owned or value is None:
            continue
        table = spec.schema_.table(k.table)
        row = _rows_by_key(spec, table).get(value)
        if row is None:
            continue
        # where a record moves to is the new one: medicine's "My doctor's first name is
        # Sydney" of the doctor an appointment moves to came back as "move it to you"
        # (27 of 116 drafts rejected as unasked_target on a move, 19 "to you" or the like)
        new = "new " if k.param.startswith("new_") else ""
        found = _by_name(spec, table, row)
        if found is not None:
            out.append(Lookup([found], new + singular(table.name).replace("_", " ")))
            continue
        for fk in table.foreign_keys:
            parent = spec.schema_.table(fk.ref_table)
            if len(fk.columns) != 1 or len(parent.primary_key) != 1 or parent.name in owned:
                continue
            parent_row = _rows_by_key(spec, parent).get(row.get(fk.columns[0]))
            finder = _by_name(spec, parent, parent_row) if parent_row is not None else None
            if finder is None:
                continue
            # a showing is told by its time before its status
            moments = [c.name for c in table.columns if c.type in ("date", "datetime")]
            listing = _list_tool(env, table, parent, row[fk.columns[0]], value, moments)
            if listing is not None and listing.described is not None:
                noun = singular(parent.name).replace("_", " ")
                out.append(Lookup([finder, listing.call], noun, listing))
                break
    return out


def _by_name(spec: EnvironmentSpec, table: Table, row: dict) -> ToolCall | None:
    """A read that finds exactly this row of `table` by what a person calls it."""
    for tool in spec.tools:
        required = tool.parameters.get("required", [])
        columns = parameter_columns(tool, spec)
        if tool.kind != "read" or not required or set(required) != set(columns):
            continue
        if any(columns[p][0] != table.name or columns[p][1] not in NAMES for p in required):
            continue
        wanted = {p: row.get(columns[p][1]) for p in required}
        if not all(isinstance(v, str) and v for v in wanted.values()):
            continue
        same = [
            r
            for r in spec.seed.get(table.name, [])
            if all(str(r.get(columns[p][1])).lower() == str(v).lower() for p, v in wanted.items())
        ]
        if len(same) == 1:
            return ToolCall(name=tool.name, arguments=wanted)
    return None


def _chosen(tool: Tool, schema: Schema) -> set[str]:
    """The write's parameters the user decides (a quantity, an amount, a new email), as
    against a record's key: stated by the user even where an earlier output shows the same
    value. Ecommerce's users added 27 of a product to an order without saying how many,
    27 being the product's stock, which the lookup before it returned."""
    keys = {c for t in schema.tables for c in t.primary_key}
    keys |= {c for t in schema.tables for fk in t.foreign_keys for c in fk.columns}
    kinds = tool.param_types()
    return {
        name
        for name, kind in kinds.items()
        if name not in keys and not name.endswith("_id") and kind != "boolean"
    } - closed_choices(tool)


def _made(tool: Tool, schema: Schema, output: dict | None) -> Table | None:
    """The table of the new row a write's output shows, or None."""
    table = _inserted(tool, schema)
    if table is None or output is None or not table.primary_key:
        return None
    return table if table.primary_key[0] in output else None


def _now(value: Scalar, clock: str) -> bool:
    return isinstance(value, str) and value in (clock, clock[:10])


def _inserted(tool: Tool, schema: Schema) -> Table | None:
    """The table a create inserts into."""
    name = next((t for t in tool.inserts() if t in schema.table_names), None)
    return schema.table(name) if name else None


def _possessed(noun: str, field: str) -> str:
    """Another record's field, said as that record's: "student's first name", "course's
    name". School's "student first name" came back as "My student first name is Pamela", and
    its teachers went on to call the student "my child"."""
    prefix = noun.removeprefix("new ").replace(" ", "_") + "_"
    return f"{noun}'s {field.removeprefix(prefix)}"


def _field_of(table: Table, column: str) -> str:
    """A field as the customer asks for it, with its record: "card_status", not "status"
    (the judge read "tell me the status" after a freeze as the status of the freeze)."""
    noun = singular(table.name)
    return column if column.startswith(noun) else f"{noun}_{column}"


def _other_records(
    purpose: Purpose, spec: EnvironmentSpec, table: Table, rows: list[dict], seen: set[object]
) -> list[tuple[str, Scalar]]:
    """How the user names the write's other records of the same kind (the account money goes
    to): described as a person would, else by their key; the agent cannot guess them."""
    key = table.primary_key[0]
    by_key = {r.get(key): r for r in rows}
    out: list[tuple[str, Scalar]] = []
    for k in key_params(purpose.write, spec):
        value = purpose.arguments.get(k.param)
        if k.table != table.name or value is None or value == purpose.target:
            continue
        said = _describing(rows, by_key[value], key) if value in by_key else None
        if said is not None:
            out.append((f"{k.param.removesuffix('_id')} {said[0]}", said[1]))
        elif value in seen:  # found in an output, so never stated yet
            out.append((k.param, value))
    return out


def _record(table: str, described: tuple[str, Scalar] | None) -> str:
    """A record as its owner would call it: "checking account", "card whose last4 is 2468"."""
    record = singular(table).replace("_", " ")
    if described and isinstance(described[1], str) and described[1].isalpha():
        return f"{described[1]} {record}"
    if described:
        return f"{record} whose {described[0].replace('_', ' ')} is {described[1]}"
    return record


def purpose_words(
    purpose: Purpose,
    table: Table,
    steps: list[Listing],
    own: bool,
    to: str = "",
    held: Collection[str] = (),
) -> str:
    """What the user wants, for the verbaliser: the operation (the write's name, which is
    what the intent stage looks for) and the record as its owner would call it, never the
    calls, so the request reads as a person's and not as the steps that serve it. A record
    of a kind other people hold (`held`: school's enrollments, the students') is "the", not
    "their": "activate their enrollment ... on their course" came back as "activate my
    enrollment" from a teacher."""
    tool = purpose.write
    noun = singular(table.name)
    named = words(tool.name)
    if own and tool.creates:  # "create booking, for their own profile" reads as a profile
        named, which = [w for w in named if singular(w) != noun], "themselves"
    elif own and len(rest := [w for w in named if singular(w) != noun]) >= 2:
        # `update_client_email` on the person's own row: "update client email, for their
        # client profile" came back as "update my client's email" (42 of finance's 124,
        # rejected as someone else's): the person's own email, not a client's
        named, which = rest, "their own profile"
    elif own:
        # "profile": "their own client record" came back as "close my client and get their
        # own client record", and as "your client record"
        which = f"their {noun.replace('_', ' ')} profile"
    elif steps:
        which = " on ".join(
            f"{'the' if step.table in held else 'their'} {_record(step.table, step.described)}"
            for step in reversed(steps)
        )
    else:
        whose = "the" if table.name in held else "their"
        which = f"{whose} {singular(table.name).replace('_', ' ')}"
    chosen = [  # what the write sets, as a change: "frozen reason: stolen" came back as
        # "the card is currently frozen for the reason stolen" (it was active)
        f"{name.replace('_', ' ')} set to {purpose.arguments[name]}"
        for name in sorted(closed_choices(tool))
        if purpose.arguments.get(name) is not None
    ]
    state = _state_set(tool)
    moved = _adjusted(tool)
    amount = purpose.arguments.get(moved[1]) if moved else None
    if moved is not None and amount is not None:
        # `withdraw_account_balance` as "withdraw account balance, for ..." came back as
        # "withdraw my current balance" with the amount only in a known fact (finance): the
        # amount and which way it goes, in the words a person uses
        column, _, sign = moved
        way = "from" if sign == "-" else "to"
        text = f"{named[0]} {amount} {way} the {column.replace('_', ' ')} of {which}"
    elif state is not None and words(tool.name)[0] in GENERIC:
        # `set_pending_hotel_booking` as "set pending hotel booking, for ..." came back from
        # the 1.5B as "set a pending hotel booking for my hotel booking" (11 of travel's 37
        # rejections): the state as what the record is changed to
        text = f"set the {state[0].replace('_', ' ')} of {which} to {state[1]}"
    elif (
        not own
        and not tool.creates
        and (named[1:] == words(noun) or (to and named[1 : 1 + len(words(noun))] == words(noun)))
    ):
        # "refund ticket, for their ticket whose seat number is 889" came back from the 1.5B
        # as "I need to get my ticket status for my ticket seat number 889" (railway on
        # 21ceb83: 6 of its 11 unasked writes; travel on 7e55d3f: 6 of 6 refunds), and "move
        # enrollment student, for their enrollment ..., to the student Kari Spencer" as "the
        # enrollment for student Kari Spencer ... to the student named Kari Spencer" (school
        # on 5d152ba, 3 of its moves): the act as a verb on the record
        text = f"{named[0]} {which}"
    else:
        text = f"{' '.join(named)}, for {which}"
    text += f", {to}" if to else ""  # where a move takes the record (`_destination`)
    return text + (f", with {' and '.join(chosen)}." if chosen else ".")


def _adjusted(tool: Tool) -> tuple[str, str, str] | None:
    """(column, parameter, sign) of a write whose one statement adds a parameter to a column
    or takes it off (`SET balance = balance - :amount`), if it is one."""
    found = tool.adjustments()
    # ... beside, at most, what it takes from a parent's stock (`patterns._restock`)
    one = len(tool.run) == 1 or (len(tool.run) == 2 and "(SELECT" in tool.run[1].upper())
    return found[0] if one and found else None


_ALLOWED_FROM = re.compile(r"\b\w*status\w*\s+IN\s*\(([^)]*)\)\s+AS\s+allowed\b", re.I)


def _to_unasked_state(tool: Tool) -> bool:
    """Whether the write moves a record into a state nobody asks a service for
    (`UNASKED_STATES`), or only out of one the business ended it in (`ENDED_STATES`): such
    a task, kept or refused, teaches an agent to act on a request no customer makes."""
    return _moves_among(tool, UNASKED_STATES, ENDED_STATES)


def _moves_among(tool: Tool, into: Collection[str], only_from: Collection[str]) -> bool:
    """Whether the write sets a state in `into`, or is allowed only from states in
    `only_from`."""
    state = _state_set(tool)
    if state is not None and state[1].casefold() in into:
        return True
    for step in tool.require:
        if m := _ALLOWED_FROM.search(step.sql):
            found = [s.casefold() in only_from for s in re.findall(r"'([^']*)'", m.group(1))]
            return bool(found) and all(found)
    return False


# states a service puts a person in, never one they ask for, nor ask to be let out of
SANCTIONS = ("suspended", "banned", "blocked", "blacklisted", "flagged", "restricted")


def _sanctions_self(tool: Tool, people: Table) -> bool:
    """Whether the write moves the person's own row into a sanction, or only out of one:
    ecommerce on 2f77ff7 kept "set the status to 'suspended'" (the gold suspended the
    shopper), "update my status from suspended", and "your status has been updated to
    'active'" from a suspended shopper."""
    table = re.match(r"\s*UPDATE\s+(\w+)", tool.run[0], re.I) if len(tool.run) == 1 else None
    if _state_set(tool) is None or table is None or table.group(1) != people.name:
        return False
    return _moves_among(tool, SANCTIONS, SANCTIONS)


def _state_set(tool: Tool) -> tuple[str, str] | None:
    """(column, value) of the status a write sets to a fixed value, if it does."""
    for sql in tool.run:
        m = re.search(r"\bSET\s+(\w*status\w*)\s*=\s*'([^']+)'", sql, re.I)
        if m:
            return m.group(1), m.group(2)
    return None


def refusal_share(kept: list[Task], config: GenerationConfig) -> float:
    """The share of work items that look for a refusal: the configured one, or the catch-up
    share where the tasks kept so far hold fewer refusals than the floor (weather on
    907b94d resumed with 1 of 30)."""
    refused = sum(1 for t in kept if any(c.expect_error is not None for c in t.gold_calls))
    if kept and refused < config.refusal_floor * len(kept):
        return config.refusal_catch_up
    return config.refusal_share


async def propose_intent_task(
    llm: LLMClient,
    brief: Brief,
    env: Environment,
    sampler: ArgumentSampler,
    task_id: str,
    rng: random.Random,
    sample: int,
    share: float = DEFAULT_CONFIG.refusal_share,
    kept: Collection[str] = frozenset(),
) -> Outcome[Task]:
    """One purpose, its gold, and the model's words for it; `share`: the chance it looks
    for a refusal."""
    people = env.spec.schema_.people()
    if people is None:
        return no_chain(llm, STAGE)
    owned = env.spec.owners(people)
    purpose = draft_purpose(env, sampler, people, owned, rng, rng.random() < share)
    chain = gold_chain(env, purpose, people, owned) if purpose is not None else None
    if chain is None or purpose is None:
        return no_chain(llm, STAGE)
    if purpose.error is None and rng.random() < TWO_SHARE:
        chain = second_change(env, sampler, purpose, chain, people, owned, rng) or chain
    preference = sample_preference(
        rng, env.spec.tools, chain.calls, share=PREFERENCE_SHARE, lean=chain.lean(env)
    )
    return await verbalized_task(
        llm,
        brief,
        chain,
        task_id,
        sample,
        stage=STAGE,
        source="intent",
        preference=preference,
        kept=kept,
    )
