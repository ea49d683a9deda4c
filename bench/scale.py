"""Throughput past one process, on two axes, side by side in one run; ends with one JSON line.

1. Endpoints: the task stage against 1, 2 and 4 fake endpoints (each in a process of its
   own, a fixed latency per call, its own slots): verified tasks per second, calls per
   second as a ratio of the ideal (endpoints x slots / latency), and the pipeline's own CPU
   per verified task.
2. Dask workers, 1, 2 and 4 of a LocalCluster, against `--dask-endpoints` fake endpoints:
   with `--dask-unit slice` (default) one domain's work items in slices on the workers
   (`generate DOMAIN --runner dask`, `--domain-tasks` tasks); with `--dask-unit domain`,
   `generate all --runner dask` over `--domains` copies of the library domain. Verified
   tasks per second for the whole run (cluster start and the environment stages included)
   as a ratio of the ideal (the one-worker rate per worker, times the workers, at most the
   number of domains for `domain`) and against the same run in-process, and the CPU of
   this process and its workers per verified task.

    python bench/scale.py [--tasks 60] [--latency 0.2] [--concurrency 4] [--endpoints 1,2,4]
                          [--dask-workers 1,2,4] [--dask-unit slice|domain] [--domains 4]
                          [--domain-tasks 96]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import tempfile
import time
from pathlib import Path

from generate import console, fake_bench, fake_servers  # bench/generate.py
from rich.table import Table

from toolscale.testing.fakedomain import BRIEF


def endpoint_axis(args: argparse.Namespace, work: Path, counts: list[int]) -> dict[str, dict]:
    figures: dict[str, dict] = {}
    for n in counts:
        fig = fake_bench(args, work / f"e{n}", endpoints=n)
        fig["tasks_per_s"] = round(fig["accepted"] / fig["wall_s"], 2)
        figures[str(n)] = fig
    one = figures[str(counts[0])]
    table = Table(title="bench/scale.py: endpoints")
    for col in ("endpoints", "verified", "wall s", "tasks/s", "calls/s", "of ideal", "CPU ms/task"):
        table.add_column(col, justify="right")
    for count, fig in figures.items():
        table.add_row(
            count,
            str(fig["accepted"]),
            f"{fig['wall_s']:.1f}",
            f"{fig['tasks_per_s']:.2f}",
            f"{fig['achieved_calls_per_s']:.1f}",
            f"{fig['throughput_ratio']:.3f}",
            f"{fig['cpu_ms_per_verified']:.1f}",
        )
    console.print(table)
    return {
        count: {
            "tasks_per_s": f["tasks_per_s"],
            "calls_ratio_of_ideal": f["throughput_ratio"],
            "speedup": round(f["tasks_per_s"] / one["tasks_per_s"], 2),
            "cpu_ms_per_verified": f["cpu_ms_per_verified"],
        }
        for count, f in figures.items()
    }


def _cpu_s() -> float:
    """CPU of this process and of the children it has reaped (a closed cluster's workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def dask_run(args: argparse.Namespace, work: Path, domains: Path, workers: int) -> dict:
    """The whole run on `workers` Dask workers; 0: the same run in this process."""
    from flows.generate import generate_all, generate_domain

    runner = "dask" if workers else "process"
    cpu0, wall0 = _cpu_s(), time.perf_counter()
    if args.dask_unit == "domain":
        made = asyncio.run(
            generate_all(
                n_tasks=args.domain_tasks,
                data_dir=str(work / f"w{workers}"),
                domains_dir=str(domains),
                runner=runner,
                dask_workers=max(1, workers),
            )
        )
    else:
        summary = asyncio.run(
            generate_domain(
                "library0",
                n_tasks=args.domain_tasks,
                data_dir=str(work / f"w{workers}"),
                domains_dir=str(domains),
                runner=runner,
                dask_workers=max(1, workers),
            )
        )
        made = {"library0": summary["tasks"]}
    wall, cpu = time.perf_counter() - wall0, _cpu_s() - cpu0
    verified = sum(made.values())
    return {
        "verified": verified,
        "domains_done": len(made),
        "wall_s": wall,
        "tasks_per_s": verified / wall,
        "cpu_ms_per_verified": 1000 * cpu / max(1, verified),
    }


def dask_axis(args: argparse.Namespace, work: Path, counts: list[int]) -> dict[str, dict]:
    from flows.server import own_server

    domains = work / "domains"
    for i in range(args.domains if args.dask_unit == "domain" else 1):
        name = f"library{i}"
        (domains / name).mkdir(parents=True)
        (domains / name / "brief.yaml").write_text(BRIEF.replace("name: library", f"name: {name}"))
    figures: dict[str, dict] = {}
    with fake_servers(args.latency, args.dask_endpoints) as urls, own_server():
        os.environ["TOOLSCALE_LLM_URL"] = ",".join(f"{u}#{args.concurrency}" for u in urls)
        os.environ["TOOLSCALE_LLM_MODEL"] = "fake"
        here = dask_run(args, work, domains, 0)
        for n in counts:
            figures[str(n)] = dask_run(args, work, domains, n)
    one = figures[str(counts[0])]["tasks_per_s"] / counts[0]  # per worker, at the fewest
    unit = f"{args.domains} domains" if args.dask_unit == "domain" else "one domain's slices"
    table = Table(title=f"bench/scale.py: Dask workers ({unit})")
    cols = ("workers", "verified", "wall s", "tasks/s", "speedup", "of ideal", "CPU ms/task")
    for col in (*cols, "vs in-process"):
        table.add_column(col, justify="right")
    table.add_row(
        "in-process",
        str(here["verified"]),
        f"{here['wall_s']:.1f}",
        f"{here['tasks_per_s']:.2f}",
        "",
        "",
        f"{here['cpu_ms_per_verified']:.1f}",
        "1.00",
    )
    out: dict[str, dict] = {
        "in_process": {
            "tasks_per_s": round(here["tasks_per_s"], 2),
            "cpu_ms_per_verified": round(here["cpu_ms_per_verified"], 1),
            "verified": here["verified"],
            "wall_s": round(here["wall_s"], 1),
        }
    }
    for count, fig in figures.items():
        cap = args.domains if args.dask_unit == "domain" else int(count)
        ideal = one * min(int(count), cap)
        out[count] = {
            "tasks_per_s": round(fig["tasks_per_s"], 2),
            "speedup": round(fig["tasks_per_s"] / figures[str(counts[0])]["tasks_per_s"], 2),
            "ratio_of_ideal": round(fig["tasks_per_s"] / ideal, 3),
            "cpu_ms_per_verified": round(fig["cpu_ms_per_verified"], 1),
            "verified": fig["verified"],
            "wall_s": round(fig["wall_s"], 1),
            "vs_in_process": round(fig["tasks_per_s"] / here["tasks_per_s"], 2),
        }
        table.add_row(
            count,
            str(fig["verified"]),
            f"{fig['wall_s']:.1f}",
            f"{fig['tasks_per_s']:.2f}",
            f"{out[count]['speedup']:.2f}",
            f"{out[count]['ratio_of_ideal']:.3f}",
            f"{fig['cpu_ms_per_verified']:.1f}",
            f"{out[count]['vs_in_process']:.2f}",
        )
    console.print(table)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=60, help="verified tasks wanted per run")
    p.add_argument("--latency", type=float, default=0.2, help="seconds per fake call")
    p.add_argument("--concurrency", type=int, default=4, help="slots per endpoint")
    p.add_argument("--endpoints", default="1,2,4", help="endpoint counts to compare ('' skips)")
    p.add_argument("--cross-engine", action="store_true", help="with the DuckDB replay")
    p.add_argument("--dask-workers", default="1,2,4", help="worker counts to compare ('' skips)")
    p.add_argument("--dask-unit", choices=["slice", "domain"], default="slice")
    p.add_argument("--domains", type=int, default=4, help="domains, --dask-unit domain")
    p.add_argument("--domain-tasks", type=int, default=96, help="verified tasks per domain")
    p.add_argument("--dask-endpoints", type=int, default=4, help="fake endpoints, Dask axis")
    args = p.parse_args()
    args.no_cross_engine = not args.cross_engine
    summary: dict = {
        "latency_s": args.latency,
        "slots_per_endpoint": args.concurrency,
        "cpus": os.cpu_count(),
    }
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        if args.endpoints:
            counts = [int(n) for n in args.endpoints.split(",")]
            summary["by_endpoints"] = endpoint_axis(args, Path(tmp), counts)
        if args.dask_workers:
            counts = [int(n) for n in args.dask_workers.split(",")]
            summary["dask_unit"] = args.dask_unit
            summary["domains"] = args.domains if args.dask_unit == "domain" else 1
            summary["tasks_per_domain"] = args.domain_tasks
            summary["by_dask_workers"] = dask_axis(args, Path(tmp), counts)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
