"""Real DDL for both engines from one schema, through SQLAlchemy Core.

SQLite gets STRICT tables (types enforced); booleans are 0/1 integers with a CHECK on
both engines, so outputs and hashes agree; DuckDB is rendered with SQLAlchemy's
PostgreSQL dialect, whose DDL DuckDB accepts. CHECK expressions are written in SQLite's
dialect and transpiled for DuckDB with sqlglot.

DuckDB leaves out the foreign keys of a table that other tables reference: there an
update of an indexed column is a delete and an insert, and the delete breaks the
reference, so a player whom contracts point to could never be traded to another team.
SQLite keeps every foreign key, and a write SQLite refuses that DuckDB lets through
differs between the engines, so the verifier rejects it; tools check a new parent exists.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
import sqlglot
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.schema import CreateIndex, CreateTable

from toolscale.sandbox.blueprint import EngineName
from toolscale.schema import Column, Schema


def _type(col: Column, engine: EngineName) -> sa.types.TypeEngine:
    if col.type in ("integer", "boolean"):
        return sa.Integer() if engine == "sqlite" else sa.BigInteger()
    if col.type == "real":
        return sa.REAL() if engine == "sqlite" else sa.Double()
    return sa.Text()  # text, and date / datetime as ISO 8601 text on both engines


def transpile_expression(sql: str, engine: EngineName) -> str:
    if engine == "sqlite":
        return sql
    return sqlglot.transpile(sql, read="sqlite", write="duckdb")[0]


def create_statements(schema: Schema, engine: EngineName) -> list[str]:
    """CREATE TABLE statements in dependency order (and, on SQLite, foreign-key indexes)."""
    metadata = sa.MetaData()
    # "named" paramstyle: with the default pyformat, PostgreSQL DDL doubles every % in a CHECK
    dialect = sqlite.dialect() if engine == "sqlite" else postgresql.dialect(paramstyle="named")
    out = []
    referenced = {fk.ref_table for t in schema.tables for fk in t.foreign_keys}
    for table in schema.insertion_order():
        columns = [
            sa.Column(
                c.name,
                _type(c, engine),
                nullable=c.nullable and c.name not in table.primary_key,
                unique=c.unique or None,
                autoincrement=False,
            )
            for c in table.columns
        ]
        constraints: list[sa.schema.SchemaItem] = [sa.PrimaryKeyConstraint(*table.primary_key)]
        for fk in table.foreign_keys:
            if engine == "duckdb" and table.name in referenced:
                continue
            constraints.append(
                sa.ForeignKeyConstraint(fk.columns, [f"{fk.ref_table}.{c}" for c in fk.ref_columns])
            )
        for i, check in enumerate(table.checks):
            constraints.append(
                sa.CheckConstraint(
                    sa.text(transpile_expression(check, engine)), name=f"{table.name}_check_{i}"
                )
            )
        for c in table.columns:
            if c.type == "boolean":
                constraints.append(
                    sa.CheckConstraint(f"{c.name} IN (0, 1)", name=f"{table.name}_{c.name}_bool")
                )
        kwargs: dict[str, Any] = {"sqlite_strict": True} if engine == "sqlite" else {}
        sa_table = sa.Table(table.name, metadata, *columns, *constraints, **kwargs)
        out.append(str(CreateTable(sa_table).compile(dialect=dialect)).strip())
        if engine == "sqlite":  # tools filter on references all the time; DuckDB scans fast
            for i, fk in enumerate(table.foreign_keys):
                if fk.columns == table.primary_key[: len(fk.columns)]:
                    continue  # the primary key's own index already serves it
                index = sa.Index(f"{table.name}_fk_{i}", *(sa_table.c[c] for c in fk.columns))
                out.append(str(CreateIndex(index).compile(dialect=dialect)).strip())
    return out
