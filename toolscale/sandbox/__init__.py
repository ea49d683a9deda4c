"""The sandboxes tool calls run in: one interface (`base`), two engines (`sqlite`, `duckdb`),
the static SQL checks (`sqlcheck`), the DDL both engines share (`ddl`) and the canonical
state every replay is compared by (`state`)."""

from __future__ import annotations

from toolscale.sandbox.base import EngineName, Limits, Program, Sandbox
from toolscale.sandbox.duckdb import DuckDBSandbox
from toolscale.sandbox.sqlite import SQLiteSandbox
from toolscale.spec import EnvironmentSpec

ENGINES: dict[EngineName, type[Sandbox]] = {"sqlite": SQLiteSandbox, "duckdb": DuckDBSandbox}


def open_sandbox(
    spec: EnvironmentSpec,
    engine: EngineName = "sqlite",
    limits: Limits | None = None,
    programs: dict[str, Program] | None = None,
) -> Sandbox:
    """A seeded sandbox; pass `programs` from compile_programs to skip compiling again."""
    try:
        kind = ENGINES[engine]
    except KeyError:
        raise ValueError(
            f"unknown engine {engine!r}: use {' or '.join(map(repr, ENGINES))}"
        ) from None
    return kind(spec, limits, programs)
