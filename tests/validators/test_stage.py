"""The stage protocol: every validator module is a stage the pipeline runs in its declared
order, and a task's context carries the first replay from `replay` to the stages after it."""

from __future__ import annotations

import pytest

from tests.conftest import mini_task
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from validators import (
    dedup,
    determinism,
    facts,
    flow,
    intent,
    preference,
    provenance,
    replay,
    structure,
    triviality,
)
from validators.pipeline import ENVIRONMENT_STAGES, TASK_STAGES
from validators.stage import TaskContext


def test_declared_order_is_the_documented_one() -> None:
    assert [s.STAGE for s in ENVIRONMENT_STAGES] == ["static_sql", "seed"]
    assert [s.STAGE for s in TASK_STAGES] == [
        "structure",
        "replay",
        "determinism",
        "triviality",
        "necessity",
        "outcome",
        "provenance",
        "flow",
        "intent",
        "facts",
        "preference",
        "dedup",
    ]


def test_stages_share_one_context(mini_spec: EnvironmentSpec) -> None:
    index = dedup.DedupIndex()
    with Environment(mini_spec) as env:
        ctx = TaskContext(mini_task(), env, None, index, facts.SeedFacts.of(mini_spec))
        assert structure.run(ctx) is None
        with pytest.raises(AssertionError, match="runs before it"):
            _ = ctx.replayed
        assert replay.run(ctx) is None
        assert ctx.replayed.results[0].ok and ctx.replayed.changes
        for stage in (determinism, triviality, provenance, flow, intent, facts, preference, dedup):
            assert stage.run(ctx) is None, stage.STAGE
        found = dedup.run(ctx)  # the context's index remembered the task
        assert found is not None and found.reason == "duplicate_gold"
    index.close()


def test_a_stage_reports_its_own_name(mini_spec: EnvironmentSpec) -> None:
    task = mini_task(gold_calls=[{"name": "teleport", "arguments": {}}], communicate=[])
    index = dedup.DedupIndex()
    with Environment(mini_spec) as env:
        found = structure.run(TaskContext(task, env, None, index, facts.SeedFacts()))
    index.close()
    assert found is not None and (found.stage, found.reason) == (structure.STAGE, "unknown_tool")


def test_the_wording_stages_read_typographic_quotes_as_plain(mini_spec: EnvironmentSpec) -> None:
    """A model writes "I’d like to" as often as "I'd like to"; travel-intent-00039 on
    00fbd03 ("I don’t know my email") passed a check written for the plain quote. The
    intent and facts stages read both alike, and the task itself keeps what was written."""
    found = []
    for quote in ("'", "\u2019"):
        instruction = (
            f"I{quote}d like to close account A1. "
            "Withdraw $30 from account A1 and tell me the new balance."
        )
        task = mini_task(instruction=instruction, known_facts=[f"It{quote}s my account"])
        index = dedup.DedupIndex()
        with Environment(mini_spec) as env:
            ctx = TaskContext(task, env, None, index, facts.SeedFacts.of(mini_spec))
            assert replay.run(ctx) is None
            assert ctx.worded.instruction.startswith("I'd like")
            assert ctx.worded.known_facts == ["It's my account"]
            assert ctx.task.instruction == instruction  # the task as written
            found.append(intent.run(ctx))
        index.close()
    assert [f.reason if f else None for f in found] == ["unserved_request"] * 2
