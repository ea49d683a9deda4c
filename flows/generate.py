"""Prefect flows: `generate_domain` turns a brief into a verified dataset under data/<domain>/;
`generate_all` does every domain with one model server.

Thin wiring: generators propose, validators decide, the store persists. Tasks are coarse
(one per environment stage group and per task strategy). Everything is persisted as it
is made, so a killed run started again resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import traceback
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import acreate_markdown_artifact
from prefect.cache_policies import NO_CACHE
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from generators import policy as policy_stage
from generators import rows as rows_stage
from generators import schema as schema_stage
from generators import tools as tools_stage
from generators.arguments import ArgumentSampler
from generators.evolution import evolve_task
from generators.tasks import STRATEGIES, check_strategies, propose_llm_task, propose_sampled_task
from generators.toolkit import schema_tools, status_tools
from toolscale.brief import Brief, BriefError, brief_path, load_brief
from toolscale.environment import Environment
from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import LLMClient, Outcome
from toolscale.llm.config import LLMConfig
from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection, StageReport, StageStats, stage_entry
from toolscale.schema import Scalar, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, DomainStore, TrajectoryRecord
from toolscale.summary import RunSummary, markdown, rich_table
from toolscale.task import Task
from toolscale.tool import Tool
from toolscale.trajectory import Trajectory
from validators.pipeline import Verifier, verify_environment

ENV_STAGES = ("schema", "rows", "tool_plan", "tools", "policy")
ENV_ATTEMPTS = 3  # fresh samples per environment stage, each with its own repair loop


class GenerationFailed(RuntimeError):
    """A stage could not produce anything usable; what was made so far stays on disk."""


@dataclass
class Run:
    brief: Brief
    store: DomainStore
    llm: LLMClient
    console: Console
    summary: RunSummary
    env_rows: dict[str, StageStats] = field(default_factory=dict)
    env_ledger: Ledger = field(default_factory=Ledger)  # what earlier runs spent on them

    def env_row(self, stage: str) -> StageStats:
        return stage_entry(self.env_rows, stage, StageStats)

    def load_env(self) -> None:
        """Environment stage rows and tokens of earlier (maybe killed) runs."""
        self.env_rows = self.store.load_stage("environment_rows", dict[str, StageStats]) or {}
        self.env_ledger = self.store.load_stage("environment_ledger", Ledger) or Ledger()

    def env_spent(self) -> Ledger:
        out = Ledger()
        out.merge(self.env_ledger)
        for stage in ENV_STAGES:
            if stage in self.llm.ledger.stages:
                out.stage(stage).add(self.llm.ledger.stages[stage])
        return out

    def save_env(self) -> None:
        """Saved as each stage ends, so a kill -9 loses no environment figure."""
        self.store.save_stage("environment_rows", self.env_rows, dict[str, StageStats])
        self.store.save_stage("environment_ledger", self.env_spent(), Ledger)


def split_targets(n_tasks: int, strategies: tuple[str, ...]) -> dict[str, int]:
    """How many verified tasks each strategy should bring: evolution a fifth, the LLM
    strategy a third of the rest, sampling the remainder."""
    targets = dict.fromkeys(strategies, 0)
    left = n_tasks
    if "evolved" in targets and len(targets) > 1:
        targets["evolved"] = n_tasks // 5
        left -= targets["evolved"]
    if "llm" in targets and "sampled" in targets:
        targets["llm"] = left // 3
        targets["sampled"] = left - targets["llm"]
    elif "llm" in targets:
        targets["llm"] = left
    elif "sampled" in targets:
        targets["sampled"] = left
    else:
        targets["evolved"] = left
    return targets


# environment ---------------------------------------------------------------------------


async def _stage(
    run: Run,
    name: str,
    kind: object,
    make: Callable[[int], Awaitable[Outcome]],
) -> object:
    """A stored stage, or up to ENV_ATTEMPTS fresh samples of it; counted in its row."""
    stored = run.store.load_stage(name, kind)
    if stored is not None:
        return stored
    row = run.env_row(name)
    started = time.perf_counter()
    try:
        for attempt in range(ENV_ATTEMPTS):
            row.seen += 1
            outcome = await make(attempt)
            if outcome.ok and outcome.value is not None:
                row.passed += 1
                run.store.save_stage(name, outcome.value, kind)
                return outcome.value
            reason = outcome.rejection.reason if outcome.rejection else "failed"
            row.reject(reason)
            detail = outcome.rejection.detail if outcome.rejection else ""
            run.console.print(
                f"[yellow]{name}: attempt {attempt + 1} rejected ({reason})[/] {detail[:300]}"
            )
        raise GenerationFailed(
            f"stage {name!r} failed {ENV_ATTEMPTS} times; last: {reason}: {detail[:500]}"
        )
    finally:
        row.seconds += time.perf_counter() - started
        run.save_env()


@task(name="build-environment", cache_policy=NO_CACHE)
async def build_environment(run: Run) -> EnvironmentSpec:
    """schema -> seed rows -> tools -> policy; each checked before the next starts."""
    spec = run.store.load_environment()
    if spec is not None:
        return spec
    brief, llm = run.brief, run.llm
    schema: Schema = await _stage(  # type: ignore[assignment]
        run, "schema", Schema, lambda s: schema_stage.propose_schema(llm, brief, sample=s)
    )
    core = [tools_stage.priced(t) for t in schema_tools(schema)]
    seed: dict[str, list[dict[str, Scalar]]] = await _stage(  # type: ignore[assignment]
        run,
        "rows",
        dict[str, list[dict[str, Scalar]]],
        lambda s: rows_stage.propose_rows(llm, brief, schema, core, sample=s),
    )
    derived = core + [tools_stage.priced(t) for t in status_tools(schema, seed)]
    base = EnvironmentSpec(
        name=brief.name, description=brief.description, schema=schema, seed=seed, tools=derived
    )
    tools: list[Tool] | None = run.store.load_stage("tools", list[Tool])
    if tools is None:
        row = run.env_row("tools")
        started = time.perf_counter()
        kept, dropped = await tools_stage.propose_tools(llm, brief, base)
        row.seen += len(kept) + len(dropped)
        row.passed += len(kept)
        for rejection in dropped:
            row.reject(rejection.reason)
            run.console.print(f"[yellow]tools: dropped[/] {rejection.detail[:300]}")
        row.seconds += time.perf_counter() - started
        tools = derived + kept
        run.store.save_stage("tools", tools, list[Tool])
        run.store.save_stage("tools_dropped", dropped, list[Rejection])
        run.save_env()
    try:
        policy: str = await _stage(  # type: ignore[assignment]
            run, "policy", str, lambda s: policy_stage.propose_policy(llm, brief, tools, sample=s)
        )
    except GenerationFailed as e:  # the brief's own rules still make a usable policy
        run.console.print(f"[yellow]policy: {e}; using the brief's rules[/]")
        policy = policy_stage.brief_policy(brief, tools)
        run.env_row("policy").reject("fell_back_to_brief_rules")
        run.store.save_stage("policy", policy, str)
    spec = base.model_copy(update={"tools": tools, "policy": policy})
    problems = verify_environment(spec)
    if problems:
        lines = "; ".join(f"[{p.stage}/{p.reason}] {p.detail}" for p in problems[:5])
        raise GenerationFailed(f"the assembled environment fails verification: {lines}")
    run.store.save_environment(spec)
    return spec


# tasks ---------------------------------------------------------------------------------


def _proposer(
    run: Run, spec: EnvironmentSpec, strategy: str, parents: list[Task]
) -> Callable[[int], Awaitable[Outcome[Task]]]:
    """One work item of a strategy: deterministic in its index, so a resumed run redoes
    exactly what was lost, from the LLM cache."""
    env = Environment(spec)  # the walks' own sandbox; verification has its own
    sampler = ArgumentSampler(spec)
    domain = run.brief.name

    async def propose(index: int) -> Outcome[Task]:
        rng = random.Random(f"{domain}/{strategy}/{index}")
        task_id = f"{domain}-{strategy}-{index:05d}"
        try:
            if strategy == "sampled":
                return await propose_sampled_task(
                    run.llm, run.brief, env, sampler, task_id, rng, index
                )
            if strategy == "llm":
                return await propose_llm_task(run.llm, run.brief, env, task_id, rng, index)
            parent = parents[index % len(parents)]
            return await evolve_task(run.llm, run.brief, env, sampler, parent, task_id, rng, index)
        except Exception as e:  # a generator bug must not stop the run; it is counted
            last = traceback.format_exception_only(e)[-1].strip()
            return Outcome(
                rejection=Rejection(stage=strategy, reason="generator_error", detail=last)
            )

    return propose


class VerifyWorker:
    """Verification on a thread of its own, so the event loop keeps requests in flight while
    tasks are replayed. SQLite connections belong to the thread that opened them, so the
    verifier is built, used and closed there."""

    def __init__(
        self,
        spec: EnvironmentSpec,
        report: StageReport,
        committed: list[Task],
        cross_engine: bool = True,
    ):
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="verify")
        self.spec = spec
        try:
            self._verifier = self._pool.submit(
                self._open, spec, report, committed, cross_engine
            ).result()
        except BaseException:
            self._pool.shutdown()
            raise

    @staticmethod
    def _open(
        spec: EnvironmentSpec, report: StageReport, committed: list[Task], cross_engine: bool
    ) -> Verifier:
        verifier = Verifier(spec, report=report, cross_engine=cross_engine)
        for done in committed:  # dedup spans runs and strategies
            verifier.dedup.check(done)
        return verifier

    def _verify(self, task: Task) -> tuple[Task | None, Rejection | None, Trajectory | None]:
        result = self._verifier.verify(task)
        if result.value is None:
            return None, result.rejection, None
        return result.value, None, self._verifier.env.demonstrate(result.value)

    @property
    def report(self) -> StageReport:
        return self._verifier.report

    async def verify(self, task: Task) -> tuple[Task | None, Rejection | None, Trajectory | None]:
        return await asyncio.get_running_loop().run_in_executor(self._pool, self._verify, task)

    def close(self) -> None:
        self._pool.submit(self._verifier.close).result()
        self._pool.shutdown()

    def __enter__(self) -> VerifyWorker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _ledger_delta(now: Ledger, before: Ledger) -> Ledger:
    out = Ledger()
    out.merge(now)
    for name, u in before.stages.items():
        out.stage(name).add(u, sign=-1)
    out.stages = {k: u for k, u in out.stages.items() if u.calls or u.cached or u.failures}
    return out


@task(name="synthesize-tasks", cache_policy=NO_CACHE)
async def synthesize_tasks(
    run: Run,
    spec: EnvironmentSpec,
    verifier: VerifyWorker,
    strategy: str,
    target: int,
    parents: list[Task],
    batch_size: int = 8,
    budget_factor: int = 4,
) -> int:
    """Propose until `target` tasks of this strategy are verified (or the budget is spent),
    keeping `concurrency` requests in flight; verified work is committed batch by batch."""
    store = run.store
    done: set[int] = set()
    accepted = 0
    for committed in store.batches(strategy):  # one read for both
        done.update(committed.indices)
        accepted += len(committed.accepted)
    if target <= accepted or (strategy == "evolved" and not parents):
        return accepted
    # an LLM-invented task costs a long answer and often repairs: a smaller budget
    factor = max(1, budget_factor // 2) if strategy == "llm" else budget_factor
    budget = target * factor + 4
    pending: Iterator[int] = (i for i in range(budget) if i not in done)
    propose = _proposer(run, spec, strategy, parents)

    async def item(index: int) -> tuple[Task | None, Rejection | None, Trajectory | None]:
        """Propose, then verify (on the verifier's thread): one work item, start to end."""
        outcome = await propose(index)
        if outcome.value is None:
            rejection = outcome.rejection or Rejection(stage=strategy, reason="failed", detail="")
            rejection.task_id = f"{run.brief.name}-{strategy}-{index:05d}"
            return None, rejection, None
        return await verifier.verify(outcome.value)

    window = max(2, 2 * run.llm.config.concurrency)
    in_flight: dict[asyncio.Future, int] = {}
    batch = Batch(strategy=strategy, indices=[])
    mark = Ledger()
    mark.merge(run.llm.ledger)
    batch_started = time.perf_counter()

    def commit() -> None:
        nonlocal batch, mark, batch_started
        if not batch.indices:
            return
        batch.ledger = _ledger_delta(run.llm.ledger, mark)
        batch.seconds = time.perf_counter() - batch_started
        store.commit_batch(batch)
        mark = Ledger()
        mark.merge(run.llm.ledger)
        batch = Batch(strategy=strategy, indices=[])
        batch_started = time.perf_counter()

    progress = Progress(
        TextColumn(f"tasks/{strategy}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("verified · {task.fields[proposed]} proposed"),
        TimeElapsedColumn(),
        console=run.console,
        transient=False,
    )
    try:
        with progress:
            bar = progress.add_task(strategy, total=target, completed=accepted, proposed=len(done))
            proposed = len(done)
            while True:
                while len(in_flight) < window and accepted < target:
                    index = next(pending, None)
                    if index is None:
                        break
                    in_flight[asyncio.ensure_future(item(index))] = index
                if not in_flight:
                    break
                finished, _ = await asyncio.wait(in_flight, return_when=asyncio.FIRST_COMPLETED)
                for fut in finished:
                    batch.indices.append(in_flight.pop(fut))
                    proposed += 1
                    task_, rejection, trajectory = fut.result()
                    if task_ is None or trajectory is None:
                        batch.rejected.append(rejection)  # type: ignore[arg-type]
                        continue
                    accepted += 1
                    batch.accepted.append(task_)
                    batch.trajectories.append(
                        TrajectoryRecord(
                            task_id=task_.id,
                            domain=run.brief.name,
                            strategy=strategy,
                            messages=trajectory.messages,
                            tools=spec.openai_tools(),
                        )
                    )
                progress.update(bar, completed=min(accepted, target), proposed=proposed)
                if len(batch.indices) >= batch_size:
                    commit()
    finally:
        for fut in in_flight:
            fut.cancel()
        commit()  # what finished is kept, even when the run is stopped
    return accepted


# summary -------------------------------------------------------------------------------


def summarise(run: Run, strategies: tuple[str, ...], seconds: float) -> RunSummary:
    """The per-stage table from what is on disk, so a resumed run reports the whole dataset."""
    summary = run.summary
    ledger = run.env_spent()
    task_rows = {s: StageStats(stage=f"tasks/{s}") for s in strategies}

    def count(batch: Batch) -> None:
        ledger.merge(batch.ledger)
        row = task_rows.get(batch.strategy)
        if row is None:
            return
        row.seen += len(batch.indices)
        row.passed += len(batch.accepted)
        row.seconds += batch.seconds
        for rej in batch.rejected:
            row.reject(f"{rej.stage}:{rej.reason}")

    counts = run.store.write_views(count)  # one read of the batches for views and table
    rows = {name: r.model_copy() for name, r in run.env_rows.items()}
    for r in rows.values():
        stages = ("tool_plan", "tools") if r.stage == "tools" else (r.stage,)
        r.tokens = sum(ledger.stage(s).tokens for s in stages if s in ledger.stages)
        r.cost_usd = sum(ledger.stage(s).cost_usd for s in stages if s in ledger.stages)
    for strategy, row in task_rows.items():
        u = ledger.stages.get(strategy)
        if u is not None:
            row.tokens, row.cost_usd = u.tokens, u.cost_usd
        rows[row.stage] = row
    summary.rows = rows
    summary.ledger = ledger
    summary.tasks = counts["tasks"]
    summary.trajectories = counts["trajectories"]
    summary.rejected = counts["rejected"]
    summary.seconds = seconds
    return summary


def make_console() -> Console:
    """Progress and the summary go to stderr; wide enough for the table when piped."""
    console = Console(stderr=True)
    if not console.is_terminal:
        console = Console(stderr=True, width=150)
    return console


@contextlib.asynccontextmanager
async def endpoint(
    base_url: str | None,
    model: str | None,
    model_size: str,
    parallel: int,
    console: Console,
    **overrides: Any,
):
    """The endpoint given, else the configured one, else the embedded llama.cpp server for
    the run's duration (always stopped)."""
    overrides = {k: v for k, v in overrides.items() if v is not None}
    config = LLMConfig.from_env()
    if base_url and model:
        config = LLMConfig(base_url=base_url, model=model, concurrency=parallel)
    if config is not None:
        yield config.model_copy(update=overrides)
        return
    from toolscale.llm.local import embedded_endpoint

    with embedded_endpoint(size=model_size, parallel=parallel, console=console) as (url, name):
        config = LLMConfig(base_url=url, model=name, concurrency=parallel, timeout_s=900)
        yield config.model_copy(update=overrides)


@flow(name="generate-domain", log_prints=True)
async def generate_domain(
    domain: str,
    n_tasks: int = 20,
    strategies: tuple[str, ...] = STRATEGIES,
    data_dir: str = "data",
    domains_dir: str = "domains",
    model_size: str = "1.5b",
    parallel: int = 2,
    base_url: str | None = None,
    model: str | None = None,
    timeout_s: float | None = None,
    max_attempts: int | None = None,
    cross_engine: bool = True,
) -> dict:
    """Brief -> environment -> verified tasks and trajectories under data/<domain>/."""
    started = time.perf_counter()
    check_strategies(tuple(strategies))
    brief = load_brief(brief_path(domains_dir, domain))
    store = DomainStore(data_dir, domain)
    console = make_console()
    resumed = store.dir.exists() and any(store.dir.iterdir())
    async with endpoint(
        base_url,
        model,
        model_size,
        parallel,
        console,
        timeout_s=timeout_s,
        max_attempts=max_attempts,
    ) as config:
        cache = ResponseCache(store.dir / "llm-cache")
        llm = LLMClient(config, cache)
        summary = RunSummary(
            domain=domain, model=config.model, endpoint=config.base_url, resumed=resumed
        )
        run = Run(brief=brief, store=store, llm=llm, console=console, summary=summary)
        run.load_env()
        try:
            spec = await build_environment(run)
            targets = split_targets(n_tasks, tuple(strategies))
            with VerifyWorker(
                spec, summary.verification, store.accepted(), cross_engine
            ) as verifier:
                for strategy in strategies:
                    parents = store.accepted("sampled") + store.accepted("llm")
                    await synthesize_tasks(
                        run, spec, verifier, strategy, targets[strategy], parents
                    )
        finally:
            summary = summarise(run, tuple(strategies), time.perf_counter() - started)
            from toolscale.jsonl import write_json

            write_json(store.dir / "report.json", summary)
            await llm.close()
    console.print(rich_table(summary))
    try:
        await acreate_markdown_artifact(
            key=f"generate-{domain.replace('_', '-')}",
            markdown=markdown(summary),
            description=f"toolscale generate {domain}",
        )
    except Exception as e:  # the data is on disk; a missing artifact is worth a warning only
        console.print(f"[yellow]no Prefect artifact: {e}[/]")
    with contextlib.suppress(Exception):
        get_run_logger().info("%s: %d verified tasks in %s", domain, summary.tasks, store.dir)
    return summary.model_dump(mode="json")


@flow(name="generate-all", log_prints=True)
async def generate_all(
    n_tasks: int = 20,
    domains: list[str] | None = None,
    data_dir: str = "data",
    domains_dir: str = "domains",
    model_size: str = "1.5b",
    parallel: int = 2,
) -> dict[str, int]:
    """Every domain (or the ones named), one after another, with one model server."""
    names = domains or sorted(p.parent.name for p in Path(domains_dir).glob("*/brief.yaml"))
    console = make_console()
    out: dict[str, int] = {}
    async with endpoint(None, None, model_size, parallel, console) as config:
        for name in names:
            try:
                result = await generate_domain(
                    name,
                    n_tasks=n_tasks,
                    data_dir=data_dir,
                    domains_dir=domains_dir,
                    parallel=config.concurrency,
                    base_url=config.base_url,
                    model=config.model,
                )
                out[name] = result["tasks"]
            except (GenerationFailed, BriefError) as e:  # one domain does not stop the others
                console.print(f"[red]{name}: {e}[/]")
                out[name] = 0
    return out
