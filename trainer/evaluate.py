"""Evaluation: any agent over a split, k trials per task, scored as tau2-bench scores.

pass^j for j = 1..k is tau2's: per task, C(successes, j) / C(trials, j), averaged over
tasks; it falls as j grows when an agent is right only some of the time. Beside it:
per domain and difficulty, mean cost, latency, turns and invalid calls, and for every
failed trial the state diff against the expected one and the values it did not tell.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor, as_completed
from math import comb

from pydantic import BaseModel, ConfigDict, Field

from toolscale.environment import Environment
from toolscale.schema import Scalar
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.trajectory import Trajectory
from trainer.data import Split
from trainer.episode import Episode, Policy, Stop, run_episode
from trainer.helpers import Helper
from trainer.rewards import Prices, efficiency


class Trial(BaseModel):
    """One episode of one task, as written to the results file."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    domain: str
    difficulty: str
    trial: int
    success: bool
    state_match: bool
    communicated: float
    missing: list[Scalar] = Field(default_factory=list)
    diff: str = Field(default="", description="expected vs reached, for a wrong final state")
    stop: Stop
    answer: str = Field(default="", description="the agent's last words, cut at 500 characters")
    turns: int = 0
    n_calls: int = 0
    invalid_calls: int = 0
    failed_calls: int = 0
    cost: float = 0.0
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float
    error: str | None = Field(default=None, description="the agent's endpoint failed")


class Scores(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: int
    trials: int
    pass_hat: dict[int, float] = Field(description="pass^j for j = 1..k")
    mean_cost: float
    mean_latency_ms: float
    mean_turns: float
    invalid_calls: int
    errors: int


class EvalReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str
    k: int
    overall: Scores
    by_domain: dict[str, Scores]
    by_difficulty: dict[str, Scores]
    seconds: float


def pass_hat(successes: int, trials: int, j: int) -> float:
    """tau2-bench's pass^j of one task: the chance that j trials drawn from its n all
    succeed."""
    if not 1 <= j <= trials:
        raise ValueError(f"pass^{j} needs 1 <= j <= trials ({trials})")
    return comb(successes, j) / comb(trials, j)


def scores(trials: list[Trial], k: int) -> Scores:
    per_task: dict[str, list[Trial]] = defaultdict(list)
    for t in trials:
        per_task[t.task_id].append(t)
    hats = {
        j: sum(pass_hat(sum(t.success for t in ts), len(ts), j) for ts in per_task.values())
        / len(per_task)
        for j in range(1, k + 1)
    }
    n = len(trials)
    return Scores(
        tasks=len(per_task),
        trials=n,
        pass_hat=hats,
        mean_cost=sum(t.cost for t in trials) / n,
        mean_latency_ms=sum(t.latency_ms for t in trials) / n,
        mean_turns=sum(t.turns for t in trials) / n,
        invalid_calls=sum(t.invalid_calls for t in trials),
        errors=sum(t.error is not None for t in trials),
    )


def report(model: str, trials: list[Trial], k: int, seconds: float) -> EvalReport:
    def grouped(key: Callable[[Trial], str]) -> dict[str, Scores]:
        groups: dict[str, list[Trial]] = defaultdict(list)
        for t in trials:
            groups[key(t)].append(t)
        return {name: scores(ts, k) for name, ts in sorted(groups.items())}

    return EvalReport(
        model=model,
        k=k,
        overall=scores(trials, k),
        by_domain=grouped(lambda t: t.domain),
        by_difficulty=grouped(lambda t: t.difficulty),
        seconds=seconds,
    )


def trial_of(episode: Episode, level: str, n: int, seconds: float, prices: Prices) -> Trial:
    ev = episode.evaluation
    spent = efficiency(episode, prices)
    return Trial(
        task_id=episode.task_id,
        domain=episode.domain,
        difficulty=level,
        trial=n,
        success=episode.solved,
        state_match=ev.state_match,
        communicated=ev.communicated,
        missing=ev.missing,
        diff=ev.diff.summary() if not ev.state_match else "",
        stop=episode.stop,
        answer=Trajectory(messages=episode.messages).final_answer()[:500],
        turns=ev.turns,
        n_calls=ev.n_calls,
        invalid_calls=ev.invalid_calls,
        failed_calls=ev.failed_calls,
        cost=spent.cost,
        latency_ms=spent.latency_ms,
        prompt_tokens=episode.prompt_tokens,
        completion_tokens=episode.completion_tokens,
        seconds=seconds,
    )


def _failed_trial(task: Task, level: str, n: int, error: str, seconds: float) -> Trial:
    """A trial the agent's endpoint ended: scored as a failure that names it."""
    return Trial(
        task_id=task.id,
        domain=task.domain,
        difficulty=level,
        trial=n,
        success=False,
        state_match=False,
        communicated=0.0,
        stop="turn_limit",
        seconds=seconds,
        error=error,
    )


class _Environments(threading.local):
    """One sandbox per environment per thread: SQLite connections stay on their thread."""

    def __init__(self) -> None:
        self.open: dict[str, Environment] = {}


def run_trials(
    split: Split,
    policy: Callable[[], Policy],
    k: int,
    max_turns: int = 30,
    workers: int = 4,
    helpers: Mapping[str, Helper] | None = None,
    prices: Prices | None = None,
) -> Iterator[Trial]:
    """Every task k times, `workers` episodes at a time; trials come back as they finish.
    An endpoint failure is a failed trial that names it, not the end of the run."""
    prices = prices or Prices()
    local = _Environments()
    opened: list[Environment] = []
    lock = threading.Lock()

    def environment(env_id: str, spec: EnvironmentSpec) -> Environment:
        env = local.open.get(env_id)
        if env is None:
            env = local.open[env_id] = Environment(spec)
            with lock:
                opened.append(env)
        return env

    def one(task: Task, n: int) -> Trial:
        env_id, spec = split.environment(task)
        level = split.level(task)
        started = time.perf_counter()
        try:
            episode = run_episode(environment(env_id, spec), task, policy(), max_turns, helpers)
        except Exception as e:  # an endpoint failure ends this trial only; it is named
            return _failed_trial(
                task, level, n, f"{type(e).__name__}: {e}", time.perf_counter() - started
            )
        return trial_of(episode, level, n, time.perf_counter() - started, prices)

    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            futures = [pool.submit(one, task, n) for task in split.tasks for n in range(k)]
            try:
                for done in as_completed(futures):
                    yield done.result()
            finally:  # an interrupted run starts no more episodes
                for f in futures:
                    f.cancel()
    finally:
        for env in opened:
            env.close()
