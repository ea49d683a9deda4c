"""Stage 2: seed rows, one table at a time in key order, loaded through the real DDL.

Each table gets its own JSON schema: typed columns, and foreign keys as an enum of the
keys that exist, so even a small model cannot point at a missing row. Primary keys are
ours (a range per table, so an account id never looks like a client id)."""

from __future__ import annotations

import datetime as dt
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from generators.prompting import messages
from generators.realise import seed_problems
from toolscale.brief import Brief
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.reasons import GeneratorReason
from toolscale.report import Rejection
from toolscale.schema import Scalar, Schema, Table
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool

STAGE = "rows"
PY_TYPES: dict[str, Any] = {
    "integer": int,
    "real": float,
    "text": str,
    "boolean": bool,
    "date": dt.date,
    "datetime": dt.datetime,
}


def key_base(index: int, n_rows: int = 99) -> int:
    """Keys of the index-th table start at 101, 201, … (1001, 2001, … when tables hold
    100 rows or more): ranges never overlap."""
    step = 100
    while step <= n_rows:
        step *= 10
    return (index + 1) * step + 1


def row_model(table: Table, parent_keys: dict[str, list[Scalar]], n_rows: int) -> type[BaseModel]:
    """The JSON schema one table's rows must follow; the integer primary key is left out."""
    fields: dict[str, Any] = {}
    fk_of = {fk.columns[0]: fk.ref_table for fk in table.foreign_keys if len(fk.columns) == 1}
    for col in table.columns:
        if col.name in table.primary_key and col.type == "integer" and len(table.primary_key) == 1:
            continue
        if col.name in fk_of and parent_keys.get(fk_of[col.name]):
            kind: Any = Literal[tuple(parent_keys[fk_of[col.name]])]
        else:
            kind = PY_TYPES[col.type]
        if col.nullable:
            fields[col.name] = (kind | None, None)
        else:
            fields[col.name] = (kind, ...)
    row = create_model(f"{table.name}_row", **fields)
    low = max(2, n_rows // 2)
    return create_model(
        f"{table.name}_rows",
        rows=(list[row], Field(min_length=low, max_length=n_rows)),
    )


def to_scalar(value: Any) -> Scalar:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None).isoformat(timespec="seconds")
    if isinstance(value, dt.date):
        return value.isoformat()
    return value


def with_keys(
    table: Table, rows: list[dict[str, Any]], index: int, n_rows: int | None = None
) -> list[dict[str, Scalar]]:
    """Rows with our keys; `n_rows` is the most rows any table may have (the same for all)."""
    out = []
    keys = table.primary_key
    key = keys[0] if len(keys) == 1 and table.column(keys[0]).type == "integer" else None
    for i, row in enumerate(rows):
        values = {k: to_scalar(v) for k, v in row.items()}
        if key is not None:
            values = {key: key_base(index, n_rows or len(rows)) + i, **values}
        out.append(values)
    return out


async def propose_table_rows(
    llm: LLMClient,
    brief: Brief,
    schema: Schema,
    seed: dict[str, list[dict[str, Scalar]]],
    table: Table,
    index: int,
    probe: list[Tool],
    sample: int = 0,
    repairs: int = 3,
) -> Outcome[list[dict[str, Scalar]]]:
    """Rows for one table, given its parents' rows; checked by loading them on both engines."""
    parents = {fk.ref_table for fk in table.foreign_keys}
    parent_keys: dict[str, list[Scalar]] = {}
    for name in parents:
        parent = schema.table(name)
        parent_keys[name] = [r[parent.primary_key[0]] for r in seed.get(name, [])]
    model = row_model(table, parent_keys, brief.rows_per_table)

    def check(answer: BaseModel) -> list[dict[str, Scalar]]:
        raw = answer.model_dump()["rows"]
        rows = with_keys(table, raw, index, brief.rows_per_table)
        partial = {**seed, table.name: rows}
        spec = EnvironmentSpec(name=brief.name, schema_=schema, seed=partial, tools=probe)
        problems = seed_problems(spec)
        if problems:
            raise Invalid(problems, reason=GeneratorReason.SEED_REJECTED)
        return rows

    prompt = messages(
        "rows.j2",
        brief=brief,
        table=table,
        columns=[c for c in table.columns if c.name not in table.primary_key],
        parents={n: seed.get(n, [])[:6] for n in sorted(parents)},
        n_rows=brief.rows_per_table,
        year=int(str(EnvironmentSpec.model_fields["clock"].default)[:4]) - 1,
    )
    return await llm.structured(
        prompt, model, stage=STAGE, check=check, repairs=repairs, sample=sample
    )


async def propose_rows(
    llm: LLMClient, brief: Brief, schema: Schema, probe: list[Tool], sample: int = 0
) -> Outcome[dict[str, list[dict[str, Scalar]]]]:
    """Every table's rows, parents first; the first table that cannot be filled stops it."""
    seed: dict[str, list[dict[str, Scalar]]] = {}
    attempts = 0
    for table in schema.insertion_order():
        index = schema.tables.index(table)
        got = await propose_table_rows(llm, brief, schema, seed, table, index, probe, sample)
        attempts += got.attempts
        if not got.ok or got.value is None:
            rejection = got.rejection or Rejection(
                stage=STAGE, reason=GeneratorReason.NO_ROWS, detail=""
            )
            rejection.detail = f"table {table.name!r}: {rejection.detail}"
            return Outcome(rejection=rejection, attempts=attempts, raw=got.raw)
        seed[table.name] = got.value
    return Outcome(value=seed, attempts=attempts)
