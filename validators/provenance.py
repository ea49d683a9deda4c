"""Stage `provenance`: no invented values. Every gold argument is stated by the user or was
returned by an earlier call; enum and boolean parameters (a closed choice) are exempt."""

from __future__ import annotations

from toolscale.environment import Replay
from toolscale.matching import Text, scalars
from toolscale.reasons import ProvenanceReason
from toolscale.report import Rejection
from toolscale.sandbox.state import normalise
from toolscale.task import Task
from toolscale.tool import Tool
from validators.stage import TaskContext

STAGE = "provenance"


def _closed_choices(tool: Tool) -> set[str]:
    """Parameters whose values come from a closed set (enum, const, boolean)."""
    kinds = tool.param_types()
    return {
        name
        for name, prop in tool.parameters.get("properties", {}).items()
        if "enum" in prop or "const" in prop or kinds[name] == "boolean"
    }


def _key(value: object) -> object:
    value = normalise(value)
    return value.casefold() if isinstance(value, str) else value


def check(task: Task, tools: dict[str, Tool], replay: Replay) -> Rejection | None:
    said = Text(task.user_text())
    seen: set[object] = set()
    for i, call in enumerate(task.gold_calls):
        tool = tools[call.name]
        defaults = tool.param_defaults()
        closed = _closed_choices(tool)
        for name, value in call.arguments.items():
            if value is None or name in closed or defaults.get(name) == value:
                continue
            if _key(value) in seen or said.mentions(value):
                continue
            return Rejection(
                stage=STAGE,
                reason=ProvenanceReason.UNSUPPORTED_ARGUMENT,
                detail=f"gold call {i} {call.name}: {name}={value!r} is not in the instruction, "
                "the known facts or an earlier output",
            )
        result = replay.results[i]
        if result.ok:
            seen.update(_key(v) for v in scalars(result.output))
    return None


def run(ctx: TaskContext) -> Rejection | None:
    return check(ctx.task, ctx.env.tools, ctx.replayed)
