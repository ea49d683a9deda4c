"""Checks that realise what a stage proposed: DDL on both engines, seed rows through that
DDL, tool SQL statically and on seed data. Each returns readable problems that go back to
the model as feedback. Seed and tool SQL are the core's checks (`toolscale.checks`, which
the validators run on the final environment too); only the DDL, CHECK expression and
INSERT column rules are the generators' own."""

from __future__ import annotations

import sqlite3

import duckdb
import sqlglot
from sqlglot import exp

from toolscale.checks import check_seed, check_sql
from toolscale.reasons import StaticSQLReason
from toolscale.report import Rejection
from toolscale.sandbox.base import EngineName
from toolscale.sandbox.ddl import create_statements
from toolscale.sandbox.sqlcheck import check_constraint
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool


def check_expression_problems(schema: Schema) -> list[str]:
    """CHECK constraints vetted as the static SQL stage vets them (`check_constraint`)."""
    return [
        e.detail
        for table in schema.tables
        for sql in table.checks
        for e in check_constraint(sql, table)
    ]


def ddl_problems(schema: Schema) -> list[str]:
    """Create every table on SQLite and DuckDB; what either refuses is a problem."""
    problems = check_expression_problems(schema)
    if problems:
        return problems
    engines: list[
        tuple[str, sqlite3.Connection | duckdb.DuckDBPyConnection, type[Exception], EngineName]
    ] = [
        ("SQLite", sqlite3.connect(":memory:"), sqlite3.Error, "sqlite"),
        (
            "DuckDB",
            duckdb.connect(":memory:", config={"enable_external_access": False}),
            duckdb.Error,
            "duckdb",
        ),
    ]
    for label, con, error, engine in engines:
        try:
            for ddl in create_statements(schema, engine):
                try:
                    con.execute(ddl)
                except error as e:
                    problems.append(f"{label} refused the DDL: {str(e).splitlines()[0]}")
        finally:
            con.close()
    return problems


def feedback(rejection: Rejection) -> str:
    """A core check's rejection as the model reads it: the detail names the table and row,
    or the tool and step; the reason code says which rule."""
    return f"{rejection.detail} [{rejection.reason}]"


def seed_problems(spec: EnvironmentSpec) -> list[str]:
    """Load the seed through the real DDL of both engines; the first refused row is named."""
    rejections, opened = check_seed(spec)
    for env in opened.values():
        env.close()
    return [feedback(r) for r in rejections]


def insert_problems(tool: Tool, schema: Schema) -> list[str]:
    """An INSERT must give every NOT NULL column, the key as :_new_id: said plainly, since
    the database's own "NOT NULL constraint failed" teaches a small model little."""
    out = []
    tables = {t.name: t for t in schema.tables}
    for i, sql in enumerate(tool.run):
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except sqlglot.errors.ParseError:
            continue  # the static check reports it
        target = tree.this if isinstance(tree, exp.Insert) else None
        if not isinstance(target, exp.Schema) or not isinstance(target.this, exp.Table):
            continue
        table = tables.get(target.this.name)
        if table is None:
            continue
        given = {c.name for c in target.expressions}
        missing = [c.name for c in table.columns if not c.nullable and c.name not in given]
        if missing:
            key = table.primary_key[0]
            hint = f" (give {key} the value :_new_id)" if key in missing else ""
            out.append(f"run[{i}]: INSERT INTO {table.name} must set {', '.join(missing)}{hint}")
    return out


def tool_sql_problems(tool: Tool, schema: Schema) -> list[str]:
    """Static SQL problems of one tool, then missing INSERT columns, then what DuckDB cannot
    bind."""
    rejections, _ = check_sql(EnvironmentSpec(name="probe", schema_=schema, tools=[tool]))
    if any(r.reason != StaticSQLReason.SQL_NOT_PORTABLE for r in rejections):
        return [feedback(r) for r in rejections]  # portability is only checked without these
    return insert_problems(tool, schema) or [feedback(r) for r in rejections]
