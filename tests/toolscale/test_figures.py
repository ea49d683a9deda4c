"""The per-domain figures, on inputs small enough to count by hand."""

from __future__ import annotations

from typing import Literal

import pytest

from tests.conftest import mini_task
from toolscale.figures import environment_figures, figure_lines, task_figures
from toolscale.rules import RuleCoverage
from toolscale.spec import EnvironmentSpec
from toolscale.task import Difficulty, Task


def spec(mini_dict: dict) -> EnvironmentSpec:
    """Two tables (2 + 5 columns), 4 seed rows; a derived read, a guarded write
    (withdraw) and an unguarded one (open_account)."""
    tools = [t for t in mini_dict["tools"] if t["name"] != "close_account"]
    tools[0]["origin"] = "derived"
    return EnvironmentSpec.model_validate({**mini_dict, "tools": tools})


def rated(level: Literal["easy", "medium", "hard"], **overrides: object) -> Task:
    difficulty = Difficulty(
        n_calls=1,
        n_writes=1,
        n_distinct_tools=1,
        n_tables_changed=1,
        n_rows_changed=1,
        expected_errors=0,
        n_communicate=0,
        level=level,
    )
    return mini_task(**overrides).model_copy(update={"difficulty": difficulty})


WITHDRAW = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 30}}


def three_tasks() -> list[Task]:
    """Bigrams: 4 + 5 + 3 = 12, of which (withdraw 30), (30 from), (from a1) repeat: 9 distinct.
    Gold sequences: t1 and t2 are the same call. t3 refuses a frozen account in 3 calls."""
    return [
        rated("easy", id="t1", instruction="Withdraw 30 from A1 please", gold_calls=[WITHDRAW]),
        rated(
            "medium", id="t2", instruction="Please withdraw 30 from A1 now.", gold_calls=[WITHDRAW]
        ),
        rated(
            "hard",
            id="t3",
            instruction="Account A2 is frozen.",
            communicate=[],
            gold_calls=[
                {"name": "get_account", "arguments": {"account_id": "A2"}},
                {
                    "name": "withdraw",
                    "arguments": {"account_id": "A2", "amount": 5},
                    "expect_error": "frozen",
                },
                {"name": "open_account", "arguments": {"client_id": 2}},
            ],
        ),
    ]


def test_environment_figures_count_tables_rows_and_tools_by_origin(mini_dict: dict) -> None:
    figures = environment_figures(spec(mini_dict))
    assert (figures.tables, figures.columns, figures.seed_rows) == (2, 7, 4)
    assert figures.tools == 3
    assert figures.tools_by_origin == {"derived": 1, "pattern": 0, "sql": 2}
    assert (figures.write_tools, figures.guarded_writes) == (2, 1)


def test_task_figures_count_difficulty_calls_refusals_and_diversity() -> None:
    figures = task_figures(three_tasks())
    assert figures.tasks == 3
    assert figures.by_difficulty == {"easy": 1, "medium": 1, "hard": 1}
    assert figures.mean_calls == pytest.approx(5 / 3)
    assert figures.share_3plus_calls == pytest.approx(1 / 3)
    assert (figures.refusals, figures.share_refusals) == (1, pytest.approx(1 / 3))
    assert figures.distinct_gold == 2
    assert figures.instruction_bigrams == 12
    assert figures.instruction_diversity == pytest.approx(9 / 12)


def test_the_same_tools_on_other_records_are_one_tool_sequence() -> None:
    """Finance on d608f62: 30 distinct gold sequences, 14 of them told apart by their tools."""
    other = {"name": "withdraw", "arguments": {"account_id": "A3", "amount": 5}}
    tasks = [*three_tasks(), rated("easy", id="t4", gold_calls=[other])]
    figures = task_figures(tasks)
    assert (figures.distinct_gold, figures.distinct_shapes) == (3, 2)


def test_no_task_gives_zeros_and_an_unrated_task_is_counted_apart() -> None:
    empty = task_figures([])
    assert (empty.tasks, empty.mean_calls, empty.instruction_diversity) == (0, 0.0, 0.0)
    assert empty.by_difficulty == {"easy": 0, "medium": 0, "hard": 0}
    unrated = task_figures([mini_task()])
    assert unrated.by_difficulty == {"easy": 0, "medium": 0, "hard": 0, "unrated": 1}
    assert (unrated.refusals, unrated.distinct_gold) == (0, 1)


def test_the_figures_read_as_three_lines(mini_dict: dict) -> None:
    env, data = environment_figures(spec(mini_dict)), task_figures(three_tasks())
    lines = figure_lines(env, data)
    assert lines == [
        "environment: 2 tables, 7 columns, 4 seed rows; 3 tools (derived 1, pattern 0, sql 2), "
        "2 writes, 1 guarded",
        "dataset: 3 tasks (easy 1, medium 1, hard 1); 1.67 calls per task, 33% with 3+ calls; "
        "1 refusals (33%)",
        "variety: 2 distinct gold sequences of 2 tool sequences; instruction diversity 0.75 "
        "(distinct word bigrams / 12)",
    ]
    assert figure_lines(None, None) == []
    covered = spec(mini_dict).model_copy(
        update={
            "rules": [
                RuleCoverage(
                    rule="No overdraft.",
                    enforced_by=[{"tool": "withdraw", "step": 0, "check": "x"}],
                ),
                RuleCoverage(rule="Be kind."),
            ]
        }
    )
    figures = environment_figures(covered)
    assert (figures.rules_in_brief, figures.rules_enforced) == (2, 1)
    assert figure_lines(figures, None)[0].endswith("1 guarded; 1 of 2 rules enforced")
