"""Environment-level stages: `static_sql` (every tool statement parses, is allowed, and
binds on DuckDB too) and `seed` (rows the
database accepts on both engines). A failing environment cannot verify any task."""

from __future__ import annotations

from toolscale.duckdb_sandbox import portability_errors
from toolscale.report import Rejection
from toolscale.sandbox import SeedError, open_sandbox
from toolscale.spec import EnvironmentSpec
from toolscale.sqlcheck import SQLCheckError, check_statement

STATIC_SQL = "static_sql"
SEED = "seed"


def check_sql(spec: EnvironmentSpec) -> list[Rejection]:
    """All failing statements, not just the first, so a generator can fix them in one go."""
    out = []
    for tool in spec.tools:
        params = tool.param_types()
        for label, sql in tool.statements():
            role = label.split("[")[0]
            try:
                check_statement(sql, role, spec.schema_, params, f"{tool.name}.{label}")  # type: ignore[arg-type]
            except SQLCheckError as e:
                out.append(Rejection(stage=STATIC_SQL, reason=e.reason, detail=e.detail))
    if not out:  # portability needs statements that parse; check it once they all do
        for e in portability_errors(spec):
            out.append(Rejection(stage=STATIC_SQL, reason=e.reason, detail=e.detail))
    return out


def check_seed(spec: EnvironmentSpec) -> list[Rejection]:
    """Load the seed through the real DDL of both engines; the first refused row is named."""
    out = []
    for engine in ("sqlite", "duckdb"):
        try:
            open_sandbox(spec, engine).close()  # type: ignore[arg-type]
        except SeedError as e:
            out.append(Rejection(stage=SEED, reason=e.reason, detail=f"{engine}: {e.detail}"))
    return out
