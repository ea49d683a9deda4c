"""DuckDB engine: the same tool SQL transpiled by sqlglot, external access off, config locked.

DuckDB has no savepoints, so a task runs in one open transaction and a failed call is
undone by rolling back and replaying the calls that succeeded before it (deterministic:
fixed clock, counter ids). Changes are found with EXCEPT against a copy of the seed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from typing import Any

import duckdb

from toolscale.reasons import SeedReason, StaticSQLReason, ToolErrorCode
from toolscale.sandbox.base import (
    CallFailed,
    Program,
    Sandbox,
    SandboxRefused,
    SeedError,
    compile_programs,
)
from toolscale.sandbox.ddl import create_statements
from toolscale.sandbox.sqlcheck import SQLCheckError, Statement
from toolscale.sandbox.state import Changes, normalise_row
from toolscale.spec import EnvironmentSpec

_CONFIG: dict[str, str | bool | int] = {
    "threads": 1,
    "memory_limit": "512MB",
    "enable_external_access": False,
    "autoinstall_known_extensions": False,
    "autoload_known_extensions": False,
    "lock_configuration": True,
}
_CHUNK = 200
_READ_TYPES = {duckdb.StatementType.SELECT}
_WRITE_TYPES = {
    duckdb.StatementType.INSERT,
    duckdb.StatementType.UPDATE,
    duckdb.StatementType.DELETE,
}


class DuckDBSandbox(Sandbox):
    engine = "duckdb"
    reads_can_abort = True

    def _open(self) -> None:
        schema = self.spec.schema_
        self._con = duckdb.connect(":memory:", config=dict(_CONFIG))
        self._check_statement_types()
        for ddl in create_statements(schema, "duckdb"):
            self._con.execute(ddl)
        self._load_seed()
        self._con.execute("CREATE SCHEMA _seed")
        for t in schema.tables:
            self._con.execute(f"CREATE TABLE _seed.{t.name} AS SELECT * FROM main.{t.name}")
        self._watchdog = Watchdog(self._con.interrupt)
        self._con.execute("BEGIN")

    def _fetch_all(self, sql: str) -> list:
        return self._con.execute(sql).fetchall()

    def _check_statement_types(self) -> None:
        """A second opinion from DuckDB's own parser: one statement, of the allowed kind."""
        for program in self.programs.values():
            for stmt in program.statements:
                try:
                    parsed = self._con.extract_statements(stmt.duckdb)
                except duckdb.Error as e:
                    raise SandboxRefused(f"{stmt.label}: DuckDB cannot parse it: {e}") from None
                allowed = _WRITE_TYPES if stmt.role == "run" else _READ_TYPES
                if len(parsed) != 1 or parsed[0].type not in allowed:
                    kinds = ", ".join(p.type.name for p in parsed)
                    raise SandboxRefused(f"{stmt.label}: DuckDB parsed {kinds}; refused")

    def _load_seed(self) -> None:
        for table in self.spec.schema_.insertion_order():
            rows = self.spec.seed_rows(table.name)
            width = len(table.columns)
            one = "(" + ", ".join("?" * width) + ")"
            for start in range(0, len(rows), _CHUNK):
                chunk = rows[start : start + _CHUNK]
                sql = f"INSERT INTO {table.name} VALUES " + ", ".join([one] * len(chunk))
                try:
                    self._con.execute(sql, [v for row in chunk for v in row])
                except duckdb.Error as batch_error:
                    self._find_bad_row(table.name, one, chunk, start, batch_error)

    def _find_bad_row(
        self, table: str, one: str, chunk: list[tuple], start: int, batch_error: duckdb.Error
    ) -> None:
        """The batch failed (and inserted nothing): name the first row refused on its own."""
        self._con.execute("BEGIN")
        try:
            for i, row in enumerate(chunk):
                try:
                    self._con.execute(f"INSERT INTO {table} VALUES {one}", list(row))
                except duckdb.Error as e:
                    raise SeedError(
                        str(e).split("\n")[0],
                        SeedReason.SEED_CONSTRAINT_VIOLATION,
                        table=table,
                        index=start + i,
                    ) from None
            first = str(batch_error).split("\n")[0]
            raise SeedError(
                f"as a batch: {first}",
                SeedReason.SEED_CONSTRAINT_VIOLATION,
                table=table,
                index=None,
            )
        finally:
            self._con.execute("ROLLBACK")

    # -- engine hooks -------------------------------------------------------------------
    def _query(self, stmt: Statement, params: dict[str, Any], limit: int) -> tuple[list[str], list]:
        cur = self._con.execute(stmt.duckdb, params)
        rows = cur.fetchmany(limit)
        return [d[0] for d in cur.description], rows

    def _execute(self, stmt: Statement, params: dict[str, Any]) -> None:
        self._con.execute(stmt.duckdb, params)

    def _begin_call(self) -> None:
        pass

    def _end_call(self, ok: bool) -> None:
        if not ok:  # undo the failed call: roll the task back, replay what had succeeded
            self._con.execute("ROLLBACK")
            self._con.execute("BEGIN")
            self._replay_log()

    def _arm(self, seconds: float | None) -> None:
        self._watchdog.arm(seconds)

    def _classify(self, exc: Exception) -> CallFailed | None:
        if not isinstance(exc, duckdb.Error):
            return None
        text = str(exc).split("\n")[0]
        if isinstance(exc, duckdb.InterruptException) or "INTERRUPT" in text.upper():
            ms = self.limits.timeout_ms
            return CallFailed(
                f"the call ran past its {ms:g} ms budget and was stopped", ToolErrorCode.TIMEOUT
            )
        if isinstance(exc, duckdb.ConstraintException):
            return CallFailed(f"the database refused the change: {text}", ToolErrorCode.CONSTRAINT)
        if isinstance(exc, duckdb.PermissionException):
            return CallFailed(f"the sandbox refused the statement: {text}", ToolErrorCode.FORBIDDEN)
        if isinstance(exc, duckdb.OutOfMemoryException):
            return CallFailed(
                f"the call ran out of its memory budget: {text}", ToolErrorCode.TOO_LARGE
            )
        return CallFailed(f"the statement failed: {text}", ToolErrorCode.SQL_ERROR)

    # -- state --------------------------------------------------------------------------
    def _rollback_task(self) -> None:
        self._con.execute("ROLLBACK")
        self._con.execute("BEGIN")

    def changes(self) -> Changes:
        written = set().union(*(p.writes for p, _ in self._log)) if self._log else set()
        out: Changes = {}
        for name in sorted(written):
            table = self.seed_state.tables[name]
            pk = ", ".join(table.columns[i] for i in table.key_index)
            found: dict = {}
            for row in self._con.execute(
                f"SELECT * FROM main.{name} EXCEPT SELECT * FROM _seed.{name}"
            ).fetchall():
                row = normalise_row(row)
                found[table.key_of(row)] = row
            for key in self._con.execute(
                f"SELECT {pk} FROM _seed.{name} EXCEPT SELECT {pk} FROM main.{name}"
            ).fetchall():
                found[normalise_row(key)] = None
            if found:
                out[name] = found
        return self.seed_state.prune(out)

    def close(self) -> None:
        self._watchdog.close()
        self._con.close()


def portability_errors(
    spec: EnvironmentSpec, programs: dict[str, Program] | None = None
) -> list[SQLCheckError]:
    """Statements sqlglot transpiled that DuckDB still cannot bind (unknown function, arity).

    Binds every statement against the real DDL with NULL parameters; nothing is executed.
    """
    programs = programs if programs is not None else compile_programs(spec)
    con = duckdb.connect(":memory:", config=dict(_CONFIG))
    try:
        for ddl in create_statements(spec.schema_, "duckdb"):
            con.execute(ddl)
        found = []
        for program in programs.values():
            for stmt in program.statements:
                try:
                    con.execute("EXPLAIN " + stmt.duckdb, {p: None for p in stmt.params})
                except duckdb.Error as e:
                    first = str(e).split("\n")[0]
                    found.append(
                        SQLCheckError(
                            f"{stmt.label}: on DuckDB: {first}", StaticSQLReason.SQL_NOT_PORTABLE
                        )
                    )
        return found
    finally:
        con.close()


class Watchdog:
    """One thread per sandbox that fires `interrupt` when an armed deadline passes."""

    def __init__(self, interrupt: Callable[[], None]):
        self._interrupt = interrupt
        self._cond = threading.Condition()
        self._deadline = math.inf
        self._closed = False
        self._thread = threading.Thread(target=self._loop, daemon=True, name="sandbox-watchdog")
        self._thread.start()

    def arm(self, seconds: float | None) -> None:
        with self._cond:
            self._deadline = math.inf if seconds is None else time.monotonic() + seconds
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()
        self._thread.join(timeout=1)

    def _loop(self) -> None:
        with self._cond:
            while not self._closed:
                wait = self._deadline - time.monotonic()
                if wait <= 0:
                    self._deadline = math.inf
                    self._interrupt()
                    continue
                self._cond.wait(None if math.isinf(wait) else wait)
