"""Export at scale, measured side by side in one run.

The banking fixture's verified tasks are replicated under new ids into a run of `--tasks`
tasks (batches of 1,000, as generation commits them), then exported twice in fresh
processes: once at a tenth of the size and once whole. Printed: seconds per 1,000 tasks at
both sizes, peak RSS of each export process and their ratio (flat memory: the large export
should need about what the small one does), the shards' size, and how long
`datasets.load_dataset` takes to open the large export. Ends with one JSON line.

    python bench/export.py [--tasks 100000]
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from toolscale.environment import Environment  # noqa: E402
from toolscale.spec import EnvironmentSpec  # noqa: E402
from toolscale.store import Batch, DomainStore, TrajectoryRecord  # noqa: E402
from toolscale.task import Task  # noqa: E402
from validators.pipeline import verify  # noqa: E402

console = Console(stderr=True)
FIXTURE = ROOT / "tests" / "fixtures" / "banking"
PER_BATCH = 1_000


def make_run(root: Path, n: int) -> None:
    """A banking run of `n` verified tasks: the fixture's, replicated under new ids."""
    spec = EnvironmentSpec.model_validate_json((FIXTURE / "environment.json").read_text())
    lines = (FIXTURE / "tasks.jsonl").read_text().splitlines()
    accepted, _, _ = verify(spec, [Task.model_validate_json(x) for x in lines if x.strip()])
    with Environment(spec) as env:
        messages = {t.id: env.demonstrate(t).messages for t in accepted}
    store = DomainStore(root, "banking")
    store.save_environment(spec)
    tools = spec.openai_tools()
    for start in range(0, n, PER_BATCH):
        tasks, records = [], []
        for i in range(start, min(n, start + PER_BATCH)):
            base = accepted[i % len(accepted)]
            task = base.model_copy(update={"id": f"banking-bench-{i:07d}"})
            tasks.append(task)
            records.append(
                TrajectoryRecord(
                    task_id=task.id,
                    domain="banking",
                    strategy="intent",
                    messages=messages[base.id],
                    tools=tools,
                )
            )
        store.commit_batch(
            Batch(
                strategy="intent",
                indices=list(range(start, start + len(tasks))),
                accepted=tasks,
                trajectories=records,
            )
        )


def timed_export(data: Path, out: Path) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one export in a fresh process."""
    code = (
        "import sys, time, resource; from toolscale.export import export; "
        "t = time.perf_counter(); export(sys.argv[1], sys.argv[2]); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(data), str(out)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    seconds, rss = done.stdout.split()
    return float(seconds), int(rss)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    args = parser.parse_args()
    small_n = max(1, args.tasks // 10)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        make_run(root / "small", small_n)
        make_run(root / "large", args.tasks)
        console.print(f"runs of {small_n:,} and {args.tasks:,} tasks made in "
                      f"{time.perf_counter() - started:.0f} s")  # fmt: skip
        small_s, small_rss = timed_export(root / "small", root / "out-small")
        large_s, large_rss = timed_export(root / "large", root / "out-large")
        shards = sum(p.stat().st_size for p in (root / "out-large" / "data").rglob("*.parquet"))
        t = time.perf_counter()
        from datasets import load_dataset

        loaded = load_dataset(str(root / "out-large"), "banking", cache_dir=str(root / "hf"))
        load_s = time.perf_counter() - t
        rows = sum(split.num_rows for split in loaded.values())
        shutil.rmtree(root / "hf", ignore_errors=True)
    figures = {
        "tasks": args.tasks,
        "small_tasks": small_n,
        "s_per_1000_small": round(1000 * small_s / small_n, 3),
        "s_per_1000_large": round(1000 * large_s / args.tasks, 3),
        "peak_rss_mib_small": round(small_rss / 1024, 1),
        "peak_rss_mib_large": round(large_rss / 1024, 1),
        "rss_ratio_large_to_small": round(large_rss / small_rss, 3),
        "shards_mib": round(shards / 2**20, 1),
        "load_dataset_s": round(load_s, 2),
        "rows_loaded": rows,
        "bench_peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    for key, value in figures.items():
        console.print(f"{key:>28}: {value}")
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
