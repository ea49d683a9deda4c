"""The checks fed back to the model: DDL of a proposed schema, tool SQL, INSERTs that
miss columns."""

from __future__ import annotations

from generators.realise import ddl_problems, tool_sql_problems
from generators.tools import (
    ToolProposal,
    to_tool,
)
from tests.generators.library import (
    library_schema,
    library_tool,
    planned,
    with_checks,
)
from toolscale.schema import Schema
from toolscale.testing.fakedomain import TOOLS
from toolscale.tool import Tool


def with_check(check: str) -> Schema:
    return with_checks("books", check)


def test_ddl_problems_accepts_the_library_and_rejects_unsafe_or_unknown_checks() -> None:
    assert ddl_problems(library_schema()) == []
    assert ddl_problems(with_check("copies_available >= 0 AND length(title) > 0")) == []
    readfile = ddl_problems(with_check("readfile('/etc/passwd') IS NULL"))
    assert len(readfile) == 1
    assert "readfile()" in readfile[0] and "'books'" in readfile[0]
    unknown = ddl_problems(with_check("shelf_count > 0"))
    assert len(unknown) == 1
    assert "unknown column 'shelf_count'" in unknown[0] and "'books'" in unknown[0]
    query = ddl_problems(with_check("(SELECT 1) = 1"))
    assert any("query" in p for p in query)


def test_ddl_problems_accepts_a_modulo_check() -> None:
    assert ddl_problems(with_check("copies_available % 2 = 0")) == []


def test_tool_sql_problems_flags_unknown_columns_and_passes_good_sql() -> None:
    schema = library_schema()
    broken = to_tool(planned("broken_tool"), ToolProposal.model_validate(TOOLS["broken_tool"]))
    problems = tool_sql_problems(broken, schema)
    assert len(problems) == 1
    assert "nonexistent" in problems[0] and "[sql_unknown_column]" in problems[0]
    assert tool_sql_problems(library_tool("borrow_book"), schema) == []


def test_insert_problems_name_the_missing_columns_and_the_key_hint() -> None:
    from generators.realise import insert_problems

    schema = library_schema()
    bad = Tool(
        name="lend",
        description="lend a book",
        kind="write",
        parameters={
            "type": "object",
            "properties": {"member_id": {"type": "integer"}, "book_id": {"type": "integer"}},
            "required": ["member_id", "book_id"],
        },
        run=["INSERT INTO loans (member_id, book_id) VALUES (:member_id, :book_id)"],
    )
    problems = insert_problems(bad, schema)
    assert len(problems) == 1
    assert "loan_id" in problems[0] and ":_new_id" in problems[0]
    assert "due_on" in problems[0] and "returned" in problems[0]
    assert insert_problems(library_tool("borrow_book"), schema) == []
