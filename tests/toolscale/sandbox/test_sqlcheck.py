"""Static checks of tool SQL: what passes is compiled once for both engines, rewritten so
DuckDB answers as SQLite does; what fails is named with the tool, the step and a reason.
(Hostile statements, one per kind, are in test_security.py.)"""

from __future__ import annotations

import pytest

from toolscale.sandbox.sqlcheck import SQLCheckError, check_statement, check_tool, compile_tool
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool


def test_a_passing_statement_is_compiled_with_its_parameters(mini_spec: EnvironmentSpec) -> None:
    stmt = check_statement(
        "SELECT id, balance / :n AS share FROM accounts WHERE id LIKE :p AND client_id = :n;",
        "returns",
        mini_spec.schema_,
        {"n": "integer", "p": "string"},
        "split.returns",
    )
    assert (stmt.label, stmt.role, stmt.writes) == ("split.returns", "returns", None)
    assert stmt.params == ("n", "p")  # in order of first use, each once
    assert stmt.sqlite == (
        "SELECT id, balance / :n AS share FROM accounts WHERE id LIKE :p AND client_id = :n"
    )
    assert "CAST($n AS BIGINT)" in stmt.duckdb and "$p" in stmt.duckdb
    assert "accounts.balance" in stmt.duckdb  # qualified against the schema


@pytest.mark.parametrize(
    "sql, sqlite_meaning",
    [
        ("SELECT id FROM accounts WHERE id LIKE :p", "ILIKE"),
        ("SELECT balance / :n AS q FROM accounts", "NULLIF("),
        ("SELECT balance % :n AS r FROM accounts", "NULLIF("),
        ("SELECT CAST(balance AS INTEGER) AS whole FROM accounts", "TRUNC("),
    ],
    ids=["like_ignores_case", "division_by_zero", "modulo_by_zero", "cast_truncates"],
)
def test_duckdb_gets_sqlite_semantics(
    mini_spec: EnvironmentSpec, sql: str, sqlite_meaning: str
) -> None:
    stmt = check_statement(sql, "returns", mini_spec.schema_, {"p": "string", "n": "integer"})
    assert sqlite_meaning in stmt.duckdb
    assert sqlite_meaning not in stmt.sqlite  # SQLite runs the statement as written


def test_a_write_knows_the_table_it_writes(mini_spec: EnvironmentSpec) -> None:
    schema, params = mini_spec.schema_, {"id": "string", "amount": "number"}
    insert = check_statement(
        "INSERT INTO accounts (id, client_id, balance, frozen) VALUES (:id, 1, :amount, 0)",
        "run",
        schema,
        params,
    )
    assert insert.writes == "accounts" and "CAST($amount AS DOUBLE)" in insert.duckdb
    update = check_statement("UPDATE clients SET name = 'x' WHERE id = 1", "run", schema, {})
    assert update.writes == "clients"
    delete = check_statement("DELETE FROM accounts WHERE id = :id", "run", schema, params)
    assert delete.writes == "accounts"


def test_a_cte_is_a_table_of_the_statement(mini_spec: EnvironmentSpec) -> None:
    stmt = check_statement(
        "WITH rich AS (SELECT id FROM accounts WHERE balance > 50) SELECT count(*) AS n FROM rich",
        "returns",
        mini_spec.schema_,
        {},
    )
    assert stmt.params == () and "FROM rich" in stmt.duckdb


@pytest.mark.parametrize(
    "sql, role, reason, said",
    [
        ("", "returns", "sql_parse_error", "empty statement"),
        ("SELEC id FROM", "returns", "sql_parse_error", "cannot parse"),
        ("SELECT 1 AS x", "run", "sql_forbidden_statement", "run steps must be INSERT"),
        ("DELETE FROM accounts", "require", "sql_forbidden_statement", "must be a SELECT"),
        ("SELECT count(*) FROM accounts", "returns", "sql_not_portable", "with AS"),
        ("SELECT * FROM generate_series(1, 3)", "returns", "sql_forbidden_function", "table func"),
        ("SELECT randomblob(4) AS v", "returns", "sql_forbidden_function", "randomblob() is not"),
        ("SELECT * FROM payees", "returns", "sql_unknown_table", "unknown table 'payees'"),
    ],
    ids=[
        "empty",
        "garbled",
        "select_as_run",
        "write_as_require",
        "unnamed_output",
        "table_function",
        "unknown_function",
        "unknown_table",
    ],
)
def test_a_failing_statement_names_its_step_and_reason(
    mini_spec: EnvironmentSpec, sql: str, role: str, reason: str, said: str
) -> None:
    with pytest.raises(SQLCheckError) as caught:
        check_statement(sql, role, mini_spec.schema_, {}, "evil.returns")  # type: ignore[arg-type]
    assert caught.value.reason == reason
    assert caught.value.detail.startswith("evil.returns: ") and said in caught.value.detail


def test_safe_functions_sqlglot_does_not_model_are_allowed(mini_spec: EnvironmentSpec) -> None:
    stmt = check_statement(
        "SELECT printf('%.2f', balance) AS shown, iif(frozen, 'yes', 'no') AS f FROM accounts",
        "returns",
        mini_spec.schema_,
        {},
    )
    assert stmt.duckdb.startswith("SELECT")


def test_check_tool_reports_every_failing_step(mini_spec: EnvironmentSpec) -> None:
    tool = Tool(
        name="broken",
        description="d",
        kind="write",
        require=[{"sql": "SELECT colour FROM accounts", "error": "no"}],
        run=["UPDATE accounts SET balance = 0", "DELETE FROM ghosts"],
        returns="SELECT :who AS w",
    )
    passed, failed = check_tool(tool, mini_spec.schema_)
    assert [s.label for s in passed] == ["broken.run[0]"]
    assert [(e.detail.split(":")[0], e.reason) for e in failed] == [
        ("broken.require[0]", "sql_unknown_column"),
        ("broken.run[1]", "sql_unknown_table"),
        ("broken.returns", "sql_unknown_parameter"),
    ]
    with pytest.raises(SQLCheckError) as caught:
        compile_tool(tool, mini_spec.schema_)
    assert caught.value.detail == failed[0].detail  # the first failure


def test_compile_tool_gives_every_statement_in_order(mini_spec: EnvironmentSpec) -> None:
    statements = compile_tool(mini_spec.tool("withdraw"), mini_spec.schema_)
    assert [(s.label, s.role) for s in statements] == [
        ("withdraw.require[0]", "require"),
        ("withdraw.run[0]", "run"),
        ("withdraw.returns", "returns"),
    ]
    assert [s.writes for s in statements] == [None, "accounts", None]


def test_changing_a_foreign_key_of_a_referenced_row_passes() -> None:
    """DuckDB refused a trade (`UPDATE players SET team_id = ...`) with a constraint error
    because contracts point to the player, so the check turned it away and basketball's
    trade rule went unenforced. DuckDB now declares no foreign key of a referenced table
    (`ddl`), the trade runs on both engines, and the check lets it through."""
    from tests.generators.basketball import basketball_spec

    schema = basketball_spec().schema_
    params = {"player_id": "integer", "team_id": "integer"}
    traded = check_statement(
        "UPDATE players SET team_id = :team_id WHERE player_id = :player_id",
        "run",
        schema,
        params,
        "trade.run[0]",
    )
    assert traded.writes == "players"
