"""The verifier on a thread of its own: verdicts with the gold trajectory, awaited from an
event loop; dedup seeded with what earlier runs committed."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from tests.conftest import mini_task
from toolscale.matching import mentions
from toolscale.report import Result, StageReport
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.trajectory import Trajectory
from validators.pipeline import EnvironmentRejected
from validators.worker import VerifyWorker


def verdicts(worker: VerifyWorker, *tasks: Task) -> list[Result[tuple[Task, Trajectory]]]:
    async def main() -> list[Result[tuple[Task, Trajectory]]]:
        return list(await asyncio.gather(*(worker.verify(t) for t in tasks)))

    return asyncio.run(main())


def test_a_verified_task_comes_with_its_gold_trajectory(mini_spec: EnvironmentSpec) -> None:
    report = StageReport()
    with VerifyWorker(mini_spec, report, []) as worker:
        (result,) = verdicts(worker, mini_task())
        assert worker.report is report
    assert result.value is not None
    task, trajectory = result.value
    assert task.expected is not None and task.expected.communicate == [70]
    # the policy, the request, the ask to confirm the withdrawal and its yes, the call and
    # its output, the answer
    assert [m.role for m in trajectory.messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert mentions(trajectory.final_answer(), 70)
    assert (report.accepted, report.stage("dedup").passed) == (1, 1)


def test_a_rejected_task_comes_back_as_its_rejection(mini_spec: EnvironmentSpec) -> None:
    ghost = mini_task(
        id="ghost", gold_calls=[{"name": "teleport", "arguments": {}}], communicate=[]
    )
    with VerifyWorker(mini_spec, StageReport(), []) as worker:
        good, bad = verdicts(worker, mini_task(), ghost)
    assert good.ok and bad.value is None
    assert bad.rejection is not None and (bad.rejection.task_id, bad.rejection.reason) == (
        "ghost",
        "unknown_tool",
    )


def test_committed_tasks_are_known_to_dedup(mini_spec: EnvironmentSpec) -> None:
    with VerifyWorker(mini_spec, StageReport(), []) as first:
        ((done, _),) = [r.value for r in verdicts(first, mini_task(id="earlier")) if r.value]
    with VerifyWorker(mini_spec, StageReport(), [done]) as worker:
        (again,) = verdicts(worker, mini_task(id="later"))
    assert again.rejection is not None and again.rejection.reason == "duplicate_gold"
    assert "'earlier'" in again.rejection.detail


def test_tasks_are_verified_on_the_workers_thread(
    mini_spec: EnvironmentSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    with VerifyWorker(mini_spec, StageReport(), []) as worker:
        verify = worker._verifier.verify

        def recorded(task: Any) -> Any:
            threads.append(threading.current_thread().name)
            return verify(task)

        monkeypatch.setattr(worker._verifier, "verify", recorded)
        verdicts(worker, mini_task(id="a"), mini_task(id="b"))
    assert len(threads) == 2 and len(set(threads)) == 1
    assert threads[0].startswith("verify") and threads[0] != threading.current_thread().name


def test_a_rejected_environment_fails_the_worker(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][0]["balance"] = -1
    with pytest.raises(EnvironmentRejected):
        VerifyWorker(EnvironmentSpec.model_validate(mini_dict), StageReport(), [])
