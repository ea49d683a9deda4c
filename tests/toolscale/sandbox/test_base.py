"""The engine interface, the same on SQLite and DuckDB: tool calls with bound parameters and
built-ins, one transaction per call, caps and budgets, seed rows checked and named."""

from __future__ import annotations

import pytest

from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import EngineName, Limits, SeedError, compile_programs, same_results
from toolscale.spec import EnvironmentSpec
from toolscale.tool import ToolResult

ENGINES: list[EngineName] = ["sqlite", "duckdb"]


@pytest.mark.parametrize("engine", ENGINES)
def test_read_write_and_policy(mini_spec: EnvironmentSpec, engine: EngineName) -> None:
    with open_sandbox(mini_spec, engine) as sb:
        got = sb.call("get_account", {"account_id": "A1"})
        assert got.ok and got.output == {"id": "A1", "client_id": 1, "balance": 100, "frozen": 0}
        missing = sb.call("get_account", {"account_id": "NOPE"})
        assert (missing.ok, missing.code, missing.error) == (False, "policy", "account not found")
        frozen = sb.call("withdraw", {"account_id": "A2", "amount": 1})
        assert frozen.code == "policy" and "frozen" in (frozen.error or "")


@pytest.mark.parametrize("engine", ENGINES)
def test_failed_call_leaves_no_trace(mini_spec: EnvironmentSpec, engine: EngineName) -> None:
    with open_sandbox(mini_spec, engine) as sb:
        assert sb.call("withdraw", {"account_id": "A1", "amount": 10}).ok
        before = sb.changes()
        over = sb.call("withdraw", {"account_id": "A1", "amount": 1000})  # CHECK balance >= 0
        assert (over.ok, over.code) == (False, "constraint")
        assert sb.changes() == before
        assert sb.call("get_account", {"account_id": "A1"}).output["balance"] == 90


@pytest.mark.parametrize("engine", ENGINES)
def test_new_id_is_per_write_and_restarts_on_reset(
    mini_spec: EnvironmentSpec, engine: EngineName
) -> None:
    with open_sandbox(mini_spec, engine) as sb:
        first = sb.call("open_account", {"client_id": 1})
        assert first.output == {"id": "AC1000000", "balance": 0, "opened": "2025-03-14"}
        bad = sb.call("open_account", {"client_id": 99})  # foreign key refuses it
        assert bad.code == "constraint"
        assert sb.call("open_account", {"client_id": 2}).output["id"] == "AC1000001"
        sb.reset()
        assert sb.changes() == {}
        assert sb.call("open_account", {"client_id": 2}).output["id"] == "AC1000000"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_new_row_continues_its_own_tables_sequence(mini_dict: dict, engine: EngineName) -> None:
    """Ecommerce on 277c846 told a new order's id as 59779, above every key of every table
    (its returns'), where its orders run 35566 to 35766: a new row's id continues its own
    table's keys; a table not named starts at id_start."""
    mini_dict["id_starts"] = {"accounts": 34_280}
    spec = EnvironmentSpec.model_validate(mini_dict)
    with open_sandbox(spec, engine) as sb:
        assert sb.call("open_account", {"client_id": 1}).output["id"] == "AC34280"
        assert sb.call("open_account", {"client_id": 2}).output["id"] == "AC34281"
    mini_dict["id_starts"] = {"clients": 5}
    with open_sandbox(EnvironmentSpec.model_validate(mini_dict), engine) as sb:
        assert sb.call("open_account", {"client_id": 1}).output["id"] == "AC1000000"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_new_rows_id_does_not_depend_on_a_change_to_another_table(
    mini_dict: dict, engine: EngineName
) -> None:
    """Two changes in one task (a withdrawal, then a new account) kept only where each call
    returns what it did alone: the new account's id had counted the withdrawal, so a
    create never joined a change made before it."""
    mini_dict["id_starts"] = {"accounts": 34_280}
    spec = EnvironmentSpec.model_validate(mini_dict)
    with open_sandbox(spec, engine) as sb:
        assert sb.call("withdraw", {"account_id": "A1", "amount": 10}).ok
        assert sb.call("open_account", {"client_id": 1}).output["id"] == "AC34280"
        results, _ = sb.replay(
            [("withdraw", {"account_id": "A1", "amount": 5}), ("open_account", {"client_id": 2})]
        )
        assert results[1].output["id"] == "AC34280"


@pytest.mark.parametrize("engine", ENGINES)
def test_row_and_byte_caps(mini_dict: dict, engine: EngineName) -> None:
    mini_dict["seed"]["clients"] = [{"id": i, "name": f"client {i}" * 20} for i in range(1, 60)]
    mini_dict["tools"].append(
        {
            "name": "all_clients",
            "description": "Every client.",
            "kind": "read",
            "returns": "SELECT id, name FROM clients ORDER BY id",
        }
    )
    spec = EnvironmentSpec.model_validate(mini_dict)
    with open_sandbox(spec, engine, Limits(max_rows=50)) as sb:
        rows = sb.call("all_clients", {})
        assert rows.code == "too_large" and "more than 50 rows" in (rows.error or "")
    with open_sandbox(spec, engine, Limits(max_rows=100, max_bytes=2000)) as sb:
        big = sb.call("all_clients", {})
        assert big.code == "too_large" and "2000-byte cap" in (big.error or "")
        assert sb.call("get_account", {"account_id": "A1"}).ok


@pytest.mark.parametrize("engine", ENGINES)
def test_seed_constraint_violation_names_table_and_row(mini_dict: dict, engine: EngineName) -> None:
    mini_dict["seed"]["accounts"].append({"id": "A3", "client_id": 1, "balance": -5, "frozen": 0})
    spec = EnvironmentSpec.model_validate(mini_dict)
    with pytest.raises(SeedError, match=r"seed accounts\[2\]") as info:
        open_sandbox(spec, engine)
    assert info.value.reason == "seed_constraint_violation"


@pytest.mark.parametrize("engine", ENGINES)
def test_seed_values_an_engine_would_accept_are_refused(
    mini_dict: dict, engine: EngineName
) -> None:
    """Unknown columns and dates that are not ISO 8601 are caught before either engine loads
    them (a reference to a missing row is each engine's to find: test_sqlite, test_duckdb)."""
    mini_dict["seed"]["accounts"][0]["opened"] = "yesterday"
    with pytest.raises(SeedError, match="not ISO 8601") as info:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict), engine)
    assert info.value.reason == "seed_bad_value"
    mini_dict["seed"]["accounts"][0] = {
        "id": "A1",
        "client_id": 1,
        "balance": 1,
        "frozen": 0,
        "colour": "red",
    }
    with pytest.raises(SeedError, match="unknown column 'colour'"):
        open_sandbox(EnvironmentSpec.model_validate(mini_dict), engine)


def test_a_seed_error_says_where_for_people_and_programs(mini_dict: dict) -> None:
    mini_dict["seed"]["clients"][0]["colour"] = "red"
    with pytest.raises(SeedError) as caught:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict)).close()
    error = caught.value
    assert (error.reason, error.table, error.index) == ("seed_unknown_column", "clients", 0)
    assert error.detail == str(error) == "seed clients[0]: unknown column 'colour'"


@pytest.mark.parametrize("engine", ENGINES)
def test_an_unknown_tool_is_an_error_result(mini_spec: EnvironmentSpec, engine: EngineName) -> None:
    with open_sandbox(mini_spec, engine) as sb:
        result = sb.call("teleport", {})
    assert (result.ok, result.code, result.error) == (
        False,
        "unknown_tool",
        "unknown tool 'teleport'",
    )


def test_arguments_are_bound_with_their_declared_types(mini_dict: dict) -> None:
    mini_dict["tools"].append(
        {
            "name": "echo",
            "description": "Echo typed values.",
            "kind": "read",
            "parameters": {
                "type": "object",
                "properties": {
                    "amount": {"type": "number"},
                    "count": {"type": "integer"},
                    "flag": {"type": "boolean"},
                    "note": {"type": ["string", "null"], "default": "none"},
                },
                "required": ["amount", "count"],
            },
            "returns": "SELECT :amount AS amount, :count AS count, :flag AS flag, :note AS note",
            "single": True,
        }
    )
    spec = EnvironmentSpec.model_validate(mini_dict)
    with open_sandbox(spec) as sb:
        bound = sb.bind(spec.tool("echo"), {"amount": 250, "count": 3.0, "flag": True})
        assert bound == {
            "amount": 250.0,
            "count": 3,
            "flag": 1,
            "note": "none",
            "_now": "2025-03-14T09:30:00",
        }  # :_new_id is the engine's to give: it counts the ids it gave
        assert type(bound["amount"]) is float and type(bound["count"]) is int
        assert sb.call("echo", {"amount": 250, "count": 3}).output == {
            "amount": 250,
            "count": 3,
            "flag": None,
            "note": "none",
        }


def test_same_results_compares_outputs_and_error_codes() -> None:
    ok = ToolResult(ok=True, output={"balance": 70})
    policy = ToolResult(ok=False, error="account is frozen", code="policy")
    assert same_results([ok, policy], [ok.model_copy(), policy.model_copy()])
    assert not same_results([ok], [ToolResult(ok=True, output={"balance": 70.5})])
    assert not same_results([ok], [ok, ok])
    assert not same_results([ok], [policy])
    # a policy refusal must say the same thing; an engine's own error text may differ
    assert not same_results([policy], [policy.model_copy(update={"error": "no"})])
    sql_a = ToolResult(ok=False, error="near x: syntax error", code="sql_error")
    sql_b = ToolResult(ok=False, error="Parser Error: x", code="sql_error")
    assert same_results([sql_a], [sql_b])
    assert not same_results([sql_a], [sql_a.model_copy(update={"code": "constraint"})])


def test_compile_programs_checks_each_tool_once(mini_spec: EnvironmentSpec) -> None:
    programs = compile_programs(mini_spec)
    assert list(programs) == [t.name for t in mini_spec.tools]
    assert programs["withdraw"].writes == frozenset({"accounts"})
    assert programs["get_account"].writes == frozenset()
    assert [s.role for s in programs["withdraw"].statements] == ["require", "run", "returns"]
