"""The strategy registry: the target split it drives is exactly the one the names used to
spell out, and the CLI's and the flow's strategy check reads it."""

from __future__ import annotations

import asyncio
import dataclasses
import random
from itertools import combinations, permutations
from typing import Any

import pytest
import yaml

from generators.config import DEFAULT_CONFIG
from generators.strategies import (
    DEFAULT_STRATEGIES,
    STRATEGIES,
    STRATEGY_NAMES,
    StrategyContext,
    check_strategies,
    split_targets,
)
from toolscale.brief import Brief
from toolscale.testing.fakedomain import BRIEF


def spelled_out_split(n_tasks: int, strategies: tuple[str, ...]) -> dict[str, int]:
    """The split spelled out by name: the oracle."""
    targets = dict.fromkeys(strategies, 0)
    left = n_tasks
    if "evolved" in targets and len(targets) > 1:
        targets["evolved"] = n_tasks // 5
        left -= targets["evolved"]
    if "llm" in targets and ("sampled" in targets or "intent" in targets):
        targets["llm"] = left // 3
        left -= targets["llm"]
    if "sampled" in targets and "intent" in targets:
        targets["sampled"] = left // 4
        left -= targets["sampled"]
    first = next(n for n in ("intent", "sampled", "llm", "evolved") if n in targets)
    targets[first] = left
    return targets


def test_split_targets_matches_the_spelled_out_split_for_every_choice() -> None:
    subsets = [c for k in range(1, 5) for c in combinations(STRATEGY_NAMES, k)]
    for n in range(61):
        for subset in subsets:
            for order in permutations(subset):
                got = split_targets(n, order)
                assert got == spelled_out_split(n, order), (n, order)
                assert list(got) == list(order) and sum(got.values()) == n


def test_registry_is_in_run_order_and_the_check_keeps_the_order_given() -> None:
    assert STRATEGY_NAMES == ("intent", "sampled", "llm", "evolved")
    assert DEFAULT_STRATEGIES == ("intent",)  # sampled, llm and evolved: opt-in
    assert [s.name for s in check_strategies(("evolved", "sampled"))] == ["evolved", "sampled"]
    assert [s.needs_parents for s in STRATEGIES] == [False, False, False, True]
    known = "intent, sampled, llm, evolved"
    with pytest.raises(ValueError, match=f"unknown bogus; choose from {known}"):
        check_strategies(("sampled", "bogus"))
    with pytest.raises(ValueError, match="unknown"):
        check_strategies(())


def test_a_work_item_is_seeded_and_named_by_its_index_and_a_bug_is_a_rejection() -> None:
    seen = []

    async def draft(ctx: Any, task_id: str, rng: random.Random, index: int, parents: Any) -> Any:
        seen.append((task_id, rng.random()))
        raise KeyError("oops")

    llm = dataclasses.replace(next(s for s in STRATEGIES if s.name == "llm"), draft=draft)
    brief = Brief.model_validate(yaml.safe_load(BRIEF))
    nothing: Any = None  # the draft uses none of the rest
    ctx = StrategyContext(
        llm=nothing, brief=brief, env=nothing, sampler=nothing, config=DEFAULT_CONFIG
    )
    outcome = asyncio.run(llm.propose(ctx, 7, []))
    assert outcome.value is None and outcome.rejection is not None
    assert (outcome.rejection.stage, outcome.rejection.reason) == ("llm", "generator_error")
    assert "KeyError: 'oops'" in outcome.rejection.detail
    assert seen == [("library-llm-00007", random.Random("library/llm/7").random())]


def test_split_targets_of_the_default_choice() -> None:
    assert split_targets(10, ("intent", "sampled", "llm", "evolved")) == {
        "intent": 5,
        "sampled": 1,
        "llm": 2,
        "evolved": 2,
    }
    assert split_targets(10, ("sampled", "llm", "evolved")) == {
        "sampled": 6,
        "llm": 2,
        "evolved": 2,
    }
    assert split_targets(5, ("sampled",)) == {"sampled": 5}
    assert sum(split_targets(37, ("sampled", "llm", "evolved")).values()) == 37
