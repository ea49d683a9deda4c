"""Rewards on hand-computed groups: the signs ToolOrchestra's released code gets wrong."""

from __future__ import annotations

import math

import pytest

from toolscale.environment import Evaluation
from toolscale.task import Preference
from trainer.episode import Episode, Stop
from trainer.helpers import HelperCall
from trainer.rewards import Prices, RewardConfig, advantages, efficiency, group_rewards

FREE = RewardConfig(prices=Prices(policy_per_mtok=0.0, policy_ms_per_token=0.0))


def rollout(
    solved: bool = True,
    price: float = 0.01,
    latency: float = 100.0,
    tools: dict[str, int] | None = None,
    stop: Stop = "answer",
    task: str = "t1",
) -> Episode:
    return Episode(
        task_id=task,
        domain="bank",
        messages=[],
        evaluation=Evaluation(
            success=solved, state_match=solved, communicated=1.0, price=price, latency_ms=latency
        ),
        stop=stop,
        calls_per_tool=tools if tools is not None else {"get_account": 1},
    )


def test_efficiency_counts_tools_other_models_and_the_policys_own_tokens() -> None:
    episode = rollout(price=0.003, latency=200.0)
    episode.helper_calls = [HelperCall(tool="ask_big", content="", cost=0.01, latency_ms=500.0)]
    episode.completion_tokens = 1000
    e = efficiency(episode, Prices(policy_per_mtok=2.0, policy_ms_per_token=5.0))
    assert e.cost == pytest.approx(0.003 + 0.01 + 0.002)
    assert e.latency_ms == pytest.approx(200 + 500 + 5000)


def test_the_cheaper_of_two_solving_rollouts_scores_higher_and_a_failure_scores_zero() -> None:
    """P = (accuracy 1, cost 1) -> cost weight 0.5; -cost normalised: dear 0, cheap 1;
    latency and tool counts are equal, so they rank nothing."""
    dear, cheap, failed = rollout(price=0.02), rollout(price=0.01), rollout(solved=False, price=0.0)
    rewards = group_rewards([dear, cheap, failed], Preference(accuracy=1, cost=1), FREE)
    assert [r.preference for r in rewards] == [0.0, 0.5, 0.0]
    assert [r.total for r in rewards] == [1.0, 1.25, 0.0]  # 1 * (1 + 0.5 * pref)
    assert [r.efficiency for r in rewards] == [0.0, 0.5, 0.0]
    adv = advantages(rewards, FREE)
    std = math.sqrt((0.25**2 + 0.5**2 + 0.75**2) / 3)  # rewards 1, 1.25, 0; mean 0.75
    assert adv == pytest.approx([0.25 / std, 0.5 / std, -0.75 / std], rel=1e-5)


def test_the_quicker_scores_higher_under_a_latency_preference() -> None:
    slow, quick = rollout(latency=900.0), rollout(latency=100.0)
    rewards = group_rewards([slow, quick], Preference(accuracy=1, latency=1), FREE)
    assert rewards[1].total > rewards[0].total


def test_avoiding_an_avoided_tool_scores_higher_even_when_the_other_never_called_it() -> None:
    """The rollout that never called the tool counts 0 calls (ToolOrchestra's minimum
    skipped it, so max = min and the feature ranked nothing)."""
    used = rollout(tools={"get_account": 1, "ask_big": 1})
    avoided = rollout(tools={"get_account": 1})
    prefs = Preference(accuracy=1, avoid_tools=["ask_big"])
    r_used, r_avoided = group_rewards([used, avoided], prefs, FREE)
    assert (r_used.tools, r_avoided.tools) == (-1.0, 0.0)
    assert (r_used.total, r_avoided.total) == (0.5, 1.0)
    preferred = group_rewards([used, avoided], Preference(prefer_tools=["ask_big"]), FREE)
    assert preferred[0].total > preferred[1].total


def test_a_task_without_a_preference_uses_the_default_one() -> None:
    dear, cheap = rollout(price=0.02), rollout(price=0.01)
    rewards = group_rewards([dear, cheap], None, FREE)
    assert rewards[1].total > rewards[0].total  # the default weighs cost 0.2 of 1.3


def test_invalid_rollouts_get_no_gradient_and_flat_groups_are_dropped() -> None:
    ok, broken, failed = (
        rollout(),
        rollout(solved=False, stop="invalid_format"),
        rollout(solved=False),
    )
    rewards = group_rewards([ok, broken, failed], None, FREE)
    assert [r.valid for r in rewards] == [True, False, True]
    adv = advantages(rewards, FREE)
    assert adv is not None and adv[1] == 0.0 and adv[0] == pytest.approx(1.0, rel=1e-5)
    assert advantages(group_rewards([rollout(), rollout()], None, FREE), FREE) is None
    assert advantages(group_rewards([rollout(solved=False)] * 3, None, FREE), FREE) is None


def test_advantages_are_clipped() -> None:
    group = [rollout()] + [rollout(solved=False) for _ in range(30)]
    adv = advantages(group_rewards(group, None, FREE), FREE)
    assert adv is not None and adv[0] == 3.0


def test_a_group_holds_one_task() -> None:
    with pytest.raises(ValueError, match="one task"):
        group_rewards([rollout(task="a"), rollout(task="b")], None, FREE)
