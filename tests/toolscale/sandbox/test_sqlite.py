"""The SQLite engine: STRICT tables, the seed loaded row by row when a batch fails, so the
refused row is named, and references checked once the whole seed is in."""

from __future__ import annotations

import pytest

from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import SeedError
from toolscale.spec import EnvironmentSpec


def test_strict_tables_refuse_wrong_types(mini_dict: dict) -> None:
    mini_dict["seed"]["clients"][0]["id"] = "one"
    with pytest.raises(SeedError, match=r"seed clients\[0\]"):
        open_sandbox(EnvironmentSpec.model_validate(mini_dict))


def test_a_duplicate_key_names_the_second_row(mini_dict: dict) -> None:
    mini_dict["seed"]["clients"].append({"id": 1, "name": "Ann again"})
    with pytest.raises(SeedError) as caught:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict), "sqlite")
    error = caught.value
    assert (error.reason, error.table, error.index) == ("seed_constraint_violation", "clients", 2)
    assert "UNIQUE constraint failed: clients.id" in error.detail


def test_a_dangling_reference_names_its_row(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][1]["client_id"] = 7
    with pytest.raises(SeedError) as caught:
        open_sandbox(EnvironmentSpec.model_validate(mini_dict), "sqlite")
    error = caught.value
    assert (error.table, error.index) == ("accounts", 1)
    assert "foreign key to 'clients' points at a row that does not exist" in error.detail
    assert "(1 violation(s) in all)" in error.detail


def test_rows_may_refer_to_rows_of_their_own_table_that_come_later(mini_dict: dict) -> None:
    """References are checked once the whole seed is in, so the order of rows is free."""
    mini_dict["schema"]["tables"][0]["columns"].append({"name": "referrer", "type": "integer"})
    mini_dict["schema"]["tables"][0]["foreign_keys"] = [
        {"columns": ["referrer"], "ref_table": "clients", "ref_columns": ["id"]}
    ]
    mini_dict["seed"]["clients"][0]["referrer"] = 2
    with open_sandbox(EnvironmentSpec.model_validate(mini_dict), "sqlite") as sb:
        assert sb.seed_state.tables["clients"].rows[(1,)] == (1, "Ann Lee", 2)
        assert sb.call("withdraw", {"account_id": "A1", "amount": 1}).ok
