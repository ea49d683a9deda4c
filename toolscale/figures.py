"""The per-domain figures every run reports (issue 8, "valid and rich"): how big the
environment is and how varied its verified tasks are. Reporting only: nothing here decides
what is generated or kept."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import pairwise
from typing import get_args

from pydantic import BaseModel, ConfigDict, Field

from toolscale.spec import EnvironmentSpec
from toolscale.task import Difficulty, Task
from toolscale.tool import Tool

ORIGINS: tuple[str, ...] = get_args(Tool.model_fields["origin"].annotation)
LEVELS: tuple[str, ...] = get_args(Difficulty.model_fields["level"].annotation)
UNRATED = "unrated"
MANY_CALLS = 3
_WORD = re.compile(r"\w+")


class EnvironmentFigures(BaseModel):
    """The size of an environment: its data and its tools."""

    model_config = ConfigDict(extra="forbid")

    tables: int
    columns: int = Field(description="over all tables")
    seed_rows: int = Field(description="over all tables")
    tools: int
    tools_by_origin: dict[str, int] = Field(description="derived, pattern, sql: every origin")
    write_tools: int
    guarded_writes: int = Field(description="write tools with at least one require step")
    rules_in_brief: int = Field(default=0, description="rules of the brief (as recorded)")
    rules_enforced: int = Field(default=0, description="of them, enforced by some require step")


class TaskFigures(BaseModel):
    """How many verified tasks there are and how varied they are."""

    model_config = ConfigDict(extra="forbid")

    tasks: int
    by_difficulty: dict[str, int] = Field(
        description="easy, medium, hard (each present), plus unrated if a task has no difficulty"
    )
    mean_calls: float = Field(description="gold calls per task; 0 with no task")
    share_3plus_calls: float = Field(description="share of tasks with 3 or more gold calls")
    refusals: int = Field(description="tasks with a gold call that declares expect_error")
    share_refusals: float
    distinct_gold: int = Field(description="distinct gold call sequences (names and arguments)")
    distinct_shapes: int = Field(
        default=0,
        description="distinct sequences of tool names: finance on d608f62 had 30 distinct gold "
        "sequences of 14 shapes (0 in reports from before it was counted)",
    )
    instruction_bigrams: int = Field(description="word bigrams over all instructions")
    instruction_diversity: float = Field(
        description="distinct word bigrams / all word bigrams over the instructions (words: "
        "lower-cased \\w+ runs; bigrams within one instruction); 0 with none"
    )


def environment_figures(spec: EnvironmentSpec) -> EnvironmentFigures:
    tables = spec.schema_.tables
    by_origin = dict.fromkeys(ORIGINS, 0)
    for tool in spec.tools:
        by_origin[tool.origin] += 1
    writes = [t for t in spec.tools if t.kind == "write"]
    return EnvironmentFigures(
        tables=len(tables),
        columns=sum(len(t.columns) for t in tables),
        seed_rows=sum(len(rows) for rows in spec.seed.values()),
        tools=len(spec.tools),
        tools_by_origin=by_origin,
        write_tools=len(writes),
        guarded_writes=sum(1 for t in writes if t.require),
        rules_in_brief=len(spec.rules),
        rules_enforced=sum(1 for r in spec.rules if r.enforced),
    )


def _share(part: int, whole: int) -> float:
    return part / whole if whole else 0.0


class TaskTally:
    """Task figures gathered one task at a time, so a summary reading the batches once can
    count as it goes without holding every task."""

    def __init__(self) -> None:
        self.tasks = 0
        self.levels = dict.fromkeys(LEVELS, 0)
        self.calls = 0
        self.many_calls = 0
        self.refusals = 0
        self.gold: set[tuple[str, ...]] = set()
        self.shapes: set[tuple[str, ...]] = set()
        self.bigrams: set[tuple[str, str]] = set()
        self.n_bigrams = 0

    def add(self, task: Task) -> None:
        self.tasks += 1
        level = task.difficulty.level if task.difficulty is not None else UNRATED
        self.levels[level] = self.levels.get(level, 0) + 1
        self.calls += len(task.gold_calls)
        self.many_calls += len(task.gold_calls) >= MANY_CALLS
        self.refusals += any(c.expect_error is not None for c in task.gold_calls)
        self.gold.add(tuple(c.key() for c in task.gold_calls))
        self.shapes.add(tuple(c.name for c in task.gold_calls))
        words = _WORD.findall(task.instruction.lower())
        pairs = list(pairwise(words))
        self.n_bigrams += len(pairs)
        self.bigrams.update(pairs)

    def figures(self) -> TaskFigures:
        return TaskFigures(
            tasks=self.tasks,
            by_difficulty=dict(self.levels),
            mean_calls=_share(self.calls, self.tasks),
            share_3plus_calls=_share(self.many_calls, self.tasks),
            refusals=self.refusals,
            share_refusals=_share(self.refusals, self.tasks),
            distinct_gold=len(self.gold),
            distinct_shapes=len(self.shapes),
            instruction_bigrams=self.n_bigrams,
            instruction_diversity=_share(len(self.bigrams), self.n_bigrams),
        )


def task_figures(tasks: Iterable[Task]) -> TaskFigures:
    tally = TaskTally()
    for task in tasks:
        tally.add(task)
    return tally.figures()


def figure_lines(env: EnvironmentFigures | None, data: TaskFigures | None) -> list[str]:
    """The figures in a few short lines, for the terminal and the markdown artifact."""
    lines = []
    if env is not None:
        origins = ", ".join(f"{k} {v}" for k, v in env.tools_by_origin.items())
        lines.append(
            f"environment: {env.tables} tables, {env.columns} columns, {env.seed_rows} seed rows; "
            f"{env.tools} tools ({origins}), {env.write_tools} writes, "
            f"{env.guarded_writes} guarded"
            + (
                f"; {env.rules_enforced} of {env.rules_in_brief} rules enforced"
                if env.rules_in_brief
                else ""
            )
        )
    if data is not None:
        levels = ", ".join(f"{k} {v}" for k, v in data.by_difficulty.items())
        lines.append(
            f"dataset: {data.tasks} tasks ({levels}); {data.mean_calls:.2f} calls per task, "
            f"{data.share_3plus_calls:.0%} with 3+ calls; {data.refusals} refusals "
            f"({data.share_refusals:.0%})"
        )
        lines.append(
            f"variety: {data.distinct_gold} distinct gold sequences of {data.distinct_shapes} "
            "tool sequences; instruction diversity "
            f"{data.instruction_diversity:.2f} (distinct word bigrams / {data.instruction_bigrams})"
        )
    return lines
