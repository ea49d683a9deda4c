"""The one entry point: verify an environment, then stream tasks through every stage.

Stages run in order and the first failure rejects the task with its stage and reason.
Nothing is held per task after its verdict, so memory stays flat over any number of tasks
(the dedup index lives on disk).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from toolscale.checks import SEED, STATIC_SQL, check_seed, check_sql
from toolscale.environment import Environment, Replay
from toolscale.report import Rejection, StageReport, Stopwatch
from toolscale.sandbox.base import EngineName, Limits
from toolscale.spec import EnvironmentSpec
from toolscale.task import Difficulty, ExpectedOutcome, Task
from validators import (
    dedup,
    determinism,
    necessity,
    provenance,
    replay,
    structure,
    triviality,
)

TASK_STAGES = (
    structure.STAGE,
    replay.STAGE,
    determinism.STAGE,
    triviality.STAGE,
    necessity.STAGE,
    provenance.STAGE,
    dedup.STAGE,
)
ENVIRONMENT_STAGES = (STATIC_SQL, SEED)


class EnvironmentRejected(Exception):
    """The environment itself fails; no task can be verified against it."""

    def __init__(self, rejections: list[Rejection]):
        self.rejections = rejections
        lines = "\n".join(f"  [{r.stage}/{r.reason}] {r.detail}" for r in rejections[:20])
        more = f"\n  … and {len(rejections) - 20} more" if len(rejections) > 20 else ""
        super().__init__(f"the environment fails {len(rejections)} check(s):\n{lines}{more}")


@dataclass
class Verdict:
    task: Task | None
    rejection: Rejection | None

    @property
    def accepted(self) -> bool:
        return self.rejection is None


def _environment_stages(
    spec: EnvironmentSpec, report: StageReport, limits: Limits | None
) -> tuple[list[Rejection], dict[EngineName, Environment]]:
    """`static_sql`, then `seed`, recorded; with no problem, both engines' environments,
    open (the seed stage is opening them, so nothing is compiled or loaded twice)."""
    with Stopwatch() as sw:
        problems, programs = check_sql(spec)
    report.record(STATIC_SQL, sw.seconds, problems[0] if problems else None)
    if problems or programs is None:
        return problems, {}
    with Stopwatch() as sw:
        problems, opened = check_seed(spec, programs, limits)
    report.record(SEED, sw.seconds, problems[0] if problems else None)
    return problems, opened


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
    ):
        self.spec = spec
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

    def _reject(self, rejection: Rejection, task: Task | None) -> Verdict:
        if task is not None:
            rejection.task_id = task.id
            if rejection.item is None:
                rejection.item = task.model_dump(mode="json", exclude_none=True)
        self.report.rejected += 1
        return Verdict(None, rejection)

    def verify(self, item: Task | Rejection) -> Verdict:
        """One task through every stage; a Rejection from parsing is counted and passed on."""
        started = time.perf_counter()
        try:
            return self._verify(item)
        finally:
            self.report.seconds += time.perf_counter() - started

    def _verify(self, item: Task | Rejection) -> Verdict:
        if isinstance(item, Rejection):
            self.report.record(item.stage, 0.0, item)
            return self._reject(item, None)
        task = item
        env = self.env

        def stage(name: str, check: Callable[[], Rejection | None]) -> Rejection | None:
            with Stopwatch() as sw:
                found = check()
            self.report.record(name, sw.seconds, found)
            return found

        if found := stage(structure.STAGE, lambda: structure.check(task, env)):
            return self._reject(found, task)

        first: Replay

        def replayed() -> Rejection | None:
            nonlocal first
            first = env.replay(task.gold_calls)
            claimed = env.state_hash(first) if task.expected is not None else None
            return replay.check(task, first, claimed)

        if found := stage(replay.STAGE, replayed):
            return self._reject(found, task)

        def deterministic() -> Rejection | None:
            again = env.replay(task.gold_calls)
            other = self.other.replay(task.gold_calls) if self.other else None
            engine = self.other.engine if self.other else ""
            return determinism.check(task, first, again, other, engine)

        if found := stage(determinism.STAGE, deterministic):
            return self._reject(found, task)
        if found := stage(triviality.STAGE, lambda: triviality.check(task, first)):
            return self._reject(found, task)
        if found := stage(necessity.STAGE, lambda: necessity.check(task, env, first)):
            return self._reject(found, task)
        if found := stage(provenance.STAGE, lambda: provenance.check(task, env.tools, first)):
            return self._reject(found, task)
        if found := stage(dedup.STAGE, lambda: self.dedup.check(task)):
            return self._reject(found, task)

        verified = task.model_copy(
            update={
                "expected": ExpectedOutcome(
                    state_hash=env.state_hash(first),
                    diff=env.diff({}, first.changes),
                    communicate=replay.resolve_all(task, first),
                    engine=env.engine,
                ),
                "difficulty": difficulty(task, env, first),
            }
        )
        self.report.accepted += 1
        return Verdict(verified, None)

    def verify_stream(self, items: Iterable[Task | Rejection]) -> Iterator[Verdict]:
        """Lazily, one item at a time: the caller writes each verdict out as it comes."""
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
    spec: EnvironmentSpec, items: Iterable[Task | Rejection], **options: object
) -> tuple[list[Task], list[Rejection], StageReport]:
    """For small inputs: collects everything (Verifier.verify_stream streams big ones)."""
    accepted: list[Task] = []
    rejected: list[Rejection] = []
    with Verifier(spec, **options) as verifier:  # type: ignore[arg-type]
        for verdict in verifier.verify_stream(items):
            if verdict.task is not None:
                accepted.append(verdict.task)
            else:
                rejected.append(verdict.rejection)  # type: ignore[arg-type]
        return accepted, rejected, verifier.report
