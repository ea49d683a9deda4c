"""The scripted library domain the generator tests share: a fake endpoint per conversation
(`ask`), answers and feedback read off its requests, and the library's schema and tools
built as the flow builds them."""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import yaml

from generators.schema import SchemaProposal, to_schema
from generators.tools import (
    PlannedTool,
    ToolProposal,
    priced,
    to_tool,
)
from toolscale.brief import Brief
from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.schema import Scalar, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.testing.fakedomain import BRIEF, PLAN, SCHEMA, TOOLS, library
from toolscale.testing.fakellm import FakeLLM, Reply, Responder
from toolscale.tool import Tool

R = TypeVar("R")


GOOD_TOOLS = ("borrow_book", "search_books", "suspend_member")


@dataclass
class Asked:
    """What one conversation with the fake endpoint gave: the result, the client (for its
    ledger), every request the server received, and the most it had at once."""

    value: Any
    llm: LLMClient
    requests: list[dict[str, Any]]
    peak: int = 0


def ask(
    responder: Responder,
    cache: Path,
    body: Callable[[LLMClient], Awaitable[R]],
    latency_s: float = 0.0,
) -> Asked:
    """Runs `body` with a fresh client (2 requests at a time) on a fresh fake server, in its
    own event loop; `Asked.peak` is the most requests the server had at once."""
    with FakeLLM(responder, latency_s=latency_s) as fake:
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
        return Asked(value, llm, fake.requests, fake.max_concurrent)


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


def with_checks(table: str, *checks: str) -> Schema:
    """The library schema with CHECK constraints on one table."""
    schema = library_schema()
    tables = [
        t.model_copy(update={"checks": list(checks)}) if t.name == table else t
        for t in schema.tables
    ]
    return Schema(tables=tables)
