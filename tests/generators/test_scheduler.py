"""The scheduler keeps the same tasks whichever order the model's answers arrive in: the
Dask runner (issue 12) promises the in-process run's tasks, and a stateful verifier (the
dedup index) must see tasks in index order. CI once kept 11 tasks on Dask and 10 in-process."""

from __future__ import annotations

import asyncio
import random
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace
from typing import cast

from generators import scheduler
from generators.config import DEFAULT_CONFIG
from generators.strategies import Strategy, StrategyContext
from toolscale.brief import Brief
from toolscale.llm.client import LLMClient, Outcome
from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection, Result
from toolscale.spec import EnvironmentSpec
from toolscale.store import DomainStore
from toolscale.task import Task, gold_key
from toolscale.trajectory import Trajectory

BRIEF = Brief(
    name="banking",
    description="A bank's customers move money between their accounts.",
    entities=["customers", "accounts"],
)


def run(
    spec: EnvironmentSpec, pool: list[Task], root: Path, delays: random.Random, window: int
) -> tuple[list[str], list[str], set[str]]:
    """One synthesis of 5 tasks; item i proposes pool[i // 2] (so every odd item repeats the
    gold before it) after a delay drawn from `delays`. Returns the kept ids, the rejected ids
    and what the verifier's dedup set holds at the end."""
    seen: dict[str, str] = {}  # gold text -> task id: the dedup index's stand-in

    async def draft(
        ctx: StrategyContext, task_id: str, rng: random.Random, index: int, parents: list[Task]
    ) -> Outcome[Task]:
        await asyncio.sleep(delays.random() * 0.02)
        return Outcome(value=pool[index // 2].model_copy(update={"id": task_id}))

    async def verify(task: Task) -> scheduler.Verdict:
        gold = repr([(c.name, c.arguments) for c in task.gold_calls])
        if gold in seen:
            return Result(
                rejection=Rejection(
                    stage="dedup", reason="duplicate_gold", detail="", task_id=task.id
                )
            )
        seen[gold] = task.id
        return Result(value=(task, Trajectory(messages=[])))

    async def forget(ids: list[str]) -> None:
        for gold in [g for g, t in seen.items() if t in ids]:
            del seen[gold]

    strategy = Strategy(
        name="intent",
        share=Fraction(1),
        budget_divisor=1,
        needs_parents=False,
        draft=draft,
    )
    llm = cast(LLMClient, SimpleNamespace(slots=window, ledger=Ledger()))
    config = DEFAULT_CONFIG.model_copy(update={"window_per_slot": 1, "min_window": 1})
    store = DomainStore(root, "banking")
    kept = asyncio.run(
        scheduler.synthesize(
            strategy,
            llm,
            BRIEF,
            spec,
            store,
            verify,
            5,
            [],
            config,
            lambda a, p: None,
            forget=forget,
        )
    )
    batches = list(store.batches("intent"))
    accepted = [t.id for b in batches for t in b.accepted]
    rejected = [r.task_id or "" for b in batches for r in b.rejected]
    assert kept == len(accepted) == 5
    return accepted, rejected, set(seen.values())


def test_the_same_tasks_whatever_order_answers_arrive_in(
    banking_spec: EnvironmentSpec, banking_tasks: list[Task], tmp_path: Path
) -> None:
    pool = banking_tasks[:8]
    assert len(pool) == 8
    one_at_a_time = run(banking_spec, pool, tmp_path / "serial", random.Random(0), window=1)
    for seed in range(4):  # eight items in flight, finishing in a different order each time
        overlapping = run(banking_spec, pool, tmp_path / f"w{seed}", random.Random(seed), 8)
        assert overlapping == one_at_a_time
    accepted, rejected, remembered = one_at_a_time
    assert accepted == [f"banking-intent-{i:05d}" for i in (0, 2, 4, 6, 8)]
    assert rejected == [f"banking-intent-{i:05d}" for i in (1, 3, 5, 7)]
    assert remembered == set(accepted)  # items started past the target were forgotten


def test_a_draft_knows_the_gold_of_every_task_kept_before_it(
    banking_spec: EnvironmentSpec, banking_tasks: list[Task], tmp_path: Path
) -> None:
    """Item i proposes pool[i // 2], so every odd item repeats the gold before it: one at a
    time, each repeat's draft finds that gold among the kept ones (and is not worded), and a
    resumed run starts knowing what its store kept."""
    pool = banking_tasks[:8]
    known: dict[int, bool] = {}

    async def draft(
        ctx: StrategyContext, task_id: str, rng: random.Random, index: int, parents: list[Task]
    ) -> Outcome[Task]:
        task = pool[index // 2].model_copy(update={"id": task_id})
        known[index] = gold_key(task.gold_calls) in ctx.kept
        return Outcome(value=task)

    keys: set[str] = set()

    async def verify(task: Task) -> scheduler.Verdict:
        key = gold_key(task.gold_calls)
        if key in keys:
            reason = Rejection(stage="dedup", reason="duplicate_gold", detail="")
            return Result(rejection=reason)
        keys.add(key)
        return Result(value=(task, Trajectory(messages=[])))

    strategy = Strategy(
        name="intent", share=Fraction(1), budget_divisor=1, needs_parents=False, draft=draft
    )
    llm = cast(LLMClient, SimpleNamespace(slots=1, ledger=Ledger()))
    config = DEFAULT_CONFIG.model_copy(update={"window_per_slot": 1, "min_window": 1})
    store = DomainStore(tmp_path, "banking")

    def synthesize(target: int) -> int:
        return asyncio.run(
            scheduler.synthesize(
                strategy, llm, BRIEF, banking_spec, store, verify, target, [], config,
                lambda a, p: None,
            )
        )  # fmt: skip

    assert synthesize(2) == 2
    assert known == {0: False, 1: True, 2: False}
    known.clear()
    assert synthesize(3) == 3  # resumed: item 3 repeats item 2, kept by the first run
    assert known == {3: True, 4: False}
