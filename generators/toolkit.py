"""Tools every environment gets from its schema alone: look a row up by key, list the rows
that point to a row. They give the LLM's tools (and sampled walks) a way to find things."""

from __future__ import annotations

from toolscale.schema import Column, Schema, Table
from toolscale.tool import RequireStep, Tool

JSON_TYPES = {
    "integer": "integer",
    "real": "number",
    "text": "string",
    "boolean": "boolean",
    "date": "string",
    "datetime": "string",
}


def param_schema(column: Column, description: str = "") -> dict:
    return {"type": JSON_TYPES[column.type], "description": description or column.description}


def row_exists(table: Table) -> RequireStep:
    """The check every keyed tool starts with: the row it names exists."""
    key = table.primary_key[0]
    return RequireStep(
        sql=f"SELECT COUNT(*) > 0 AS found FROM {table.name} WHERE {key} = :{key}",
        error=f"No {table.name} row with that {key}.",
    )


def _select(table: Table) -> str:
    return ", ".join(table.column_names)


def get_tool(table: Table) -> Tool:
    key = table.primary_key[0]
    column = table.column(key)
    return Tool(
        name=f"get_{table.name}"[:63],
        description=f"Look up one row of {table.name} by {key}. {table.description}".strip(),
        kind="read",
        parameters={
            "type": "object",
            "properties": {key: param_schema(column, f"the {key} to look up")},
            "required": [key],
        },
        require=[row_exists(table)],
        returns=f"SELECT {_select(table)} FROM {table.name} WHERE {key} = :{key}",
        single=True,
        origin="derived",
    )


def list_tool(child: Table, column: str, parent: Table) -> Tool:
    key = child.primary_key[0]
    return Tool(
        name=f"list_{child.name}_by_{column}"[:63],
        description=f"List the {child.name} rows of one {parent.name} row (by {column}).",
        kind="read",
        parameters={
            "type": "object",
            "properties": {column: param_schema(child.column(column), f"the {column}")},
            "required": [column],
        },
        returns=(
            f"SELECT {_select(child)} FROM {child.name} WHERE {column} = :{column} "
            f"ORDER BY {key} LIMIT 50"
        ),
        origin="derived",
    )


def schema_tools(schema: Schema) -> list[Tool]:
    """A lookup per table and a listing per single-column foreign key."""
    tools = [get_tool(t) for t in schema.tables if len(t.primary_key) == 1]
    for table in schema.tables:
        for fk in table.foreign_keys:
            if len(fk.columns) == 1:
                tools.append(list_tool(table, fk.columns[0], schema.table(fk.ref_table)))
    names: set[str] = set()
    unique = []
    for tool in tools:  # truncated names could collide
        if tool.name not in names:
            names.add(tool.name)
            unique.append(tool)
    return unique


def status_tool(table: Table, column: str, values: list[str]) -> Tool:
    """Move a row to another status: the write nearly every domain has (freeze a card,
    cancel a booking). It refuses a no-op, so a call always changes a row."""
    key = table.primary_key[0]
    return Tool(
        name=f"set_{table.name}_{column}"[:63],
        description=f"Change the {column} of one {table.name} row to one of: {', '.join(values)}.",
        kind="write",
        parameters={
            "type": "object",
            "properties": {
                key: param_schema(table.column(key), f"the {key} of the row to change"),
                column: {"type": "string", "enum": values, "description": f"the new {column}"},
            },
            "required": [key, column],
        },
        require=[
            row_exists(table),
            RequireStep(
                sql=f"SELECT {column} <> :{column} AS differs FROM {table.name} "
                f"WHERE {key} = :{key}",
                error=f"The {table.name} row already has that {column}.",
            ),
        ],
        run=[f"UPDATE {table.name} SET {column} = :{column} WHERE {key} = :{key}"],
        returns=f"SELECT {key}, {column} FROM {table.name} WHERE {key} = :{key}",
        single=True,
        origin="derived",
    )


def status_tools(schema: Schema, seed: dict[str, list[dict]]) -> list[Tool]:
    """One status change per table with a text `status`-like column holding 2 to 8 values."""
    tools = []
    for table in schema.tables:
        if len(table.primary_key) != 1:
            continue
        for col in table.columns:
            if col.type != "text" or "status" not in col.name or col.name in table.primary_key:
                continue
            values = sorted({str(r[col.name]) for r in seed.get(table.name, []) if r.get(col.name)})
            if 2 <= len(values) <= 8:
                tools.append(status_tool(table, col.name, values))
                break
    return tools
