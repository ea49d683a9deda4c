"""Static checks of tool SQL with sqlglot, before anything runs.

A statement must be one SELECT / WITH (for `require` and `returns`) or one INSERT /
UPDATE / DELETE (for `run`), touch only schema tables and columns, call no function
outside the safe set, and use only declared named parameters. Passing statements are
compiled once for both engines.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast

import sqlglot
from sqlglot import exp
from sqlglot.errors import OptimizeError, ParseError
from sqlglot.optimizer.annotate_types import annotate_types
from sqlglot.optimizer.qualify import qualify

from toolscale.errors import ToolscaleError
from toolscale.reasons import StaticSQLReason
from toolscale.schema import Schema
from toolscale.tool import BUILTIN_PARAMS, Tool

logging.getLogger("sqlglot").setLevel(logging.ERROR)  # it warns on every unsupported statement

Role = Literal["require", "run", "returns"]

_SQL_TYPES = {
    "integer": "BIGINT",
    "boolean": "BIGINT",
    "real": "DOUBLE",
    "text": "TEXT",
    "date": "TEXT",
    "datetime": "TEXT",
}

# Expression types that never belong in a tool, wherever they appear in the tree.
_FORBIDDEN_NODES: tuple[type[exp.Expr], ...] = tuple(
    getattr(exp, n)
    for n in (
        "Command",
        "Pragma",
        "Attach",
        "Detach",
        "Create",
        "Drop",
        "Alter",
        "Transaction",
        "Commit",
        "Rollback",
        "Copy",
        "Use",
        "Set",
        "Into",
        "Returning",
        "Merge",
        "LoadData",
        "Install",
        "Analyze",
        "Describe",
        "Show",
        "Cache",
        "Uncache",
        "Refresh",
    )
    if hasattr(exp, n)
)

# Functions sqlglot does not model (exp.Anonymous) that are still safe and portable enough.
SAFE_ANONYMOUS = frozenset(
    {
        "julianday",
        "printf",
        "format",
        "iif",
        "nullif",
        "total",
        "unixepoch",
        "char",
        "hex",
        "quote",
        "likely",
        "unlikely",
        "ltrim",
        "rtrim",
        "sign",
        "ceil",
        "floor",
        "mod",
    }
)


class SQLCheckError(ToolscaleError):
    """A statement failed a static check; `detail` names the tool and the step."""

    def __init__(self, detail: str, reason: StaticSQLReason):
        super().__init__(detail, reason)


@dataclass(frozen=True)
class Statement:
    """One checked statement, compiled for both engines."""

    label: str
    role: Role
    sqlite: str
    duckdb: str
    params: tuple[str, ...]
    writes: str | None  # the table an INSERT / UPDATE / DELETE targets


def _head(sql: str) -> str:
    words = sql.split()
    return " ".join(words[:3]) + (" ..." if len(words) > 3 else "")


def _mapping(schema: Schema) -> dict[str, object]:
    return {t.name: {c.name: _SQL_TYPES[c.type] for c in t.columns} for t in schema.tables}


def check_statement(
    sql: str,
    role: Role,
    schema: Schema,
    params: Mapping[str, str],
    label: str = "sql",
) -> Statement:
    """Parse, vet and compile one statement; raises SQLCheckError naming what is wrong.

    `params` maps each declared parameter to its JSON type (string, integer, ...).
    """
    where = f"{label}: "
    try:
        trees = [t for t in sqlglot.parse(sql, read="sqlite") if t is not None]
    except (ParseError, sqlglot.errors.TokenError) as e:
        raise SQLCheckError(where + f"cannot parse: {e}", StaticSQLReason.SQL_PARSE_ERROR) from e
    if not trees:
        raise SQLCheckError(where + "empty statement", StaticSQLReason.SQL_PARSE_ERROR)
    if len(trees) > 1:
        raise SQLCheckError(
            where + f"{len(trees)} statements; exactly one allowed",
            StaticSQLReason.SQL_MULTIPLE_STATEMENTS,
        )
    tree = trees[0]

    if role == "run":
        if not isinstance(tree, exp.Insert | exp.Update | exp.Delete):
            raise SQLCheckError(
                where + f"run steps must be INSERT, UPDATE or DELETE, not {_head(sql)!r}",
                StaticSQLReason.SQL_FORBIDDEN_STATEMENT,
            )
    elif not isinstance(tree, exp.Query):
        raise SQLCheckError(
            where + f"{role} must be a SELECT (or WITH ... SELECT), not {_head(sql)!r}",
            StaticSQLReason.SQL_FORBIDDEN_STATEMENT,
        )

    for node in tree.walk():
        if isinstance(node, _FORBIDDEN_NODES):
            raise SQLCheckError(
                where + f"{node.key.upper()} is not allowed in a tool",
                StaticSQLReason.SQL_FORBIDDEN_STATEMENT,
            )
        if isinstance(node, exp.Insert | exp.Update | exp.Delete) and node is not tree:
            raise SQLCheckError(
                where + "data changes nested inside a statement",
                StaticSQLReason.SQL_FORBIDDEN_STATEMENT,
            )

    ctes = {cte.alias_or_name for cte in tree.find_all(exp.CTE)}
    tables = set(schema.table_names)
    for table in tree.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            raise SQLCheckError(
                where + f"table function {table.this.sql('sqlite')} is not allowed",
                StaticSQLReason.SQL_FORBIDDEN_FUNCTION,
            )
        if table.args.get("db") or table.args.get("catalog"):
            raise SQLCheckError(
                where + f"qualified table name {table.sql('sqlite')!r}",
                StaticSQLReason.SQL_UNKNOWN_TABLE,
            )
        if table.name not in tables and table.name not in ctes:
            raise SQLCheckError(
                where + f"unknown table {table.name!r}", StaticSQLReason.SQL_UNKNOWN_TABLE
            )

    for func in tree.find_all(exp.Func):
        name = func.sql_name().lower() if not isinstance(func, exp.Anonymous) else func.name.lower()
        if isinstance(func, exp.Anonymous) and name not in SAFE_ANONYMOUS:
            raise SQLCheckError(
                where + f"function {name}() is not allowed", StaticSQLReason.SQL_FORBIDDEN_FUNCTION
            )
        if name.startswith("read_") or type(func).__name__.startswith("Read"):
            raise SQLCheckError(
                where + f"function {name}() reads files", StaticSQLReason.SQL_FORBIDDEN_FUNCTION
            )

    used: list[str] = []
    for node in tree.find_all(exp.Placeholder, exp.Parameter):
        name = node.name if isinstance(node, exp.Placeholder) else ""
        if not name or name == "?":
            raise SQLCheckError(
                where + f"{node.sql('sqlite')!r}: only named parameters like :amount are allowed",
                StaticSQLReason.SQL_UNKNOWN_PARAMETER,
            )
        if name not in params and name not in BUILTIN_PARAMS:
            raise SQLCheckError(
                where + f":{name} is neither a declared parameter nor a built-in (:_now, :_new_id)",
                StaticSQLReason.SQL_UNKNOWN_PARAMETER,
            )
        if name not in used:
            used.append(name)

    if role == "returns":
        _check_output_names(tree, where)
    duck_tree = _typed_placeholders(tree.copy(), params)
    mapping = _mapping(schema)
    try:
        duck_tree = qualify(
            duck_tree,
            schema=mapping,
            dialect="sqlite",
            validate_qualify_columns=True,
            quote_identifiers=False,
        )
    except OptimizeError as e:
        raise SQLCheckError(where + str(e), StaticSQLReason.SQL_UNKNOWN_COLUMN) from e

    if isinstance(tree, exp.Update):
        _check_duckdb_unique_update(tree, schema, where)

    writes = tree.this.name if isinstance(tree, exp.Insert | exp.Update | exp.Delete) else None
    if isinstance(tree, exp.Insert) and isinstance(tree.this, exp.Schema):
        writes = tree.this.this.name
    try:
        typed = annotate_types(duck_tree, schema=mapping, dialect="sqlite")
        duck = _sqlite_semantics(typed).sql(dialect="duckdb")
    except Exception as e:  # sqlglot raises UnsupportedError and friends
        raise SQLCheckError(
            where + f"cannot transpile to DuckDB: {e}", StaticSQLReason.SQL_NOT_PORTABLE
        ) from e
    return Statement(label, role, sql.strip().rstrip(";"), duck, tuple(used), writes)


_PARAM_SQL_TYPES = {"integer": "BIGINT", "boolean": "BIGINT", "number": "DOUBLE"}
_BUILTIN_TYPES = {"_now": "string", "_new_id": "integer"}
_INTEGER_TYPES = {
    exp.DataType.Type.INT,
    exp.DataType.Type.BIGINT,
    exp.DataType.Type.SMALLINT,
    exp.DataType.Type.TINYINT,
}


def _check_output_names(tree: exp.Expr, where: str) -> None:
    """Output keys are the tool's contract: expressions must be named, since SQLite and
    DuckDB name them differently (`count(*)` vs `count_star()`)."""
    select = tree
    while isinstance(select, exp.SetOperation):
        select = select.this
    if not isinstance(select, exp.Select):
        return
    for projection in select.expressions:
        if not isinstance(projection, exp.Alias | exp.Column | exp.Star):
            raise SQLCheckError(
                where + f"name the output {projection.sql('sqlite')!r} with AS: engines name "
                "unnamed expressions differently",
                StaticSQLReason.SQL_NOT_PORTABLE,
            )


def _typed_placeholders(tree: exp.Expr, params: Mapping[str, str]) -> exp.Expr:
    """Give parameters their declared types, so DuckDB computes as SQLite does."""
    for node in list(tree.find_all(exp.Placeholder)):
        kind = params.get(node.name) or _BUILTIN_TYPES.get(node.name)
        sql_type = _PARAM_SQL_TYPES.get(kind or "")
        if sql_type:
            node.replace(exp.Cast(this=node.copy(), to=exp.DataType.build(sql_type)))
    return tree


def _sqlite_semantics(tree: exp.Expr) -> exp.Expr:
    """Rewrite a type-annotated tree so DuckDB gives SQLite's answers: LIKE ignores ASCII
    case, x / 0 and x % 0 are NULL, a cast of a fraction to an integer truncates, and
    julianday(x) is computed from the epoch."""

    def rewrite(node: exp.Expr) -> exp.Expr:
        if (
            isinstance(node, exp.Anonymous)
            and str(node.this).lower() == "julianday"
            and len(node.expressions) == 1
        ):  # DuckDB has no julianday: days since the Julian epoch, from the Unix epoch
            stamp = exp.Cast(this=node.expressions[0].copy(), to=exp.DataType.build("TIMESTAMP"))
            seconds = exp.Anonymous(this="EPOCH", expressions=[stamp])
            days = exp.Div(this=seconds, expression=exp.Literal.number("86400.0"))
            return exp.Paren(this=exp.Add(this=days, expression=exp.Literal.number("2440587.5")))
        if isinstance(node, exp.Like):
            return exp.ILike(this=node.this, expression=node.expression)
        if isinstance(node, exp.Div | exp.Mod):
            divisor = node.expression
            if not isinstance(divisor, exp.Nullif):
                guarded = exp.Nullif(this=divisor, expression=exp.Literal.number(0))
                guarded.type = divisor.type  # keep int / int recognisable as integer division
                node.set("expression", guarded)
            return node
        if (
            isinstance(node, exp.Cast)
            and node.to.this in _INTEGER_TYPES
            and node.this.is_type(*exp.DataType.REAL_TYPES)
        ):
            trunc = exp.Anonymous(this="TRUNC", expressions=[node.this.copy()])
            return exp.Cast(this=trunc, to=node.to.copy())
        return node

    return tree.transform(rewrite, copy=False)


def _check_duckdb_unique_update(tree: exp.Update, schema: Schema, where: str) -> None:
    """DuckDB refuses to update a UNIQUE column, or a foreign-key column, of a row that a
    foreign key references (an indexed column's update is a delete and an insert, and the
    delete breaks the reference); SQLite allows it. Catch it before any task does."""
    target = tree.this.name
    if target not in schema.table_names:
        return
    referenced = any(fk.ref_table == target for t in schema.tables for fk in t.foreign_keys)
    if not referenced:
        return
    table = schema.table(target)
    keys = {c for fk in table.foreign_keys for c in fk.columns}
    for assignment in tree.expressions:
        name = assignment.this.name if isinstance(assignment, exp.EQ) else ""
        if name in table.column_names and table.column(name).unique:
            raise SQLCheckError(
                where + f"sets UNIQUE column {target}.{name} of a table other tables reference; "
                "DuckDB refuses that for referenced rows (drop UNIQUE and check it in a "
                "require step instead)",
                StaticSQLReason.SQL_NOT_PORTABLE,
            )
        if name in keys:
            raise SQLCheckError(
                where + f"sets foreign-key column {target}.{name} of a table other tables "
                "reference; DuckDB refuses that for referenced rows",
                StaticSQLReason.SQL_NOT_PORTABLE,
            )


def check_tool(tool: Tool, schema: Schema) -> tuple[list[Statement], list[SQLCheckError]]:
    """Every statement of a tool checked: those that pass, and every failure (not just the
    first, so a generator can fix them all in one go); errors name the tool and the step."""
    params = tool.param_types()
    passed, failed = [], []
    for label, sql in tool.statements():
        role = cast(Role, label.split("[")[0])  # labels are "require[0]", "run[1]", "returns"
        try:
            passed.append(check_statement(sql, role, schema, params, f"{tool.name}.{label}"))
        except SQLCheckError as e:
            failed.append(e)
    return passed, failed


def compile_tool(tool: Tool, schema: Schema) -> list[Statement]:
    """Every statement of a tool, checked and compiled; raises the first failure."""
    passed, failed = check_tool(tool, schema)
    if failed:
        raise failed[0]
    return passed
