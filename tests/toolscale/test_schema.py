"""The schema: typed tables whose errors name the table and the column."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from toolscale.schema import ForeignKey, Schema
from toolscale.spec import EnvironmentSpec


def test_schema_errors_name_the_table_and_column() -> None:
    table: dict[str, Any] = {
        "name": "loans",
        "columns": [{"name": "id", "type": "integer"}],
        "primary_key": ["id"],
        "foreign_keys": [{"columns": ["client_id"], "ref_table": "clients", "ref_columns": ["id"]}],
    }
    with pytest.raises(ValidationError, match=r"loans.*client_id"):
        Schema.model_validate({"tables": [table]})
    table["columns"].append({"name": "client_id", "type": "integer"})
    with pytest.raises(ValidationError, match="unknown table 'clients'"):
        Schema.model_validate({"tables": [table]})


def table(name: str, *columns: str, **extra: Any) -> dict[str, Any]:
    """A table of integer columns keyed by the first."""
    cols = [{"name": c, "type": "integer"} for c in columns]
    return {"name": name, "columns": cols, "primary_key": [columns[0]], **extra}


def fk(column: str, ref_table: str, ref_column: str) -> dict[str, Any]:
    return {"columns": [column], "ref_table": ref_table, "ref_columns": [ref_column]}


@pytest.mark.parametrize(
    "tables, message",
    [
        ([table("t", "id", "id")], r"table 't': duplicate columns \['id'\]"),
        ([table("t", "id", primary_key=["key"])], "primary key column 'key' does not exist"),
        ([table("t", "id", primary_key=["id", "id"])], "primary key repeats a column"),
        ([table("t", "id"), table("t", "id")], "duplicate table 't'"),
        (
            [
                table("a", "id", "b_id"),
                table("b", "id", "code", foreign_keys=[fk("b_id", "a", "x")]),
            ],
            "foreign key column 'b_id' does not exist",
        ),
        (
            [table("a", "id"), table("b", "id", "a_id", foreign_keys=[fk("a_id", "a", "a_id")])],
            r"must reference the primary key \['id'\] of 'a'",
        ),
        (
            [
                table("a", "id"),
                {
                    "name": "b",
                    "columns": [
                        {"name": "id", "type": "integer"},
                        {"name": "a_id", "type": "text"},
                    ],
                    "primary_key": ["id"],
                    "foreign_keys": [fk("a_id", "a", "id")],
                },
            ],
            "foreign key column 'a_id' is text but a.id is integer",
        ),
    ],
    ids=[
        "duplicate_column",
        "unknown_key",
        "repeated_key",
        "duplicate_table",
        "unknown_fk_column",
        "fk_not_to_key",
        "fk_type",
    ],
)
def test_each_schema_problem_is_named(tables: list[dict[str, Any]], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Schema.model_validate({"tables": tables})


def test_a_foreign_key_pairs_its_columns() -> None:
    with pytest.raises(ValidationError, match="column counts differ"):
        ForeignKey(columns=["a", "b"], ref_table="t", ref_columns=["id"])


def test_referenced_tables_are_inserted_first() -> None:
    schema = Schema.model_validate(
        {
            "tables": [
                table("loans", "id", "book_id", foreign_keys=[fk("book_id", "books", "id")]),
                table("books", "id", "shelf_id", foreign_keys=[fk("shelf_id", "shelves", "id")]),
                table(
                    "shelves", "id", "parent_id", foreign_keys=[fk("parent_id", "shelves", "id")]
                ),
            ]
        }
    )
    assert schema.table_names == ["loans", "books", "shelves"]
    assert [t.name for t in schema.insertion_order()] == ["shelves", "books", "loans"]


def test_a_reference_cycle_is_refused_naming_it() -> None:
    """DuckDB creates a table only after the tables it references: basketball's 1.5B schema
    had players.contract_id beside contracts.player_id, and the DDL raised a raw error."""
    with pytest.raises(ValidationError, match=r"cycle \(a\.b_id -> b, b\.a_id -> a\)"):
        Schema.model_validate(
            {
                "tables": [
                    table("a", "id", "b_id", foreign_keys=[fk("b_id", "b", "id")]),
                    table("b", "id", "a_id", foreign_keys=[fk("a_id", "a", "id")]),
                ]
            }
        )
    self_reference = table("a", "id", "parent_id", foreign_keys=[fk("parent_id", "a", "id")])
    assert Schema.model_validate({"tables": [self_reference]}).table_names == ["a"]


def test_lookups_name_what_is_missing(mini_spec: EnvironmentSpec) -> None:
    schema = mini_spec.schema_
    assert schema.table("accounts").column("balance").type == "real"
    assert schema.table("accounts").column_names == [
        "id",
        "client_id",
        "balance",
        "frozen",
        "opened",
    ]
    with pytest.raises(KeyError, match="schema has no table 'loans'"):
        schema.table("loans")
    with pytest.raises(KeyError, match="table 'accounts' has no column 'pin'"):
        schema.table("accounts").column("pin")
