"""Fixtures of the generator tests: the library environment assembled the way the flow
does, an environment over it, and a task verified in it."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from generators.policy import propose_policy
from generators.rows import propose_rows
from generators.tasks import propose_llm_task
from generators.toolkit import schema_tools
from generators.tools import priced
from tests.generators.library import GOOD_TOOLS, Library, ask, brief, library_schema, library_tool
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.testing.fakedomain import library
from validators.pipeline import Verifier


@pytest.fixture(autouse=True)
def _local(no_proxy: None) -> None:
    """Every generator test talks to a local fake endpoint."""


@pytest.fixture(scope="session")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Library:
    """The library environment assembled the way the flow does: schema, rows from the
    scripted model, schema tools plus the model's tools (priced), a policy. Built once:
    every test copies what it changes."""
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
