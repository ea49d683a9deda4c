"""Prefect flows: `generate_domain` turns a brief into a verified dataset under data/<domain>/;
`generate_all` does every domain with one model server.

Wiring only: generators propose (generators/environment.py, generators/scheduler.py),
validators decide, the store persists, toolscale/summary.py sums up. Prefect tasks are
coarse (one for the environment, one per task strategy). Everything is persisted as it is
made, so a killed run started again resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
import traceback
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from rich.console import Console

from flows.console import leave_artifact, make_console, plain_lines, task_progress, warner
from flows.spread import DaskItems, Job, dask_client
from generators import environment, scheduler
from generators.config import DEFAULT_CONFIG, GenerationConfig
from generators.environment import EnvironmentStages, GenerationFailed
from generators.strategies import (
    DEFAULT_STRATEGIES,
    STRATEGIES,
    Strategy,
    check_strategies,
    split_targets,
)
from toolscale.brief import Brief, BriefError, brief_path, load_brief
from toolscale.environment import Environment
from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.llm.endpoint import endpoint
from toolscale.spec import EnvironmentSpec
from toolscale.store import REFUSED_ON_RESUME, Batch, DomainStore, TrajectoryRecord
from toolscale.summary import RunSummary, markdown, rich_table, summarise
from toolscale.task import Task
from trainer.policies import OpenAIPolicy
from trainer.solver import SolverCheck
from validators import judge
from validators.pipeline import verify, verify_environment
from validators.replay import restated
from validators.worker import VerifyWorker


@task(name="build-environment", cache_policy=NO_CACHE)
async def build_environment(
    llm: LLMClient,
    brief: Brief,
    stages: EnvironmentStages,
    config: GenerationConfig,
    console: Console,
) -> EnvironmentSpec:
    """schema -> seed rows -> tools -> policy; each checked before the next starts."""
    stages.tell = plain_lines(console, brief.name)
    return await environment.build_environment(
        llm, brief, stages, verify_environment, config, warner(console)
    )


@task(name="synthesize-tasks", cache_policy=NO_CACHE)
async def synthesize_tasks(
    strategy: Strategy,
    llm: LLMClient,
    brief: Brief,
    spec: EnvironmentSpec,
    store: DomainStore,
    verifier: VerifyWorker,
    target: int,
    parents: list[Task],
    config: GenerationConfig,
    console: Console,
    solver: scheduler.Judge | None = None,
    remote: scheduler.Remote | None = None,
) -> int:
    """Propose until `target` tasks of this strategy are verified and judged (or the budget
    is spent); finished work is committed batch by batch."""
    judging = functools.partial(judge.judge, llm, spec) if config.judge else None
    with task_progress(console, strategy.name, target) as report:
        return await scheduler.synthesize(
            strategy,
            llm,
            brief,
            spec,
            store,
            verifier.verify,
            target,
            parents,
            config,
            report,
            judge=judging,
            solver=solver,
            forget=verifier.forget,
            remote=remote,
        )


def solver_check(agent: LLMConfig, llm: LLMClient, config: GenerationConfig) -> SolverCheck:
    """The solver check against `agent`, charged to the run's ledger at its prices."""

    def policy() -> OpenAIPolicy:
        return OpenAIPolicy(
            agent.model,
            agent.base_url,
            agent.api_key,
            temperature=agent.temperature,
            timeout_s=agent.timeout_s,
            text_calls=True,  # a filter, not a benchmark: the embedded model writes calls as text
        )

    return SolverCheck(
        policy,
        config.solver_k,
        config.solver_max_turns,
        llm.ledger,
        agent.price_in,
        agent.price_out,
    )


def restate_unaffected(store: DomainStore, spec: EnvironmentSpec, batches: list[Batch]) -> int:
    """Kept tasks whose gold does on today's environment what it did where it was kept,
    with the final state it reaches there (`replay.restated`); each batch so changed is
    written back. A seed made again changes the whole state's hash, and without this every
    kept task failed `expected_mismatch` however far from the change it lay."""
    envs: dict[str, Environment] = {}
    count = 0
    try:
        for batch in batches:
            changed = False
            for k, kept in enumerate(batch.accepted):
                if kept.expected is None:
                    continue
                engine = kept.expected.engine
                if engine not in envs:
                    envs[engine] = Environment(spec, engine=engine)  # type: ignore[arg-type]
                if (new := restated(kept, envs[engine])) is not None:
                    batch.accepted[k] = new
                    changed = True
                    count += 1
            if changed:
                store.commit_batch(batch)
    finally:
        for env in envs.values():
            env.close()
    if count:
        store.write_views()
    return count


def redemonstrate(store: DomainStore, spec: EnvironmentSpec) -> int:
    """The kept tasks' conversations from today's environment, where they differ: a policy
    or tools made again on a resume left those kept before showing the old ones (weather's
    30 told the agent to find the user with `find_subscription_by_email`, every gold
    starting with `find_forecaster`; medicine's lacked a rule its tools now enforce),
    though each task was verified again on the new. Each batch so changed is written back;
    returns the conversations changed."""
    count = 0
    tools = spec.openai_tools()
    with Environment(spec) as env:
        for batch in store.batches():
            domain = batch.trajectories[0].domain if batch.trajectories else spec.name
            records = [
                TrajectoryRecord(
                    task_id=t.id,
                    domain=domain,
                    strategy=batch.strategy,
                    messages=env.demonstrate(t).messages,
                    tools=tools,
                )
                for t in batch.accepted
            ]
            changed = sum(r not in batch.trajectories for r in records)
            if changed:
                batch.trajectories = records
                store.commit_batch(batch)
                count += changed
    if count:
        store.write_views()
    return count


@task(name="reverify-committed", cache_policy=NO_CACHE)
def reverify_committed(
    store: DomainStore, spec: EnvironmentSpec, cross_engine: bool, console: Console
) -> int:
    """A resumed run holds what earlier sittings kept to today's validators: a task they
    no longer pass moves to its batch's rejected, with the reason and the task itself (so
    nothing is lost), and the run makes up the count. Without it, a run resumed after a
    validator was fixed would ship the very tasks the fix was for. The judge's verdicts
    stand (it is not asked again)."""
    batches = list(store.batches())
    if restated := restate_unaffected(store, spec, batches):
        console.print(
            f"{restated} tasks kept earlier do the same on the environment made again (only "
            "rows their gold never touches differ): their final state is restated"
        )
    tasks = [t for b in batches for t in b.accepted]
    if not tasks:
        return 0
    _, rejected, _ = verify(spec, tasks, cross_engine=cross_engine)
    stale = {
        r.task_id: r.model_copy(update={"detail": f"{REFUSED_ON_RESUME}: {r.detail}"})
        for r in rejected
        if r.task_id is not None
    }
    for batch in batches:
        store.move_to_rejected(batch, stale)
    if stale:
        console.print(
            f"{len(stale)} of {len(tasks)} tasks kept earlier no longer pass the validators: "
            "moved to rejected"
        )
    if shown := redemonstrate(store, spec):
        console.print(f"{shown} conversations of tasks kept earlier shown on today's environment")
    return len(stale)


@flow(name="generate-domain", log_prints=True)
async def generate_domain(
    domain: str,
    n_tasks: int = 20,
    strategies: tuple[str, ...] = DEFAULT_STRATEGIES,
    data_dir: str = "data",
    domains_dir: str = "domains",
    model_size: str = "1.5b",
    parallel: int = 2,
    base_url: str | None = None,
    model: str | None = None,
    timeout_s: float | None = None,
    max_attempts: int | None = None,
    endpoints: list[str] | None = None,
    cross_engine: bool = True,
    config: GenerationConfig = DEFAULT_CONFIG,
    solver_model: str | None = None,
    solver_url: str | None = None,
    runner: str = "process",
    dask_address: str | None = None,
    dask_workers: int = 2,
) -> dict:
    """Brief -> environment -> verified tasks and trajectories under data/<domain>/. With
    `config.solver_k`, an agent model (`solver_model` at `solver_url`, else the run's
    endpoint) must also solve each kept task in its sandbox. With `runner="dask"`, the
    work items go to Dask workers in slices (`flows/spread.py`) and the same tasks are
    kept."""
    if runner not in ("process", "dask"):
        raise ValueError(f"unknown runner {runner!r}: use 'process' or 'dask'")
    if runner == "dask" and config.solver_k:
        raise ValueError("the solver check runs in-process only: drop solver_k or the Dask runner")
    started = time.perf_counter()
    chosen = check_strategies(tuple(strategies))
    brief = load_brief(brief_path(domains_dir, domain))
    store = DomainStore.open(data_dir, domain)
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
        endpoints=endpoints,
    ) as llm_config:
        llm = LLMClient(llm_config, ResponseCache(store.dir / "llm-cache"))
        summary = RunSummary(
            domain=domain,
            model=llm_config.model,
            endpoint=", ".join(url for url, _ in llm_config.servers()),
            resumed=resumed,
        )
        stages = EnvironmentStages.load(store, llm.ledger)
        try:
            spec = await build_environment(llm, brief, stages, config, console)
            targets = split_targets(n_tasks, tuple(strategies))
            if resumed:
                reverify_committed(store, spec, cross_engine, console)
            solver = None
            if config.solver_k:
                agent = llm_config
                if solver_model and solver_url:
                    agent = llm_config.model_copy(
                        update={"model": solver_model, "base_url": solver_url}
                    )
                solver = functools.partial(solver_check(agent, llm, config).check, spec)
            with (
                VerifyWorker(
                    spec, summary.verification, store.accepted(), cross_engine
                ) as verifier,
                (
                    dask_client(dask_address, dask_workers)
                    if runner == "dask"
                    else contextlib.nullcontext()
                ) as client,
            ):
                for strategy in chosen:
                    parents = [  # what evolution may build on: the other strategies' tasks
                        t for s in STRATEGIES if not s.needs_parents for t in store.accepted(s.name)
                    ]
                    remote = None
                    if client is not None:
                        job = Job(
                            strategy.name, brief, spec, parents, config, llm_config, cross_engine
                        )
                        remote = DaskItems(client, job, llm, verifier, config.batch_size)
                    try:
                        await synthesize_tasks(
                            strategy,
                            llm,
                            brief,
                            spec,
                            store,
                            verifier,
                            targets[strategy.name],
                            parents,
                            config,
                            console,
                            solver,
                            remote,
                        )
                    finally:
                        if remote is not None:
                            remote.close()
        finally:
            seconds = time.perf_counter() - started
            summary = summarise(
                summary, store, stages.rows, stages.spent(), tuple(strategies), seconds
            )
            store.save_report(summary)
            await llm.close()
    console.print(rich_table(summary))
    key = f"generate-{domain.replace('_', '-')}"
    await leave_artifact(console, key, markdown(summary), f"toolscale generate {domain}")
    with contextlib.suppress(Exception):
        get_run_logger().info("%s: %d verified tasks in %s", domain, summary.tasks, store.location)
    return summary.model_dump(mode="json")


@task(name="generate-domain-on-a-worker", cache_policy=NO_CACHE)
def domain_on_a_worker(
    name: str,
    n_tasks: int,
    data_dir: str,
    domains_dir: str,
    llm_config: LLMConfig,
    config: GenerationConfig,
) -> int:
    """One domain on a Dask worker: its own flow run, store, sandboxes and verifier, so no
    two workers write the same file; what it makes is what the in-process run makes."""
    # the module as the worker imports it: the task arrives pickled by value, and a flow
    # whose globals came with it cannot resolve its parameters' types
    from flows.generate import generate_domain as domain_flow

    result = asyncio.run(
        domain_flow(
            name,
            n_tasks=n_tasks,
            data_dir=data_dir,
            domains_dir=domains_dir,
            parallel=llm_config.concurrency,
            base_url=llm_config.base_url,
            model=llm_config.model,
            endpoints=llm_config.endpoints or None,
            config=config,
        )
    )
    return int(result["tasks"])


def dask_runner(address: str | None, workers: int) -> Any:
    """prefect-dask's task runner: an existing cluster at `address`, else a LocalCluster of
    `workers` processes, which get this process's Prefect API."""
    from prefect.settings import PREFECT_API_URL
    from prefect_dask import DaskTaskRunner

    if address:
        return DaskTaskRunner(address=address)
    env = {"PREFECT_API_URL": str(PREFECT_API_URL.value() or "")}
    kwargs = {"n_workers": workers, "processes": True, "threads_per_worker": 1}
    return DaskTaskRunner(cluster_kwargs={**kwargs, "dashboard_address": None, "env": env})


@flow(name="generate-all", log_prints=True)
async def generate_all(
    n_tasks: int = 20,
    domains: list[str] | None = None,
    data_dir: str = "data",
    domains_dir: str = "domains",
    model_size: str = "1.5b",
    parallel: int = 2,
    config: GenerationConfig = DEFAULT_CONFIG,
    runner: str = "process",
    dask_address: str | None = None,
    dask_workers: int = 2,
) -> dict[str, int]:
    """Every domain (or the ones named) with one model server: one after another in this
    process, or with `runner="dask"` side by side on Dask workers (a LocalCluster of
    `dask_workers`, or the cluster at `dask_address`)."""
    names = domains or sorted(p.parent.name for p in Path(domains_dir).glob("*/brief.yaml"))
    if runner not in ("process", "dask"):
        raise ValueError(f"unknown runner {runner!r}: use 'process' or 'dask'")
    console = make_console()
    out: dict[str, int] = {}
    with endpoint(None, None, model_size, parallel, console) as llm_config:
        if runner == "dask":
            with dask_runner(dask_address, dask_workers) as dask:
                futures = {
                    name: dask.submit(
                        domain_on_a_worker,
                        parameters={
                            "name": name,
                            "n_tasks": n_tasks,
                            "data_dir": data_dir,
                            "domains_dir": domains_dir,
                            "llm_config": llm_config,
                            "config": config,
                        },
                    )
                    for name in names
                }
                for name, future in futures.items():
                    try:
                        out[name] = future.result()
                    except Exception as e:  # one domain does not stop the others
                        console.print(f"[red]{name}: failed: {type(e).__name__}: {e}[/]")
                        out[name] = 0
            return out
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
                    endpoints=llm_config.endpoints or None,
                    config=config,
                )
                out[name] = result["tasks"]
            except (GenerationFailed, BriefError) as e:  # one domain does not stop the others
                console.print(f"[red]{name}: {e}[/]")
                out[name] = 0
            except Exception as e:  # a bug met in one domain: said, with where, and the
                # others still run (what the domain committed stays for its resume)
                console.print(f"[red]{name}: failed: {type(e).__name__}: {e}[/]")
                console.print(traceback.format_exc(), markup=False, highlight=False)
                out[name] = 0
    return out
