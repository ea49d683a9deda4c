"""Arguments drawn from real rows: which column each tool parameter is compared with or
written to, and the seed values of that column. Smoke tests and sampled walks use it, so
calls look like what a user of this database would really ask for."""

from __future__ import annotations

import datetime as dt
import random
import re
from collections.abc import Callable, Collection
from typing import Any

import sqlglot
from sqlglot import exp

from generators.dataplan import is_iso, names_record, unused_name
from toolscale.apart import kept_apart
from toolscale.schema import Scalar, Table
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool


def parameter_columns(tool: Tool, spec: EnvironmentSpec) -> dict[str, tuple[str, str]]:
    """param -> (table, column), from `col <op> :param`, `SET col = :param` and INSERT lists."""
    found: dict[str, tuple[str, str]] = {}
    tables = {t.name: t for t in spec.schema_.tables}
    for _, sql in tool.statements():
        try:
            tree = sqlglot.parse_one(sql, read="sqlite")
        except sqlglot.errors.ParseError:
            continue
        default = next((t.name for t in tree.find_all(exp.Table) if t.name in tables), None)
        aliases = {t.alias_or_name: t.name for t in tree.find_all(exp.Table)}

        def column_of(
            col: exp.Column, default: str | None = default, aliases: dict = aliases
        ) -> tuple[str, str] | None:
            table = aliases.get(col.table, col.table) if col.table else default
            table = table if table in tables else default
            candidates = [table] if table else []
            candidates += [n for n in tables if n != table]
            for name in candidates:
                if col.name in tables[name].column_names:
                    return name, col.name
            return None

        for node in tree.find_all(exp.Placeholder):
            name = node.name
            if not name or name.startswith("_") or name in found:
                continue
            side: exp.Expression = node
            parent = node.parent
            # `lower(name) = lower(:name)`: find_hotel_by_name's name was taken for a
            # customer's, the first table with a column so named; `lower(trim(:new_email))`
            # was read as no column, and the new email drawn as 'standard'
            while isinstance(parent, exp.Paren | exp.Cast | exp.Lower | exp.Upper | exp.Trim):
                side, parent = parent, parent.parent
            other: Any = None
            if isinstance(parent, exp.Binary | exp.EQ):
                other = parent.left if parent.right is side else parent.right
            while isinstance(other, exp.Paren | exp.Cast | exp.Lower | exp.Upper | exp.Trim):
                other = other.this
            if isinstance(other, exp.Column):
                where = column_of(other)
                if where:
                    found[name] = where
        if isinstance(tree, exp.Insert):
            schema = tree.this
            values = tree.expression
            if isinstance(schema, exp.Schema) and isinstance(values, exp.Values):
                cols = [c.name for c in schema.expressions]
                table = schema.this.name if isinstance(schema.this, exp.Table) else None
                for row in values.expressions:
                    for col, value in zip(cols, row.expressions, strict=False):
                        name = value.name if isinstance(value, exp.Placeholder) else ""
                        fresh = name and not name.startswith("_") and name not in found
                        if fresh and table in tables and col in tables[table].column_names:
                            found[name] = (table, col)
    for pname in tool.parameters.get("properties", {}):
        if pname in found:
            continue
        for named in spec.schema_.tables:  # a parameter named after a column
            if pname in named.column_names:
                found[pname] = (named.name, pname)
                break
    return found


def still_to_come(
    table: Table, rows: list[dict], clock: str, among: Collection[str] | None = None
) -> Callable[[dict], bool]:
    """Whether a row of `table` is still to come, where the table holds things to come (a
    moment some of `rows` have ahead of the clock, some behind): travel-intent-00003 on
    7e55d3f added bags to a flight booking of 2024-08-05 under a 2025-01-15 clock, and a
    trial on movie's 71aacdf environment moved a booking onto a showtime of 2024-06-04.
    Where it holds none, every row is. `among`: the only columns that may be such moments
    (those a create sets)."""
    today = clock[:10]
    days = {
        c.name: [v[:10] for r in rows if isinstance(v := r.get(c.name), str)]
        for c in table.columns
        if c.type in ("date", "datetime") and (among is None or c.name in among)
    }
    moments = [c for c, held in days.items() if min(held, default=today) < today <= max(held)]

    def ahead(row: dict) -> bool:
        held = [v[:10] for c in moments if isinstance(v := row.get(c), str)]
        return not moments or (bool(held) and all(day >= today for day in held))

    return ahead


_SECONDS = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
FEW_AHEAD = 12  # fewer rows ahead of the clock than this to copy a new record from: more


def moved_ahead(row: dict, moments: list[str], clock: str, k: int) -> dict:
    """The row with its moments moved by whole days so the first lies 1 to 90 days after
    the clock (`k` picks how far): spans and times of day stay as they were."""
    held = [v for c in moments if isinstance(v := row.get(c), str) and is_iso(v[:10], "date")]
    if not held:
        return row
    first = min(dt.date.fromisoformat(v[:10]) for v in held)
    shift = dt.date.fromisoformat(clock[:10]) - first + dt.timedelta(days=1 + (k * 7) % 90)
    out = dict(row)
    for c in moments:
        if isinstance(v := row.get(c), str) and is_iso(v[:10], "date"):
            out[c] = (dt.date.fromisoformat(v[:10]) + shift).isoformat() + v[10:]
    return out


class ArgumentSampler:
    """Draws arguments for a tool from the seed values of the columns its SQL uses."""

    def __init__(self, spec: EnvironmentSpec):
        self.spec = spec
        self.rows = {t: [r for r in rows if r] for t, rows in spec.seed.items()}
        self.columns = {t.name: parameter_columns(t, spec) for t in spec.tools}
        self.by_key: dict[str, dict[Scalar, dict]] = {}
        for table in spec.schema_.tables:
            if len(table.primary_key) == 1:
                key = table.primary_key[0]
                self.by_key[table.name] = {r.get(key): r for r in self.rows.get(table.name, [])}
        self._copied: dict[tuple[str, str], list[dict]] = {}
        self._apart_in_seed: dict[tuple[str, str, str], bool] = {}

    def value(
        self,
        tool: Tool,
        param: str,
        rng: random.Random,
        rows: dict[str, dict] | None = None,
        ahead: bool = True,
    ) -> Scalar:
        """One value; parameters on the same table share a row (`rows`), so an account and
        its client belong together, unless two parameters want the same column. A new
        record's moments lie `ahead` of the clock where the seed's do (`_copyable`)."""
        prop = tool.parameters.get("properties", {}).get(param, {})
        if prop.get("enum"):
            return rng.choice(prop["enum"])
        kind = tool.param_types().get(param, "string")
        where = self.columns[tool.name].get(param)
        rows = rows if rows is not None else {}
        if param.startswith("new_") and where and self.rows.get(where[0]):
            held = self.rows[where[0]]
            # a new value: not the changed row's own; a record to move onto, still to come
            if ahead:
                to_come = still_to_come(self.spec.schema_.table(where[0]), held, self.spec.clock)
                held = [r for r in held if to_come(r)] or held
            other = rng.choice(held)
            value = other.get(where[1])
            if isinstance(value, str) and "@" in value:  # an email is one person's own
                return self._fresh_email(where[0], where[1], rng)
            return self._amount(tool, kind, value, rng, where)
        for table, picked in rows.items():  # a row already drawn that holds this value wins
            for name in (param, where[1] if where else None):
                if name and name in picked and name not in picked["_used"]:
                    picked["_used"].add(name)
                    value = self._given(table, name, picked[name], rng)
                    return self._amount(tool, kind, value, rng, where)
        if where and self.rows.get(where[0]):
            table, col = where
            row = rows.get(table)
            if row is None or col in row.get("_used", ()):
                row = dict(
                    self._related_row(table, rows, rng)
                    or rng.choice(self._copyable(tool, table) if ahead else self.rows[table])
                )
                row["_used"] = set()
                rows[table] = row
            row["_used"].add(col)
            return self._amount(tool, kind, self._given(table, col, row.get(col), rng), rng, where)
        if kind == "integer":
            return rng.randint(1, 20)
        if kind == "number":
            return round(rng.uniform(5, 200), 2)
        if kind == "boolean":
            return rng.random() < 0.5
        return rng.choice(["standard", "priority", "note"])

    def _fresh_email(self, table: str, column: str, rng: random.Random) -> str:
        """An address no row has: school's tasks changed a student's email to another
        student's."""
        from faker import Faker  # imported here: only a new email needs it

        fake = Faker("en_US")
        fake.seed_instance(rng.randrange(2**32))
        taken = {r.get(column) for r in self.rows.get(table, [])}
        email = fake.email()
        while email in taken:
            email = fake.email()
        return email

    def _given(self, table: str, column: str, value: Scalar, rng: random.Random) -> Scalar:
        """The value, or where the row has none (the frozen_reason of an active card) one
        another row of the table has: freezing a card says why."""
        if value is not None:
            return value
        given = [r[column] for r in self.rows.get(table, []) if r.get(column) is not None]
        return rng.choice(given) if given else None

    @staticmethod
    def _amount(
        tool: Tool,
        kind: str,
        value: Scalar,
        rng: random.Random,
        where: tuple[str, str] | None = None,
    ) -> Scalar:
        """A write's amount is a share of a real figure (moving a whole balance is rare). A
        value a new row is given is a row's own: weather's new readings were shares of
        seed temperatures, never below 1.0 or 0 (8a86ecf: "a temperature of 1.0" in 5 of
        its 30 tasks), where the seed's ran from -20 to 40."""
        rate = isinstance(value, int | float) and abs(value) <= 1  # a rate stays as it is
        inserted = where is not None and where[0] in tool.inserts()
        if (
            kind == "number"
            and isinstance(value, int | float)
            and tool.kind == "write"
            and not rate
            and not inserted
        ):
            return round(max(1.0, abs(float(value)) * rng.uniform(0.05, 0.5)), 2)
        return value

    def _copyable(self, tool: Tool, table: str) -> list[dict]:
        """The rows a new record of `table` may copy its values from: those whose moments
        the tool sets all lie ahead of the clock, where any do. Travel on 277c846 booked
        stays from 2023-03-17 under a 2025-01-15 clock (travel-intent-00011), copied from a
        cancelled past stay, where the seed's pending stays all lie ahead. Where few lie
        ahead, rows behind come too, moved ahead by whole days: weather's 4 alerts of 69
        ahead gave every new alert of 503981f's run "2025-01-27T07:00:00 to 08:15:00"."""
        if (tool.name, table) in self._copied:
            return self._copied[tool.name, table]
        rows = self.rows[table]
        # a create that also takes a seat (travel's booking on 7e55d3f) inserts too: it
        # copied past flight bookings under a 2025 clock
        if table not in tool.inserts():
            return rows
        sets = {col for t, col in self.columns[tool.name].values() if t == table}
        ahead = still_to_come(self.spec.schema_.table(table), rows, self.spec.clock, sets)
        kept = [r for r in rows if ahead(r)]
        if kept and len(kept) < FEW_AHEAD:
            behind = [r for r in rows if not ahead(r)][: FEW_AHEAD * 4]
            moments = [
                c.name
                for c in self.spec.schema_.table(table).columns
                if c.type in ("date", "datetime")
            ]
            kept += [moved_ahead(r, moments, self.spec.clock, i) for i, r in enumerate(behind)]
        self._copied[tool.name, table] = kept or rows
        return kept or rows

    def _related_row(self, table: str, rows: dict[str, dict], rng: random.Random) -> dict | None:
        """A row of `table` tied to a row already drawn: the parent it points to, or one of
        the children that point to it."""
        for child, picked in rows.items():
            for fk in self.spec.schema_.table(child).foreign_keys:
                if fk.ref_table == table and len(fk.columns) == 1:
                    found = self.by_key.get(table, {}).get(picked.get(fk.columns[0]))
                    if found is not None:
                        return found
        for fk in self.spec.schema_.table(table).foreign_keys:
            parent = rows.get(fk.ref_table)
            if parent is not None and len(fk.columns) == 1:
                key = parent.get(fk.ref_columns[0])
                children = [r for r in self.rows.get(table, []) if r.get(fk.columns[0]) == key]
                if children:
                    return rng.choice(children)
        return None

    def _order(self, tool: Tool) -> list[str]:
        """Parameters on child tables first: their row then supplies the parents' keys."""
        params = list(tool.parameters.get("properties", {}))
        columns = self.columns[tool.name]

        def depth(param: str) -> int:
            where = columns.get(param)
            return -len(self.spec.schema_.table(where[0]).foreign_keys) if where else 0

        return sorted(params, key=depth)

    def arguments(
        self,
        tool: Tool,
        rng: random.Random,
        given: dict[str, Scalar] | None = None,
        optional: float = 0.3,
        ahead: bool = True,
    ) -> dict[str, Scalar]:
        """Required parameters always, optional ones sometimes; `given` values win. A
        refusal's draft passes `ahead=False`: a stay booked in the past is what a rule on
        the moment refuses."""
        given = given or {}
        required = set(tool.parameters.get("required", []))
        rows: dict[str, dict] = {}
        out: dict[str, Scalar] = {}
        for param in self._order(tool):
            if param in given:
                out[param] = given[param]
            elif param in required or rng.random() < optional:
                value = self.value(tool, param, rng, rows, ahead)
                value = self._unused(tool, param, self._on_the_minute(tool, param, value))
                if value is not None or param in required:
                    out[param] = value
        return self._apart(tool, out, set(given))

    def _apart(self, tool: Tool, out: dict[str, Scalar], given: set[str]) -> dict[str, Scalar]:
        """A new record's number its parent's rows keep apart, made one none of them has:
        railway's create_ticket copied a ticket's trip and seat together and sold seat 445
        of trip 31079 again (railway-intent-00032 on a4b9fc9). Apart means no two seed rows
        under one parent share it, over enough such pairs to tell (`toolscale.apart`)."""
        for param, value in out.items():
            where = self.columns[tool.name].get(param)
            if param in given or where is None or where[0] not in tool.inserts():
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                continue
            table = self.spec.schema_.table(where[0])
            keys = {c for fk in table.foreign_keys for c in fk.columns} | set(table.primary_key)
            if where[1] in keys:
                continue
            for fk in table.foreign_keys:
                # the parent's key, given as the new row's column or as the parent's own
                named = {(table.name, fk.columns[0]), (fk.ref_table, fk.ref_columns[0])}
                parent = next((p for p, w in self.columns[tool.name].items() if w in named), None)
                if len(fk.columns) != 1 or parent is None or parent not in out:
                    continue
                if not self._kept_apart(table.name, fk.columns[0], where[1]):
                    continue
                rows = self.rows.get(table.name, [])
                taken = {r.get(where[1]) for r in rows if r.get(fk.columns[0]) == out[parent]}
                while value in taken:
                    value += 1
                out[param] = value
        return out

    def _kept_apart(self, table: str, parent: str, column: str) -> bool:
        """No two rows of `table` under one `parent` share `column`, over enough pairs; read
        once per sampler (a refusal's work item draws arguments up to 240 times)."""
        if (table, parent, column) not in self._apart_in_seed:
            self._apart_in_seed[table, parent, column] = kept_apart(
                self.rows.get(table, []), parent, column
            )
        return self._apart_in_seed[table, parent, column]

    def _on_the_minute(self, tool: Tool, param: str, value: Scalar) -> Scalar:
        """A new record's moment on the minute, as a person says it: medicine's seed (made
        before 6789a02) held appointments at 11:20:10, a new one copied that, and the user
        who asked for "11:20 AM" was refused as false_fact (12 of medicine's false_fact
        rejections up to fdf189b)."""
        where = self.columns[tool.name].get(param)
        if not isinstance(value, str) or where is None or where[0] not in tool.inserts():
            return value
        if _SECONDS.fullmatch(value) and not value.endswith(":00"):
            return value[:-2] + "00"
        return value

    def _unused(self, tool: Tool, param: str, value: Scalar) -> Scalar:
        """A new record's name, where a seed row's was drawn, made one no record has:
        weather's drafts created "Cortezbury Station" (8a86ecf), a station another
        forecaster already had in that region, and a lookup by name then finds two."""
        where = self.columns[tool.name].get(param)
        if not isinstance(value, str) or where is None or where[0] not in tool.inserts():
            return value
        if not names_record(*where):
            return value
        taken = {r.get(where[1]) for r in self.rows.get(where[0], [])}
        return unused_name(value, taken) if value in taken else value
