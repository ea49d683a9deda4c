"""Stage `necessity`: dropping any single successful write call changes the final state."""

from __future__ import annotations

from toolscale.environment import Environment, Replay
from toolscale.reasons import NecessityReason
from toolscale.report import Rejection
from toolscale.task import Task
from validators.stage import TaskContext

STAGE = "necessity"


def check(task: Task, env: Environment, replay: Replay) -> Rejection | None:
    writes = [i for i, c in enumerate(task.gold_calls) if env.tools[c.name].kind == "write"]
    if len(writes) == 1 and replay.results[writes[0]].ok and replay.changes:
        # Without its only write call a task runs reads alone, which leave the seed as it
        # is, and the final state differs from the seed: the write is needed, no replay.
        return None
    for i, (call, result) in enumerate(zip(task.gold_calls, replay.results, strict=True)):
        if env.tools[call.name].kind != "write" or not result.ok:
            continue
        without = env.replay(task.gold_calls[:i] + task.gold_calls[i + 1 :])
        if without.changes == replay.changes:
            return Rejection(
                stage=STAGE,
                reason=NecessityReason.UNNECESSARY_WRITE,
                detail=f"gold call {i} {call.key()} can be dropped and the final state is the same",
            )
    return None


def run(ctx: TaskContext) -> Rejection | None:
    return check(ctx.task, ctx.env, ctx.replayed)
