"""One schema, real DDL for both engines: STRICT tables and foreign-key indexes on SQLite,
booleans checked as 0/1 everywhere, CHECK expressions transpiled for DuckDB."""

from __future__ import annotations

import re
import sqlite3

import duckdb
import pytest

from toolscale.sandbox.base import ENGINE_NAMES, EngineName
from toolscale.sandbox.ddl import create_statements, transpile_expression
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec


def run_all(engine: EngineName, statements: list[str]) -> None:
    if engine == "sqlite":
        lite = sqlite3.connect(":memory:")
        try:
            for ddl in statements:
                lite.execute(ddl)
        finally:
            lite.close()
        return
    duck = duckdb.connect(":memory:")
    try:
        for ddl in statements:
            duck.execute(ddl)
    finally:
        duck.close()


def test_sqlite_tables_are_strict_and_references_indexed(mini_spec: EnvironmentSpec) -> None:
    clients, accounts, index = create_statements(mini_spec.schema_, "sqlite")
    assert clients.startswith("CREATE TABLE clients") and clients.endswith("STRICT")
    assert accounts.startswith("CREATE TABLE accounts") and accounts.endswith("STRICT")
    assert "FOREIGN KEY(client_id) REFERENCES clients (id)" in accounts
    assert "CONSTRAINT accounts_check_0 CHECK (balance >= 0)" in accounts
    assert "CONSTRAINT accounts_frozen_bool CHECK (frozen IN (0, 1))" in accounts
    assert "id TEXT NOT NULL" in accounts and "opened TEXT," in accounts  # dates are text
    assert index == "CREATE INDEX accounts_fk_0 ON accounts (client_id)"


def test_duckdb_gets_the_same_tables_without_indexes(mini_spec: EnvironmentSpec) -> None:
    statements = create_statements(mini_spec.schema_, "duckdb")
    assert [s.split("(")[0].strip() for s in statements] == [
        "CREATE TABLE clients",
        "CREATE TABLE accounts",
    ]
    accounts = statements[1]
    assert "client_id BIGINT NOT NULL" in accounts and "balance DOUBLE PRECISION" in accounts
    assert "CHECK (frozen IN (0, 1))" in accounts and "STRICT" not in accounts


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_the_statements_load_on_their_engine(
    mini_spec: EnvironmentSpec, engine: EngineName
) -> None:
    run_all(engine, create_statements(mini_spec.schema_, engine))


def test_tables_come_in_dependency_order_and_a_key_prefix_needs_no_index() -> None:
    schema = Schema.model_validate(
        {
            "tables": [
                {
                    "name": "loan_notes",
                    "columns": [
                        {"name": "loan_id", "type": "integer"},
                        {"name": "line", "type": "integer"},
                        {"name": "note", "type": "text", "unique": True},
                    ],
                    "primary_key": ["loan_id", "line"],
                    "foreign_keys": [
                        {"columns": ["loan_id"], "ref_table": "loans", "ref_columns": ["loan_id"]}
                    ],
                },
                {
                    "name": "loans",
                    "columns": [{"name": "loan_id", "type": "integer"}],
                    "primary_key": ["loan_id"],
                },
            ]
        }
    )
    statements = create_statements(schema, "sqlite")
    assert [s.split("(")[0].strip() for s in statements] == [
        "CREATE TABLE loans",
        "CREATE TABLE loan_notes",
    ]  # the key's own index serves the reference: no CREATE INDEX
    assert "UNIQUE (note)" in statements[1]
    for engine in ENGINE_NAMES:
        run_all(engine, create_statements(schema, engine))


def test_checks_are_written_for_sqlite_and_transpiled_for_duckdb(mini_dict: dict) -> None:
    mini_dict["schema"]["tables"][1]["checks"] = [
        "ifnull(balance, 0) >= 0",
        "CAST(balance AS INTEGER) % 2 = 0 OR balance >= 0",
    ]
    schema = EnvironmentSpec.model_validate(mini_dict).schema_
    assert transpile_expression("ifnull(balance, 0) >= 0", "sqlite") == "ifnull(balance, 0) >= 0"
    assert transpile_expression("ifnull(balance, 0) >= 0", "duckdb") == "COALESCE(balance, 0) >= 0"
    duck = create_statements(schema, "duckdb")[1]
    assert "CHECK (COALESCE(balance, 0) >= 0)" in duck
    # a modulo is not a paramstyle escape; sqlglot from 30.31 guards its divisor as SQLite
    # does ("% NULLIF(2, 0)": a modulo by 0 is NULL there, not an error)
    assert re.search(r"% (?:NULLIF\()?2\b", duck) and "%%" not in duck, duck
    run_all("duckdb", create_statements(schema, "duckdb"))
    run_all("sqlite", create_statements(schema, "sqlite"))
