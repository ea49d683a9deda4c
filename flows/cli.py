"""`toolscale` command line. Thin wiring: parsing and printing around validators.

It lives in flows/ because it wires validators (and later generators) together, and
toolscale/ may not import either (DESIGN.md's dependency rule).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from generators.strategies import DEFAULT_STRATEGIES, STRATEGY_NAMES, check_strategies
from toolscale.dataset import TEST_FRACTION
from toolscale.errors import ToolscaleError, pydantic_problems
from toolscale.jsonl import AtomicWriter, read_lines, write_json
from toolscale.report import StageReport
from toolscale.sandbox.base import ENGINE_NAMES, Limits
from toolscale.spec import EnvironmentSpec
from validators import structure
from validators.pipeline import ENVIRONMENT_STAGES, TASK_STAGES, EnvironmentRejected, Verifier


def load_environment(path: Path) -> EnvironmentSpec:
    """Read an environment file or exit with a message naming the file and the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise SystemExit(f"error: cannot read environment {path}: {e.strerror}") from None
    try:
        return EnvironmentSpec.model_validate_json(text)
    except ValidationError as e:
        lines = [f"  {path}: {problem}" for problem in pydantic_problems(e)[:10]]
        raise SystemExit(
            f"error: {path} is not a valid environment ({e.error_count()} problem(s)):\n"
            + "\n".join(lines)
        ) from None


def report_table(report: StageReport, title: str) -> Table:
    table = Table(title=title, title_justify="left")
    for col in ("stage", "seen", "passed", "rejected", "reasons", "ms/item"):
        table.add_column(col, justify="left" if col in ("stage", "reasons") else "right")
    order = {s.STAGE: i for i, s in enumerate(ENVIRONMENT_STAGES + TASK_STAGES)}
    for s in sorted(report.stages.values(), key=lambda s: order.get(s.stage, 99)):
        reasons = ", ".join(f"{r} {n}" for r, n in sorted(s.rejected.items()))
        ms = 1000 * s.seconds / s.seen if s.seen else 0.0
        table.add_row(s.stage, str(s.seen), str(s.passed), str(s.n_rejected), reasons, f"{ms:.2f}")
    total = report.accepted + report.rejected
    share = f"{report.accepted / total:.0%}" if total else "-"
    table.caption = (
        f"accepted {report.accepted} of {total} ({share}); rejected {report.rejected}; "
        f"{report.seconds:.2f} s"
    )
    return table


def cmd_verify(args: argparse.Namespace) -> int:
    console = Console(stderr=True)
    spec = load_environment(Path(args.environment))
    tasks_path = Path(args.tasks)
    if not tasks_path.is_file():
        raise SystemExit(f"error: tasks file {tasks_path} does not exist")
    out = Path(args.out)
    report = StageReport()
    limits = Limits(timeout_ms=args.timeout_ms)
    try:
        verifier = Verifier(
            spec,
            engine=args.engine,
            cross_engine=not args.no_cross_engine,
            limits=limits,
            near_duplicate=args.near_duplicate,
            report=report,
        )
    except EnvironmentRejected as e:
        with AtomicWriter(out / "environment_rejected.jsonl") as w:
            for r in e.rejections:
                w.write(r)
        write_json(out / "report.json", report)
        console.print(report_table(report, f"verify {args.environment}"))
        console.print(f"[red]{e}[/red]")
        return 1

    total_bytes = tasks_path.stat().st_size or 1
    items = ((len(line), structure.parse(line, source)) for source, line in read_lines(tasks_path))
    with (
        verifier,
        AtomicWriter(out / "accepted.jsonl") as accepted,
        AtomicWriter(out / "rejected.jsonl") as rejected,
        Progress(
            TextColumn("verifying"),
            BarColumn(),
            TextColumn("{task.fields[ok]} accepted / {task.fields[bad]} rejected"),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            disable=args.quiet,
        ) as progress,
    ):
        bar = progress.add_task("verify", total=total_bytes, ok=0, bad=0)
        for size, item in items:
            result = verifier.verify(item)
            if result.value is not None:
                accepted.write(result.value)
            else:
                rejected.write(result.rejection)
            progress.update(bar, advance=size, ok=report.accepted, bad=report.rejected)
    write_json(out / "report.json", report)
    console.print(report_table(report, f"verify {tasks_path} against {spec.name} ({args.engine})"))
    console.print(f"wrote {out}/accepted.jsonl, rejected.jsonl, report.json")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolscale", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("verify", help="verify tasks against an environment")
    v.add_argument("environment", help="environment JSON (schema, seed, tools, policy)")
    v.add_argument("tasks", help="tasks, one JSON object per line")
    v.add_argument("--engine", choices=ENGINE_NAMES, default="sqlite")
    v.add_argument("--out", default="out/verify", help="folder for accepted/rejected/report")
    v.add_argument(
        "--no-cross-engine", action="store_true", help="skip the replay on the other engine"
    )
    v.add_argument("--near-duplicate", type=float, default=0.8, help="instruction similarity cut")
    v.add_argument("--timeout-ms", type=float, default=250.0, help="budget per tool call")
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    v.set_defaults(func=cmd_verify)
    g = sub.add_parser(
        "generate",
        help="synthesize a verified dataset for a domain",
        description="Brief -> environment -> verified tasks and trajectories under DATA/DOMAIN. "
        "With TOOLSCALE_LLM_MODEL unset, a local llama.cpp server with Qwen2.5-Coder is "
        "built, started and stopped for the run.",
    )
    g.add_argument("domain", help="a folder of --domains with a brief.yaml, or 'all'")
    g.add_argument("-n", "--n-tasks", type=int, default=20, help="verified tasks wanted")
    g.add_argument(
        "--data",
        default="data",
        help="output root: a folder (default data/) or an fsspec URL such as s3://bucket/data",
    )
    g.add_argument("--domains", default="domains", help="where the briefs are")
    g.add_argument(
        "--strategies",
        default=",".join(DEFAULT_STRATEGIES),
        help=f"task strategies, comma-separated, of {', '.join(STRATEGY_NAMES)} (default: "
        f"{','.join(DEFAULT_STRATEGIES)}; llm is for strong endpoints)",
    )
    g.add_argument("--model-size", choices=["0.5b", "1.5b"], default="1.5b", help="embedded model")
    g.add_argument("--parallel", type=int, default=2, help="server slots / concurrent requests")
    g.add_argument(
        "--no-cross-engine",
        action="store_true",
        help="skip the DuckDB replay in verification (faster; determinism on SQLite only)",
    )
    g.add_argument(
        "--no-judge",
        action="store_true",
        help="keep verified tasks without the model's judgement (GenerationConfig.judge)",
    )
    g.add_argument(
        "--solver-k",
        type=int,
        default=0,
        help="keep only tasks an agent model solves in its sandbox within K episodes "
        "(0: off; GenerationConfig.solver_k)",
    )
    g.add_argument("--solver-model", default=None, help="the solver (default: the run's model)")
    g.add_argument("--solver-url", default=None, help="the solver's endpoint (with --solver-model)")
    g.add_argument(
        "--runner",
        choices=["process", "dask"],
        default="process",
        help="'dask': with 'all', domains side by side on Dask workers; with one domain, its "
        "work items in slices on Dask workers (the same tasks as 'process')",
    )
    g.add_argument(
        "--dask-address", default=None, help="an existing Dask scheduler (tcp://host:8786)"
    )
    g.add_argument("--dask-workers", type=int, default=2, help="workers of the local Dask cluster")
    g.set_defaults(func=cmd_generate, runs_flows=True, check=check_generate)
    ev = sub.add_parser(
        "eval",
        help="run an OpenAI-compatible model as the agent over a split and print pass^k",
        description="Loads the split with datasets.load_dataset (a folder from `toolscale "
        "export` or a Hub repo id), runs k episodes per task in the tasks' sandboxes with "
        "native tool calling, and writes trials.jsonl and report.json to --out.",
    )
    ev.add_argument("--model", default=None, help="the model name the endpoint serves")
    ev.add_argument("--base-url", default=None, help="the endpoint, e.g. http://host:8000/v1")
    ev.add_argument(
        "--model-size",
        choices=["0.5b", "1.5b"],
        default="1.5b",
        help="without --model/--base-url (and TOOLSCALE_LLM_MODEL): the embedded model",
    )
    ev.add_argument("--dataset", required=True, help="an exported folder or a Hub repo id")
    ev.add_argument("--split", default="test", help="the split (default test)")
    ev.add_argument("-k", type=int, default=4, help="trials per task; pass^1..pass^k")
    ev.add_argument("--domains", default="", help="comma-separated domains (default: all)")
    ev.add_argument("--limit", type=int, default=None, help="the first N tasks of each domain")
    ev.add_argument("--max-turns", type=int, default=30, help="assistant turns per episode")
    ev.add_argument("--workers", type=int, default=4, help="episodes at a time")
    ev.add_argument("--temperature", type=float, default=0.0)
    ev.add_argument(
        "--text-calls",
        action="store_true",
        help="also read calls the model writes as text (<tool_call> blocks, fenced JSON): "
        "small local models do; native tool calling only without it",
    )
    ev.add_argument("--api-key", default=None, help="default: OPENAI_API_KEY, else none")
    ev.add_argument("--out", default="out/eval", help="folder for trials.jsonl and report.json")
    ev.set_defaults(func=cmd_eval, runs_flows=True)
    t = sub.add_parser(
        "train",
        help="GRPO on the dataset with the bundled trainer (trainer/configs/NAME.yaml)",
        description="Loads the split with datasets.load_dataset, plays every rollout as a "
        "real episode in the task's sandbox, rewards outcome, efficiency and preference, "
        "checkpoints to the config's output_dir and resumes from it.",
    )
    t.add_argument("--config", default="cpu-tiny", help="a YAML file or a name in trainer/configs")
    t.set_defaults(func=cmd_train)
    sd = sub.add_parser(
        "sample-dataset",
        help="verify and export the bundled banking fixture: a dataset to try train and eval on",
    )
    sd.add_argument("--out", default="out/sample", help="writes OUT/data and OUT/dataset")
    sd.set_defaults(func=cmd_sample_dataset)
    r = sub.add_parser(
        "retire",
        help="move every kept task of one strategy of a run to rejected",
        description="For a strategy found to make invalid tasks after they were kept: its "
        "tasks move to rejected.jsonl (reason `retired`, each with itself), the views are "
        "rebuilt, and the next `toolscale generate` makes up the count (and the report).",
    )
    r.add_argument("domain", help="a run under --data")
    r.add_argument("--strategy", required=True, choices=STRATEGY_NAMES, help="the one to retire")
    r.add_argument("--data", default="data", help="where the runs are (default data/)")
    r.set_defaults(func=cmd_retire)
    e = sub.add_parser(
        "export",
        help="write the runs under --data as a Hugging Face dataset folder",
        description="Tasks (train/test per domain and `default`), environments and "
        "rejections as parquet, with a dataset card and a manifest, ready for "
        "datasets.load_dataset(OUT) and for publishing.",
    )
    e.add_argument("domains", nargs="*", help="domains to export, or 'all' (default: all)")
    e.add_argument("--out", default="out/dataset", help="the dataset folder (default out/dataset)")
    e.add_argument(
        "--data", default="data", help="where the runs are: a folder (default data/) or a store URL"
    )
    e.add_argument("--domains-dir", default="domains", help="where the briefs are")
    e.add_argument("--test-fraction", type=float, default=TEST_FRACTION, help="share in test")
    e.add_argument(
        "--format",
        choices=["hub", "tau2"],
        default="hub",
        help="hub: a Hugging Face dataset folder; tau2: tau2-bench's tasks.json, policy.md, "
        "db.json per domain",
    )
    e.add_argument(
        "--repo", default=None, help="the Hub repo id the card's snippets load (default OWNER/NAME)"
    )
    e.set_defaults(func=cmd_export)
    p = sub.add_parser(
        "publish",
        help="push an exported dataset folder to the Hugging Face Hub as one commit",
        description="Creates the dataset repo (and branch) when missing and pushes the folder "
        "as one atomic commit; the token comes from HF_TOKEN or `hf auth login`.",
    )
    p.add_argument("folder", help="a folder written by `toolscale export`")
    p.add_argument("--repo", required=True, help="OWNER/NAME of the dataset repo")
    p.add_argument("--private", action="store_true", help="create the repo private")
    p.add_argument("--revision", default=None, help="a branch to push to (created if missing)")
    p.add_argument("--dry-run", action="store_true", help="list what would be pushed, push nothing")
    p.set_defaults(func=cmd_publish)

    sv = sub.add_parser(
        "serve",
        help="a Prefect server, the process work pool, prefect.yaml's deployments and a worker",
        description="Starts a Prefect server (its database under --home), creates the "
        "process work pool, deploys prefect.yaml and starts a worker, all in the background; "
        "`toolscale stop` ends them.",
    )
    sv.add_argument("--home", default=".prefect", help="the server's folder (default .prefect)")
    sv.add_argument("--port", type=int, default=4200, help="the API and UI port")
    sv.add_argument("--prefect-file", default="prefect.yaml", help="the deployments")
    sv.add_argument("--pool", default="toolscale", help="the process work pool")
    sv.set_defaults(func=cmd_serve)

    st = sub.add_parser("stop", help="end what `toolscale serve` started")
    st.add_argument("--home", default=".prefect", help="the folder `serve` used")
    st.set_defaults(func=cmd_stop)
    return parser


def cmd_publish(args: argparse.Namespace) -> int:
    from toolscale.hub import PublishError, plan, publish, token_or_error

    console = Console(stderr=True)
    folder = Path(args.folder)
    try:
        if args.dry_run:
            done = plan(None, folder, args.repo, args.revision)
        else:
            from huggingface_hub import HfApi

            done = publish(
                HfApi(token=token_or_error()), folder, args.repo, args.private, args.revision
            )
    except PublishError as e:
        raise SystemExit(f"error: {e}") from None
    for path, local in done.add:
        console.print(
            f"{'would add' if args.dry_run else 'added'} {path} ({local.stat().st_size:,} B)"
        )
    for path in done.delete:
        console.print(f"deleted {path}")
    console.print(("would publish to " if args.dry_run else "published: ") + done.url)
    return 0


def cmd_eval(args: argparse.Namespace) -> int:
    import asyncio
    import os

    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    for flag, value in (
        ("-k", args.k),
        ("--max-turns", args.max_turns),
        ("--workers", args.workers),
    ):
        if value < 1:
            raise SystemExit(f"error: {flag} must be at least 1, got {value}")
    if args.limit is not None and args.limit < 1:
        raise SystemExit("error: --limit must be at least 1")
    if (args.model is None) != (args.base_url is None):
        raise SystemExit(
            "error: give --model and --base-url together (or neither: the embedded model)"
        )
    from flows.evaluate import evaluate_agent
    from trainer.data import DatasetError

    domains = [d.strip() for d in args.domains.split(",") if d.strip()] or None
    try:
        result = asyncio.run(
            evaluate_agent(
                args.model,
                args.base_url,
                args.dataset,
                split=args.split,
                k=args.k,
                domains=domains,
                limit=args.limit,
                max_turns=args.max_turns,
                workers=args.workers,
                temperature=args.temperature,
                api_key=args.api_key or os.environ.get("OPENAI_API_KEY"),
                out=args.out,
                model_size=args.model_size,
                text_calls=args.text_calls,
            )
        )
    except (DatasetError, ToolscaleError) as e:  # the dataset, the embedded model
        raise SystemExit(f"error: {e}") from None
    return 0 if result["overall"]["errors"] < result["overall"]["trials"] else 1


def cmd_train(args: argparse.Namespace) -> int:
    from trainer.config import ConfigError, load_config
    from trainer.data import DatasetError

    try:
        config = load_config(args.config)
    except ConfigError as e:
        raise SystemExit(f"error: {e}") from None
    from flows.console import make_console
    from trainer.grpo import train  # torch, transformers, TRL: slow

    console = make_console()
    try:
        result = train(config, console)
    except (DatasetError, ValueError) as e:
        raise SystemExit(f"error: {e}") from None
    for h in result.history:
        solved = h.get("rewards/outcome/mean", float("nan"))
        flat = h.get("rewards/flat_group/mean", float("nan"))
        console.print(
            f"step {int(h['step'])}: loss {h['loss']:.4f}, "
            f"reward {h.get('rewards/reward/mean', 0):.3f}, solved {solved:.2f}, "
            f"cost ${h.get('rewards/cost/mean', 0):.4f}, "
            f"turns {h.get('rewards/turns/mean', 0):.1f}, in flat groups {flat:.2f}"
        )
    console.print(
        f"trained {result.steps} steps in {result.seconds:.0f} s; model in "
        f"{result.output_dir}/final, TensorBoard logs in {result.output_dir}/runs"
    )
    return 0


def cmd_sample_dataset(args: argparse.Namespace) -> int:
    from flows.sample import sample_dataset

    folder = sample_dataset(Path(args.out))
    from flows.console import make_console

    make_console().print(f"wrote {folder} (the banking fixture, verified)")
    return 0


def cmd_retire(args: argparse.Namespace) -> int:
    from toolscale.store import DomainStore

    store = DomainStore.open(args.data, args.domain)
    if not store.batches_dir.is_dir():
        raise SystemExit(f"error: no run of {args.domain!r} under {args.data} ({store.dir})")
    try:
        moved = store.retire(args.strategy)
    except ToolscaleError as e:
        raise SystemExit(f"error: {e}") from None
    from flows.console import make_console

    make_console().print(
        f"{args.domain}: {moved} {args.strategy} task(s) moved to {store.dir / 'rejected.jsonl'}; "
        "`toolscale generate` makes up the count"
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from toolscale.export import ExportError, export, export_tau2

    console = Console(stderr=True)
    if not 0 <= args.test_fraction < 1:
        raise SystemExit(f"error: --test-fraction must be in [0, 1), got {args.test_fraction}")
    names = [d for d in args.domains if d != "all"] or None
    try:
        if args.format == "tau2":
            report = export_tau2(args.data, args.out, names)
        else:
            report = export(
                args.data,
                args.out,
                names,
                test_fraction=args.test_fraction,
                domains_dir=args.domains_dir,
                repo=args.repo,
            )
    except ExportError as e:
        raise SystemExit(f"error: {e}") from None
    for config, splits in report.rows.items():
        console.print(f"{config}: " + ", ".join(f"{s} {n}" for s, n in splits.items()))
    for skipped in report.skipped:
        console.print(f"[yellow]left out:[/] {skipped}")
    wrote = (
        "<domain>/tasks.json, policy.md, db.json"
        if args.format == "tau2"
        else "README.md, manifest.json, data/"
    )
    console.print(f"wrote {args.out} ({wrote})")
    return 0


def check_generate(args: argparse.Namespace) -> tuple[str, ...]:
    """Bad input is refused before a Prefect server starts or anything is written; returns
    the strategies asked for."""
    from toolscale.brief import BriefError, brief_path, load_brief

    if args.n_tasks < 1:
        raise SystemExit(f"error: --n-tasks must be at least 1, got {args.n_tasks}")
    strategies = tuple(s.strip() for s in args.strategies.split(",") if s.strip())
    try:
        check_strategies(strategies)
    except ValueError as e:
        raise SystemExit(f"error: --strategies: {e}") from None
    try:
        if args.domain != "all":  # a bad brief is reported before anything starts
            load_brief(brief_path(args.domains, args.domain))
    except BriefError as e:
        raise SystemExit(f"error: {e}") from None
    if args.solver_k < 0:
        raise SystemExit(f"error: --solver-k must be 0 (off) or more, got {args.solver_k}")
    if args.runner == "dask" and args.domain != "all" and args.solver_k:
        raise SystemExit("error: --solver-k runs in-process only: drop it or --runner dask")
    if args.dask_workers < 1:
        raise SystemExit(f"error: --dask-workers must be at least 1, got {args.dask_workers}")
    if (args.solver_model is None) != (args.solver_url is None):
        raise SystemExit("error: give --solver-model and --solver-url together")
    return strategies


def cmd_generate(args: argparse.Namespace) -> int:
    """Runs the Prefect flow; Prefect starts a temporary local server when none is set."""
    import asyncio
    import os

    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")
    strategies = check_generate(args)
    from flows.generate import generate_all, generate_domain  # Prefect: slow
    from generators.config import DEFAULT_CONFIG

    config = DEFAULT_CONFIG.model_copy(
        update={"judge": not args.no_judge, "solver_k": args.solver_k}
    )

    try:
        if args.domain == "all":
            done = asyncio.run(
                generate_all(
                    n_tasks=args.n_tasks,
                    data_dir=args.data,
                    domains_dir=args.domains,
                    model_size=args.model_size,
                    parallel=args.parallel,
                    config=config,
                    runner=args.runner,
                    dask_address=args.dask_address,
                    dask_workers=args.dask_workers,
                )
            )
            return 0 if all(done.values()) else 1
        summary = asyncio.run(
            generate_domain(
                args.domain,
                n_tasks=args.n_tasks,
                strategies=strategies,
                data_dir=args.data,
                domains_dir=args.domains,
                model_size=args.model_size,
                parallel=args.parallel,
                cross_engine=not args.no_cross_engine,
                config=config,
                solver_model=args.solver_model,
                solver_url=args.solver_url,
                runner=args.runner,
                dask_address=args.dask_address,
                dask_workers=args.dask_workers,
            )
        )
    except (ToolscaleError, ValueError) as e:  # a stage, the store, the embedded model
        raise SystemExit(f"error: {e}") from None
    return 0 if summary["tasks"] > 0 else 1


def cmd_serve(args: argparse.Namespace) -> int:
    from flows.serve import ServeError, serve

    console = Console(stderr=True)
    console.print(f"starting a Prefect server on port {args.port} (its data in {args.home}) ...")
    try:
        served = serve(Path(args.home), args.port, Path(args.prefect_file), args.pool)
    except ServeError as e:
        raise SystemExit(f"error: {e}") from None
    console.print(f"UI: {served.ui_url}    API: {served.api_url}")
    console.print(f"work pool {served.pool!r}, a worker (logs in {served.home}/worker.log)")
    for name in served.deployments:
        console.print(f"  deployment {name}")
    console.print("`make stop` (toolscale stop) ends the server and the worker")
    return 0


def cmd_stop(args: argparse.Namespace) -> int:
    from flows.serve import stop

    served = stop(Path(args.home))
    console = Console(stderr=True)
    if served is None:
        console.print(f"nothing to stop: no server started under {args.home}")
    else:
        console.print(f"stopped the worker and the server on {served.ui_url}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not getattr(args, "runs_flows", False):
        return args.func(args)
    check = getattr(args, "check", None)
    if check is not None:  # bad input is refused before the server starts
        check(args)
    from flows.server import ServerError, own_server  # Prefect: slow

    # a server that dies with this process: kill -9 of a run leaves no Prefect server behind
    try:
        with own_server():
            return args.func(args)
    except ServerError as e:
        raise SystemExit(f"error: {e}") from None


if __name__ == "__main__":
    sys.exit(main())
