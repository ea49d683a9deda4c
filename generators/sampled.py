"""The `sampled` task strategy, sample-then-verbalize: a chain of calls walked in a live
sandbox (generators/sampling.py) is put into the user's words by the model
(generators/verbalize.py). `verbalized_task` is the step it shares with evolution, which
walks on from a verified task instead of from the seed."""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import Literal

from generators.arguments import ArgumentSampler
from generators.preferences import sample_preference, with_preference
from generators.sampling import Chain, walk
from generators.verbalize import verbalize
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient, Outcome
from toolscale.reasons import DedupReason, GeneratorReason
from toolscale.report import Rejection
from toolscale.task import GoldCall, Preference, Provenance, Task, gold_key

STAGE = "sampled"  # the strategy's name, also its ledger stage
MAX_CALLS = 3  # calls a walk from the seed may take
PREFERENCE_SHARE = 0.3  # of sampled tasks that state a preference


def no_chain(llm: LLMClient, stage: str) -> Outcome[Task]:
    """No walk of successful calls was found: counted in the ledger, rejected."""
    llm.ledger.fail(stage, GeneratorReason.NO_CHAIN)
    return Outcome(
        rejection=Rejection(
            stage=stage,
            reason=GeneratorReason.NO_CHAIN,
            detail="no walk of successful calls was found",
        )
    )


async def verbalized_task(
    llm: LLMClient,
    brief: Brief,
    chain: Chain,
    task_id: str,
    sample: int,
    *,
    stage: str,
    source: Literal["sampled", "evolved", "intent"],
    preference: Preference | None,
    earlier: Task | None = None,
    kept: Collection[str] = frozenset(),
) -> Outcome[Task]:
    """The chain as a task: the model writes the request (rewriting `earlier`'s when there is
    one), a preference is stated in it, and the gold calls are the chain's. A chain whose
    gold a kept task has (`kept`: their `gold_key`s) is not worded: the dedup stage would
    refuse it whatever its words (finance's N=300 run spent 16 of its first 220 drafts so)."""
    gold = [
        GoldCall(name=c.name, arguments=c.arguments, expect_error=chain.errors.get(i))
        for i, c in enumerate(chain.calls)
    ]
    if gold_key(gold) in kept:
        return Outcome(
            rejection=Rejection(
                stage="dedup",
                reason=DedupReason.DUPLICATE_GOLD,
                detail="the same gold call sequence as a kept task (found before it was worded)",
            )
        )
    words = await verbalize(
        llm, brief.name, chain, earlier.instruction if earlier else None, sample, stage=stage
    )
    if not words.ok or words.value is None:
        return Outcome(rejection=words.rejection, attempts=words.attempts, raw=words.raw)
    v = words.value
    instruction = v.instruction
    if preference is not None and preference.statement not in instruction:
        instruction = with_preference(instruction, preference)
    task = Task(
        id=task_id,
        domain=brief.name,
        instruction=instruction,
        known_facts=v.known_facts,
        gold_calls=gold,
        communicate=chain.communicate,
        preferences=preference,
        provenance=Provenance(
            source=source,
            model=llm.config.model,
            prompt="verbalize.j2",
            seed=sample,
            parent=earlier.id if earlier else None,
            facts_completed=v.completed,
        ),
    )
    return Outcome(value=task, attempts=words.attempts, raw=words.raw)


async def propose_sampled_task(
    llm: LLMClient,
    brief: Brief,
    env: Environment,
    sampler: ArgumentSampler,
    task_id: str,
    rng: random.Random,
    sample: int,
    kept: Collection[str] = frozenset(),
) -> Outcome[Task]:
    """Walk a chain from the seed, then put it into words."""
    chain = walk(env, sampler, rng, max_calls=MAX_CALLS)
    if chain is None:
        return no_chain(llm, STAGE)
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
        source="sampled",
        preference=preference,
        kept=kept,
    )
