"""A scripted "model" for the fake endpoint that answers every generator prompt sensibly for
a tiny library domain: flow tests and the generation bench run the whole pipeline on it.

It reads the request's `response_format` schema name to know the stage, and answers from
the schema and prompt it was given (a data plan from the plan schema's kinds and the
prompt's suggestions; words that state every fact the prompt lists; a task on the rows the
prompt shows), so it exercises the real checks, not a bypass.
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
seed_rows: 60
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
    """The first answer names an unknown candidate beside the right ones (dropped: what
    fits is kept); `repaired` answers without it."""
    tools = [t for t in CHOICE["tools"] if not (repaired and t["candidate"].startswith("no:"))]
    return {**CHOICE, "tools": tools}


NAMES = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov"]
TITLES = ["Dune", "Emma", "Ulysses", "Beloved", "Walden", "Persuasion"]
AUTHORS = ["Herbert", "Austen", "Joyce", "Morrison"]


# what the library "model" plans for its columns; the rest follows the prompt's suggestion
COLUMN_PLANS: dict[str, dict[str, Any]] = {
    "name": {"kind": "person_name"},
    "status": {"kind": "choice", "values": ["active", "suspended"], "weights": [3, 1]},
    "title": {"kind": "text", "values": TITLES},
    "author": {"kind": "text", "values": AUTHORS},
    "copies_available": {"kind": "integer", "low": 0, "high": 4},
    "returned": {"kind": "boolean", "probability": 0.4},
}
SUGGESTION = re.compile(r"^- ([a-z_0-9]+) \(.*?\)[^:]*: (\{.*\})$")


def _ref(defs: dict[str, Any], prop: dict[str, Any]) -> dict[str, Any]:
    return defs[prop["$ref"].split("/")[-1]] if "$ref" in prop else prop


def plan_answer(schema: dict[str, Any], prompt: str) -> dict[str, Any]:
    """A table's data plan: per column of the schema, the library's own plan or the
    prompt's suggestion, whichever kind the schema offers; one or two children a parent."""
    defs = schema.get("$defs", {})
    props = schema["properties"]
    suggested = {
        m.group(1): json.loads(m.group(2))
        for line in prompt.splitlines()
        if (m := SUGGESTION.match(line))
    }
    columns = {}
    for name, prop in _ref(defs, props["columns"])["properties"].items():
        fields = _ref(defs, prop)["properties"]
        kinds = fields["kind"].get("enum") or [fields["kind"].get("const")]
        plan = COLUMN_PLANS.get(name) or suggested.get(name) or {}
        if plan.get("kind") not in kinds:
            plan = suggested.get(name) if suggested.get(name, {}).get("kind") in kinds else {}
        plan = plan or {"kind": kinds[0]}
        columns[name] = {k: v for k, v in plan.items() if k in fields}
    answer: dict[str, Any] = {"columns": columns}
    if "rows" in props:
        answer["rows"] = 1
    else:
        answer["min_children"], answer["max_children"] = 1, 2
    return answer


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
    # a person says what they want, not the lookup's name ("list loans by member id"), and
    # of their own records "my", as the real model rewrites the purpose's "their card"
    wants = re.sub(r"\btheir\b", "my", purpose.strip().rstrip(".")) or " and then ".join(
        s.replace(" by ", " for my ") for s in steps
    )
    told = next((line for line in prompt.splitlines() if line.startswith("The customer wants")), "")
    ask = f" Please tell me the {told.split(':', 1)[1].strip().rstrip('.')}." if told else ""
    earlier = re.search(r'The earlier request was:\n"(.*)"', prompt)
    opener = f"{earlier.group(1)} Also" if earlier else OPENERS[seed % len(OPENERS)]
    return {
        "instruction": f"{opener}: {said}. I would like to {wants}.{ask}",
        "known_facts": [f"My {n} is {v}" for n, v in facts],
    }


DATA_LINE = re.compile(r"^- ([a-z_0-9]+): (\[.*\])$")


def task_ids(prompt: str) -> tuple[int, int]:
    """An active member and the book with the most copies among the rows the task prompt
    shows (member 101 and book 203 when it shows none)."""
    data = {
        m.group(1): json.loads(m.group(2))
        for line in prompt.splitlines()
        if (m := DATA_LINE.match(line))
    }
    members, books = data.get("members", []), data.get("books", [])
    active = [m["member_id"] for m in members if m.get("status") == "active"]
    member = (active or [m["member_id"] for m in members] or [101])[0]
    book = max(books, key=lambda b: b.get("copies_available") or 0)["book_id"] if books else 203
    return member, book


def task_answer(member: int = 101, book: int = 203) -> dict[str, Any]:
    return {
        "instruction": f"I am member {member} and I would like to borrow book {book}, please. "
        "Tell me how many copies are left.",
        "known_facts": [f"My member id is {member}", f"The book id is {book}"],
        "gold_calls": [
            {"name": "get_books", "arguments": {"book_id": book}},
            {"name": "borrow_book", "arguments": {"member_id": member, "book_id": book}},
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
        "missing": "",
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
    elif name.endswith("_plan"):
        answer = plan_answer(schema, first)
    elif name == "ToolPlan":
        answer = PLAN
    elif name == "ToolProposal":
        tool = re.search(r'the tool "([a-z_0-9]+)"', first)
        answer = TOOLS[tool.group(1)] if tool else {"parameters": []}
    elif name == "CatalogueAnswer":
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
    elif name == "Introduction":
        answer = {"introduction": "You help members of the public library."}
    elif name == "Words":
        answer = words_answer(first, body.get("seed", 0))
    elif name == "TaskProposal":
        answer = task_answer(*task_ids(first))
    elif name == "JudgeVerdict":
        answer = judge_answer(first)
    else:
        answer = {}
    return Reply(content=json.dumps(answer))
