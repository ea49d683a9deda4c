"""The solver check: a task is kept only if an agent model solves it in its sandbox.

ToolOrchestra's paper keeps tasks "solved by some model within pass@8" and released no
code for it. Here it is the eval's episode runner on one task: up to k episodes of the
agent (the generation endpoint unless another is given), stopping at the first success.
A task nobody solves may be wrongly worded, or too hard for the agent; either way it is
rejected with stage `solver`, reason `unsolved`, and the last episode's state diff and
untold values as the detail. What the episodes cost is recorded in the run's ledger.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from toolscale.environment import Environment
from toolscale.llm.ledger import Ledger
from toolscale.reasons import SolverReason
from toolscale.report import Rejection
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.trajectory import Trajectory
from trainer.episode import Episode, Policy, run_episode

STAGE = "solver"


def _why(episode: Episode, k: int) -> str:
    ev = episode.evaluation
    said = f"none of {k} episode(s) solved it; the last stopped at {episode.stop}"
    if not ev.state_match:
        said += f", state differs: {ev.diff.summary()}"
    if ev.missing:
        said += f", values not told: {ev.missing}"
    return said


class SolverCheck:
    def __init__(
        self,
        policy: Callable[[], Policy],
        k: int,
        max_turns: int,
        ledger: Ledger,
        price_in: float = 0.0,
        price_out: float = 0.0,
    ):
        self.policy, self.k, self.max_turns, self.ledger = policy, k, max_turns, ledger
        self.price_in, self.price_out = price_in, price_out

    def _episodes(self, spec: EnvironmentSpec, task: Task, played: list[Episode]) -> None:
        """Into `played` as each ends, so what was spent before a failure is still charged."""
        with Environment(spec) as env:
            for _ in range(self.k):
                played.append(run_episode(env, task, self.policy(), self.max_turns))
                if played[-1].solved:
                    return

    def _record(self, episodes: list[Episode]) -> None:
        usage = self.ledger.stage(STAGE)
        for e in episodes:
            usage.calls += e.evaluation.turns
            usage.prompt_tokens += e.prompt_tokens
            usage.completion_tokens += e.completion_tokens
            usage.cost_usd += (
                e.prompt_tokens * self.price_in + e.completion_tokens * self.price_out
            ) / 1e6
            usage.seconds += e.policy_seconds

    async def check(
        self, spec: EnvironmentSpec, task: Task, trajectory: Trajectory
    ) -> Rejection | None:
        """None when some episode solved the task (its gold trajectory is not needed: the
        agent finds its own way)."""
        episodes: list[Episode] = []
        try:
            await asyncio.to_thread(self._episodes, spec, task, episodes)
        except Exception as e:  # the endpoint: the task is not kept unchecked
            self._record(episodes)
            self.ledger.fail(STAGE, SolverReason.SOLVER_UNAVAILABLE)
            return Rejection(
                stage=STAGE,
                reason=SolverReason.SOLVER_UNAVAILABLE,
                detail=f"{type(e).__name__}: {e}",
                task_id=task.id,
            )
        self._record(episodes)
        if episodes[-1].solved:
            return None
        return Rejection(
            stage=STAGE,
            reason=SolverReason.UNSOLVED,
            detail=_why(episodes[-1], self.k),
            task_id=task.id,
        )
