"""The one entry point: verify an environment, then stream tasks through every stage.

Stages run in the order declared below and the first failure rejects the task with its
stage and reason. Nothing is held per task after its result, so memory stays flat over any
number of tasks (the dedup index lives on disk).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from toolscale.environment import Environment, Replay
from toolscale.errors import ToolscaleError
from toolscale.reasons import ErrorReason
from toolscale.report import Rejection, Result, StageReport
from toolscale.sandbox.base import EngineName, Limits
from toolscale.spec import EnvironmentSpec
from toolscale.task import Difficulty, ExpectedOutcome, Task
from validators import (
    dedup,
    determinism,
    facts,
    flow,
    intent,
    necessity,
    outcome,
    preference,
    provenance,
    replay,
    seed,
    static_sql,
    structure,
    triviality,
)
from validators.stage import EnvironmentContext, EnvironmentStage, TaskContext, TaskStage

TASK_STAGES: tuple[TaskStage, ...] = (
    structure,
    replay,
    determinism,
    triviality,
    necessity,
    outcome,
    provenance,
    flow,
    intent,
    facts,
    preference,
    dedup,
)
# Without the dedup index: for a worker verifying a slice of a run whose coordinator keeps
# the one index, in the run's order (generate --runner dask).
UNDEDUPED_STAGES: tuple[TaskStage, ...] = tuple(s for s in TASK_STAGES if s is not dedup)
ENVIRONMENT_STAGES: tuple[EnvironmentStage, ...] = (static_sql, seed)


class EnvironmentRejected(ToolscaleError):
    """The environment itself fails; no task can be verified against it."""

    reason = ErrorReason.ENVIRONMENT_REJECTED

    def __init__(self, rejections: list[Rejection]):
        self.rejections = rejections
        lines = "\n".join(f"  [{r.stage}/{r.reason}] {r.detail}" for r in rejections[:20])
        more = f"\n  … and {len(rejections) - 20} more" if len(rejections) > 20 else ""
        super().__init__(f"the environment fails {len(rejections)} check(s):\n{lines}{more}")


def _environment_stages(
    spec: EnvironmentSpec, report: StageReport, limits: Limits | None
) -> tuple[list[Rejection], dict[EngineName, Environment]]:
    """Every environment stage in order, recorded, up to the first that finds problems; with
    none, both engines' environments, open (the seed stage opened them, so nothing is
    compiled or loaded twice)."""
    ctx = EnvironmentContext(spec, limits)
    for stage in ENVIRONMENT_STAGES:
        started = time.perf_counter()
        problems = stage.run(ctx)
        report.record(stage.STAGE, time.perf_counter() - started, problems[0] if problems else None)
        if problems:
            return problems, {}
    return [], ctx.opened


def verify_environment(spec: EnvironmentSpec, report: StageReport | None = None) -> list[Rejection]:
    """Both environment stages on their own; every problem found."""
    problems, opened = _environment_stages(spec, report or StageReport(), None)
    for env in opened.values():
        env.close()
    return problems


def difficulty(task: Task, env: Environment, run: Replay) -> Difficulty:
    n_writes = sum(env.tools[c.name].kind == "write" for c in task.gold_calls)
    n_calls = len(task.gold_calls)
    level = "hard" if n_calls >= 5 or n_writes >= 3 else "medium" if n_calls >= 3 else "easy"
    return Difficulty(
        n_calls=n_calls,
        n_writes=n_writes,
        n_distinct_tools=len({c.name for c in task.gold_calls}),
        n_tables_changed=len(run.changes),
        n_rows_changed=sum(len(rows) for rows in run.changes.values()),
        expected_errors=sum(c.expect_error is not None for c in task.gold_calls),
        n_communicate=len(task.communicate),
        level=level,
    )


class Verifier:
    """Holds the sandboxes and the dedup index for one environment; verifies tasks one by one."""

    def __init__(
        self,
        spec: EnvironmentSpec,
        engine: EngineName = "sqlite",
        cross_engine: bool = True,
        limits: Limits | None = None,
        dedup_path: str | Path | None = None,
        near_duplicate: float = 0.8,
        report: StageReport | None = None,
        stages: tuple[TaskStage, ...] = TASK_STAGES,
    ):
        self.spec = spec
        self.stages = stages
        self.report = report if report is not None else StageReport()
        problems, opened = _environment_stages(spec, self.report, limits)
        if problems:
            raise EnvironmentRejected(problems)
        other: EngineName = "duckdb" if engine == "sqlite" else "sqlite"
        self.env = opened[engine]
        self.other: Environment | None = opened[other]  # used only for the cross check
        if not cross_engine:
            self.other.close()
            self.other = None
        self.dedup = dedup.DedupIndex(dedup_path, near_duplicate)
        self.seed_facts = facts.SeedFacts.of(spec)

    def _reject(self, rejection: Rejection, task: Task | None) -> Result[Task]:
        if task is not None:
            rejection.task_id = task.id
            if rejection.item is None:
                rejection.item = task.model_dump(mode="json", exclude_none=True)
        self.report.rejected += 1
        return Result(rejection=rejection)

    def dedup_elsewhere(self, task: Task) -> Rejection | None:
        """The dedup stage for a task another verifier passed without it (a Dask worker,
        whose counts are merged into this report): a duplicate turns that acceptance into
        this stage's rejection."""
        started = time.perf_counter()
        found = self.dedup.check(task)
        self.report.record(dedup.STAGE, time.perf_counter() - started, found)
        if found is None:
            return None
        self.report.accepted -= 1
        return self._reject(found, task).rejection

    def verify(self, item: Task | Rejection) -> Result[Task]:
        """One task through every stage; a Rejection from parsing is counted and passed on."""
        started = time.perf_counter()
        try:
            return self._verify(item)
        finally:
            self.report.seconds += time.perf_counter() - started

    def _verify(self, item: Task | Rejection) -> Result[Task]:
        if isinstance(item, Rejection):
            self.report.record(item.stage, 0.0, item)
            return self._reject(item, None)
        ctx = TaskContext(item, self.env, self.other, self.dedup, self.seed_facts)
        for stage in self.stages:
            started = time.perf_counter()
            found = stage.run(ctx)
            self.report.record(stage.STAGE, time.perf_counter() - started, found)
            if found is not None:
                return self._reject(found, item)
        env, first = self.env, ctx.replayed
        verified = item.model_copy(
            update={
                "expected": ExpectedOutcome(
                    state_hash=env.state_hash(first),
                    diff=env.diff({}, first.changes),
                    communicate=replay.resolve_all(item, first),
                    engine=env.engine,
                ),
                "difficulty": difficulty(item, env, first),
            }
        )
        self.report.accepted += 1
        return Result(verified)

    def verify_stream(self, items: Iterable[Task | Rejection]) -> Iterator[Result[Task]]:
        """Lazily, one item at a time: the caller writes each result out as it comes."""
        for item in items:
            yield self.verify(item)

    def close(self) -> None:
        self.env.close()
        if self.other is not None:
            self.other.close()
        self.dedup.close()

    def __enter__(self) -> Verifier:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def verify(
    spec: EnvironmentSpec, items: Iterable[Task | Rejection], **options: Any
) -> tuple[list[Task], list[Rejection], StageReport]:
    """For small inputs: collects everything (Verifier.verify_stream streams big ones)."""
    accepted: list[Task] = []
    rejected: list[Rejection] = []
    with Verifier(spec, **options) as verifier:
        for result in verifier.verify_stream(items):
            if result.value is not None:
                accepted.append(result.value)
            elif result.rejection is not None:
                rejected.append(result.rejection)
        return accepted, rejected, verifier.report
