"""DuckDB engine: the same tool SQL transpiled by sqlglot, external access off, config locked.

DuckDB has no savepoints, so a task runs in one open transaction and a failed call is
undone by rolling back and replaying the calls that succeeded before it (deterministic:
fixed clock, counter ids). Changes are found with EXCEPT against a copy of the seed.

DuckDB has no authorizer, so its lock is a check of every statement when the database
opens, by DuckDB itself: its parser says what kind of statement it is (a read step must
be a SELECT, a run step an INSERT, UPDATE or DELETE) and which relations it names, and
its binder (EXPLAIN) which tables and table functions the plan reads: every one must be a
schema table, so the seed's copy and the catalog are out of reach. Binding folds
constants, so it runs under the call budget too.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import duckdb

from toolscale.reasons import SeedReason, StaticSQLReason, ToolErrorCode
from toolscale.sandbox.blueprint import Blueprint, Limits, Step
from toolscale.sandbox.engine import CallFailed, Engine, SandboxRefused, SeedError
from toolscale.sandbox.values import Changes, normalise_row


def config(limits: Limits) -> dict[str, str | bool | int | float | list[str]]:
    return {
        "threads": 1,
        "memory_limit": f"{limits.memory_mb}MB",
        "enable_external_access": False,
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "home_directory": "",
        "temp_directory": "",  # nothing spills to disk
        "extension_directory": "/nonexistent",
        "secret_directory": "/nonexistent",
        "lock_configuration": True,
    }


_CHUNK = 200
_READ_TYPES = {duckdb.StatementType.SELECT}
_WRITE_TYPES = {
    duckdb.StatementType.INSERT,
    duckdb.StatementType.UPDATE,
    duckdb.StatementType.DELETE,
}
_SEED_SCHEMA = "_seed"


class DuckDBEngine(Engine):
    name = "duckdb"
    reads_can_abort = True

    def _open(self) -> None:
        bp = self.blueprint
        self._con = duckdb.connect(":memory:", config=config(self.limits))
        self._watchdog = Watchdog(self._con.interrupt)
        try:
            self._arm(self.limits.seed_timeout_s(bp.n_rows))  # binding a CHECK folds constants
            try:
                self._create_tables()
                self._load_seed()
            finally:
                self._arm(None)
            self._lock_statements()
        except BaseException:
            self.close()
            raise
        self._con.execute(f"CREATE SCHEMA {_SEED_SCHEMA}")
        for t in bp.tables:
            self._con.execute(
                f"CREATE TABLE {_SEED_SCHEMA}.{t.name} AS SELECT * FROM main.{t.name}"
            )
        self._con.execute("BEGIN")

    def _fetch_all(self, sql: str) -> list:
        return self._con.execute(sql).fetchall()

    def _create_tables(self) -> None:
        for ddl in self.blueprint.ddl:
            try:
                self._con.execute(ddl)
            except duckdb.Error as e:
                first = str(e).split("\n")[0]
                reason = (
                    SeedReason.SEED_BUDGET if _interrupted(e) else SeedReason.SEED_SCHEMA_REFUSED
                )
                raise SeedError(f"the schema does not load: {first}", reason, "", None) from None

    def _lock_statements(self) -> None:
        """Every statement of every tool vetted by DuckDB itself, under the call budget."""
        tables = self.blueprint.table_names
        # the tables each tool may write, by DuckDB's own reading: where changes() looks
        self._may_write: dict[str, set[str]] = {}
        for tool in self.tools.values():
            for step in tool.steps:
                self._arm(self.limits.timeout_ms / 1000.0)
                try:
                    problem = statement_problem(self._con, step, tables)
                finally:
                    self._arm(None)
                if problem:
                    raise SandboxRefused(f"{tool.name}.{step.label}: {problem}")
                if step.role == "run":
                    self._may_write.setdefault(tool.name, set()).update(relations(step))

    def _load_seed(self) -> None:
        for table in self.blueprint.tables:
            rows = table.rows
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
        first = str(batch_error).split("\n")[0]
        if _interrupted(batch_error):
            raise SeedError(
                f"loading the seed ran past its "
                f"{self.limits.seed_timeout_s(self.blueprint.n_rows):g} s budget "
                "(a CHECK that costs too much per row?)",
                SeedReason.SEED_BUDGET,
                table,
                None,
            )
        if isinstance(batch_error, duckdb.OutOfMemoryException):
            raise SeedError(
                f"loading the seed ran out of memory: {first}", SeedReason.SEED_BUDGET, table, None
            )
        self._con.execute("BEGIN")
        try:
            for i, row in enumerate(chunk):
                try:
                    self._con.execute(f"INSERT INTO {table} VALUES {one}", list(row))
                except duckdb.Error as e:
                    raise SeedError(
                        str(e).split("\n")[0],
                        SeedReason.SEED_CONSTRAINT_VIOLATION,
                        table,
                        start + i,
                    ) from None
            raise SeedError(
                f"as a batch: {first}", SeedReason.SEED_CONSTRAINT_VIOLATION, table, None
            )
        finally:
            self._con.execute("ROLLBACK")

    # -- engine hooks -------------------------------------------------------------------
    def _query(self, step: Step, params: dict[str, Any], limit: int) -> tuple[list[str], list]:
        cur = self._con.execute(step.sql, params)
        if cur.description is None:
            raise CallFailed(f"{step.label}: a read step returned no rows", ToolErrorCode.SQL_ERROR)
        rows = cur.fetchmany(limit)
        return [d[0] for d in cur.description], rows

    def _execute(self, step: Step, params: dict[str, Any]) -> None:
        self._con.execute(step.sql, params)

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
        if _interrupted(exc):
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
        tables = set().union(*(self._may_write.get(tool.name, ()) for tool, _ in self._log))
        out: Changes = {}
        for plan in self.blueprint.tables:
            if plan.name not in tables:
                continue
            name = plan.name
            at = [plan.columns.index(k) for k in plan.primary_key]
            pk = ", ".join(plan.primary_key)
            found: dict = {}
            for row in self._con.execute(
                f"SELECT * FROM main.{name} EXCEPT SELECT * FROM {_SEED_SCHEMA}.{name}"
            ).fetchall():
                row = normalise_row(row)
                found[tuple(row[i] for i in at)] = row
            for key in self._con.execute(
                f"SELECT {pk} FROM {_SEED_SCHEMA}.{name} EXCEPT SELECT {pk} FROM main.{name}"
            ).fetchall():
                found[normalise_row(key)] = None
            if found:
                out[name] = found
        return out

    def close(self) -> None:
        self._watchdog.close()
        self._con.close()


def _interrupted(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.InterruptException) or "INTERRUPT" in str(exc).upper()


def _plan_nodes(plan: list[dict]) -> Iterator[dict]:
    for node in plan:
        yield node
        yield from _plan_nodes(node.get("children", []))


def statement_problem(con: duckdb.DuckDBPyConnection, step: Step, tables: frozenset[str]) -> str:
    """What DuckDB itself finds wrong with a step ('' if nothing): more than one statement,
    a kind its role may not run, or a relation or table function outside the schema."""
    try:
        parsed = con.extract_statements(step.sql)
    except duckdb.Error as e:
        return f"DuckDB cannot parse it: {str(e).splitlines()[0]}"
    allowed = _WRITE_TYPES if step.role == "run" else _READ_TYPES
    if len(parsed) != 1 or parsed[0].type not in allowed:
        kinds = ", ".join(p.type.name for p in parsed)
        return f"DuckDB parsed {kinds or 'nothing'}, which a {step.role} step may not run"
    try:
        named = relations(step)
    except duckdb.Error as e:
        return f"DuckDB cannot read its relations: {str(e).splitlines()[0]}"
    outside = sorted(n for n in named if n not in tables)
    if outside:
        return f"names relations outside the schema: {', '.join(outside)}"
    try:
        explained = con.execute(
            "EXPLAIN (FORMAT JSON) " + step.sql, {p: None for p in step.params}
        ).fetchall()
    except duckdb.Error as e:
        if _interrupted(e):
            return "binding it ran past the call budget"
        return f"DuckDB cannot bind it: {str(e).splitlines()[0]}"
    for node in _plan_nodes(json.loads(explained[0][1])):
        info = node.get("extra_info") or {}
        if not isinstance(info, dict):
            continue
        if "Function" in info:
            return f"reads table function {info['Function']}"
        table = info.get("Table")
        if table is not None and not (
            table.startswith("memory.main.") and table.split(".", 2)[2] in tables
        ):
            return f"reads {table}, which is not a schema table"
    return ""


_PLACEHOLDER = re.compile(r"\$[A-Za-z_][A-Za-z0-9_]*")
# how DuckDB's reader names a relation of the main schema, quoted where it is a keyword:
# [[memory.]main.]name[ AS alias]
_NAMED = re.compile(
    r'(?:"?memory"?\.)?(?:"?main"?\.)?"?([a-z][a-z0-9_]*)"?(?: AS "?[A-Za-z_][A-Za-z0-9_]*"?)?'
)
# the table a write targets, as sqlglot writes it: the keyword, then a bare or quoted name
_TARGET = re.compile(
    r"\s*(?:UPDATE|INSERT\s+(?:OR\s+(?:REPLACE|IGNORE)\s+)?INTO|DELETE\s+FROM)\s+"
    r'"?([a-z][a-z0-9_]*)"?(?=[\s(]|$)',
    re.IGNORECASE,
)


def relations(step: Step) -> set[str]:
    """The relations a statement names, read by DuckDB's own parser (CTE names in their
    scope are not relations); a name outside the main schema is kept as DuckDB wrote it.
    Its reader binds writes, so a write names its target (DuckDB's plan shows what it
    reads); its reader refuses parameters, so they read as NULL."""
    if step.role == "run":
        target = _TARGET.match(step.sql)
        return {target.group(1) if target else "(a target that is not a bare table name)"}
    named = duckdb.get_table_names(_PLACEHOLDER.sub("NULL", step.sql), qualified=True)
    out = set()
    for name in named:
        match = _NAMED.fullmatch(name)
        out.add(match.group(1) if match else name)
    return out


def bind_errors(blueprint: Blueprint) -> list[tuple[str, str, str]]:
    """Statements sqlglot transpiled that DuckDB still cannot bind (unknown function, arity),
    as (label, message, reason code): every statement bound against the real DDL with NULL
    parameters, nothing executed, each under the call budget (binding folds constants). A
    table DuckDB cannot create (its CHECK) is one problem, and nothing is bound."""
    con = duckdb.connect(":memory:", config=config(blueprint.limits))
    watchdog = Watchdog(con.interrupt)
    seconds = blueprint.limits.timeout_ms / 1000.0
    try:
        for ddl in blueprint.ddl:
            watchdog.arm(seconds)
            try:
                con.execute(ddl)
            except duckdb.Error as e:
                first = str(e).split("\n")[0]
                if _interrupted(e):
                    return [
                        (
                            "schema",
                            f"creating a table ran past the budget: {ddl[:80]}",
                            StaticSQLReason.SQL_CHECK_BUDGET,
                        )
                    ]
                return [
                    (
                        "schema",
                        f"on DuckDB the table does not load: {first}",
                        StaticSQLReason.CHECK_NOT_PORTABLE,
                    )
                ]
            finally:
                watchdog.arm(None)
        found: list[tuple[str, str, str]] = []
        for tool in blueprint.tools.values():
            for step in tool.steps:
                watchdog.arm(seconds)
                try:
                    con.execute("EXPLAIN " + step.sql, {p: None for p in step.params})
                except duckdb.Error as e:
                    first = str(e).split("\n")[0]
                    reason = StaticSQLReason.SQL_NOT_PORTABLE
                    if _interrupted(e):
                        first = f"binding ran past the {blueprint.limits.timeout_ms:g} ms budget"
                        reason = StaticSQLReason.SQL_CHECK_BUDGET
                    found.append((f"{tool.name}.{step.label}", f"on DuckDB: {first}", reason))
                finally:
                    watchdog.arm(None)
        return found
    finally:
        watchdog.close()
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
