"""Sample-then-verbalize: a walk from the seed, put into words, kept only if it verifies."""

from __future__ import annotations

import random
from pathlib import Path

from generators.arguments import ArgumentSampler
from generators.sampled import STAGE, propose_sampled_task
from tests.generators.library import Library, ask, brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient
from toolscale.reasons import GeneratorReason
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task, gold_key
from toolscale.testing.fakedomain import library
from validators.pipeline import Verifier


def test_sampled_tasks_replay_their_walk_and_verify(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    sampler = ArgumentSampler(lib.spec)

    async def propose_many(llm: LLMClient) -> list[Task]:
        out = []
        for s in range(12):
            got = await propose_sampled_task(
                llm, brief(), env, sampler, f"library-sampled-{s}", random.Random(s), s
            )
            assert got.value is not None, got.rejection
            out.append(got.value)
        return out

    tasks = ask(library, tmp_path, propose_many).value
    duplicates = 0
    with Verifier(lib.spec) as verifier:
        for task in tasks:
            assert task.provenance.source == "sampled"
            assert task.provenance.parent is None
            assert task.provenance.prompt == "verbalize.j2"
            if task.preferences is not None:  # stated in the words, not only in the vector
                assert task.preferences.statement in task.instruction
            result = verifier.verify(task)
            if result.rejection is not None and result.rejection.stage == "dedup":
                duplicates += 1  # two walks may land on the same rows: the batch drops one
                continue
            assert result.value is not None, (task.id, result.rejection)
    assert duplicates <= 2
    assert any(t.preferences is not None for t in tasks)
    assert any(t.preferences is None for t in tasks)


def test_the_same_work_item_gives_the_same_task(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    sampler = ArgumentSampler(lib.spec)

    async def twice(llm: LLMClient) -> tuple[Task | None, Task | None]:
        a = await propose_sampled_task(llm, brief(), env, sampler, "t", random.Random(3), 3)
        b = await propose_sampled_task(llm, brief(), env, sampler, "t", random.Random(3), 3)
        return a.value, b.value

    first, second = ask(library, tmp_path, twice).value
    assert first is not None and first == second


def test_no_walk_is_a_rejection_and_asks_the_model_nothing(tmp_path: Path, lib: Library) -> None:
    reads_nothing = EnvironmentSpec(  # a seed with no rows: every lookup fails
        name=lib.spec.name,
        schema_=lib.spec.schema_,
        tools=lib.spec.tools,
        policy=lib.spec.policy,
    )
    with Environment(reads_nothing) as empty:
        asked = ask(
            library,
            tmp_path,
            lambda llm: propose_sampled_task(
                llm, brief(), empty, ArgumentSampler(reads_nothing), "t", random.Random(1), 1
            ),
        )
    outcome = asked.value
    assert outcome.rejection is not None
    assert (outcome.rejection.stage, outcome.rejection.reason) == (STAGE, GeneratorReason.NO_CHAIN)
    assert asked.requests == []  # nothing to put into words: the model is not asked


def test_a_draft_whose_gold_a_kept_task_has_is_not_worded(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    """The dedup stage refuses a task whose gold a kept one has, whatever its words: finance's
    N=300 run spent 16 of its first 220 drafts on such repeats. The model is not asked."""
    sampler = ArgumentSampler(lib.spec)
    first = ask(
        library,
        tmp_path / "first",
        lambda llm: propose_sampled_task(llm, brief(), env, sampler, "t", random.Random(3), 3),
    ).value.value
    assert first is not None
    again = ask(
        library,
        tmp_path / "again",
        lambda llm: propose_sampled_task(
            llm,
            brief(),
            env,
            sampler,
            "t",
            random.Random(3),
            3,
            kept={gold_key(first.gold_calls)},
        ),
    )
    rejection = again.value.rejection
    assert rejection is not None
    assert (rejection.stage, rejection.reason) == ("dedup", "duplicate_gold")
    assert again.requests == []
