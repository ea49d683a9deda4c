"""The verifier confined to a thread of its own, so an event loop keeps LLM requests in flight
while tasks are replayed. SQLite connections belong to the thread that opened them, so the
verifier is built, used and closed there."""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor

from toolscale.report import Rejection, Result, StageReport
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.trajectory import Trajectory
from validators.pipeline import TASK_STAGES, Verifier
from validators.stage import TaskStage


class VerifyWorker:
    """Verifies on its thread; a verdict is a `Result` of the verified task and its gold
    trajectory, or of the rejection."""

    def __init__(
        self,
        spec: EnvironmentSpec,
        report: StageReport,
        committed: list[Task],
        cross_engine: bool = True,
        stages: tuple[TaskStage, ...] = TASK_STAGES,
    ):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verify")
        self.spec = spec
        try:
            self._verifier = self._pool.submit(
                self._open, spec, report, committed, cross_engine, stages
            ).result()
        except BaseException:
            self._pool.shutdown()
            raise

    @staticmethod
    def _open(
        spec: EnvironmentSpec,
        report: StageReport,
        committed: list[Task],
        cross_engine: bool,
        stages: tuple[TaskStage, ...],
    ) -> Verifier:
        verifier = Verifier(spec, report=report, cross_engine=cross_engine, stages=stages)
        for done in committed:  # dedup spans runs and strategies
            verifier.dedup.check(done)
        return verifier

    def _verify(self, task: Task) -> Result[tuple[Task, Trajectory]]:
        verdict = self._verifier.verify(task)
        if verdict.value is None:
            return Result(rejection=verdict.rejection)
        return Result(value=(verdict.value, self._verifier.env.demonstrate(verdict.value)))

    @property
    def report(self) -> StageReport:
        return self._verifier.report

    def take_report(self) -> StageReport:
        """The counts so far, the verifier starting a new report: a worker reused for the
        next slice of a run reports each slice once."""
        return self._pool.submit(self._swap_report).result()

    def _swap_report(self) -> StageReport:
        taken, self._verifier.report = self._verifier.report, StageReport()
        return taken

    async def verify(self, task: Task) -> Result[tuple[Task, Trajectory]]:
        """The verified task with its gold trajectory, or the rejection saying why not."""
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._verify, task)

    async def dedup(self, task: Task) -> Rejection | None:
        """The dedup stage alone, for a task verified elsewhere (a Dask worker)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._verifier.dedup_elsewhere, task)

    async def forget(self, task_ids: list[str]) -> None:
        """The dedup index drops these tasks; queued behind any verification still running."""
        await asyncio.get_running_loop().run_in_executor(
            self._pool, self._verifier.dedup.forget, task_ids
        )

    def close(self) -> None:
        self._pool.submit(self._verifier.close).result()
        self._pool.shutdown()

    def __enter__(self) -> VerifyWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
