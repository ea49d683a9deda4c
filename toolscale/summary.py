"""The run summary a person reads: per stage, what was proposed, kept and rejected (by
reason), with tokens, cost and time. Printed in the terminal, saved as report.json, and
left as a Prefect artifact."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from rich.table import Table

from toolscale.llm.ledger import Ledger
from toolscale.report import StageReport
from toolscale.store import Batch, DomainStore


class StageRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    stage: str
    proposed: int = 0
    accepted: int = 0
    rejected: dict[str, int] = Field(default_factory=dict)
    tokens: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0

    @property
    def yield_(self) -> float | None:
        return self.accepted / self.proposed if self.proposed else None

    def reject(self, reason: str, n: int = 1) -> None:
        self.rejected[reason] = self.rejected.get(reason, 0) + n


class RunSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domain: str
    model: str
    endpoint: str
    rows: list[StageRow] = Field(default_factory=list)
    verification: StageReport = Field(default_factory=StageReport)
    ledger: Ledger = Field(default_factory=Ledger)
    tasks: int = 0
    trajectories: int = 0
    rejected: int = 0
    seconds: float = 0.0
    resumed: bool = False

    def row(self, stage: str) -> StageRow:
        return find_row(self.rows, stage)


def find_row(rows: list[StageRow], stage: str) -> StageRow:
    """The row of `stage`, appended when it is new: rows keep the order stages first ran."""
    for r in rows:
        if r.stage == stage:
            return r
    r = StageRow(stage=stage)
    rows.append(r)
    return r


def summarise(
    summary: RunSummary,
    store: DomainStore,
    env_rows: list[StageRow],
    env_spent: Ledger,
    strategies: tuple[str, ...],
    seconds: float,
) -> RunSummary:
    """`summary` with its table, ledger and counts taken from what is on disk (the views are
    rewritten on the way), so a resumed run reports the whole dataset. `env_spent` is what
    the environment stages cost over every run; the task rows come from the batches."""
    ledger = env_spent.snapshot()
    task_rows = {s: StageRow(stage=f"tasks/{s}") for s in strategies}

    def count(batch: Batch) -> None:
        ledger.merge(batch.ledger)
        row = task_rows.get(batch.strategy)
        if row is None:
            return
        row.proposed += len(batch.indices)
        row.accepted += len(batch.accepted)
        row.seconds += batch.seconds
        for rej in batch.rejected:
            row.reject(f"{rej.stage}:{rej.reason}")

    counts = store.write_views(count)  # one read of the batches for views and table
    rows = [r.model_copy() for r in env_rows]
    for r in rows:
        stages = ("tool_plan", "tools") if r.stage == "tools" else (r.stage,)
        r.tokens = sum(ledger.stage(s).tokens for s in stages if s in ledger.stages)
        r.cost_usd = sum(ledger.stage(s).cost_usd for s in stages if s in ledger.stages)
    for strategy, row in task_rows.items():
        u = ledger.stages.get(strategy)
        if u is not None:
            row.tokens, row.cost_usd = u.tokens, u.cost_usd
        rows.append(row)
    return summary.model_copy(
        update={
            "rows": rows,
            "ledger": ledger,
            "tasks": counts["tasks"],
            "trajectories": counts["trajectories"],
            "rejected": counts["rejected"],
            "seconds": seconds,
        }
    )


def _reasons(rejected: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(rejected.items(), key=lambda kv: -kv[1]))


def _yield(row: StageRow) -> str:
    return "" if row.yield_ is None else f"{row.yield_:.0%}"


def rich_table(summary: RunSummary) -> Table:
    table = Table(title=f"toolscale generate: {summary.domain} ({summary.model})")
    for name in ("stage", "proposed", "accepted", "yield", "rejected by reason", "tokens"):
        table.add_column(
            name, justify="left" if name in ("stage", "rejected by reason") else "right"
        )
    table.add_column("cost $", justify="right")
    table.add_column("time s", justify="right")
    for r in summary.rows:
        table.add_row(
            r.stage,
            str(r.proposed),
            str(r.accepted),
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
    for r in summary.rows:
        lines.append(
            f"| {r.stage} | {r.proposed} | {r.accepted} | {_yield(r)} | {_reasons(r.rejected)} "
            f"| {r.tokens:,} | {r.cost_usd:.4f} | {r.seconds:.1f} |"
        )
    return "\n".join(lines) + "\n"
