"""Issue 11: eight classes of SQL that got past the lock, each held on both engines, with
the static check in place and bypassed (as if it had a hole).

1 scope, 2 bookkeeping, 3 budget, 4 memory, 5 checking executes code, 6 CHECK
constraints, 7 statement roles, 8 arguments; and the version functions, SQLite's
temporary storage. The property test at the end feeds generated costly SQL.
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolscale.checks as checks_module
import toolscale.sandbox.base as sandbox_module
from tests.toolscale.sandbox.hostile import (
    assert_truthful_and_working,
    bound_s,
    bypass_static_check,
    evil,
    timed_call,
    unchecked_compile,
)
from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import EngineName, Limits, SandboxRefused, SeedError
from toolscale.sandbox.engine import Engine
from toolscale.sandbox.sqlcheck import SQLCheckError, check_statement
from toolscale.sandbox.sqlite import SQLiteEngine
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool
from validators.pipeline import verify_environment

ENGINES: list[EngineName] = ["sqlite", "duckdb"]
MB = 2**20


def with_tool(mini_dict: dict, tool: dict, clients: int = 0) -> EnvironmentSpec:
    if clients:
        mini_dict["seed"]["clients"] += [
            {"id": i, "name": f"client {i}"} for i in range(3, clients + 3)
        ]
    mini_dict["tools"].append(tool)
    return EnvironmentSpec.model_validate(mini_dict)


def static_reason(sql: str, role: str, spec: EnvironmentSpec) -> str:
    with pytest.raises(SQLCheckError) as info:
        check_statement(sql, role, spec.schema_, {"p": "string"}, "evil")  # type: ignore[arg-type]
    return str(info.value.reason)


# -- 1. scope ---------------------------------------------------------------------------

# A CTE named after a relation that is not in the schema, referenced outside its scope: the
# engine reads the real relation (DuckDB: catalog views and settings; SQLite: its master
# tables, which name the change log).
OUT_OF_SCOPE = {
    "subquery": "SELECT * FROM (WITH {r} AS (SELECT 1 AS name) SELECT name FROM {r}) AS a, {r}",
    "later_cte": "WITH a AS (SELECT name FROM {r}), {r} AS (SELECT 1 AS name) SELECT name FROM a",
    "inner_with": "SELECT (SELECT count(*) FROM {r}) AS n FROM (WITH {r} AS (SELECT 1) SELECT 1)",
}
CATALOG: dict[EngineName, str] = {"sqlite": "sqlite_temp_master", "duckdb": "pg_settings"}


@pytest.mark.parametrize("shape", sorted(OUT_OF_SCOPE))
@pytest.mark.parametrize("engine", ENGINES)
def test_scope_a_cte_out_of_scope_is_no_cover_for_a_relation(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName, shape: str
) -> None:
    sql = OUT_OF_SCOPE[shape].format(r=CATALOG[engine])
    spec = with_tool(mini_dict, evil("returns", sql))
    assert static_reason(sql, "returns", spec) == "sql_unknown_table"
    bypass_static_check(monkeypatch)
    try:
        sb = open_sandbox(spec, engine)
    except SandboxRefused as refused:  # DuckDB's own reader and binder, at open
        assert engine == "duckdb"
        assert "outside the schema" in refused.detail or "table function" in refused.detail
        return
    with sb:
        result = sb.call("evil", {})
        if shape == "later_cte" and result.ok:  # SQLite reads the later CTE: no relation
            assert result.output == [{"name": 1}]
            return
        assert (result.ok, result.code) == (False, "forbidden"), result


def test_scope_ctes_in_scope_still_pass(mini_spec: EnvironmentSpec) -> None:
    for sql in (
        "WITH a AS (SELECT id FROM accounts), b AS (SELECT id FROM a) SELECT id FROM b",
        "SELECT n FROM (WITH c AS (SELECT count(*) AS n FROM clients) SELECT n FROM c) AS x",
        "WITH c AS (SELECT id FROM clients) SELECT (SELECT count(*) FROM c) AS n",
    ):
        check_statement(sql, "returns", mini_spec.schema_, {}, "fine")
    with pytest.raises(SQLCheckError, match="has the name of a schema table"):
        check_statement(
            "WITH accounts AS (SELECT 1 AS id) SELECT id FROM accounts",
            "returns",
            mini_spec.schema_,
            {},
            "x",
        )


# -- 2. bookkeeping ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "engine, sql",
    [
        ("sqlite", "INSERT INTO _ts_changes VALUES ('accounts', '[\"A1\"]')"),
        ("sqlite", "DELETE FROM sqlite_temp_master"),
        ("duckdb", "UPDATE _seed.accounts SET balance = 0"),
        ("duckdb", "DELETE FROM _seed.accounts"),
    ],
)
def test_bookkeeping_is_out_of_reach_of_tool_sql(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName, sql: str
) -> None:
    spec = with_tool(mini_dict, evil("run", sql))
    with pytest.raises(SQLCheckError):
        check_statement(sql, "run", spec.schema_, {}, "evil")
    bypass_static_check(monkeypatch)
    try:
        sb = open_sandbox(spec, engine)
    except SandboxRefused:
        assert engine == "duckdb"
        return
    with sb:
        seed = sb.state_hash()
        assert sb.call("withdraw", {"account_id": "A1", "amount": 5}).ok
        changed = sb.state_hash()
        result = sb.call("evil", {})
        assert not result.ok and result.code in ("forbidden", "sql_error"), result
        assert changed != seed
        assert_truthful_and_working(sb, changed)


@pytest.mark.parametrize("engine", ENGINES)
def test_bookkeeping_hash_is_truthful_when_replace_deletes_a_conflicting_row(
    mini_dict: dict, engine: EngineName
) -> None:
    """INSERT OR REPLACE deletes the row it conflicts with on a UNIQUE column; SQLite fires
    no delete trigger for it unless recursive triggers are on, and the change log missed
    the deleted row."""
    mini_dict["schema"]["tables"].append(
        {
            "name": "tags",
            "columns": [
                {"name": "id", "type": "integer"},
                {"name": "code", "type": "text", "unique": True},
            ],
            "primary_key": ["id"],
        }
    )
    mini_dict["seed"]["tags"] = [{"id": 1, "code": "red"}, {"id": 2, "code": "blue"}]
    spec = with_tool(
        mini_dict,
        {
            "name": "put_tag",
            "description": "x",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "code": {"type": "string"}},
                "required": ["id", "code"],
            },
            "run": ["INSERT OR REPLACE INTO tags (id, code) VALUES (:id, :code)"],
        },
    )
    if engine == "duckdb":  # DuckDB cannot bind it: the environment is not portable
        with pytest.raises(SandboxRefused, match="Conflict target"):
            open_sandbox(spec, engine)
        return
    with open_sandbox(spec, engine) as sb:
        seed = sb.state_hash()
        assert sb.call("put_tag", {"id": 3, "code": "red"}).ok
        assert sb.state_hash() == sb.full_state_hash() != seed
        assert sb.changes()["tags"] == {(1,): None, (3,): (3, "red")}


@pytest.mark.parametrize("engine", ENGINES)
def test_bookkeeping_hash_is_truthful_when_replace_rewrites_a_row(
    mini_dict: dict, engine: EngineName
) -> None:
    spec = with_tool(
        mini_dict,
        {
            "name": "put_client",
            "description": "x",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
                "required": ["id", "name"],
            },
            "run": ["INSERT OR REPLACE INTO clients (id, name) VALUES (:id, :name)"],
        },
    )
    with open_sandbox(spec, engine) as sb:
        assert sb.call("put_client", {"id": 9, "name": "Cy Dee"}).ok
        assert sb.call("put_client", {"id": 9, "name": "Cy Lee"}).ok
        assert sb.state_hash() == sb.full_state_hash()
        assert sb.changes() == {"clients": {(9,): (9, "Cy Lee")}}


# -- 3. budget --------------------------------------------------------------------------

# Each is one call that runs far past its budget unless stopped from outside: a function
# that is one step of the engine (formatting, a substring search, an edit distance), over
# text built inside the statement. The static check refuses each; bypassed, the kill does.
COSTLY: dict[EngineName, list[tuple[str, str]]] = {
    "sqlite": [
        (
            "substring_search_one_step",  # 1.8 s inside one step: only a kill stops it
            "SELECT instr(printf('%.*c', 999000, 'a'), printf('%.*c', 100000, 'a') || 'b') AS n",
        ),
        (
            "substring_search_per_row",  # each row's step is long: the clock is seen late
            "SELECT count(*) AS n FROM clients a, clients b WHERE "
            "instr(printf('%.*c', 900000, a.name), printf('%.*c', 3000, 'c') || 'x') > 0",
        ),
        (
            "text_built_in_a_cte",
            "WITH s(x) AS (SELECT printf('%.*c', 900000, a.name) FROM clients a, clients b, "
            "clients c) SELECT sum(instr(x || x, 'b') + instr(x, 'ab')) AS n FROM s",
        ),
        (
            "format_width",
            "SELECT sum(length(printf('%.*c', 999999, a.name))) AS n FROM clients a, clients b, "
            "clients c, clients d",
        ),
    ],
    "duckdb": [
        (
            "substring_search_one_step",  # 46 s, and DuckDB's interrupt is not looked at
            "SELECT sum(instr(repeat(a.name, 3000000), 'zz')) AS n FROM clients a, clients b",
        ),
        (
            "edit_distance",
            "SELECT levenshtein(repeat(name, 4000), repeat(reverse(name), 4000)) AS d FROM clients",
        ),
        (
            "format_width",
            "SELECT sum(length(format('{:>90000000}', name))) AS n FROM clients",
        ),
    ],
}


@pytest.mark.parametrize(
    "engine, case, sql", [(e, c, s) for e in ENGINES for c, s in COSTLY[e]], ids=str
)
def test_budget_no_call_outruns_twice_its_budget_plus_100_ms(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName, case: str, sql: str
) -> None:
    spec = with_tool(mini_dict, evil("returns", sql), clients=18)
    assert static_reason(sql, "returns", spec) in ("sql_too_costly", "sql_forbidden_function")
    bypass_static_check(monkeypatch)
    limits = Limits(timeout_ms=250)
    with open_sandbox(spec, engine, limits) as sb:
        seed = sb.state_hash()
        result, elapsed = timed_call(sb, "evil", {})
        assert not result.ok and result.code in ("timeout", "too_large"), result  # type: ignore[attr-defined]
        assert elapsed <= bound_s(limits), f"{case} ran {elapsed:.3f} s"
        assert_truthful_and_working(sb, seed)


@pytest.mark.parametrize("engine", ENGINES)
def test_budget_a_killed_call_keeps_the_writes_before_it(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName
) -> None:
    sql = {  # one long step: no engine looks at its clock inside it
        "sqlite": COSTLY["sqlite"][0][1],
        # DuckDB 2.x stops this one itself (its interrupt reaches inside the function) or
        # refuses its 3.4 GB matrix at the address-space cap, whichever comes first: what is
        # pinned there is that the call's stop, whatever it was, keeps the earlier writes
        "duckdb": "SELECT damerau_levenshtein(repeat(name, 1500), repeat(reverse(name), 1500)) "
        "AS d FROM clients WHERE id = 3",
    }[engine]
    spec = with_tool(mini_dict, evil("returns", sql), clients=18)
    bypass_static_check(monkeypatch)
    with open_sandbox(spec, engine, Limits(timeout_ms=100)) as sb:
        assert sb.call("withdraw", {"account_id": "A1", "amount": 10}).ok
        opened = sb.call("open_account", {"client_id": 2}).output["id"]
        kept = sb.state_hash()
        pid = sb.worker_pid
        assert sb.call("evil", {}).code in ("timeout", "too_large")
        assert sb.state_hash() == kept == sb.full_state_hash()
        if engine == "sqlite":  # one sqlite3 function call: only the kill stops it
            assert sb.worker_pid != pid  # the old worker was killed; a new one holds the state
        assert sb.call("open_account", {"client_id": 1}).output["id"] != opened
        sb.reset()
        assert sb.changes() == {}


# -- 4. memory --------------------------------------------------------------------------

HUNGRY: dict[EngineName, str] = {
    "sqlite": "SELECT count(*) AS n FROM (SELECT printf('%.*c', 999000, 'a') || a.name AS s "
    "FROM clients a, clients b, clients c ORDER BY s DESC)",
    "duckdb": "SELECT length(string_agg(repeat(a.name, 400000), '')) AS n "
    "FROM clients a, clients b, clients c",
}


@pytest.mark.parametrize("engine", ENGINES)
def test_memory_a_call_stays_within_its_budget_above_the_baseline(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName
) -> None:
    spec = with_tool(mini_dict, evil("returns", HUNGRY[engine]), clients=18)
    bypass_static_check(monkeypatch)
    limits = Limits(timeout_ms=5_000, memory_mb=128)
    with open_sandbox(spec, engine, limits) as sb:
        seed = sb.state_hash()
        mapped = sb.memory(reset_peak=True)["VmSize"]
        result, _ = timed_call(sb, "evil", {})
        assert not result.ok and result.code == "too_large", result  # type: ignore[attr-defined]
        if sb.worker_pid is not None:  # not killed: its peak is there to read
            assert sb.memory()["VmHWM"] <= mapped + limits.memory_mb * MB
        assert_truthful_and_working(sb, seed)


# -- 5. checking executes code ----------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT levenshtein(repeat('ab', 20000), repeat('ba', 20000)) AS d",
        "SELECT length(repeat('x', 2000000000)) AS n",
    ],
    ids=["slow_constant", "huge_constant"],
)
def test_checking_an_environment_runs_under_a_budget(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, sql: str
) -> None:
    """DuckDB's binder folds constants: checking a tool once took 7-37 s and 2.5 GB, and
    the tool was then accepted."""
    spec = with_tool(mini_dict, evil("returns", sql))
    assert static_reason(sql, "returns", spec) == "sql_forbidden_function"

    def unchecked_tool(tool: Tool, schema: Any) -> tuple[list, list]:
        return unchecked_compile(tool, schema), []

    monkeypatch.setattr(checks_module, "check_tool", unchecked_tool)
    started = time.perf_counter()
    rejections = verify_environment(spec)
    elapsed = time.perf_counter() - started
    statements = sum(len(t.statements()) for t in spec.tools)
    assert elapsed < statements * Limits().hard_timeout_s() + 5
    if "levenshtein" in sql:  # 3.4 s to fold: over its budget, a rejection that says so
        assert [(r.stage, r.reason) for r in rejections] == [("static_sql", "sql_check_budget")]
        assert "evil.returns" in rejections[0].detail
    else:  # DuckDB does not fold this one when it binds: cheap to check, stopped when called
        assert rejections == []


# -- 6. CHECK constraints ---------------------------------------------------------------


@pytest.mark.parametrize(
    "check, reason",
    [
        ("length(printf('%.*c', 1000000000, id)) > 0", "check_forbidden"),
        ("balance >= (SELECT 1)", "check_forbidden"),
        ("balance >= :floor", "check_forbidden"),
        ("colour = 'red'", "check_unknown_column"),
        ("balance >=", "check_parse_error"),
    ],
)
def test_check_constraints_get_the_static_checks(mini_dict: dict, check: str, reason: str) -> None:
    mini_dict["schema"]["tables"][1]["checks"].append(check)
    spec = EnvironmentSpec.model_validate(mini_dict)
    rejections = verify_environment(spec)
    assert {(r.stage, r.reason) for r in rejections} == {("static_sql", reason)}
    assert "table 'accounts' check" in rejections[0].detail


@pytest.mark.parametrize("engine", ENGINES)
def test_check_constraints_run_under_the_seed_budget(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName
) -> None:
    """Bypassed, a CHECK that costs seconds per row is stopped while the seed loads (19 s
    and 1 GB for two rows before) and is a rejection with a reason code."""
    costly = {
        "sqlite": "instr(printf('%.*c', 999000, id), printf('%.*c', 100000, id) || 'b') >= 0",
        "duckdb": "levenshtein(repeat(id, 20000), repeat(reverse(id), 20000)) >= 0",
    }[engine]
    mini_dict["schema"]["tables"][1]["checks"].append(costly)
    spec = EnvironmentSpec.model_validate(mini_dict)
    with pytest.raises(SQLCheckError):  # the sandbox vets its CHECKs too
        open_sandbox(spec, engine)
    monkeypatch.setattr(sandbox_module, "check_constraint", lambda sql, table: [])
    limits = Limits(seed_timeout_ms=300, seed_ms_per_row=0)
    started = time.perf_counter()
    with pytest.raises(SeedError) as info:
        open_sandbox(spec, engine, limits)
    assert info.value.reason == "seed_budget"
    assert time.perf_counter() - started < 10


def test_a_check_an_engine_cannot_bind_is_a_rejection_not_an_exception(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict
) -> None:
    mini_dict["schema"]["tables"][1]["checks"].append("no_such_function(balance) > 0")
    spec = EnvironmentSpec.model_validate(mini_dict)
    assert [r.reason for r in verify_environment(spec)] == ["check_forbidden"]
    monkeypatch.setattr(checks_module, "check_constraint", lambda sql, table: [])
    monkeypatch.setattr(sandbox_module, "check_constraint", lambda sql, table: [])
    rejections = verify_environment(spec)
    assert [(r.stage, r.reason) for r in rejections] == [("static_sql", "check_not_portable")]
    with pytest.raises(SeedError) as info:  # past the checks, opening says it as clearly
        open_sandbox(spec, "duckdb")
    assert info.value.reason == "seed_schema_refused"


# -- 7. statement roles -----------------------------------------------------------------


@pytest.mark.parametrize("role", ["returns", "require"])
@pytest.mark.parametrize("engine", ENGINES)
def test_roles_a_read_step_cannot_write(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName, role: str
) -> None:
    sql = "UPDATE accounts SET balance = 0 WHERE id = 'A1'"
    spec = with_tool(mini_dict, evil(role, sql))
    with pytest.raises(SQLCheckError, match="must be a SELECT"):
        check_statement(sql, role, spec.schema_, {}, "evil")  # type: ignore[arg-type]
    bypass_static_check(monkeypatch)
    try:
        sb = open_sandbox(spec, engine)
    except SandboxRefused as refused:  # DuckDB's parser: an UPDATE is no read step
        assert engine == "duckdb" and "may not run" in refused.detail
        return
    with sb:
        seed = sb.state_hash()
        result = sb.call("evil", {})
        assert (result.ok, result.code) == (False, "forbidden"), result
        assert_truthful_and_working(sb, seed)


@pytest.mark.parametrize("engine", ENGINES)
def test_roles_any_exception_in_a_call_is_an_error_result_without_trace(
    monkeypatch: pytest.MonkeyPatch, mini_spec: EnvironmentSpec, engine: EngineName
) -> None:
    """Whatever raises inside a call (here a bug after the write ran) is the call's error
    result, and the write is undone. In this process, to reach inside the engine."""
    real = Engine._run

    def broken(self: Engine, tool: Any, params: dict) -> Any:
        real(self, tool, params)
        raise TypeError("a bug")

    with open_sandbox(mini_spec, engine, Limits(isolated=False)) as sb:
        seed = sb.state_hash()
        monkeypatch.setattr(Engine, "_run", broken)
        result = sb.call("withdraw", {"account_id": "A1", "amount": 10})
        assert (result.ok, result.code) == (False, "sql_error")
        assert "TypeError: a bug" in (result.error or "")
        monkeypatch.setattr(Engine, "_run", real)
        assert_truthful_and_working(sb, seed)


# -- 8. arguments -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments, says",
    [
        ({"account_id": "A1", "amount": math.nan}, "not a finite number"),
        ({"account_id": "A1", "amount": math.inf}, "not a finite number"),
        ({"account_id": "A1", "amount": -math.inf}, "not a finite number"),
        ({"account_id": "A" * 10_000_000, "amount": 1}, "over the cap of 2000"),
        ({"account_id": ["A1"], "amount": 1}, "not a scalar"),
        ({"account_id": "A1"}, "'amount' is a required property"),
    ],
    ids=["nan", "inf", "-inf", "10MB", "list", "missing"],
)
def test_arguments_both_engines_refuse_the_same(
    mini_spec: EnvironmentSpec, arguments: dict, says: str
) -> None:
    verdicts = []
    for engine in ENGINES:
        with open_sandbox(mini_spec, engine) as sb:
            seed = sb.state_hash()
            result = sb.call("withdraw", arguments)
            assert (result.ok, result.code) == (False, "invalid_arguments"), result
            assert says in (result.error or "")
            assert_truthful_and_working(sb, seed)
            verdicts.append(result)
    assert verdicts[0] == verdicts[1]


def test_arguments_an_integer_past_64_bits_and_a_declared_cap(mini_dict: dict) -> None:
    mini_dict["tools"][2]["parameters"]["properties"]["client_id"]["maximum"] = 2**80
    mini_dict["tools"][0]["parameters"]["properties"]["account_id"]["maxLength"] = 3
    spec = EnvironmentSpec.model_validate(mini_dict)
    for engine in ENGINES:
        with open_sandbox(spec, engine) as sb:
            big = sb.call("open_account", {"client_id": 2**70})
            assert big.code == "invalid_arguments" and "64-bit" in (big.error or "")
            long = sb.call("get_account", {"account_id": "A1234"})
            assert long.code == "invalid_arguments" and "cap of 3" in (long.error or "")


# -- and the rest: version functions, SQLite's temporary storage -------------------------


@pytest.mark.parametrize("sql", ["SELECT sqlite_version() AS v", "SELECT version() AS v"])
def test_version_functions_are_refused(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, sql: str
) -> None:
    spec = with_tool(mini_dict, evil("returns", sql))
    assert static_reason(sql, "returns", spec) == "sql_forbidden_function"
    if "sqlite_version" in sql:  # SQLite's lock refuses it too
        bypass_static_check(monkeypatch)
        with open_sandbox(spec, "sqlite") as sb:
            assert sb.call("evil", {}).code == "forbidden"


def test_sqlite_keeps_temporary_storage_in_memory(mini_spec: EnvironmentSpec) -> None:
    with open_sandbox(mini_spec, "sqlite", Limits(isolated=False)) as sb:
        engine = sb._worker._host.engine  # type: ignore[union-attr]
        assert isinstance(engine, SQLiteEngine)
        assert engine._con.execute("PRAGMA temp_store").fetchone() == (2,)


# -- the property: generated costly SQL -------------------------------------------------

TEXT = {
    "sqlite": [
        "printf('%.*c', {n}, 'a')",
        "printf('%.*c', {n}, a.name) || printf('%.*c', {n}, 'b')",
        "replace(printf('%.*c', {n}, 'a'), 'a', 'aa')",
        "upper(printf('%.*c', {n}, a.name))",
    ],
    "duckdb": [
        "repeat('a', {n})",
        "repeat(a.name, {n}) || repeat('b', {n})",
        "replace(repeat('a', {n}), 'a', 'aaaa')",
        "upper(repeat(a.name, {n}))",
        "format('{{:>{n}}}', a.name)",
    ],
}
USE = {
    "sqlite": [
        "length({t})",
        "instr({t}, 'zz')",
        "instr({t}, printf('%.*c', 50000, 'a') || 'b')",
        "length(replace({t}, 'a', 'bb'))",
    ],
    "duckdb": [
        "length({t})",
        "instr({t}, 'zz')",
        "levenshtein(left({t}, 30000), right({t}, 30000))",
        "length(string_agg({t}, ','))",
        "({t} LIKE '%a%a%a%a%a%a%a%a%b')",
    ],
}
ROWS = ["clients a", "clients a, clients b", "clients a, clients b, clients c"]


@st.composite
def costly_sql(draw: st.DrawFn, engine: EngineName) -> str:
    n = draw(st.sampled_from([10_000, 400_000, 999_000, 50_000_000]))
    if engine == "sqlite":
        n = min(n, 999_000)  # SQLite's length limit: bigger is refused at once
    text = draw(st.sampled_from(TEXT[engine])).format(n=n)
    use = draw(st.sampled_from(USE[engine])).format(t=text)
    rows = draw(st.sampled_from(ROWS))
    order = draw(st.sampled_from(["", " ORDER BY n DESC"]))
    if "string_agg" in use:  # an aggregate already
        return f"SELECT {use} AS n FROM {rows}"
    if order:
        return f"SELECT count(*) AS c FROM (SELECT {use} AS n FROM {rows}{order})"
    return f"SELECT sum({use}) AS n FROM {rows}"


@pytest.mark.parametrize("engine", ENGINES)
def test_generated_costly_sql_keeps_budget_memory_and_a_truthful_hash(
    monkeypatch: pytest.MonkeyPatch, mini_dict: dict, engine: EngineName
) -> None:
    limits = Limits(timeout_ms=200, memory_mb=128)
    tool = evil("returns", "SELECT 1 AS n")
    spec = with_tool(mini_dict, tool, clients=18)
    bypass_static_check(monkeypatch)

    @settings(
        max_examples=12,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(sql=costly_sql(engine))
    def check(sql: str) -> None:
        assert static_reason(sql, "returns", spec) in ("sql_too_costly", "sql_forbidden_function")
        tools = [*spec.tools[:-1], Tool.model_validate(evil("returns", sql))]
        one = spec.model_copy(update={"tools": tools})
        try:
            sb = open_sandbox(one, engine, limits)
        except (SandboxRefused, SeedError) as refused:  # DuckDB folds a constant at open
            assert "budget" in refused.detail, refused
            return
        with sb:
            assert sb.call("withdraw", {"account_id": "A1", "amount": 3}).ok
            before_hash = sb.state_hash()
            mapped = sb.memory(reset_peak=True)["VmSize"]
            result, elapsed = timed_call(sb, "evil", {})
            assert elapsed <= bound_s(limits), f"{elapsed:.3f} s: {sql}"
            if sb.worker_pid is not None:
                assert sb.memory()["VmHWM"] <= mapped + limits.memory_mb * MB, sql
            assert sb.state_hash() == before_hash == sb.full_state_hash(), (sql, result)
            assert sb.call("get_account", {"account_id": "A1"}).output["balance"] == 97

    check()
