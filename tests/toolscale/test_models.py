"""The data model: lossless JSON round trips, OpenAI schemas, and clear errors on bad input."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from tests.conftest import mini_task
from toolscale.llm.ledger import Ledger, Usage
from toolscale.report import Rejection, StageReport, StageStats, stage_entry
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import Tool


def test_environment_round_trips_losslessly(mini_spec: EnvironmentSpec) -> None:
    text = mini_spec.model_dump_json()
    assert '"schema"' in text  # published under its public name, not the Python alias
    again = EnvironmentSpec.model_validate_json(text)
    assert again == mini_spec
    assert again.model_dump_json() == text


def test_task_round_trips_losslessly() -> None:
    task = mini_task(
        preferences={"cost": 0.7, "accuracy": 0.3, "avoid_tools": ["get_account"]},
        known_facts=["My account is A1."],
        provenance={"source": "llm", "model": "qwen", "seed": 3, "prompt": "p"},
    )
    again = Task.model_validate_json(task.model_dump_json())
    assert again == task
    assert again.preferences is not None
    assert again.preferences.weights() == pytest.approx((0.3, 0.7, 0.0))


def test_tool_exports_openai_function_schema(mini_spec: EnvironmentSpec) -> None:
    schema = mini_spec.tool("withdraw").openai_schema()
    assert schema["type"] == "function"
    fn = schema["function"]
    assert fn["name"] == "withdraw"
    assert fn["parameters"]["required"] == ["account_id", "amount"]
    assert fn["parameters"]["additionalProperties"] is False
    assert len(mini_spec.openai_tools()) == len(mini_spec.tools)


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


def test_task_reference_out_of_range_is_refused() -> None:
    with pytest.raises(ValidationError, match="communicate\\[0\\] refers to gold call 3"):
        mini_task(communicate=[{"call": 3, "path": "balance"}])


def test_environment_refuses_seed_for_unknown_table(mini_dict: dict) -> None:
    mini_dict["seed"]["ghosts"] = [{"id": 1}]
    with pytest.raises(ValidationError, match="unknown table 'ghosts'"):
        EnvironmentSpec.model_validate(mini_dict)


def test_report_counts_by_stage_and_reason() -> None:
    report = StageReport()
    report.record("replay", 0.001, None)
    report.record("replay", 0.002, Rejection(stage="replay", reason="gold_call_failed", detail=""))
    stage = report.stage("replay")
    assert (stage.seen, stage.passed, stage.rejected) == (2, 1, {"gold_call_failed": 1})
    assert StageReport.model_validate_json(report.model_dump_json()) == report


def test_stage_entry_is_the_one_get_or_create() -> None:
    rows: dict[str, StageStats] = {}
    schema = stage_entry(rows, "schema", StageStats)
    schema.seen, schema.passed = 3, 1
    schema.reject("ddl_rejected", 2)
    assert stage_entry(rows, "schema", StageStats) is schema
    stage_entry(rows, "rows", StageStats)
    assert list(rows) == ["schema", "rows"]  # the order stages first ran
    assert (schema.n_rejected, schema.yield_) == (2, 1 / 3)
    assert stage_entry(rows, "rows", StageStats).yield_ is None
    ledger = Ledger()
    assert ledger.stage("tools") is ledger.stages["tools"] == Usage(stage="tools")
    report = StageReport()
    assert report.stage("replay") is report.stages["replay"]
