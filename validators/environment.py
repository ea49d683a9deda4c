"""Environment-level stages: `static_sql` (every tool statement parses, is allowed, and
binds on DuckDB too) and `seed` (rows the database accepts on both engines). A failing
environment cannot verify any task."""

from __future__ import annotations

from toolscale.duckdb_sandbox import portability_errors
from toolscale.report import Rejection
from toolscale.sandbox import EngineName, Program, SeedError, open_sandbox
from toolscale.spec import EnvironmentSpec
from toolscale.sqlcheck import SQLCheckError, check_statement

STATIC_SQL = "static_sql"
SEED = "seed"


def check_sql(spec: EnvironmentSpec) -> tuple[list[Rejection], dict[str, Program] | None]:
    """All failing statements, not just the first, so a generator can fix them in one go;
    with none, the compiled programs, for the sandboxes to use as they are."""
    out = []
    programs = {}
    for tool in spec.tools:
        params = tool.param_types()
        statements = []
        for label, sql in tool.statements():
            role = label.split("[")[0]
            try:
                statements.append(
                    check_statement(sql, role, spec.schema_, params, f"{tool.name}.{label}")  # type: ignore[arg-type]
                )
            except SQLCheckError as e:
                out.append(Rejection(stage=STATIC_SQL, reason=e.reason, detail=e.detail))
        programs[tool.name] = Program.of(tool, statements)
    if out:
        return out, None
    for e in portability_errors(spec, programs):  # needs statements that parse: checked last
        out.append(Rejection(stage=STATIC_SQL, reason=e.reason, detail=e.detail))
    return out, (None if out else programs)


def seed_rejection(engine: EngineName, error: SeedError) -> Rejection:
    return Rejection(stage=SEED, reason=error.reason, detail=f"{engine}: {error.detail}")


def check_seed(
    spec: EnvironmentSpec, programs: dict[str, Program] | None = None
) -> list[Rejection]:
    """Load the seed through the real DDL of both engines; the first refused row is named."""
    out = []
    for engine in ("sqlite", "duckdb"):
        try:
            open_sandbox(spec, engine, programs=programs).close()  # type: ignore[arg-type]
        except SeedError as e:
            out.append(seed_rejection(engine, e))  # type: ignore[arg-type]
    return out
