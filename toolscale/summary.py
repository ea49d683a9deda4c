"""The run summary a person reads: per stage, what was proposed, kept and rejected (by
reason), with tokens, cost and time. Printed in the terminal, saved as report.json, and
left as a Prefect artifact."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from rich.table import Table

from toolscale.llm.ledger import Ledger
from toolscale.report import StageReport, StageStats, stage_entry


class RunSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domain: str
    model: str
    endpoint: str
    rows: dict[str, StageStats] = Field(default_factory=dict)
    verification: StageReport = Field(default_factory=StageReport)
    ledger: Ledger = Field(default_factory=Ledger)
    tasks: int = 0
    trajectories: int = 0
    rejected: int = 0
    seconds: float = 0.0
    resumed: bool = False

    def row(self, stage: str) -> StageStats:
        return stage_entry(self.rows, stage, StageStats)


def _reasons(rejected: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(rejected.items(), key=lambda kv: -kv[1]))


def _yield(row: StageStats) -> str:
    return "" if row.yield_ is None else f"{row.yield_:.0%}"


def rich_table(summary: RunSummary) -> Table:
    table = Table(title=f"toolscale generate: {summary.domain} ({summary.model})")
    for name in ("stage", "proposed", "accepted", "yield", "rejected by reason", "tokens"):
        table.add_column(
            name, justify="left" if name in ("stage", "rejected by reason") else "right"
        )
    table.add_column("cost $", justify="right")
    table.add_column("time s", justify="right")
    for r in summary.rows.values():
        table.add_row(
            r.stage,
            str(r.seen),
            str(r.passed),
            _yield(r),
            _reasons(r.rejected),
            f"{r.tokens:,}",
            f"{r.cost_usd:.4f}",
            f"{r.seconds:.1f}",
        )
    total = summary.ledger.total()
    table.add_section()
    table.add_row(
        "total",
        "",
        str(summary.tasks),
        "",
        f"{summary.rejected} rejected items kept in rejected.jsonl",
        f"{total.tokens:,}",
        f"{total.cost_usd:.4f}",
        f"{summary.seconds:.1f}",
    )
    return table


def markdown(summary: RunSummary) -> str:
    lines = [
        f"# toolscale generate: {summary.domain}",
        "",
        f"Model `{summary.model}` at `{summary.endpoint}`; {summary.tasks} verified tasks, "
        f"{summary.rejected} rejections kept; {summary.seconds:.1f} s"
        + (" (resumed)" if summary.resumed else ""),
        "",
        "| stage | proposed | accepted | yield | rejected by reason | tokens | cost $ | time s |",
        "|---|---:|---:|---:|---|---:|---:|---:|",
    ]
    for r in summary.rows.values():
        lines.append(
            f"| {r.stage} | {r.seen} | {r.passed} | {_yield(r)} | {_reasons(r.rejected)} "
            f"| {r.tokens:,} | {r.cost_usd:.4f} | {r.seconds:.1f} |"
        )
    return "\n".join(lines) + "\n"
