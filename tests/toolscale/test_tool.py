"""Tools as declarative SQL programs: their OpenAI schema and what a tool may declare."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.conftest import write_tool
from toolscale.spec import EnvironmentSpec
from toolscale.tool import Tool, ToolCall, ToolResult, finders


def test_tool_exports_openai_function_schema(mini_spec: EnvironmentSpec) -> None:
    schema = mini_spec.tool("withdraw").openai_schema()
    assert schema["type"] == "function"
    fn = schema["function"]
    assert fn["name"] == "withdraw"
    assert fn["parameters"]["required"] == ["account_id", "amount"]
    assert fn["parameters"]["additionalProperties"] is False
    derived = mini_spec.tool("withdraw").model_copy(update={"origin": "derived"})
    assert derived.openai_schema() == schema  # where a tool came from is no part of its API
    assert len(mini_spec.openai_tools()) == len(mini_spec.tools)


def test_tool_parameters_must_be_scalar_json_schema() -> None:
    base = {"name": "t", "description": "d", "kind": "read", "returns": "SELECT 1"}
    with pytest.raises(ValidationError, match="type must be one of"):
        Tool.model_validate(
            base | {"parameters": {"type": "object", "properties": {"x": {"type": "array"}}}}
        )
    with pytest.raises(ValidationError, match="required parameter 'y'"):
        Tool.model_validate(
            base | {"parameters": {"type": "object", "properties": {}, "required": ["y"]}}
        )
    with pytest.raises(ValidationError, match="read tool but has run steps"):
        Tool.model_validate(base | {"run": ["DELETE FROM x"]})


READ = {"name": "t", "description": "d", "kind": "read", "returns": "SELECT 1"}


def params(**properties: dict[str, Any]) -> dict[str, Any]:
    return {"parameters": {"type": "object", "properties": properties}}


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"kind": "write"}, "tool 't' is a write tool without run steps"),
        ({"returns": None}, "tool 't' does nothing"),
        (
            {"parameters": {"type": "array"}},
            'parameters must be a JSON Schema with "type": "object"',
        ),
        (
            {
                "parameters": {
                    "type": "object",
                    "properties": {"x": {"type": "integer", "minimum": "0"}},
                }
            },
            "parameters are not a valid JSON Schema",
        ),
        (
            {
                "parameters": {
                    "type": "object",
                    "properties": {"x": {"type": ["string", "integer"]}},
                }
            },
            "parameter 'x': type must be one of",
        ),
        ({"price": -1}, "price"),
    ],
    ids=["write_without_run", "does_nothing", "not_object", "bad_schema", "two_types", "price"],
)
def test_what_a_tool_may_not_declare(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        Tool.model_validate(READ | changes)


def test_parameter_types_and_defaults() -> None:
    tool = Tool.model_validate(
        READ
        | {
            "parameters": {
                "type": "object",
                "properties": {
                    "q": {"type": "string"},
                    "top": {"type": ["integer", "null"], "default": 10},
                    "exact": {"type": "boolean"},
                    "min_price": {"type": "number"},
                },
                "required": ["q"],
            }
        }
    )
    assert tool.param_types() == {
        "q": "string",
        "top": "integer",
        "exact": "boolean",
        "min_price": "number",
    }
    assert tool.param_defaults() == {"q": None, "top": 10, "exact": None, "min_price": None}


def test_statements_are_labelled_in_execution_order(mini_spec: EnvironmentSpec) -> None:
    withdraw = mini_spec.tool("withdraw")
    assert [label for label, _ in withdraw.statements()] == ["require[0]", "run[0]", "returns"]
    assert withdraw.statements()[1][1].startswith("UPDATE accounts")
    assert [label for label, _ in mini_spec.tool("close_account").statements()] == [
        "require[0]",
        "run[0]",
    ]


def test_the_openai_schema_leaves_the_tool_as_it_was(mini_spec: EnvironmentSpec) -> None:
    tool = mini_spec.tool("get_account")
    before = dict(tool.parameters)
    assert tool.openai_schema()["function"]["description"] == tool.description
    assert tool.parameters == before and "additionalProperties" not in tool.parameters


def test_a_call_key_is_canonical() -> None:
    a = ToolCall(name="withdraw", arguments={"amount": 30, "account_id": "A1"})
    b = ToolCall(name="withdraw", arguments={"account_id": "A1", "amount": 30})
    assert a.key() == b.key() == 'withdraw{"account_id":"A1","amount":30}'
    assert ToolCall(name="list_all").key() == "list_all{}"


def test_a_result_is_what_the_agent_reads() -> None:
    assert ToolResult(ok=True, output={"name": "Zoë", "n": 2}).content() == '{"name":"Zoë","n":2}'
    assert ToolResult(ok=True, output=None).content() == "null"
    failed = ToolResult(ok=False, error="account is frozen", code="policy")
    assert failed.content() == '{"error": "account is frozen"}'


def test_what_a_tool_writes_and_reads_is_read_from_its_parsed_sql() -> None:
    """The tables and columns a tool touches come from sqlglot's tree, not from patterns
    over the text: a statement that moves two columns at once, an INSERT of a SELECT and a
    lowercase `update` are each read whole."""
    from toolscale.tool import reads_from

    pay = Tool(
        name="pay_bill",
        description="d",
        kind="write",
        parameters={
            "type": "object",
            "properties": {"account_id": {"type": "integer"}, "amount": {"type": "number"}},
        },
        run=[
            "update accounts SET balance = round(balance - :amount, 2), "
            "spent = spent + :amount, status = 'open' WHERE account_id = :account_id",
            "INSERT INTO ledger (account_id, amount) SELECT account_id, :amount FROM accounts "
            "WHERE account_id = :account_id",
        ],
        returns="SELECT a.balance, l.amount FROM accounts a JOIN ledger l USING (account_id)",
    )
    assert pay.inserts() == ["ledger"]
    assert pay.assigned("accounts") == ["balance", "spent", "status"]
    assert pay.assigned("ledger") == []
    assert pay.adjustments() == [("balance", "amount", "-"), ("spent", "amount", "+")]
    assert reads_from(pay) == "accounts"
    assert pay.returned_table() is None  # two tables: no one row's
    one = pay.model_copy(update={"returns": "SELECT * FROM ledger WHERE amount = :amount"})
    assert one.returned_table() == "ledger"


def test_a_state_move_is_read_from_the_update_whatever_its_layout() -> None:
    """`refused_as_is` reads which state a write moves a row to; a regular expression over
    one line missed an UPDATE written over two and one keyed by two columns."""
    freeze = write_tool(
        "freeze_card",
        "UPDATE cards\n  SET status = 'frozen', frozen_reason = :reason\n WHERE card_id = :card_id",
        reason="string",
        card_id="integer",
    )
    assert freeze.state_moves() == [("cards", "status", "frozen", "card_id", "card_id")]
    note = write_tool(
        "note_card", "UPDATE cards SET note = :note WHERE card_id = :c", note="string", c="integer"
    )
    assert note.state_moves() == []  # no status set
    both = write_tool(
        "freeze_pair",
        "UPDATE cards SET status = 'frozen' WHERE card_id = :c AND owner = :o",
        c="integer",
        o="integer",
    )
    assert both.state_moves() == []  # not one row by one key


def test_the_tools_that_find_the_user_are_those_that_find_a_record_by_email() -> None:
    """Weather's `find_forecaster` takes an email and is not named for it: its policy had
    forecasters identified with `find_subscription_by_email` alone (706f9af)."""

    def find(name: str, table: str, column: str) -> Tool:
        sql = f"SELECT * FROM {table} WHERE lower({column}) = lower(:{column})"
        parameters = {"type": "object", "properties": {column: {"type": "string"}}}
        return Tool.model_validate(
            {"name": name, "description": "Find one.", "kind": "read",
             "parameters": parameters | {"required": [column]}, "returns": sql}
        )  # fmt: skip

    forecaster = find("find_forecaster", "forecasters", "email")
    subscription = find("find_subscription_by_email", "subscriptions", "email")
    region = find("find_region", "regions", "name")
    tools = [forecaster, subscription, region]
    assert [t.name for t in finders(tools)] == ["find_forecaster", "find_subscription_by_email"]
    # with no email to find anyone by, every find is one
    assert finders([region]) == [region]
