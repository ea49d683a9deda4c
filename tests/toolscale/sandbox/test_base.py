"""Tool calls: bound parameters, built-ins, one transaction per call, caps and budgets."""

from __future__ import annotations

import pytest

from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import EngineName, Limits, SeedError
from toolscale.spec import EnvironmentSpec

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


def test_seed_foreign_key_and_value_errors(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][1]["client_id"] = 7
    with pytest.raises(SeedError, match=r"seed accounts\[1\].*foreign key"):
        open_sandbox(EnvironmentSpec.model_validate(mini_dict))
    mini_dict["seed"]["accounts"][1]["client_id"] = 2
    mini_dict["seed"]["accounts"][0]["opened"] = "yesterday"
    with pytest.raises(SeedError, match="not ISO 8601") as info:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict))
    assert info.value.reason == "seed_bad_value"
    mini_dict["seed"]["accounts"][0] = {
        "id": "A1",
        "client_id": 1,
        "balance": 1,
        "frozen": 0,
        "colour": "red",
    }
    with pytest.raises(SeedError, match="unknown column 'colour'"):
        open_sandbox(EnvironmentSpec.model_validate(mini_dict))


def test_a_seed_error_says_where_for_people_and_programs(mini_dict: dict) -> None:
    mini_dict["seed"]["clients"][0]["colour"] = "red"
    with pytest.raises(SeedError) as caught:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict)).close()
    error = caught.value
    assert (error.reason, error.table, error.index) == ("seed_unknown_column", "clients", 0)
    assert error.detail == str(error) == "seed clients[0]: unknown column 'colour'"


def test_strict_tables_refuse_wrong_types(mini_dict: dict) -> None:
    mini_dict["seed"]["clients"][0]["id"] = "one"
    with pytest.raises(SeedError, match=r"seed clients\[0\]"):
        open_sandbox(EnvironmentSpec.model_validate(mini_dict))


def test_unknown_engine_is_a_clear_error(mini_spec: EnvironmentSpec) -> None:
    with pytest.raises(ValueError, match="unknown engine 'postgres'"):
        open_sandbox(mini_spec, "postgres")  # type: ignore[arg-type]  # the wrong name is the test
