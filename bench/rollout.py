"""What an episode costs besides the model: sandbox time per tool call, and the share of
an episode's wall time spent outside the policy, against a fake policy that answers
with the gold after a fixed latency (a stand-in for a model server).

    python bench/rollout.py [--episodes 40] [--latency-ms 200] [--scale 1]

Targets (issue 10): under 1 ms of sandbox time per tool call; under 5% of an episode's
wall time outside the model. Prints a table and ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from rich.console import Console
from rich.table import Table

from flows.sample import banking_tasks
from toolscale.environment import Environment
from toolscale.task import Task
from toolscale.testing.banking import build_environment
from toolscale.trajectory import Message
from trainer.episode import Turn, run_episode
from trainer.oracle import OraclePolicy
from validators.pipeline import verify


class SlowOracle(OraclePolicy):
    """The oracle, taking `latency_s` per turn as a model server would."""

    def __init__(self, tasks: list[Task], latency_s: float):
        super().__init__(tasks)
        self.latency_s = latency_s

    def reply(self, messages: list[Message], tools: list[dict]) -> Turn:
        started = time.perf_counter()
        time.sleep(self.latency_s)
        turn = super().reply(messages, tools)
        return turn.model_copy(update={"seconds": time.perf_counter() - started})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--episodes", type=int, default=40)
    p.add_argument(
        "--latency-ms", type=float, default=200.0, help="the fake policy's time per turn"
    )
    p.add_argument("--scale", type=int, default=1, help="banking environment size (1: 1,220 rows)")
    args = p.parse_args()

    spec = build_environment(scale=args.scale)
    tasks, _, _ = verify(spec, banking_tasks(), cross_engine=False)
    policy = SlowOracle(tasks, args.latency_ms / 1000)
    per_call: list[float] = []
    outside: list[float] = []
    walls: list[float] = []
    calls = solved = 0
    with Environment(spec) as env:
        for i in range(args.episodes):
            task = tasks[i % len(tasks)]
            started = time.perf_counter()
            episode = run_episode(env, task, policy)
            wall = time.perf_counter() - started
            walls.append(wall)
            outside.append((wall - episode.policy_seconds) / wall)
            # sandbox_seconds holds the calls and the scoring replay: per call, both together
            per_call.append(1000 * episode.sandbox_seconds / max(1, episode.sandbox_calls))
            calls += episode.sandbox_calls
            solved += episode.solved

    figures = {
        "episodes": args.episodes,
        "tool_calls": calls,
        "solved": solved,
        "sandbox_ms_per_call_median": round(statistics.median(per_call), 3),
        "sandbox_ms_per_call_p90": round(sorted(per_call)[int(0.9 * (len(per_call) - 1))], 3),
        "outside_model_share_mean": round(statistics.fmean(outside), 4),
        "outside_model_share_max": round(max(outside), 4),
        "episode_s_mean": round(statistics.fmean(walls), 3),
        "policy_latency_ms": args.latency_ms,
        "seed_rows": sum(len(rows) for rows in spec.seed.values()),
    }
    table = Table(title="rollout overhead (banking, oracle policy with fixed latency)")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_column("target", justify="right")
    targets = {"sandbox_ms_per_call_median": "< 1", "outside_model_share_mean": "< 0.05"}
    for name, value in figures.items():
        table.add_row(name, str(value), targets.get(name, ""))
    Console(stderr=True).print(table)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
