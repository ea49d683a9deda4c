"""Identifiers safe to splice into SQL, with messages that name the bad one."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from toolscale.names import RESERVED, check_identifier
from toolscale.schema import Schema
from toolscale.tool import Tool


@pytest.mark.parametrize(
    "name, message",
    [("Accounts", "lower snake_case"), ("select", "SQL keyword"), ("1st", "lower snake_case")],
)
def test_identifiers_are_safe(name: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Schema.model_validate(
            {
                "tables": [
                    {
                        "name": name,
                        "columns": [{"name": "id", "type": "integer"}],
                        "primary_key": ["id"],
                    }
                ]
            }
        )


@pytest.mark.parametrize("name", ["a", "loan_id", "t2", "x" * 63])
def test_a_good_identifier_comes_back_as_given(name: str) -> None:
    assert check_identifier(name, "column") == name


@pytest.mark.parametrize("name", ["x" * 64, "loan-id", "_hidden", "loan id", "", "café"])
def test_a_bad_identifier_names_what_it_is_and_the_rule(name: str) -> None:
    with pytest.raises(ValueError) as caught:
        check_identifier(name, "column")
    assert str(caught.value) == (
        f"column {name!r} must be lower snake_case: [a-z][a-z0-9_]*, at most 63 chars"
    )


def test_keywords_are_refused_only_where_they_appear_in_sql() -> None:
    with pytest.raises(ValueError) as caught:
        check_identifier("order", "table")
    assert str(caught.value) == "table 'order' is an SQL keyword; pick another name"
    assert check_identifier("order", "tool", in_sql=False) == "order"
    assert "select" in RESERVED and "current_timestamp" in RESERVED


def test_tool_names_may_be_keywords_but_their_parameters_may_not() -> None:
    assert Tool(name="select", description="d", kind="read", returns="SELECT 1").name == "select"
    with pytest.raises(ValidationError, match="parameter 'limit' is an SQL keyword"):
        Tool(
            name="search",
            description="d",
            kind="read",
            parameters={"type": "object", "properties": {"limit": {"type": "integer"}}},
            returns="SELECT 1",
        )


def test_a_trailing_newline_is_not_part_of_an_identifier() -> None:
    with pytest.raises(ValueError, match="lower snake_case"):
        check_identifier("loans\n", "table")
