"""The solver check on the banking sandbox: kept when an agent solves it, rejected with the
reason and what went wrong when none of k episodes does, never kept when the agent's
endpoint fails; its episodes are charged to the ledger."""

from __future__ import annotations

import asyncio

import pytest

from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.trajectory import Message, Trajectory
from trainer.episode import Turn
from trainer.oracle import OraclePolicy
from trainer.solver import SolverCheck


class Mute:
    def __init__(self) -> None:
        self.calls = 0

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        self.calls += 1
        said = Message(role="assistant", content="Sorry.")
        return Turn(message=said, prompt_tokens=1000, completion_tokens=10)


def check(solver: SolverCheck, spec: EnvironmentSpec, task: Task) -> Rejection | None:
    return asyncio.run(solver.check(spec, task, Trajectory(messages=[])))


def test_a_task_the_agent_solves_is_kept_and_charged(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    ledger = Ledger()
    solver = SolverCheck(lambda: OraclePolicy(verified), 3, 10, ledger, 1.0, 2.0)
    assert check(solver, banking_spec, verified[0]) is None
    assert ledger.stage("solver").calls == len(verified[0].gold_calls) + 1  # one try


def test_a_task_no_episode_solves_is_rejected_with_what_went_wrong(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    ledger, mute = Ledger(), Mute()
    solver = SolverCheck(lambda: mute, 3, 10, ledger, price_in=1.0, price_out=2.0)
    task = next(
        t for t in verified if t.expected and (t.expected.communicate or not t.expected.diff.empty)
    )
    rejection = check(solver, banking_spec, task)
    assert rejection is not None and (rejection.stage, rejection.reason) == ("solver", "unsolved")
    assert rejection.task_id == task.id and "none of 3 episode(s) solved it" in rejection.detail
    assert mute.calls == 3
    usage = ledger.stage("solver")
    assert (usage.prompt_tokens, usage.completion_tokens) == (3000, 30)
    assert usage.cost_usd == pytest.approx((3000 * 1.0 + 30 * 2.0) / 1e6)


def test_an_endpoint_that_fails_rejects_the_task(
    banking_spec: EnvironmentSpec, verified: list[Task]
) -> None:
    class Down:
        def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
            raise ConnectionError("refused")

    ledger = Ledger()
    rejection = check(SolverCheck(Down, 2, 10, ledger), banking_spec, verified[0])
    assert rejection is not None and rejection.reason == "solver_unavailable"
    assert "ConnectionError: refused" in rejection.detail
    assert ledger.stage("solver").failures == {"solver_unavailable": 1}
