"""Generation throughput, measured side by side in one run.

1. Fake endpoint with a fixed latency per call, served from another process: achieved
   calls/s of the task stage as a ratio of the ideal concurrency / latency, and the
   pipeline's own CPU time per verified task (LLM time excluded: the server is elsewhere).
2. With --local: the embedded llama.cpp model on the same environment; achieved decode
   tokens/s as a ratio of the server's own single-request decode rate, and how busy the
   server's slots were (sum of its prompt+decode time over wall x slots).
3. Yield per strategy and per validator stage, for every run.

Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from rich.console import Console
from rich.table import Table

from flows.console import task_progress, warner
from generators.config import GenerationConfig
from generators.environment import EnvironmentStages, build_environment
from generators.scheduler import synthesize
from generators.strategies import check_strategies
from toolscale.brief import Brief
from toolscale.llm.client import LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.report import StageReport
from toolscale.store import DomainStore
from toolscale.testing.fakedomain import BRIEF, library
from toolscale.testing.fakellm import FakeLLM, Reply
from validators.pipeline import verify_environment
from validators.worker import VerifyWorker

console = Console(stderr=True, width=130)
CONFIG = GenerationConfig(budget_factor=3)  # 3 proposals per wanted task, as the README figures


def _serve(latency: float, port_out: Any, stop: Any) -> None:
    def respond(body: dict) -> Reply:
        reply = library(body)
        return Reply(content=reply.content, timings=None)

    with FakeLLM(respond, latency_s=latency) as fake:
        port_out.put(fake.base_url)
        stop.wait()


async def task_stage(
    root: Path, llm: LLMClient, strategy: str, target: int, cross_engine: bool
) -> dict:
    """Build (or load) the library environment under `root`, then time the task stage alone."""
    brief = Brief.model_validate(yaml.safe_load(BRIEF))
    store = DomainStore(root, brief.name)
    stages = EnvironmentStages.load(store, llm.ledger)
    spec = await build_environment(llm, brief, stages, verify_environment, CONFIG, warner(console))
    (chosen,) = check_strategies((strategy,))
    with VerifyWorker(spec, StageReport(), [], cross_engine=cross_engine) as verifier:
        cpu0, wall0 = time.process_time(), time.perf_counter()
        with task_progress(console, strategy, target) as progress:
            accepted = await synthesize(
                chosen, llm, brief, spec, store, verifier.verify, target, [], CONFIG, progress
            )
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        report = verifier.report
    usage = llm.ledger.stages.get(strategy)
    batches = list(store.batches(strategy))
    proposed = sum(len(b.indices) for b in batches)
    reasons: dict[str, int] = {}
    for b in batches:
        for r in b.rejected:
            key = f"{r.stage}:{r.reason}"
            reasons[key] = reasons.get(key, 0) + 1
    await llm.close()
    return {
        "accepted": accepted,
        "proposed": proposed,
        "yield": round(accepted / proposed, 3) if proposed else None,
        "calls": usage.calls if usage else 0,
        "completion_tokens": usage.completion_tokens if usage else 0,
        "wall_s": wall,
        "cpu_s": cpu,
        "rejected": reasons,
        "stages": {s.stage: {"seen": s.seen, "passed": s.passed} for s in report.stages.values()},
        "max_in_flight": llm.max_in_flight,
    }


@contextlib.contextmanager
def fake_servers(latency: float, count: int) -> Iterator[list[str]]:
    """`count` fake endpoints answering as the library model after `latency` seconds, each
    in a process of its own (so the pipeline's CPU is measured apart from theirs)."""
    ctx = mp.get_context("spawn")
    port_q, stop = ctx.Queue(), ctx.Event()
    servers = [
        ctx.Process(target=_serve, args=(latency, port_q, stop), daemon=True) for _ in range(count)
    ]
    for server in servers:
        server.start()
    try:
        yield [port_q.get(timeout=60) for _ in servers]
    finally:
        stop.set()
        for server in servers:
            server.join(timeout=10)


def fake_bench(args: argparse.Namespace, work: Path, endpoints: int = 1) -> dict:
    """The task stage against `endpoints` fake servers, each in a process of its own with
    `args.concurrency` slots: achieved calls/s against the ideal, and CPU per task."""
    with fake_servers(args.latency, endpoints) as urls:
        config = LLMConfig(
            base_url=urls[0],
            endpoints=urls if endpoints > 1 else [],
            model="fake",
            concurrency=args.concurrency,
        )
        llm = LLMClient(config)
        cross_engine = not args.no_cross_engine
        result = asyncio.run(task_stage(work / "fake", llm, "sampled", args.tasks, cross_engine))
    ideal = endpoints * args.concurrency / args.latency
    achieved = result["calls"] / result["wall_s"]
    result.update(
        ideal_calls_per_s=round(ideal, 2),
        achieved_calls_per_s=round(achieved, 2),
        throughput_ratio=round(achieved / ideal, 3),
        cpu_ms_per_verified=round(1000 * result["cpu_s"] / max(1, result["accepted"]), 2),
    )
    return result


def local_bench(args: argparse.Namespace, work: Path) -> dict:
    """The same library environment (built on the fake), tasks on the embedded model."""
    from toolscale.llm.local import embedded_endpoint

    fake_env = work / "fake" / "library"
    target = work / "local" / "library"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(fake_env / "environment.json", target / "environment.json")
    timings: list[dict] = []
    with embedded_endpoint(size=args.model_size, parallel=args.parallel, console=console) as (
        url,
        name,
    ):
        config = LLMConfig(base_url=url, model=name, concurrency=args.parallel, timeout_s=900)
        llm = LLMClient(config)
        original = llm._send

        async def send(body: dict) -> Any:  # keep the server's own timings of each answer
            completion = await original(body)
            if completion.timings:
                timings.append(completion.timings)
            return completion

        llm._send = send  # type: ignore[method-assign]
        result = asyncio.run(task_stage(work / "local", llm, "sampled", args.local_tasks, True))
    decode_rates = [t["predicted_per_second"] for t in timings if t.get("predicted_per_second")]
    busy_ms = sum(t.get("prompt_ms", 0) + t.get("predicted_ms", 0) for t in timings)
    single = statistics.median(decode_rates) if decode_rates else None
    achieved = result["completion_tokens"] / result["wall_s"]
    result.update(
        model=name,
        server_decode_tok_s=round(single, 2) if single else None,
        achieved_tok_s=round(achieved, 2),
        tokens_ratio=round(achieved / single, 3) if single else None,
        slot_busy_ratio=round(busy_ms / 1000 / (result["wall_s"] * args.parallel), 3),
    )
    return result


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tasks", type=int, default=80, help="verified tasks wanted (fake)")
    p.add_argument("--latency", type=float, default=0.2, help="seconds per fake call")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--no-cross-engine", action="store_true")
    p.add_argument("--local", action="store_true", help="also run on the embedded model")
    p.add_argument("--local-tasks", type=int, default=8)
    p.add_argument("--model-size", default="0.5b", choices=["0.5b", "1.5b"])
    p.add_argument("--parallel", type=int, default=2)
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-generate-") as tmp:
        work = Path(tmp)
        figures: dict[str, Any] = {"fake": fake_bench(args, work)}
        if not args.no_cross_engine:  # the same run without the DuckDB replay, for scale
            solo = argparse.Namespace(**{**vars(args), "no_cross_engine": True})
            figures["fake_sqlite_only"] = fake_bench(solo, work / "solo")
        if args.local:
            figures["local"] = local_bench(args, work)
    table = Table(title="bench/generate.py")
    for col in ("run", "proposed", "verified", "yield", "calls", "wall s", "figure"):
        table.add_column(col)
    labels = {"fake": "fake", "fake_sqlite_only": "fake, no DuckDB replay"}
    for name, fig in figures.items():
        if name == "local":
            label = f"local {fig['model']}"
            figure = (
                f"tokens {fig['tokens_ratio']} of decode rate; slots busy {fig['slot_busy_ratio']}"
            )
        else:
            label = labels[name]
            figure = (
                f"throughput {fig['throughput_ratio']} of ideal; "
                f"CPU {fig['cpu_ms_per_verified']} ms/task"
            )
        cells = [fig["proposed"], fig["accepted"], fig["yield"], fig["calls"]]
        table.add_row(label, *map(str, cells), f"{fig['wall_s']:.2f}", figure)
    f = figures["fake"]
    console.print(table)
    for name, fig in figures.items():
        console.print(f"{name} rejected: {fig['rejected']}")
    out = {
        "throughput_ratio": f["throughput_ratio"],
        "cpu_ms_per_verified": f["cpu_ms_per_verified"],
        "cpu_ms_per_verified_sqlite_only": figures.get("fake_sqlite_only", {}).get(
            "cpu_ms_per_verified"
        ),
        "fake_yield": f["yield"],
        "achieved_calls_per_s": f["achieved_calls_per_s"],
        "ideal_calls_per_s": f["ideal_calls_per_s"],
    }
    if "local" in figures:
        loc = figures["local"]
        out.update(
            local_model=loc["model"],
            local_tokens_ratio=loc["tokens_ratio"],
            local_slot_busy_ratio=loc["slot_busy_ratio"],
            local_sampled_yield=loc["yield"],
            local_decode_tok_s=loc["server_decode_tok_s"],
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
