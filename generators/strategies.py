"""The task strategies, declared once: each has a name (also its ledger stage and its batch
files' prefix), a share of the tasks asked for, a budget, whether it needs verified parents,
and a proposer. Everything that runs strategies (target split, budgets, scheduling, the
CLI's choices) reads this registry instead of spelling names.

A work item is deterministic in its strategy and index (its random draws, its task id, its
parent), so a resumed run redoes exactly the requests that were lost, from the LLM cache.
"""

from __future__ import annotations

import math
import random
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from fractions import Fraction

from generators import evolution, intents, sampled, tasks
from generators.arguments import ArgumentSampler
from generators.config import GenerationConfig
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient, Outcome
from toolscale.reasons import GeneratorReason
from toolscale.report import Rejection
from toolscale.task import Task


@dataclass(frozen=True)
class StrategyContext:
    """What every proposer draws on; `env` is the walks' own sandbox (verification has its
    own)."""

    llm: LLMClient
    brief: Brief
    env: Environment
    sampler: ArgumentSampler
    config: GenerationConfig
    kept: set[str] = field(default_factory=set)  # gold_keys of the tasks kept so far


Draft = Callable[[StrategyContext, str, random.Random, int, list[Task]], Awaitable[Outcome[Task]]]


@dataclass(frozen=True)
class Strategy:
    name: str
    share: Fraction  # of the tasks left when its turn comes in split_targets
    budget_divisor: int  # divides the configured budget factor (which stays at least 1)
    needs_parents: bool  # works on verified tasks of the others; skipped while there are none
    draft: Draft  # (context, task id, rng, index, parents) -> the proposed task
    default: bool = True  # run when no strategies are named

    def task_id(self, domain: str, index: int) -> str:
        return f"{domain}-{self.name}-{index:05d}"

    async def propose(self, ctx: StrategyContext, index: int, parents: list[Task]) -> Outcome[Task]:
        """Work item `index`, seeded by domain, strategy and index; a generator bug becomes a
        counted `generator_error` rejection instead of stopping the run."""
        rng = random.Random(f"{ctx.brief.name}/{self.name}/{index}")
        task_id = self.task_id(ctx.brief.name, index)
        try:
            return await self.draft(ctx, task_id, rng, index, parents)
        except Exception as e:
            last = traceback.format_exception_only(e)[-1].strip()
            return Outcome(
                rejection=Rejection(
                    stage=self.name, reason=GeneratorReason.GENERATOR_ERROR, detail=last
                )
            )


async def _intent(
    ctx: StrategyContext, task_id: str, rng: random.Random, index: int, parents: list[Task]
) -> Outcome[Task]:
    share = intents.refusal_share(parents, ctx.config)  # the tasks kept when the run began
    return await intents.propose_intent_task(
        ctx.llm, ctx.brief, ctx.env, ctx.sampler, task_id, rng, index, share, kept=ctx.kept
    )


async def _sampled(
    ctx: StrategyContext, task_id: str, rng: random.Random, index: int, parents: list[Task]
) -> Outcome[Task]:
    return await sampled.propose_sampled_task(
        ctx.llm, ctx.brief, ctx.env, ctx.sampler, task_id, rng, index, kept=ctx.kept
    )


async def _llm(
    ctx: StrategyContext, task_id: str, rng: random.Random, index: int, parents: list[Task]
) -> Outcome[Task]:
    return await tasks.propose_llm_task(
        ctx.llm, ctx.brief, ctx.env, task_id, rng, index, ctx.config
    )


async def _evolved(
    ctx: StrategyContext, task_id: str, rng: random.Random, index: int, parents: list[Task]
) -> Outcome[Task]:
    parent = parents[index % len(parents)]
    return await evolution.evolve_task(
        ctx.llm, ctx.brief, ctx.env, ctx.sampler, parent, task_id, rng, index, kept=ctx.kept
    )


STRATEGIES = (  # in run order: evolution works on what the first three verified
    Strategy(
        name=intents.STAGE,
        share=Fraction(1),  # the first in run order takes what the others leave: the most
        budget_divisor=1,
        needs_parents=False,
        draft=_intent,
    ),
    Strategy(
        name=sampled.STAGE,
        share=Fraction(1, 4),
        budget_divisor=1,
        needs_parents=False,
        draft=_sampled,
        # opt-in: a walk from the seed names no person and reads like its calls; read one by
        # one, the 1.5B's sampled tasks were not valid ("activate course with ID 32838" from
        # a student, "reduce the seats of my flight and cancel the flight", a hotel location
        # told as the name of a city the seed does not hold): intent tasks start from a
        # person's purpose instead
        default=False,
    ),
    Strategy(
        name=tasks.STAGE,
        share=Fraction(1, 3),
        budget_divisor=2,  # an invented task costs a long answer and often repairs
        needs_parents=False,
        draft=_llm,
        # opt-in: on the embedded 1.5B model it kept 0 of 12 and 1 of 8 proposals and took
        # most of a run's time; a strong endpoint asks for it with --strategies
        default=False,
    ),
    Strategy(
        name=evolution.STAGE,
        share=Fraction(1, 5),
        budget_divisor=1,
        needs_parents=True,
        draft=_evolved,
        # opt-in: read one by one, 5 of the N=300 finance run's evolved tasks asked for no
        # write their gold made, or for another person's or another account's records
        # ("I noticed you mentioned freezing my client's profile", "find Caitlyn Gallegos
        # to complete my pending transfer"); the fidelity stages miss what a rewrite adds
        default=False,
    ),
)
STRATEGY_NAMES = tuple(s.name for s in STRATEGIES)
DEFAULT_STRATEGIES = tuple(s.name for s in STRATEGIES if s.default)


def check_strategies(names: tuple[str, ...]) -> tuple[Strategy, ...]:
    """The strategies named, in the order given; a ValueError lists the unknown names."""
    unknown = [s for s in names if s not in STRATEGY_NAMES] or ([] if names else ["(none)"])
    if unknown:
        raise ValueError(f"unknown {', '.join(unknown)}; choose from {', '.join(STRATEGY_NAMES)}")
    return tuple(next(s for s in STRATEGIES if s.name == name) for name in names)


def split_targets(n_tasks: int, names: tuple[str, ...]) -> dict[str, int]:
    """How many verified tasks each chosen strategy should bring. Going through the chosen
    ones against run order, each takes its share (rounded down) of what is left and the
    first in run order takes the rest: evolution a fifth, the LLM strategy a third of the
    rest, sampling a quarter of what is left, intent the remainder; a strategy alone takes
    all."""
    targets = dict.fromkeys(names, 0)
    chosen = [s for s in reversed(STRATEGIES) if s.name in targets]
    left = n_tasks
    for s in chosen[:-1]:
        targets[s.name] = math.floor(left * s.share)
        left -= targets[s.name]
    if chosen:
        targets[chosen[-1].name] = left
    return targets
