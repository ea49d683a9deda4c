"""What a stage is: a validator module with a `STAGE` name (the `stage` of its rejections)
and `run(ctx)`, the check of one context. One shape for every stage lets the pipeline run
them as a loop over one declared list, timing and counting each the same way.

A stage's `run` only adapts the context to the module's pure `check` function, so that
function stays testable on its own (and a test can switch one stage off by replacing it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from toolscale.environment import Environment, Replay
from toolscale.report import Rejection
from toolscale.sandbox.base import EngineName, Limits, Program
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.wording import straight_quotes

if TYPE_CHECKING:  # these stages take this context: a runtime import would be circular
    from validators.dedup import DedupIndex
    from validators.facts import SeedFacts


@dataclass(slots=True)
class TaskContext:
    """One task on its way through the task stages, with what the verifier holds for it."""

    task: Task
    env: Environment
    other: Environment | None  # the other engine's, for the cross-engine replay; None: skip it
    dedup: DedupIndex
    seed_facts: SeedFacts  # what the seed holds, for the facts stage
    first: Replay | None = None  # filled by the replay stage, read by the stages after it

    @property
    def worded(self) -> Task:
        """The task as the wording checks read it: its quotes plain, so that one spelling
        of "I'd" or "don't" serves every check."""
        task = self.task
        texts = [task.instruction, *task.known_facts]
        if all(straight_quotes(t) == t for t in texts):
            return task
        return task.model_copy(
            update={
                "instruction": straight_quotes(task.instruction),
                "known_facts": [straight_quotes(f) for f in task.known_facts],
            }
        )

    @property
    def replayed(self) -> Replay:
        """The first replay, for the stages after `replay`."""
        assert self.first is not None, "a stage that needs the replay runs before it"
        return self.first


@dataclass(slots=True)
class EnvironmentContext:
    """The environment on its way through the environment stages."""

    spec: EnvironmentSpec
    limits: Limits | None = None
    programs: dict[str, Program] | None = None  # filled by static_sql: compiled once
    opened: dict[EngineName, Environment] = field(default_factory=dict)  # filled by seed


class TaskStage(Protocol):
    """A task stage: the first problem of one task, or None to pass it on."""

    STAGE: str

    def run(self, ctx: TaskContext) -> Rejection | None: ...


class EnvironmentStage(Protocol):
    """An environment stage: every problem found (a generator fixes them in one go)."""

    STAGE: str

    def run(self, ctx: EnvironmentContext) -> list[Rejection]: ...
