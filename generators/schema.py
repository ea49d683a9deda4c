"""Stage 1: the LLM proposes tables; we check them and realise the DDL on both engines."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from generators.allowances import TIER_WORDS, Allowance, allowance_said, count_column
from generators.prompting import messages
from generators.realise import ddl_problems
from generators.refunds import schedule_columns, schedule_said
from toolscale.brief import Brief
from toolscale.errors import pydantic_problems
from toolscale.llm.client import FEEDBACK_PROBLEMS, Invalid, LLMClient, Outcome
from toolscale.reasons import GeneratorReason
from toolscale.schema import Column, ForeignKey, Schema, Table
from toolscale.wording import entity_words, record_phrase, schema_entities, singular, words

STAGE = "schema"


class ColumnProposal(BaseModel):
    name: str
    type: Literal["integer", "real", "text", "boolean", "date", "datetime"]
    description: str = ""
    values: list[str] = Field(
        default_factory=list,
        max_length=8,
        description="for a status or category text column: every value it may hold",
    )
    minimum: float | None = Field(
        default=None, description="for a number the rules keep from going below a floor"
    )


class TableProposal(BaseModel):
    name: str
    description: str
    columns: list[ColumnProposal] = Field(min_length=2, max_length=12)


class SchemaProposal(BaseModel):
    """Deliberately small: keys follow from names (a column named like another table's key
    points to it), so a small model has less to get wrong and fewer tokens to write."""

    tables: list[TableProposal] = Field(min_length=2, max_length=10)


def reference(column: str, keys: dict[str, str]) -> str | None:
    """The table a column points to: named like its key (`client_id`) or ending in it
    (`source_account_id`)."""
    if column in keys:
        return keys[column]
    for key, table in sorted(keys.items(), key=lambda kv: -len(kv[0])):
        if column.endswith("_" + key):
            return table
    return None


def column_description(table: str, column: str) -> str:
    """What a column is, when the model said nothing: every column gets a description."""
    return f"the {column.replace('_', ' ')} of the {singular(table).replace('_', ' ')}"


def _quoted(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def column_checks(column: ColumnProposal) -> list[str]:
    """The CHECKs a column proposal asks for: its allowed values and its floor. Both are
    extras a small model fills in where they do not fit (a floor on a title, a status with
    one value): those are left out, not fed back, so they never cost the schema."""
    checks: list[str] = []
    values = list(dict.fromkeys(v.strip() for v in column.values if v.strip()))
    if column.type == "text" and len(values) >= 2:
        checks.append(f"{column.name} IN ({', '.join(_quoted(v) for v in values)})")
    if column.minimum is not None and column.type in ("integer", "real"):
        floor = int(column.minimum) if column.type == "integer" else column.minimum
        checks.append(f"{column.name} >= {floor}")
    return checks


def rule_problems(schema: Schema, rules: list[str]) -> list[str]:
    """A rule naming a column (a snake_case word that is no table and no allowed value, such
    as `now_showing`) that no table has, a field of an entity its table lacks ("the train's
    capacity", "a trip whose train has has_first_class"), or a status no status column
    allows ("a trip with status scheduled or delayed"): no tool could enforce it, so the
    model is told to add the column or the value."""
    columns = {c.name for t in schema.tables for c in t.columns}
    values = {
        v for t in schema.tables for check in t.checks for v in re.findall(r"'([^']*)'", check)
    }
    entities = schema_entities(schema)
    problems: list[str] = []
    for i, rule in enumerate(rules, 1):
        said: set[str] = set()
        for m in re.finditer(r"\b[a-z]+(?:_[a-z0-9]+)+\b", rule):
            name = m.group()
            if _value_of(rule, m.start(), columns) or name in said:
                continue
            if _spelled_out(rule, m.end(), name, columns):
                continue
            said.add(name)
            if name not in columns | values and name not in schema.table_names:
                problems.append(
                    f"rule {i} ({rule!r}) names {name!r}, which no table has: add a column "
                    f"{name!r} to the table it belongs to"
                )
        for owner, field in dict.fromkeys(fields_read(rule)):
            tables = [t for t in schema.tables if owner in entity_words(t.name)]
            if field.split(" ")[-1] in entities:  # "the team's active contracts"
                continue
            if tables and not any(_holds(t, field) for t in tables):
                problems.append(
                    f"rule {i} ({rule!r}) reads the {field!r} of a {owner}, but table "
                    f"{tables[0].name} has no column for it: add a column {field!r} to table "
                    f"{tables[0].name} (a column elsewhere does not count: the rule reads it "
                    f"from the {owner})"
                )
        for status in dict.fromkeys(statuses_named(rule)):
            if status not in values:
                problems.append(
                    f"rule {i} ({rule!r}) names the status {status!r}, which no status column "
                    f"allows: add {status!r} to the `values` of the status column of the "
                    "table it belongs to"
                )
    return problems


_POSSESSIVE = re.compile(r"\b([a-z]+)'s ([a-z_]+)(?: ([a-z_]+))?|\bwhose ([a-z]+) has ([a-z_]+)")


_NOT_A_FIELD = {"is", "are", "must", "cannot", "can", "may", "to", "be", "and", "or", "of", "then"}
_NOT_A_FIELD |= {"goes", "set", "at", "in", "on", "for", "with", "plus", "minus", "times", "by"}


def _spelled_out(text: str, end: int, name: str, columns: set[str]) -> bool:
    """The name and the word after it are a column's name: "its check_out date" is the
    check_out_date the table has, no column check_out to add."""
    after = re.match(r"\s+([a-z]+)", text[end:])
    return after is not None and f"{name}_{after.group(1)}" in columns


def _value_of(text: str, at: int, columns: set[str]) -> bool:
    """The word at `at` follows a column's name ("fare_class basic_economy"): it is that
    column's value, not a column."""
    before = text[:at].split()
    return bool(before) and before[-1].strip(",;:") in columns


def entity_problems(schema: Schema, entities: list[str]) -> list[str]:
    """An entity of the brief no table stands for (restaurant's 1.5B schema had `clients`
    and `accounts` for customers and no dining tables): its rules have nothing to read."""
    return [
        f"the brief's entity {e!r} has no table: add a table {e!r} (its first column "
        f"{singular(e)}_id)"
        for e in entity_problems_of(schema.table_names, entities)
    ]


def entity_problems_of(names: list[str], entities: list[str]) -> list[str]:
    """The entities no table of these names stands for."""
    return [
        e
        for e in entities
        if not any(singular(n) == singular(e) or set(words(e)) <= entity_words(n) for n in names)
    ]


# "the shipping address of an order", "a return quantity": ecommerce's 1.5B schema had
# neither, so two of its six rules had no operation (4/6 on 277c846, and on d0b7383)
_OF_ENTITY = re.compile(
    r"\bthe ([a-z_]+(?: [a-z_]+)?) of (?:an?|the|its|that|each) ([a-z]+)\b(?! [a-z]+ (?:can|must))"
)
_MEASURES = "quantity|amount|price|cost|total|limit|balance|capacity|address|fee|rate|weight"
_COMPOUND = re.compile(
    rf"\b(?:an?|the|each) ([a-z]+) ({_MEASURES}) (?:cannot|can|must|may|is|should|has)\b"
)
_NOT_A_FIELD_OF = {"number", "sum", "total", "count", "most", "rest", "end", "start", "one"}
_NOT_A_FIELD_OF |= {"all", "any", "each", "none", "half", "part", "time", "day", "same"}


def fields_read(rule: str) -> list[tuple[str, str]]:
    """(entity, field) for each field a rule reads off an entity: "the train's capacity",
    "whose train has has_first_class", "the shipping address of an order", "a return
    quantity cannot ...". A word before another noun ("the team's active contracts") is
    left out by `_holds`, which takes any column with that word."""
    found = []
    text = rule.lower()
    for m in _POSSESSIVE.finditer(text):
        if m.group(1):
            after = m.group(3)
            field = (
                m.group(2) if after is None or after in _NOT_A_FIELD else f"{m.group(2)} {after}"
            )
            found.append((m.group(1), field))
        else:
            found.append((m.group(4), m.group(5)))
    for m in _OF_ENTITY.finditer(text):
        if not set(m.group(1).split()) & _NOT_A_FIELD_OF:
            found.append((m.group(2), m.group(1)))
    return found + compounds(text)


def compounds(rule: str) -> list[tuple[str, str]]:
    """(word, measure) for a measure said with a word before it ("an email address", "a
    return quantity"): the word may be an entity or a column that holds the measure."""
    return [(m.group(1), m.group(2)) for m in _COMPOUND.finditer(rule.lower())]


# "the home and away scores cannot be equal": two fields of one noun
_PAIRED = re.compile(r"\bthe ([a-z]+) and ([a-z]+) ([a-z]+?)s\b")


def fields_named(rule: str) -> list[str]:
    """Every field a rule reads, in its own words: its snake_case names, the fields it
    reads off an entity (`fields_read`) and a pair said of one noun ("home score", "away
    score" of "the home and away scores")."""
    out = re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b", rule)
    out += [field for _, field in fields_read(rule)]
    for m in _PAIRED.finditer(rule.lower()):
        out += [f"{m.group(1)} {m.group(3)}", f"{m.group(2)} {m.group(3)}"]
    return list(dict.fromkeys(out))


def _holds(table: Table, field: str) -> bool:
    """The table has a column for the field: one whose words hold the field's head word
    (`outstanding` in outstanding_balance, first_class for has_first_class; train_class is
    not enough), or a key to the entity the field names (doctor_id)."""
    head = field.split(" ")[0]
    wanted = set(words(head)) - {"has", "is"}
    return any(
        column == head or column.removesuffix("_id") == head or wanted <= set(words(column))
        for column in table.column_names
    )


_STATUS = re.compile(
    r"\bstatus(?: is| must be| to be| set to| becomes)? ([a-z_]+(?:(?: or |/)[a-z_]+)*)"
)
_NOT_A_STATUS = {"a", "an", "the", "of", "can", "cannot", "is", "be", "may", "must", "set"}
_NOT_A_STATUS |= {"not", "only", "when", "while", "until", "before", "after", "in", "on"}
_NOT_A_STATUS |= {"and", "at", "but", "then", "becomes", "of", "for", "with"}
# "status scheduled or postponed, never after the game is finished" named no status "never"
_NOT_A_STATUS |= {"never", "always", "ever", "also", "even", "either", "neither", "nor", "yet"}
_NOT_A_STATUS |= {"once", "unless", "if", "so", "as", "since", "except", "than", "or"}


def statuses_named(rule: str) -> list[str]:
    """The status values a rule names: "with status scheduled or delayed", "whose status
    is active"; without them as allowed values, no tool can check the rule."""
    found = []
    for m in _STATUS.finditer(rule.lower()):
        for word in re.split(r" or |/", m.group(1)):
            if word in _NOT_A_STATUS:
                break
            found.append(word)
    return found


def states_named(rule: str) -> list[str]:
    """The states a rule names, as a status ("with status scheduled") or as what a record
    has become ("a completed appointment", "the cancelled trip")."""
    said = rule.lower()
    made = re.finditer(r"\b(?:a|an|the|its|their)\s+([a-z]+)\s+[a-z]+", said)
    return list(dict.fromkeys([*statuses_named(rule), *(m[1] for m in made if m[1] in _STATES)]))


def to_schema(proposal: SchemaProposal, min_tables: int = 2) -> Schema:
    """Our schema from the proposal: the first column is the key; a column named like
    another table's key is a foreign key to it. Raises Invalid with every problem found."""
    problems: list[str] = []
    if len(proposal.tables) < min_tables:
        problems.append(f"propose at least {min_tables} tables, got {len(proposal.tables)}")
    keys: dict[str, str] = {}  # key column name -> table
    for t in proposal.tables:
        first = t.columns[0]
        if first.type != "integer" or not first.name.endswith("_id"):
            problems.append(
                f"table {t.name!r}: the first column must be its integer key named "
                f"<singular>_id, got {first.name!r} ({first.type})"
            )
        elif first.name in keys:
            problems.append(
                f"tables {keys[first.name]!r} and {t.name!r} both have key {first.name!r}; "
                "each table needs its own key name"
            )
        else:
            keys[first.name] = t.name
    t_key = {table: key for key, table in keys.items()}
    tables: list[Table] = []
    for t in proposal.tables:
        key = t.columns[0].name
        columns, fks = [], []
        checks: list[str] = []
        for c in t.columns:
            ref = reference(c.name, keys) if c.name != key else None
            if ref == t.name:  # DuckDB cannot bulk-load a self-reference: a plain column
                ref = None
            if ref is not None:
                if c.type != "integer":
                    problems.append(f"{t.name}.{c.name}: a reference must be an integer column")
                    continue
                fks.append(ForeignKey(columns=[c.name], ref_table=ref, ref_columns=[t_key[ref]]))
            try:
                columns.append(
                    Column(
                        name=c.name,
                        type=c.type,
                        nullable=False,
                        description=c.description.strip() or column_description(t.name, c.name),
                    )
                )
            except ValidationError as e:
                problems += [
                    f"{t.name}.{c.name}: {p}" for p in pydantic_problems(e, FEEDBACK_PROBLEMS)
                ]
                continue
            checks += column_checks(c)
        try:
            table = Table(
                name=t.name,
                description=t.description.strip() or f"the {t.name.replace('_', ' ')}",
                columns=columns,
                primary_key=[key],
                foreign_keys=fks,
                checks=checks,
            )
            tables.append(with_state_details(table))
        except ValidationError as e:
            problems += [f"table {t.name!r}: {p}" for p in pydantic_problems(e, FEEDBACK_PROBLEMS)]
    if problems:
        raise Invalid(problems, reason=GeneratorReason.BAD_SCHEMA)
    if not any(t.foreign_keys for t in tables):
        raise Invalid(
            [
                "no table points to another: name a column like another table's key "
                "(for example accounts.client_id points to clients)"
            ],
            reason=GeneratorReason.BAD_SCHEMA,
        )
    try:
        return Schema(tables=acyclic(tables))
    except ValidationError as e:
        raise Invalid(
            pydantic_problems(e, FEEDBACK_PROBLEMS), reason=GeneratorReason.BAD_SCHEMA
        ) from e


def acyclic(tables: list[Table]) -> list[Table]:
    """The references without a cycle: DuckDB creates a table only after the tables it
    references, so two tables cannot point at each other (basketball's players.contract_id
    beside contracts.player_id). References to a table proposed earlier always stay; one to
    a table proposed later stays unless it closes a cycle, and is then a plain column."""
    order = {t.name: i for i, t in enumerate(tables)}
    edges: dict[str, set[str]] = {t.name: set() for t in tables}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            name = todo.pop()
            if name == goal:
                return True
            if name not in seen:
                seen.add(name)
                todo += edges[name]
        return False

    for t in tables:
        for fk in t.foreign_keys:
            if order[fk.ref_table] < order[t.name]:
                edges[t.name].add(fk.ref_table)
    out = []
    for t in tables:
        kept = []
        for fk in t.foreign_keys:
            later = order[fk.ref_table] > order[t.name]
            if later and reaches(fk.ref_table, t.name):
                continue
            if later:
                edges[t.name].add(fk.ref_table)
            kept.append(fk)
        out.append(t if kept == t.foreign_keys else t.model_copy(update={"foreign_keys": kept}))
    return out


_STATUS_OF = re.compile(
    r"\b([a-z]+)(?:'s| with| whose| has| to have)? status(?: is| must be| to be| set to| becomes)? "
    r"([a-z_]+(?:(?:,| or|, or) [a-z_]+)*)"
)
_STATES = {  # what a record can be made, and stays: its status says so afterwards
    *("cancelled", "canceled", "refunded", "closed", "frozen", "suspended", "blocked"),
    *("completed", "confirmed", "approved", "rejected", "returned", "shipped", "delivered"),
    *("paid", "expired", "archived", "dropped", "postponed", "finished"),
}
_ACTS = {  # what doing it to a record makes it: its status afterwards
    "drop": "dropped", "cancel": "cancelled", "refund": "refunded", "close": "closed",
    "freeze": "frozen", "suspend": "suspended", "return": "returned", "archive": "archived",
    "withdraw": "withdrawn", "approve": "approved", "reject": "rejected",
}  # fmt: skip
_MONEY = {"balance", "price", "amount", "salary", "income", "cap", "cost", "fee", "total"}


def with_state_details(table: Table) -> Table:
    """The table with each column that belongs to one status (`frozen_reason`) nullable: a
    NOT NULL one made every new card say why it was frozen (finance's 1.5B tasks created
    active cards "frozen for other reasons")."""
    columns = [
        c.model_copy(update={"nullable": True}) if table.state_of(c.name) else c
        for c in table.columns
    ]
    return table.model_copy(update={"columns": columns})


def completed(
    proposal: SchemaProposal,
    rules: list[str],
    entities: list[str] | tuple[str, ...] = (),
    description: str = "",
) -> SchemaProposal:
    """The proposal with what the rules plainly say it lacks put in, so no round trip to the
    model is spent on it (a 1.5B model fixed none of these in three repairs): the statuses a
    rule gives an entity ("a trip with status scheduled or delayed") on that entity's status
    column, and a field a rule reads off an entity ("the train's capacity") as a column of
    it, and a column it names that no table has (`seats_sold`) on the entity named nearest
    before it ("a trip with status scheduled, while seats_sold ..."); and an email for the
    customers when no table has one. An entity of the brief no table stands for is added
    (its key and a name; a person's email too), and a table whose rule reads a field of
    another entity it has no way to reach ("a reservation's party_size ... no larger than
    the table's seats") gets that entity's key. A key named `id` is named for its table,
    and a link the description states ("each station is looked after by one forecaster")
    is a key of the one in the other."""
    tables = {t.name: t.model_copy(deep=True) for t in proposal.tables}
    _name_keys(tables)
    for entity in entity_problems_of(list(tables), list(entities)):
        new = entity_table(entity, tables)
        entity_keys = {t.columns[0].name for t in tables.values()}
        if len(tables) < 10 and new.columns[0].name not in entity_keys:  # travel's hotel bookings
            tables[entity] = new  # were keyed flight_booking_id: left to the model
    _rekey_strays(tables)
    for proposed in tables.values():  # a flight booking is of a flight: flight_bookings.flight_id
        _join_name_parts(proposed, tables)
    _link_stated(description.lower(), tables)
    text = ""  # the rule being read: "a flight booking" names flight_bookings, not flights

    def owner(noun: str) -> TableProposal | None:
        found = [t for t in tables.values() if noun in entity_words(t.name)]
        exact = [t for t in found if noun in (t.name, singular(t.name))]
        said = [t for t in found if "_" in t.name and record_phrase(t.name) in text]
        return next(iter(exact or said or found), None)

    said_of: dict[str, set[str]] = {}  # a status -> the tables the rules give it to
    for rule in rules:
        text = rule.lower()
        compound = next(
            (t for t in tables.values() if "_" in t.name and record_phrase(t.name) in text), None
        )
        subject = next((w for w in re.findall(r"[a-z]+", text) if owner(w)), "")
        if compound is not None and text.find(record_phrase(compound.name)) <= text.find(subject):
            subject = singular(compound.name.split("_")[-1])
        for m in _STATUS_OF.finditer(text):
            table = owner(m.group(1)) or owner(subject)
            values = []
            for word in re.split(r",? or |, ", m.group(2)):
                if word in _NOT_A_STATUS:
                    break  # "with status active, and a new loan ..."
                values.append(word)
            if table is None or not values:
                continue
            for value in values:
                said_of.setdefault(value, set()).add(table.name)
            column = next((c for c in table.columns if "status" in c.name), None)
            if column is None and len(table.columns) < 12:
                column = ColumnProposal(name="status", type="text")
                table.columns.append(column)
            if column is not None and column.type == "text":
                if not column.values and re.search(r"\b(?:cannot|not|never|no)\b", text):
                    # "a student whose status is suspended or graduated cannot enroll" names
                    # the exceptions; without the usual state no student could enroll
                    values = ["active", *values]
                room = [v for v in dict.fromkeys(values) if v not in column.values]
                column.values = (column.values + room)[:8]
                if len(column.values) == 1:  # one allowed value is no status: add its other
                    column.values.append("inactive" if column.values == ["active"] else "active")
        for m in re.finditer(
            rf"\bcan(?:not)? (?:only )?({'|'.join(_ACTS)}) (?:an? |the |its )?(\w+)", text
        ):
            # "a student can drop a course only while the enrollment status is active": the
            # record whose status the rule names (else the object) can be dropped
            said = re.search(r"\bthe (\w+) status\b|\b(\w+)'s status\b", text)
            table = owner(said.group(1) or said.group(2)) if said else None
            table = table or owner(singular(m.group(2)))
            column = next((c for c in table.columns if "status" in c.name), None) if table else None
            state = _ACTS[m.group(1)]
            known = column is not None and column.type == "text" and column.values
            if column is not None and known and all(v[:5] != state[:5] for v in column.values):
                column.values = [*column.values, state][:8]  # not beside "canceled"
        for m in re.finditer(
            r"\b([a-z_]+) can(?:not)? (?:only )?be ([a-z]+)(?: or ([a-z]+))?", text
        ):
            # "a ticket can be refunded": refunded is its state; "a flight booking with
            # fare_class basic_economy cannot be ... refunded": the rule's subject's
            table = owner(m.group(1)) or owner(subject)
            column = next((c for c in table.columns if "status" in c.name), None) if table else None
            states = [v for v in m.groups()[1:] if v in _STATES]
            if table is not None and column is None and states and len(table.columns) < 12:
                # basketball's tickets had no status, so no tool could refund one
                column = ColumnProposal(name="status", type="text", values=["active"])
                table.columns.append(column)
            if column is not None and column.type == "text" and column.values:
                room = [v for v in states if v not in column.values]
                column.values = (column.values + room)[:8]
            elif column is not None and column.type == "text" and states:
                # travel's 1.5B gave its bookings a status of no values on f716f2d, its rows
                # said active or inactive, and neither cancellation rule had a tool (4 of 6)
                column.values = ["active", *states]
        for m in re.finditer(r"\b(?:an?|the|its|their) ([a-z]+) ([a-z]+)\b", text):
            # "requires a completed appointment": medicine's 1.5B appointments were only
            # scheduled or cancelled, so no step could ask for a completed one
            table = owner(singular(m.group(2))) if m.group(1) in _STATES else None
            column = next((c for c in table.columns if "status" in c.name), None) if table else None
            fits = column is not None and column.type == "text" and column.values
            # not beside "canceled"
            if column is not None and fits and all(v[:5] != m.group(1)[:5] for v in column.values):
                column.values = [*column.values, m.group(1)][:8]
        for m in re.finditer(r"\b(?:an?|the) (\w+) class (\w+)", text):
            table = owner(singular(m.group(2)))  # "a first class ticket": a ticket's class
            if table is None or len(table.columns) >= 12:
                continue
            column = next((c for c in table.columns if "class" in c.name and c.values), None)
            if column is None:
                column = ColumnProposal(name=f"{singular(table.name)}_class", type="text")
                column.values = ["standard"]
                table.columns.append(column)
            if m.group(1) not in column.values:
                column.values = [*column.values, m.group(1)][:8]
        for m in re.finditer(r"\b(?:an?|the) (\w+) rated ([a-z0-9-]+)\b", text):
            # "cannot book a movie rated R": movie's schema had no rating, so the age rule
            # went unenforced (4 of 6 rules at 822d671)
            table = owner(singular(m.group(1)))
            if table is None:
                continue
            column = next((c for c in table.columns if "rating" in c.name), None)
            if column is None and len(table.columns) < 12:
                column = ColumnProposal(name="rating", type="text")
                table.columns.append(column)
            if column is None or column.type != "text":
                continue
            rated = m.group(2).upper()
            ladder = _RATINGS if rated in _RATINGS else ["GENERAL", rated]
            if rated not in [v.upper() for v in column.values]:
                column.values = list(dict.fromkeys([*column.values, *ladder]))[:8]
        for m in re.finditer(r"\b(?:an?|the) (\w+) (?:marked|flagged) (?:as )?(\w+)", text):
            table = owner(singular(m.group(1)))  # "a medication marked controlled": a flag
            flagged = table is not None and any(
                c.type == "boolean" and m.group(2) in words(c.name) for c in table.columns
            )
            if table is not None and not flagged and len(table.columns) < 12:
                table.columns.append(ColumnProposal(name=f"is_{m.group(2)}", type="boolean"))
        same = re.search(r"\b([a-z]+) (?:in|on|during) the same ([a-z_]+)\b", text)
        named = {c.name for t in tables.values() for c in t.columns}
        if same and same.group(2) not in named | _every_entity(tables):
            # "6 active enrollments in the same term": the term is the course's, the row an
            # enrollment points to besides its student
            child = owner(singular(same.group(1)))
            keys = {t.columns[0].name: name for name, t in tables.items()}
            refs = [reference(c.name, keys) for c in child.columns[1:]] if child else []
            peer = next((tables[r] for r in refs if r and tables[r] is not owner(subject)), None)
            if peer is not None and len(peer.columns) < 12:
                peer.columns.append(ColumnProposal(name=same.group(2), type="text"))
        every = _every_entity(tables)
        for m in re.finditer(r"\b[a-z]+(?:_[a-z0-9]+)+\b", text):  # "while seats_sold is below"
            nouns = [w for w in re.findall(r"[a-z]+", text[: m.start()]) if owner(w)]
            table = owner(nouns[-1]) if nouns else None  # the nearest entity before it
            taken = any(m.group() == c.name for t in tables.values() for c in t.columns)
            # "its check_out date" is the check_out_date it has
            own = {c.name for c in table.columns} if table is not None else set()
            taken = taken or _spelled_out(text, m.end(), m.group(), own)
            if table is None or taken or m.group() in every or len(table.columns) >= 12:
                continue
            if any(m.group() in c.values for t in tables.values() for c in t.columns):
                continue  # a status value ("now_showing")
            named = {c.name for t in tables.values() for c in t.columns}
            if _value_of(text, m.start(), named):
                continue  # "with fare_class basic_economy": a value of fare_class
            table.columns.append(ColumnProposal(name=m.group(), type=_field_type(m.group())))
        for entity, field in fields_read(text):
            table = owner(entity)
            name = field.replace(" ", "_")
            if table is None or len(table.columns) >= 12 or not re.fullmatch(r"[a-z_]+", name):
                continue
            if _holds(to_table(table), field) or field.split(" ")[-1] in every:
                continue
            table.columns.append(ColumnProposal(name=name, type=_field_type(name)))
        for m in _PAIRED.finditer(text):
            # "the home and away scores cannot be equal": basketball's 1.5B games held no
            # scores, so the rule was enforced in part (on every run up to 82a0e57)
            nouns = [w for w in re.findall(r"[a-z]+", text[: m.start()]) if owner(w)]
            table = owner(nouns[-1]) if nouns else None  # the nearest entity before it
            if table is None or m.group(3) in every or owner(m.group(3)) is not None:
                continue
            for side in (m.group(1), m.group(2)):
                name = f"{side}_{m.group(3)}"
                if len(table.columns) >= 12 or any(
                    {side, m.group(3)} <= set(words(c.name)) for c in table.columns
                ):
                    continue
                table.columns.append(ColumnProposal(name=name, type=_field_type(name)))
        if (schedule := schedule_said(text)) is not None and (table := owner(subject)):
            # "the refund is the full price more than 24 hours before departure, otherwise
            # half the price": railway's 1.5B tickets had no price, the rule in part
            for name, kind in schedule_columns(schedule, to_table(table)):
                if len(table.columns) < 12:
                    table.columns.append(ColumnProposal(name=name, type=kind, minimum=0))
    for rule in rules:
        _link_read_entities(rule.lower(), tables, owner)
        if (allowance := allowance_said(rule)) is not None:
            _allowance_columns(allowance, tables)
    _unborrow_statuses(tables, said_of)
    customer = next((t for t in tables.values() if CUSTOMERS.search(t.name)), None)
    emails = [t for t in tables.values() if any("email" in c.name for c in t.columns)]
    if not emails:
        customer = customer or _who_asks(list(tables.values()))
    # the person who asks is found by their email: without one, railway's tasks made a
    # station the customer ("my origin station id is 16708"), and basketball's team managers
    # gave their team's id, so no task found its user first (9% had 3+ calls); weather's one
    # email was a subscription's, which owns nothing, so its forecasters get one
    if (
        customer is not None
        and customer not in emails
        and len(customer.columns) < 12
        and not _pointed_to(emails, tables)
    ):
        customer.columns.append(ColumnProposal(name="email", type="text"))
    return SchemaProposal(tables=list(tables.values()))


def _unborrow_statuses(tables: dict[str, TableProposal], said_of: dict[str, set[str]]) -> None:
    """Statuses the model gave a table that the rules give only to another one: ecommerce's
    customers got the order statuses (pending, paid, shipped, delivered), and tools to set a
    customer paid or shipped. Two or more such are taken off; the usual state stays."""
    for table in tables.values():
        column = next((c for c in table.columns if "status" in c.name and c.values), None)
        if column is None:
            continue
        borrowed = [v for v in column.values if said_of.get(v) and table.name not in said_of[v]]
        if len(borrowed) < 2:
            continue
        # a copy of another table's list: what that table has goes too, unless a rule gives it
        lender = {name for v in borrowed for name in said_of[v]}
        theirs = {
            v
            for name in lender
            for c in tables[name].columns
            if "status" in c.name
            for v in c.values
        }
        kept = [
            v
            for v in column.values
            if v not in borrowed and (v not in theirs or table.name in said_of.get(v, ()))
        ]
        column.values = (["active"] if "active" not in kept else []) + kept
        if len(column.values) == 1:
            column.values.append("inactive")


def _allowance_columns(allowance: Allowance, tables: dict[str, TableProposal]) -> None:
    """What an allowance rule needs ("free checked bags per passenger on a flight booking
    are 2 for gold members, ...; each extra bag costs 50"): the count on the record, a column
    its charges add up in, and the tiers on the record's owner. Travel's 1.5B schema had a
    boolean `membership` and the bags on hotel bookings, so no tool could charge for a bag."""
    record = next((t for t in tables.values() if record_phrase(t.name) == allowance.record), None)
    if record is None or len(record.columns) > 10:
        return
    if count_column(to_table(record), allowance) is None:
        record.columns.append(ColumnProposal(name=allowance.column, type="integer", minimum=0))
    if not any(re.search(r"fee|charge", c.name) for c in record.columns):
        record.columns.append(ColumnProposal(name=allowance.fee_column, type="real", minimum=0))
    keys = {t.columns[0].name: name for name, t in tables.items()}
    owners = [tables[r] for c in record.columns[1:] if (r := reference(c.name, keys))]
    owner = next((t for t in owners if CUSTOMERS.search(t.name)), next(iter(owners), None))
    if owner is None or any(len(set(c.values) & set(allowance.free)) >= 2 for c in owner.columns):
        return
    tiers = list(allowance.free)[:8]
    column = next((c for c in owner.columns if any(w in c.name for w in TIER_WORDS)), None)
    if column is None and len(owner.columns) < 12:
        column = ColumnProposal(name="membership", type="text")
        owner.columns.append(column)
    if column is not None:  # a boolean `membership` says no tier: it is the tiers now
        column.type, column.values = "text", tiers


def _pointed_to(some: list[TableProposal], tables: dict[str, TableProposal]) -> bool:
    """Some of these tables is one another table points to (a person owns records; a
    subscription's email owns nothing)."""
    keys = {t.columns[0].name: t.name for t in tables.values() if t.columns}
    names = {t.name for t in some}
    return any(
        reference(c.name, keys) in names - {t.name} for t in tables.values() for c in t.columns[1:]
    )


def _who_asks(tables: list[TableProposal]) -> TableProposal | None:
    """With no table of people, the one whose rows the users manage: the table the most
    others point to among those that point to none (basketball's teams, for its managers)."""
    keys = {t.columns[0].name: t.name for t in tables if t.columns}
    points = {
        t.name: {reference(c.name, keys) for c in t.columns[1:]} - {None, t.name} for t in tables
    }
    pointed = {t.name: sum(t.name in refs for refs in points.values()) for t in tables}
    roots = [t for t in tables if not points[t.name] and pointed[t.name]]
    return max(roots, key=lambda t: pointed[t.name], default=None)


_BETWEEN = re.compile(
    r"\b([a-z][a-z_]*(?: [a-z][a-z_]*)?) (?:must be|is|are|should be|has to be|stays) between "
    r"(-?\d+(?:\.\d+)?) and (-?\d+(?:\.\d+)?)"
)


# "one booking holds between 1 and 10 seats": the booking's number column of seats
_HOLDS = re.compile(
    r"\b(?:an?|one|each|the) ([a-z_]+) (?:holds|has|takes|contains) between "
    r"(\d+(?:\.\d+)?) and (\d+(?:\.\d+)?) ([a-z_]+)"
)


def _ranges(rule: str, tables: list[Table]) -> list[tuple[str, str, str]]:
    """(column, low, high) for each range the rule states on a number column."""
    out = [(m[1], m[2], m[3]) for m in _BETWEEN.finditer(rule)]
    for m in _HOLDS.finditer(rule):
        owner = [t for t in tables if singular(m[1]) in entity_words(t.name)]
        unit = singular(m[4])
        named = [
            c.name
            for t in owner
            for c in t.columns
            if c.type in ("integer", "real") and (c.name == m[4] or unit in words(c.name))
        ]
        if len(named) == 1:
            out.append((named[0], m[2], m[3]))
    return out


def rule_checks(schema: Schema, rules: list[str]) -> Schema:
    """A CHECK for each range a rule states on one table's number column ("a reservation's
    party_size must be between 1 and 12", "one booking holds between 1 and 10 seats"), so
    the seed keeps it too: restaurant's data plan drew parties of 409 and 913, and tasks
    asked about "a reservation for 589 people"; movie's bookings held up to 40 seats."""
    tables = list(schema.tables)
    for rule in rules:
        for said, low, high in _ranges(rule.lower(), tables):
            # "a grade score must be between 0 and 100" names `grade_score` in two words
            for name in dict.fromkeys((said.replace(" ", "_"), said.split()[-1])):
                holders = [
                    i
                    for i, t in enumerate(tables)
                    if any(c.name == name and c.type in ("integer", "real") for c in t.columns)
                ]
                if len(holders) == 1:
                    break
            if len(holders) != 1 or float(low) > float(high):
                continue  # no one column it means
            table = tables[holders[0]]
            term = f"{name} BETWEEN {low} AND {high}"
            if term not in table.checks:
                tables[holders[0]] = table.model_copy(update={"checks": [*table.checks, term]})
    return schema.model_copy(update={"tables": tables})


def entity_table(entity: str, tables: dict[str, TableProposal] | None = None) -> TableProposal:
    """A table for an entity the model left out: its key and a name; a person is found by
    their email, so a person's table has one. A compound entity (a booking) has a status
    and no name, and points to the tables its name is made of and to the person's table
    (travel's flight_bookings, added with a key and a name only, joined no flight and no
    customer, and its name column was filled with Faker catchphrases)."""
    noun = singular(entity)
    columns = [ColumnProposal(name=f"{noun}_id", type="integer")]
    if "_" not in entity or CUSTOMERS.search(entity):  # a booking has no name: travel's
        columns.append(ColumnProposal(name="name", type="text"))  # were Faker catchphrases
    if CUSTOMERS.search(entity):
        columns.append(ColumnProposal(name="email", type="text"))
    compound = "_" in entity and not CUSTOMERS.search(entity)
    if compound:  # a booking is made and cancelled: the rules add the states they name
        columns.append(ColumnProposal(name="status", type="text", values=["active", "cancelled"]))
    table = TableProposal(
        name=entity, description=f"the {noun.replace('_', ' ')}s", columns=columns
    )
    others = {n: t for n, t in (tables or {}).items() if n != entity}
    if compound:
        _join_name_parts(table, others)
        person = next((t for t in others.values() if CUSTOMERS.search(t.name)), None)
        if person is not None and person.columns[0].name.endswith("_id"):
            table.columns.insert(1, ColumnProposal(name=person.columns[0].name, type="integer"))
    return table


def _name_keys(tables: dict[str, TableProposal]) -> None:
    """A first column `id` is the table's key named for it: weather's model answered four
    times with `forecasters.id`, `regions.id`, ..., each rejected, and ten minutes went. So
    is a key two tables share: travel's model keyed flight and hotel bookings `booking_id`
    in four answers on c867683, each rejected."""
    firsts = [t.columns[0].name for t in tables.values() if t.columns]
    taken = set(firsts)  # other tables' keys
    for name, table in tables.items():
        first = table.columns[0] if table.columns else None
        key = f"{singular(name)}_id"
        shared = first is not None and firsts.count(first.name) > 1 and first.name != key
        if (
            first is not None
            and (first.name == "id" or shared)
            and first.type == "integer"
            and key not in taken
        ):
            first.name = key
            taken.add(key)


# "each station is looked after by one forecaster", "each order item is for one order and
# one product": a record of two words is named as two words
_EACH = re.compile(r"\beach ([a-z_]+(?: [a-z_]+)?) ((?:is|belongs|stands)\b[^,.;]*)")
_ONE = re.compile(
    r"\b(?:by|to|for|in|and) (?:one|a|an) ([a-z_]+(?: (?!(?:by|to|for|in|and|of)\b)[a-z_]+)?)"
)


def _link_stated(description: str, tables: dict[str, TableProposal]) -> None:
    """The brief's "each station is looked after by one forecaster": a station points to
    its forecaster. Weather's model gave the forecasters nothing, so they owned no record
    and every task was about their own profile."""
    keys = {t.columns[0].name: name for name, t in tables.items() if t.columns}
    stated = [(m[1], one[1]) for m in _EACH.finditer(description) for one in _ONE.finditer(m[2])]
    for child, parent in ((_named(c, tables), _named(p, tables)) for c, p in stated):
        if child is None or parent is None or child is parent or len(child.columns) >= 12:
            continue
        key = parent.columns[0].name
        if not key.endswith("_id") or any(
            reference(c.name, keys) == parent.name for c in child.columns[1:]
        ):
            continue
        child.columns.insert(1, ColumnProposal(name=key, type="integer"))


def _named(phrase: str, tables: dict[str, TableProposal]) -> TableProposal | None:
    """The table a phrase of one or two words names: "order item" is `order_items`, "order
    and" is `orders`."""
    said = phrase.split()
    whole = _table_for(singular("_".join(said)), tables) if len(said) > 1 else None
    return whole or _table_for(singular(said[0]), tables)


def _table_for(noun: str, tables: dict[str, TableProposal]) -> TableProposal | None:
    return next((t for t in tables.values() if noun in (t.name, singular(t.name))), None)


def _stands_for(table: TableProposal, noun: str) -> bool:
    """The table is the entity `noun` names: a person word for the one table of persons
    (a `customer` is a `clients` row), else a word its description uses ("Identifies
    customers of the bank")."""
    said = {singular(w) for w in re.findall(r"[a-z]+", table.description.lower())}
    return noun in entity_words(table.name) or singular(noun) in said


def _rekey_strays(tables: dict[str, TableProposal]) -> None:
    """A key column of an entity no table is named for (`accounts.customer_id` beside a
    `clients` table) takes the key name of the one table that stands for it, so it becomes
    a reference: finance's accounts and loans belonged to no client, their owners were
    random numbers, and all of its tasks were about a client's email."""
    keys = {t.columns[0].name: name for name, t in tables.items()}
    persons = [t for t in tables.values() if CUSTOMERS.search(t.name)]
    for table in tables.values():
        have = {c.name for c in table.columns}
        for column in table.columns[1:]:
            stem = column.name.removesuffix("_id")
            if stem == column.name or column.type != "integer" or reference(column.name, keys):
                continue
            noun = stem.split("_")[-1]
            found = [t for t in tables.values() if t is not table and _stands_for(t, noun)]
            if not found and CUSTOMERS.fullmatch(noun) and len(persons) == 1:
                found = [t for t in persons if t is not table]
            key = found[0].columns[0].name if len(found) == 1 else ""
            renamed = stem.removesuffix(noun) + key
            if key.endswith("_id") and renamed not in have:
                have.add(renamed)
                column.name = renamed


def _join_name_parts(table: TableProposal, tables: dict[str, TableProposal]) -> None:
    """A table named after others (`flight_bookings`) points to each it has no key of."""
    parts = set(table.name.split("_")[:-1])
    have = {c.name for c in table.columns}
    for other in tables.values():
        key = other.columns[0].name
        named = singular(other.name) in parts or other.name in parts
        room = len(table.columns) < 12 and key.endswith("_id") and key not in have
        if named and other is not table and room:
            table.columns.insert(1, ColumnProposal(name=key, type="integer"))
            have.add(key)


def _related(tables: dict[str, TableProposal], start: str, goal: str, hops: int = 2) -> bool:
    """The two tables are joined by at most `hops` references, either way: a student and a
    course through an enrollment that points to both."""
    keys = {t.columns[0].name: name for name, t in tables.items()}
    edges = {
        frozenset((name, ref))
        for name, t in tables.items()
        for c in t.columns[1:]
        if (ref := reference(c.name, keys)) is not None and ref != name
    }
    seen = {start}
    for _ in range(hops):
        seen |= {n for e in edges if e & seen for n in e}
        if goal in seen:
            return True
    return False


def _link_read_entities(
    text: str,
    tables: dict[str, TableProposal],
    owner: Callable[[str], TableProposal | None],
) -> None:
    """The rule's subject reads a field of another entity ("the table's seats"): a row of
    it must reach that entity's row, so, where no reference joins the two, the subject
    points to it."""
    subject = next((t for w in re.findall(r"[a-z]+", text) if (t := owner(w))), None)
    for m in _POSSESSIVE.finditer(text):
        other = owner(m.group(1) or m.group(4) or "")
        if subject is None or other is None or other is subject:
            continue
        if _related(tables, subject.name, other.name):
            continue
        key = other.columns[0].name
        if (
            len(subject.columns) < 12
            and key.endswith("_id")
            and key not in {c.name for c in subject.columns}
        ):
            subject.columns.append(ColumnProposal(name=key, type="integer"))


_RATINGS = ["G", "PG", "PG-13", "R", "NC-17"]  # a film's age ratings, mildest first
CUSTOMERS = re.compile(
    r"client|customer|member|user|patient|student|passenger|guest|travell?er|subscriber|"
    r"tenant|buyer|applicant|rider|diner|forecaster"
)


def _every_entity(tables: dict[str, TableProposal]) -> set[str]:
    return set().union(*(entity_words(t) for t in tables))


def _field_type(name: str) -> Literal["integer", "real", "text", "boolean", "date", "datetime"]:
    """A field's type from its name: has_first_class a flag, departure_time a moment,
    shelf_code text, salary_cap money, capacity a count."""
    parts = set(name.split("_"))
    if name.startswith(("has_", "is_", "can_")):
        return "boolean"
    if parts & {"time", "at"}:
        return "datetime"
    if parts & {"date", "on"}:
        return "date"
    if parts & {"code", "name", "email", "type", "kind", "reason", "note", "address", "phone"}:
        return "text"
    return "real" if parts & _MONEY else "integer"


def to_table(table: TableProposal) -> Table:
    """Just enough of a proposed table to ask which columns it has."""
    return Table(
        name=table.name,
        description=table.description,
        columns=[Column(name=c.name, type=c.type) for c in table.columns],
        primary_key=[table.columns[0].name],
        checks=[check for c in table.columns for check in column_checks(c)],
    )


def prompt_example(brief: Brief) -> dict[str, object]:
    """The prompt's examples from the brief's own entities and statuses: a 1.5B model
    copied a finance example (`accounts` with active, frozen and closed) into restaurant's
    dining tables and menu items."""
    entities = list(brief.entities) or ["items", "orders"]
    rules = [r.lower() for r in brief.rules]

    def noun(entity: str) -> str:
        return singular(entity).replace("_", " ")

    def together(parent: str, child: str) -> bool:  # "a customer ... a new reservation"
        return any(noun(parent) in r and noun(child) in r for r in rules)

    def leads(parent: str, child: str) -> bool:  # "a showtime can only be added for a movie"
        return any(
            noun(parent) in r and re.match(rf"(?:an?|the|one) {noun(child)}\b", r) for r in rules
        )

    pairs = [(p, c) for i, p in enumerate(entities) for c in entities[i + 1 :]]
    parent, child = next(
        (pair for pair in pairs if leads(*pair)),
        next((pair for pair in pairs if together(*pair)), (entities[0], entities[-1])),
    )
    statuses = list(dict.fromkeys(s for rule in brief.rules for s in statuses_named(rule)))
    named = re.findall(r"\b[a-z]+(?:_[a-z0-9]+)+\b", " ".join(rules))
    return {
        "parent": parent,
        "parent_key": f"{singular(parent)}_id",
        "child": child,
        "statuses": statuses[:6],
        "column": next((n for n in named if n not in statuses), "annual_income"),
    }


async def propose_schema(
    llm: LLMClient, brief: Brief, sample: int = 0, repairs: int = 3
) -> Outcome[Schema]:
    """A schema whose DDL both engines accept; every problem goes back to the model."""

    def check(proposal: SchemaProposal, rules: bool = True) -> Schema:
        full = completed(proposal, brief.rules, brief.entities, brief.description)
        schema = rule_checks(to_schema(full, min_tables=min(3, brief.n_tables)), brief.rules)
        problems = ddl_problems(schema)
        if rules:
            problems = (
                entity_problems(schema, brief.entities)
                + rule_problems(schema, brief.rules)
                + problems
            )
        if problems:
            raise Invalid(problems, reason=GeneratorReason.DDL_REJECTED)
        return schema

    return await llm.structured(
        messages("schema.j2", brief=brief, example=prompt_example(brief)),
        SchemaProposal,
        stage=STAGE,
        check=check,
        # the last attempt keeps a schema that misses a rule's column: that rule is then
        # reported as not enforced, which costs less than the whole domain
        last_check=lambda p: check(p, rules=False),
        repairs=repairs,
        sample=sample,
    )
