"""The core environment checks: every problem as a rejection with its stage and reason code,
and with none, what the next step uses (compiled programs, open environments)."""

from __future__ import annotations

from toolscale.checks import SEED, STATIC_SQL, check_seed, check_sql
from toolscale.sandbox.base import ENGINE_NAMES
from toolscale.spec import EnvironmentSpec


def test_check_sql_compiles_every_tool_of_a_sound_environment(mini_spec: EnvironmentSpec) -> None:
    problems, programs = check_sql(mini_spec)
    assert problems == []
    assert programs is not None and set(programs) == {t.name for t in mini_spec.tools}


def test_check_sql_lists_every_failing_statement(mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = "SELECT id, colour FROM accounts WHERE id = :account_id"
    mini_dict["tools"][1]["run"] = ["UPDATE accounts SET balance = balance - :amt"]
    problems, programs = check_sql(EnvironmentSpec.model_validate(mini_dict))
    assert programs is None
    assert [(r.stage, r.reason) for r in problems] == [
        (STATIC_SQL, "sql_unknown_column"),
        (STATIC_SQL, "sql_unknown_parameter"),
    ]
    assert "get_account.returns" in problems[0].detail


def test_check_sql_binds_on_duckdb_once_statements_parse(mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = (
        "SELECT id, unixepoch(:_now) AS second FROM accounts WHERE id = :account_id"
    )
    problems, programs = check_sql(EnvironmentSpec.model_validate(mini_dict))
    assert programs is None
    assert [(r.stage, r.reason) for r in problems] == [(STATIC_SQL, "sql_not_portable")]


def test_check_seed_returns_both_engines_open(mini_spec: EnvironmentSpec) -> None:
    _, programs = check_sql(mini_spec)
    problems, opened = check_seed(mini_spec, programs)
    try:
        assert problems == [] and tuple(opened) == ENGINE_NAMES
        assert {env.engine for env in opened.values()} == set(ENGINE_NAMES)
    finally:
        for env in opened.values():
            env.close()


def test_check_seed_names_engine_table_and_row(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][1]["balance"] = -1
    problems, opened = check_seed(EnvironmentSpec.model_validate(mini_dict))
    assert opened == {}
    assert [(r.stage, r.reason) for r in problems] == [
        (SEED, "seed_constraint_violation"),
        (SEED, "seed_constraint_violation"),
    ]
    assert [r.detail.split(":")[0] for r in problems] == list(ENGINE_NAMES)
    assert all("seed accounts[1]" in r.detail for r in problems)
