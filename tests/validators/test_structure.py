"""Stage `structure`: the item parses into a Task, names real tools, and fits their schemas."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import mini_task
from tests.validators.verdicts import verdict
from toolscale.environment import Environment
from toolscale.jsonl import read_lines
from toolscale.report import Rejection
from toolscale.spec import EnvironmentSpec
from validators.structure import check, parse


def test_a_line_that_is_not_utf8_is_rejected_alone(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"id": "caf\xe9"}\n{"id": 2}\n')
    (first, raw), (second, _) = read_lines(path)
    rejection = parse(raw, first)
    assert isinstance(rejection, Rejection)
    assert (rejection.reason, rejection.source) == ("bad_json", f"{path}:1")
    assert "not UTF-8" in rejection.detail and rejection.item == '{"id": "caf\\xe9"}'
    second_rejection = parse(b'{"id": 2}', second)
    assert isinstance(second_rejection, Rejection) and second_rejection.reason == "not_a_task"


@pytest.mark.parametrize(
    "overrides, reason",
    [
        ({"gold_calls": [{"name": "teleport", "arguments": {}}]}, "unknown_tool"),
        (
            {"gold_calls": [{"name": "withdraw", "arguments": {"account_id": "A1"}}]},
            "bad_arguments",
        ),
        ({"preferences": {"avoid_tools": ["fax"]}}, "unknown_preference_tool"),
    ],
)
def test_each_reason(mini_spec: EnvironmentSpec, overrides: dict, reason: str) -> None:
    assert verdict(mini_spec, **overrides) == ("structure", reason)


def test_parse_gives_a_task_or_says_which_line_and_why() -> None:
    task = mini_task()
    assert parse(task.model_dump_json()) == task
    assert parse(task.model_dump_json().encode(), "t.jsonl:1") == task
    bad = parse('{"id": "x",', "t.jsonl:2")
    assert isinstance(bad, Rejection)
    assert (bad.stage, bad.reason, bad.source, bad.item) == (
        "structure",
        "bad_json",
        "t.jsonl:2",
        '{"id": "x",',
    )
    assert bad.detail.startswith("not JSON: ") and "at column" in bad.detail
    wrong = parse('{"id": "x", "instruction": "hi", "gold_calls": "none"}', "t.jsonl:3")
    assert isinstance(wrong, Rejection) and wrong.reason == "not_a_task"
    assert wrong.task_id == "x" and wrong.item == {
        "id": "x",
        "instruction": "hi",
        "gold_calls": "none",
    }
    assert wrong.detail == "gold_calls: Input should be a valid list (1 error(s) in all)"
    top = parse("[1, 2]")
    assert isinstance(top, Rejection) and top.task_id is None
    assert top.detail.startswith("task: Input should be a valid dictionary")


def test_check_names_the_gold_call_or_the_tools(mini_spec: EnvironmentSpec) -> None:
    with Environment(mini_spec) as env:
        assert check(mini_task(), env) is None
        calls = [
            {"name": "get_account", "arguments": {"account_id": "A1"}},
            {"name": "withdraw", "arguments": {"account_id": "A1", "amount": -5}},
        ]
        bad = check(mini_task(gold_calls=calls, communicate=[]), env)
        assert bad is not None and bad.reason == "bad_arguments"
        assert bad.detail.startswith("gold call 1: withdraw: amount: ")
        ghost = check(mini_task(gold_calls=[calls[0], {"name": "fax"}], communicate=[]), env)
        assert ghost is not None and ghost.detail == "gold call 1 names unknown tool 'fax'"
        prefs = {"avoid_tools": ["fax", "get_account"], "prefer_tools": ["email"]}
        named = check(mini_task(preferences=prefs), env)
        assert named is not None
        assert named.detail == "preferences name unknown tools ['email', 'fax']"
