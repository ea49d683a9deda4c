"""Task evolution: a harder variant of a verified task. Its gold calls are replayed, the walk
goes on from the state they leave (one or two more steps, using what they returned), a
preference is added when the parent had none, and the LLM rewrites the request to ask
for all of it. The variant goes through every validator like any other task."""

from __future__ import annotations

import random

from generators.arguments import ArgumentSampler
from generators.tasks import propose_sampled_task
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient, Outcome
from toolscale.task import Task


async def evolve_task(
    llm: LLMClient,
    brief: Brief,
    env: Environment,
    sampler: ArgumentSampler,
    parent: Task,
    task_id: str,
    rng: random.Random,
    sample: int,
) -> Outcome[Task]:
    return await propose_sampled_task(llm, brief, env, sampler, task_id, rng, sample, parent)
