"""Stage `flow`: every call earns its place. No call repeats an earlier one while the state
has not changed, and every read contributes: its output brings a value a later call needs
that the user did not say, or a value the user is told, or it is the check of a row that
the next write touches (the policy's "read before writing"). A task whose gold makes idle
lookups teaches an agent to waste calls. The value flow itself is `toolscale.dataflow`.
"""

from __future__ import annotations

from toolscale.dataflow import repeated_call, reread, told_again, useless_reads
from toolscale.environment import Replay
from toolscale.reasons import FlowReason
from toolscale.report import Rejection
from toolscale.task import Task
from toolscale.tool import Tool
from validators.stage import TaskContext

STAGE = "flow"


def unused(task: Task, tools: dict[str, Tool], replay: Replay) -> list[int]:
    """The gold reads nothing uses; a read of what the next write touches is its check."""
    return useless_reads(
        task.gold_calls,
        replay.results,
        lambda name: tools[name].kind == "write",
        task.user_text(),
        {ref.call for ref in task.communicate},
        check_before_write=True,
        expected={i for i, c in enumerate(task.gold_calls) if c.expect_error is not None},
    )


def check(task: Task, tools: dict[str, Tool], replay: Replay) -> Rejection | None:
    def is_write(name: str) -> bool:
        return tools[name].kind == "write"

    repeat = repeated_call(task.gold_calls, replay.results, is_write)
    if repeat is not None:
        return Rejection(
            stage=STAGE,
            reason=FlowReason.REPEATED_CALL,
            detail=f"gold call {repeat} {task.gold_calls[repeat].key()} repeats an earlier call "
            "and nothing was written in between",
        )
    # a read that shows nothing new: rows an earlier read showed whole, or, last, only
    # values an output since the last write already showed
    again = (
        (
            reread(task.gold_calls, replay.results, is_write),
            "shows only rows gold call {j} already showed, and nothing was written in between",
        ),
        (
            told_again(task.communicate, task.gold_calls, replay.results, is_write),
            "tells only what gold call {j}'s output already showed, and nothing was written since",
        ),
    )
    for pair, said in again:
        if pair is not None:
            i, j = pair
            return Rejection(
                stage=STAGE,
                reason=FlowReason.UNUSED_READ,
                detail=f"gold call {i} {task.gold_calls[i].key()} " + said.format(j=j),
            )
    useless = unused(task, tools, replay)
    if useless:
        i = useless[0]
        return Rejection(
            stage=STAGE,
            reason=FlowReason.UNUSED_READ,
            detail=f"gold call {i} {task.gold_calls[i].key()}: no later argument, value told "
            "to the user or check before a write uses its output",
        )
    return None


def run(ctx: TaskContext) -> Rejection | None:
    return check(ctx.task, ctx.env.tools, ctx.replayed)
