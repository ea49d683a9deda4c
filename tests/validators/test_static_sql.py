"""Environment stage `static_sql`: the core check as a stage, keeping the compiled programs."""

from __future__ import annotations

import pytest

from toolscale.spec import EnvironmentSpec
from validators import static_sql
from validators.pipeline import EnvironmentRejected, Verifier
from validators.stage import EnvironmentContext


def test_sound_tools_leave_their_programs_for_the_seed_stage(mini_spec: EnvironmentSpec) -> None:
    ctx = EnvironmentContext(mini_spec)
    assert static_sql.run(ctx) == []
    assert ctx.programs is not None and set(ctx.programs) == {t.name for t in mini_spec.tools}


def test_every_bad_statement_is_reported(mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = "SELECT id, colour FROM accounts WHERE id = :account_id"
    mini_dict["tools"][1]["run"] = ["UPDATE accounts SET balance = balance - :amt"]
    ctx = EnvironmentContext(EnvironmentSpec.model_validate(mini_dict))
    problems = static_sql.run(ctx)
    assert [(r.stage, r.reason) for r in problems] == [
        ("static_sql", "sql_unknown_column"),
        ("static_sql", "sql_unknown_parameter"),
    ]
    assert ctx.programs is None


def test_update_of_unique_referenced_column_is_not_portable(mini_dict: dict) -> None:
    mini_dict["schema"]["tables"][0]["columns"][1]["unique"] = True  # clients.name
    mini_dict["tools"].append(
        {
            "name": "rename",
            "description": "Rename a client.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"client_id": {"type": "integer"}, "name": {"type": "string"}},
                "required": ["client_id", "name"],
            },
            "run": ["UPDATE clients SET name = :name WHERE id = :client_id"],
        }
    )
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(EnvironmentSpec.model_validate(mini_dict))
    (r,) = info.value.rejections
    assert (r.stage, r.reason) == ("static_sql", "sql_not_portable")
    assert "clients.name" in r.detail and "rename.run[0]" in r.detail
