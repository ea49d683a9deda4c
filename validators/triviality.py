"""Stage `triviality`: the task changes the database or has values to communicate."""

from __future__ import annotations

from toolscale.environment import Replay
from toolscale.reasons import TrivialityReason
from toolscale.report import Rejection
from toolscale.task import Task
from validators.stage import TaskContext

STAGE = "triviality"


def check(task: Task, replay: Replay) -> Rejection | None:
    if replay.changes or task.communicate:
        return None
    return Rejection(
        stage=STAGE,
        reason=TrivialityReason.TRIVIAL,
        detail="the gold calls leave the database as seeded and there is nothing to communicate: "
        "any agent would pass it",
    )


def run(ctx: TaskContext) -> Rejection | None:
    return check(ctx.task, ctx.replayed)
