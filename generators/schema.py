"""Stage 1: the LLM proposes tables; we check them and realise the DDL on both engines."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from generators.prompting import messages
from generators.realise import ddl_problems
from toolscale.brief import Brief
from toolscale.llm import Invalid, LLMClient, Outcome, validation_problems
from toolscale.schema import Column, ForeignKey, Schema, Table

STAGE = "schema"


class ColumnProposal(BaseModel):
    name: str
    type: Literal["integer", "real", "text", "boolean", "date", "datetime"]
    description: str = ""
    nullable: bool = False
    references: str | None = Field(
        default=None, description="the table this column points to, or null"
    )


class TableProposal(BaseModel):
    name: str
    description: str
    columns: list[ColumnProposal] = Field(min_length=2, max_length=10)
    checks: list[str] = Field(default_factory=list, max_length=4)


class SchemaProposal(BaseModel):
    tables: list[TableProposal] = Field(min_length=2, max_length=10)


def to_schema(proposal: SchemaProposal, min_tables: int = 2) -> Schema:
    """Our schema from the proposal: first column is the key, `references` are foreign keys.

    Raises Invalid with every problem found, so the model can fix them in one go.
    """
    problems: list[str] = []
    if len(proposal.tables) < min_tables:
        problems.append(f"propose at least {min_tables} tables, got {len(proposal.tables)}")
    names = {t.name for t in proposal.tables}
    tables: list[Table] = []
    for t in proposal.tables:
        key = t.columns[0]
        if key.type != "integer":
            problems.append(
                f"table {t.name!r}: the first column {key.name!r} must be an integer key"
            )
        columns, fks = [], []
        for i, c in enumerate(t.columns):
            ref = c.references
            if ref is not None and ref not in names:
                problems.append(
                    f"{t.name}.{c.name}: references unknown table {ref!r} "
                    f"(tables: {', '.join(sorted(names))})"
                )
                ref = None
            if ref == t.name:
                problems.append(f"{t.name}.{c.name}: a table must not reference itself")
                ref = None
            if ref is not None:
                if c.type != "integer":
                    problems.append(f"{t.name}.{c.name}: a reference must be an integer column")
                target = next(x for x in proposal.tables if x.name == ref)
                fks.append(
                    ForeignKey(
                        columns=[c.name], ref_table=ref, ref_columns=[target.columns[0].name]
                    )
                )
            nullable = c.nullable and i > 0 and ref is None
            try:
                columns.append(
                    Column(name=c.name, type=c.type, nullable=nullable, description=c.description)
                )
            except ValidationError as e:
                problems += [f"{t.name}.{c.name}: {p}" for p in validation_problems(e)]
        try:
            tables.append(
                Table(
                    name=t.name,
                    description=t.description,
                    columns=columns,
                    primary_key=[key.name],
                    foreign_keys=fks,
                    checks=[c for c in t.checks if c.strip()],
                )
            )
        except ValidationError as e:
            problems += [f"table {t.name!r}: {p}" for p in validation_problems(e)]
    if problems:
        raise Invalid(problems, reason="bad_schema")
    try:
        return Schema(tables=tables)
    except ValidationError as e:
        raise Invalid(validation_problems(e), reason="bad_schema") from e


async def propose_schema(
    llm: LLMClient, brief: Brief, sample: int = 0, repairs: int = 3
) -> Outcome[Schema]:
    """A schema whose DDL both engines accept; every problem goes back to the model."""

    def check(proposal: SchemaProposal) -> Schema:
        schema = to_schema(proposal, min_tables=min(3, brief.n_tables))
        problems = ddl_problems(schema)
        if problems:
            raise Invalid(problems, reason="ddl_rejected")
        return schema

    return await llm.structured(
        messages("schema.j2", brief=brief),
        SchemaProposal,
        stage=STAGE,
        check=check,
        repairs=repairs,
        sample=sample,
    )
