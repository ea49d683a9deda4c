"""The run summary a person reads: per stage, what was proposed, kept and rejected (by
reason), with tokens, cost and time, and under it the domain's figures (toolscale/figures.py).
Printed in the terminal, saved as report.json, and left as a Prefect artifact."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from rich.table import Table

from toolscale.figures import (
    EnvironmentFigures,
    TaskFigures,
    TaskTally,
    environment_figures,
    figure_lines,
)
from toolscale.llm.ledger import Ledger
from toolscale.report import RunTable, StageReport, StageStats, stage_entry
from toolscale.store import Batch, DomainStore

JUDGE = "judge"  # validators/judge.py's stage (and ledger stage): its row follows the tasks'
SOLVER = "solver"  # trainer/solver.py's stage (and ledger stage): its row follows the judge's


class RunSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domain: str
    model: str
    endpoint: str
    rows: RunTable = Field(default_factory=dict)
    verification: StageReport = Field(default_factory=StageReport)
    ledger: Ledger = Field(default_factory=Ledger)
    tasks: int = 0
    trajectories: int = 0
    rejected: int = 0
    seconds: float = 0.0
    resumed: bool = False
    environment: EnvironmentFigures | None = None
    dataset: TaskFigures | None = None

    def row(self, stage: str) -> StageStats:
        return stage_entry(self.rows, stage, StageStats)


def summarise(
    summary: RunSummary,
    store: DomainStore,
    env_rows: dict[str, StageStats],
    env_spent: Ledger,
    strategies: tuple[str, ...],
    seconds: float,
) -> RunSummary:
    """`summary` with its table, ledger and counts taken from what is on disk (the views are
    rewritten on the way), so a resumed run reports the whole dataset. `env_spent` is what
    the environment stages cost over every run; the task rows, the judge's row and the
    figures come from the batches, the environment's figures from environment.json once it
    exists."""
    ledger = env_spent.snapshot()
    task_rows = {s: StageStats(stage=f"tasks/{s}") for s in strategies}
    checks = {JUDGE: StageStats(stage=JUDGE), SOLVER: StageStats(stage=SOLVER)}
    tally = TaskTally()

    def count(batch: Batch) -> None:
        ledger.merge(batch.ledger)
        checks[JUDGE].seen += batch.judged
        checks[SOLVER].seen += batch.solver_checked
        for rej in batch.rejected:
            if rej.stage in checks:
                checks[rej.stage].reject(rej.reason)
        for task in batch.accepted:
            tally.add(task)
        row = task_rows.get(batch.strategy)
        if row is None:
            return
        row.seen += len(batch.indices)
        row.passed += len(batch.accepted)
        row.seconds += batch.seconds
        for rej in batch.rejected:
            row.reject(f"{rej.stage}:{rej.reason}")

    counts = store.write_views(count)  # one read of the batches for views and table
    rows = {name: r.model_copy() for name, r in env_rows.items()}
    for r in rows.values():
        stages = ("tool_plan", "tools") if r.stage == "tools" else (r.stage,)
        r.tokens = sum(ledger.stage(s).tokens for s in stages if s in ledger.stages)
        r.cost_usd = sum(ledger.stage(s).cost_usd for s in stages if s in ledger.stages)
    for strategy, row in task_rows.items():
        u = ledger.stages.get(strategy)
        if u is not None:
            row.tokens, row.cost_usd = u.tokens, u.cost_usd
        rows[row.stage] = row
    for name, check in checks.items():
        if not check.seen:
            continue
        check.passed = check.seen - check.n_rejected
        spent = ledger.stages.get(name)
        if spent is not None:  # request time, summed: these checks wait on nothing else
            check.tokens, check.cost_usd, check.seconds = (
                spent.tokens,
                spent.cost_usd,
                spent.seconds,
            )
        rows[name] = check
    spec = store.load_environment()
    return summary.model_copy(
        update={
            "rows": rows,
            "ledger": ledger,
            "tasks": counts["tasks"],
            "trajectories": counts["trajectories"],
            "rejected": counts["rejected"],
            "seconds": seconds,
            "environment": None if spec is None else environment_figures(spec),
            "dataset": tally.figures(),
        }
    )


def _reasons(rejected: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(rejected.items(), key=lambda kv: -kv[1]))


def _yield(row: StageStats) -> str:
    return "" if row.yield_ is None else f"{row.yield_:.0%}"


def endpoint_lines(ledger: Ledger) -> list[str]:
    """What each server answered, where the run had several."""
    return [
        f"endpoint {url}: {u.calls} calls, {u.tokens:,} tokens, {u.seconds:.0f} s of requests"
        + (f", failures {_reasons(u.failures)}" if u.failures else "")
        for url, u in ledger.endpoints.items()
    ]


def rich_table(summary: RunSummary) -> Table:
    """The stage table, with the domain's figures (and each server's share) as its caption."""
    caption = figure_lines(summary.environment, summary.dataset) + endpoint_lines(summary.ledger)
    table = Table(
        title=f"toolscale generate: {summary.domain} ({summary.model})",
        caption="\n".join(caption) or None,
        caption_justify="left",
    )
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
    figures = figure_lines(summary.environment, summary.dataset) + endpoint_lines(summary.ledger)
    if figures:
        lines += ["", *(f"- {line}" for line in figures)]
    return "\n".join(lines) + "\n"
