"""Rejections and per-stage reports: errors as values, so a pipeline can go on."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, PlainSerializer


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


M = TypeVar("M", bound=BaseModel)


def stage_entry(entries: dict[str, M], stage: str, kind: type[M]) -> M:
    """The entry of `stage`, added when new, so entries keep the order stages first ran: the
    one get-or-create of per-stage figures (StageReport, RunSummary, the LLM Ledger)."""
    entry = entries.get(stage)
    if entry is None:
        entry = entries[stage] = kind(stage=stage)
    return entry


class StageStats(BaseModel):
    """What one stage made of the items that reached it: the one stats type of verification
    reports and the run summary. `seen` counts the items that reached the stage (the run
    table calls them proposed), `passed` those it kept (accepted); `rejected` counts the
    rest by reason. Tokens and cost stay 0 where no LLM is involved (verification)."""

    model_config = ConfigDict(extra="forbid")

    stage: str
    seen: int = 0
    passed: int = 0
    rejected: dict[str, int] = Field(default_factory=dict)
    tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0

    @property
    def n_rejected(self) -> int:
        return sum(self.rejected.values())

    @property
    def yield_(self) -> float | None:
        return self.passed / self.seen if self.seen else None

    def reject(self, reason: str, n: int = 1) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + n


class StageReport(BaseModel):
    """Counts per stage, in the order stages first ran, plus totals: what every run prints
    and saves."""

    model_config = ConfigDict(extra="forbid")

    stages: StageTable = Field(default_factory=dict)
    accepted: int = 0
    rejected: int = 0
    seconds: float = 0.0

    def stage(self, name: str) -> StageStats:
        return stage_entry(self.stages, name, StageStats)

    def merge(self, other: StageReport) -> None:
        """Add another verifier's counts (a Dask worker's share of a run)."""
        for name, theirs in other.stages.items():
            mine = self.stage(name)
            mine.seen += theirs.seen
            mine.passed += theirs.passed
            mine.seconds += theirs.seconds
            for reason, n in theirs.rejected.items():
                mine.reject(reason, n)
        self.accepted += other.accepted
        self.rejected += other.rejected
        self.seconds += other.seconds

    def record(self, stage: str, seconds: float, rejection: Rejection | None) -> None:
        s = self.stage(stage)
        s.seen += 1
        s.seconds += seconds
        if rejection is None:
            s.passed += 1
        else:
            s.reject(rejection.reason)


def _keyed(entries: object) -> object:
    """Stage tables are stored as lists of entries (each names its stage): read them keyed."""
    if isinstance(entries, list):
        return {e["stage"] if isinstance(e, dict) else e.stage: e for e in entries}
    return entries


_RUN_KEYS = {"seen": "proposed", "passed": "accepted"}  # the run table's words


def _run_entries(entries: object) -> object:
    if isinstance(entries, list):
        inverse = {v: k for k, v in _RUN_KEYS.items()}
        entries = [{inverse.get(k, k): v for k, v in e.items()} for e in entries]
    return _keyed(entries)


StageTable = Annotated[
    dict[str, StageStats],
    BeforeValidator(_keyed),
    PlainSerializer(lambda entries: [e.model_dump(mode="json") for e in entries.values()]),
]
"""Per-stage figures keyed by stage in memory, a list of entries in JSON (report.json's
shape since the first release)."""

RunTable = Annotated[
    dict[str, StageStats],
    BeforeValidator(_run_entries),
    PlainSerializer(
        lambda entries: [
            {_RUN_KEYS.get(k, k): v for k, v in e.model_dump(mode="json").items()}
            for e in entries.values()
        ]
    ),
]
"""The run summary's table: the same entries, whose `seen` / `passed` the run table (and its
report.json rows) calls `proposed` / `accepted`."""
