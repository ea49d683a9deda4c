"""Rewards of a group of rollouts of one task: outcome, efficiency, preference.

ToolOrchestra's recipe, with its released code's sign and counting bugs left out:

- outcome: 1 when the episode solved the task (`Environment.evaluate`: final state hash
  and every value the user must be told), else 0; a rollout whose calls could not be
  read (invalid format) is not solved.
- efficiency: what the episode cost, in USD (tool prices, the other models it asked, its
  own completion tokens at a configured price) and in milliseconds (tool latencies, the
  other models' latencies, its own tokens at a configured time per token). Declared
  prices and latencies, never wall time: a reward must not depend on a busy machine.
- preference: among the group's *solved* rollouts, each feature of
  M = [calls per tool ..., -cost, -latency] is min-max normalised (a tool a rollout never
  called counts 0; a feature equal across them is left out), and the rollout scores
  M_norm . P, where P holds the task's cost and latency weights (or the config's default
  for a task that states none) and -1 / +1 for a tool it asks to avoid / prefer. Because
  cost and latency enter negated, the cheaper and quicker of two solving rollouts scores
  higher; cost and latency are counted once, here.

Combined: reward = outcome * (1 + scale * clip(preference, -1, 1)); with scale < 1 a
solving rollout always outscores one that fails, and the preference ranks the solving
ones. Groups whose rewards barely vary carry no signal and are dropped, as are invalid
rollouts; advantages are (r - mean) / (std + 1e-6), clipped.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from toolscale.task import Preference
from trainer.episode import Episode


class Prices(BaseModel):
    """What the policy's own tokens cost (the tools carry their own prices)."""

    model_config = ConfigDict(extra="forbid")

    policy_per_mtok: float = Field(
        default=0.2, ge=0, description="USD per million completion tokens"
    )
    policy_ms_per_token: float = Field(
        default=10.0, ge=0, description="charged per completion token"
    )


class RewardConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    preference_scale: float = Field(default=0.5, ge=0, lt=1)
    default_preference: Preference = Field(
        default_factory=lambda: Preference(accuracy=1.0, cost=0.2, latency=0.1),
        description="for tasks that state no preference",
    )
    min_group_std: float = Field(default=0.1, ge=0, description="groups below carry no signal")
    advantage_clip: float = Field(default=3.0, gt=0)
    prices: Prices = Field(default_factory=Prices)


class Efficiency(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cost: float
    latency_ms: float


class Reward(BaseModel):
    """One rollout's reward and its parts, as logged."""

    model_config = ConfigDict(extra="forbid")

    outcome: float
    efficiency: float = Field(description="the cost and latency part of the preference")
    tools: float = Field(description="the avoided / preferred tools part of the preference")
    preference: float
    total: float
    cost: float
    latency_ms: float
    valid: bool


def outcome_reward(episode: Episode) -> float:
    return 1.0 if episode.solved else 0.0


def efficiency(episode: Episode, prices: Prices) -> Efficiency:
    helpers_cost = sum(h.cost for h in episode.helper_calls)
    helpers_ms = sum(h.latency_ms for h in episode.helper_calls)
    own = episode.completion_tokens
    return Efficiency(
        cost=episode.evaluation.price + helpers_cost + own * prices.policy_per_mtok / 1e6,
        latency_ms=episode.evaluation.latency_ms + helpers_ms + own * prices.policy_ms_per_token,
    )


def preference_weights(preference: Preference | None, default: Preference) -> dict[str, float]:
    """P as named weights: `cost`, `latency`, and `tool:<name>` for avoided / preferred tools.
    The accuracy weight is the outcome's, which the combination already holds."""
    p = preference or default
    _, cost, latency = p.weights()
    weights = {"cost": cost, "latency": latency}
    weights |= {f"tool:{t}": 1.0 for t in p.prefer_tools}
    weights |= {f"tool:{t}": -1.0 for t in p.avoid_tools}
    return weights


def features(episode: Episode, prices: Prices) -> dict[str, float]:
    """M for one rollout: calls per tool, -cost, -latency."""
    e = efficiency(episode, prices)
    out = {f"tool:{name}": float(n) for name, n in episode.calls_per_tool.items()}
    out |= {"cost": -e.cost, "latency": -e.latency_ms}
    return out


def normalised(rows: Sequence[dict[str, float]]) -> list[dict[str, float]]:
    """Min-max per feature over the rows; a feature missing from a row counts 0 (a tool it
    never called) and a feature equal in every row is dropped (it ranks nothing)."""
    names = sorted({k for row in rows for k in row})
    out: list[dict[str, float]] = [{} for _ in rows]
    for name in names:
        values = [row.get(name, 0.0) for row in rows]
        low, high = min(values), max(values)
        if high == low:
            continue
        for norm, v in zip(out, values, strict=True):
            norm[name] = (v - low) / (high - low)
    return out


def group_rewards(
    episodes: Sequence[Episode], preference: Preference | None, config: RewardConfig
) -> list[Reward]:
    """The rewards of one task's rollouts, which must all be of that task."""
    if len({e.task_id for e in episodes}) > 1:
        raise ValueError("a group holds rollouts of one task")
    weights = preference_weights(preference, config.default_preference)
    solved = [i for i, e in enumerate(episodes) if e.solved]
    norms = dict(
        zip(solved, normalised([features(episodes[i], config.prices) for i in solved]), strict=True)
    )
    out = []
    for i, episode in enumerate(episodes):
        e = efficiency(episode, config.prices)
        outcome = outcome_reward(episode)
        norm = norms.get(i, {})
        eff = sum(weights[k] * norm.get(k, 0.0) for k in ("cost", "latency"))
        tools = sum(w * norm.get(k, 0.0) for k, w in weights.items() if k.startswith("tool:"))
        preference_value = eff + tools if outcome else 0.0
        clipped = max(-1.0, min(1.0, preference_value))
        out.append(
            Reward(
                outcome=outcome,
                efficiency=eff if outcome else 0.0,
                tools=tools if outcome else 0.0,
                preference=preference_value,
                total=outcome * (1.0 + config.preference_scale * clipped),
                cost=e.cost,
                latency_ms=e.latency_ms,
                valid=episode.stop != "invalid_format",
            )
        )
    return out


def advantages(rewards: Sequence[Reward], config: RewardConfig) -> list[float] | None:
    """Group-relative advantages over the valid rollouts (invalid ones get 0: no gradient),
    or None when the group carries no signal (its valid rewards barely vary)."""
    valid = [r.total for r in rewards if r.valid]
    if len(valid) < 2:
        return None
    mean, std = statistics.fmean(valid), statistics.pstdev(valid)
    if std <= config.min_group_std:
        return None
    clip = config.advantage_clip
    return [
        max(-clip, min(clip, (r.total - mean) / (std + 1e-6))) if r.valid else 0.0 for r in rewards
    ]
