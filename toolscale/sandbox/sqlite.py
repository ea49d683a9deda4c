"""SQLite engine: in-memory, STRICT tables, savepoints per call, an authorizer as the lock.

Reset is `ROLLBACK TO` a savepoint held since the seed was loaded (microseconds). Changes
are logged by temporary triggers into a temporary table, so hashing after a replay reads
only the changed rows. The log's and the triggers' names carry a random token drawn when
the database opens, so no SQL written before can name them, and the authorizer lets only
those triggers write the log.

The authorizer knows each statement's role: a read step (`require`, `returns`) may read
schema tables and nothing else; a `run` step may also write them. Statements are cached
by text, and the authorizer runs when a statement is prepared, so the text a statement
runs under carries its role.
"""

from __future__ import annotations

import json
import math
import secrets
import sqlite3
import time
from typing import Any

from toolscale.reasons import SeedReason, ToolErrorCode
from toolscale.sandbox.blueprint import Step
from toolscale.sandbox.engine import CallFailed, Engine, SeedError
from toolscale.sandbox.values import Changes, normalise, normalise_row

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
        "sqlite_compileoption_used",
        "sqlite_offset",
        "sqlite_version",
        "sqlite_source_id",
        "randomblob",
        "zeroblob",
    }
)
_WRITES = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
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
_PROGRESS_OPS = 100  # VM steps between looks at the clock


class SQLiteEngine(Engine):
    name = "sqlite"

    def _open(self) -> None:
        bp = self.blueprint
        self._role: str | None = None  # None: trusted set-up and bookkeeping
        token = secrets.token_hex(8)
        self._log_table = f"_ts_log_{token}"
        self._trigger_prefix = f"_ts_trg_{token}_"
        self._tables = bp.table_names
        self._pk = {t.name: t.primary_key for t in bp.tables}
        self._deadline = math.inf
        self._con = sqlite3.connect(
            ":memory:", isolation_level=None, check_same_thread=False, cached_statements=4096
        )
        con = self._con
        for limit, value in _LIMITS.items():
            con.setlimit(limit, value)
        if hasattr(con, "enable_load_extension"):
            con.enable_load_extension(False)
        con.set_authorizer(self._authorize)
        con.set_progress_handler(self._progress, _PROGRESS_OPS)
        con.execute("PRAGMA foreign_keys = ON")
        con.execute("PRAGMA temp_store = MEMORY")  # a large sort never spills to a file
        # REPLACE deletes the rows it conflicts with: delete triggers (the change log) must
        # fire for them too
        con.execute("PRAGMA recursive_triggers = ON")
        self._arm(self.limits.seed_timeout_s(bp.n_rows))  # CHECKs are bound, then run per row
        try:
            for ddl in bp.ddl:
                try:
                    con.execute(ddl)
                except sqlite3.Error as e:
                    raise SeedError(
                        f"the schema does not load: {e}", SeedReason.SEED_SCHEMA_REFUSED, "", None
                    ) from None
            self._load_seed()
        finally:
            self._arm(None)
        self._install_change_log()
        stored = "SELECT name FROM sqlite_schema UNION SELECT name FROM sqlite_temp_schema"
        self._internal = frozenset(n for (n,) in con.execute(stored)) - self._tables | {
            "sqlite_master",
            "sqlite_schema",
            "sqlite_temp_master",
            "sqlite_temp_schema",
            "sqlite_sequence",
            "sqlite_stat1",
            "sqlite_stat4",
        }
        con.execute("BEGIN")
        con.execute("SAVEPOINT task")

    def _fetch_all(self, sql: str) -> list:
        return self._con.execute(sql).fetchall()

    # -- set-up -------------------------------------------------------------------------
    def _load_seed(self) -> None:
        con = self._con
        con.execute("BEGIN")
        con.execute("PRAGMA defer_foreign_keys = ON")  # self-references may come in any order
        for table in self.blueprint.tables:
            if not table.rows:
                continue
            sql = f"INSERT INTO {table.name} VALUES ({', '.join('?' * len(table.columns))})"
            con.execute("SAVEPOINT batch")
            self._role = "run"  # the rows go in under the lock: CHECKs are expressions too
            try:
                con.executemany(sql, table.rows)
            except sqlite3.Error as e:
                self._role = None
                self._seed_failed(table.name, sql, table.rows, e)
            finally:
                self._role = None
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
                table,
                index,
            )
        con.execute("COMMIT")

    def _seed_failed(self, table: str, sql: str, rows: list[tuple], error: sqlite3.Error) -> None:
        """The batch failed: say it ran out of its budget, or name the first row refused
        (row by row, in the same transaction: foreign keys stay deferred)."""
        con = self._con
        if str(error) == "interrupted":
            if con.in_transaction:
                con.execute("ROLLBACK")
            budget = self.limits.seed_timeout_s(self.blueprint.n_rows)
            raise SeedError(
                f"loading the seed ran past its {budget:g} s budget (a CHECK that costs too "
                "much per row?)",
                SeedReason.SEED_BUDGET,
                table,
                None,
            )
        con.execute("ROLLBACK TO batch")
        for i, row in enumerate(rows):
            try:
                self._role = "run"
                con.execute(sql, row)
            except sqlite3.Error as e:
                self._role = None
                con.execute("ROLLBACK")
                raise SeedError(str(e), SeedReason.SEED_CONSTRAINT_VIOLATION, table, i) from None
            finally:
                self._role = None
        con.execute("ROLLBACK")
        raise SeedError(
            f"rows refused as a batch: {error}", SeedReason.SEED_CONSTRAINT_VIOLATION, table, None
        )

    def _row_index(self, table: str, rowid: int) -> int | None:
        pk = self._pk[table]
        found = self._con.execute(f"SELECT {', '.join(pk)} FROM {table} WHERE rowid = ?", (rowid,))
        key = found.fetchone()
        if key is None:
            return None
        plan = next(t for t in self.blueprint.tables if t.name == table)
        at = [plan.columns.index(k) for k in pk]
        for i, row in enumerate(plan.rows):
            if tuple(row[j] for j in at) == tuple(key):
                return i
        return None

    def _install_change_log(self) -> None:
        con = self._con
        log = self._log_table
        con.execute(f"CREATE TEMP TABLE {log} (t TEXT NOT NULL, k TEXT NOT NULL)")
        for table in self.blueprint.tables:
            new = ", ".join(f"NEW.{k}" for k in table.primary_key)
            old = ", ".join(f"OLD.{k}" for k in table.primary_key)
            name = table.name
            trigger = self._trigger_prefix + name
            con.execute(
                f"CREATE TEMP TRIGGER {trigger}_ins AFTER INSERT ON main.{name} BEGIN "
                f"INSERT INTO {log} VALUES ('{name}', json_array({new})); END"
            )
            con.execute(
                f"CREATE TEMP TRIGGER {trigger}_del AFTER DELETE ON main.{name} BEGIN "
                f"INSERT INTO {log} VALUES ('{name}', json_array({old})); END"
            )
            con.execute(
                f"CREATE TEMP TRIGGER {trigger}_upd AFTER UPDATE ON main.{name} BEGIN "
                f"INSERT INTO {log} VALUES ('{name}', json_array({old})); "
                f"INSERT INTO {log} VALUES ('{name}', json_array({new})); END"
            )

    def _authorize(self, action: int, arg1: Any, arg2: Any, db: Any, source: Any) -> int:
        role = self._role
        if role is None:
            return sqlite3.SQLITE_OK
        if isinstance(source, str) and source.startswith(self._trigger_prefix):
            # our change log's triggers: they insert into the log and read the row's key
            if action == sqlite3.SQLITE_INSERT:
                return sqlite3.SQLITE_OK if arg1 == self._log_table else sqlite3.SQLITE_DENY
            if action in (sqlite3.SQLITE_READ, sqlite3.SQLITE_FUNCTION):
                return sqlite3.SQLITE_OK
            return sqlite3.SQLITE_DENY
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:
            # db is None, with no column, where no column is read: count(*) of a table, a
            # CTE's rows; no stored relation but the schema's may be read even so
            ok = (db == "main" and arg1 in self._tables) or (
                db is None and not arg2 and arg1 not in self._internal
            )
            return sqlite3.SQLITE_OK if ok else sqlite3.SQLITE_DENY
        if action in _WRITES and role == "run":
            ok = db == "main" and arg1 in self._tables
            return sqlite3.SQLITE_OK if ok else sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION:
            return sqlite3.SQLITE_DENY if str(arg2).lower() in _DENIED_FUNCTIONS else 0
        return sqlite3.SQLITE_DENY

    def _progress(self) -> int:
        return 1 if time.perf_counter() > self._deadline else 0

    def _control(self, sql: str) -> None:
        role, self._role = self._role, None
        try:
            self._con.execute(sql)
        finally:
            self._role = role

    @staticmethod
    def _text(step: Step) -> str:
        # the role is part of the cached statement's text: a statement prepared (and
        # authorised) as a write is never reused as a read
        return f"/*{step.role}*/ {step.sql}"

    # -- engine hooks -------------------------------------------------------------------
    def _query(self, step: Step, params: dict[str, Any], limit: int) -> tuple[list[str], list]:
        self._role = "read"
        try:
            cur = self._con.execute(self._text(step), params)
            rows = cur.fetchmany(limit)
        finally:
            self._role = None
        if cur.description is None:
            raise CallFailed(f"{step.label}: a read step returned no rows", ToolErrorCode.SQL_ERROR)
        return [d[0] for d in cur.description], rows

    def _execute(self, step: Step, params: dict[str, Any]) -> None:
        self._role = "run"
        try:
            self._con.execute(self._text(step), params)
        finally:
            self._role = None

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
            self._replay_log()

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
        if "not authorized" in text or "prohibited" in text:
            return CallFailed(f"the sandbox refused the statement: {text}", ToolErrorCode.FORBIDDEN)
        if isinstance(exc, sqlite3.IntegrityError):
            return CallFailed(f"the database refused the change: {text}", ToolErrorCode.CONSTRAINT)
        if "too big" in text or "out of memory" in text:
            return CallFailed(f"the value is too large: {text}", ToolErrorCode.TOO_LARGE)
        return CallFailed(f"the statement failed: {text}", ToolErrorCode.SQL_ERROR)

    # -- state --------------------------------------------------------------------------
    def _rollback_task(self) -> None:
        self._control("ROLLBACK TO task")

    def changes(self) -> Changes:
        logged: dict[str, list] = {}
        for table, key_json in self._con.execute(f"SELECT DISTINCT t, k FROM {self._log_table}"):
            logged.setdefault(table, []).append(json.loads(key_json))
        return {table: self._rows_now(table, keys) for table, keys in logged.items()}

    def _rows_now(self, table: str, keys: list[list]) -> dict:
        """Current rows for these primary keys, one query; a missing key means deleted."""
        pk = self._pk[table]
        one = "(" + ", ".join("?" * len(pk)) + ")"
        at = [self._columns(table).index(k) for k in pk]
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
                found[tuple(row[i] for i in at)] = row
        return found

    def _columns(self, table: str) -> tuple[str, ...]:
        return next(t.columns for t in self.blueprint.tables if t.name == table)

    def close(self) -> None:
        self._con.close()
