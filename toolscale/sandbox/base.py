"""One engine interface for tool calls: bound parameters, one transaction per call, limits.

Engines differ only in how they execute a statement, scope a call's transaction and stop
a runaway query; the tool semantics (require / run / returns, built-ins, caps, error
codes) live here once.
"""

from __future__ import annotations

import datetime as dt
import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, get_args

from toolscale.errors import ToolscaleError
from toolscale.reasons import ErrorReason, SeedReason, ToolErrorCode
from toolscale.sandbox.sqlcheck import Statement, compile_tool
from toolscale.sandbox.state import Changes, SeedState, normalise
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool, ToolResult

EngineName = Literal["sqlite", "duckdb"]
ENGINE_NAMES: tuple[EngineName, ...] = get_args(EngineName)


@dataclass(frozen=True)
class Limits:
    """Per-call budget: wall time, rows and bytes a tool may return."""

    timeout_ms: float = 250.0
    max_rows: int = 200
    max_bytes: int = 64 * 1024


class SeedError(ToolscaleError):
    """Seed rows the database refused; `detail` names the table, the row and why, and
    `table` and `index` (None when no single row is to blame) say it for a program."""

    def __init__(self, detail: str, reason: SeedReason, *, table: str, index: int | None):
        where = f"seed {table}" + (f"[{index}]" if index is not None else "")
        super().__init__(f"{where}: {detail}", reason)
        self.table = table
        self.index = index


class SandboxRefused(ToolscaleError):
    """A statement got past the static checks but the engine's own lock refuses it."""

    reason = ErrorReason.SANDBOX_REFUSED


class CallFailed(ToolscaleError):
    """Raised inside a call to abort it; becomes the tool's error result (`reason` is its
    code, `detail` its error message)."""

    def __init__(self, detail: str, reason: ToolErrorCode):
        super().__init__(detail, reason)


@dataclass(frozen=True)
class Program:
    """A tool with its checked statements and the tables it may write."""

    tool: Tool
    statements: tuple[Statement, ...]
    writes: frozenset[str]

    @classmethod
    def of(cls, tool: Tool, statements: Sequence[Statement]) -> Program:
        return cls(tool, tuple(statements), frozenset(s.writes for s in statements if s.writes))


def compile_programs(spec: EnvironmentSpec) -> dict[str, Program]:
    """Every tool checked and compiled for both engines, once; raises SQLCheckError."""
    return {tool.name: Program.of(tool, compile_tool(tool, spec.schema_)) for tool in spec.tools}


def _check_seed_values(schema: Schema, seed: dict[str, list[dict[str, Any]]]) -> None:
    """Catch what the engines would silently accept: unknown columns, bad dates."""
    for table in schema.tables:
        columns = {c.name: c for c in table.columns}
        for i, row in enumerate(seed.get(table.name, [])):
            for name, value in row.items():
                col = columns.get(name)
                if col is None:
                    raise SeedError(
                        f"unknown column {name!r}",
                        SeedReason.SEED_UNKNOWN_COLUMN,
                        table=table.name,
                        index=i,
                    )
                if value is None or col.type not in ("date", "datetime"):
                    continue
                try:
                    if col.type == "date":
                        dt.date.fromisoformat(str(value))
                    else:
                        dt.datetime.fromisoformat(str(value))
                except ValueError:
                    raise SeedError(
                        f"column {name!r} is a {col.type} but {value!r} is not ISO 8601",
                        SeedReason.SEED_BAD_VALUE,
                        table=table.name,
                        index=i,
                    ) from None


def _truthy(value: Any) -> bool:
    value = normalise(value)
    return value not in (None, 0, "")


class Sandbox(ABC):
    """A seeded database that runs tool calls; `reset()` returns it to the seed."""

    engine: ClassVar[EngineName]
    reads_can_abort: ClassVar[bool] = False  # does a failed SELECT abort the transaction?

    def __init__(
        self,
        spec: EnvironmentSpec,
        limits: Limits | None = None,
        programs: dict[str, Program] | None = None,
    ):
        self.spec = spec
        self.limits = limits or Limits()
        self.programs = programs if programs is not None else compile_programs(spec)
        self._param_types = {t.name: t.param_types() for t in spec.tools}
        _check_seed_values(spec.schema_, spec.seed)
        self._counter = 0
        # successful write calls since reset: replayed to recover when an engine drops the
        # whole task transaction (DuckDB on any error, SQLite when it interrupts a write)
        self._log: list[tuple[Program, dict[str, Any]]] = []
        self._open()
        tables = spec.schema_.tables
        rows = {t.name: self._fetch_all(f"SELECT * FROM {t.name}") for t in tables}
        self.seed_state = SeedState(spec.schema_, rows)

    # -- engine hooks -------------------------------------------------------------------
    @abstractmethod
    def _open(self) -> None:
        """Create the database, load the seed through real DDL, lock it down."""

    @abstractmethod
    def _fetch_all(self, sql: str) -> list:
        """All rows of a trusted internal query (reading the seed back)."""

    @abstractmethod
    def _query(self, stmt: Statement, params: dict[str, Any], limit: int) -> tuple[list[str], list]:
        """Run a SELECT; return column names and at most `limit` rows."""

    @abstractmethod
    def _execute(self, stmt: Statement, params: dict[str, Any]) -> None: ...

    @abstractmethod
    def _begin_call(self) -> None: ...

    @abstractmethod
    def _end_call(self, ok: bool) -> None:
        """Commit the call's changes when ok, else undo exactly them."""

    @abstractmethod
    def _arm(self, seconds: float | None) -> None:
        """Start (or with None, stop) the clock that interrupts a runaway statement."""

    @abstractmethod
    def _classify(self, exc: Exception) -> CallFailed | None:
        """Map an engine exception to an error code; None if it is not an engine error."""

    @abstractmethod
    def _rollback_task(self) -> None:
        """Undo everything since the seed."""

    @abstractmethod
    def changes(self) -> Changes:
        """Rows that differ from the seed now."""

    @abstractmethod
    def close(self) -> None: ...

    # -- shared semantics ---------------------------------------------------------------
    def reset(self) -> None:
        """Back to the seed; also restarts :_new_id."""
        self._rollback_task()
        self._log.clear()
        self._counter = 0

    def state_hash(self) -> str:
        return self.seed_state.state_hash(self.changes())

    def bind(self, tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
        """Arguments with their declared types (JSON 250 for a number is 250.0), so both
        engines compute with the same types, plus the built-ins."""
        params = tool.param_defaults()
        params.update(arguments)
        for name, kind in self._param_types[tool.name].items():
            value = params.get(name)
            if value is None or isinstance(value, str):
                continue
            if kind == "number":
                params[name] = float(value)
            elif kind in ("integer", "boolean") and float(value).is_integer():
                params[name] = int(value)
        params["_now"] = self.spec.clock
        params["_new_id"] = self.spec.id_start + self._counter
        return params

    def call(self, name: str, arguments: dict[str, Any]) -> ToolResult:
        """Run one tool call in its own transaction; any failure leaves no trace."""
        program = self.programs.get(name)
        if program is None:
            return ToolResult(
                ok=False, error=f"unknown tool {name!r}", code=ToolErrorCode.UNKNOWN_TOOL
            )
        params = self.bind(program.tool, arguments)
        # Read tools are SELECTs only (checked statically and by DuckDB's own parser): they
        # cannot change state, so they need no transaction of their own, unless a failed
        # read aborts the engine's transaction.
        guarded = program.tool.kind == "write" or self.reads_can_abort
        if guarded:
            self._begin_call()
        self._arm(self.limits.timeout_ms / 1000.0)
        try:
            output = self._run(program, params)
        except Exception as exc:
            self._arm(None)  # before undoing: the undo must not be interrupted
            failed = exc if isinstance(exc, CallFailed) else self._classify(exc)
            if guarded:
                self._end_call(ok=False)
            if failed is None:
                raise
            return ToolResult(ok=False, error=failed.detail, code=failed.reason)
        self._arm(None)
        if guarded:
            self._end_call(ok=True)
        if program.tool.kind == "write":
            self._log.append((program, params))
            self._counter += 1
        return ToolResult(ok=True, output=output)

    def _replay_log(self) -> None:
        """Re-apply the successful writes since reset (deterministic: fixed clock, ids)."""
        for program, params in self._log:
            for stmt in program.statements:
                if stmt.role == "run":
                    self._execute(stmt, {p: params[p] for p in stmt.params})

    def _run(self, program: Program, params: dict[str, Any]) -> Any:
        tool = program.tool
        requires = iter(tool.require)
        output: Any = None
        for stmt in program.statements:
            bound = {p: params[p] for p in stmt.params}
            if stmt.role == "require":
                step = next(requires)
                _, rows = self._query(stmt, bound, 1)
                if not rows or not rows[0] or not _truthy(rows[0][0]):
                    raise CallFailed(step.error, ToolErrorCode.POLICY)
            elif stmt.role == "run":
                self._execute(stmt, bound)
            else:
                cap = self.limits.max_rows
                columns, rows = self._query(stmt, bound, cap + 1)
                if len(rows) > cap and not tool.single:
                    raise CallFailed(
                        f"the result has more than {cap} rows; narrow the query",
                        ToolErrorCode.TOO_LARGE,
                    )
                records = [dict(zip(columns, map(normalise, row), strict=True)) for row in rows]
                output = (records[0] if records else None) if tool.single else records
                size = len(json.dumps(output, ensure_ascii=False))
                if size > self.limits.max_bytes:
                    raise CallFailed(
                        f"the result is {size} bytes, over the {self.limits.max_bytes}-byte cap",
                        ToolErrorCode.TOO_LARGE,
                    )
        return output

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def same_results(a: Sequence[ToolResult], b: Sequence[ToolResult]) -> bool:
    """Equal outcomes across replays or engines: outputs, and error codes (policy text too)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x.ok != y.ok:
            return False
        if x.ok and x.output != y.output:
            return False
        if not x.ok and (
            x.code != y.code or (x.code == ToolErrorCode.POLICY and x.error != y.error)
        ):
            return False
    return True
