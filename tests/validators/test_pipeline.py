"""The verifier: the environment stages before any task, then every task stage in order, the
first failure winning; a verified task's expected outcome and difficulty; a refused environment
with every problem; results streamed one by one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import expected_of, mini_task
from toolscale.environment import Environment
from toolscale.report import Rejection, StageReport
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from validators.pipeline import (
    ENVIRONMENT_STAGES,
    TASK_STAGES,
    EnvironmentRejected,
    Verifier,
    difficulty,
    verify,
    verify_environment,
)
from validators.structure import parse


def test_accepted_task_carries_expected_outcome_and_difficulty(mini_spec: EnvironmentSpec) -> None:
    (task,), _, _ = verify(mini_spec, [mini_task()])
    expected = expected_of(task)
    assert expected.communicate == [70]
    assert expected.diff.summary() == "accounts: 1 updated (balance)"
    assert len(expected.state_hash) == 64
    assert task.difficulty is not None
    assert task.difficulty.n_writes == 1 and task.difficulty.level == "easy"
    # verifying a verified task again checks its claimed outcome and accepts it
    again, rejected, _ = verify(mini_spec, [task])
    assert rejected == [] and again[0].expected == task.expected


def test_broken_environment_is_refused_with_every_problem(mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = "SELECT id, colour FROM accounts WHERE id = :account_id"
    mini_dict["tools"][1]["run"] = ["UPDATE accounts SET balance = balance - :amt"]
    spec = EnvironmentSpec.model_validate(mini_dict)
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(spec)
    reasons = [(r.stage, r.reason) for r in info.value.rejections]
    assert reasons == [
        ("static_sql", "sql_unknown_column"),
        ("static_sql", "sql_unknown_parameter"),
    ]
    assert "get_account.returns" in info.value.rejections[0].detail


def test_unportable_sql_is_caught_before_any_task(mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = (
        "SELECT id, unixepoch(:_now) AS second FROM accounts WHERE id = :account_id"
    )
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(EnvironmentSpec.model_validate(mini_dict))
    (r,) = info.value.rejections
    assert (r.stage, r.reason) == ("static_sql", "sql_not_portable")


def test_bad_seed_is_refused(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][0]["balance"] = -1
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(EnvironmentSpec.model_validate(mini_dict))
    stages = {(r.stage, r.reason) for r in info.value.rejections}
    assert stages == {("seed", "seed_constraint_violation")}


def test_verifier_stream_is_lazy(banking_spec: EnvironmentSpec, banking_tasks: list[Task]) -> None:
    with Verifier(banking_spec, cross_engine=False) as verifier:
        stream = verifier.verify_stream(iter(banking_tasks))
        assert verifier.report.stage("structure").seen == 0
        next(stream)
        assert verifier.report.stage("structure").seen == 1  # one item pulled, one seen


def test_a_rejection_from_parsing_is_counted_and_passed_on(mini_spec: EnvironmentSpec) -> None:
    bad_line = parse('{"id": "x",', "tasks.jsonl:2")
    assert isinstance(bad_line, Rejection)
    accepted, rejected, report = verify(mini_spec, [bad_line, mini_task()])
    assert [t.id for t in accepted] == ["t1"]
    assert rejected == [bad_line] and rejected[0].source == "tasks.jsonl:2"
    assert report.stage("structure").seen == 2 and report.stage("structure").passed == 1
    assert (report.accepted, report.rejected) == (1, 1)
    assert report.seconds > 0


def test_every_stage_runs_in_order_for_an_accepted_task(mini_spec: EnvironmentSpec) -> None:
    _, _, report = verify(mini_spec, [mini_task()])
    stages = [s.STAGE for s in ENVIRONMENT_STAGES] + [s.STAGE for s in TASK_STAGES]
    assert list(report.stages) == stages
    assert all((s.seen, s.passed) == (1, 1) for s in report.stages.values())


def test_a_rejected_task_stops_at_its_stage(mini_spec: EnvironmentSpec) -> None:
    task = mini_task(gold_calls=[{"name": "teleport", "arguments": {}}], communicate=[])
    _, (rejection,), report = verify(mini_spec, [task])
    assert rejection.stage == "structure"
    assert rejection.item == task.model_dump(mode="json", exclude_none=True)
    assert "replay" not in report.stages


def test_verify_environment_alone(mini_dict: dict) -> None:
    report = StageReport()
    assert verify_environment(EnvironmentSpec.model_validate(mini_dict), report) == []
    assert [(s.stage, s.seen, s.passed) for s in report.stages.values()] == [
        ("static_sql", 1, 1),
        ("seed", 1, 1),
    ]
    mini_dict["seed"]["accounts"][0]["balance"] = -1
    problems = verify_environment(EnvironmentSpec.model_validate(mini_dict))
    assert {(r.stage, r.reason) for r in problems} == {("seed", "seed_constraint_violation")}


def test_the_refusal_lists_twenty_problems_and_counts_the_rest() -> None:
    rejections = [
        Rejection(stage="static_sql", reason="sql_parse_error", detail=f"t{i}") for i in range(23)
    ]
    error = EnvironmentRejected(rejections)
    lines = error.detail.splitlines()
    assert lines[0] == "the environment fails 23 check(s):"
    assert lines[1] == "  [static_sql/sql_parse_error] t0"
    assert len(lines) == 22 and lines[-1] == "  … and 3 more"
    assert error.rejections == rejections and error.reason == "environment_rejected"


@pytest.mark.parametrize(
    "calls, level",
    [
        (["get_account"], "easy"),
        (["get_account", "withdraw", "get_account"], "medium"),
        (["withdraw", "withdraw", "withdraw"], "hard"),
        (["get_account"] * 5, "hard"),
    ],
)
def test_difficulty_follows_calls_and_writes(
    mini_spec: EnvironmentSpec, calls: list[str], level: str
) -> None:
    arguments = {"get_account": {"account_id": "A1"}, "withdraw": {"account_id": "A1", "amount": 1}}
    task = mini_task(
        gold_calls=[{"name": c, "arguments": arguments[c]} for c in calls], communicate=[]
    )
    with Environment(mini_spec) as env:
        run = env.replay(task.gold_calls)
        got = difficulty(task, env, run)
    writes = calls.count("withdraw")
    assert (got.level, got.n_calls, got.n_writes) == (level, len(calls), writes)
    assert got.n_distinct_tools == len(set(calls))
    assert (got.n_tables_changed, got.n_rows_changed) == ((1, 1) if writes else (0, 0))


def test_a_dedup_index_on_disk_spans_verifiers(mini_spec: EnvironmentSpec, tmp_path: Path) -> None:
    path = tmp_path / "dedup.sqlite"
    with Verifier(mini_spec, dedup_path=path) as verifier:
        assert verifier.verify(mini_task(id="a")).ok
    with Verifier(mini_spec, dedup_path=path) as verifier:
        again = verifier.verify(mini_task(id="b"))
    assert again.rejection is not None and again.rejection.reason == "duplicate_gold"
