"""Stage `determinism`: a second replay, and a replay on the other engine, agree exactly."""

from __future__ import annotations

from toolscale.environment import Replay
from toolscale.reasons import DeterminismReason
from toolscale.report import Rejection
from toolscale.sandbox.base import same_results
from toolscale.task import Task
from validators.stage import TaskContext

STAGE = "determinism"


def _first_difference(task: Task, a: Replay, b: Replay) -> str:
    for i, (x, y) in enumerate(zip(a.results, b.results, strict=True)):
        if not same_results([x], [y]):
            name = task.gold_calls[i].name
            return f"gold call {i} {name}: {x.content()[:120]} vs {y.content()[:120]}"
    tables = sorted(
        set(a.changes) ^ set(b.changes)
        | {t for t in set(a.changes) & set(b.changes) if a.changes[t] != b.changes[t]}
    )
    return f"final states differ in {', '.join(tables)}"


def check(
    task: Task, first: Replay, again: Replay, other: Replay | None, other_engine: str = ""
) -> Rejection | None:
    if not same_results(first.results, again.results) or first.changes != again.changes:
        return Rejection(
            stage=STAGE,
            reason=DeterminismReason.NONDETERMINISTIC,
            detail="two replays on the same engine differ: "
            + _first_difference(task, first, again),
        )
    if other is not None and (
        not same_results(first.results, other.results) or first.changes != other.changes
    ):
        return Rejection(
            stage=STAGE,
            reason=DeterminismReason.ENGINE_MISMATCH,
            detail=f"the replay on {other_engine} differs: "
            + _first_difference(task, first, other),
        )
    return None


def run(ctx: TaskContext) -> Rejection | None:
    """Replays again on the same engine, and on the other one unless the verifier skips it."""
    calls = ctx.task.gold_calls
    again = ctx.env.replay(calls)
    other = ctx.other.replay(calls) if ctx.other is not None else None
    engine = ctx.other.engine if ctx.other is not None else ""
    return check(ctx.task, ctx.replayed, again, other, engine)
