"""Hostile or careless SQL, as an LLM might write it.

Two independent layers: the static check refuses it before anything runs, and the
engine's own lock (SQLite authorizer and limits; DuckDB's locked configuration and its
parser) refuses it even when the static check is bypassed. Runaway queries that are
valid SQL are stopped by the per-call time budget. After each, the sandbox answers the
next call correctly.
"""

from __future__ import annotations

import time

import pytest

from tests.toolscale.sandbox.hostile import bypass_static_check
from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import EngineName, Limits, Sandbox, SandboxRefused
from toolscale.sandbox.sqlcheck import Role, SQLCheckError, check_statement
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool
from validators.pipeline import verify_environment

HOSTILE = [
    # (id, role, sql, static reason)
    ("attach", "run", "ATTACH DATABASE '/tmp/evil.db' AS evil", "sql_forbidden_statement"),
    (
        "load_extension",
        "returns",
        "SELECT load_extension('/tmp/evil.so')",
        "sql_forbidden_function",
    ),
    ("pragma_writable_schema", "run", "PRAGMA writable_schema = ON", "sql_forbidden_statement"),
    ("read_csv", "returns", "SELECT * FROM read_csv('/etc/passwd')", "sql_forbidden_function"),
    ("readfile", "returns", "SELECT readfile('/etc/passwd')", "sql_forbidden_function"),
    ("copy_to", "run", "COPY accounts TO '/tmp/accounts.csv'", "sql_forbidden_statement"),
    ("install", "run", "INSTALL httpfs", "sql_forbidden_statement"),
    ("load", "run", "LOAD httpfs", "sql_forbidden_statement"),
    (
        "ddl_create",
        "run",
        "CREATE TABLE stolen AS SELECT * FROM accounts",
        "sql_forbidden_statement",
    ),
    ("ddl_drop", "run", "DROP TABLE accounts", "sql_forbidden_statement"),
    (
        "multi_statement",
        "run",
        "UPDATE accounts SET balance = 0; DELETE FROM clients",
        "sql_multiple_statements",
    ),
    ("transaction", "run", "COMMIT", "sql_forbidden_statement"),
]
# Refused statically for portability and hygiene; harmless if they ever ran.
HYGIENE = [
    ("sqlite_master", "returns", "SELECT sql FROM sqlite_master", "sql_unknown_table"),
    ("qualified", "returns", "SELECT * FROM main.accounts", "sql_unknown_table"),
    ("returning", "run", "DELETE FROM accounts RETURNING *", "sql_forbidden_statement"),
    ("positional", "returns", "SELECT * FROM accounts WHERE id = ?", "sql_unknown_parameter"),
    ("unknown_column", "returns", "SELECT pin_code FROM accounts", "sql_unknown_column"),
    (
        "undeclared_param",
        "returns",
        "SELECT * FROM accounts WHERE id = :who",
        "sql_unknown_parameter",
    ),
]

RUNAWAY = [
    (
        "huge_cross_join",
        "SELECT count(*) AS c FROM accounts a, accounts b, accounts c, accounts d, accounts e, "
        "accounts f, accounts g, accounts h, clients i, clients j",
    ),
]


def _tool(role: str, sql: str) -> dict:
    if role == "run":
        return {"name": "evil", "description": "x", "kind": "write", "run": [sql]}
    return {"name": "evil", "description": "x", "kind": "read", "returns": sql}


@pytest.mark.parametrize(
    "case, role, sql, reason", HOSTILE + HYGIENE, ids=[h[0] for h in HOSTILE + HYGIENE]
)
def test_static_check_refuses_before_running(
    mini_spec: EnvironmentSpec, case: str, role: Role, sql: str, reason: str
) -> None:
    with pytest.raises(SQLCheckError) as info:
        check_statement(sql, role, mini_spec.schema_, {}, "evil")
    assert info.value.reason == reason
    assert info.value.detail.startswith("evil: ")
    # the environment validator reports the same reason, naming the tool and step
    spec = mini_spec.model_copy(
        update={"tools": [*mini_spec.tools, Tool.model_validate(_tool(role, sql))]}
    )
    (rejection,) = verify_environment(spec)
    assert (rejection.stage, rejection.reason) == ("static_sql", reason)
    assert "evil." in rejection.detail
    # and no sandbox can even be built with it
    with pytest.raises(SQLCheckError):
        open_sandbox(spec)


def _assert_next_call_correct(sb: Sandbox) -> None:
    after = sb.call("get_account", {"account_id": "A1"})
    assert after.ok and after.output["balance"] == 100
    assert sb.call("withdraw", {"account_id": "A1", "amount": 1}).ok
    assert sb.call("get_account", {"account_id": "A1"}).output["balance"] == 99
    sb.reset()


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
@pytest.mark.parametrize("case, role, sql, reason", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_engine_lock_refuses_when_static_check_is_bypassed(
    monkeypatch: pytest.MonkeyPatch,
    mini_spec: EnvironmentSpec,
    engine: EngineName,
    case: str,
    role: str,
    sql: str,
    reason: str,
) -> None:
    bypass_static_check(monkeypatch)
    tools = [*mini_spec.tools, Tool.model_validate(_tool(role, sql))]
    spec = mini_spec.model_copy(update={"tools": tools})
    try:
        sb = open_sandbox(spec, engine)
    except SandboxRefused:
        assert engine == "duckdb"  # DuckDB's own parser refused the statement kind up front
        return
    with sb:
        seed = sb.state_hash()
        result = sb.call("evil", {})
        assert not result.ok, f"{case} ran: {result}"
        assert result.code in ("forbidden", "sql_error"), result
        assert sb.state_hash() == seed
        _assert_next_call_correct(sb)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
@pytest.mark.parametrize("case, sql", RUNAWAY, ids=[r[0] for r in RUNAWAY])
def test_runaway_queries_are_stopped_within_budget(
    mini_dict: dict, engine: EngineName, case: str, sql: str
) -> None:
    mini_dict["seed"]["clients"] = [{"id": i, "name": f"c{i}"} for i in range(1, 41)]
    mini_dict["seed"]["accounts"] += [
        {"id": f"B{i}", "client_id": i, "balance": i, "frozen": 0} for i in range(1, 41)
    ]
    mini_dict["tools"].append(_tool("returns", sql))
    spec = EnvironmentSpec.model_validate(mini_dict)
    assert verify_environment(spec) == []  # valid SQL: only the budget can stop it
    with open_sandbox(spec, engine, Limits(timeout_ms=100)) as sb:
        started = time.perf_counter()
        result = sb.call("evil", {})
        elapsed = time.perf_counter() - started
        assert (result.ok, result.code) == (False, "timeout")
        assert "100 ms budget" in (result.error or "")
        assert elapsed < 2.0  # stopped, not run to completion (that would take hours)
        _assert_next_call_correct(sb)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_recursive_cte_is_refused_and_stopped_when_the_check_is_bypassed(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName
) -> None:
    sql = (
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
        "SELECT count(*) AS c FROM r"
    )
    with pytest.raises(SQLCheckError, match="recursive CTE") as info:
        check_statement(sql, "returns", EnvironmentSpec.model_validate(mini_dict).schema_, {})
    assert info.value.reason == "sql_too_costly"
    mini_dict["tools"].append(_tool("returns", sql))
    bypass_static_check(monkeypatch)
    with open_sandbox(
        EnvironmentSpec.model_validate(mini_dict), engine, Limits(timeout_ms=100)
    ) as sb:
        started = time.perf_counter()
        result = sb.call("evil", {})
        assert (result.ok, result.code) == (False, "timeout")
        assert time.perf_counter() - started <= 2 * 0.1 + 0.1
        _assert_next_call_correct(sb)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_runaway_write_keeps_earlier_writes_of_the_task(
    mini_dict: dict, engine: EngineName
) -> None:
    """SQLite rolls back the whole transaction when it interrupts a write, DuckDB on any
    error: either way the calls that succeeded before must survive, and reset still works."""
    mini_dict["seed"]["clients"] = [{"id": i, "name": f"c{i}"} for i in range(1, 41)]
    mini_dict["tools"].append(
        _tool(
            "run",
            "UPDATE accounts SET balance = balance + (SELECT count(*) FROM clients a, clients b, "
            "clients c, clients d, clients e, clients f) WHERE id = 'A1'",
        )
    )
    spec = EnvironmentSpec.model_validate(mini_dict)
    with open_sandbox(spec, engine, Limits(timeout_ms=100)) as sb:
        assert sb.call("withdraw", {"account_id": "A1", "amount": 10}).ok
        opened = sb.call("open_account", {"client_id": 2}).output["id"]
        kept = sb.changes()
        result = sb.call("evil", {})
        assert (result.ok, result.code) == (False, "timeout")
        assert sb.changes() == kept
        assert sb.call("get_account", {"account_id": "A1"}).output["balance"] == 90
        assert sb.call("open_account", {"client_id": 1}).output["id"] != opened
        sb.reset()
        assert sb.changes() == {}
        _assert_next_call_correct(sb)
