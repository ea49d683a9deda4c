"""The environment checks, once for every part: static SQL of every tool (stage `static_sql`)
and the seed through the real DDL of both engines (stage `seed`). Problems are rejections
with stable reason codes: validators run these as their environment stages, generators send
them back to the model as feedback (generators may not import validators)."""

from __future__ import annotations

from toolscale.environment import Environment
from toolscale.report import Rejection
from toolscale.sandbox.base import (
    ENGINE_NAMES,
    EngineName,
    Limits,
    Program,
    SeedError,
    portability_errors,
)
from toolscale.sandbox.sqlcheck import check_constraint, check_tool
from toolscale.spec import EnvironmentSpec

STATIC_SQL = "static_sql"
SEED = "seed"


def check_sql(spec: EnvironmentSpec) -> tuple[list[Rejection], dict[str, Program] | None]:
    """All failing statements and CHECK expressions, not just the first, so a generator can
    fix them in one go; with none, the compiled programs, for the sandboxes to use as they
    are."""
    out = [
        Rejection(stage=STATIC_SQL, reason=e.reason, detail=e.detail)
        for table in spec.schema_.tables
        for sql in table.checks
        for e in check_constraint(sql, table)
    ]
    programs = {}
    for tool in spec.tools:
        passed, failed = check_tool(tool, spec.schema_)
        out += [Rejection(stage=STATIC_SQL, reason=e.reason, detail=e.detail) for e in failed]
        programs[tool.name] = Program.of(tool, passed)
    if out:
        return out, None
    for e in portability_errors(spec, programs):  # needs statements that parse: checked last
        out.append(Rejection(stage=STATIC_SQL, reason=e.reason, detail=e.detail))
    return out, (None if out else programs)


def check_seed(
    spec: EnvironmentSpec,
    programs: dict[str, Program] | None = None,
    limits: Limits | None = None,
) -> tuple[list[Rejection], dict[EngineName, Environment]]:
    """Load the seed through the real DDL of both engines; the first refused row is named.

    The environments that loaded are returned open, so a caller uses them rather than
    loading the seed again; on any rejection they are closed and none is returned.
    """
    out = []
    opened: dict[EngineName, Environment] = {}
    for engine in ENGINE_NAMES:
        try:
            opened[engine] = Environment(spec, engine, limits, programs)
        except SeedError as e:
            out.append(Rejection(stage=SEED, reason=e.reason, detail=f"{engine}: {e.detail}"))
    if out:
        for env in opened.values():
            env.close()
        return out, {}
    return out, opened
