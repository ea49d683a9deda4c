"""Database schema: tables with typed columns, keys and CHECK constraints.

The schema is realised as real DDL (see `toolscale.ddl`), so keys and checks are enforced
by the database engine, never by hope.
"""

from __future__ import annotations

from typing import Literal

import sqlglot
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sqlglot import exp

from toolscale.names import check_identifier

ColumnType = Literal["integer", "real", "text", "boolean", "date", "datetime"]

Scalar = str | int | float | bool | None


class Column(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    type: ColumnType
    nullable: bool = True
    unique: bool = False
    description: str = ""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_identifier(v, "column")


class ForeignKey(BaseModel):
    """A reference to another table's primary key (no cascading: both engines must agree)."""

    model_config = ConfigDict(extra="forbid")

    columns: list[str] = Field(min_length=1)
    ref_table: str
    ref_columns: list[str] = Field(min_length=1)

    @model_validator(mode="after")
    def _arity(self) -> ForeignKey:
        if len(self.columns) != len(self.ref_columns):
            raise ValueError(
                f"foreign key {self.columns} -> {self.ref_table}{self.ref_columns}: "
                "column counts differ"
            )
        return self


class Table(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    columns: list[Column] = Field(min_length=1)
    primary_key: list[str] = Field(min_length=1)
    foreign_keys: list[ForeignKey] = Field(default_factory=list)
    checks: list[str] = Field(
        default_factory=list, description="SQL boolean expressions (SQLite dialect)"
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_identifier(v, "table")

    @model_validator(mode="after")
    def _columns(self) -> Table:
        names = [c.name for c in self.columns]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"table {self.name!r}: duplicate columns {dupes}")
        for key in self.primary_key:
            if key not in names:
                raise ValueError(f"table {self.name!r}: primary key column {key!r} does not exist")
        if len(set(self.primary_key)) != len(self.primary_key):
            raise ValueError(f"table {self.name!r}: primary key repeats a column")
        for fk in self.foreign_keys:
            for col in fk.columns:
                if col not in names:
                    raise ValueError(
                        f"table {self.name!r}: foreign key column {col!r} does not exist"
                    )
        return self

    def column(self, name: str) -> Column:
        for col in self.columns:
            if col.name == name:
                return col
        raise KeyError(f"table {self.name!r} has no column {name!r}")

    def email_column(self) -> str | None:
        """The text column that holds a person's email, if the table has one."""
        return next((c.name for c in self.columns if "email" in c.name and c.type == "text"), None)

    @property
    def column_names(self) -> list[str]:
        return [c.name for c in self.columns]

    def check_terms(self) -> list[exp.Expr]:
        """The conjuncts every row must satisfy: each CHECK split on AND (a term under OR
        or NOT is not a rule a value can follow alone, so it is not split further)."""
        out: list[exp.Expr] = []
        for sql in self.checks:
            try:
                tree = sqlglot.parse_one(sql, read="sqlite")
            except sqlglot.errors.ParseError:
                continue  # the static checks report it
            out.extend(tree.flatten() if isinstance(tree, exp.And) else [tree])
        return [t.unnest() for t in out]

    def enum_values(self, column: str) -> list[str] | None:
        """The values a CHECK `column IN ('a', 'b')` allows (the intersection when several
        say so), or None when no check lists them."""
        allowed: list[str] | None = None
        for term in self.check_terms():
            if not isinstance(term, exp.In) or not isinstance(term.this, exp.Column):
                continue
            if term.this.name != column or term.args.get("query") is not None:
                continue
            literals = term.expressions
            if not literals or not all(isinstance(v, exp.Literal) for v in literals):
                continue
            values = [str(v.this) for v in literals]
            allowed = values if allowed is None else [v for v in allowed if v in values]
        return allowed

    def status(self) -> tuple[str, list[str]] | None:
        """The text column named for a status whose values a CHECK lists, with them."""
        for col in self.columns:
            if "status" in col.name and col.type == "text":
                values = self.enum_values(col.name)
                if values:
                    return col.name, values
        return None

    def state_of(self, column: str) -> str | None:
        """The status value a column only has a meaning in (`frozen_reason` for frozen,
        `cancelled_at` and `cancellation_reason` for cancelled, `refund_amount` for
        refunded): such a column is empty in the other states, so a new row never asks for
        it and a seed row has it only in its state."""
        found = self.status()
        if found is None or column == found[0] or column in self.primary_key:
            return None
        if any(column in fk.columns for fk in self.foreign_keys):
            return None
        parts = column.split("_")
        for value in found[1]:
            stem = value[:-2] if value.endswith("ed") and len(value) > 5 else value
            if any(p == value or (len(stem) >= 5 and p.startswith(stem)) for p in parts):
                return value
        if {"score", "result", "winner"} & set(parts):  # a game's home_score: once played
            return next((v for v in found[1] if v in PLAYED), None)
        return None


PLAYED = ("finished", "completed", "played", "final")


class Schema(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tables: list[Table] = Field(min_length=1)

    @model_validator(mode="after")
    def _references(self) -> Schema:
        by_name = {}
        for table in self.tables:
            if table.name in by_name:
                raise ValueError(f"duplicate table {table.name!r}")
            by_name[table.name] = table
        for table in self.tables:
            for fk in table.foreign_keys:
                ref = by_name.get(fk.ref_table)
                if ref is None:
                    raise ValueError(
                        f"table {table.name!r}: foreign key references unknown table "
                        f"{fk.ref_table!r}"
                    )
                if list(fk.ref_columns) != list(ref.primary_key):
                    raise ValueError(
                        f"table {table.name!r}: foreign key must reference the primary key "
                        f"{ref.primary_key} of {ref.name!r}, not {fk.ref_columns}"
                    )
                for col, ref_col in zip(fk.columns, fk.ref_columns, strict=True):
                    mine, theirs = table.column(col).type, ref.column(ref_col).type
                    if mine != theirs:
                        raise ValueError(
                            f"table {table.name!r}: foreign key column {col!r} is {mine} but "
                            f"{ref.name}.{ref_col} is {theirs}"
                        )
        cycle = self._reference_cycle()
        if cycle:
            path = ", ".join(f"{a}.{c} -> {b}" for a, c, b in cycle)
            raise ValueError(
                f"foreign keys form a cycle ({path}): a table can only be created after the "
                "tables it references, so keep the reference on one side"
            )
        return self

    def _reference_cycle(self) -> list[tuple[str, str, str]]:
        """One cycle of foreign keys between tables, as (table, column, referenced table);
        a table referencing itself is not one."""
        refs = {
            t.name: [
                (fk.columns[0], fk.ref_table) for fk in t.foreign_keys if fk.ref_table != t.name
            ]
            for t in self.tables
        }
        state: dict[str, int] = {}  # 1: on the path, 2: done
        path: list[tuple[str, str, str]] = []

        def visit(name: str) -> list[tuple[str, str, str]]:
            state[name] = 1
            for column, ref in refs[name]:
                path.append((name, column, ref))
                if state.get(ref) == 1:
                    start = next(i for i, step in enumerate(path) if step[0] == ref)
                    return path[start:]
                if ref not in state:
                    found = visit(ref)
                    if found:
                        return found
                path.pop()
            state[name] = 2
            return []

        for table in refs:
            if table not in state:
                found = visit(table)
                if found:
                    return found
        return []

    def table(self, name: str) -> Table:
        for table in self.tables:
            if table.name == name:
                return table
        raise KeyError(f"schema has no table {name!r}")

    @property
    def table_names(self) -> list[str]:
        return [t.name for t in self.tables]

    def insertion_order(self) -> list[Table]:
        """Tables ordered so every referenced table comes before the tables that reference it."""
        done: list[str] = []
        pending = {t.name: t for t in self.tables}
        while pending:
            ready = [
                t
                for t in pending.values()
                if all(fk.ref_table in done or fk.ref_table == t.name for fk in t.foreign_keys)
            ]
            if not ready:  # a reference cycle: fall back to declaration order
                ready = list(pending.values())
            for t in ready:
                done.append(t.name)
                del pending[t.name]
        return [self.table(n) for n in done]

    def held_by(self, people: str) -> dict[str, str]:
        """Per table whose foreign keys reach the asker's (`people`), the table of other
        people (one with an email) they reach in fewer steps, one alone: a teacher reaches
        an enrollment through its course, its student directly, so the enrollment is the
        student's. A course, which reaches no student, is left alone: a student's "my
        course" is one they are enrolled in."""
        by_name = {t.name: t for t in self.tables}
        persons = {t.name for t in self.tables if t.email_column()}
        out = {}
        for table in self.tables:
            ring, seen = {table.name}, {table.name}
            nearest: set[str] = set()
            while ring:
                ring = {
                    fk.ref_table
                    for name in ring
                    for fk in by_name[name].foreign_keys
                    if fk.ref_table in by_name and fk.ref_table not in seen
                }
                seen |= ring
                nearest = nearest or ring & persons
            if people in seen and len(nearest) == 1 and people not in nearest:
                out[table.name] = nearest.pop()
        return out

    def people(self) -> Table | None:
        """The table whose rows are the people who ask: of those with an email column, the
        one most records point to (a person's records belong to them; weather's
        `subscriptions` carry an email too, yet own nothing, so its forecasters ask); else
        the most referenced table that references nothing."""
        keyed = [t for t in self.tables if len(t.primary_key) == 1]
        refs = {
            t.name: sum(fk.ref_table == t.name for u in self.tables for fk in u.foreign_keys)
            for t in keyed
        }
        with_email = [t for t in keyed if t.email_column()]
        if with_email:
            return max(with_email, key=lambda t: refs[t.name])  # the first of a tie
        roots = [t for t in keyed if not t.foreign_keys and refs[t.name] > 0]
        return max(roots, key=lambda t: refs[t.name]) if roots else None
