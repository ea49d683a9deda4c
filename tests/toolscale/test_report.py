"""Rejections and per-stage reports: counts by stage and reason, one get-or-create, and
the list-shaped JSON stored runs are read back from."""

from __future__ import annotations

import json

from pydantic import BaseModel, Field

from toolscale.llm.ledger import Ledger, Usage
from toolscale.report import (
    Rejection,
    Result,
    RunTable,
    StageReport,
    StageStats,
    StageTable,
    stage_entry,
)


def test_report_counts_by_stage_and_reason() -> None:
    report = StageReport()
    report.record("replay", 0.001, None)
    report.record("replay", 0.002, Rejection(stage="replay", reason="gold_call_failed", detail=""))
    stage = report.stage("replay")
    assert (stage.seen, stage.passed, stage.rejected) == (2, 1, {"gold_call_failed": 1})
    assert StageReport.model_validate_json(report.model_dump_json()) == report


def test_stage_entry_is_the_one_get_or_create() -> None:
    rows: dict[str, StageStats] = {}
    schema = stage_entry(rows, "schema", StageStats)
    schema.seen, schema.passed = 3, 1
    schema.reject("ddl_rejected", 2)
    assert stage_entry(rows, "schema", StageStats) is schema
    stage_entry(rows, "rows", StageStats)
    assert list(rows) == ["schema", "rows"]  # the order stages first ran
    assert (schema.n_rejected, schema.yield_) == (2, 1 / 3)
    assert stage_entry(rows, "rows", StageStats).yield_ is None
    ledger = Ledger()
    assert ledger.stage("tools") is ledger.stages["tools"] == Usage(stage="tools")
    report = StageReport()
    assert report.stage("replay") is report.stages["replay"]


class Stored(BaseModel):
    """A model with both stage tables, as report.json and the run summary hold them."""

    stages: StageTable = Field(default_factory=dict)
    rows: RunTable = Field(default_factory=dict)


def test_a_result_is_a_value_or_a_rejection() -> None:
    assert Result(value=3).ok
    rejected: Result[int] = Result(rejection=Rejection(stage="s", reason="r", detail="d"))
    assert not rejected.ok and rejected.value is None


def test_record_counts_time_passes_and_rejections_in_the_order_stages_ran() -> None:
    report = StageReport()
    report.record("structure", 0.5, None)
    report.record("replay", 0.25, Rejection(stage="replay", reason="gold_call_failed", detail=""))
    report.record("structure", 0.5, Rejection(stage="structure", reason="bad_json", detail=""))
    assert list(report.stages) == ["structure", "replay"]
    structure = report.stage("structure")
    assert (structure.seen, structure.passed, structure.seconds) == (2, 1, 1.0)
    assert structure.rejected == {"bad_json": 1} and structure.n_rejected == 1
    assert (report.accepted, report.rejected) == (0, 0)  # the totals are the verifier's to set


def test_a_stage_table_is_a_list_of_entries_in_json_and_keyed_in_memory() -> None:
    stored = Stored()
    stored.stages["replay"] = StageStats(stage="replay", seen=3, passed=2, rejected={"x": 1})
    stored.stages["dedup"] = StageStats(stage="dedup", seen=2, passed=2)
    data = json.loads(stored.model_dump_json())
    assert [e["stage"] for e in data["stages"]] == ["replay", "dedup"]
    assert data["stages"][0] == {
        "stage": "replay",
        "seen": 3,
        "passed": 2,
        "rejected": {"x": 1},
        "tokens": 0,
        "cost_usd": 0.0,
        "seconds": 0.0,
    }
    again = Stored.model_validate(data)
    assert again == stored and list(again.stages) == ["replay", "dedup"]
    assert Stored.model_validate({"stages": {"dedup": data["stages"][1]}}).stages == {
        "dedup": stored.stages["dedup"]
    }


def test_the_run_table_says_proposed_and_accepted() -> None:
    stored = Stored()
    stored.rows["schema"] = StageStats(stage="schema", seen=2, passed=1, tokens=900)
    (row,) = json.loads(stored.model_dump_json())["rows"]
    assert (row["proposed"], row["accepted"], row["tokens"]) == (2, 1, 900)
    assert "seen" not in row and "passed" not in row
    assert Stored.model_validate_json(stored.model_dump_json()) == stored


def test_a_run_table_stored_by_an_earlier_release_reads_back() -> None:
    """report.json rows as the first release wrote them (and stored runs still hold)."""
    old = {
        "rows": [
            {"stage": "schema", "proposed": 1, "accepted": 1, "rejected": {}, "tokens": 1052},
            {
                "stage": "tasks/llm",
                "proposed": 12,
                "accepted": 0,
                "rejected": {"llm:gold_failed": 3},
                "tokens": 38845,
                "cost_usd": 0.0,
                "seconds": 447.0,
            },
        ]
    }
    rows = Stored.model_validate(old).rows
    assert list(rows) == ["schema", "tasks/llm"]
    llm = rows["tasks/llm"]
    assert (llm.seen, llm.passed, llm.rejected, llm.seconds) == (12, 0, {"llm:gold_failed": 3}, 447)
    assert llm.yield_ == 0.0 and rows["schema"].yield_ == 1.0
