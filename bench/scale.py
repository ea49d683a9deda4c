"""Throughput past one endpoint: the task stage against 1, 2 and 4 fake endpoints (each in a
process of its own, a fixed latency per call, its own slots), verified tasks per second and
calls per second as a ratio of the ideal (endpoints x slots / latency), and the pipeline's
own CPU per verified task. One run, side by side; ends with one JSON line.

    python bench/scale.py [--tasks 60] [--latency 0.2] [--concurrency 4] [--endpoints 1,2,4]

Dask workers (issue 12's other axis) are not measured: the Dask task runner is not built.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from generate import console, fake_bench  # bench/generate.py: the same task stage
from rich.table import Table


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=60, help="verified tasks wanted per run")
    p.add_argument("--latency", type=float, default=0.2, help="seconds per fake call")
    p.add_argument("--concurrency", type=int, default=4, help="slots per endpoint")
    p.add_argument("--endpoints", default="1,2,4", help="endpoint counts to compare")
    p.add_argument("--cross-engine", action="store_true", help="with the DuckDB replay")
    args = p.parse_args()
    args.no_cross_engine = not args.cross_engine
    counts = [int(n) for n in args.endpoints.split(",")]
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        for n in counts:
            fig = fake_bench(args, Path(tmp) / f"e{n}", endpoints=n)
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
    summary = {
        "latency_s": args.latency,
        "slots_per_endpoint": args.concurrency,
        "by_endpoints": {
            count: {
                "tasks_per_s": f["tasks_per_s"],
                "calls_ratio_of_ideal": f["throughput_ratio"],
                "speedup": round(f["tasks_per_s"] / one["tasks_per_s"], 2),
                "cpu_ms_per_verified": f["cpu_ms_per_verified"],
            }
            for count, f in figures.items()
        },
        "dask_workers": "not measured: the Dask task runner is not built",
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
