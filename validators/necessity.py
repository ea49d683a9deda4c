"""Stage `necessity`: dropping any single successful write call changes the final state."""

from __future__ import annotations

from toolscale.environment import Environment, Replay
from toolscale.report import Rejection
from toolscale.task import Task

STAGE = "necessity"


def check(task: Task, env: Environment, replay: Replay) -> Rejection | None:
    for i, (call, result) in enumerate(zip(task.gold_calls, replay.results, strict=True)):
        if env.tools[call.name].kind != "write" or not result.ok:
            continue
        without = env.replay(task.gold_calls[:i] + task.gold_calls[i + 1 :])
        if without.changes == replay.changes:
            return Rejection(
                stage=STAGE,
                reason="unnecessary_write",
                detail=f"gold call {i} {call.key()} can be dropped and the final state is the same",
            )
    return None
