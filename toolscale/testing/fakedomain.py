"""A scripted "model" for the fake endpoint that answers every generator prompt sensibly for
a tiny library domain: flow tests and the generation bench run the whole pipeline on it.

It reads the request's `response_format` schema name to know the stage, and answers from
the schema and prompt it was given (rows from the row schema's types and enums; words that
state every fact the prompt lists), so it exercises the real checks, not a bypass.
"""

from __future__ import annotations

import json
import re
from typing import Any

from toolscale.testing.fakellm import Reply, Responder

BRIEF = """\
name: library
description: >
  A small public library lends books to its members; the assistant helps
  members find books, borrow and return them.
entities: [members, books, loans]
rules:
  - A member with status suspended cannot borrow.
  - A book can only be lent when it has copies available.
task_ideas:
  - A member borrows a book
  - A member asks about a book
n_tables: 3
rows_per_table: 6
n_tools: 9
"""

SCHEMA: dict[str, Any] = {
    "tables": [
        {
            "name": "members",
            "description": "library members",
            "columns": [
                {"name": "member_id", "type": "integer"},
                {"name": "name", "type": "text"},
                {"name": "status", "type": "text", "values": ["active", "suspended"]},
                {"name": "joined_on", "type": "date", "description": "when the member joined"},
            ],
        },
        {
            "name": "books",
            "description": "books in the catalogue",
            "columns": [
                {"name": "book_id", "type": "integer"},
                {"name": "title", "type": "text"},
                {"name": "author", "type": "text"},
                {"name": "copies_available", "type": "integer", "minimum": 0},
            ],
        },
        {
            "name": "loans",
            "description": "books lent to members",
            "columns": [
                {"name": "loan_id", "type": "integer"},
                {"name": "member_id", "type": "integer", "references": "members"},
                {"name": "book_id", "type": "integer", "references": "books"},
                {"name": "due_on", "type": "date"},
                {"name": "returned", "type": "boolean"},
            ],
        },
    ]
}

TOOLS: dict[str, dict[str, Any]] = {
    "borrow_book": {
        "parameters": [
            {"name": "member_id", "type": "integer"},
            {"name": "book_id", "type": "integer"},
        ],
        "require": [
            {
                "sql": "SELECT status = 'active' FROM members WHERE member_id = :member_id",
                "error": "The member is not active.",
            },
            {
                "sql": "SELECT copies_available > 0 FROM books WHERE book_id = :book_id",
                "error": "No copy of that book is available.",
            },
        ],
        "run": [
            "INSERT INTO loans (loan_id, member_id, book_id, due_on, returned) "
            "VALUES (:_new_id, :member_id, :book_id, '2025-02-15', 0)",
            "UPDATE books SET copies_available = copies_available - 1 WHERE book_id = :book_id",
        ],
        "returns": "SELECT copies_available AS copies_left FROM books WHERE book_id = :book_id",
    },
    "search_books": {
        "parameters": [{"name": "author", "type": "string"}],
        "returns": "SELECT book_id, title, copies_available FROM books "
        "WHERE author = :author ORDER BY book_id",
    },
    "suspend_member": {
        "parameters": [{"name": "member_id", "type": "integer"}],
        "require": [
            {
                "sql": "SELECT status = 'active' FROM members WHERE member_id = :member_id",
                "error": "The member is already suspended.",
            }
        ],
        "run": ["UPDATE members SET status = 'suspended' WHERE member_id = :member_id"],
    },
    "broken_tool": {  # never valid: tests that a dropped tool is counted, not fatal
        "parameters": [{"name": "member_id", "type": "integer"}],
        "returns": "SELECT nonexistent FROM members WHERE member_id = :member_id",
    },
}

PLAN = {
    "tools": [
        {"name": name, "kind": "write" if "run" in body else "read", "description": name}
        for name, body in TOOLS.items()
    ]
}

# The catalogue stage: candidates picked, the two library rules mapped.
CHOICE: dict[str, list[dict[str, Any]]] = {
    "tools": [
        {
            "candidate": "create:loans under members",
            "name": "lend_book",
            "description": "Lend a book to a member until a due date.",
        },
        {"candidate": "status:members.status=suspended", "name": "suspend", "description": "x"},
        {"candidate": "find:members by name", "name": "find_member", "description": "Find."},
        {"candidate": "no:such candidate", "name": "ghost", "description": "fed back"},
    ],
    "rules": [
        {
            "rule": 1,
            "candidate": "create:loans under members",
            "conditions": [
                {
                    "kind": "in",
                    "row": "member_id",
                    "column": "status",
                    "op": "not in",
                    "values": ["suspended"],
                }
            ],
        },
        {
            "rule": 2,
            "candidate": "create:loans under members",
            "conditions": [
                {
                    "kind": "value",
                    "row": "book_id",
                    "column": "copies_available",
                    "op": ">",
                    "value": 0,
                }
            ],
        },
    ],
}


def choice_answer(repaired: bool) -> dict[str, Any]:
    """The first answer names an unknown candidate (a slip the feedback corrects)."""
    tools = [t for t in CHOICE["tools"] if not (repaired and t["candidate"].startswith("no:"))]
    return {**CHOICE, "tools": tools}


NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
TITLES = ["Dune", "Emma", "Ulysses", "Beloved", "Walden", "Persuasion"]
AUTHORS = ["Herbert", "Austen", "Joyce", "Morrison"]


def _value(name: str, prop: dict[str, Any], i: int, defs: dict[str, Any]) -> Any:
    if "$ref" in prop:
        prop = defs[prop["$ref"].split("/")[-1]]
    if "anyOf" in prop:
        prop = next(p for p in prop["anyOf"] if p.get("type") != "null")
    if "enum" in prop:
        return prop["enum"][i % len(prop["enum"])]
    if "const" in prop:
        return prop["const"]
    kind = prop.get("type")
    fmt = prop.get("format")
    if name == "status":
        return ["active", "active", "suspended"][i % 3]
    if kind == "integer":
        return 1 + (i * 3) % 7
    if kind == "number":
        return round(10.5 + i, 2)
    if kind == "boolean":
        return i % 2 == 1
    if fmt == "date":
        return f"2024-0{1 + i % 9}-1{i % 10}"
    if fmt == "date-time":
        return f"2024-03-1{i % 10}T10:00:00"
    pools = {"name": NAMES, "title": TITLES, "author": AUTHORS}
    return pools.get(name, [f"{name} {i}"])[i % len(pools.get(name, [1]))]


def rows_answer(schema: dict[str, Any], n: int) -> dict[str, Any]:
    defs = schema.get("$defs", {})
    row_schema = defs[schema["properties"]["rows"]["items"]["$ref"].split("/")[-1]]
    rows = []
    for i in range(n):
        rows.append({k: _value(k, p, i, defs) for k, p in row_schema["properties"].items()})
    return {"rows": rows}


FACT_LINE = re.compile(r"^- (.+?): (.+)$")


OPENERS = [
    "Hello, I need some help",
    "Hi there, could you sort something out for me",
    "Good morning, I have a question about my library account",
    "Hey, quick request",
    "Hello again, I was hoping you could help",
    "Hi, I'm calling about the library",
]
STEP_LINE = re.compile(r"^\d+\. (.+)$")


def words_answer(prompt: str, seed: int = 0) -> dict[str, Any]:
    steps = [m.group(1) for line in prompt.splitlines() if (m := STEP_LINE.match(line))]
    facts = []
    in_facts = False
    for line in prompt.splitlines():
        if line.startswith("The customer knows"):
            in_facts = True
            continue
        if in_facts:
            m = FACT_LINE.match(line)
            if not m:
                break
            facts.append((m.group(1), m.group(2)))
    said = ", ".join(f"my {n} is {v}" for n, v in facts)
    purpose = next(
        (line.split(":", 1)[1] for line in prompt.splitlines() if line.startswith("What the")),
        "",
    )
    wants = purpose.strip().rstrip(".") or " and then ".join(steps)
    told = next((line for line in prompt.splitlines() if line.startswith("The customer wants")), "")
    ask = f" Please tell me the {told.split(':', 1)[1].strip().rstrip('.')}." if told else ""
    earlier = re.search(r'The earlier request was:\n"(.*)"', prompt)
    opener = f"{earlier.group(1)} Also" if earlier else OPENERS[seed % len(OPENERS)]
    return {
        "instruction": f"{opener}: {said}. I would like to {wants}.{ask}",
        "known_facts": [f"My {n} is {v}" for n, v in facts],
    }


def task_answer() -> dict[str, Any]:
    return {
        "instruction": "I am member 101 and I would like to borrow book 203, please. "
        "Tell me how many copies are left.",
        "known_facts": ["My member id is 101", "The book id is 203"],
        "gold_calls": [
            {"name": "get_books", "arguments": {"book_id": 203}},
            {"name": "borrow_book", "arguments": {"member_id": 101, "book_id": 203}},
        ],
        "communicate": [{"call": 1, "field": "copies_left"}],
    }


JUDGE_STEP = re.compile(r"^\d+\. ([A-Za-z_0-9]+) \(")
JUDGE_VALUE = re.compile(r"^\d+\. (\S+) = ")
JUDGE_REQUEST = re.compile(r'The user\'s request:\n"(.*?)"\n', re.DOTALL)


def judge_answer(prompt: str, reject: str | None = None) -> dict[str, Any]:
    """The judge's verdict, read off its prompt: every call needed, every value asked, unless
    the request contains `reject`, when the first call is unasked and the answer is no."""
    calls_part, _, values_part = prompt.partition("The values the assistant tells the user:")
    calls = [m.group(1) for line in calls_part.splitlines() if (m := JUDGE_STEP.match(line))]
    values = [m.group(1) for line in values_part.splitlines() if (m := JUDGE_VALUE.match(line))]
    request = JUDGE_REQUEST.search(prompt)
    no = reject is not None and request is not None and reject in request.group(1)
    return {
        "calls": [{"tool": name, "needed": not (no and i == 0)} for i, name in enumerate(calls)],
        "values": [{"name": name, "asked": True} for name in values],
        "request_fully_done": True,
        "reason": "the first call was not asked for" if no else "it does what was asked",
        "careful_agent_does_exactly_this": not no,
    }


def judging(reject: str) -> Responder:
    """The library model, whose judge rejects every task whose request contains `reject`."""

    def respond(body: dict[str, Any]) -> Reply:
        fmt = body.get("response_format") or {}
        if fmt.get("json_schema", {}).get("name") == "JudgeVerdict":
            first = next(m["content"] for m in body["messages"] if m["role"] == "user")
            return Reply(content=json.dumps(judge_answer(first, reject)))
        return library(body)

    return respond


def library(body: dict[str, Any]) -> Reply:
    """Answers each generator stage of the library domain."""
    fmt = body.get("response_format") or {}
    name = fmt.get("json_schema", {}).get("name", "")
    schema = fmt.get("json_schema", {}).get("schema", {})
    first = next(m["content"] for m in body["messages"] if m["role"] == "user")
    if name == "SchemaProposal":
        answer: Any = SCHEMA
    elif name.endswith("_rows"):
        answer = rows_answer(schema, schema["properties"]["rows"].get("maxItems", 6))
    elif name == "ToolPlan":
        answer = PLAN
    elif name == "ToolProposal":
        tool = re.search(r'the tool "([a-z_0-9]+)"', first)
        answer = TOOLS[tool.group(1)] if tool else {"parameters": []}
    elif name == "CatalogueChoice":
        answer = choice_answer(repaired=len(body["messages"]) > 2)
    elif name == "PolicyProposal":
        answer = {
            "introduction": "You help members of the public library.",
            "rules": [
                "Identify the member by id before changing anything.",
                "Suspended members cannot borrow.",
                "Only lend a book with copies available.",
            ],
        }
    elif name == "Words":
        answer = words_answer(first, body.get("seed", 0))
    elif name == "TaskProposal":
        answer = task_answer()
    elif name == "JudgeVerdict":
        answer = judge_answer(first)
    else:
        answer = {}
    return Reply(content=json.dumps(answer))
