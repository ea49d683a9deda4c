"""Tools derived from the schema (lookups, listings, status changes), no model involved."""

from __future__ import annotations

from generators.toolkit import schema_tools
from tests.generators.library import (
    Library,
)
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.tool import ToolCall


def test_schema_tools_look_up_and_list_rows_of_the_seed(lib: Library) -> None:
    tools = schema_tools(lib.schema)
    assert {t.name for t in tools} == {
        "get_members",
        "get_books",
        "get_loans",
        "list_loans_by_member_id",
        "list_loans_by_book_id",
    }
    assert all(t.kind == "read" and t.origin == "derived" for t in tools)
    loan = lib.seed["loans"][0]
    spec = EnvironmentSpec(name="library", schema_=lib.schema, seed=lib.seed, tools=tools)
    with Environment(spec) as environment:
        for tool in tools:
            (param,) = tool.parameters["required"]
            result = environment.step(ToolCall(name=tool.name, arguments={param: loan[param]}))
            assert result.ok, result.error
            rows = result.output if isinstance(result.output, list) else [result.output]
            assert rows and all(r[param] == loan[param] for r in rows)
        missing = environment.step(ToolCall(name="get_books", arguments={"book_id": 999}))
        assert not missing.ok and missing.error == "No books row with that book_id."


def test_status_tools_change_a_row_and_refuse_a_no_op(lib: Library) -> None:
    from generators.toolkit import status_tools

    seed = {
        "members": [
            {"member_id": 101, "status": "active"},
            {"member_id": 102, "status": "suspended"},
        ]
    }
    tools = status_tools(lib.schema, seed)
    assert [t.name for t in tools] == ["set_members_status"]
    tool = tools[0]
    assert tool.origin == "derived"
    assert tool.parameters["properties"]["status"]["enum"] == ["active", "suspended"]
    assert status_tools(lib.schema, {"members": [{"member_id": 101, "status": "active"}]}) == []
    members = [dict(r) for r in lib.seed["members"]]
    members[0]["status"], members[1]["status"] = "active", "suspended"
    spec = EnvironmentSpec(
        name="library", schema_=lib.schema, seed={**lib.seed, "members": members}, tools=[tool]
    )
    first = members[0]["member_id"]
    with Environment(spec) as env:
        done = env.step(
            ToolCall(name=tool.name, arguments={"member_id": first, "status": "suspended"})
        )
        assert done.ok and done.output == {"member_id": first, "status": "suspended"}
        again = env.step(
            ToolCall(name=tool.name, arguments={"member_id": first, "status": "suspended"})
        )
        assert not again.ok and "already" in (again.error or "")
