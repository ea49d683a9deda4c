"""Stage `structure`: the item parses into a Task, names real tools, and fits their schemas."""

from __future__ import annotations

import json

from pydantic import ValidationError

from toolscale.environment import Environment
from toolscale.errors import pydantic_problems
from toolscale.reasons import StructureReason
from toolscale.report import Rejection
from toolscale.task import Task
from validators.stage import TaskContext

STAGE = "structure"


def _first_error(e: ValidationError) -> str:
    return f"{pydantic_problems(e, limit=1, top='task')[0]} ({e.error_count()} error(s) in all)"


def parse(line: str | bytes, source: str | None = None) -> Task | Rejection:
    """One JSONL line to a Task, or a rejection naming the line and the first problem."""
    if isinstance(line, bytes):
        raw = line
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            return Rejection(
                stage=STAGE,
                reason=StructureReason.BAD_JSON,
                detail=f"not UTF-8 text: byte {e.start} is {raw[e.start : e.start + 1]!r}",
                source=source,
                item=raw.decode("utf-8", errors="backslashreplace").rstrip("\n"),
            )
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        return Rejection(
            stage=STAGE,
            reason=StructureReason.BAD_JSON,
            detail=f"not JSON: {e.msg} at column {e.colno}",
            source=source,
            item=line.rstrip("\n"),
        )
    task_id = data.get("id") if isinstance(data, dict) else None
    try:
        return Task.model_validate(data)
    except ValidationError as e:
        return Rejection(
            stage=STAGE,
            reason=StructureReason.NOT_A_TASK,
            detail=_first_error(e),
            task_id=task_id if isinstance(task_id, str) else None,
            source=source,
            item=data,
        )


def check(task: Task, env: Environment) -> Rejection | None:
    for i, call in enumerate(task.gold_calls):
        if call.name not in env.tools:
            return Rejection(
                stage=STAGE,
                reason=StructureReason.UNKNOWN_TOOL,
                detail=f"gold call {i} names unknown tool {call.name!r}",
            )
        error = env.argument_error(call)
        if error is not None:
            return Rejection(
                stage=STAGE, reason=StructureReason.BAD_ARGUMENTS, detail=f"gold call {i}: {error}"
            )
    if task.preferences is not None:
        named = task.preferences.avoid_tools + task.preferences.prefer_tools
        unknown = sorted(set(named) - set(env.tools))
        if unknown:
            return Rejection(
                stage=STAGE,
                reason=StructureReason.UNKNOWN_PREFERENCE_TOOL,
                detail=f"preferences name unknown tools {unknown}",
            )
    return None


def run(ctx: TaskContext) -> Rejection | None:
    return check(ctx.task, ctx.env)
