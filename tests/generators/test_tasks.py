"""The LLM strategy: calls typed per tool, gold calls that replay, failures and unstated
values sent back."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from generators.tasks import call_model, propose_llm_task, task_model
from tests.generators.library import (
    Library,
    ask,
    brief,
    last_user,
    library_tool,
    reply,
)
from toolscale.environment import Environment
from toolscale.testing.fakedomain import library, task_answer, task_ids
from toolscale.testing.fakellm import scripted
from validators.replay import resolve


def test_call_and_task_models_are_typed_per_tool() -> None:
    borrow, search = library_tool("borrow_book"), library_tool("search_books")
    schema = call_model(borrow).model_json_schema()
    name = schema["properties"]["name"]
    assert name.get("const") == "borrow_book" or name.get("enum") == ["borrow_book"]
    args = schema["$defs"]["borrow_book_args"]
    assert args["properties"]["member_id"]["type"] == "integer"
    assert sorted(args["required"]) == ["book_id", "member_id"]
    model = task_model([borrow, search])
    refs = model.model_json_schema()["properties"]["gold_calls"]["items"]["anyOf"]
    assert sorted(r["$ref"].split("/")[-1] for r in refs) == [
        "call_borrow_book",
        "call_search_books",
    ]
    good = {"instruction": "Borrow book 203 for member 101.", "gold_calls": []}
    call = {"name": "borrow_book", "arguments": {"member_id": 101, "book_id": 203}}
    parsed: Any = model.model_validate({**good, "gold_calls": [call]})
    assert parsed.gold_calls[0].arguments.book_id == 203
    for wrong in (
        {**call, "name": "lend_book"},
        {**call, "arguments": {"member_id": "Ada", "book_id": 203}},
        {**call, "arguments": {"member_id": 101}},
        {"name": "search_books", "arguments": {"author": 5}},
    ):
        with pytest.raises(ValidationError):
            model.model_validate({**good, "gold_calls": [wrong]})


def test_propose_llm_task_gives_gold_calls_that_replay(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    asked = ask(
        library,
        tmp_path,
        lambda llm: propose_llm_task(llm, brief(), env, "t-1", random.Random(3), 3),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    task = outcome.value
    member, book = task_ids(last_user(asked.requests[0]))  # rows the prompt showed
    assert member in {r["member_id"] for r in lib.seed["members"]} and member != 101
    assert [c.key() for c in task.gold_calls] == [
        f'get_books{{"book_id":{book}}}',
        f'borrow_book{{"book_id":{book},"member_id":{member}}}',
    ]
    run = env.replay(task.gold_calls)
    assert all(r.ok for r in run.results)
    assert [(r.call, r.path) for r in task.communicate] == [(1, "0.copies_left")]
    before = next(b["copies_available"] for b in lib.seed["books"] if b["book_id"] == book)
    assert isinstance(before, int)
    assert resolve(task.communicate[0], run) == before - 1
    assert task.provenance.source == "llm" and task.provenance.seed == 3
    assert task.instruction.startswith(task_answer(member, book)["instruction"])
    assert asked.llm.ledger.stage("llm").repairs == 0
    prompt = last_user(asked.requests[0])
    assert "borrow_book(member_id: integer, book_id: integer) [write]" in prompt


def seed_ids(lib: Library) -> tuple[int, int]:
    """An active member and the book with the most copies: a borrowing that succeeds."""
    member = next(r["member_id"] for r in lib.seed["members"] if r["status"] == "active")
    book = max(lib.seed["books"], key=lambda r: int(r["copies_available"] or 0))["book_id"]
    assert isinstance(member, int) and isinstance(book, int)
    return member, book


def test_propose_llm_task_repairs_a_failing_gold_call(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    member, book = seed_ids(lib)
    bad = task_answer(member, book)
    bad["gold_calls"] = [
        {"name": "borrow_book", "arguments": {"member_id": member, "book_id": 999}}
    ]
    bad["communicate"] = [{"call": 0, "field": "copies_left"}]
    asked = ask(
        scripted(reply(bad), reply(task_answer(member, book))),
        tmp_path,
        lambda llm: propose_llm_task(llm, brief(), env, "t-2", random.Random(0), 0),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert [c.arguments["book_id"] for c in outcome.value.gold_calls] == [book, book]
    assert asked.llm.ledger.stage("llm").repairs == 1
    feedback = last_user(asked.requests[1])
    assert "gold_calls[0] borrow_book" in feedback
    assert "No copy of that book is available." in feedback


def test_many_tools_get_the_loose_call_shape_and_quoted_numbers_are_coerced(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    member, book = seed_ids(lib)
    quoted = task_answer(member, book)
    quoted["gold_calls"][0]["arguments"] = {"book_id": str(book)}
    asked = ask(
        scripted(reply(quoted)),
        tmp_path,
        lambda llm: propose_llm_task(llm, brief(), env, "t-4", random.Random(0), 0),
    )
    assert len(env.spec.tools) > 6
    schema = asked.requests[0]["response_format"]["json_schema"]["schema"]
    assert "GoldCallProposal" in schema["$defs"]
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert outcome.value.gold_calls[0].arguments == {"book_id": book}


def test_propose_llm_task_asks_for_unstated_values_then_adds_them(
    tmp_path: Path, lib: Library, env: Environment
) -> None:
    member, book = seed_ids(lib)
    silent = {
        **task_answer(member, book),
        "instruction": "I would like to borrow a book, please.",
        "known_facts": [],
    }
    asked = ask(
        scripted(reply(silent)),
        tmp_path,
        lambda llm: propose_llm_task(llm, brief(), env, "t-3", random.Random(0), 0),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert asked.llm.ledger.stage("llm").repairs == 2
    feedback = last_user(asked.requests[1])
    assert f"{book} (gold_calls[0].book_id)" in feedback
    assert f"{member} (gold_calls[1].member_id)" in feedback
    task = outcome.value
    assert task.known_facts == [f"My book id is {book}.", f"My member id is {member}."]
    assert task.provenance.facts_completed == 2
