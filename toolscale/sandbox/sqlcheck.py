"""Static checks of tool SQL with sqlglot, before anything runs.

A statement must be one SELECT / WITH (for `require` and `returns`) or one INSERT /
UPDATE / DELETE (for `run`), touch only schema tables and columns, call no function
outside the safe set, and use only declared named parameters. Passing statements are
compiled once for both engines.
"""

from __future__ import annotations

import logging
import re
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
from toolscale.schema import Schema, Table
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

# The functions a tool may call, by sqlglot class: cheap per call and bounded in what they
# return. Left out on purpose: those that build text from a count (repeat, lpad / rpad),
# aggregate text over rows (group_concat, string_agg), cost the product of two lengths
# (levenshtein and the other distances), read the engine's version or settings, or read
# files. `replace`, `printf` / `format` and `||` are allowed with caps (`_check_costs`).
SAFE_FUNCTIONS: frozenset[type[exp.Expr]] = frozenset(
    getattr(exp, n)
    for n in (
        # logic and structure
        "And",
        "Or",
        "Xor",
        "Case",
        "If",
        "Exists",
        "Coalesce",
        "Nullif",
        "Cast",
        "TryCast",
        "Typeof",
        # numbers
        "Abs",
        "Round",
        "Floor",
        "Ceil",
        "Sign",
        "Pow",
        "Sqrt",
        "Exp",
        "Ln",
        "Log",
        "Least",
        "Greatest",
        "Rand",  # cheap; the determinism stage refuses what it makes of a replay
        # text
        "Lower",
        "Upper",
        "Length",
        "Substring",
        "Trim",
        "StrPosition",
        "Replace",
        "Format",
        "Concat",
        "Hex",
        "Chr",
        "Unicode",
        # dates and times
        "Date",
        "TimeToStr",
        "StrToTime",
        "TsOrDsToTimestamp",
        "TsOrDsToDate",
        "CurrentDate",
        "CurrentTimestamp",
        # aggregates and windows
        "Count",
        "Sum",
        "Avg",
        "Min",
        "Max",
        "RowNumber",
        "Rank",
        "DenseRank",
    )
    if hasattr(exp, n)
)

# Functions sqlglot does not model (exp.Anonymous) that are still safe and portable enough.
SAFE_ANONYMOUS = frozenset(
    {
        "julianday",
        "datetime",
        "time",
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

# What a CHECK may call: deterministic and portable as DDL (CHECKs are transpiled without
# the tool statements' rewrites, so no dates); each row and each write pays for them.
CHECK_FUNCTIONS: frozenset[type[exp.Expr]] = frozenset(
    {
        exp.And,
        exp.Or,
        exp.Case,
        exp.If,
        exp.Coalesce,
        exp.Nullif,
        exp.Cast,
        exp.Length,
        exp.Lower,
        exp.Upper,
        exp.Trim,
        exp.Abs,
        exp.Round,
    }
)

MAX_STATEMENT = 10_000  # characters of one statement
MAX_CONCATENATIONS = 32  # `||` and concat() in one statement
MAX_WIDTH = 64  # a printf / format width or precision
_CONVERSION = re.compile(r"%[-+ 0#,!]*(\*|\d+)?(?:\.(\*|\d+))?")


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
    if len(sql) > MAX_STATEMENT:
        raise SQLCheckError(
            where + f"the statement is {len(sql)} characters, over the cap of {MAX_STATEMENT}",
            StaticSQLReason.SQL_TOO_COSTLY,
        )
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

    _check_relations(tree, schema, where)
    _check_functions(tree, where)
    _check_costs(tree, where)

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
    """DuckDB refuses to update a UNIQUE column of a row that a foreign key references (an
    indexed column's update is a delete and an insert, and the delete breaks the
    reference); SQLite allows it. Catch it before any task does. (Such a table's foreign
    keys are not declared on DuckDB, `ddl`, so its references can change.)"""
    target = tree.this.name
    if target not in schema.table_names:
        return
    referenced = any(fk.ref_table == target for t in schema.tables for fk in t.foreign_keys)
    if not referenced:
        return
    table = schema.table(target)
    for assignment in tree.expressions:
        name = assignment.this.name if isinstance(assignment, exp.EQ) else ""
        if name in table.column_names and table.column(name).unique:
            raise SQLCheckError(
                where + f"sets UNIQUE column {target}.{name} of a table other tables reference; "
                "DuckDB refuses that for referenced rows (drop UNIQUE and check it in a "
                "require step instead)",
                StaticSQLReason.SQL_NOT_PORTABLE,
            )


def _with_of(node: exp.Expr) -> exp.With | None:
    found = node.args.get("with_") or node.args.get("with")
    return found if isinstance(found, exp.With) else None


def _visible_ctes(table: exp.Table) -> set[str]:
    """The CTE names a table reference can mean, by scope: those of every WITH owned by a
    query around it; inside a CTE's own body, only the CTEs defined before it (a CTE that
    is not in scope is no CTE: the engine reads a relation of that name instead)."""
    visible: set[str] = set()
    node: exp.Expr = table
    while node.parent is not None:
        parent = node.parent
        if isinstance(node, exp.CTE) and isinstance(parent, exp.With):
            for cte in parent.expressions:
                if cte is node:
                    break
                visible.add(cte.alias_or_name)
            owner = parent.parent
            if owner is None:
                break
            node = owner  # the owner's other CTEs are not in scope here
            continue
        owned = _with_of(parent)
        if owned is not None and node is not owned:
            visible.update(cte.alias_or_name for cte in owned.expressions)
        node = parent
    return visible


def _check_relations(tree: exp.Expr, schema: Schema, where: str) -> None:
    """Every relation a statement reads or writes is a schema table, its CTEs resolved by
    scope; a CTE may not take a schema table's name, repeat a name, or refer to itself."""
    tables = set(schema.table_names)
    names: set[str] = set()
    for cte in tree.find_all(exp.CTE):
        name = cte.alias_or_name
        if name in tables:
            raise SQLCheckError(
                where + f"CTE {name!r} has the name of a schema table",
                StaticSQLReason.SQL_UNKNOWN_TABLE,
            )
        if name in names:
            raise SQLCheckError(
                where + f"two CTEs are named {name!r}", StaticSQLReason.SQL_UNKNOWN_TABLE
            )
        names.add(name)
    for with_ in tree.find_all(exp.With):
        if with_.args.get("recursive"):
            raise SQLCheckError(
                where + "a recursive CTE can run without bound", StaticSQLReason.SQL_TOO_COSTLY
            )
    targets = _write_targets(tree)
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
        name = table.name
        if any(table is t for t in targets):
            if name not in tables:
                raise SQLCheckError(
                    where + f"writes {name!r}, which is not a schema table",
                    StaticSQLReason.SQL_UNKNOWN_TABLE,
                )
            continue
        if name in names:
            around: exp.CTE | None = table.find_ancestor(exp.CTE)
            while around is not None:
                if around.alias_or_name == name:
                    raise SQLCheckError(
                        where + f"CTE {name!r} refers to itself: a recursive CTE can run "
                        "without bound",
                        StaticSQLReason.SQL_TOO_COSTLY,
                    )
                around = around.find_ancestor(exp.CTE)
            if name in _visible_ctes(table):
                continue
            raise SQLCheckError(
                where + f"{name!r} is a CTE out of scope here, so the engine would read a "
                "relation of that name",
                StaticSQLReason.SQL_UNKNOWN_TABLE,
            )
        if name not in tables:
            raise SQLCheckError(
                where + f"unknown table {name!r}", StaticSQLReason.SQL_UNKNOWN_TABLE
            )


def _write_targets(tree: exp.Expr) -> list[exp.Table]:
    if isinstance(tree, exp.Insert):
        target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    elif isinstance(tree, exp.Update | exp.Delete):
        target = tree.this
    else:
        return []
    return [target] if isinstance(target, exp.Table) else []


def _function_name(func: exp.Func) -> str:
    return func.name.lower() if isinstance(func, exp.Anonymous) else func.sql_name().lower()


def _check_functions(
    tree: exp.Expr,
    where: str,
    functions: frozenset[type[exp.Expr]] = SAFE_FUNCTIONS,
    anonymous: frozenset[str] = SAFE_ANONYMOUS,
) -> None:
    for func in tree.find_all(exp.Func):
        name = _function_name(func)
        allowed = name in anonymous if isinstance(func, exp.Anonymous) else type(func) in functions
        if name.startswith("read_") or type(func).__name__.startswith("Read"):
            raise SQLCheckError(
                where + f"function {name}() reads files", StaticSQLReason.SQL_FORBIDDEN_FUNCTION
            )
        if not allowed:
            raise SQLCheckError(
                where + f"function {name}() is not allowed", StaticSQLReason.SQL_FORBIDDEN_FUNCTION
            )


def _literal_text(node: exp.Expr | None) -> str | None:
    return node.this if isinstance(node, exp.Literal) and node.is_string else None


def _check_costs(tree: exp.Expr, where: str) -> None:
    """What could make one function call cost without bound: a printf width, a replace
    that grows its text, text concatenated over and over."""
    concatenations = sum(1 for _ in tree.find_all(exp.DPipe, exp.Concat))
    if concatenations > MAX_CONCATENATIONS:
        raise SQLCheckError(
            where + f"{concatenations} concatenations, over the cap of {MAX_CONCATENATIONS}",
            StaticSQLReason.SQL_TOO_COSTLY,
        )
    for func in tree.find_all(exp.Func):
        name = _function_name(func)
        if name in ("printf", "format"):
            args = func.expressions if isinstance(func, exp.Anonymous) else [func.this]
            pattern = _literal_text(args[0] if args else None)
            if pattern is None:
                raise SQLCheckError(
                    where + f"{name}() needs its format as a literal string",
                    StaticSQLReason.SQL_TOO_COSTLY,
                )
            if "{" in pattern:  # DuckDB's format reads widths in braces ({:>90000000})
                raise SQLCheckError(
                    where + f"{name}() format with braces: use printf's %-conversions",
                    StaticSQLReason.SQL_TOO_COSTLY,
                )
            for width, precision in _CONVERSION.findall(pattern):
                for value in (width, precision):
                    if value == "*" or (value and int(value) > MAX_WIDTH):
                        raise SQLCheckError(
                            where + f"{name}() width or precision {value!r} is over the cap "
                            f"of {MAX_WIDTH}",
                            StaticSQLReason.SQL_TOO_COSTLY,
                        )
        if isinstance(func, exp.Replace):
            old, new = _literal_text(func.expression), _literal_text(func.args.get("replacement"))
            if old is None or new is None or len(new) > len(old):
                raise SQLCheckError(
                    where + "replace() takes literal strings and never lengthens the text "
                    "(the replacement no longer than what it replaces)",
                    StaticSQLReason.SQL_TOO_COSTLY,
                )


def check_constraint(sql: str, table: Table) -> list[SQLCheckError]:
    """A table's CHECK expression vetted like tool SQL: it runs on every seed row and on
    every write, so it may use the table's columns, literals, operators and the safe
    functions, with the same caps; no query, no parameter."""
    where = f"table {table.name!r} check {sql!r}: "
    if len(sql) > 1_000:
        return [
            SQLCheckError(
                where + f"{len(sql)} characters, over the cap of 1000",
                StaticSQLReason.CHECK_FORBIDDEN,
            )
        ]
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except (ParseError, sqlglot.errors.TokenError) as e:
        first = str(e).splitlines()[0]
        return [
            SQLCheckError(where + f"does not parse ({first})", StaticSQLReason.CHECK_PARSE_ERROR)
        ]
    out = []
    if tree.find(exp.Query, exp.Subquery, exp.Table) is not None:
        out.append(
            SQLCheckError(where + "a check cannot hold a query", StaticSQLReason.CHECK_FORBIDDEN)
        )
    if tree.find(exp.Placeholder, exp.Parameter) is not None:
        out.append(
            SQLCheckError(
                where + "a check cannot hold a parameter", StaticSQLReason.CHECK_FORBIDDEN
            )
        )
    try:
        _check_functions(tree, where, CHECK_FUNCTIONS, frozenset())
    except SQLCheckError as e:
        out.append(SQLCheckError(e.detail + " in a check", StaticSQLReason.CHECK_FORBIDDEN))
    columns = set(table.column_names)
    for col in tree.find_all(exp.Column):
        if col.table or col.name not in columns:
            out.append(
                SQLCheckError(
                    where + f"unknown column {col.sql('sqlite')!r}",
                    StaticSQLReason.CHECK_UNKNOWN_COLUMN,
                )
            )
    return out


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
