"""Stage 2: seed rows from a data plan, loaded through the real DDL.

The model never types rows: per table it picks a kind for each column from a short list
(only the kinds that fit the column's type are offered, and a plan from the names alone is
shown as a starting point) and says how many children a parent row has; `dataplan.expand`
writes the rows. One small request per table suits a 1.5B model. A table whose plan is
still wrong after the repairs keeps its good columns and gets the default plan for the
rest; the stage never dies for lack of rows."""

from __future__ import annotations

import asyncio
import re
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from generators import dataplan, refunds
from generators.allowances import settled
from generators.dataplan import ColumnPlan, DataPlan, TablePlan
from generators.patterns import CANCELLED, counted_column, sold_column
from generators.prompting import messages
from generators.realise import seed_problems
from toolscale.brief import Brief
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.reasons import GeneratorReason
from toolscale.report import Rejection
from toolscale.schema import ColumnType, Scalar, Schema, Table
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool

STAGE = "rows"
DEFAULT_ID_START = int(str(EnvironmentSpec.model_fields["id_start"].default))

# the fields a small model may fill, by column type (kind is always asked)
FIELDS: dict[ColumnType, tuple[str, ...]] = {
    "text": ("values", "weights", "pattern"),
    "integer": ("low", "high", "values", "weights"),
    "real": ("low", "high", "distribution", "decimals", "values", "weights"),
    "date": ("start", "end"),
    "datetime": ("start", "end"),
    "boolean": ("probability",),
}


def planned_columns(table: Table) -> list[str]:
    """The columns the model plans: not our key, not a foreign key (they are implied)."""
    key, fks = dataplan.own_key(table), dataplan.foreign_key_of(table)
    return [c.name for c in table.columns if c.name != key and c.name not in fks]


def plan_model(table: Table) -> type[BaseModel]:
    """The JSON schema of one table's plan: one property per column, whose `kind` offers
    only the kinds that fit its type (a CHECK's IN list leaves only `choice`)."""
    columns: dict[str, Any] = {}
    for name in planned_columns(table):
        col = table.column(name)
        kinds = ("choice",) if table.enum_values(name) else dataplan.FITS[col.type]
        fields: dict[str, Any] = {"kind": (Literal[kinds], ...)}
        for f in FIELDS[col.type]:
            info = ColumnPlan.model_fields[f]
            default = info.get_default(call_default_factory=True)
            fields[f] = (info.annotation, Field(default=default, description=info.description))
        if col.nullable:
            fields["nulls"] = (float, Field(default=0.0, ge=0, le=1))
        columns[name] = (create_model(f"{table.name}_{name}_plan", **fields), ...)
    top: dict[str, Any] = {}
    if _parent(table):
        top["min_children"] = (int, Field(ge=0, le=50))
        top["max_children"] = (int, Field(ge=0, le=50))
    else:
        top["rows"] = (int, Field(ge=1, le=100, description="size relative to other tables"))
    top["columns"] = (create_model(f"{table.name}_columns", **columns), ...)
    return create_model(f"{table.name}_plan", **top)


def _parent(table: Table) -> tuple[str, str] | None:
    return dataplan._owner(table, TablePlan(table=table.name))


def to_table_plan(table: Table, answer: BaseModel) -> TablePlan:
    data = answer.model_dump()
    columns = [
        ColumnPlan(column=name, **fields) for name, fields in (data.pop("columns") or {}).items()
    ]
    return TablePlan(table=table.name, columns=columns, **data)


def suggestion(table: Table, name: str) -> str:
    """The default plan of one column, as the JSON the model would write."""
    plan = dataplan.default_column(table, name)
    return plan.model_dump_json(exclude_defaults=True, exclude={"column"})


async def propose_table_plan(
    llm: LLMClient, brief: Brief, table: Table, sample: int = 0, repairs: int = 2
) -> tuple[TablePlan, bool]:
    """One table's plan from the model; (plan, True) when it fell back to defaults in part
    or whole."""
    salvaged = False

    def check(answer: BaseModel) -> TablePlan:
        plan = to_table_plan(table, answer)
        problems = dataplan.table_plan_problems(table, plan)
        if problems:
            raise Invalid(problems, reason=GeneratorReason.BAD_DATA_PLAN)
        return plan

    def salvage(answer: BaseModel) -> TablePlan:
        nonlocal salvaged
        plan = to_table_plan(table, answer)
        salvaged = bool(dataplan.table_plan_problems(table, plan))
        return plan  # dataplan.complete replaces what is wrong, column by column

    parent = _parent(table)
    prompt = messages(
        "rows.j2",
        brief=brief,
        table=table,
        parent=parent,
        columns=[
            (table.column(n), table.enum_values(n), suggestion(table, n))
            for n in planned_columns(table)
        ],
    )
    got = await llm.structured(
        prompt,
        plan_model(table),
        stage=STAGE,
        check=check,
        last_check=salvage,
        repairs=repairs,
        sample=sample,
    )
    if got.ok and got.value is not None:
        return got.value, salvaged
    return dataplan.default_table(table), True


async def propose_plan(
    llm: LLMClient, brief: Brief, schema: Schema, sample: int = 0
) -> tuple[DataPlan, int]:
    """The domain's plan, a table's plan per call; and how many tables fell back to
    defaults. No table's prompt reads another's answer, so they are asked side by side:
    the server's slots answer them together (finance's five, one at a time, took 88 s)."""
    answers = await asyncio.gather(
        *(propose_table_plan(llm, brief, table, sample) for table in schema.insertion_order())
    )
    tables = [plan for plan, _ in answers]
    fell_back = sum(fallback for _, fallback in answers)
    return dataplan.complete(DataPlan(tables=tables), schema), fell_back


def id_start(seed: dict[str, list[dict[str, Scalar]]], schema: Schema) -> int:
    """The first :_new_id: one above the largest key number of the seed, so a new row's id
    continues the seed's own sequence (a new loan 58991 after loan 58990, not 1000000)
    and never takes a seed row's key. A text key counts by its digits ('AC10234' is
    10234), as `patterns.key_expression` prefixes the new id with the seed's letters."""
    return max(id_starts(seed, schema).values(), default=DEFAULT_ID_START)


def id_starts(seed: dict[str, list[dict[str, Scalar]]], schema: Schema) -> dict[str, int]:
    """The first :_new_id of each keyed table that has a numbered key: one above its own
    largest, so a new order follows the orders (ecommerce on 277c846 told a new order
    59779, above its returns, where its orders run 35566 to 35766)."""
    out = {}
    for table in schema.tables:
        if len(table.primary_key) != 1:
            continue
        numbers = [_key_number(row.get(table.primary_key[0])) for row in seed.get(table.name, [])]
        top = max((n for n in numbers if n is not None), default=None)
        if top is not None:
            out[table.name] = top + 1
    return out


def _key_number(value: Scalar) -> int | None:
    if type(value) is int:
        return value
    digits = re.search(r"\d+$", value) if isinstance(value, str) else None
    return int(digits.group(0)) if digits else None


async def propose_rows(
    llm: LLMClient, brief: Brief, schema: Schema, probe: list[Tool], sample: int = 0
) -> Outcome[dict[str, list[dict[str, Scalar]]]]:
    """Every table's rows from the model's plan, expanded to `brief.seed_rows` rows and
    loaded on both engines; the default plan when the model's plan does not load."""
    plan, fell_back = await propose_plan(llm, brief, schema, sample)
    for _ in range(fell_back):
        llm.ledger.fail(STAGE, GeneratorReason.FELL_BACK_TO_DEFAULT_PLAN)
    problems: list[str] = []
    reason = GeneratorReason.SEED_REJECTED
    for candidate in (plan, dataplan.default_plan(schema)):
        expanded = dataplan.expand_plan(candidate, schema, seed=sample, total_rows=brief.seed_rows)
        seed = settled(expanded.rows, schema, brief.rules)  # fees as the rules charge them
        seed = refunds.settled(seed, schema, brief.rules)  # refunds as the rules give them
        seed = sold_counted(seed, schema)
        spec = EnvironmentSpec(name=brief.name, schema_=schema, seed=seed, tools=probe)
        problems = seed_problems(spec)
        empty = [t for t, rows in seed.items() if not rows]
        if not problems and not empty:
            for _ in range(sum(expanded.dropped.values())):
                llm.ledger.fail(STAGE, GeneratorReason.ROWS_DROPPED)
            return Outcome(value=seed, attempts=1)
        if not problems:
            reason, problems = GeneratorReason.NO_ROWS, [f"table {t!r} got no rows" for t in empty]
        if candidate is plan:
            llm.ledger.fail(STAGE, GeneratorReason.FELL_BACK_TO_DEFAULT_PLAN)
    return Outcome(
        rejection=Rejection(stage=STAGE, reason=reason, detail="; ".join(problems[:5])),
        attempts=1,
    )


# a child in one of these states holds nothing of its parent any more
_RELEASED = frozenset({*CANCELLED, "refunded", "voided"})


def sold_counted(
    seed: dict[str, list[dict[str, Scalar]]], schema: Schema
) -> dict[str, list[dict[str, Scalar]]]:
    """The seed with each parent's sold count at least what its one kind of child holds of
    it: railway's data plan drew `seats_sold` apart from the tickets (trip 30987 sold 2 and
    held 4 active tickets), and a ticket moved off it then took its count below zero."""
    out = dict(seed)
    for parent in schema.tables:
        sold = sold_column(parent)
        children = [
            (t, fk.columns[0])
            for t in schema.tables
            for fk in t.foreign_keys
            if fk.ref_table == parent.name and len(fk.columns) == 1
        ]
        if sold is None or len(children) != 1 or len(parent.primary_key) != 1:
            continue
        child, ref = children[0]
        counted = counted_column(child)
        held: dict[Scalar, int] = {}
        for row in seed.get(child.name, []):
            if any(str(v).casefold() in _RELEASED for k, v in row.items() if "status" in k):
                continue
            step = row.get(counted) if counted else 1
            held[row.get(ref)] = held.get(row.get(ref), 0) + (step if isinstance(step, int) else 1)
        key = parent.primary_key[0]
        out[parent.name] = [
            {**r, sold: max(n, held.get(r.get(key), 0))} if isinstance(n := r.get(sold), int) else r
            for r in seed.get(parent.name, [])
        ]
    return out
