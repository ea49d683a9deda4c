"""Prompt templates: strict about missing variables, and each one rendered by its generator."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import jinja2
import pytest

import generators
from generators import prompting
from generators.arguments import ArgumentSampler
from generators.catalogue import PatternTools, propose_pattern_tools
from generators.evolution import evolve_task
from generators.policy import propose_policy
from generators.prompting import render
from generators.rows import propose_rows
from generators.sampling import walk
from generators.schema import propose_schema
from generators.tasks import propose_llm_task
from generators.tools import (
    propose_tools,
)
from generators.verbalize import verbalize
from tests.generators.library import (
    Library,
    ask,
    brief,
)
from toolscale.environment import Environment
from toolscale.llm.client import LLMClient
from toolscale.rules import RuleCoverage
from toolscale.task import Task
from toolscale.testing.fakedomain import library

PROMPTS = Path(generators.__file__).parent / "prompts"
ENFORCED = RuleCoverage(rule="Suspended members cannot borrow.", enforced_by=[])


@pytest.mark.parametrize("template", sorted(p.name for p in PROMPTS.glob("*.j2")))
def test_a_missing_variable_is_an_error_not_an_empty_string(template: str) -> None:
    with pytest.raises(jinja2.UndefinedError):
        render(template)


async def succeeded(answer: Awaitable[Any]) -> bool:
    """Whether a generator produced what it was asked for."""
    got = await answer
    if isinstance(got, tuple):  # propose_tools: (kept, dropped)
        return bool(got[0])
    if isinstance(got, PatternTools):  # the model's choice, not the fallback
        return bool(got.tools) and not got.fell_back
    return bool(got.ok)


def rendered_by(
    monkeypatch: pytest.MonkeyPatch, cache: Path, body: Callable[[LLMClient], Awaitable[Any]]
) -> list[str]:
    """The templates a generator renders talking to the library model (a missing variable
    raises); it must succeed, so what it rendered is what it really sends."""
    seen: list[str] = []
    real = prompting.render

    def spy(template: str, **context: Any) -> str:
        text = real(template, **context)
        assert text, template
        seen.append(template)
        return text

    with monkeypatch.context() as patch:
        patch.setattr(prompting, "render", spy)
        asked = ask(library, cache, body)
    assert asked.value is True
    return sorted(set(seen))


def test_every_template_is_rendered_by_its_generator(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    lib: Library,
    env: Environment,
    verified: Task,
) -> None:
    """Each generator renders its templates with what it passes, here and now; the list of
    templates is pinned, so a new template needs its generator in this test too."""
    base = lib.spec.model_copy(update={"tools": lib.core, "policy": ""})
    chain = walk(env, ArgumentSampler(lib.spec), random.Random(0))
    assert chain is not None
    generators_of = {
        "propose_schema": lambda llm: succeeded(propose_schema(llm, brief())),
        "propose_rows": lambda llm: succeeded(propose_rows(llm, brief(), lib.schema, lib.core)),
        "propose_tools": lambda llm: succeeded(propose_tools(llm, brief(), base)),
        "propose_pattern_tools": lambda llm: succeeded(propose_pattern_tools(llm, brief(), base)),
        "propose_policy": lambda llm: succeeded(propose_policy(llm, brief(), lib.spec.tools)),
        "propose_policy, rules enforced": lambda llm: succeeded(
            propose_policy(llm, brief(), lib.spec.tools, coverage=[ENFORCED])
        ),
        "propose_llm_task": lambda llm: succeeded(
            propose_llm_task(llm, brief(), env, "t-0", random.Random(0), 0)
        ),
        "verbalize": lambda llm: succeeded(verbalize(llm, "library", chain)),
        "evolve_task": lambda llm: succeeded(
            evolve_task(
                llm, brief(), env, ArgumentSampler(lib.spec), verified, "e-0", random.Random(2), 2
            )
        ),
    }
    rendered = {
        name: rendered_by(monkeypatch, tmp_path / name, body)
        for name, body in generators_of.items()
    }
    assert rendered == {
        "propose_schema": ["schema.j2"],
        "propose_rows": ["rows.j2"],
        "propose_tools": ["tool.j2", "tool_plan.j2"],
        "propose_pattern_tools": ["catalogue.j2"],
        "propose_policy": ["policy.j2"],
        "propose_policy, rules enforced": ["introduction.j2"],
        "propose_llm_task": ["task.j2"],
        "verbalize": ["verbalize.j2"],
        "evolve_task": ["verbalize.j2"],
    }
    templates = sorted(p.name for p in PROMPTS.glob("*.j2"))
    assert sorted({t for names in rendered.values() for t in names}) == templates
