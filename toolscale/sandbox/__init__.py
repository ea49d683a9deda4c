"""The sandboxes tool calls run in: what a caller holds (`base`), the engines that run in a
worker process (`engine`, `sqlite`, `duckdb`, `worker`, `process`), the static SQL checks
(`sqlcheck`), the DDL both engines share (`ddl`) and the canonical state every replay is
compared by (`state`).

Names are imported on first use: the worker process imports this package too, and must not
pay for pydantic, sqlglot and SQLAlchemy, which only the caller's side needs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolscale.sandbox.base import EngineName, Limits, Program, Sandbox
    from toolscale.spec import EnvironmentSpec

__all__ = ["ENGINES", "open_sandbox"]


def __getattr__(name: str) -> Any:
    if name == "ENGINES":
        from toolscale.sandbox.base import DuckDBSandbox, SQLiteSandbox

        return {"sqlite": SQLiteSandbox, "duckdb": DuckDBSandbox}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def open_sandbox(
    spec: EnvironmentSpec,
    engine: EngineName = "sqlite",
    limits: Limits | None = None,
    programs: dict[str, Program] | None = None,
) -> Sandbox:
    """A seeded sandbox; pass `programs` from compile_programs to skip compiling again."""
    from toolscale.sandbox.base import DuckDBSandbox, SQLiteSandbox

    engines: dict[str, type[Sandbox]] = {"sqlite": SQLiteSandbox, "duckdb": DuckDBSandbox}
    try:
        kind = engines[engine]
    except KeyError:
        raise ValueError(
            f"unknown engine {engine!r}: use {' or '.join(map(repr, engines))}"
        ) from None
    return kind(spec, limits, programs)
