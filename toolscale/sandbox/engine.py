"""The engine side of a sandbox: one database and what a tool call means in it.

This runs inside the worker process (`worker`), or in the caller's process when isolation
is off. Engines differ only in how they execute a statement, scope a call's transaction,
enforce a statement's role and stop a runaway query; the tool semantics (require / run /
returns, caps, error codes) live here once. Imports stay at the standard library, so a
worker starts fast.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections import Counter
from typing import Any, ClassVar

from toolscale.errors import ToolscaleError
from toolscale.reasons import ErrorReason, SeedReason, ToolErrorCode
from toolscale.sandbox.blueprint import Blueprint, EngineName, Outcome, Step, ToolPlan
from toolscale.sandbox.values import Changes, Row, normalise, normalise_row


class CallFailed(ToolscaleError):
    """Raised inside a call to abort it; becomes the tool's error result (`reason` is its
    code, `detail` its error message)."""

    def __init__(self, detail: str, reason: ToolErrorCode):
        super().__init__(detail, reason)


class SeedError(ToolscaleError):
    """Seed rows the database refused, or a seed that ran out of its budget; `detail` names
    the table, the row and why, and `table` and `index` (None when no single row is to
    blame) say it for a program."""

    def __init__(self, detail: str, reason: SeedReason, table: str, index: int | None):
        where = f"seed {table}" + (f"[{index}]" if index is not None else "") if table else "schema"
        super().__init__(f"{where}: {detail}", reason)
        self.what = detail
        self.table = table
        self.index = index


class SandboxRefused(ToolscaleError):
    """A statement got past the static checks but the engine's own lock refuses it."""

    reason = ErrorReason.SANDBOX_REFUSED


def _truthy(value: Any) -> bool:
    value = normalise(value)
    return value not in (None, 0, "")


def _output_size(records: Any) -> int:
    return len(json.dumps(records, ensure_ascii=False))


def _check_text_size(rows: list, cap: int) -> None:
    """Refuse before encoding: text alone over the cap is over the cap as JSON."""
    text = sum(len(v) for row in rows for v in row if isinstance(v, str | bytes))
    if text > cap:
        raise CallFailed(
            f"the result holds {text} characters of text, over the {cap}-byte cap",
            ToolErrorCode.TOO_LARGE,
        )


class Engine(ABC):
    """A seeded database that runs tool calls; `reset()` returns it to the seed."""

    name: ClassVar[EngineName]
    reads_can_abort: ClassVar[bool] = False  # does a failed SELECT abort the transaction?

    def __init__(self, blueprint: Blueprint):
        self.blueprint = blueprint
        self.limits = blueprint.limits
        self.tools = blueprint.tools
        # successful write calls since reset: replayed to recover when an engine drops the
        # whole task transaction (DuckDB on any error, SQLite when it interrupts a write)
        self._log: list[tuple[ToolPlan, dict[str, Any]]] = []
        self._made: Counter[int] = Counter()  # per id sequence, writes that succeeded since reset
        self.out_of_memory = False  # once true, the worker is not reused for another sandbox
        self._open()

    # -- engine hooks -------------------------------------------------------------------
    @abstractmethod
    def _open(self) -> None:
        """Create the database, load the seed through real DDL under the seed's budget,
        lock it down; raise SeedError or SandboxRefused."""

    @abstractmethod
    def _fetch_all(self, sql: str) -> list:
        """All rows of a trusted internal query (reading the seed back)."""

    @abstractmethod
    def _query(self, step: Step, params: dict[str, Any], limit: int) -> tuple[list[str], list]:
        """Run a read step; return column names and at most `limit` rows."""

    @abstractmethod
    def _execute(self, step: Step, params: dict[str, Any]) -> None: ...

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
        """Rows that differ from the seed now (not yet pruned of rows put back as they were)."""

    @abstractmethod
    def close(self) -> None: ...

    # -- shared semantics ---------------------------------------------------------------
    def rows(self) -> dict[str, list[Row]]:
        """Every row of every table as the engine stores it now, normalised: once opened,
        the seed every hash starts from; later, the state computed from scratch."""
        return {
            t.name: [normalise_row(r) for r in self._fetch_all(f"SELECT * FROM {t.name}")]
            for t in self.blueprint.tables
        }

    def reset(self) -> None:
        self._rollback_task()
        self._log.clear()
        self._made.clear()

    def restore(self, log: list[tuple[str, dict[str, Any]]]) -> None:
        """Re-apply writes that succeeded (after the worker that ran them was lost)."""
        self._log = [(self.tools[name], params) for name, params in log]
        self._made = Counter(
            self.blueprint.sequence(t.name) for t, _ in self._log if self.blueprint.takes_id(t.name)
        )
        self._replay_log()

    def call(self, name: str, params: dict[str, Any]) -> Outcome:
        """Run one tool call in its own transaction; any failure leaves no trace and is an
        error result, whatever raised it."""
        tool = self.tools.get(name)
        if tool is None:
            return Outcome(False, error=f"unknown tool {name!r}", code=ToolErrorCode.UNKNOWN_TOOL)
        start = self.blueprint.sequence(name)
        params = {**params, "_new_id": start + self._made[start]}
        # Read tools cannot write (their steps are read steps, and every engine enforces a
        # step's role), so they need no transaction of their own unless a failed read
        # aborts the engine's transaction.
        guarded = tool.kind == "write" or self.reads_can_abort
        if guarded:
            self._begin_call()
        self._arm(self.limits.timeout_ms / 1000.0)
        try:
            output = self._run(tool, params)
        except Exception as exc:
            self._arm(None)  # before undoing: the undo must not be interrupted
            failed = self._failure(exc)
            if guarded:
                self._end_call(ok=False)
            return Outcome(False, error=failed.detail, code=failed.reason)
        self._arm(None)
        if guarded:
            self._end_call(ok=True)
        if tool.kind == "write":
            self._log.append((tool, params))
            self._made[start] += self.blueprint.takes_id(name)
            return Outcome(True, output=output, new_id=params["_new_id"])
        return Outcome(True, output=output)

    def _failure(self, exc: Exception) -> CallFailed:
        if isinstance(exc, CallFailed):
            return exc
        if isinstance(exc, MemoryError):
            self.out_of_memory = True
            mb = self.limits.memory_mb
            return CallFailed(
                f"the call ran out of its {mb} MB memory budget", ToolErrorCode.TOO_LARGE
            )
        failed = self._classify(exc)
        if failed is not None:
            return failed
        return CallFailed(
            f"the statement failed: {type(exc).__name__}: {exc}", ToolErrorCode.SQL_ERROR
        )

    def _replay_log(self) -> None:
        """Re-apply the successful writes since reset (deterministic: fixed clock, ids)."""
        for tool, params in self._log:
            for step in tool.steps:
                if step.role == "run":
                    self._execute(step, {p: params[p] for p in step.params})

    def _run(self, tool: ToolPlan, params: dict[str, Any]) -> Any:
        output: Any = None
        for step in tool.steps:
            bound = {p: params[p] for p in step.params}
            if step.role == "require":
                _, rows = self._query(step, bound, 1)
                if not rows or not rows[0] or not _truthy(rows[0][0]):
                    raise CallFailed(step.error, ToolErrorCode.POLICY)
            elif step.role == "run":
                self._execute(step, bound)
            else:
                cap = self.limits.max_rows
                columns, rows = self._query(step, bound, cap + 1)
                if len(rows) > cap and not tool.single:
                    raise CallFailed(
                        f"the result has more than {cap} rows; narrow the query",
                        ToolErrorCode.TOO_LARGE,
                    )
                _check_text_size(rows, self.limits.max_bytes)
                records = [dict(zip(columns, map(normalise, row), strict=True)) for row in rows]
                output = (records[0] if records else None) if tool.single else records
                size = _output_size(output)
                if size > self.limits.max_bytes:
                    raise CallFailed(
                        f"the result is {size} bytes, over the {self.limits.max_bytes}-byte cap",
                        ToolErrorCode.TOO_LARGE,
                    )
        return output
