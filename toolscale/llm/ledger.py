"""What each stage spent on the LLM: calls, cache hits, retries, repairs, tokens, cost."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from toolscale.report import stage_entry


class Usage(BaseModel):
    """What one stage spent on the LLM."""

    model_config = ConfigDict(extra="forbid")

    stage: str
    calls: int = Field(default=0, description="requests answered by the endpoint")
    cached: int = Field(default=0, description="requests answered from the cache")
    retries: int = 0
    repairs: int = Field(default=0, description="answers sent back with their errors")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = Field(default=0.0, description="summed request time, concurrent overlap too")
    failures: dict[str, int] = Field(default_factory=dict)

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: Usage, sign: int = 1) -> None:
        """Adds `other` (subtracts it with sign=-1, for what was spent between two points)."""
        for name in ("calls", "cached", "retries", "repairs", "prompt_tokens", "completion_tokens"):
            setattr(self, name, getattr(self, name) + sign * getattr(other, name))
        self.cost_usd += sign * other.cost_usd
        self.seconds += sign * other.seconds
        for reason, n in other.failures.items():
            self.failures[reason] = self.failures.get(reason, 0) + sign * n
        self.failures = {k: v for k, v in self.failures.items() if v}


class Ledger(BaseModel):
    """Usage per stage, in the order stages first appear."""

    model_config = ConfigDict(extra="forbid")

    stages: dict[str, Usage] = Field(default_factory=dict)
    endpoints: dict[str, Usage] = Field(
        default_factory=dict, description="the same spending by server, when there are several"
    )

    def stage(self, name: str) -> Usage:
        return stage_entry(self.stages, name, Usage)

    def endpoint(self, url: str) -> Usage:
        return stage_entry(self.endpoints, url, Usage)

    def fail(self, stage: str, reason: str) -> None:
        failures = self.stage(stage).failures
        failures[reason] = failures.get(reason, 0) + 1

    def total(self) -> Usage:
        out = Usage(stage="total")
        for u in self.stages.values():
            out.add(u)
        return out

    def merge(self, other: Ledger) -> None:
        for name, u in other.stages.items():
            self.stage(name).add(u)
        for url, u in other.endpoints.items():
            self.endpoint(url).add(u)

    def snapshot(self) -> Ledger:
        """A copy that later spending does not touch: the mark `since` measures from."""
        out = Ledger()
        out.merge(self)
        return out

    def since(self, before: Ledger) -> Ledger:
        """What was spent after the snapshot `before`; stages with no call, cache hit or
        failure in between are left out."""
        out = self.snapshot()
        for name, u in before.stages.items():
            out.stage(name).add(u, sign=-1)
        for url, u in before.endpoints.items():
            out.endpoint(url).add(u, sign=-1)
        out.stages = {k: u for k, u in out.stages.items() if u.calls or u.cached or u.failures}
        out.endpoints = {k: u for k, u in out.endpoints.items() if u.calls or u.failures}
        return out
