"""The run summary: its table from what is on disk (environment rows, then a row per task
strategy), tokens and cost from the ledgers, and the same table in the terminal and in
markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import mini_task
from toolscale.figures import figure_lines
from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection, StageStats
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, DomainStore
from toolscale.summary import RunSummary, markdown, rich_table, summarise


def spent(**tokens: int) -> Ledger:
    """A ledger in which each named stage spent that many completion tokens, $0.001 each."""
    ledger = Ledger()
    for stage, n in tokens.items():
        ledger.stage(stage).calls = 1
        ledger.stage(stage).completion_tokens = n
        ledger.stage(stage).cost_usd = n / 1000
    return ledger


def rejection(stage: str, reason: str) -> Rejection:
    return Rejection(stage=stage, reason=reason, detail="")


def summarised(tmp_path: Path, spec: EnvironmentSpec | None = None) -> RunSummary:
    """Two sampled batches and one llm batch on disk, after the environment stages (and the
    environment itself, if given)."""
    store = DomainStore(tmp_path, "mini")
    if spec is not None:
        store.save_environment(spec)
    store.commit_batch(
        Batch(
            strategy="sampled",
            indices=[0, 1, 2],
            accepted=[mini_task(id="s0"), mini_task(id="s2")],
            rejected=[rejection("dedup", "duplicate_gold")],
            ledger=spent(sampled=100),
            seconds=2.0,
        )
    )
    store.commit_batch(
        Batch(strategy="sampled", indices=[3], accepted=[mini_task(id="s3")], seconds=1.0)
    )
    store.commit_batch(
        Batch(
            strategy="llm",
            indices=[0, 1],
            rejected=[rejection("llm", "gold_failed"), rejection("llm", "gold_failed")],
            ledger=spent(llm=500),
            seconds=4.0,
        )
    )
    schema = StageStats(stage="schema", seen=1, passed=1, seconds=3.0)
    tools = StageStats(stage="tools", seen=3, passed=2, rejected={"sql_rejected": 1})
    env_rows = {"schema": schema, "tools": tools}
    summary = RunSummary(domain="mini", model="fake", endpoint="http://fake/v1")
    return summarise(
        summary,
        store,
        env_rows,
        spent(schema=10, tool_plan=20, tools=30),
        ("sampled", "llm", "evolved"),
        seconds=12.5,
    )


def test_summarise_takes_the_table_from_disk(tmp_path: Path) -> None:
    summary = summarised(tmp_path)
    assert list(summary.rows) == ["schema", "tools", "tasks/sampled", "tasks/llm", "tasks/evolved"]
    sampled, llm = summary.rows["tasks/sampled"], summary.rows["tasks/llm"]
    assert (sampled.seen, sampled.passed, sampled.seconds) == (4, 3, 3.0)
    assert sampled.rejected == {"dedup:duplicate_gold": 1}
    assert (llm.seen, llm.passed, llm.rejected) == (2, 0, {"llm:gold_failed": 2})
    assert summary.rows["tasks/evolved"].seen == 0
    assert (summary.tasks, summary.trajectories, summary.rejected) == (3, 0, 3)
    assert summary.seconds == 12.5
    assert (tmp_path / "mini" / "tasks.jsonl").read_text().count("\n") == 3  # views rewritten


def test_tokens_and_cost_come_from_the_ledgers(tmp_path: Path) -> None:
    summary = summarised(tmp_path)
    rows = summary.rows
    assert rows["schema"].tokens == 10
    assert rows["tools"].tokens == 50  # the plan and the tools it led to
    assert (rows["tasks/sampled"].tokens, rows["tasks/llm"].tokens) == (100, 500)
    assert rows["tasks/llm"].cost_usd == 0.5
    assert summary.ledger.total().tokens == 10 + 20 + 30 + 100 + 500


def test_markdown_is_the_run_table(tmp_path: Path) -> None:
    text = markdown(summarised(tmp_path).model_copy(update={"resumed": True}))
    lines = text.splitlines()
    assert lines[0] == "# toolscale generate: mini"
    assert lines[2] == (
        "Model `fake` at `http://fake/v1`; 3 verified tasks, 3 rejections kept; 12.5 s (resumed)"
    )
    assert lines[4].startswith("| stage | proposed | accepted | yield |")
    assert "| tools | 3 | 2 | 67% | sql_rejected 1 | 50 | 0.0500 | 0.0 |" in lines
    assert "| tasks/llm | 2 | 0 | 0% | llm:gold_failed 2 | 500 | 0.5000 | 4.0 |" in lines
    assert "| tasks/evolved | 0 | 0 |  |  | 0 | 0.0000 | 0.0 |" in lines
    assert text.endswith("\n")


def test_the_terminal_table_ends_with_the_totals(tmp_path: Path) -> None:
    console = Console(width=200, record=True)
    console.print(rich_table(summarised(tmp_path)))
    text = console.export_text()
    assert "toolscale generate: mini (fake)" in text
    assert "tasks/sampled" in text and "dedup:duplicate_gold 1" in text
    total = next(line for line in text.splitlines() if "total" in line)
    assert "3 rejected items kept in rejected.jsonl" in total and "660" in total


def test_the_summary_stores_the_run_table_in_its_words(tmp_path: Path) -> None:
    summary = summarised(tmp_path)
    data = json.loads(summary.model_dump_json())
    assert [r["stage"] for r in data["rows"]] == list(summary.rows)
    assert data["rows"][1]["proposed"] == 3 and data["rows"][1]["accepted"] == 2
    assert RunSummary.model_validate(data) == summary
    assert summary.row("tools") is summary.rows["tools"]


def test_the_figures_come_from_the_batches_and_the_environment(
    tmp_path: Path, mini_spec: EnvironmentSpec
) -> None:
    summary = summarised(tmp_path, mini_spec)
    assert summary.environment is not None and summary.dataset is not None
    assert (summary.environment.tables, summary.environment.seed_rows) == (2, 4)
    assert (summary.environment.write_tools, summary.environment.guarded_writes) == (3, 2)
    data = summary.dataset
    assert (data.tasks, data.distinct_gold, data.mean_calls) == (3, 1, 1.0)
    assert data.by_difficulty["unrated"] == 3  # mini tasks carry no difficulty
    assert data.instruction_diversity == pytest.approx(10 / 30)  # one instruction three times
    report = json.loads(summary.model_dump_json())
    assert report["environment"]["tools_by_origin"] == {"derived": 0, "pattern": 0, "sql": 4}
    assert report["dataset"]["tasks"] == 3 and report["dataset"]["instruction_bigrams"] == 30
    assert RunSummary.model_validate(report) == summary
    lines = markdown(summary).splitlines()
    assert lines[-4:] == ["", *(f"- {line}" for line in figure_lines(summary.environment, data))]
    assert lines[-2].startswith("- dataset: 3 tasks (easy 0, medium 0, hard 0, unrated 3)")
    console = Console(width=200, record=True)
    console.print(rich_table(summary))
    assert "environment: 2 tables, 7 columns, 4 seed rows; 4 tools" in console.export_text()


def test_without_an_environment_only_the_dataset_is_reported(tmp_path: Path) -> None:
    summary = summarised(tmp_path)
    assert summary.environment is None
    assert summary.dataset is not None and summary.dataset.tasks == summary.tasks == 3
    assert "environment:" not in markdown(summary) and "- dataset: 3 tasks" in markdown(summary)


def test_the_judge_has_its_own_row_from_the_batches_with_its_spending(tmp_path: Path) -> None:
    """Judged items are counted per batch: one run judged, a later one (--no-judge) did not."""
    store = DomainStore(tmp_path, "mini")
    judged = spent(sampled=100, judge=40)
    judged.stage("judge").seconds = 1.5
    store.commit_batch(
        Batch(
            strategy="sampled",
            indices=[0, 1, 2, 3],
            accepted=[mini_task(id="s0"), mini_task(id="s1")],
            rejected=[rejection("judge", "judge_unasked_call"), rejection("dedup", "trivial")],
            judged=3,
            ledger=judged,
        )
    )
    store.commit_batch(Batch(strategy="sampled", indices=[4], accepted=[mini_task(id="s4")]))
    summary = summarise(
        RunSummary(domain="mini", model="fake", endpoint="http://fake/v1"),
        store,
        {},
        Ledger(),
        ("sampled",),
        seconds=1.0,
    )
    assert list(summary.rows) == ["tasks/sampled", "judge"]
    row = summary.rows["judge"]
    assert (row.seen, row.passed, row.rejected) == (3, 2, {"judge_unasked_call": 1})
    assert (row.tokens, row.cost_usd, row.seconds) == (40, 0.04, 1.5)
    assert summary.rows["tasks/sampled"].rejected["judge:judge_unasked_call"] == 1
    assert "| judge | 3 | 2 | 67% | judge_unasked_call 1 | 40 | 0.0400 | 1.5 |" in markdown(summary)


def test_no_judge_row_when_nothing_was_judged(tmp_path: Path) -> None:
    assert "judge" not in summarised(tmp_path).rows
