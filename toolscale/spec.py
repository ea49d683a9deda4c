"""The environment specification: schema, seed rows, tools and policy, as one JSON document.

This is what generators produce, validators check, the dataset publishes, and any consumer
needs to rebuild the sandbox.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from toolscale.rules import RuleCoverage
from toolscale.schema import Scalar, Schema, Table
from toolscale.tool import Tool


class EnvironmentSpec(BaseModel):
    model_config = ConfigDict(
        extra="forbid", validate_by_name=True, validate_by_alias=True, serialize_by_alias=True
    )

    name: str = Field(min_length=1)
    description: str = ""
    schema_: Schema = Field(alias="schema")
    seed: dict[str, list[dict[str, Scalar]]] = Field(default_factory=dict)
    tools: list[Tool] = Field(min_length=1)
    policy: str = ""
    clock: str = Field(default="2025-01-15T10:00:00", description="the value of :_now")
    id_start: int = Field(default=1_000_000, description="first value of :_new_id")
    id_starts: dict[str, int] = Field(
        default_factory=dict,
        description="first :_new_id of a new row of each table (its keys' own sequence); "
        "id_start for a table not named",
    )
    rules: list[RuleCoverage] = Field(
        default_factory=list,
        description="each rule of the brief and the tools' require steps that enforce it",
    )

    @model_validator(mode="after")
    def _consistent(self) -> EnvironmentSpec:
        names = [t.name for t in self.tools]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"duplicate tool names {dupes}")
        for coverage in self.rules:
            for e in coverage.enforced_by:
                if e.tool not in names:
                    raise ValueError(f"rule {coverage.rule!r} names an unknown tool {e.tool!r}")
        tables = set(self.schema_.table_names)
        for table in self.seed:
            if table not in tables:
                raise ValueError(f"seed rows for unknown table {table!r}")
        return self

    def tool(self, name: str) -> Tool:
        for tool in self.tools:
            if tool.name == name:
                return tool
        raise KeyError(name)

    def tool_map(self) -> dict[str, Tool]:
        return {t.name: t for t in self.tools}

    def new_id_start(self, tool: Tool) -> int:
        """The first :_new_id of a call of `tool`: its first inserted table's own sequence
        (a new order 35767 after order 35766, not 59779 above the returns), else id_start."""
        made = tool.inserts()
        return self.id_starts.get(made[0], self.id_start) if made else self.id_start

    def openai_tools(self) -> list[dict[str, Any]]:
        return [t.openai_schema() for t in self.tools]

    def owners(self, people: Table, depth: int = 3) -> dict[str, dict[Scalar, Scalar]]:
        """Per table, record key -> the key of the person who owns it (through up to `depth`
        foreign keys); the people table owns itself."""
        pk = people.primary_key[0]
        owner = {people.name: {r[pk]: r[pk] for r in self.seed.get(people.name, [])}}
        for _ in range(depth):
            for table in self.schema_.tables:
                if table.name in owner or len(table.primary_key) != 1:
                    continue
                key = table.primary_key[0]
                for fk in table.foreign_keys:
                    if len(fk.columns) == 1 and fk.ref_table in owner:
                        parent = owner[fk.ref_table]
                        owner[table.name] = {
                            r[key]: parent[r[fk.columns[0]]]
                            for r in self.seed.get(table.name, [])
                            if r.get(fk.columns[0]) in parent
                        }
                        break
        return owner

    def seed_rows(self, table: str) -> list[tuple[Scalar, ...]]:
        """Seed rows of a table as tuples in column order; missing columns are NULL."""
        cols = self.schema_.table(table).column_names
        return [tuple(row.get(c) for c in cols) for row in self.seed.get(table, [])]
