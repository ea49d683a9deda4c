"""Tools as declarative SQL programs: checked `require` steps, `run` writes, a `returns` query.

A tool never contains generated Python. Its JSON-Schema parameters are both the argument
contract and its OpenAI function schema.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Literal

import jsonschema
import sqlglot
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from sqlglot import exp
from sqlglot.errors import ParseError

from toolscale.names import check_identifier
from toolscale.schema import Scalar

BUILTIN_PARAMS = ("_now", "_new_id")
PARAM_TYPES = {"string", "integer", "number", "boolean"}


def _scalar_type(prop: dict[str, Any]) -> str | None:
    """The one non-null JSON type of a parameter schema, or None if there is not exactly one."""
    types = prop.get("type")
    types = [types] if isinstance(types, str) else list(types or [])
    scalar = [t for t in types if t != "null"]
    return scalar[0] if len(scalar) == 1 else None


class RequireStep(BaseModel):
    """A SELECT returning one value; a falsy value fails the call with `error` (policy)."""

    model_config = ConfigDict(extra="forbid")

    sql: str
    error: str = Field(min_length=1)


class Tool(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = Field(min_length=1)
    kind: Literal["read", "write"]
    price: float = Field(default=0.0, ge=0, description="USD per call")
    latency_ms: float = Field(default=0.0, ge=0, description="simulated latency per call")
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}, "required": []}
    )
    require: list[RequireStep] = Field(default_factory=list)
    run: list[str] = Field(default_factory=list)
    returns: str | None = None
    single: bool = Field(default=False, description="return the first row (or null), not a list")
    origin: Literal["derived", "pattern", "sql"] = Field(
        default="sql",
        description="where the tool came from, for the run's figures only (never in its OpenAI "
        "schema): derived from the schema by the toolkit, pattern from a catalogue of tool "
        "patterns (reserved for issue 8's catalogue), sql written freely (by the model or a "
        "person)",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return check_identifier(v, "tool", in_sql=False)

    @field_validator("parameters")
    @classmethod
    def _parameters(cls, v: dict[str, Any]) -> dict[str, Any]:
        if v.get("type") != "object":
            raise ValueError('parameters must be a JSON Schema with "type": "object"')
        try:
            jsonschema.Draft202012Validator.check_schema(v)
        except jsonschema.SchemaError as exc:
            raise ValueError(f"parameters are not a valid JSON Schema: {exc.message}") from exc
        props = v.get("properties", {})
        for pname, prop in props.items():
            check_identifier(pname, "parameter")
            if pname.startswith("_"):
                raise ValueError(f"parameter {pname!r}: names starting with _ are reserved")
            if _scalar_type(prop) not in PARAM_TYPES:
                raise ValueError(
                    f"parameter {pname!r}: type must be one of {sorted(PARAM_TYPES)} "
                    f"(optionally with null), got {prop.get('type')!r}"
                )
        for req in v.get("required", []):
            if req not in props:
                raise ValueError(f"required parameter {req!r} is not declared in properties")
        return v

    @model_validator(mode="after")
    def _shape(self) -> Tool:
        if self.kind == "read" and self.run:
            raise ValueError(f"tool {self.name!r} is a read tool but has run steps")
        if self.kind == "write" and not self.run:
            raise ValueError(f"tool {self.name!r} is a write tool without run steps")
        if not (self.require or self.run or self.returns):
            raise ValueError(f"tool {self.name!r} does nothing")
        return self

    def param_types(self) -> dict[str, str]:
        """Each parameter's JSON type (string, integer, number or boolean)."""
        props = self.parameters.get("properties", {})
        return {name: _scalar_type(prop) or "string" for name, prop in props.items()}

    def param_defaults(self) -> dict[str, Scalar]:
        """Every declared parameter bound, absent optional ones as their default or NULL."""
        props = self.parameters.get("properties", {})
        return {name: props[name].get("default") for name in props}

    def statements(self) -> list[tuple[str, str]]:
        """All SQL of the tool as (step label, sql), in execution order."""
        out = [(f"require[{i}]", step.sql) for i, step in enumerate(self.require)]
        out += [(f"run[{i}]", sql) for i, sql in enumerate(self.run)]
        if self.returns:
            out.append(("returns", self.returns))
        return out

    def inserts(self) -> list[str]:
        """The tables its statements insert rows into, in order."""
        out = []
        for sql in self.run:
            tree = parsed(sql)
            if isinstance(tree, exp.Insert):
                target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
                out.append(target.name)
        return out

    def updated_tables(self) -> list[str]:
        """The tables its UPDATE statements change, in order, each once."""
        return list(dict.fromkeys(table for table, _, _ in self._assignments()))

    def returned_table(self) -> str | None:
        """The one table its `returns` query reads, or None (none, a join, no query)."""
        tree = parsed(self.returns) if self.returns else None
        tables = {t.name for t in tree.find_all(exp.Table)} if tree is not None else set()
        return tables.pop() if len(tables) == 1 else None

    @property
    def creates(self) -> bool:
        """What it does is add a row (it inserts and changes no existing one): a closed
        choice then names the new record's kind. A payment that also logs a transaction
        changes a balance; it is not a create."""
        verbs = {sql.lstrip().split(None, 1)[0].upper() for sql in self.run if sql.strip()}
        return "INSERT" in verbs and not verbs & {"UPDATE", "DELETE", "REPLACE"}

    def adjustments(self) -> list[tuple[str, str, str]]:
        """(column, parameter, sign) of each statement that adds a parameter to a column or
        takes it off (`SET balance = balance - :amount`, also inside `round(...)`), on the
        first table it updates: an order item's quantity raised, not the product's stock
        the raise takes from."""
        out = []
        assigned = self._assignments()
        first = assigned[0][0] if assigned else None
        for table, column, value in assigned:
            if table != first:
                continue
            if isinstance(value, exp.Round):
                value = value.this
            if not isinstance(value, exp.Add | exp.Sub):
                continue
            left, right = value.this, value.expression
            named = isinstance(left, exp.Column) and left.name == column
            if named and isinstance(right, exp.Placeholder):
                out.append((column, right.name, "+" if isinstance(value, exp.Add) else "-"))
        return out

    def set_itself(self, table: str) -> list[str]:
        """The columns of `table` its INSERT statements fill with no parameter of the
        caller's: the new key (`:_new_id`), the moment (`:_now`), a fixed state."""
        out = []
        for sql in self.run:
            tree = parsed(sql)
            if not isinstance(tree, exp.Insert) or not isinstance(tree.this, exp.Schema):
                continue
            if tree.this.this.name != table or not isinstance(tree.expression, exp.Values):
                continue
            columns = [c.name for c in tree.this.expressions]
            for row in tree.expression.expressions:
                for column, value in zip(columns, row.expressions, strict=False):
                    given = isinstance(value, exp.Placeholder) and not value.name.startswith("_")
                    if not given and column not in out:
                        out.append(column)
        return out

    def assigned(self, table: str) -> list[str]:
        """The columns of `table` its UPDATE statements assign."""
        return [column for name, column, _ in self._assignments() if name == table]

    def assigned_from(self, table: str) -> dict[str, str]:
        """Column -> parameter of each `SET column = :parameter` on `table`: where a move
        puts a row (`SET order_id = :new_order_id`)."""
        return {
            column: value.name
            for name, column, value in self._assignments()
            if name == table and isinstance(value, exp.Placeholder)
        }

    def state_moves(self) -> list[tuple[str, str, str, str, str]]:
        """(table, column, state, key column, key parameter) of each UPDATE that sets a
        status column to a fixed state on the row a parameter names (`UPDATE cards SET
        status = 'frozen', frozen_reason = :reason WHERE card_id = :card_id`)."""
        out = []
        for sql in self.run:
            tree = parsed(sql)
            if not isinstance(tree, exp.Update):
                continue
            where = tree.args.get("where")
            cond = where.this if where is not None else None
            if not (
                isinstance(cond, exp.EQ)
                and isinstance(cond.this, exp.Column)
                and isinstance(cond.expression, exp.Placeholder)
            ):
                continue
            for eq in tree.expressions:
                if (
                    isinstance(eq, exp.EQ)
                    and isinstance(eq.this, exp.Column)
                    and "status" in eq.this.name
                    and isinstance(eq.expression, exp.Literal)
                    and eq.expression.is_string
                ):
                    out.append(
                        (tree.this.name, eq.this.name, eq.expression.this, cond.this.name,
                         cond.expression.name)
                    )  # fmt: skip
        return out

    def _assignments(self) -> list[tuple[str, str, exp.Expr]]:
        """(table, column, value) of each `SET column = value` of its UPDATE statements."""
        out = []
        for sql in self.run:
            tree = parsed(sql)
            if not isinstance(tree, exp.Update):
                continue
            for eq in tree.expressions:
                if isinstance(eq, exp.EQ) and isinstance(eq.this, exp.Column):
                    out.append((tree.this.name, eq.this.name, eq.expression))
        return out

    def openai_schema(self) -> dict[str, Any]:
        params = dict(self.parameters)
        params.setdefault("properties", {})
        params.setdefault("additionalProperties", False)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }


class ToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    arguments: dict[str, Scalar] = Field(default_factory=dict)

    def key(self) -> str:
        """Canonical text of the call, for identity and dedup."""
        return self.name + json.dumps(self.arguments, sort_keys=True, separators=(",", ":"))


class ToolResult(BaseModel):
    """What a tool call returns: output rows on success, an error message otherwise."""

    model_config = ConfigDict(extra="forbid")

    ok: bool
    output: Any = None
    error: str | None = None
    code: str | None = Field(
        default=None,
        description="stable error class: policy, constraint, timeout, too_large, forbidden, "
        "invalid_arguments, unknown_tool, sql_error",
    )

    def content(self) -> str:
        """The text an agent sees as the tool message."""
        if self.ok:
            return json.dumps(self.output, ensure_ascii=False, separators=(",", ":"))
        return json.dumps({"error": self.error}, ensure_ascii=False)


def reads_from(tool: Tool) -> str | None:
    """The table a lookup's rows come from."""
    tree = parsed(tool.returns) if tool.returns else None
    source = tree.args.get("from_") if isinstance(tree, exp.Select) else None
    return source.this.name if isinstance(source, exp.From) and source.this.name else None


def finders(tools: list[Tool]) -> list[Tool]:
    """Tools that find the person who asks: those reading the table a `find_..._by_email`
    reads (travel's policy had users identified with `find_hotel_by_name`), or, with no
    email to find anyone by, every tool that looks a record up without a key. The policy
    names them, and a gold identifies the user with one before it writes."""
    finds = [t for t in tools if t.kind == "read" and t.name.startswith("find_")]
    # weather's `find_forecaster` takes an email and is not named for it: its policy had
    # forecasters identified with `find_subscription_by_email` alone (706f9af)
    people = {reads_from(t) for t in finds if "email" in t.name or _takes_email(t)} - {None}
    return [t for t in finds if reads_from(t) in people] if people else finds


def _takes_email(tool: Tool) -> bool:
    return any("email" in name for name in tool.parameters.get("properties", {}))


@functools.lru_cache(maxsize=4096)
def parsed(sql: str) -> exp.Expr | None:
    """A statement's tree (SQLite's dialect, `:name` parameters), or None when it does not
    parse: the sandbox's checks reject such a tool, so a reader here only sees nothing."""
    try:
        return sqlglot.parse_one(sql, read="sqlite")
    except ParseError:
        return None
