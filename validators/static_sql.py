"""Environment stage `static_sql`: every tool statement parses, is allowed, and binds on
DuckDB too. A failing environment cannot verify any task."""

from __future__ import annotations

from toolscale.checks import STATIC_SQL, check_sql
from toolscale.report import Rejection
from validators.stage import EnvironmentContext

STAGE = STATIC_SQL


def run(ctx: EnvironmentContext) -> list[Rejection]:
    """Keeps the compiled programs, so the seed stage and the sandboxes compile nothing again."""
    problems, ctx.programs = check_sql(ctx.spec)
    return problems
