"""Property: any sequence of tool calls gives the same results, the same changed rows and
the same state hash on SQLite and DuckDB, and reset always returns to the seed."""

from __future__ import annotations

from datetime import datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import MINI
from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import same_results
from toolscale.spec import EnvironmentSpec

SPEC = EnvironmentSpec.model_validate(MINI)
ACCOUNTS = st.sampled_from(["A1", "A2", "AC1000000", "AC1000001", "AC1000002", "NOPE"])
AMOUNTS = st.one_of(
    st.integers(min_value=1, max_value=150),
    st.floats(min_value=0.01, max_value=150, allow_nan=False).map(lambda x: round(x, 2)),
)
CALLS = st.one_of(
    st.tuples(
        st.just("withdraw"), st.fixed_dictionaries({"account_id": ACCOUNTS, "amount": AMOUNTS})
    ),
    st.tuples(
        st.just("open_account"), st.fixed_dictionaries({"client_id": st.sampled_from([1, 2, 3])})
    ),
    st.tuples(st.just("close_account"), st.fixed_dictionaries({"account_id": ACCOUNTS})),
    st.tuples(st.just("get_account"), st.fixed_dictionaries({"account_id": ACCOUNTS})),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CALLS, min_size=1, max_size=12))
def test_engines_agree_on_any_call_sequence(calls: list[tuple[str, dict]]) -> None:
    with open_sandbox(SPEC, "sqlite") as lite, open_sandbox(SPEC, "duckdb") as duck:
        seed = lite.state_hash()
        assert duck.state_hash() == seed
        a = [lite.call(name, args) for name, args in calls]
        b = [duck.call(name, args) for name, args in calls]
        assert same_results(a, b), list(zip(a, b, strict=True))
        assert lite.changes() == duck.changes()
        assert lite.state_hash() == duck.state_hash()
        lite.reset()
        duck.reset()
        assert lite.state_hash() == duck.state_hash() == seed


PORTABLE = {
    "tables": [
        {
            "name": "people",
            "primary_key": ["id"],
            "columns": [
                {"name": "id", "type": "integer"},
                {"name": "name", "type": "text"},
                {"name": "age", "type": "integer"},
                {"name": "score", "type": "real"},
            ],
        }
    ]
}


@settings(max_examples=40, deadline=None)
@given(
    st.integers(min_value=-50, max_value=50),
    st.integers(min_value=-5, max_value=5),
    st.floats(min_value=-20, max_value=20, allow_nan=False),
    st.sampled_from(["an%", "AN%", "%N", "bo_", "%"]),
)
def test_sqlite_semantics_survive_transpilation(a: int, b: int, x: float, pattern: str) -> None:
    """Integer division and modulo (by zero too), casts of fractions, LIKE's ASCII case
    folding and NULL ordering give SQLite's answers on DuckDB."""
    types = {
        "a": {"type": "integer"},
        "b": {"type": "integer"},
        "x": {"type": "number"},
        "p": {"type": "string"},
    }
    spec = EnvironmentSpec.model_validate(
        {
            "name": "portable",
            "schema": PORTABLE,
            "seed": {
                "people": [
                    {"id": 1, "name": "Ann", "age": 30, "score": 2.5},
                    {"id": 2, "name": "bob", "age": None, "score": -1.25},
                    {"id": 3, "name": "ANNA", "age": 7, "score": None},
                ]
            },
            "tools": [
                {
                    "name": "calc",
                    "description": "Arithmetic.",
                    "kind": "read",
                    "parameters": {"type": "object", "properties": types, "required": list(types)},
                    "returns": "SELECT id, :a / :b AS q, :a % :b AS r, age / :b AS aq, "
                    "CAST(:x AS INTEGER) AS t, CAST(score AS INTEGER) AS st, "
                    "name LIKE :p AS m FROM people ORDER BY age, score DESC",
                }
            ],
        }
    )
    args = {"a": a, "b": b, "x": x, "p": pattern}
    with open_sandbox(spec, "sqlite") as lite, open_sandbox(spec, "duckdb") as duck:
        got = lite.call("calc", args), duck.call("calc", args)
        assert got[0].ok, got[0]
        assert same_results([got[0]], [got[1]]), got


def test_banking_tools_agree_on_random_calls(banking_spec: EnvironmentSpec) -> None:
    """Every banking tool (but the two flawed on purpose), called with arguments drawn from
    the seed rows, answers and changes the database identically on both engines."""
    import random

    rng = random.Random(7)
    values: dict[str, list] = {}
    for rows in banking_spec.seed.values():
        for row in rows:
            for key, value in row.items():
                if value is not None:
                    values.setdefault(key, []).append(value)

    def pick(name: str, prop: dict) -> object:
        kind = prop["type"] if isinstance(prop["type"], str) else prop["type"][0]
        if "enum" in prop:
            return rng.choice(prop["enum"])
        if kind == "boolean":
            return rng.choice([True, False])
        if kind == "integer":
            return rng.choice([0, 1, 3, 10, 75, 1000])
        if kind == "number":
            return rng.choice([0.25, 1, 10.5, 99.99, 250, 5000, 20000])
        pool = values.get(name) or values.get(name.removeprefix("from_").removeprefix("to_"))
        return str(rng.choice(pool)) if pool and rng.random() < 0.9 else "nobody"

    tools = [t for t in banking_spec.tools if t.name not in ("draw_promo_code", "split_payment")]
    succeeded = 0
    with open_sandbox(banking_spec, "sqlite") as lite, open_sandbox(banking_spec, "duckdb") as duck:
        for _ in range(25):
            lite.reset()
            duck.reset()
            for _ in range(8):
                tool = rng.choice(tools)
                required = tool.parameters.get("required", [])
                args = {
                    n: pick(n, p)
                    for n, p in tool.parameters["properties"].items()
                    if n in required or rng.random() < 0.5
                }
                a, b = lite.call(tool.name, args), duck.call(tool.name, args)
                assert same_results([a], [b]), (tool.name, args, a, b)
                succeeded += a.ok
            assert lite.changes() == duck.changes()
            assert lite.state_hash() == duck.state_hash()
    assert succeeded >= 50  # the calls did real work, not only policy refusals


@settings(max_examples=30, deadline=None)
@given(
    st.datetimes(min_value=datetime(1990, 1, 1), max_value=datetime(2040, 12, 31)),
    st.booleans(),
)
def test_julianday_gives_sqlites_days_on_duckdb(when: datetime, date_only: bool) -> None:
    """A cancellation window ("within 30 days of its date") is julianday arithmetic: DuckDB
    has no julianday, so the medicine run's cancel tool was dropped as not portable."""
    stamp = when.isoformat(timespec="seconds")
    stamp = stamp[:10] if date_only else stamp
    spec = EnvironmentSpec.model_validate(
        {
            "name": "dates",
            "schema": PORTABLE,
            "seed": {"people": [{"id": 1, "name": "Ann", "age": 30, "score": 2.5}]},
            "tools": [
                {
                    "name": "days",
                    "description": "Days between a date and now.",
                    "kind": "read",
                    "parameters": {
                        "type": "object",
                        "properties": {"d": {"type": "string"}},
                        "required": ["d"],
                    },
                    "returns": "SELECT id, julianday(:_now) - julianday(:d) AS days, "
                    "julianday(:_now) - julianday(:d) <= 30 AS recent FROM people",
                }
            ],
        }
    )
    with open_sandbox(spec, "sqlite") as lite, open_sandbox(spec, "duckdb") as duck:
        got = lite.call("days", {"d": stamp}), duck.call("days", {"d": stamp})
        assert got[0].ok and got[1].ok, got
        assert same_results([got[0]], [got[1]]), got
