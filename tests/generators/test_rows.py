"""Stage `rows`: per table, under a schema built from it, keys ours; rows that load."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from generators.rows import key_base, propose_rows, row_model, with_keys
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
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.testing.fakedomain import BRIEF, library
from toolscale.tool import ToolCall


def test_row_model_offers_parent_keys_and_leaves_the_key_out() -> None:
    loans = library_schema().table("loans")
    model = row_model(loans, {"members": [101, 102, 103], "books": [201, 202]}, n_rows=6)
    schema = model.model_json_schema()
    row = schema["$defs"][schema["properties"]["rows"]["items"]["$ref"].split("/")[-1]]
    props = row["properties"]
    assert "loan_id" not in props
    assert props["member_id"]["enum"] == [101, 102, 103]
    assert props["book_id"]["enum"] == [201, 202]
    assert props["due_on"]["format"] == "date"
    assert props["returned"]["type"] == "boolean"
    assert schema["properties"]["rows"]["maxItems"] == 6
    good = {"member_id": 101, "book_id": 201, "due_on": "2024-05-01", "returned": False}
    model.model_validate({"rows": [good, good, good]})
    with pytest.raises(ValidationError):
        model.model_validate({"rows": [good, good, {**good, "member_id": 999}]})


def test_keys_are_ours_in_a_range_per_table() -> None:
    schema = library_schema()
    assert [key_base(i) for i in range(3)] == [101, 201, 301]
    row = {"name": "A", "status": "active", "joined_on": dt.date(2024, 1, 2)}
    members = with_keys(schema.table("members"), [row] * 3, 0)
    assert [r["member_id"] for r in members] == [101, 102, 103]
    assert members[0]["joined_on"] == "2024-01-02"
    books = with_keys(schema.table("books"), [{"title": "Dune"}] * 2, 1)
    assert [r["book_id"] for r in books] == [201, 202]


def test_key_ranges_never_overlap_at_the_largest_brief() -> None:
    n = 200
    Brief.model_validate({**yaml.safe_load(BRIEF), "rows_per_table": n})  # a brief allows it
    tables = library_schema().tables
    ranges = [
        {r[t.primary_key[0]] for r in with_keys(t, [{}] * n, i)} for i, t in enumerate(tables)
    ]
    assert not ranges[0] & ranges[1]


def test_propose_rows_fills_every_table_with_rows_that_load(tmp_path: Path, lib: Library) -> None:
    schema = lib.schema
    asked = ask(library, tmp_path, lambda llm: propose_rows(llm, brief(), schema, lib.core))
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    seed = outcome.value
    assert set(seed) == {"members", "books", "loans"}
    assert all(3 <= len(rows) <= 6 for rows in seed.values())
    assert [r["member_id"] for r in seed["members"]] == list(range(101, 101 + len(seed["members"])))
    member_ids = {r["member_id"] for r in seed["members"]}
    book_ids = {r["book_id"] for r in seed["books"]}
    assert {r["member_id"] for r in seed["loans"]} <= member_ids
    assert {r["book_id"] for r in seed["loans"]} <= book_ids
    assert asked.llm.ledger.stage("rows").repairs == 0
    spec = EnvironmentSpec(name="library", schema_=schema, seed=seed, tools=schema_tools(schema))
    with Environment(spec) as environment:
        for table in schema.tables:
            key = table.primary_key[0]
            for row in seed[table.name]:
                got = environment.step(
                    ToolCall(name=f"get_{table.name}", arguments={key: row[key]})
                )
                assert got.ok and got.output[key] == row[key]


def test_propose_rows_repairs_a_check_violation(tmp_path: Path) -> None:
    schema = with_checks("members", "status IN ('active', 'suspended')")
    gone = {
        "rows": [
            {"name": n, "status": s, "joined_on": "2024-02-03"}
            for n, s in [("Ann", "active"), ("Bo", "gone"), ("Cy", "active")]
        ]
    }
    asked = ask(
        first_then_library("members_rows", gone),
        tmp_path,
        lambda llm: propose_rows(llm, brief(), schema, schema_tools(schema)),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert "gone" not in {r["status"] for r in outcome.value["members"]}
    assert asked.llm.ledger.stage("rows").repairs == 1
    repairs = [b for b in asked.requests if len(b["messages"]) > 2]
    assert len(repairs) == 1 and stage_of(repairs[0]) == "members_rows"
    feedback = last_user(repairs[0])
    assert "seed members[1]" in feedback and "CHECK" in feedback.upper()  # table and row
