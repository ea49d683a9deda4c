"""One domain's work items spread over Dask workers (`toolscale generate DOMAIN --runner
dask`, issue 12). This process keeps the store, the order and the one dedup index; a
worker takes a slice of consecutive work items, runs each through proposal, every
validator but dedup and the judge, and sends back what it found with what its model calls
cost. Workers write nothing, so no two write one file: a slice is the unit of remote
work, a committed batch stays the unit of durability. The scheduler checks dedup and
settles in index order, so the run keeps the tasks an in-process run keeps.

Not done remotely: the solver check (use the in-process runner with `--solver-k`), and
the response cache (a worker's calls are not cached: a resumed run asks again for the
items it had not committed).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from generators.arguments import ArgumentSampler
from generators.config import GenerationConfig
from generators.scheduler import Finished, last_word, unproposed
from generators.strategies import StrategyContext, check_strategies
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection, StageReport
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from validators import judge
from validators.pipeline import UNDEDUPED_STAGES
from validators.worker import VerifyWorker


@dataclass
class Slice:
    """What a worker sends back for its slice of work items."""

    finished: dict[int, Finished]
    ledger: Ledger
    report: StageReport


@dataclass
class Job:
    """What a worker needs for any slice of one strategy's run."""

    strategy: str
    brief: Brief
    spec: EnvironmentSpec
    parents: list[Task]
    config: GenerationConfig
    llm: LLMConfig
    cross_engine: bool


def run_slice(job: Job, indices: list[int]) -> Slice:
    """On a worker: the work items `indices` of `job`, side by side."""
    return asyncio.run(_run_slice(job, indices))


class Sandboxes(threading.local):
    """A worker thread's sandboxes for the job it last ran, opened once: opening them (the
    environment checks, DuckDB's vetting of every tool) for each slice of 8 items cost
    ~0.3 s of CPU a task (bench/scale.py)."""

    key: str = ""
    env: Environment | None = None
    verifier: VerifyWorker | None = None

    def of(self, job: Job) -> tuple[Environment, VerifyWorker]:
        key = hashlib.sha256(job.spec.model_dump_json().encode()).hexdigest()
        key += f"/{job.cross_engine}"
        if key != self.key or self.env is None or self.verifier is None:
            self.close()
            self.env = Environment(job.spec)
            self.verifier = VerifyWorker(
                job.spec, StageReport(), [], job.cross_engine, UNDEDUPED_STAGES
            )
            self.key = key
        return self.env, self.verifier

    def close(self) -> None:
        if self.verifier is not None:
            self.verifier.close()
        if self.env is not None:
            self.env.close()
        self.key, self.env, self.verifier = "", None, None


SANDBOXES = Sandboxes()


async def _run_slice(job: Job, indices: list[int]) -> Slice:
    (strategy,) = check_strategies((job.strategy,))
    llm = LLMClient(job.llm)
    judging = functools.partial(judge.judge, llm, job.spec) if job.config.judge else None
    env, verifier = SANDBOXES.of(job)
    try:
        ctx = StrategyContext(
            llm=llm,
            brief=job.brief,
            env=env,
            sampler=ArgumentSampler(job.spec),
            config=job.config,
        )
        room = asyncio.Semaphore(job.config.window(llm.slots))

        async def one(index: int) -> Finished:
            async with room:
                outcome = await strategy.propose(ctx, index, job.parents)
                if outcome.value is None:
                    failed = unproposed(strategy, job.brief, index, outcome)
                    return Finished(None, failed, False, False)
                verdict = await verifier.verify(outcome.value)
                verified = verdict.value[0] if verdict.value is not None else None
                verdict, judged, solved = await last_word(verdict, judging, None)
                return Finished(verified, verdict, judged, solved)

        finished = await asyncio.gather(*(one(i) for i in indices))
    except BaseException:
        SANDBOXES.close()  # a slice that failed leaves nothing half-used for the next
        raise
    finally:
        await llm.close()
    report = verifier.take_report()
    return Slice(dict(zip(indices, finished, strict=True)), llm.ledger, report)


class DaskItems:
    """The scheduler's `Remote` on a Dask cluster: slices of `size` consecutive work items,
    submitted when the scheduler first asks for one of their items; each slice's cost and
    counts merged into this run's ledger and report as it comes back."""

    def __init__(self, client: Any, job: Job, llm: LLMClient, verifier: VerifyWorker, size: int):
        self.client = client
        self.job = job
        self.llm = llm
        self.verifier = verifier
        self.size = size
        self.slices: list[list[int]] = []
        self.slice_of: dict[int, int] = {}
        self.started: dict[int, asyncio.Future[Slice]] = {}
        self.submitted: list[Any] = []

    def plan(self, indices: list[int]) -> int:
        self.slices = [indices[i : i + self.size] for i in range(0, len(indices), self.size)]
        self.slice_of = {index: k for k, s in enumerate(self.slices) for index in s}
        workers = max(1, len(self.client.scheduler_info().get("workers", {})))
        return 2 * workers * self.size  # a slice running and one waiting, per worker

    async def run(self, index: int) -> Finished:
        k = self.slice_of[index]
        if k not in self.started:
            self.started[k] = asyncio.ensure_future(self._slice(self.slices[k]))
        got = await asyncio.shield(self.started[k])
        return got.finished[index]

    async def _slice(self, indices: list[int]) -> Slice:
        future = self.client.submit(run_slice, self.job, indices, pure=False)
        self.submitted.append(future)
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def arrived() -> None:
            if not done.done():
                done.set_result(None)

        future.add_done_callback(lambda _: loop.call_soon_threadsafe(arrived))
        await done
        got: Slice = await asyncio.to_thread(future.result)  # raises the worker's error
        self.llm.ledger.merge(got.ledger)
        self.verifier.report.merge(got.report)
        return got

    async def dedup(self, task: Task) -> Rejection | None:
        return await self.verifier.dedup(task)

    def close(self) -> None:
        """Slices still running past the target are cancelled."""
        pending = [f for f in self.submitted if not f.done()]
        if pending:
            self.client.cancel(pending)
        for started in self.started.values():
            started.cancel()


@contextlib.contextmanager
def dask_client(address: str | None, workers: int) -> Iterator[Any]:
    """A client of the cluster at `address`, else of a LocalCluster of `workers` processes
    (one thread each: a worker's event loop runs its slice's model calls side by side)."""
    from distributed import Client, LocalCluster

    if address:
        with Client(address) as client:
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client
