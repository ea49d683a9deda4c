"""Prefect flows: `generate_domain` turns a brief into a verified dataset under data/<domain>/;
`generate_all` does every domain with one model server.

Thin wiring: generators propose, validators decide, the store persists. Tasks are coarse
(one per environment stage group and per task strategy). Everything is persisted as it
is made, so a killed run started again resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

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
from generators.config import DEFAULT_CONFIG, GenerationConfig
from generators.strategies import (
    STRATEGIES,
    STRATEGY_NAMES,
    Strategy,
    StrategyContext,
    check_strategies,
    split_targets,
)
from generators.toolkit import schema_tools, status_tools
from toolscale.brief import Brief, BriefError, brief_path, load_brief
from toolscale.environment import Environment
from toolscale.jsonl import write_json
from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import LLMClient, Outcome
from toolscale.llm.endpoint import endpoint
from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection, StageReport
from toolscale.schema import Scalar, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, DomainStore, TrajectoryRecord
from toolscale.summary import RunSummary, StageRow, find_row, markdown, rich_table, summarise
from toolscale.task import Task
from toolscale.tool import Tool
from toolscale.trajectory import Trajectory
from validators.pipeline import Verifier, verify_environment

ENV_STAGES = ("schema", "rows", "tool_plan", "tools", "policy")


class GenerationFailed(RuntimeError):
    """A stage could not produce anything usable; what was made so far stays on disk."""


@dataclass
class Run:
    brief: Brief
    store: DomainStore
    llm: LLMClient
    console: Console
    summary: RunSummary
    config: GenerationConfig
    env_rows: list[StageRow] = field(default_factory=list)
    env_ledger: Ledger = field(default_factory=Ledger)  # what earlier runs spent on them

    def env_row(self, stage: str) -> StageRow:
        return find_row(self.env_rows, stage)

    def load_env(self) -> None:
        """Environment stage rows and tokens of earlier (maybe killed) runs."""
        self.env_rows = self.store.load_stage("environment_rows", list[StageRow]) or []
        self.env_ledger = self.store.load_stage("environment_ledger", Ledger) or Ledger()

    def env_spent(self) -> Ledger:
        out = self.env_ledger.snapshot()
        for stage in ENV_STAGES:
            if stage in self.llm.ledger.stages:
                out.stage(stage).add(self.llm.ledger.stages[stage])
        return out

    def save_env(self) -> None:
        """Saved as each stage ends, so a kill -9 loses no environment figure."""
        self.store.save_stage("environment_rows", self.env_rows, list[StageRow])
        self.store.save_stage("environment_ledger", self.env_spent(), Ledger)


# environment ---------------------------------------------------------------------------


async def _stage(
    run: Run,
    name: str,
    kind: object,
    make: Callable[[int], Awaitable[Outcome]],
) -> object:
    """A stored stage, or up to `config.env_attempts` fresh samples of it; counted in its
    row."""
    stored = run.store.load_stage(name, kind)
    if stored is not None:
        return stored
    row = run.env_row(name)
    started = time.perf_counter()
    try:
        for attempt in range(run.config.env_attempts):
            row.proposed += 1
            outcome = await make(attempt)
            if outcome.ok and outcome.value is not None:
                row.accepted += 1
                run.store.save_stage(name, outcome.value, kind)
                return outcome.value
            reason = outcome.rejection.reason if outcome.rejection else "failed"
            row.reject(reason)
            detail = outcome.rejection.detail if outcome.rejection else ""
            run.console.print(
                f"[yellow]{name}: attempt {attempt + 1} rejected ({reason})[/] {detail[:300]}"
            )
        raise GenerationFailed(
            f"stage {name!r} failed {run.config.env_attempts} times; last: {reason}: {detail[:500]}"
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
        row.proposed += len(kept) + len(dropped)
        row.accepted += len(kept)
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
        verdict = self._verifier.verify(task)
        if verdict.task is None:
            return None, verdict.rejection, None
        return verdict.task, None, self._verifier.env.demonstrate(verdict.task)

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


@task(name="synthesize-tasks", cache_policy=NO_CACHE)
async def synthesize_tasks(
    run: Run,
    spec: EnvironmentSpec,
    verifier: VerifyWorker,
    strategy: Strategy,
    target: int,
    parents: list[Task],
) -> int:
    """Propose until `target` tasks of this strategy are verified (or the budget is spent),
    keeping `concurrency` requests in flight; verified work is committed batch by batch."""
    store = run.store
    done: set[int] = set()
    accepted = 0
    for committed in store.batches(strategy.name):  # one read for both
        done.update(committed.indices)
        accepted += len(committed.accepted)
    if target <= accepted or (strategy.needs_parents and not parents):
        return accepted
    config = run.config
    factor = max(1, config.budget_factor // strategy.budget_divisor)
    budget = target * factor + config.budget_slack
    pending: Iterator[int] = (i for i in range(budget) if i not in done)
    ctx = StrategyContext(  # the walks' own sandbox; verification has its own
        llm=run.llm,
        brief=run.brief,
        env=Environment(spec),
        sampler=ArgumentSampler(spec),
        config=config,
    )

    async def item(index: int) -> tuple[Task | None, Rejection | None, Trajectory | None]:
        """Propose, then verify (on the verifier's thread): one work item, start to end."""
        outcome = await strategy.propose(ctx, index, parents)
        if outcome.value is None:
            rejection = outcome.rejection or Rejection(
                stage=strategy.name, reason="failed", detail=""
            )
            rejection.task_id = strategy.task_id(run.brief.name, index)
            return None, rejection, None
        return await verifier.verify(outcome.value)

    window = config.window(run.llm.config.concurrency)
    in_flight: dict[asyncio.Future, int] = {}
    batch = Batch(strategy=strategy.name, indices=[])
    mark = run.llm.ledger.snapshot()
    batch_started = time.perf_counter()

    def commit() -> None:
        nonlocal batch, mark, batch_started
        if not batch.indices:
            return
        batch.ledger = run.llm.ledger.since(mark)
        batch.seconds = time.perf_counter() - batch_started
        store.commit_batch(batch)
        mark = run.llm.ledger.snapshot()
        batch = Batch(strategy=strategy.name, indices=[])
        batch_started = time.perf_counter()

    progress = Progress(
        TextColumn(f"tasks/{strategy.name}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("verified · {task.fields[proposed]} proposed"),
        TimeElapsedColumn(),
        console=run.console,
        transient=False,
    )
    try:
        with progress:
            bar = progress.add_task(
                strategy.name, total=target, completed=accepted, proposed=len(done)
            )
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
                            strategy=strategy.name,
                            messages=trajectory.messages,
                            tools=spec.openai_tools(),
                        )
                    )
                progress.update(bar, completed=min(accepted, target), proposed=proposed)
                if len(batch.indices) >= config.batch_size:
                    commit()
    finally:
        for fut in in_flight:
            fut.cancel()
        commit()  # what finished is kept, even when the run is stopped
    return accepted


def make_console() -> Console:
    """Progress and the summary go to stderr; wide enough for the table when piped."""
    console = Console(stderr=True)
    if not console.is_terminal:
        console = Console(stderr=True, width=150)
    return console


@flow(name="generate-domain", log_prints=True)
async def generate_domain(
    domain: str,
    n_tasks: int = 20,
    strategies: tuple[str, ...] = STRATEGY_NAMES,
    data_dir: str = "data",
    domains_dir: str = "domains",
    model_size: str = "1.5b",
    parallel: int = 2,
    base_url: str | None = None,
    model: str | None = None,
    timeout_s: float | None = None,
    max_attempts: int | None = None,
    cross_engine: bool = True,
    config: GenerationConfig = DEFAULT_CONFIG,
) -> dict:
    """Brief -> environment -> verified tasks and trajectories under data/<domain>/."""
    started = time.perf_counter()
    chosen = check_strategies(tuple(strategies))
    brief = load_brief(brief_path(domains_dir, domain))
    store = DomainStore(data_dir, domain)
    console = make_console()
    resumed = store.dir.exists() and any(store.dir.iterdir())
    with endpoint(
        base_url,
        model,
        model_size,
        parallel,
        console,
        timeout_s=timeout_s,
        max_attempts=max_attempts,
    ) as llm_config:
        cache = ResponseCache(store.dir / "llm-cache")
        llm = LLMClient(llm_config, cache)
        summary = RunSummary(
            domain=domain, model=llm_config.model, endpoint=llm_config.base_url, resumed=resumed
        )
        run = Run(
            brief=brief, store=store, llm=llm, console=console, summary=summary, config=config
        )
        run.load_env()
        try:
            spec = await build_environment(run)
            targets = split_targets(n_tasks, tuple(strategies))
            with VerifyWorker(
                spec, summary.verification, store.accepted(), cross_engine
            ) as verifier:
                for strategy in chosen:
                    parents = [  # what evolution may build on: the other strategies' tasks
                        t for s in STRATEGIES if not s.needs_parents for t in store.accepted(s.name)
                    ]
                    await synthesize_tasks(
                        run, spec, verifier, strategy, targets[strategy.name], parents
                    )
        finally:
            seconds = time.perf_counter() - started
            summary = summarise(
                summary, store, run.env_rows, run.env_spent(), tuple(strategies), seconds
            )
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
    config: GenerationConfig = DEFAULT_CONFIG,
) -> dict[str, int]:
    """Every domain (or the ones named), one after another, with one model server."""
    names = domains or sorted(p.parent.name for p in Path(domains_dir).glob("*/brief.yaml"))
    console = make_console()
    out: dict[str, int] = {}
    with endpoint(None, None, model_size, parallel, console) as llm_config:
        for name in names:
            try:
                result = await generate_domain(
                    name,
                    n_tasks=n_tasks,
                    data_dir=data_dir,
                    domains_dir=domains_dir,
                    parallel=llm_config.concurrency,
                    base_url=llm_config.base_url,
                    model=llm_config.model,
                    config=config,
                )
                out[name] = result["tasks"]
            except (GenerationFailed, BriefError) as e:  # one domain does not stop the others
                console.print(f"[red]{name}: {e}[/]")
                out[name] = 0
    return out
