"""Environment stage `seed`: the core check as a stage, keeping both engines open."""

from __future__ import annotations

from toolscale.sandbox.base import ENGINE_NAMES
from toolscale.spec import EnvironmentSpec
from toolscale.tool import ToolCall
from validators import seed, static_sql
from validators.stage import EnvironmentContext


def test_a_sound_seed_leaves_both_engines_open(mini_spec: EnvironmentSpec) -> None:
    ctx = EnvironmentContext(mini_spec)
    assert static_sql.run(ctx) == [] and seed.run(ctx) == []
    try:
        assert tuple(ctx.opened) == ENGINE_NAMES
        for engine, env in ctx.opened.items():
            assert env.engine == engine
            assert env.step(ToolCall(name="get_account", arguments={"account_id": "A1"})).ok
    finally:
        for env in ctx.opened.values():
            env.close()


def test_a_refused_row_is_named_and_nothing_stays_open(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][0]["balance"] = -1
    ctx = EnvironmentContext(EnvironmentSpec.model_validate(mini_dict))
    problems = seed.run(ctx)
    assert {(r.stage, r.reason) for r in problems} == {("seed", "seed_constraint_violation")}
    assert all("seed accounts[0]" in r.detail for r in problems)
    assert ctx.opened == {}
