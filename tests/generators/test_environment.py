"""`generators/environment.py`: stages stored as they end, and told as they start and end."""

from __future__ import annotations

import asyncio
from pathlib import Path

from generators.environment import EnvironmentStages, _stage
from toolscale.llm.client import Outcome
from toolscale.llm.ledger import Ledger
from toolscale.store import DomainStore


def test_a_stage_tells_when_it_starts_and_ends_and_when_it_was_kept(tmp_path: Path) -> None:
    """What a run piped to a file shows of its environment (before, 20 silent minutes)."""
    told: list[str] = []
    stages = EnvironmentStages(DomainStore(tmp_path, "d"), Ledger(), tell=told.append)

    async def make(attempt: int) -> Outcome[str]:
        return Outcome(value="the schema")

    def quiet(headline: str, detail: str) -> None:
        raise AssertionError(headline)

    assert asyncio.run(_stage(stages, "schema", str, make, 1, quiet)) == "the schema"
    assert asyncio.run(_stage(stages, "schema", str, make, 1, quiet)) == "the schema"
    assert [t.split(" in ")[0] for t in told] == [
        "schema: started",
        "schema: done",
        "schema: kept from an earlier run",
    ]
