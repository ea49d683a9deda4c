"""The generators against the fake endpoint and the scripted library domain: each stage's
checks, what goes back to the model when they fail, and that what comes out really runs
(rows load, tools execute, walks replay, tasks verify, gold trajectories evaluate)."""

from __future__ import annotations

import asyncio
import copy
import datetime as dt
import json
import random
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import jinja2
import pytest
import yaml
from pydantic import ValidationError

import generators
from generators.arguments import ArgumentSampler, parameter_columns
from generators.evolution import evolve_task
from generators.policy import propose_policy
from generators.preferences import COST, LATENCY, sample_preference, with_preference
from generators.prompting import render
from generators.realise import ddl_problems, tool_sql_problems
from generators.rows import key_base, propose_rows, row_model, with_keys
from generators.sampling import Chain, walk
from generators.schema import SchemaProposal, propose_schema, to_schema
from generators.tasks import call_model, propose_llm_task, task_model
from generators.toolkit import schema_tools
from generators.tools import (
    PlannedTool,
    ToolProposal,
    price_and_latency,
    priced,
    propose_tools,
    smoke_problems,
    to_tool,
)
from generators.verbalize import verbalize
from tests.conftest import expected_of
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import Invalid, LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.matching import mentions, scalars
from toolscale.schema import Scalar, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.testing.fakedomain import BRIEF, PLAN, SCHEMA, TOOLS, library, task_answer
from toolscale.testing.fakellm import FakeLLM, Reply, Responder, scripted
from toolscale.tool import Tool, ToolCall, ToolResult
from validators.pipeline import Verifier
from validators.replay import resolve

R = TypeVar("R")

PROMPTS = Path(generators.__file__).parent / "prompts"
GOOD_TOOLS = ("borrow_book", "search_books", "suspend_member")


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy from the environment would swallow requests meant for the local fake."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(var, raising=False)


# ----------------------------------------------------------------------------- helpers


@dataclass
class Asked:
    """What one conversation with the fake endpoint gave: the result, the client (for its
    ledger) and every request the server received."""

    value: Any
    llm: LLMClient
    requests: list[dict[str, Any]]


def ask(responder: Responder, cache: Path, body: Callable[[LLMClient], Awaitable[R]]) -> Asked:
    """Runs `body` with a fresh client on a fresh fake server, in its own event loop."""
    with FakeLLM(responder) as fake:
        config = LLMConfig(
            base_url=fake.base_url,
            model="fake",
            concurrency=2,
            timeout_s=5,
            backoff_s=0,
            max_backoff_s=0.01,
        )
        llm = LLMClient(config, ResponseCache(cache))

        async def main() -> R:
            try:
                return await body(llm)
            finally:
                await llm.close()

        value = asyncio.run(main())
        return Asked(value, llm, fake.requests)


def reply(answer: Any) -> Reply:
    return Reply(content=json.dumps(answer))


def stage_of(body: dict[str, Any]) -> str:
    return body.get("response_format", {}).get("json_schema", {}).get("name", "")


def first_then_library(stage: str, *answers: Any) -> Responder:
    """`answers` for the first requests of one stage (by response schema name), the
    library model for everything else."""
    left = list(answers)

    def respond(body: dict[str, Any]) -> Reply:
        if stage_of(body) == stage and left:
            return reply(left.pop(0))
        return library(body)

    return respond


def last_user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in reversed(body["messages"]) if m["role"] == "user")


def brief() -> Brief:
    return Brief.model_validate(yaml.safe_load(BRIEF))


def library_schema() -> Schema:
    return to_schema(SchemaProposal.model_validate(SCHEMA))


def planned(name: str) -> PlannedTool:
    return next(PlannedTool.model_validate(p) for p in PLAN["tools"] if p["name"] == name)


def library_tool(name: str) -> Tool:
    return priced(to_tool(planned(name), ToolProposal.model_validate(TOOLS[name])))


def proposal(**changes: Any) -> dict[str, Any]:
    """The library schema proposal, each table named in `changes` given those columns."""
    data = copy.deepcopy(SCHEMA)
    for table in data["tables"]:
        if table["name"] in changes:
            table["columns"] = changes[table["name"]]
    return data


@dataclass
class Library:
    schema: Schema
    seed: dict[str, list[dict[str, Scalar]]]
    core: list[Tool]
    spec: EnvironmentSpec  # core + the three good LLM tools, with a policy


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Library:
    """The library environment assembled the way the flow does: schema, rows from the
    scripted model, schema tools plus the model's tools (priced), a policy."""
    schema = library_schema()
    core = [priced(t) for t in schema_tools(schema)]
    cache = tmp_path_factory.mktemp("lib-cache")
    rows = ask(library, cache, lambda llm: propose_rows(llm, brief(), schema, core)).value
    assert rows.ok, rows.rejection
    tools = core + [library_tool(n) for n in GOOD_TOOLS]
    policy = ask(library, cache, lambda llm: propose_policy(llm, brief(), tools)).value
    assert policy.ok, policy.rejection
    spec = EnvironmentSpec(
        name="library", schema_=schema, seed=rows.value, tools=tools, policy=policy.value
    )
    return Library(schema, rows.value, core, spec)


@pytest.fixture(scope="module")
def env(lib: Library) -> Iterator[Environment]:
    with Environment(lib.spec) as environment:
        yield environment


@pytest.fixture(scope="module")
def verified(lib: Library, env: Environment, tmp_path_factory: pytest.TempPathFactory) -> Task:
    """The library model's LLM task, through every validator."""
    cache = tmp_path_factory.mktemp("task-cache")
    out = ask(
        library,
        cache,
        lambda llm: propose_llm_task(llm, brief(), env, "library-llm-0", random.Random(0), 0),
    ).value
    assert out.ok, out.rejection
    with Verifier(lib.spec) as verifier:
        result = verifier.verify(out.value)
    assert result.value is not None, result.rejection
    return result.value


# ----------------------------------------------------------------------------- schema


def test_to_schema_keys_and_foreign_keys() -> None:
    schema = library_schema()
    assert schema.table_names == ["members", "books", "loans"]
    assert [t.primary_key for t in schema.tables] == [["member_id"], ["book_id"], ["loan_id"]]
    loans = schema.table("loans")
    assert [(fk.columns, fk.ref_table, fk.ref_columns) for fk in loans.foreign_keys] == [
        (["member_id"], "members", ["member_id"]),
        (["book_id"], "books", ["book_id"]),
    ]
    assert schema.table("members").foreign_keys == []
    assert schema.table("books").foreign_keys == []
    assert [c.type for c in loans.columns] == ["integer", "integer", "integer", "date", "boolean"]
    assert [t.name for t in schema.insertion_order()][-1] == "loans"


MEMBERS = [{"name": "member_id", "type": "integer"}, {"name": "name", "type": "text"}]


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        (
            {"members": [{"name": "code", "type": "text"}, {"name": "name", "type": "text"}]},
            ["'members'", "'code'", "integer key"],
        ),
        (
            {"members": [{"name": "member_no", "type": "integer"}, *MEMBERS[1:]]},
            ["'members'", "'member_no'", "_id"],
        ),
        (
            {
                "loans": [
                    {"name": "loan_id", "type": "integer"},
                    {"name": "member_id", "type": "text"},
                    {"name": "book_id", "type": "integer"},
                ]
            },
            ["loans.member_id", "reference must be an integer"],
        ),
        (
            {"books": [{"name": "member_id", "type": "integer"}, {"name": "t", "type": "text"}]},
            ["'members'", "'books'", "'member_id'", "own key"],
        ),
        (
            {"loans": [{"name": "loan_id", "type": "integer"}, {"name": "due", "type": "date"}]},
            ["no table points to another"],
        ),
    ],
    ids=["text_key", "key_not_named_id", "text_reference", "shared_key", "no_reference"],
)
def test_to_schema_names_each_problem(changes: dict[str, Any], named: list[str]) -> None:
    with pytest.raises(Invalid) as caught:
        to_schema(SchemaProposal.model_validate(proposal(**changes)))
    assert caught.value.reason == "bad_schema"
    text = "\n".join(caught.value.problems)
    for part in named:
        assert part in text


def test_to_schema_reports_every_problem_at_once() -> None:
    bad = proposal(
        members=[{"name": "code", "type": "text"}, {"name": "name", "type": "text"}],
        loans=[
            {"name": "loan_id", "type": "integer"},
            {"name": "book_id", "type": "real"},
        ],
    )
    with pytest.raises(Invalid) as caught:
        to_schema(SchemaProposal.model_validate(bad))
    assert len(caught.value.problems) == 2, caught.value.problems


def with_checks(table: str, *checks: str) -> Schema:
    """The library schema with CHECK constraints on one table."""
    schema = library_schema()
    tables = [
        t.model_copy(update={"checks": list(checks)}) if t.name == table else t
        for t in schema.tables
    ]
    return Schema(tables=tables)


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


def test_propose_schema_repairs_a_text_reference(tmp_path: Path) -> None:
    bad = proposal(
        loans=[
            {"name": "loan_id", "type": "integer"},
            {"name": "member_id", "type": "text"},
            {"name": "book_id", "type": "integer"},
            {"name": "due_on", "type": "date"},
        ]
    )
    asked = ask(
        scripted(reply(bad), reply(SCHEMA)),
        tmp_path,
        lambda llm: propose_schema(llm, brief()),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert outcome.value == library_schema()
    assert outcome.attempts == 2
    assert asked.llm.ledger.stage("schema").repairs == 1
    assert len(asked.requests) == 2
    feedback = last_user(asked.requests[1])
    assert "loans.member_id: a reference must be an integer column" in feedback
    assert asked.requests[1]["messages"][-2] == {"role": "assistant", "content": json.dumps(bad)}


# ----------------------------------------------------------------------------- rows


def test_row_model_offers_parent_keys_and_leaves_the_key_out() -> None:
    loans = library_schema().table("loans")
    model = row_model(loans, {"members": [101, 102, 103], "books": [201, 202]}, n_rows=6)
    schema = model.model_json_schema()
    row = schema["$defs"][schema["properties"]["rows"]["items"]["$ref"].split("/")[-1]]
    props = row["properties"]
    assert "loan_id" not in props
    assert props["member_id"]["enum"] == [101, 102, 103]
    assert props["book_id"]["enum"] == [201, 202]
    assert props["due_on"]["format"] == "date"
    assert props["returned"]["type"] == "boolean"
    assert schema["properties"]["rows"]["maxItems"] == 6
    good = {"member_id": 101, "book_id": 201, "due_on": "2024-05-01", "returned": False}
    model.model_validate({"rows": [good, good, good]})
    with pytest.raises(ValidationError):
        model.model_validate({"rows": [good, good, {**good, "member_id": 999}]})


def test_keys_are_ours_in_a_range_per_table() -> None:
    schema = library_schema()
    assert [key_base(i) for i in range(3)] == [101, 201, 301]
    row = {"name": "A", "status": "active", "joined_on": dt.date(2024, 1, 2)}
    members = with_keys(schema.table("members"), [row] * 3, 0)
    assert [r["member_id"] for r in members] == [101, 102, 103]
    assert members[0]["joined_on"] == "2024-01-02"
    books = with_keys(schema.table("books"), [{"title": "Dune"}] * 2, 1)
    assert [r["book_id"] for r in books] == [201, 202]


def test_key_ranges_never_overlap_at_the_largest_brief() -> None:
    n = 200
    Brief.model_validate({**yaml.safe_load(BRIEF), "rows_per_table": n})  # a brief allows it
    tables = library_schema().tables
    ranges = [
        {r[t.primary_key[0]] for r in with_keys(t, [{}] * n, i)} for i, t in enumerate(tables)
    ]
    assert not ranges[0] & ranges[1]


def test_propose_rows_fills_every_table_with_rows_that_load(tmp_path: Path, lib: Library) -> None:
    schema = lib.schema
    asked = ask(library, tmp_path, lambda llm: propose_rows(llm, brief(), schema, lib.core))
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    seed = outcome.value
    assert set(seed) == {"members", "books", "loans"}
    assert all(3 <= len(rows) <= 6 for rows in seed.values())
    assert [r["member_id"] for r in seed["members"]] == list(range(101, 101 + len(seed["members"])))
    member_ids = {r["member_id"] for r in seed["members"]}
    book_ids = {r["book_id"] for r in seed["books"]}
    assert {r["member_id"] for r in seed["loans"]} <= member_ids
    assert {r["book_id"] for r in seed["loans"]} <= book_ids
    assert asked.llm.ledger.stage("rows").repairs == 0
    spec = EnvironmentSpec(name="library", schema_=schema, seed=seed, tools=schema_tools(schema))
    with Environment(spec) as environment:
        for table in schema.tables:
            key = table.primary_key[0]
            for row in seed[table.name]:
                got = environment.step(
                    ToolCall(name=f"get_{table.name}", arguments={key: row[key]})
                )
                assert got.ok and got.output[key] == row[key]


def test_propose_rows_repairs_a_check_violation(tmp_path: Path) -> None:
    schema = with_checks("members", "status IN ('active', 'suspended')")
    gone = {
        "rows": [
            {"name": n, "status": s, "joined_on": "2024-02-03"}
            for n, s in [("Ann", "active"), ("Bo", "gone"), ("Cy", "active")]
        ]
    }
    asked = ask(
        first_then_library("members_rows", gone),
        tmp_path,
        lambda llm: propose_rows(llm, brief(), schema, schema_tools(schema)),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert "gone" not in {r["status"] for r in outcome.value["members"]}
    assert asked.llm.ledger.stage("rows").repairs == 1
    repairs = [b for b in asked.requests if len(b["messages"]) > 2]
    assert len(repairs) == 1 and stage_of(repairs[0]) == "members_rows"
    feedback = last_user(repairs[0])
    assert "seed members[1]" in feedback and "CHECK" in feedback.upper()  # table and row


# ----------------------------------------------------------------------------- tools


def test_schema_tools_look_up_and_list_rows_of_the_seed(lib: Library) -> None:
    tools = schema_tools(lib.schema)
    assert {t.name for t in tools} == {
        "get_members",
        "get_books",
        "get_loans",
        "list_loans_by_member_id",
        "list_loans_by_book_id",
    }
    assert all(t.kind == "read" for t in tools)
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


def test_tool_sql_problems_flags_unknown_columns_and_passes_good_sql() -> None:
    schema = library_schema()
    broken = to_tool(planned("broken_tool"), ToolProposal.model_validate(TOOLS["broken_tool"]))
    problems = tool_sql_problems(broken, schema)
    assert len(problems) == 1
    assert "nonexistent" in problems[0] and "[sql_unknown_column]" in problems[0]
    assert tool_sql_problems(library_tool("borrow_book"), schema) == []


def test_smoke_problems_runs_tools_on_the_seed(lib: Library) -> None:
    base = lib.spec.model_copy(update={"tools": lib.core})
    assert smoke_problems(library_tool("borrow_book"), base) == []
    never = Tool(
        name="renew_loan",
        description="Renew a loan.",
        kind="write",
        parameters={
            "type": "object",
            "properties": {"loan_id": {"type": "integer"}},
            "required": ["loan_id"],
        },
        require=[{"sql": "SELECT 0", "error": "Renewals are closed this week."}],
        run=["UPDATE loans SET due_on = '2025-03-01' WHERE loan_id = :loan_id"],
    )
    problems = smoke_problems(never, base, tries=4)
    assert problems[0].startswith("it never succeeded in 4 calls")
    assert any("Renewals are closed this week." in p for p in problems[1:])
    idle = never.model_copy(
        update={"require": [], "run": ["UPDATE loans SET due_on = due_on WHERE loan_id = -1"]}
    )
    assert any("changed no row" in p for p in smoke_problems(idle, base, tries=3))


def test_price_and_latency_are_deterministic_and_writes_cost_more() -> None:
    borrow = library_tool("borrow_book")
    assert price_and_latency(borrow) == price_and_latency(borrow.model_copy())
    assert (borrow.price, borrow.latency_ms) == price_and_latency(borrow)
    for name in ("renew", "lookup", "pay_fine", "x"):
        read = Tool(name=name, description="d", kind="read", returns="SELECT 1", require=[])
        write = Tool(name=name, description="d", kind="write", run=["DELETE FROM loans"])
        assert len(read.statements()) == len(write.statements())
        (rp, rl), (wp, wl) = price_and_latency(read), price_and_latency(write)
        assert wp > rp and wl > rl
    longer = borrow.model_copy(update={"run": [*borrow.run, borrow.run[-1]]})
    assert price_and_latency(longer)[0] > price_and_latency(borrow)[0]


def test_propose_tools_samples_the_plan_again_when_it_keeps_failing(
    tmp_path: Path, lib: Library
) -> None:
    from toolscale.testing.fakellm import faulty

    base = lib.spec.model_copy(update={"tools": lib.core, "policy": ""})
    looping = Reply(content='{"tools": [{"name": "a", "description": "aaaa', finish_reason="length")
    responder = faulty(library, dict.fromkeys(range(3), looping))  # the first sample, repaired
    asked = ask(responder, tmp_path, lambda llm: propose_tools(llm, brief(), base))
    kept, _ = asked.value
    assert sorted(t.name for t in kept) == sorted(GOOD_TOOLS)
    plan_seeds = [
        r["seed"] for r in asked.requests if "ToolPlan" in json.dumps(r.get("response_format"))
    ]
    assert plan_seeds == [0, 0, 0, 1]  # three tries of sample 0, then sample 1 succeeds
    assert asked.llm.ledger.stage("tool_plan").failures == {"truncated": 1}


def test_propose_tools_keeps_the_good_and_says_why_the_broken_was_dropped(
    tmp_path: Path, lib: Library
) -> None:
    base = lib.spec.model_copy(update={"tools": lib.core, "policy": ""})
    asked = ask(library, tmp_path, lambda llm: propose_tools(llm, brief(), base))
    kept, dropped = asked.value
    assert sorted(t.name for t in kept) == sorted(GOOD_TOOLS)
    assert all(t.price > 0 and t.latency_ms > 0 for t in kept)
    assert kept == [library_tool(t.name) for t in kept]
    assert len(dropped) == 1
    assert dropped[0].reason == "sql_rejected"
    assert dropped[0].detail.startswith("tool 'broken_tool': after 4 attempt(s)")
    assert asked.llm.ledger.stage("tools").repairs == 3
    assert asked.llm.ledger.stage("tools").failures == {"sql_rejected": 1}
    plan = [b for b in asked.requests if stage_of(b) == "ToolPlan"]
    assert len(plan) == 1 and "get_members" in last_user(plan[0])


# ----------------------------------------------------------------------------- arguments


def test_parameter_columns_of_borrow_book(lib: Library) -> None:
    assert parameter_columns(library_tool("borrow_book"), lib.spec) == {
        "member_id": ("members", "member_id"),
        "book_id": ("books", "book_id"),
    }
    assert parameter_columns(library_tool("search_books"), lib.spec) == {
        "author": ("books", "author")
    }


FIND_LOAN = Tool(
    name="find_loan",
    description="The loan of a book to a member.",
    kind="read",
    parameters={
        "type": "object",
        "properties": {"member_id": {"type": "integer"}, "book_id": {"type": "integer"}},
        "required": ["member_id", "book_id"],
    },
    returns="SELECT l.loan_id, l.due_on FROM loans AS l "
    "WHERE l.member_id = :member_id AND l.book_id = :book_id",
)


def test_sampler_draws_values_that_exist_and_belong_together(lib: Library) -> None:
    spec = lib.spec.model_copy(update={"tools": [*lib.spec.tools, FIND_LOAN]})
    sampler = ArgumentSampler(spec)
    assert sampler.columns["find_loan"] == {
        "member_id": ("loans", "member_id"),
        "book_id": ("loans", "book_id"),
    }
    pairs = {(r["member_id"], r["book_id"]) for r in lib.seed["loans"]}
    members = {r["member_id"] for r in lib.seed["members"]}
    books = {r["book_id"] for r in lib.seed["books"]}
    authors = {r["author"] for r in lib.seed["books"]}
    borrow, search = spec.tool("borrow_book"), spec.tool("search_books")
    with Environment(spec) as environment:
        for seed in range(25):
            rng = random.Random(seed)
            args = sampler.arguments(FIND_LOAN, rng)
            assert (args["member_id"], args["book_id"]) in pairs
            assert environment.step(ToolCall(name="find_loan", arguments=args)).output
            args = sampler.arguments(borrow, rng)
            assert args["member_id"] in members and args["book_id"] in books
            assert sampler.arguments(search, rng)["author"] in authors
    given = sampler.arguments(FIND_LOAN, random.Random(0), given={"member_id": 7})
    assert given["member_id"] == 7


RENEW_LOAN = Tool(
    name="renew_loan",
    description="Renew a loan until today.",
    kind="write",
    parameters={
        "type": "object",
        "properties": {"member_id": {"type": "integer"}, "loan_id": {"type": "integer"}},
        "required": ["member_id", "loan_id"],
    },
    require=[
        {
            "sql": "SELECT COUNT(*) > 0 FROM members WHERE member_id = :member_id",
            "error": "No such member.",
        },
        {
            "sql": "SELECT member_id = :member_id FROM loans WHERE loan_id = :loan_id",
            "error": "That loan is not the member's.",
        },
    ],
    run=["UPDATE loans SET due_on = substr(:_now, 1, 10) WHERE loan_id = :loan_id"],
)


def test_sampler_takes_a_parent_key_from_the_child_row_drawn(lib: Library) -> None:
    """loan_id is drawn first (loans points to two tables); the member is then that loan's
    member, though member_id is compared with members, not loans."""
    spec = lib.spec.model_copy(update={"tools": [*lib.spec.tools, RENEW_LOAN]})
    sampler = ArgumentSampler(spec)
    assert sampler.columns["renew_loan"] == {
        "member_id": ("members", "member_id"),
        "loan_id": ("loans", "loan_id"),
    }
    member_of = {r["loan_id"]: r["member_id"] for r in lib.seed["loans"]}
    for seed in range(25):
        args = sampler.arguments(RENEW_LOAN, random.Random(seed))
        assert member_of[args["loan_id"]] == args["member_id"]
    assert smoke_problems(RENEW_LOAN, lib.spec, tries=1) == []


LOAN_BY_NAME = Tool(
    name="loan_by_name",
    description="A loan, checked against the member's name.",
    kind="read",
    parameters={
        "type": "object",
        "properties": {"loan_id": {"type": "integer"}, "name": {"type": "string"}},
        "required": ["loan_id", "name"],
    },
    require=[
        {
            "sql": "SELECT m.name = :name FROM loans AS l JOIN members AS m "
            "ON m.member_id = l.member_id WHERE l.loan_id = :loan_id",
            "error": "That is not the borrower's name.",
        }
    ],
    returns="SELECT due_on FROM loans WHERE loan_id = :loan_id",
)


def test_sampler_follows_a_drawn_row_to_its_parent(lib: Library) -> None:
    """`name` is a members column the loan row does not hold: the member drawn is the one
    the loan points to, so the call passes its check."""
    spec = lib.spec.model_copy(update={"tools": [*lib.spec.tools, LOAN_BY_NAME]})
    sampler = ArgumentSampler(spec)
    assert sampler.columns["loan_by_name"] == {
        "name": ("members", "name"),
        "loan_id": ("loans", "loan_id"),
    }
    name_of = {r["member_id"]: r["name"] for r in lib.seed["members"]}
    borrower = {r["loan_id"]: name_of[r["member_id"]] for r in lib.seed["loans"]}
    assert len(set(borrower.values())) > 1
    with Environment(spec) as environment:
        for seed in range(25):
            args = sampler.arguments(LOAN_BY_NAME, random.Random(seed))
            assert borrower[args["loan_id"]] == args["name"]
            assert environment.step(ToolCall(name="loan_by_name", arguments=args)).ok


# ----------------------------------------------------------------------------- sampling


def test_walks_replay_state_their_facts_and_resolve_what_they_tell(
    lib: Library, env: Environment
) -> None:
    sampler = ArgumentSampler(lib.spec)
    writes = 0
    for seed in range(12):
        chain = walk(env, sampler, random.Random(seed))
        assert chain is not None
        assert chain.start == 0 and 1 <= len(chain.calls) <= 3
        run = env.replay(chain.calls)
        assert all(r.ok for r in run.results), [r.error for r in run.results]
        assert [r.output for r in run.results] == [r.output for r in chain.results]
        said = {v for _, v in chain.facts}
        for i, call in enumerate(chain.calls):
            earlier = {v for r in chain.results[:i] for v in scalars(r.output)}
            for name, value in call.arguments.items():
                assert value in said or value in earlier, (seed, i, name, value)
        for ref in chain.communicate:  # a telling value: not a key, not what the user said
            value = resolve(ref, run)
            assert value is not None and value not in said
            assert not ref.path.endswith("_id") and ref.path.split(".")[-1] in chain.wanted
        assert len(chain.wanted) == len(chain.communicate)
        wrote = any(lib.spec.tool(c.name).kind == "write" for c in chain.calls)
        writes += wrote
        assert wrote or chain.communicate
    assert writes > 0


def test_walk_is_the_same_for_the_same_seed(lib: Library, env: Environment) -> None:
    def chain_of(seed: int) -> tuple[Any, ...]:
        with Environment(lib.spec) as fresh:
            chain = walk(fresh, ArgumentSampler(lib.spec), random.Random(seed))
        assert chain is not None
        return (
            [c.key() for c in chain.calls],
            chain.facts,
            chain.communicate,
            chain.wanted,
        )

    assert chain_of(5) == chain_of(5)
    again = walk(env, ArgumentSampler(lib.spec), random.Random(5))
    assert again is not None and [c.key() for c in again.calls] == chain_of(5)[0]
    assert len({str(chain_of(s)) for s in range(6)}) > 1


# ----------------------------------------------------------------------------- verbalize


CHAIN = Chain(
    calls=[
        ToolCall(name="get_members", arguments={"member_id": 104}),
        ToolCall(name="borrow_book", arguments={"member_id": 104, "book_id": 203}),
    ],
    results=[ToolResult(ok=True, output={"member_id": 104}), ToolResult(ok=True, output=[])],
    facts=[("member_id", 104), ("book_id", 203)],
)
WITHOUT = reply({"instruction": "I would like to borrow a book, please.", "known_facts": []})
WITH = reply(
    {
        "instruction": "I am member 104 and I would like to borrow book 203.",
        "known_facts": ["My member id is 104"],
    }
)


def verbalized(tmp_path: Path, *replies: Reply) -> Asked:
    return ask(scripted(*replies), tmp_path, lambda llm: verbalize(llm, "library", CHAIN))


def test_verbalize_sends_missing_values_back(tmp_path: Path) -> None:
    asked = verbalized(tmp_path, WITHOUT, WITH)
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert outcome.value.completed == 0
    assert outcome.value.instruction == "I am member 104 and I would like to borrow book 203."
    assert outcome.value.known_facts == ["My member id is 104"]
    assert asked.llm.ledger.stage("verbalize").repairs == 1
    feedback = last_user(asked.requests[1])
    assert "member_id = 104" in feedback and "book_id = 203" in feedback
    prompt = last_user(asked.requests[0])
    assert "- member id: 104" in prompt and "1. get members (member id 104)" in prompt


def test_verbalize_adds_the_values_a_model_never_states(tmp_path: Path) -> None:
    asked = verbalized(tmp_path, WITHOUT)
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert outcome.attempts == 3
    assert outcome.value.completed == len(CHAIN.facts)
    assert outcome.value.known_facts == ["My member id is 104.", "My book id is 203."]
    text = "\n".join([outcome.value.instruction, *outcome.value.known_facts])
    assert all(mentions(text, v) for _, v in CHAIN.facts)


def test_verbalize_rejects_json_for_words(tmp_path: Path) -> None:
    asked = verbalized(
        tmp_path, reply({"instruction": '{"member_id": 104, "book_id": 203}', "known_facts": []})
    )
    outcome = asked.value
    assert not outcome.ok and outcome.value is None
    assert outcome.rejection.reason == "bad_words"
    assert outcome.attempts == 3
    assert asked.llm.ledger.stage("verbalize").failures == {"bad_words": 1}


def test_verbalize_adds_values_even_after_a_malformed_answer(tmp_path: Path) -> None:
    outcome = verbalized(tmp_path, Reply(content="not json"), WITHOUT).value
    assert outcome.ok, outcome.rejection
    assert outcome.value.completed == len(CHAIN.facts)


# ----------------------------------------------------------------------------- tasks


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
    assert [c.key() for c in task.gold_calls] == [
        'get_books{"book_id":203}',
        'borrow_book{"book_id":203,"member_id":101}',
    ]
    run = env.replay(task.gold_calls)
    assert all(r.ok for r in run.results)
    assert [(r.call, r.path) for r in task.communicate] == [(1, "0.copies_left")]
    before = next(b["copies_available"] for b in lib.seed["books"] if b["book_id"] == 203)
    assert isinstance(before, int)
    assert resolve(task.communicate[0], run) == before - 1
    assert task.provenance.source == "llm" and task.provenance.seed == 3
    assert task.instruction.startswith(task_answer()["instruction"])
    assert asked.llm.ledger.stage("llm").repairs == 0
    prompt = last_user(asked.requests[0])
    assert "borrow_book(member_id: integer, book_id: integer) [write]" in prompt


def test_propose_llm_task_repairs_a_failing_gold_call(tmp_path: Path, env: Environment) -> None:
    bad = task_answer()
    bad["gold_calls"] = [{"name": "borrow_book", "arguments": {"member_id": 101, "book_id": 999}}]
    bad["communicate"] = [{"call": 0, "field": "copies_left"}]
    asked = ask(
        scripted(reply(bad), reply(task_answer())),
        tmp_path,
        lambda llm: propose_llm_task(llm, brief(), env, "t-2", random.Random(0), 0),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert [c.arguments["book_id"] for c in outcome.value.gold_calls] == [203, 203]
    assert asked.llm.ledger.stage("llm").repairs == 1
    feedback = last_user(asked.requests[1])
    assert "gold_calls[0] borrow_book" in feedback
    assert "No copy of that book is available." in feedback


def test_many_tools_get_the_loose_call_shape_and_quoted_numbers_are_coerced(
    tmp_path: Path, env: Environment
) -> None:
    quoted = task_answer()
    quoted["gold_calls"][0]["arguments"] = {"book_id": "203"}
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
    assert outcome.value.gold_calls[0].arguments == {"book_id": 203}


def test_propose_llm_task_asks_for_unstated_values_then_adds_them(
    tmp_path: Path, env: Environment
) -> None:
    silent = {
        **task_answer(),
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
    assert "203 (gold_calls[0].book_id)" in feedback and "101 (gold_calls[1].member_id)" in feedback
    task = outcome.value
    assert task.known_facts == ["My book id is 203.", "My member id is 101."]
    assert task.provenance.facts_completed == 2


# ----------------------------------------------------------------------------- evolution


def test_evolve_task_extends_a_verified_parent(
    tmp_path: Path, lib: Library, env: Environment, verified: Task
) -> None:
    sampler = ArgumentSampler(lib.spec)
    asked = ask(
        library,
        tmp_path,
        lambda llm: evolve_task(
            llm, brief(), env, sampler, verified, "library-evolved-0", random.Random(2), 2
        ),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    child = outcome.value
    n = len(verified.gold_calls)
    assert child.gold_calls[:n] == verified.gold_calls
    assert len(child.gold_calls) > n
    assert child.communicate[: len(verified.communicate)] == verified.communicate
    assert child.provenance.source == "evolved"
    assert child.provenance.parent == verified.id
    assert child.id == "library-evolved-0"
    assert verified.instruction in last_user(asked.requests[0])
    with Verifier(lib.spec) as verifier:
        result = verifier.verify(child)
    assert result.value is not None, result.rejection


def test_evolved_tasks_never_call_a_tool_their_preference_avoids(
    tmp_path: Path, lib: Library, env: Environment, verified: Task
) -> None:
    avoid = next(
        p
        for s in range(50)
        if (p := sample_preference(random.Random(s), lib.spec.tools, verified.gold_calls, 1.0))
        and p.avoid_tools
    )
    parent = verified.model_copy(
        update={"preferences": avoid, "instruction": with_preference(verified.instruction, avoid)}
    )
    sampler = ArgumentSampler(lib.spec)

    async def evolve_many(llm: LLMClient) -> list[Task]:
        out = []
        for s in range(30):
            got = await evolve_task(
                llm, brief(), env, sampler, parent, f"e{s}", random.Random(s), s
            )
            if got.value is not None:
                out.append(got.value)
        return out

    children = ask(library, tmp_path, evolve_many).value
    assert len(children) >= 20
    for child in children:
        assert child.preferences == avoid
        assert not {c.name for c in child.gold_calls} & set(avoid.avoid_tools), child.gold_calls


# ----------------------------------------------------------------------------- preferences


def test_sample_preference_share_and_statement(lib: Library) -> None:
    calls = [ToolCall(name="borrow_book", arguments={"member_id": 101, "book_id": 203})]
    assert all(
        sample_preference(random.Random(s), lib.spec.tools, calls, 0.0) is None for s in range(20)
    )
    drawn = [sample_preference(random.Random(s), lib.spec.tools, calls, 1.0) for s in range(40)]
    prefs = [p for p in drawn if p is not None]
    assert len(prefs) == len(drawn)
    assert {p.statement for p in prefs if p.cost == 1.0} == {COST}
    assert {p.statement for p in prefs if p.latency == 1.0} == {LATENCY}
    instruction = "Please lend me book 203."
    for p in prefs:
        assert p.statement
        assert with_preference(instruction, p) == f"{instruction} {p.statement}"
    assert with_preference(instruction, None) == instruction


def test_an_avoid_profile_never_avoids_a_used_tool(lib: Library) -> None:
    tools = lib.spec.tools
    reads = sorted(t.name for t in tools if t.kind == "read")
    avoided = set()
    for s in range(60):
        rng = random.Random(s)
        calls = [ToolCall(name=n) for n in rng.sample(reads, k=rng.randint(1, len(reads) - 1))]
        p = sample_preference(rng, tools, calls, 1.0)
        assert p is not None
        if p.avoid_tools:
            (name,) = p.avoid_tools
            assert name not in {c.name for c in calls}
            assert lib.spec.tool(name).kind == "read"
            assert name.replace("_", " ") in p.statement
            avoided.add(name)
    assert avoided
    everything = [ToolCall(name=n) for n in reads]
    for s in range(20):
        p = sample_preference(random.Random(s), tools, everything, 1.0)
        assert p is not None and p.avoid_tools == []


# ----------------------------------------------------------------------------- trajectories


def test_demonstrate_gives_the_gold_conversation(env: Environment, verified: Task) -> None:
    assert verified.expected is not None and verified.expected.communicate
    trajectory = env.demonstrate(verified)
    roles = [m.role for m in trajectory.messages]
    n = len(verified.gold_calls)
    assert roles == ["system", "user", *["assistant", "tool"] * n, "assistant"]
    assert trajectory.messages[0].content == env.system_prompt()
    assert trajectory.messages[1].content == verified.user_text()
    run = env.replay(verified.gold_calls)
    for i, call in enumerate(verified.gold_calls):
        asks, answer = trajectory.messages[2 + 2 * i], trajectory.messages[3 + 2 * i]
        (tool_call,) = asks.tool_calls or []
        assert tool_call.function.name == call.name
        assert json.loads(tool_call.function.arguments) == call.arguments
        assert answer.tool_call_id == tool_call.id
        assert answer.content == run.results[i].content()
    final = trajectory.final_answer()
    assert final == trajectory.messages[-1].content
    for value in verified.expected.communicate:
        assert mentions(final, value)
    evaluation = env.evaluate(verified, trajectory)
    assert evaluation.success and evaluation.state_match and evaluation.communicated == 1.0
    assert evaluation.n_calls == n and evaluation.failed_calls == 0
    assert evaluation.price == pytest.approx(
        sum(env.tools[c.name].price for c in verified.gold_calls)
    )


def test_a_demonstration_without_the_answer_is_not_a_success(
    env: Environment, verified: Task
) -> None:
    messages = env.demonstrate(verified).messages[:-1]
    evaluation = env.evaluate(verified, [m.model_dump() for m in messages])
    assert evaluation.state_match and not evaluation.success
    assert evaluation.missing == expected_of(verified).communicate


# ----------------------------------------------------------------------------- prompts


@pytest.mark.parametrize("template", sorted(p.name for p in PROMPTS.glob("*.j2")))
def test_a_missing_variable_is_an_error_not_an_empty_string(template: str) -> None:
    with pytest.raises(jinja2.UndefinedError):
        render(template)


def test_every_template_is_rendered_by_the_tests_above(lib: Library) -> None:
    """The end-to-end tests render every template with what its generator passes; this
    pins the list, so a new template needs a test too."""
    assert sorted(p.name for p in PROMPTS.glob("*.j2")) == [
        "policy.j2",  # propose_policy, in the `lib` fixture
        "rows.j2",  # propose_rows
        "schema.j2",  # propose_schema
        "task.j2",  # propose_llm_task
        "tool.j2",  # propose_tools
        "tool_plan.j2",  # propose_tools
        "verbalize.j2",  # verbalize, evolve_task
    ]
    assert "| borrow_book | write |" in lib.spec.policy
    assert "- Suspended members cannot borrow." in lib.spec.policy


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
    assert tool.parameters["properties"]["status"]["enum"] == ["active", "suspended"]
    assert status_tools(lib.schema, {"members": [{"member_id": 101, "status": "active"}]}) == []
    members = [dict(r) for r in lib.seed["members"]]
    members[0]["status"], members[1]["status"] = "active", "suspended"
    spec = EnvironmentSpec(
        name="library", schema_=lib.schema, seed={**lib.seed, "members": members}, tools=[tool]
    )
    with Environment(spec) as env:
        done = env.step(
            ToolCall(name=tool.name, arguments={"member_id": 101, "status": "suspended"})
        )
        assert done.ok and done.output == {"member_id": 101, "status": "suspended"}
        again = env.step(
            ToolCall(name=tool.name, arguments={"member_id": 101, "status": "suspended"})
        )
        assert not again.ok and "already" in (again.error or "")
