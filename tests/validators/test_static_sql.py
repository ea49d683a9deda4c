"""Environment stage `static_sql`: the core check as a stage, keeping the compiled programs."""

from __future__ import annotations

from toolscale.spec import EnvironmentSpec
from validators import static_sql
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
