"""`toolscale.sandbox` itself: `open_sandbox`, the one way to get a seeded engine by name."""

from __future__ import annotations

import pytest

from toolscale.sandbox import ENGINES, open_sandbox
from toolscale.sandbox.base import (
    ENGINE_NAMES,
    DuckDBSandbox,
    EngineName,
    Limits,
    SQLiteSandbox,
    compile_programs,
)
from toolscale.spec import EnvironmentSpec


def test_every_engine_name_opens_its_engine() -> None:
    assert tuple(ENGINES) == ENGINE_NAMES
    assert {"sqlite": SQLiteSandbox, "duckdb": DuckDBSandbox} == ENGINES


@pytest.mark.parametrize("engine", ENGINE_NAMES)
def test_open_sandbox_seeds_the_engine_with_what_it_is_given(
    mini_spec: EnvironmentSpec, engine: EngineName
) -> None:
    programs = compile_programs(mini_spec)
    limits = Limits(max_rows=5)
    with open_sandbox(mini_spec, engine, limits, programs) as sb:
        assert isinstance(sb, ENGINES[engine]) and sb.engine == engine
        assert sb.programs is programs and sb.limits is limits
        assert sb.call("get_account", {"account_id": "A2"}).output["balance"] == 33
    with open_sandbox(mini_spec) as default:
        assert default.engine == "sqlite" and default.limits == Limits()


def test_unknown_engine_is_a_clear_error(mini_spec: EnvironmentSpec) -> None:
    with pytest.raises(ValueError, match="unknown engine 'postgres'"):
        open_sandbox(mini_spec, "postgres")  # type: ignore[arg-type]  # the wrong name is the test
