"""Stage `replay`: every gold call succeeds, or fails exactly as declared; values resolve."""

from __future__ import annotations

from typing import Any

from toolscale.environment import Environment, Replay
from toolscale.reasons import ReplayReason
from toolscale.report import Rejection
from toolscale.schema import Scalar
from toolscale.task import OutputRef, Task
from validators.stage import TaskContext

STAGE = "replay"


def _walk(output: Any, path: str) -> Any:
    value = output
    for part in [p for p in path.split(".") if p != ""]:
        if isinstance(value, list) and part.lstrip("-").isdigit():
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value[part]
        else:
            raise KeyError(part)
    return value


def resolve(ref: OutputRef, replay: Replay) -> Scalar:
    """The value a communicate reference points at, from the real output."""
    result = replay.results[ref.call]
    if not result.ok:
        raise KeyError(f"gold call {ref.call} failed, it has no output")
    value = _walk(result.output, ref.path)
    if isinstance(value, dict | list):
        raise KeyError(f"path {ref.path!r} of gold call {ref.call} is not a single value")
    if value is None:
        raise KeyError(f"path {ref.path!r} of gold call {ref.call} is null")
    return value


def resolve_all(task: Task, replay: Replay) -> list[Scalar]:
    """Every communicate value; an unresolvable one is None (the check above rejects those)."""
    out: list[Scalar] = []
    for ref in task.communicate:
        try:
            out.append(resolve(ref, replay))
        except (KeyError, IndexError):
            out.append(None)
    return out


def restated(task: Task, env: Environment) -> Task | None:
    """The task with the final state its gold reaches in `env`, where the gold does there
    just what it did where it was kept (the same rows changed the same way, the same values
    told) and only rows it never touches differ: ecommerce on d25e859 lost all 30 kept tasks
    to `expected_mismatch` when `reach` moved two orders none of them changed. None where
    nothing differs, or where the gold's effect does (the task is judged as it claims)."""
    if task.expected is None:
        return None
    replay = env.replay(task.gold_calls)
    state_hash = env.state_hash(replay)
    if state_hash == task.expected.state_hash:
        return None
    same = (
        env.diff({}, replay.changes) == task.expected.diff
        and resolve_all(task, replay) == task.expected.communicate
    )
    if not same:
        return None
    expected = task.expected.model_copy(update={"state_hash": state_hash})
    return task.model_copy(update={"expected": expected})


def check(task: Task, replay: Replay, state_hash: str | None) -> Rejection | None:
    """`state_hash` is needed only when the task claims an expected outcome."""
    for i, (call, result) in enumerate(zip(task.gold_calls, replay.results, strict=True)):
        if call.expect_error is not None:
            if result.ok:
                return Rejection(
                    stage=STAGE,
                    reason=ReplayReason.EXPECTED_ERROR_MISSING,
                    detail=f"gold call {i} {call.name} was declared to fail with "
                    f"{call.expect_error!r} but succeeded",
                )
            if call.expect_error.casefold() not in (result.error or "").casefold():
                return Rejection(
                    stage=STAGE,
                    reason=ReplayReason.GOLD_CALL_FAILED,
                    detail=f"gold call {i} {call.name} failed with {result.error!r}, "
                    f"not the declared {call.expect_error!r}",
                )
        elif not result.ok:
            return Rejection(
                stage=STAGE,
                reason=ReplayReason.GOLD_CALL_FAILED,
                detail=f"gold call {i} {call.key()} failed: {result.error}",
            )
    for i, ref in enumerate(task.communicate):
        try:
            resolve(ref, replay)
        except (KeyError, IndexError) as e:
            return Rejection(
                stage=STAGE,
                reason=ReplayReason.COMMUNICATE_UNRESOLVED,
                detail=f"communicate[{i}] (call {ref.call}, path {ref.path!r}): {e}",
            )
    if task.expected is not None and task.expected.state_hash != state_hash:
        return Rejection(
            stage=STAGE,
            reason=ReplayReason.EXPECTED_MISMATCH,
            detail=f"the task claims final state {task.expected.state_hash[:12]}…, "
            f"the replay reached {(state_hash or '')[:12]}…",
        )
    return None


def run(ctx: TaskContext) -> Rejection | None:
    """The first replay, kept in the context: the stages after this one judge it."""
    ctx.first = ctx.env.replay(ctx.task.gold_calls)
    claimed = ctx.env.state_hash(ctx.first) if ctx.task.expected is not None else None
    return check(ctx.task, ctx.first, claimed)
