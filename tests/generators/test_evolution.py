"""Evolution: a verified task's calls replayed and the walk continued; its preference kept."""

from __future__ import annotations

import random
from pathlib import Path

from generators.arguments import ArgumentSampler
from generators.evolution import evolve_task
from generators.preferences import sample_preference, with_preference
from tests.generators.library import (
    Library,
    ask,
    brief,
    last_user,
)
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient
from toolscale.task import Task
from toolscale.testing.fakedomain import library
from validators.pipeline import Verifier


def test_evolve_task_extends_a_verified_parent(
    tmp_path: Path, lib: Library, env: Environment, verified: Task
) -> None:
    sampler = ArgumentSampler(lib.spec)
    asked = ask(
        library,
        tmp_path,
        lambda llm: evolve_task(
            llm, brief(), env, sampler, verified, "library-evolved-0", random.Random(2), 2
        ),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    child = outcome.value
    n = len(verified.gold_calls)
    assert child.gold_calls[:n] == verified.gold_calls
    assert len(child.gold_calls) > n
    assert child.communicate[: len(verified.communicate)] == verified.communicate
    assert child.provenance.source == "evolved"
    assert child.provenance.parent == verified.id
    assert child.id == "library-evolved-0"
    assert verified.instruction in last_user(asked.requests[0])
    with Verifier(lib.spec) as verifier:
        result = verifier.verify(child)
    assert result.value is not None, result.rejection


def test_evolved_tasks_never_call_a_tool_their_preference_avoids(
    tmp_path: Path, lib: Library, env: Environment, verified: Task
) -> None:
    avoid = next(
        p
        for s in range(50)
        if (p := sample_preference(random.Random(s), lib.spec.tools, verified.gold_calls, 1.0))
        and p.avoid_tools
    )
    parent = verified.model_copy(
        update={"preferences": avoid, "instruction": with_preference(verified.instruction, avoid)}
    )
    sampler = ArgumentSampler(lib.spec)

    async def evolve_many(llm: LLMClient) -> list[Task]:
        out = []
        for s in range(30):
            got = await evolve_task(
                llm, brief(), env, sampler, parent, f"e{s}", random.Random(s), s
            )
            if got.value is not None:
                out.append(got.value)
        return out

    children = ask(library, tmp_path, evolve_many).value
    assert len(children) >= 20
    for child in children:
        assert child.preferences == avoid
        assert not {c.name for c in child.gold_calls} & set(avoid.avoid_tools), child.gold_calls
