"""Full verification time per task on the banking reference environment at tau2-bench
retail's size, against executing the very same statements on raw sqlite3.

    python bench/verify.py [--tasks 200] [--scale 5] [--memory 100000]

Prints a table and ends with one JSON line of its figures; `isolation_ratio` is what the
worker process of the lock (issue 11) costs: the same verification with the engine in this
process, interleaved task by task. `--memory N` also streams N
generated tasks through the verifier (SQLite only, unless --memory-cross-engine adds the
DuckDB replay) and reports resident memory at checkpoints: it must stay flat.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sqlite3
import statistics
import time
from collections.abc import Iterator
from typing import Any, ClassVar

from rich.console import Console
from rich.table import Table

import toolscale.sandbox.worker as worker_module
from toolscale.sandbox.base import Limits
from toolscale.sandbox.blueprint import Step
from toolscale.sandbox.ddl import create_statements
from toolscale.sandbox.sqlite import SQLiteEngine
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.testing.banking import build_environment
from validators.pipeline import Verifier


def tag(i: int) -> str:
    """A word unique to task i (letters only: a number would be a stated fact the seed does
    not hold), so no two instructions are near duplicates."""
    out = ""
    while True:
        i, r = divmod(i, 26)
        out = "abcdefghijklmnopqrstuvwxyz"[r] + out
        if i == 0:
            return "case " + out


def sample_tasks(spec: EnvironmentSpec, n: int, seed: int = 1) -> Iterator[Task]:
    """Valid multi-step tasks drawn from the seed: transfers and card freezes, in turn."""
    rng = random.Random(seed)
    rows: dict[str, list[dict[str, Any]]] = spec.seed  # the banking fixture: ids are integers
    clients = {c["client_id"]: c for c in rows["clients"]}
    accounts: dict[int, list[dict]] = {}
    for a in rows["accounts"]:
        if a["status"] == "active":
            accounts.setdefault(a["client_id"], []).append(a)
    cards: dict[int, list[dict]] = {}
    owner = {a["account_id"]: a["client_id"] for a in rows["accounts"]}
    for c in rows["cards"]:
        if c["status"] == "active":
            cards.setdefault(owner[c["account_id"]], []).append(c)
    movers = sorted(
        cid
        for cid, accs in accounts.items()
        if len(accs) >= 2 and max(a["balance"] for a in accs) > 20
    )
    holders = sorted(cards)
    for i in range(n):
        if i % 2 == 0:
            cid = rng.choice(movers)
            c = clients[cid]
            src = max(accounts[cid], key=lambda a: a["balance"])
            dst = rng.choice([a for a in accounts[cid] if a is not src])
            amount = round(rng.uniform(1, min(src["balance"], src["daily_transfer_limit"], 900)), 2)
            yield Task(
                id=f"bench-{i}",
                instruction=(
                    f"Hi, this is {c['first_name']} {c['last_name']}, email {c['email']}. Please "
                    f"move ${amount} from account {src['account_id']} to {dst['account_id']} and "
                    f"tell me what is left in {src['account_id']}. Reference {tag(i)}."
                ),
                gold_calls=[
                    {"name": "find_client_by_email", "arguments": {"email": c["email"]}},
                    {"name": "list_accounts", "arguments": {"client_id": cid}},
                    {
                        "name": "transfer_funds",
                        "arguments": {
                            "client_id": cid,
                            "from_account_id": src["account_id"],
                            "to_account_id": dst["account_id"],
                            "amount": amount,
                        },
                    },
                    {"name": "get_balance", "arguments": {"account_id": src["account_id"]}},
                ],
                communicate=[{"call": 3, "path": "balance"}],
            )
        else:
            cid = rng.choice(holders)
            c = clients[cid]
            card = rng.choice(cards[cid])
            yield Task(
                id=f"bench-{i}",
                instruction=(
                    f"I am {c['first_name']} {c['last_name']} ({c['email']}) and I think my "
                    f"{card['network']} card ending {card['last4']} was skimmed: freeze it now. "
                    f"Ticket {tag(i)}."
                ),
                gold_calls=[
                    {"name": "find_client_by_email", "arguments": {"email": c["email"]}},
                    {"name": "list_cards", "arguments": {"client_id": cid}},
                    {
                        "name": "freeze_card",
                        "arguments": {"client_id": cid, "card_id": card["card_id"]},
                    },
                ],
            )


class Recorder(SQLiteEngine):
    """A SQLite engine that also records every tool statement and reset it performs."""

    log: ClassVar[list[tuple[str, dict | None, str, int] | None]] = []

    def _query(self, step: Step, params: dict[str, Any], limit: int) -> tuple[list[str], list]:
        self.log.append((step.sql, dict(params), "q", limit))
        return super()._query(step, params, limit)

    def _execute(self, step: Step, params: dict[str, Any]) -> None:
        self.log.append((step.sql, dict(params), "x", 0))
        super()._execute(step, params)

    def _begin_call(self) -> None:
        self.log.append(("call", None, "b", 0))
        super()._begin_call()

    def reset(self) -> None:
        self.log.append(None)
        super().reset()


def recorded(spec: EnvironmentSpec, tasks: list[Task]) -> list[list]:
    """What verification executes on SQLite, statement by statement, per task: the engine
    in this process, recording."""
    opened = worker_module.open_engine
    worker_module.open_engine = lambda blueprint: Recorder(blueprint)
    logs = []
    try:
        with Verifier(spec, cross_engine=False, limits=Limits(isolated=False)) as verifier:
            for task in tasks:
                Recorder.log = []
                verifier.verify(task)
                logs.append(Recorder.log)
    finally:
        worker_module.open_engine = opened
    return logs


def raw_connection(spec: EnvironmentSpec) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:", isolation_level=None, cached_statements=4096)
    con.execute("PRAGMA foreign_keys = ON")
    for ddl in create_statements(spec.schema_, "sqlite"):
        con.execute(ddl)
    con.execute("BEGIN")
    for table in spec.schema_.insertion_order():
        rows = spec.seed_rows(table.name)
        if rows:
            con.executemany(
                f"INSERT INTO {table.name} VALUES ({','.join('?' * len(rows[0]))})", rows
            )
    con.execute("COMMIT")
    con.execute("BEGIN")
    con.execute("SAVEPOINT task")
    return con


def run_raw(con: sqlite3.Connection, log: list) -> None:
    """The same statements, with only what any replay needs: a savepoint per call, rollback."""
    open_call = False
    for entry in log:
        if entry is None:
            if open_call:
                con.execute("RELEASE call")
                open_call = False
            con.execute("ROLLBACK TO task")
            continue
        sql, params, kind, limit = entry
        if kind == "b":
            if open_call:
                con.execute("RELEASE call")
            con.execute("SAVEPOINT call")
            open_call = True
        elif kind == "q":
            con.execute(sql, params).fetchmany(limit)
        else:
            con.execute(sql, params)
    if open_call:
        con.execute("RELEASE call")
    con.execute("ROLLBACK TO task")


def time_verifier(
    spec: EnvironmentSpec, tasks: list[Task], stages: dict | None = None, **options
) -> tuple[list[float], int]:
    with Verifier(spec, **options) as verifier:
        times = []
        accepted = 0
        for task in tasks:
            t0 = time.perf_counter()
            result = verifier.verify(task)
            times.append(time.perf_counter() - t0)
            accepted += result.ok
    return times, accepted


def rss_mib() -> float:
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def memory_run(spec: EnvironmentSpec, n: int, console: Console, cross_engine: bool) -> dict:
    checkpoints = sorted({min(n, c) for c in (1_000, 5_000, 10_000, n // 2, n)})
    readings = {}
    accepted = 0
    t0 = time.perf_counter()
    with Verifier(spec, cross_engine=cross_engine) as verifier:
        for i, result in enumerate(verifier.verify_stream(sample_tasks(spec, n, seed=2)), 1):
            accepted += result.ok
            if i in checkpoints:
                readings[i] = rss_mib()
                console.print(
                    f"  {i:>7} tasks  rss {readings[i]:7.1f} MiB  {time.perf_counter() - t0:6.1f} s"
                )
    first, last = readings[checkpoints[0]], readings[checkpoints[-1]]
    return {
        "memory_cross_engine": cross_engine,
        "memory_tasks": n,
        "memory_accepted": accepted,
        "rss_mib_at": {str(k): round(v, 1) for k, v in readings.items()},
        "rss_growth_mib": round(last - first, 1),
        "rss_growth_ratio": round(last / first, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--scale", type=int, default=5, help="5 is about tau2-bench retail's size")
    parser.add_argument("--memory", type=int, default=0, help="also stream N tasks for memory")
    parser.add_argument(
        "--memory-cross-engine", action="store_true", help="with the DuckDB replay (slower)"
    )
    args = parser.parse_args()
    console = Console(stderr=True)

    spec = build_environment(scale=args.scale)
    rows = sum(len(v) for v in spec.seed.values())
    tasks = list(sample_tasks(spec, args.tasks))
    console.print(f"banking x{args.scale}: {rows} seed rows, {len(tasks)} tasks")

    logs = recorded(spec, tasks)
    statements = statistics.median(sum(1 for e in log if e and e[2] in "qx") for log in logs)

    # raw, toolscale and toolscale with its engine in this process (no worker: what the
    # lock's process costs) interleaved task by task, so all see the same machine state
    con = raw_connection(spec)
    raw: list[float] = []
    sqlite_only: list[float] = []
    in_process: list[float] = []
    stages: dict[str, float] = {}
    accepted = 0
    with (
        Verifier(spec, cross_engine=False) as verifier,
        Verifier(spec, cross_engine=False, limits=Limits(isolated=False)) as unisolated,
    ):
        for task, log in zip(tasks, logs, strict=True):
            t0 = time.perf_counter()
            run_raw(con, log)
            raw.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            accepted += verifier.verify(task).ok
            sqlite_only.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            unisolated.verify(task)
            in_process.append(time.perf_counter() - t0)
        for s in verifier.report.stages.values():
            if s.stage not in ("static_sql", "seed"):
                stages[s.stage] = 1000 * s.seconds / len(tasks)
    sqlite_full, _ = time_verifier(spec, tasks, engine="sqlite", cross_engine=True)
    duckdb_only, duck_accepted = time_verifier(spec, tasks, engine="duckdb", cross_engine=False)

    ms = lambda xs: 1000 * statistics.median(xs)  # noqa: E731
    figures = {
        "seed_rows": rows,
        "tasks": len(tasks),
        "accepted": accepted,
        "statements_per_task": statements,
        "raw_sqlite_ms_per_task": round(ms(raw), 3),
        "sqlite_ms_per_task": round(ms(sqlite_only), 3),
        "sqlite_cross_engine_ms_per_task": round(ms(sqlite_full), 3),
        "duckdb_ms_per_task": round(ms(duckdb_only), 3),
        "sqlite_in_process_ms_per_task": round(ms(in_process), 3),
        "isolation_ms_per_task": round(ms(sqlite_only) - ms(in_process), 3),
        "isolation_ratio": round(ms(sqlite_only) / ms(in_process), 2),
        "ratio_to_raw": round(ms(sqlite_only) / ms(raw), 2),
        "median_task_ratio_to_raw": round(
            statistics.median(a / b for a, b in zip(sqlite_only, raw, strict=True)), 2
        ),
    }
    table = Table(title="full verification, median per task", title_justify="left")
    table.add_column("run")
    table.add_column("ms/task", justify="right")
    table.add_column("accepted", justify="right")
    table.add_row(f"raw sqlite3, same {statements:.0f} statements", f"{ms(raw):.3f}", "-")
    table.add_row("toolscale, SQLite", f"{ms(sqlite_only):.3f}", str(accepted))
    table.add_row(
        "toolscale, SQLite, engine in this process (no lock process)", f"{ms(in_process):.3f}", ""
    )
    table.add_row("toolscale, SQLite + DuckDB cross-engine replay", f"{ms(sqlite_full):.3f}", "")
    table.add_row("toolscale, DuckDB", f"{ms(duckdb_only):.3f}", str(duck_accepted))
    table.caption = f"ratio to raw sqlite3: {figures['ratio_to_raw']}"
    console.print(table)
    where = Table(
        title="where SQLite verification spends its time (mean ms/task)", title_justify="left"
    )
    where.add_column("stage")
    where.add_column("ms/task", justify="right")
    for name, value in stages.items():
        where.add_row(name, f"{value:.3f}")
    console.print(where)
    figures["sqlite_stage_ms"] = {k: round(v, 3) for k, v in stages.items()}
    if args.memory:
        console.print(f"memory: streaming {args.memory} tasks")
        figures.update(memory_run(spec, args.memory, console, args.memory_cross_engine))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
