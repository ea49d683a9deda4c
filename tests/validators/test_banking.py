"""The banking reference environment: every hand-written task is accepted or rejected for
exactly the reason it was written to exhibit, on either engine; and removing any one
validator makes its broken task slip through."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.conftest import expected_of
from toolscale.environment import Environment
from toolscale.sandbox.base import EngineName
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from validators import (
    dedup,
    determinism,
    necessity,
    provenance,
    replay,
    structure,
    triviality,
)
from validators.pipeline import verify


def _expected(tasks: list[Task]) -> dict[str, str | None]:
    return {t.id: (t.provenance.model_extra or {})["expect_reason"] for t in tasks}


def test_reference_environment_size(banking_spec: EnvironmentSpec) -> None:
    assert len(banking_spec.schema_.tables) >= 4
    assert sum(len(rows) for rows in banking_spec.seed.values()) >= 1000
    writes = [t for t in banking_spec.tools if t.kind == "write"]
    assert len(banking_spec.tools) >= 8 and len(writes) >= 3
    assert all(t.require for t in writes)  # every write enforces policy


def test_reference_tasks_cover_every_reason(banking_tasks: list[Task]) -> None:
    reasons = Counter(r for r in _expected(banking_tasks).values())
    assert len(banking_tasks) >= 30 and reasons[None] >= 15
    task_reasons = {
        "unknown_tool",
        "bad_arguments",
        "unknown_preference_tool",
        "gold_call_failed",
        "expected_error_missing",
        "communicate_unresolved",
        "expected_mismatch",
        "nondeterministic",
        "engine_mismatch",
        "trivial",
        "unnecessary_write",
        "unsupported_argument",
        "duplicate_gold",
        "near_duplicate_instruction",
    }
    assert task_reasons <= set(reasons)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_every_task_gets_its_intended_verdict(
    banking_spec: EnvironmentSpec, banking_tasks: list[Task], engine: EngineName
) -> None:
    accepted, rejected, report = verify(banking_spec, banking_tasks, engine=engine)
    got = {t.id: None for t in accepted} | {r.task_id: r.reason for r in rejected}
    assert got == _expected(banking_tasks)
    assert report.accepted == len(accepted) and report.rejected == len(rejected)
    for task in accepted:
        assert expected_of(task).engine == engine
        assert len(expected_of(task).communicate) == len(task.communicate)


def test_gold_trajectory_scores_full_marks(
    banking_spec: EnvironmentSpec, banking_tasks: list[Task]
) -> None:
    good = [t for t in banking_tasks if _expected([t])[t.id] is None]
    accepted, _, _ = verify(banking_spec, good, cross_engine=False)
    with Environment(banking_spec) as env:
        for task in accepted:
            messages: list[dict] = []
            for i, call in enumerate(task.gold_calls):
                tc = {
                    "id": f"c{i}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                messages.append({"role": "assistant", "tool_calls": [tc]})
            answer = "Done. " + "; ".join(str(v) for v in expected_of(task).communicate)
            messages.append({"role": "assistant", "content": answer})
            ev = env.evaluate(task, messages)
            assert ev.success, (task.id, ev)
            assert ev.price == pytest.approx(sum(env.tools[c.name].price for c in task.gold_calls))


STAGE_MODULES = {
    "structure": (structure, ["unknown_tool", "bad_arguments", "unknown_preference_tool"]),
    "replay": (
        replay,
        [
            "gold_call_failed",
            "expected_error_missing",
            "communicate_unresolved",
            "expected_mismatch",
        ],
    ),
    "determinism": (determinism, ["nondeterministic", "engine_mismatch"]),
    "triviality": (triviality, ["trivial"]),
    "necessity": (necessity, ["unnecessary_write"]),
    "provenance": (provenance, ["unsupported_argument"]),
}


@pytest.mark.parametrize("stage", sorted(STAGE_MODULES))
def test_removing_a_validator_lets_its_broken_tasks_through(
    monkeypatch: pytest.MonkeyPatch,
    banking_spec: EnvironmentSpec,
    banking_tasks: list[Task],
    stage: str,
) -> None:
    module, reasons = STAGE_MODULES[stage]
    monkeypatch.setattr(module, "check", lambda *args, **kwargs: None)
    _, rejected, _ = verify(banking_spec, banking_tasks)
    still = {r.reason for r in rejected}
    assert not still & set(reasons), f"{stage} removed, yet {still & set(reasons)} were found"


def test_removing_dedup_lets_duplicates_through(
    monkeypatch: pytest.MonkeyPatch, banking_spec: EnvironmentSpec, banking_tasks: list[Task]
) -> None:
    monkeypatch.setattr(dedup.DedupIndex, "check", lambda self, task: None)
    _, rejected, _ = verify(banking_spec, banking_tasks)
    assert not {r.reason for r in rejected} & {"duplicate_gold", "near_duplicate_instruction"}
