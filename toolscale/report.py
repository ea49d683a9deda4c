"""Rejections and per-stage reports: errors as values, so a pipeline can go on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field


class Rejection(BaseModel):
    """Why an item was not kept: the stage, a stable reason code, a readable detail."""

    model_config = ConfigDict(extra="forbid")

    stage: str
    reason: str
    detail: str
    task_id: str | None = None
    source: str | None = Field(default=None, description="file:line the item came from")
    item: Any = Field(default=None, description="the rejected item, as read, so nothing is lost")


T = TypeVar("T")


@dataclass
class Result(Generic[T]):
    """A value, or the rejection saying why there is none: the one shape of "value or
    rejection" (a verification verdict, a proposal, a structured LLM answer)."""

    value: T | None = None
    rejection: Rejection | None = None

    @property
    def ok(self) -> bool:
        return self.rejection is None


class StageStats(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stage: str
    seen: int = 0
    passed: int = 0
    rejected: dict[str, int] = Field(default_factory=dict)
    seconds: float = 0.0

    @property
    def n_rejected(self) -> int:
        return sum(self.rejected.values())


class StageReport(BaseModel):
    """Counts per stage, in order, plus totals: what every run prints and saves."""

    model_config = ConfigDict(extra="forbid")

    stages: list[StageStats] = Field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    seconds: float = 0.0

    def stage(self, name: str) -> StageStats:
        for s in self.stages:
            if s.stage == name:
                return s
        s = StageStats(stage=name)
        self.stages.append(s)
        return s

    def record(self, stage: str, seconds: float, rejection: Rejection | None) -> None:
        s = self.stage(stage)
        s.seen += 1
        s.seconds += seconds
        if rejection is None:
            s.passed += 1
        else:
            s.rejected[rejection.reason] = s.rejected.get(rejection.reason, 0) + 1
