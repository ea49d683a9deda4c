"""Stage `provenance`: no invented values. Every gold argument is stated by the user or was
returned by an earlier call; enum and boolean parameters (a closed choice) are exempt."""

from __future__ import annotations

from collections.abc import Iterable

from toolscale.environment import Replay
from toolscale.matching import Text
from toolscale.reasons import ProvenanceReason
from toolscale.report import Rejection
from toolscale.sandbox.state import normalise
from toolscale.task import Task
from toolscale.tool import Tool
from toolscale.wording import GENERIC, words
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


# a number passed as one of these may be any number an earlier call returned ("repay my
# loan in full": the amount is its outstanding balance)
_ANY_NUMBER = frozenset({"amount", "quantity", "value", "number", "count", "total"})


def _fields(output: object) -> Iterable[tuple[str, object]]:
    """(field, value) of every scalar in an output's rows."""
    rows = output if isinstance(output, list) else [output]
    for row in rows:
        if isinstance(row, list):
            yield from _fields(row)
        elif isinstance(row, dict):
            for field, value in row.items():
                if isinstance(value, dict | list):
                    yield from _fields(value)
                elif value is not None:
                    yield field, value
        elif row is not None:
            yield "", row  # a bare value: no field to tell what it measures


def _a_measure(name: str, value: object) -> bool:
    """A number that is no key: it must come from a field that holds the same measure."""
    number = isinstance(value, int | float) and not isinstance(value, bool)
    return number and not (name == "id" or name.endswith("_id") or name in _ANY_NUMBER)


def check(task: Task, tools: dict[str, Tool], replay: Replay) -> Rejection | None:
    """Each argument said, or returned earlier; a measure (`additional_bags`) returned
    under a field of the same measure: travel's gold booked 2 extra bags nobody asked
    for, the 2 of the hotel's `rooms_available`."""
    said = Text(task.user_text())
    seen: dict[object, set[str]] = {}
    for i, call in enumerate(task.gold_calls):
        tool = tools[call.name]
        defaults = tool.param_defaults()
        closed = _closed_choices(tool)
        for name, value in call.arguments.items():
            if value is None or name in closed or defaults.get(name) == value:
                continue
            if said.mentions(value):
                continue
            fields = seen.get(_key(value))
            if fields and not _a_measure(name, value):
                continue
            own = set(words(name)) - GENERIC
            if fields and any(not f or own & set(words(f)) for f in fields):
                continue
            where = f"gold call {i} {call.name}: {name}={value!r}"
            detail = (
                f"{where} is not in the instruction, the known facts or an earlier output"
                if not fields
                else f"{where} is not said, and an earlier output holds it only as "
                f"{', '.join(sorted(fields))}, not as {name}"
            )
            return Rejection(
                stage=STAGE, reason=ProvenanceReason.UNSUPPORTED_ARGUMENT, detail=detail
            )
        result = replay.results[i]
        if result.ok:
            for field, v in _fields(result.output):
                seen.setdefault(_key(v), set()).add(field)
    return None


def run(ctx: TaskContext) -> Rejection | None:
    return check(ctx.task, ctx.env.tools, ctx.replayed)
