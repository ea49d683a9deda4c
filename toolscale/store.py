"""Everything a generation run persists under `data/<domain>/`, written atomically.

Environment stages are one JSON file each (`stages/`), so a resumed run skips what is
done. Task work is committed in batch files named by strategy and first index: a batch
is the unit of durability. `tasks.jsonl`, `trajectories.jsonl` and `rejected.jsonl` are
views rebuilt from the batches, so a run killed at any point (kill -9 included) leaves
no half-written line, loses no committed task, and never repeats one on resume.

A store opened on a URL (`DomainStore.open("s3://bucket/data", domain)`) works on a local
copy and puts each file at the URL as it writes it (`toolscale.mirror`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from toolscale.errors import ToolscaleError, pydantic_problems
from toolscale.jsonl import AtomicWriter, write_json
from toolscale.llm.ledger import Ledger
from toolscale.mirror import Mirror, cache_folder, is_url
from toolscale.reasons import ErrorReason, GeneratorReason
from toolscale.report import Rejection
from toolscale.sandbox.ddl import create_statements
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.trajectory import Message

M = TypeVar("M")


class TrajectoryRecord(BaseModel):
    """One verified task as a conversation, with what a trainer or a dataset needs beside it."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    domain: str
    strategy: str
    messages: list[Message]
    tools: list[dict] = Field(description="OpenAI function schemas of the environment's tools")


REFUSED_ON_RESUME = "kept by an earlier sitting, refused on resume"


class Batch(BaseModel):
    """Work items of one strategy, done and verified together."""

    model_config = ConfigDict(extra="forbid")

    strategy: str
    indices: list[int]
    accepted: list[Task] = Field(default_factory=list)
    trajectories: list[TrajectoryRecord] = Field(default_factory=list)
    rejected: list[Rejection] = Field(default_factory=list)
    judged: int = Field(
        default=0, description="work items the judge saw (verified first): the judge's row"
    )
    solver_checked: int = Field(
        default=0, description="work items the solver check saw (judged first): its row"
    )
    ledger: Ledger = Field(default_factory=Ledger)
    seconds: float = 0.0
    moved: int = Field(
        default=0,
        ge=0,
        description="kept tasks moved to rejected after the batch was committed (refused on "
        "a resume by the validators of the day): each gives its strategy's budget back, so a "
        "resume can make up the count",
    )

    @model_validator(mode="before")
    @classmethod
    def _moved_before_it_was_counted(cls, data: object) -> object:
        """A batch written before `moved` existed: its tasks refused on a resume are the
        rejections that say so."""
        if isinstance(data, dict) and "moved" not in data:
            said = [r for r in data.get("rejected", []) if isinstance(r, dict)]
            moved = sum(str(r.get("detail", "")).startswith(REFUSED_ON_RESUME) for r in said)
            return {**data, "moved": moved}
        return data


class StoreError(ToolscaleError):
    """A stored file that cannot be read back; `detail` names the file, the field and the
    problem."""

    reason = ErrorReason.BAD_STORED_FILE


def _problems(error: ValidationError) -> str:
    """The first few problems, each naming its field, so a broken file can be fixed by hand."""
    return "; ".join(pydantic_problems(error, limit=3))


class DomainStore:
    def __init__(self, root: str | Path, domain: str, mirror: Mirror | None = None):
        self.dir = Path(root) / domain
        self.stages = self.dir / "stages"
        self.batches_dir = self.dir / "batches"
        self.mirror = mirror
        self.location = mirror.url if mirror is not None else str(self.dir)

    @classmethod
    def open(cls, root: str | Path, domain: str) -> DomainStore:
        """The store under a folder or at an fsspec URL; a URL's domain is synchronised into
        a local copy first (what the URL holds, and what a run here left unsent)."""
        if not is_url(root):
            return cls(root, domain)
        local = cache_folder(str(root))
        mirror = Mirror(f"{str(root).rstrip('/')}/{domain}", local / domain)
        mirror.sync()
        return cls(local, domain, mirror)

    def wrote(self, path: Path) -> None:
        """`path` was written in full: the URL gets it too (a local store: nothing to do)."""
        if self.mirror is not None:
            self.mirror.put(path)

    def save_report(self, summary: object) -> Path:
        path = self.dir / "report.json"
        write_json(path, summary)
        self.wrote(path)
        return path

    # environment stages -------------------------------------------------------------
    def stage_path(self, name: str) -> Path:
        return self.stages / f"{name}.json"

    def save_stage(self, name: str, value: M, kind: type[M]) -> None:
        write_json(self.stage_path(name), TypeAdapter(kind).dump_python(value, mode="json"))
        self.wrote(self.stage_path(name))

    def load_stage(self, name: str, kind: type[M]) -> M | None:
        path = self.stage_path(name)
        if not path.exists():
            return None
        try:
            return TypeAdapter(kind).validate_json(path.read_bytes())
        except ValidationError as e:
            raise StoreError(f"{path}: not a valid {name} stage: {_problems(e)}") from e

    @property
    def environment_path(self) -> Path:
        return self.dir / "environment.json"

    def load_environment(self) -> EnvironmentSpec | None:
        if not self.environment_path.exists():
            return None
        try:
            return EnvironmentSpec.model_validate_json(self.environment_path.read_bytes())
        except ValidationError as e:
            raise StoreError(f"{self.environment_path}: {_problems(e)}") from e

    def save_environment(self, spec: EnvironmentSpec) -> None:
        write_json(self.environment_path, spec)
        self.save_seed_database(spec)
        self.wrote(self.environment_path)  # last: its marker says the environment is whole

    def save_seed_database(self, spec: EnvironmentSpec) -> None:
        """`seed.sqlite`: the seed as a real SQLite database, for anyone to open."""
        target = self.dir / "seed.sqlite"
        tmp = target.with_suffix(".sqlite.tmp")
        tmp.unlink(missing_ok=True)
        con = sqlite3.connect(tmp)
        try:
            for ddl in create_statements(spec.schema_, "sqlite"):
                con.execute(ddl)
            for table in spec.schema_.insertion_order():
                cols = table.column_names
                marks = ", ".join("?" for _ in cols)
                con.executemany(
                    f"INSERT INTO {table.name} ({', '.join(cols)}) VALUES ({marks})",
                    spec.seed_rows(table.name),
                )
            con.commit()
        finally:
            con.close()
        tmp.replace(target)
        self.wrote(target)

    # task batches ---------------------------------------------------------------------
    def commit_batch(self, batch: Batch) -> Path:
        path = self.batches_dir / f"{batch.strategy}-{min(batch.indices):06d}.json"
        with AtomicWriter(path) as w:
            w.write_text(batch.model_dump_json(exclude_none=True))
        self.wrote(path)
        return path

    def batches(self, strategy: str | None = None) -> Iterator[Batch]:
        """Committed batches in order; a temporary file left by a kill is not a batch."""
        pattern = f"{strategy}-*.json" if strategy else "*.json"
        for path in sorted(self.batches_dir.glob(pattern)):
            try:
                yield Batch.model_validate_json(path.read_bytes())
            except ValidationError as e:
                raise StoreError(f"{path}: not a valid batch: {_problems(e)}") from e

    def accepted(self, strategy: str | None = None) -> list[Task]:
        return [t for b in self.batches(strategy) for t in b.accepted]

    def move_to_rejected(
        self, batch: Batch, why: dict[str, Rejection], give_back: bool = True
    ) -> int:
        """Kept tasks that may no longer ship go to their batch's rejected, each with its
        reason and itself (nothing is lost), and leave its trajectories; a run resumed
        afterwards makes up the count, with the budget they took given back (`give_back`:
        medicine on dec7bf3 lost 5 of 30 on a resume and had spent its 124 proposals, so it
        stopped at 25). A retired strategy's are not given back: it is not run again."""
        moved = [t for t in batch.accepted if t.id in why]
        if not moved:
            return 0
        if give_back:
            batch.moved += len(moved)
        for task in moved:
            batch.rejected.append(
                why[task.id].model_copy(update={"item": task.model_dump(mode="json")})
            )
        batch.accepted = [t for t in batch.accepted if t.id not in why]
        batch.trajectories = [r for r in batch.trajectories if r.task_id not in why]
        self.commit_batch(batch)
        return len(moved)

    def retire(self, strategy: str) -> int:
        """Every kept task of one strategy, moved to rejected (`retired`): for a strategy
        found to make invalid tasks after its tasks were kept. The views are rebuilt."""
        moved = 0
        for batch in list(self.batches(strategy)):
            why = {
                t.id: Rejection(
                    stage="retire",
                    reason=GeneratorReason.RETIRED,
                    detail=f"strategy {strategy!r} retired after this task was kept",
                    task_id=t.id,
                )
                for t in batch.accepted
            }
            moved += self.move_to_rejected(batch, why, give_back=False)
        self.write_views()
        return moved

    def write_views(self, on_batch: Callable[[Batch], None] | None = None) -> dict[str, int]:
        """tasks.jsonl, trajectories.jsonl and rejected.jsonl from every batch, atomically;
        `on_batch` sees each batch on the way, so a summary needs no second read."""
        counts = {"tasks": 0, "trajectories": 0, "rejected": 0}
        with (
            AtomicWriter(self.dir / "tasks.jsonl") as tasks,
            AtomicWriter(self.dir / "trajectories.jsonl") as trajectories,
            AtomicWriter(self.dir / "rejected.jsonl") as rejected,
        ):
            for batch in self.batches():
                if on_batch is not None:
                    on_batch(batch)
                for task in batch.accepted:
                    tasks.write(task)
                for record in batch.trajectories:
                    trajectories.write(record)
                for rejection in batch.rejected:
                    rejected.write(rejection)
                counts["tasks"] += len(batch.accepted)
                counts["trajectories"] += len(batch.trajectories)
                counts["rejected"] += len(batch.rejected)
        for name in ("tasks.jsonl", "trajectories.jsonl", "rejected.jsonl"):
            self.wrote(self.dir / name)
        return counts
