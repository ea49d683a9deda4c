"""What a sandbox worker needs to build and run a database, as plain data.

The parent checks and compiles (pydantic, sqlglot, SQLAlchemy); the worker process gets
only this: DDL text, rows, each tool's statements for its engine with their roles, and the
budgets. Nothing here imports more than the standard library, so a worker starts fast and
the pickles that cross the pipe stay small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

EngineName = Literal["sqlite", "duckdb"]
Role = Literal["require", "run", "returns"]


@dataclass(frozen=True)
class Limits:
    """What one call may spend: wall time, rows and bytes returned, memory above the
    worker's baseline; and what loading the seed may spend (CHECKs run on every row).

    `isolated` runs the engine in a worker process that is killed when a call outlives
    its budget (the only way to stop a single expensive function call) and whose address
    space is capped; False runs it in this process, with only the engine's own interrupt:
    for benchmarks that compare the two, never for SQL a model wrote.
    """

    timeout_ms: float = 250.0
    max_rows: int = 200
    max_bytes: int = 64 * 1024
    memory_mb: int = 256
    max_string: int = 2_000
    seed_timeout_ms: float = 5_000.0
    seed_ms_per_row: float = 0.2
    seed_kb_per_row: float = 4.0
    isolated: bool = True

    def seed_timeout_s(self, rows: int) -> float:
        return (self.seed_timeout_ms + self.seed_ms_per_row * rows) / 1000.0

    def hard_timeout_s(self) -> float:
        """When the parent kills a call's worker: past the engine's own interrupt (the
        budget) with room for its undo, and within twice the budget plus 100 ms."""
        return (self.timeout_ms + max(50.0, self.timeout_ms / 4)) / 1000.0


@dataclass(frozen=True)
class Step:
    """One statement of a tool, in the engine's dialect, with the role the engine enforces."""

    label: str
    role: Role
    sql: str
    params: tuple[str, ...]
    error: str = ""  # a require step's policy message


@dataclass(frozen=True)
class ToolPlan:
    name: str
    kind: Literal["read", "write"]
    single: bool
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class TablePlan:
    name: str
    columns: tuple[str, ...]
    primary_key: tuple[str, ...]
    rows: list[tuple[Any, ...]] = field(default_factory=list)


@dataclass(frozen=True)
class Blueprint:
    """A database to build: DDL in order, tables in insertion order with their seed rows,
    the tools, and the budget of every call."""

    engine: EngineName
    ddl: tuple[str, ...]
    tables: tuple[TablePlan, ...]
    tools: dict[str, ToolPlan]
    limits: Limits
    id_start: int = 1_000_000  # the first :_new_id
    new_ids: dict[str, int] = field(default_factory=dict)  # per tool, where it differs

    def sequence(self, tool: str) -> int:
        """Where the :_new_id of `tool`'s calls starts. A sequence counts only the calls
        that take an id from it, so the id a new record gets does not depend on a change
        made before it elsewhere (two changes in one task make the ids each makes alone)."""
        return self.new_ids.get(tool, self.id_start)

    def takes_id(self, tool: str) -> bool:
        """Whether a call of `tool` uses up an id of its sequence."""
        plan = self.tools.get(tool)
        return plan is not None and any("_new_id" in s.params for s in plan.steps)

    @property
    def table_names(self) -> frozenset[str]:
        return frozenset(t.name for t in self.tables)

    @property
    def n_rows(self) -> int:
        return sum(len(t.rows) for t in self.tables)


@dataclass(frozen=True)
class Outcome:
    """A tool call's result as the worker reports it; the parent makes it a ToolResult."""

    ok: bool
    output: Any = None
    error: str | None = None
    code: str | None = None
    new_id: int | None = None  # the :_new_id a write that succeeded used
