"""Walks: real calls in a sandbox whose arguments the user states or earlier outputs give."""

from __future__ import annotations

import random
from typing import Any

from generators.arguments import ArgumentSampler
from generators.sampling import Chain, walk
from tests.generators.library import (
    Library,
)
from toolscale.environment import Environment
from toolscale.matching import scalars
from toolscale.spec import EnvironmentSpec
from toolscale.task import OutputRef
from toolscale.tool import ToolCall
from validators.replay import resolve


def test_walks_replay_state_their_facts_and_resolve_what_they_tell(
    lib: Library, env: Environment
) -> None:
    sampler = ArgumentSampler(lib.spec)
    writes = 0
    for seed in range(12):
        chain = walk(env, sampler, random.Random(seed))
        assert chain is not None
        assert chain.start == 0 and 1 <= len(chain.calls) <= 3
        run = env.replay(chain.calls)
        assert all(r.ok for r in run.results), [r.error for r in run.results]
        assert [r.output for r in run.results] == [r.output for r in chain.results]
        said = {v for _, v in chain.facts}
        for i, call in enumerate(chain.calls):
            earlier = {v for r in chain.results[:i] for v in scalars(r.output)}
            for name, value in call.arguments.items():
                assert value in said or value in earlier, (seed, i, name, value)
        for ref in chain.communicate:  # a telling value: not a key, not what the user said
            value = resolve(ref, run)
            assert value is not None and value not in said
            assert not ref.path.endswith("_id") and ref.path.split(".")[-1] in chain.wanted
        assert len(chain.wanted) == len(chain.communicate)
        wrote = any(lib.spec.tool(c.name).kind == "write" for c in chain.calls)
        writes += wrote
        assert wrote or chain.communicate
    assert writes > 0


def test_walk_is_the_same_for_the_same_seed(lib: Library, env: Environment) -> None:
    def chain_of(seed: int) -> tuple[Any, ...]:
        with Environment(lib.spec) as fresh:
            chain = walk(fresh, ArgumentSampler(lib.spec), random.Random(seed))
        assert chain is not None
        return (
            [c.key() for c in chain.calls],
            chain.facts,
            chain.communicate,
            chain.wanted,
        )

    assert chain_of(5) == chain_of(5)
    again = walk(env, ArgumentSampler(lib.spec), random.Random(5))
    assert again is not None and [c.key() for c in again.calls] == chain_of(5)[0]
    assert len({str(chain_of(s)) for s in range(6)}) > 1


def test_a_chain_with_a_read_a_lighter_one_makes_is_not_lean(banking_spec: EnvironmentSpec) -> None:
    """Medicine on fdf189b stated "keep this as cheap as possible" over a listing whose
    cheaper twin gave the same appointment: a chain is lean only where no lighter read with
    the same arguments gives what it uses, so no cost or latency words are sampled for it."""
    dear = ToolCall(name="get_account", arguments={"account_id": "A20001"})
    cheap = ToolCall(name="get_balance", arguments={"account_id": "A20001"})
    told = [OutputRef(call=0, path="balance")]
    with Environment(banking_spec) as env:
        for call, lean in ((dear, False), (cheap, True)):
            chain = Chain([call], env.replay([call]).results, communicate=told)
            assert chain.lean(env) is lean, call.name
