"""The `evolved` task strategy: a harder variant of a verified task. Its gold calls are
replayed and the walk goes on from the state they leave (one or two more steps, using what
they returned, never calling a tool the parent's preference avoids); the parent's asks
stay and the new ones are added; a preference is added when the parent had none (more often
than for sampled tasks); the model rewrites the request to ask for all of it. The variant
goes through every validator like any other task."""

from __future__ import annotations

import random
from collections.abc import Collection

from generators.arguments import ArgumentSampler
from generators.preferences import sample_preference
from generators.sampled import no_chain, verbalized_task
from generators.sampling import walk
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient, Outcome
from toolscale.task import Task

STAGE = "evolved"  # the strategy's name, also its ledger stage
MAX_CALLS = 2  # calls a walk adds to its parent's
PREFERENCE_SHARE = 0.6  # of variants of a parent without a preference that get one


async def evolve_task(
    llm: LLMClient,
    brief: Brief,
    env: Environment,
    sampler: ArgumentSampler,
    parent: Task,
    task_id: str,
    rng: random.Random,
    sample: int,
    kept: Collection[str] = frozenset(),
) -> Outcome[Task]:
    avoid = frozenset(parent.preferences.avoid_tools) if parent.preferences else frozenset()
    chain = walk(
        env, sampler, rng, max_calls=MAX_CALLS, prefix=list(parent.gold_calls), avoid=avoid
    )
    if chain is None:
        return no_chain(llm, STAGE)
    chain.communicate = [*parent.communicate, *chain.communicate]
    preference = parent.preferences
    if preference is None:
        preference = sample_preference(
            rng, env.spec.tools, chain.calls, share=PREFERENCE_SHARE, lean=chain.lean(env)
        )
    return await verbalized_task(
        llm,
        brief,
        chain,
        task_id,
        sample,
        stage=STAGE,
        source="evolved",
        preference=preference,
        earlier=parent,
        kept=kept,
    )
