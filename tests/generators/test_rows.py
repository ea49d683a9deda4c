"""Stage `rows`: a data plan per table under a schema built from it, repaired when wrong,
the default plan when the model cannot give one; rows expanded to the brief's count."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from generators.rows import id_start, id_starts, plan_model, propose_rows, sold_counted
from generators.toolkit import schema_tools
from tests.generators.library import (
    Library,
    ask,
    brief,
    first_then_library,
    last_user,
    library_schema,
    stage_of,
    with_checks,
)
from tests.generators.railway import railway_spec
from toolscale.environment import Environment
from toolscale.reasons import GeneratorReason
from toolscale.schema import Column, Scalar, Schema, Table
from toolscale.spec import EnvironmentSpec
from toolscale.testing.fakedomain import library
from toolscale.testing.fakellm import Reply
from toolscale.tool import ToolCall


def test_plan_model_offers_only_the_kinds_that_fit_each_column() -> None:
    schema = with_checks("members", "status IN ('active', 'suspended')")
    members = plan_model(schema.table("members")).model_json_schema()
    defs = members["$defs"]
    columns = defs["members_columns"]["properties"]
    assert set(columns) == {"name", "status", "joined_on"}  # the key is ours
    kind = defs["members_status_plan"]["properties"]["kind"]
    assert kind.get("const") == "choice" or kind.get("enum") == ["choice"]
    assert "email" in defs["members_name_plan"]["properties"]["kind"]["enum"]
    assert "rows" in members["properties"]
    loans = plan_model(library_schema().table("loans")).model_json_schema()
    assert set(loans["$defs"]["loans_columns"]["properties"]) == {"due_on", "returned"}
    assert {"min_children", "max_children"} <= set(loans["properties"])
    model = plan_model(library_schema().table("loans"))
    good = {"min_children": 1, "max_children": 2, "columns": {"due_on": {"kind": "date"}}}
    with pytest.raises(ValidationError):  # every column is planned
        model.model_validate(good)
    with pytest.raises(ValidationError):  # a boolean column cannot be a date
        model.model_validate(
            {**good, "columns": {"due_on": {"kind": "date"}, "returned": {"kind": "date"}}}
        )


def test_propose_rows_fills_every_table_to_the_briefs_count(tmp_path: Path, lib: Library) -> None:
    schema = lib.schema
    asked = ask(
        library,
        tmp_path,
        lambda llm: propose_rows(llm, brief(), schema, lib.core),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    seed = outcome.value
    assert set(seed) == {"members", "books", "loans"}
    assert sum(len(rows) for rows in seed.values()) == brief().seed_rows == 60
    assert {r["status"] for r in seed["members"]} == {"active", "suspended"}  # the model's plan
    assert {r["author"] for r in seed["books"]} <= {"Herbert", "Austen", "Joyce", "Morrison"}
    member_ids = [r["member_id"] for r in seed["members"]]
    assert all(10_000 <= i < 100_000 for i in member_ids) and member_ids == sorted(member_ids)
    assert {r["member_id"] for r in seed["loans"]} <= set(member_ids)
    assert {r["book_id"] for r in seed["loans"]} <= {r["book_id"] for r in seed["books"]}
    usage = asked.llm.ledger.stage("rows")
    assert usage.repairs == 0 and usage.calls == 3 and not usage.failures
    spec = EnvironmentSpec(name="library", schema_=schema, seed=seed, tools=schema_tools(schema))
    with Environment(spec) as environment:
        for table in schema.tables:
            key = table.primary_key[0]
            for row in seed[table.name][:3]:
                got = environment.step(
                    ToolCall(name=f"get_{table.name}", arguments={key: row[key]})
                )
                assert got.ok and got.output[key] == row[key]


def test_the_tables_plans_are_asked_side_by_side(tmp_path: Path, lib: Library) -> None:
    """No table's prompt reads another's answer: with two requests allowed, two plans are
    asked at once (each answer takes 0.3 s), and the seed is whole, its keys held."""
    schema = lib.schema
    together = ask(
        library,
        tmp_path / "together",
        lambda llm: propose_rows(llm, brief(), schema, lib.core),
        latency_s=0.3,
    )
    assert together.peak == 2
    assert sorted(stage_of(b) for b in together.requests) == [
        "books_plan",
        "loans_plan",
        "members_plan",
    ]
    seed = together.value.value
    assert sum(len(rows) for rows in seed.values()) == brief().seed_rows == 60
    assert {r["member_id"] for r in seed["loans"]} <= {r["member_id"] for r in seed["members"]}


def test_propose_rows_repairs_a_plan_that_breaks_a_check(tmp_path: Path) -> None:
    schema = with_checks("members", "status IN ('active', 'suspended')")
    gone = {
        "rows": 1,
        "columns": {
            "name": {"kind": "person_name"},
            "status": {"kind": "choice", "values": ["active", "gone"]},
            "joined_on": {"kind": "date"},
        },
    }
    asked = ask(
        first_then_library("members_plan", gone),
        tmp_path,
        lambda llm: propose_rows(llm, brief(), schema, schema_tools(schema)),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert {r["status"] for r in outcome.value["members"]} == {"active", "suspended"}
    assert asked.llm.ledger.stage("rows").repairs == 1
    repairs = [b for b in asked.requests if len(b["messages"]) > 2]
    assert len(repairs) == 1 and stage_of(repairs[0]) == "members_plan"
    feedback = last_user(repairs[0])
    assert "table 'members' column 'status'" in feedback and "gone" in feedback


def test_a_model_that_never_plans_falls_back_to_the_default_plan(tmp_path: Path) -> None:
    schema = with_checks("members", "status IN ('active', 'suspended')")
    asked = ask(
        lambda body: Reply(content="not json"),
        tmp_path,
        lambda llm: propose_rows(llm, brief(), schema, schema_tools(schema)),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert sum(len(r) for r in outcome.value.values()) == 60
    assert {r["status"] for r in outcome.value["members"]} <= {"active", "suspended"}
    failures = asked.llm.ledger.stage("rows").failures
    assert failures[GeneratorReason.FELL_BACK_TO_DEFAULT_PLAN] == 3  # one per table


def test_new_ids_continue_the_seeds_key_sequence() -> None:
    schema = library_schema()
    seed: dict[str, list[dict[str, Scalar]]] = {
        "members": [{"member_id": 12_115, "name": "Ann"}, {"member_id": 12_171, "name": "Bo"}],
        "books": [{"book_id": 36_072, "copies_available": 99_999}],
        "loans": [{"loan_id": 58_990, "member_id": 12_115, "book_id": 36_072}],
    }
    # above every key of every table (a quantity, though larger, is no key)
    assert id_start(seed, schema) == 58_991
    # and per table, its own sequence: a new member follows the members
    assert id_starts(seed, schema) == {"members": 12_172, "books": 36_073, "loans": 58_991}
    # a text key counts by its digits, as patterns.key_expression prefixes the new id
    orders = Table(
        name="orders", primary_key=["order_id"], columns=[Column(name="order_id", type="text")]
    )
    text = Schema(tables=[orders])
    assert id_start({"orders": [{"order_id": "ORD10234"}, {"order_id": "ORD977"}]}, text) == 10_235
    # no numbered key at all: the round default
    assert id_start({"orders": [{"order_id": "NYC"}]}, text) == 1_000_000


def test_a_parents_sold_count_holds_at_least_its_childrens() -> None:
    """Railway's data plan drew `seats_sold` apart from the tickets (trip 30987 sold 2 and
    held 4 active tickets on 21ceb83); a ticket moved off it then took its count below 0. A
    refunded ticket holds no seat."""
    spec = railway_spec()
    seed = {t: [dict(r) for r in rows] for t, rows in spec.seed.items()}
    trips = {r["trip_id"]: r for r in seed["trips"]}
    trips[11]["seats_sold"] = 1  # five active tickets on it
    seed["tickets"][-1]["status"] = "refunded"  # ticket 906, trip 12's one
    counted = {r["trip_id"]: r["seats_sold"] for r in sold_counted(seed, spec.schema_)["trips"]}
    assert counted == {10: 2, 11: 5, 12: 0, 13: 7}
