"""Stage `preference`: a stated preference agrees with the gold. A user who asks to keep it
cheap or quick gets no avoidable call (`toolscale.dataflow.avoidable_reads`: a read whose
output adds nothing used, even as a check before a write, since the write's own require
steps check; or one that only repeats a value an earlier output gave), nor a read a cheaper
(or quicker) one with the same arguments could make (`lighter_read`), and a tool the user
asked to avoid is not in the gold. Otherwise the trainer's preference reward would teach
the opposite of what the words say.
"""

from __future__ import annotations

from toolscale.dataflow import avoidable_reads
from toolscale.dataflow import lighter_read as dataflow_lighter
from toolscale.environment import Environment, Replay
from toolscale.reasons import PreferenceReason
from toolscale.report import Rejection
from toolscale.task import Task
from toolscale.tool import Tool, ToolCall
from validators.stage import TaskContext

STAGE = "preference"


def check(task: Task, tools: dict[str, Tool], replay: Replay) -> Rejection | None:
    pref = task.preferences
    if pref is None:
        return None
    avoided = [c.name for c in task.gold_calls if c.name in pref.avoid_tools]
    if avoided:
        return Rejection(
            stage=STAGE,
            reason=PreferenceReason.AVOIDED_TOOL_USED,
            detail=f"the user asks to avoid {avoided[0]}, and the gold calls it",
        )
    if pref.cost <= 0 and pref.latency <= 0:
        return None  # asked to avoid one tool only: that is the preference, and it holds
    extra = avoidable_reads(
        task.gold_calls,
        replay.results,
        lambda name: tools[name].kind == "write",
        task.user_text(),
        [(ref.call, ref.path) for ref in task.communicate],
        expected={i for i, c in enumerate(task.gold_calls) if c.expect_error is not None},
    )
    if extra:
        i = extra[0]
        return Rejection(
            stage=STAGE,
            reason=PreferenceReason.AVOIDABLE_CALL,
            detail=f"the user wants it {'cheap' if pref.cost > 0 else 'quick'}, but gold call "
            f"{i} {task.gold_calls[i].key()} adds nothing the task uses",
        )
    return None


def lighter_read(task: Task, env: Environment, replay: Replay) -> str | None:
    """A gold read a lighter one could have made (`toolscale.dataflow.lighter_read`), where
    the user wants it cheap or quick."""
    pref = task.preferences
    if pref is None or (pref.cost <= 0 and pref.latency <= 0):
        return None
    told = [(ref.call, ref.path) for ref in task.communicate]
    for cost in [c for c, weight in ((True, pref.cost), (False, pref.latency)) if weight > 0]:
        found = dataflow_lighter(
            task.gold_calls,
            replay.results,
            told,
            env,
            cost,
            avoid=pref.avoid_tools,
            said=task.user_text(),
            both=pref.cost > 0 and pref.latency > 0,
        )
        if found is not None:
            return _lighter_said(task, found, env.tools, cost)
    return None


def _lighter_said(
    task: Task, found: tuple[int, Tool, ToolCall], tools: dict[str, Tool], cost: bool
) -> str:
    """The rejection's words: the lighter read, and what each costs."""
    i, tool, instead = found
    other = tools[instead.name]
    what = f"${other.price:g}" if cost else f"{other.latency_ms:g} ms"
    was = f"${tool.price:g}" if cost else f"{tool.latency_ms:g} ms"
    return (
        f"the user wants it {'cheap' if cost else 'quick'}, and {instead.key()} ({what}) "
        f"gives what the task uses of gold call {i} {task.gold_calls[i].key()} ({was})"
    )


def run(ctx: TaskContext) -> Rejection | None:
    found = check(ctx.task, ctx.env.tools, ctx.replayed)
    if found is None and (detail := lighter_read(ctx.task, ctx.env, ctx.replayed)):
        found = Rejection(stage=STAGE, reason=PreferenceReason.LIGHTER_READ, detail=detail)
    return found
