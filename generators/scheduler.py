"""Task synthesis for one strategy: work items (propose, then verify) kept in flight in a
window, finished ones settled in index order and committed to the store batch by batch, so
a run keeps the same tasks however the model's answers interleave (in-process or on Dask).
A batch is the unit of durability: what settled is committed even when the run is stopped,
and a resumed run skips the committed indices and goes on to the same target and budget.

Verification, the judge and the solver check are passed in as callables (generators do
not import validators or the trainer). The judge and the solver need a model, so they run
here, in the work item, once the verifier has accepted the task; a batch counts the items
each saw, so a committed batch is never judged again and their rows survive a resumed run.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

from generators.arguments import ArgumentSampler
from generators.config import GenerationConfig
from generators.strategies import Strategy, StrategyContext
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient, Outcome
from toolscale.llm.ledger import Ledger
from toolscale.reasons import GeneratorReason
from toolscale.report import Rejection, Result
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, DomainStore, TrajectoryRecord
from toolscale.task import Task, gold_key
from toolscale.trajectory import Trajectory

Verdict = Result[tuple[Task, Trajectory]]  # the verified task and its gold trajectory
Verify = Callable[[Task], Awaitable[Verdict]]
Judge = Callable[[Task, Trajectory], Awaitable[Rejection | None]]  # None: a careful agent agrees
Forget = Callable[[list[str]], Awaitable[None]]  # task ids the dedup index drops
OnProgress = Callable[[int, int], None]  # (verified, proposed) so far, earlier runs' too


@dataclass
class Finished:
    """A work item run elsewhere through every stage but dedup: the task as the verifier
    passed it (None when it did not), and the final verdict after the judge and solver."""

    verified: Task | None
    verdict: Verdict
    judged: bool
    solved: bool


class Remote(Protocol):
    """Work items run on other machines (`generate --runner dask`). The scheduler keeps the
    one dedup index and checks each verified task in index order, so a spread run keeps
    the tasks an in-process run keeps."""

    def plan(self, indices: list[int]) -> int:
        """The indices this strategy may run, in order; returns the window to keep."""
        ...

    async def run(self, index: int) -> Finished: ...

    async def dedup(self, task: Task) -> Rejection | None: ...


class OpenBatch:
    """Finished work items not yet committed, with what the LLM spent since the last commit
    (the requests of items still in flight included: a batch pays for what ran during it)."""

    def __init__(self, store: DomainStore, strategy: str, ledger: Ledger):
        self.store, self.strategy, self.ledger = store, strategy, ledger
        self._open()

    def _open(self) -> None:
        self.batch = Batch(strategy=self.strategy, indices=[])
        self.mark = self.ledger.snapshot()
        self.started = time.perf_counter()

    def commit(self) -> None:
        if not self.batch.indices:
            return
        self.batch.ledger = self.ledger.since(self.mark)
        self.batch.seconds = time.perf_counter() - self.started
        self.store.commit_batch(self.batch)
        self._open()


async def synthesize(
    strategy: Strategy,
    llm: LLMClient,
    brief: Brief,
    spec: EnvironmentSpec,
    store: DomainStore,
    verify: Verify,
    target: int,
    parents: list[Task],
    config: GenerationConfig,
    on_progress: OnProgress,
    judge: Judge | None = None,
    solver: Judge | None = None,
    forget: Forget | None = None,
    remote: Remote | None = None,
) -> int:
    """How many verified tasks of `strategy` the store holds once `target` is reached or the
    budget is spent. `on_progress` hears of the start and of each finished wave (a strategy
    with nothing to do hears nothing). `judge` and then `solver`, when given, have the last
    word on every verified task (the caller decides whether they run). `forget` is told the
    ids of items started past the target, which the verifier may have seen. With `remote`,
    items run there and only their dedup check runs here."""
    done: set[int] = set()
    accepted = moved = 0
    for committed in store.batches(strategy.name):  # one read for all three
        done.update(committed.indices)
        accepted += len(committed.accepted)
        moved += committed.moved
    if target <= accepted or (strategy.needs_parents and not parents):
        return accepted
    factor = max(1, config.budget_factor // strategy.budget_divisor)
    budget = (target + moved) * factor + config.budget_slack  # a task refused on resume is
    # made up for with the budget it took
    indices = [i for i in range(budget) if i not in done]
    pending: Iterator[int] = iter(indices)
    with Environment(spec) as env:  # the walks' own sandbox; verification has its own
        ctx = StrategyContext(
            llm=llm,
            brief=brief,
            env=env,
            sampler=ArgumentSampler(spec),
            config=config,
            kept={gold_key(t.gold_calls) for t in store.accepted()},  # every strategy's
        )

        async def item(
            index: int, before: asyncio.Future[None] | None, mine: asyncio.Future[None]
        ) -> tuple[Verdict, bool, bool]:
            """Propose, verify, judge, solve: one work item, start to end; with whether the
            judge and the solver saw it. Proposals overlap, verification goes in index order
            (`before` is the previous item's, `mine` this one's): the dedup index then sees
            tasks in the same order however the model's answers arrive."""
            if remote is not None:
                return await elsewhere(remote, index, before, mine)
            try:
                outcome = await strategy.propose(ctx, index, parents)
                if before is not None:
                    await asyncio.shield(before)
                if outcome.value is None:
                    return unproposed(strategy, brief, index, outcome), False, False
                verdict = await verify(outcome.value)
            finally:
                if not mine.done():
                    mine.set_result(None)
            return await last_word(verdict, judge, solver)

        # every server's slots (or every remote worker) kept busy
        window = config.window(llm.slots) if remote is None else remote.plan(indices)
        loop = asyncio.get_running_loop()
        in_flight: dict[asyncio.Future[tuple[Verdict, bool, bool]], int] = {}
        order: deque[int] = deque()  # started and not yet settled, in index order
        ready: dict[int, tuple[Verdict, bool, bool]] = {}  # finished, waiting for an earlier one
        turn: asyncio.Future[None] | None = None  # the last started item's verification
        open_batch = OpenBatch(store, strategy.name, llm.ledger)
        proposed = len(done)
        on_progress(accepted, proposed)
        try:
            while accepted < target:
                while len(in_flight) < window:
                    index = next(pending, None)
                    if index is None:
                        break
                    mine: asyncio.Future[None] = loop.create_future()
                    in_flight[asyncio.ensure_future(item(index, turn, mine))] = index
                    order.append(index)
                    turn = mine
                if not in_flight:
                    break
                finished, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for fut in finished:
                    ready[in_flight.pop(fut)] = fut.result()
                # settled in index order up to the target: which tasks a run keeps does not
                # depend on which answers came first (the same tasks in-process or on Dask)
                batch = open_batch.batch
                while order and order[0] in ready and accepted < target:
                    index = order.popleft()
                    batch.indices.append(index)
                    proposed += 1
                    verdict, judged, solved = ready.pop(index)
                    batch.judged += judged
                    batch.solver_checked += solved
                    if verdict.rejection is not None:
                        batch.rejected.append(verdict.rejection)
                        continue
                    assert verdict.value is not None  # a Result holds one or the other
                    task, trajectory = verdict.value
                    accepted += 1
                    batch.accepted.append(task)
                    ctx.kept.add(gold_key(task.gold_calls))
                    batch.trajectories.append(
                        TrajectoryRecord(
                            task_id=task.id,
                            domain=brief.name,
                            strategy=strategy.name,
                            messages=trajectory.messages,
                            tools=spec.openai_tools(),
                        )
                    )
                on_progress(accepted, proposed)
                if len(batch.indices) >= config.batch_size:
                    open_batch.commit()
            # the target is met: items past it are dropped, not kept, and the dedup index
            # forgets them (a resumed run proposes them again, from the response cache)
            for fut in in_flight:
                fut.cancel()
            await asyncio.gather(*in_flight, return_exceptions=True)
            in_flight.clear()
            if order and forget is not None:
                await forget([strategy.task_id(brief.name, i) for i in order])
        finally:
            for fut in in_flight:
                fut.cancel()
            open_batch.commit()  # what settled is kept, even when the run is stopped
    return accepted


def unproposed(strategy: Strategy, brief: Brief, index: int, outcome: Outcome[Task]) -> Verdict:
    """A proposal that failed, as the verdict of its work item."""
    rejection = outcome.rejection or Rejection(
        stage=strategy.name, reason=GeneratorReason.FAILED, detail=""
    )
    rejection.task_id = strategy.task_id(brief.name, index)
    return Result(rejection=rejection)


async def last_word(
    verdict: Verdict, judge: Judge | None, solver: Judge | None
) -> tuple[Verdict, bool, bool]:
    """The judge and then the solver on a verified task; with whether each saw it."""
    judged = solved = False
    if judge is not None and verdict.value is not None:
        judged = True
        refused = await judge(*verdict.value)
        verdict = verdict if refused is None else Result(rejection=refused)
    if solver is not None and verdict.value is not None:
        solved = True
        refused = await solver(*verdict.value)
        verdict = verdict if refused is None else Result(rejection=refused)
    return verdict, judged, solved


async def elsewhere(
    remote: Remote, index: int, before: asyncio.Future[None] | None, mine: asyncio.Future[None]
) -> tuple[Verdict, bool, bool]:
    """One work item run remotely; its dedup check here, in index order (as `item`)."""
    try:
        finished = await remote.run(index)
        if before is not None:
            await asyncio.shield(before)
        verdict = finished.verdict
        if finished.verified is not None:
            refused = await remote.dedup(finished.verified)
            verdict = verdict if refused is None else Result(rejection=refused)
    finally:
        if not mine.done():
            mine.set_result(None)
    return verdict, finished.judged, finished.solved
