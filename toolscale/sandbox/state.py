"""Canonical database state: normalised values, per-table digests, a state hash and diffs.

The same state hashes the same on SQLite and DuckDB: values are normalised (33 and 33.0
are equal, text stays text, booleans are 0/1) and rows are taken in primary-key order.
Changes are tracked against the seed, so hashing after a replay only re-reads what changed.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ConfigDict, Field

from toolscale.sandbox.values import Changes as Changes
from toolscale.sandbox.values import Key, Row, normalise_row
from toolscale.sandbox.values import normalise as normalise
from toolscale.schema import Scalar, Schema


def encode_row(row: Row) -> bytes:
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode()


def _sort_key(key: Key) -> tuple:
    # Primary-key values of one column share a type; None cannot occur (keys are NOT NULL).
    return tuple((0, v) if isinstance(v, int | float) else (1, str(v)) for v in key)


def _row_digest(row: Row) -> bytes:
    return hashlib.sha256(encode_row(row)).digest()


def _digest(row_digests: list[bytes]) -> bytes:
    return hashlib.sha256(b"".join(row_digests)).digest()


class TableState:
    """A table's seed rows keyed by primary key, their digests in key order, and the table's.

    Table digest = sha256 of the rows' sha256 (of canonical JSON) in primary-key order, so
    hashing a changed state re-encodes only the changed rows.
    """

    def __init__(self, name: str, columns: list[str], key_index: list[int], rows: Iterable[Row]):
        self.name = name
        self.columns = columns
        self.key_index = key_index
        self.rows: dict[Key, Row] = {}
        for raw in rows:
            row = normalise_row(raw)
            self.rows[self.key_of(row)] = row
        self.keys = sorted(self.rows, key=_sort_key)
        self.position = {key: i for i, key in enumerate(self.keys)}
        self.encoded = [_row_digest(self.rows[k]) for k in self.keys]
        self.digest = _digest(self.encoded)

    def key_of(self, row: Row) -> Key:
        return tuple(row[i] for i in self.key_index)

    def digest_with(self, changes: Mapping[Key, Row | None]) -> bytes:
        if not changes:
            return self.digest
        encoded = list(self.encoded)
        structural = []
        for key, row in changes.items():
            at = self.position.get(key)
            if at is not None and row is not None:
                encoded[at] = _row_digest(row)
            else:
                structural.append((key, row))
        if structural:
            keys = list(self.keys)
            for key, row in structural:
                at = bisect.bisect_left(keys, _sort_key(key), key=_sort_key)
                present = at < len(keys) and keys[at] == key
                if row is None and present:
                    del keys[at], encoded[at]
                elif row is not None and not present:
                    keys.insert(at, key)
                    encoded.insert(at, _row_digest(row))
        return _digest(encoded)


class SeedState:
    """The canonical seed every replay starts from; computes hashes and diffs of changes."""

    def __init__(self, schema: Schema, rows_by_table: Mapping[str, Iterable[Row]]):
        self.tables: dict[str, TableState] = {}
        for table in schema.tables:
            cols = table.column_names
            self.tables[table.name] = TableState(
                table.name,
                cols,
                [cols.index(k) for k in table.primary_key],
                rows_by_table.get(table.name, ()),
            )

    def state_hash(self, changes: Changes | None = None) -> str:
        changes = changes or {}
        h = hashlib.sha256()
        for name in sorted(self.tables):
            h.update(name.encode() + b"\0")
            h.update(self.tables[name].digest_with(changes.get(name, {})))
        return h.hexdigest()

    def prune(self, changes: Changes) -> Changes:
        """Drop changes that put back exactly the seed row (an update reverted, say)."""
        out: Changes = {}
        for name, table_changes in changes.items():
            seed = self.tables[name].rows
            kept = {
                k: v
                for k, v in table_changes.items()
                if not (v is None and k not in seed) and seed.get(k, _MISSING) != v
            }
            if kept:
                out[name] = kept
        return out

    def diff(self, before: Changes, after: Changes) -> StateDiff:
        """Rows that differ between two states reached from this seed."""
        out: dict[str, list[RowChange]] = {}
        for name in sorted(set(before) | set(after)):
            table = self.tables[name]
            b, a = before.get(name, {}), after.get(name, {})
            rows = []
            for key in sorted(set(b) | set(a), key=_sort_key):
                old = b[key] if key in b else table.rows.get(key)
                new = a[key] if key in a else table.rows.get(key)
                if old != new:
                    rows.append(RowChange.of(table.columns, key, old, new))
            if rows:
                out[name] = rows
        return StateDiff(tables=out)


_MISSING = object()


class RowChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: list[Scalar]
    before: dict[str, Scalar] | None = None
    after: dict[str, Scalar] | None = None

    @classmethod
    def of(cls, columns: list[str], key: Key, old: Row | None, new: Row | None) -> RowChange:
        return cls(
            key=list(key),
            before=dict(zip(columns, old, strict=True)) if old is not None else None,
            after=dict(zip(columns, new, strict=True)) if new is not None else None,
        )

    @property
    def kind(self) -> str:
        if self.before is None:
            return "inserted"
        return "deleted" if self.after is None else "updated"

    @property
    def changed_columns(self) -> list[str]:
        if self.before is None or self.after is None:
            return []
        return [c for c in self.after if self.before.get(c) != self.after[c]]


class StateDiff(BaseModel):
    """Per table: inserted, updated (with changed columns) and deleted rows."""

    model_config = ConfigDict(extra="forbid")

    tables: dict[str, list[RowChange]] = Field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.tables

    def summary(self) -> str:
        """One line a person can read: `accounts: 1 updated (balance); transfers: 1 inserted`."""
        parts = []
        for name, rows in self.tables.items():
            counts: dict[str, int] = {}
            cols: set[str] = set()
            for row in rows:
                counts[row.kind] = counts.get(row.kind, 0) + 1
                cols.update(row.changed_columns)
            text = ", ".join(f"{n} {k}" for k, n in counts.items())
            if cols:
                text += f" ({', '.join(sorted(cols))})"
            parts.append(f"{name}: {text}")
        return "; ".join(parts) or "no change"
