"""`toolscale export`: the runs under `data/` as a folder laid out like a Hugging Face Hub
dataset repository, which `datasets.load_dataset(folder, config)` opens as any consumer
would.

    README.md                       the card: YAML `configs`, then figures from the runs
    manifest.json                   version, commit, models, briefs' hashes, each report
    data/<domain>/<split>-NNNNN-of-NNNNN.parquet    tasks (the `default` config lists all)
    data/environments/train-...     one row per environment (the sandbox, exactly)
    data/rejected/train-...         every rejection with its stage, reason and item

Rows are written as a stream, a shard at a time, with an Arrow schema derived from the
row models, so memory does not grow with the number of tasks and every shard has the same
columns. Unchanged input gives byte-identical files. A domain with no verified task or a
batch that cannot be read is named in the report and left out; the export goes on."""

from __future__ import annotations

import hashlib
import json
import subprocess
import types
import typing
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Union, get_args, get_origin

import pyarrow as pa
import pyarrow.parquet as pq
import yaml
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from pydantic import BaseModel, ValidationError

from toolscale import charts, tau2
from toolscale.brief import load_brief
from toolscale.dataset import (
    TEST_FRACTION,
    EnvironmentRow,
    RejectedRow,
    TaskRow,
    canonical_json,
    environment_row,
    held_out,
    rejected_row,
    task_rows,
)
from toolscale.errors import ToolscaleError, pydantic_problems
from toolscale.figures import EnvironmentFigures, TaskFigures, TaskTally, environment_figures
from toolscale.mirror import is_url, local_copy
from toolscale.reasons import ErrorReason
from toolscale.report import Rejection
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, DomainStore, StoreError, TrajectoryRecord
from toolscale.summary import JUDGE, RunSummary
from toolscale.task import Task

ROWS_PER_SHARD = 10_000
ROWS_PER_GROUP = 1_000
SPLITS = ("train", "test")
TEMPLATES = Path(__file__).parent / "templates"


class ExportError(ToolscaleError):
    """Nothing can be exported: no data folder, or no domain with a verified task."""

    reason = ErrorReason.NOTHING_TO_EXPORT


# -- Arrow schemas from the row models -------------------------------------------------------


def arrow_type(annotation: Any) -> pa.DataType:
    """The Arrow type of a field: nested models become structs, lists lists, and everything
    that varies in shape is already a JSON string in the models."""
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        inner = [a for a in get_args(annotation) if a is not type(None)]
        if len(inner) != 1:
            raise TypeError(f"no Arrow type for {annotation!r}")
        return arrow_type(inner[0])
    if origin is list:
        return pa.list_(arrow_type(get_args(annotation)[0]))
    if origin is Literal:
        return pa.string()
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return pa.struct(arrow_fields(annotation))
    simple: dict[type, pa.DataType] = {
        str: pa.string(),
        int: pa.int64(),
        float: pa.float64(),
        bool: pa.bool_(),
    }
    if annotation in simple:
        return simple[annotation]
    raise TypeError(f"no Arrow type for {annotation!r}")


def arrow_fields(model: type[BaseModel]) -> list[pa.Field]:
    hints = typing.get_type_hints(model)
    return [pa.field(name, arrow_type(hints[name])) for name in model.model_fields]


def arrow_schema(model: type[BaseModel]) -> pa.Schema:
    return pa.schema(arrow_fields(model))


# -- shards ----------------------------------------------------------------------------------


@dataclass
class ShardWriter:
    """Rows of one config and split, written a row group at a time into shards of at most
    `ROWS_PER_SHARD` rows under temporary names, renamed to `<split>-NNNNN-of-NNNNN.parquet`
    once their number is known: at most one row group is held in memory."""

    folder: Path
    split: str
    schema: pa.Schema
    rows: int = 0
    _shards: list[Path] = field(default_factory=list)
    _pending: list[dict[str, Any]] = field(default_factory=list)
    _writer: pq.ParquetWriter | None = None
    _in_shard: int = 0

    def add(self, row: BaseModel) -> None:
        self._pending.append(row.model_dump(mode="json"))
        self.rows += 1
        if len(self._pending) >= ROWS_PER_GROUP:
            self._write_group()

    def _write_group(self) -> None:
        if self._writer is None or self._in_shard >= ROWS_PER_SHARD:
            self._close_shard()
            self.folder.mkdir(parents=True, exist_ok=True)
            path = self.folder / f".{self.split}-{len(self._shards):05d}.parquet.part"
            self._writer = pq.ParquetWriter(
                path, self.schema, compression="zstd", write_statistics=False
            )
            self._shards.append(path)
            self._in_shard = 0
        table = pa.Table.from_pylist(self._pending, schema=self.schema)
        self._writer.write_table(table, row_group_size=ROWS_PER_GROUP)
        self._in_shard += len(self._pending)
        self._pending = []

    def _close_shard(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def close(self) -> list[Path]:
        """The shards' final paths (one empty shard when there was no row, so a split that
        the card names always exists)."""
        if self._pending or not self._shards:
            self._write_group()
        self._close_shard()
        total = len(self._shards)
        out = []
        for i, part in enumerate(self._shards):
            final = self.folder / f"{self.split}-{i:05d}-of-{total:05d}.parquet"
            part.replace(final)
            out.append(final)
        return out


# -- what was left out ------------------------------------------------------------------------


@dataclass
class Tally:
    """Figures of the tasks a domain exported: the run summary's (`TaskTally`), and what the
    card adds (preferences, strategies, calls per task, tool usage)."""

    base: TaskTally = field(default_factory=TaskTally)
    preferences: int = 0
    strategies: dict[str, int] = field(default_factory=dict)
    calls_hist: dict[int, int] = field(default_factory=dict)
    tools: dict[str, int] = field(default_factory=dict)

    def add(self, task: Task, row: TaskRow) -> None:
        self.base.add(task)
        n = len(task.gold_calls)
        self.calls_hist[n] = self.calls_hist.get(n, 0) + 1
        for call in task.gold_calls:
            self.tools[call.name] = self.tools.get(call.name, 0) + 1
        self.preferences += task.preferences is not None
        self.strategies[row.strategy] = self.strategies.get(row.strategy, 0) + 1

    @property
    def figures(self) -> TaskFigures:
        return self.base.figures()


@dataclass
class ExportReport:
    """Counts per config and split, figures per domain, and every input left out, named
    with its file."""

    rows: dict[str, dict[str, int]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)
    domains: list[str] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=dict)
    environments: dict[str, EnvironmentFigures] = field(default_factory=dict)

    def count(self, config: str, split: str, n: int) -> None:
        self.rows.setdefault(config, {})[split] = n


def _batches(store: DomainStore, report: ExportReport) -> Iterator[Batch]:
    """Committed batches in order, validated. A batch that does not validate keeps what does:
    each task, conversation or rejection that is not one is named with its file and place
    and left out; a file that is no batch at all is named and skipped."""
    for path in sorted(store.batches_dir.glob("*.json")):
        data = path.read_bytes()
        try:
            yield Batch.model_validate_json(data)
            continue
        except ValueError as e:
            problem = str(e).splitlines()[0]
        try:
            raw = json.loads(data)
            salvaged = _salvage(path, raw, report)
        except (ValueError, TypeError, AttributeError):
            report.skipped.append(f"{path}: not a valid batch ({problem}); left out")
            continue
        yield salvaged


def _salvage(path: Path, raw: Any, report: ExportReport) -> Batch:
    """The items of a damaged batch that are valid; each other one is named."""
    kept: dict[str, list[Any]] = {}
    for name, model in (
        ("accepted", Task),
        ("trajectories", TrajectoryRecord),
        ("rejected", Rejection),
    ):
        kept[name] = []
        for i, item in enumerate(raw.get(name, [])):
            try:
                kept[name].append(model.model_validate(item))
            except ValidationError as e:
                first = "; ".join(pydantic_problems(e, limit=1))
                report.skipped.append(f"{path}: {name}[{i}] is not valid ({first}); left out")
    records = {r.task_id for r in kept["trajectories"]}
    for task in [t for t in kept["accepted"] if t.id not in records]:
        report.skipped.append(f"{path}: task {task.id!r} has no valid conversation; left out")
        kept["accepted"].remove(task)
    return Batch(
        strategy=raw["strategy"],
        indices=raw.get("indices", []),
        accepted=kept["accepted"],
        trajectories=kept["trajectories"],
        rejected=kept["rejected"],
    )


def _raw_batches(store: DomainStore) -> Iterator[dict[str, Any]]:
    """Committed batches as plain JSON, for the passes that read a few fields of each (the
    split's keys): validating every task and conversation took most of an export's time. A
    file that is no JSON object is skipped here and named by `_batches`."""
    for path in sorted(store.batches_dir.glob("*.json")):
        try:
            raw = json.loads(path.read_bytes())
        except ValueError:
            continue
        if isinstance(raw, dict):
            yield raw


def _split_keys(store: DomainStore) -> list[tuple[str, str | None, str]]:
    """(id, parent, gold sequence) of every verified task, as `held_out` takes them."""
    out = []
    for raw in _raw_batches(store):
        for t in raw.get("accepted", []):
            try:
                calls = [[c["name"], c.get("arguments", {})] for c in t["gold_calls"]]
                parent = (t.get("provenance") or {}).get("parent")
            except (TypeError, KeyError, AttributeError):
                continue  # no task: `_batches` names it
            out.append((t["id"], parent, canonical_json(calls)))
    return out


# -- the export --------------------------------------------------------------------------------


def readable(data_dir: str | Path) -> Path:
    """A data folder, or the local copy of a store URL's domains."""
    return local_copy(str(data_dir)) if is_url(data_dir) else Path(data_dir)


def _runs(
    data_dir: Path, domains: Iterable[str] | None, report: ExportReport
) -> Iterator[tuple[str, DomainStore, EnvironmentSpec]]:
    """The runs to export, each with its environment: a domain whose environment cannot be
    read or that has no verified task is named in the report and skipped."""
    if not data_dir.is_dir():
        raise ExportError(f"{data_dir}: no such data folder; run `make generate` first")
    names = (
        sorted(domains)
        if domains
        else sorted(p.name for p in data_dir.iterdir() if (p / "environment.json").is_file())
    )
    for domain in names:
        store = DomainStore(data_dir, domain)
        try:
            spec = store.load_environment()
        except StoreError as e:
            report.skipped.append(f"{e.detail or e}; domain {domain!r} left out")
            continue
        if spec is None:
            report.skipped.append(f"{store.environment_path}: missing; domain {domain!r} left out")
            continue
        if not any(raw.get("accepted") for raw in _raw_batches(store)):
            report.skipped.append(f"{store.dir}: no verified task; domain {domain!r} left out")
            continue
        yield domain, store, spec


def _nothing(data_dir: Path, report: ExportReport) -> ExportError:
    return ExportError(
        f"{data_dir}: no domain with a verified task to export"
        + (f" ({'; '.join(report.skipped)})" if report.skipped else "")
    )


def export(
    data_dir: str | Path,
    out: str | Path,
    domains: Iterable[str] | None = None,
    test_fraction: float = TEST_FRACTION,
    domains_dir: str | Path = "domains",
    repo: str | None = None,
) -> ExportReport:
    """Write the dataset folder for the domains named (every domain with a run when None)."""
    data_dir, out = readable(data_dir), Path(out)
    report = ExportReport()
    envs = ShardWriter(out / "data" / "environments", "train", arrow_schema(EnvironmentRow))
    rejected = ShardWriter(out / "data" / "rejected", "train", arrow_schema(RejectedRow))
    reports: dict[str, RunSummary] = {}
    for domain, store, spec in _runs(data_dir, domains, report):
        test = held_out(_split_keys(store), test_fraction)
        writers = {s: ShardWriter(out / "data" / domain, s, arrow_schema(TaskRow)) for s in SPLITS}
        tally = report.tallies.setdefault(domain, Tally())

        def batches(store: DomainStore = store, domain: str = domain) -> Iterator[Batch]:
            for batch in _batches(store, report):  # one validated pass over the batches
                for r in batch.rejected:
                    rejected.add(rejected_row(r, domain))
                yield batch

        for task, row in task_rows(batches(), spec, domain):
            writers["test" if row.id in test else "train"].add(row)
            tally.add(task, row)
        for split, writer in writers.items():
            writer.close()
            report.count(domain, split, writer.rows)
        envs.add(environment_row(spec, domain))
        report.domains.append(domain)
        report.environments[domain] = environment_figures(spec)  # from the spec: always there
        summary = store.dir / "report.json"
        if summary.is_file():
            try:
                reports[domain] = RunSummary.model_validate_json(summary.read_bytes())
            except ValueError as e:
                report.skipped.append(f"{summary}: not a run report ({e}); its figures left out")
    if not report.domains:
        raise _nothing(data_dir, report)
    envs.close()
    rejected.close()
    report.count("environments", "train", envs.rows)
    report.count("rejected", "train", rejected.rows)
    _write_manifest(out, report, reports, Path(domains_dir))
    _write_charts(out, report, reports)
    _write_card(out, report, reports, repo or "OWNER/NAME")
    return report


def export_tau2(
    data_dir: str | Path, out: str | Path, domains: Iterable[str] | None = None
) -> ExportReport:
    """Per domain, tau2-bench's files: tasks.json, policy.md, db.json (and environment.json
    to rebuild the sandbox with toolscale)."""
    data_dir, out = readable(data_dir), Path(out)
    report = ExportReport()
    for domain, store, spec in _runs(data_dir, domains, report):
        rows = [row for _, row in task_rows(_batches(store, report), spec, domain)]
        row = environment_row(spec, domain)
        tau2.write_domain(out / domain, rows, spec.policy, spec.seed, row.spec)
        report.count(domain, "tasks", len(rows))
        report.domains.append(domain)
    if not report.domains:
        raise _nothing(data_dir, report)
    return report


def funnel(summary: RunSummary, exported: int) -> dict[str, int]:
    """How many task proposals reached each step of a run, and how many were exported."""
    tasks = [row for stage, row in summary.rows.items() if stage.startswith("tasks/")]
    judge = summary.rows.get(JUDGE)
    verified = judge.seen if judge is not None else sum(r.passed for r in tasks)
    return {
        "proposed": sum(r.seen for r in tasks),
        "verified": verified,
        "judged": judge.passed if judge is not None else verified,
        "exported": exported,
    }


CHARTS = {
    "yield": "assets/yield.png",
    "difficulty": "assets/difficulty.png",
    "calls": "assets/calls_per_task.png",
    "tools": "assets/tool_usage.png",
}


def _write_charts(out: Path, report: ExportReport, reports: dict[str, RunSummary]) -> None:
    tallies = report.tallies
    funnels = {
        d: funnel(reports[d], tallies[d].figures.tasks) for d in report.domains if d in reports
    }
    if funnels:
        charts.yield_funnel(funnels, out / CHARTS["yield"])
    levels = {d: tallies[d].figures.by_difficulty for d in report.domains}
    charts.by_difficulty(levels, out / CHARTS["difficulty"])
    calls: dict[int, int] = {}
    tools: dict[str, int] = {}
    for d in report.domains:
        for n, k in tallies[d].calls_hist.items():
            calls[n] = calls.get(n, 0) + k
        for name, k in tallies[d].tools.items():
            key = name if len(report.domains) == 1 else f"{d}: {name}"
            tools[key] = tools.get(key, 0) + k
    charts.calls_per_task(calls, out / CHARTS["calls"])
    charts.tool_usage(tools, out / CHARTS["tools"])


def _commit() -> str | None:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def _write_manifest(
    out: Path, report: ExportReport, reports: dict[str, RunSummary], domains_dir: Path
) -> None:
    from importlib.metadata import version

    briefs = {}
    for domain in report.domains:
        path = domains_dir / domain / "brief.yaml"
        if path.is_file():
            load_brief(path)  # a brief that does not load is an error, not a hash
            briefs[domain] = hashlib.sha256(path.read_bytes()).hexdigest()
    manifest = {
        "toolscale": version("toolscale"),
        "commit": _commit(),
        "models": sorted({r.model for r in reports.values()}),
        "briefs": briefs,
        "rows": report.rows,
        "skipped": report.skipped,
        "reports": {d: r.model_dump(mode="json") for d, r in reports.items()},
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def card_configs(report: ExportReport) -> list[dict[str, Any]]:
    """The card's YAML `configs`: `default` (every domain), one per domain, environments and
    rejected; each split a glob of its shards."""

    def files(config: str, split: str) -> str:
        return f"data/{config}/{split}-*.parquet"

    configs: list[dict[str, Any]] = [
        {
            "config_name": "default",
            "default": True,
            "data_files": [
                {"split": s, "path": [files(d, s) for d in report.domains]} for s in SPLITS
            ],
        }
    ]
    configs += [
        {"config_name": d, "data_files": [{"split": s, "path": files(d, s)} for s in SPLITS]}
        for d in report.domains
    ]
    configs += [
        {"config_name": c, "data_files": [{"split": "train", "path": files(c, "train")}]}
        for c in ("environments", "rejected")
    ]
    return configs


def _write_card(out: Path, report: ExportReport, reports: dict[str, RunSummary], repo: str) -> None:
    jinja = Environment(
        loader=FileSystemLoader(TEMPLATES),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        autoescape=False,
    )
    tasks = sum(report.tallies[d].figures.tasks for d in report.domains)
    text = jinja.get_template("card.md.j2").render(
        configs=yaml.safe_dump(card_configs(report), sort_keys=False).rstrip(),
        repo=repo,
        charts=CHARTS,
        has_yield=any(d in reports for d in report.domains),
        report=report,
        reports=reports,
        tasks=tasks,
        size=_size_category(tasks),
    )
    (out / "README.md").write_text(text)


def _size_category(n: int) -> str:
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M"
