"""The environment document: a lossless JSON round trip and a consistent whole."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from toolscale.spec import EnvironmentSpec


def test_environment_round_trips_losslessly(mini_spec: EnvironmentSpec) -> None:
    text = mini_spec.model_dump_json()
    assert '"schema"' in text  # published under its public name, not the Python alias
    again = EnvironmentSpec.model_validate_json(text)
    assert again == mini_spec
    assert again.model_dump_json() == text


def test_environment_refuses_seed_for_unknown_table(mini_dict: dict) -> None:
    mini_dict["seed"]["ghosts"] = [{"id": 1}]
    with pytest.raises(ValidationError, match="unknown table 'ghosts'"):
        EnvironmentSpec.model_validate(mini_dict)


def test_tool_names_are_unique(mini_dict: dict) -> None:
    mini_dict["tools"].append(dict(mini_dict["tools"][0]))
    with pytest.raises(ValidationError, match=r"duplicate tool names \['get_account'\]"):
        EnvironmentSpec.model_validate(mini_dict)


def test_an_environment_has_a_tool_and_no_unknown_field(mini_dict: dict) -> None:
    with pytest.raises(ValidationError, match="tools"):
        EnvironmentSpec.model_validate({**mini_dict, "tools": []})
    with pytest.raises(ValidationError, match="colour"):
        EnvironmentSpec.model_validate({**mini_dict, "colour": "red"})


def test_the_schema_is_read_by_its_public_name_and_its_python_name(mini_dict: dict) -> None:
    by_alias = EnvironmentSpec.model_validate(mini_dict)
    schema = mini_dict.pop("schema")
    assert EnvironmentSpec.model_validate({**mini_dict, "schema_": schema}) == by_alias


def test_tools_by_name(mini_spec: EnvironmentSpec) -> None:
    assert mini_spec.tool("withdraw").kind == "write"
    assert list(mini_spec.tool_map()) == [t.name for t in mini_spec.tools]
    with pytest.raises(KeyError):
        mini_spec.tool("teleport")
    assert [t["function"]["name"] for t in mini_spec.openai_tools()] == list(mini_spec.tool_map())


def test_seed_rows_are_tuples_in_column_order_with_nulls_for_missing(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][1].pop("opened")
    spec = EnvironmentSpec.model_validate(mini_dict)
    assert spec.seed_rows("accounts") == [
        ("A1", 1, 100.0, 0, "2024-01-02"),
        ("A2", 2, 33, 1, None),
    ]
    assert EnvironmentSpec.model_validate({**mini_dict, "seed": {}}).seed_rows("clients") == []
