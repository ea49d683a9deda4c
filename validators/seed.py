"""Environment stage `seed`: rows the database accepts on both engines, through the real DDL."""

from __future__ import annotations

from toolscale.checks import SEED, check_seed
from toolscale.report import Rejection
from validators.stage import EnvironmentContext

STAGE = SEED


def run(ctx: EnvironmentContext) -> list[Rejection]:
    """Keeps both engines' environments open: the verifier replays tasks in them."""
    problems, ctx.opened = check_seed(ctx.spec, ctx.programs, ctx.limits)
    return problems
