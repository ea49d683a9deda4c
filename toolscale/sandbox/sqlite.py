"""SQLite engine: in-memory, STRICT tables, savepoints per call, an authorizer as the lock.

Reset is `ROLLBACK TO` a savepoint held since the seed was loaded (microseconds). Changes
are logged by temporary triggers, so hashing after a replay reads only the changed rows.
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from typing import Any

from toolscale.reasons import SeedReason, ToolErrorCode
from toolscale.sandbox.base import CallFailed, Sandbox, SeedError
from toolscale.sandbox.ddl import create_statements
from toolscale.sandbox.sqlcheck import Statement
from toolscale.sandbox.state import Changes, normalise, normalise_row

_LOG = "_ts_changes"
# Functions a tool may never call even if a static check were bypassed.
_DENIED_FUNCTIONS = frozenset(
    {
        "load_extension",
        "readfile",
        "writefile",
        "edit",
        "fts3_tokenizer",
        "zipfile",
        "sqlar_compress",
        "sqlar_uncompress",
        "sqlite_compileoption_get",
        "sqlite_offset",
    }
)
_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE}
_TABLE_ACTIONS = {
    sqlite3.SQLITE_READ,
    sqlite3.SQLITE_INSERT,
    sqlite3.SQLITE_UPDATE,
    sqlite3.SQLITE_DELETE,
}
_LIMITS = {
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_LENGTH: 1_000_000,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,
    sqlite3.SQLITE_LIMIT_EXPR_DEPTH: 200,
    sqlite3.SQLITE_LIMIT_COMPOUND_SELECT: 50,
    sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER: 100,
    sqlite3.SQLITE_LIMIT_LIKE_PATTERN_LENGTH: 1000,
    sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH: 4,
}


class SQLiteSandbox(Sandbox):
    engine = "sqlite"

    def _open(self) -> None:
        schema = self.spec.schema_
        self._trusted = True
        self._deadline = math.inf
        self._con = sqlite3.connect(
            ":memory:", isolation_level=None, check_same_thread=False, cached_statements=4096
        )
        self._con.execute("PRAGMA foreign_keys = ON")
        for ddl in create_statements(schema, "sqlite"):
            self._con.execute(ddl)
        self._load_seed()
        self._pk = {t.name: t.primary_key for t in schema.tables}
        self._install_change_log()
        self._allowed_tables = frozenset(schema.table_names) | {_LOG}
        self._lock_down()
        self._control("BEGIN")
        self._control("SAVEPOINT task")

    def _fetch_all(self, sql: str) -> list:
        return self._con.execute(sql).fetchall()

    # -- set-up -------------------------------------------------------------------------
    def _load_seed(self) -> None:
        con = self._con
        con.execute("BEGIN")
        con.execute("PRAGMA defer_foreign_keys = ON")  # self-references may come in any order
        for table in self.spec.schema_.insertion_order():
            rows = self.spec.seed_rows(table.name)
            if not rows:
                continue
            sql = f"INSERT INTO {table.name} VALUES ({', '.join('?' * len(table.columns))})"
            con.execute("SAVEPOINT batch")
            try:
                con.executemany(sql, rows)
            except sqlite3.Error:
                con.execute("ROLLBACK TO batch")
                self._find_bad_row(table.name, sql, rows)
            con.execute("RELEASE batch")
        violations = con.execute("PRAGMA foreign_key_check").fetchall()
        if violations:
            table, rowid, parent, _ = violations[0]
            index = self._row_index(table, rowid)
            con.execute("ROLLBACK")
            raise SeedError(
                f"foreign key to {parent!r} points at a row that does not exist"
                f" ({len(violations)} violation(s) in all)",
                SeedReason.SEED_CONSTRAINT_VIOLATION,
                table=table,
                index=index,
            )
        con.execute("COMMIT")

    def _find_bad_row(self, table: str, sql: str, rows: list[tuple]) -> None:
        """The batch failed: insert row by row to name the first row refused."""
        con = self._con
        for i, row in enumerate(rows):
            try:
                con.execute(sql, row)
            except sqlite3.Error as e:
                con.execute("ROLLBACK")
                raise SeedError(
                    str(e), SeedReason.SEED_CONSTRAINT_VIOLATION, table=table, index=i
                ) from None
        con.execute("ROLLBACK")
        raise SeedError(
            "rows refused as a batch", SeedReason.SEED_CONSTRAINT_VIOLATION, table=table, index=None
        )

    def _row_index(self, table: str, rowid: int) -> int | None:
        pk = self.spec.schema_.table(table).primary_key
        found = self._con.execute(f"SELECT {', '.join(pk)} FROM {table} WHERE rowid = ?", (rowid,))
        key = found.fetchone()
        if key is None:
            return None
        for i, row in enumerate(self.spec.seed.get(table, [])):
            if tuple(row.get(k) for k in pk) == tuple(key):
                return i
        return None

    def _install_change_log(self) -> None:
        con = self._con
        con.execute(f"CREATE TEMP TABLE {_LOG} (t TEXT NOT NULL, k TEXT NOT NULL)")
        for table in self.spec.schema_.tables:
            new = ", ".join(f"NEW.{k}" for k in table.primary_key)
            old = ", ".join(f"OLD.{k}" for k in table.primary_key)
            name = table.name
            con.execute(
                f"CREATE TEMP TRIGGER _ts_{name}_ins AFTER INSERT ON main.{name} BEGIN "
                f"INSERT INTO {_LOG} VALUES ('{name}', json_array({new})); END"
            )
            con.execute(
                f"CREATE TEMP TRIGGER _ts_{name}_del AFTER DELETE ON main.{name} BEGIN "
                f"INSERT INTO {_LOG} VALUES ('{name}', json_array({old})); END"
            )
            con.execute(
                f"CREATE TEMP TRIGGER _ts_{name}_upd AFTER UPDATE ON main.{name} BEGIN "
                f"INSERT INTO {_LOG} VALUES ('{name}', json_array({old})); "
                f"INSERT INTO {_LOG} VALUES ('{name}', json_array({new})); END"
            )

    def _lock_down(self) -> None:
        con = self._con
        for limit, value in _LIMITS.items():
            con.setlimit(limit, value)
        if hasattr(con, "enable_load_extension"):
            con.enable_load_extension(False)
        con.set_authorizer(self._authorize)
        con.set_progress_handler(self._progress, 1000)
        self._trusted = False

    def _authorize(self, action: int, arg1: Any, arg2: Any, db: Any, source: Any) -> int:
        if self._trusted or action in _ALLOWED_ACTIONS:
            return sqlite3.SQLITE_OK
        if action in _TABLE_ACTIONS:
            if db is None and action == sqlite3.SQLITE_READ:  # a CTE, not a stored table
                return sqlite3.SQLITE_OK
            if arg1 in self._allowed_tables and db in ("main", "temp"):
                return sqlite3.SQLITE_OK
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION:
            return sqlite3.SQLITE_DENY if str(arg2).lower() in _DENIED_FUNCTIONS else 0
        return sqlite3.SQLITE_DENY

    def _progress(self) -> int:
        return 1 if time.perf_counter() > self._deadline else 0

    def _control(self, sql: str) -> None:
        self._trusted = True
        try:
            self._con.execute(sql)
        finally:
            self._trusted = False

    # -- engine hooks -------------------------------------------------------------------
    def _query(self, stmt: Statement, params: dict[str, Any], limit: int) -> tuple[list[str], list]:
        cur = self._con.execute(stmt.sqlite, params)
        rows = cur.fetchmany(limit)
        return [d[0] for d in cur.description], rows

    def _execute(self, stmt: Statement, params: dict[str, Any]) -> None:
        self._con.execute(stmt.sqlite, params)

    def _begin_call(self) -> None:
        self._control("SAVEPOINT call")

    def _end_call(self, ok: bool) -> None:
        if ok:
            self._control("RELEASE call")
        elif self._con.in_transaction:
            self._control("ROLLBACK TO call")
            self._control("RELEASE call")
        else:  # SQLite rolled the whole transaction back (an interrupted write): rebuild it
            self._control("BEGIN")
            self._control("SAVEPOINT task")
            self._trusted = True
            try:
                self._replay_log()
            finally:
                self._trusted = False

    def _arm(self, seconds: float | None) -> None:
        self._deadline = math.inf if seconds is None else time.perf_counter() + seconds

    def _classify(self, exc: Exception) -> CallFailed | None:
        if not isinstance(exc, sqlite3.Error):
            return None
        text = str(exc)
        if text == "interrupted":
            ms = self.limits.timeout_ms
            return CallFailed(
                f"the call ran past its {ms:g} ms budget and was stopped", ToolErrorCode.TIMEOUT
            )
        if "not authorized" in text:
            return CallFailed(f"the sandbox refused the statement: {text}", ToolErrorCode.FORBIDDEN)
        if isinstance(exc, sqlite3.IntegrityError):
            return CallFailed(f"the database refused the change: {text}", ToolErrorCode.CONSTRAINT)
        return CallFailed(f"the statement failed: {text}", ToolErrorCode.SQL_ERROR)

    # -- state --------------------------------------------------------------------------
    def _rollback_task(self) -> None:
        self._control("ROLLBACK TO task")

    def changes(self) -> Changes:
        self._trusted = True
        try:
            logged: dict[str, list] = {}
            for table, key_json in self._con.execute(f"SELECT DISTINCT t, k FROM {_LOG}"):
                logged.setdefault(table, []).append(json.loads(key_json))
            out: Changes = {}
            for table, keys in logged.items():
                out[table] = self._rows_now(table, keys)
        finally:
            self._trusted = False
        return self.seed_state.prune(out)

    def _rows_now(self, table: str, keys: list[list]) -> dict:
        """Current rows for these primary keys, one query; a missing key means deleted."""
        pk = self._pk[table]
        state = self.seed_state.tables[table]
        one = "(" + ", ".join("?" * len(pk)) + ")"
        found: dict = {tuple(normalise(v) for v in key): None for key in keys}
        step = _LIMITS[sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER] // len(pk)
        for start in range(0, len(keys), step):
            chunk = keys[start : start + step]
            sql = (
                f"SELECT * FROM {table} WHERE ({', '.join(pk)}) IN "
                f"(VALUES {', '.join([one] * len(chunk))})"
            )
            for row in self._con.execute(sql, [v for key in chunk for v in key]):
                row = normalise_row(row)
                found[state.key_of(row)] = row
        return found

    def close(self) -> None:
        self._con.close()
