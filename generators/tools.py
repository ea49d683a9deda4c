"""Stage 3: tools. The LLM plans them, then writes each one's SQL program on its own (in
parallel); each is checked statically, bound on DuckDB, and smoke-executed on the seed
with arguments drawn from real rows before it is kept. Price and latency are ours."""

from __future__ import annotations

import asyncio
import hashlib
import random
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from generators.arguments import ArgumentSampler
from generators.prompting import messages
from generators.realise import tool_sql_problems
from toolscale.brief import Brief
from toolscale.environment import Environment
from toolscale.errors import pydantic_problems
from toolscale.llm.client import FEEDBACK_PROBLEMS, Invalid, LLMClient, Outcome
from toolscale.names import check_identifier
from toolscale.reasons import GeneratorReason
from toolscale.report import Rejection
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec
from toolscale.tool import RequireStep, Tool, ToolCall

PLAN_STAGE = "tool_plan"
STAGE = "tools"
SMOKE_TRIES = 12
PLAN_SAMPLES = 3


class PlannedTool(BaseModel):
    name: str
    kind: Literal["read", "write"]
    description: str


class ToolPlan(BaseModel):
    tools: list[PlannedTool] = Field(min_length=1, max_length=40)


class ParamProposal(BaseModel):
    name: str
    type: Literal["integer", "number", "string", "boolean"]
    description: str = ""
    required: bool = True


class RequireProposal(BaseModel):
    sql: str
    error: str


class ToolProposal(BaseModel):
    parameters: list[ParamProposal] = Field(max_length=8)
    require: list[RequireProposal] = Field(default_factory=list, max_length=5)
    run: list[str] = Field(default_factory=list, max_length=4)
    returns: str | None = None


def example_answer(schema: Schema) -> dict | None:
    """A complete, valid answer for a simple write tool on this very schema: small models
    follow an example far better than a description."""
    for table in schema.tables:
        key = table.primary_key[0]
        texts = [c for c in table.columns if c.type == "text" and c.name != key]
        col = next((c for c in texts if "status" in c.name), texts[0] if texts else None)
        if col is None:
            continue
        return {
            "parameters": [
                {"name": key, "type": "integer", "description": f"the {key}", "required": True},
                {"name": col.name, "type": "string", "description": "the new value"},
            ],
            "require": [
                {
                    "sql": f"SELECT COUNT(*) = 1 FROM {table.name} WHERE {key} = :{key}",
                    "error": f"No such {table.name} row.",
                }
            ],
            "run": [f"UPDATE {table.name} SET {col.name} = :{col.name} WHERE {key} = :{key}"],
            "returns": f"SELECT {key}, {col.name} FROM {table.name} WHERE {key} = :{key}",
        }
    return None


def price_and_latency(tool: Tool) -> tuple[float, float]:
    """Deterministic per name: writes cost more and take longer; statements add to both."""
    h = int(hashlib.sha256(tool.name.encode()).hexdigest()[:8], 16)
    rng = random.Random(h)
    steps = len(tool.statements())
    if tool.kind == "write":
        price, latency = rng.uniform(0.004, 0.02), rng.uniform(150, 900)
    else:
        price, latency = rng.uniform(0.0005, 0.004), rng.uniform(30, 250)
    return round(price * (1 + 0.25 * steps), 4), round(latency * (1 + 0.2 * steps))


def priced(tool: Tool) -> Tool:
    price, latency = price_and_latency(tool)
    return tool.model_copy(update={"price": price, "latency_ms": latency})


def to_tool(plan: PlannedTool, proposal: ToolProposal) -> Tool:
    props = {
        p.name: {"type": p.type, "description": p.description or p.name}
        for p in proposal.parameters
    }
    required = [p.name for p in proposal.parameters if p.required]
    try:
        return Tool(
            name=plan.name,
            description=plan.description,
            kind=plan.kind,
            parameters={"type": "object", "properties": props, "required": required},
            require=[
                RequireStep(sql=r.sql.strip().rstrip(";"), error=r.error) for r in proposal.require
            ],
            run=[s.strip().rstrip(";") for s in proposal.run if s.strip()],
            returns=(proposal.returns or "").strip().rstrip(";") or None,
        )
    except ValidationError as e:
        raise Invalid(
            pydantic_problems(e, FEEDBACK_PROBLEMS), reason=GeneratorReason.BAD_TOOL
        ) from e


def smoke_problems(
    tool: Tool,
    spec: EnvironmentSpec,
    tries: int = SMOKE_TRIES,
    seed: int = 0,
    rule_errors: frozenset[str] = frozenset(),
) -> list[str]:
    """Run the tool on the seed with arguments from real rows; it must succeed at least once,
    and a write must then change a row. A call refused by one of `rule_errors` (a rule's own
    require step: "closed only at balance 0" on a seed where every balance is above 0) also
    shows the program runs. Errors seen are the feedback."""
    probe = spec.model_copy(update={"tools": [*spec.tools, tool]})
    try:
        env = Environment(probe)
    except Exception as e:  # a seed or compile problem is the tool's problem here
        return [f"the tool could not be loaded: {e}"]
    try:
        sampler = ArgumentSampler(probe)
        rng = random.Random(seed)
        errors: dict[str, str] = {}
        for _ in range(tries):
            env.reset()
            arguments = sampler.arguments(tool, rng)
            result = env.step(ToolCall(name=tool.name, arguments=arguments))
            if result.ok and (tool.kind == "read" or env.sandbox.changes()):
                return []
            if result.ok:
                errors.setdefault("no change", f"called with {arguments}: it changed no row")
            else:
                errors.setdefault(result.error or "", f"called with {arguments}: {result.error}")
        if rule_errors & set(errors):
            return []
        return [
            f"it never succeeded in {tries} calls with arguments taken from the example rows",
            *list(errors.values())[:4],
        ]
    finally:
        env.close()


async def plan_tools(
    llm: LLMClient,
    brief: Brief,
    schema: Schema,
    existing: list[Tool],
    sample: int = 0,
    max_tokens: int | None = None,
) -> Outcome[list[PlannedTool]]:
    taken = {t.name for t in existing}
    n_new = max(3, brief.n_tools - len(existing))

    def check(plan: ToolPlan) -> list[PlannedTool]:
        problems, kept, seen = [], [], set(taken)
        for p in plan.tools:
            try:
                check_identifier(p.name, "tool", in_sql=False)
            except ValueError as e:
                problems.append(f"tool {p.name!r}: {e}")
                continue
            if p.name not in seen:
                seen.add(p.name)
                kept.append(p)
        if not any(p.kind == "write" for p in kept):
            problems.append("propose at least one write tool")
        if problems and len(kept) < 2:
            raise Invalid(problems, reason=GeneratorReason.BAD_PLAN)
        writes = [p for p in kept if p.kind == "write"]
        reads = [p for p in kept if p.kind == "read"]
        return (writes + reads)[: n_new + 1]  # as many as asked: each costs a repair loop

    return await llm.structured(
        messages(
            "tool_plan.j2",
            brief=brief,
            schema=schema,
            existing=sorted(taken),
            n_tools=n_new,
        ),
        ToolPlan,
        stage=PLAN_STAGE,
        check=check,
        sample=sample,
        max_tokens=max_tokens,
    )


async def write_tool(
    llm: LLMClient, brief: Brief, spec: EnvironmentSpec, plan: PlannedTool, sample: int = 0
) -> Outcome[Tool]:
    """One tool's SQL; static, DuckDB and smoke-test problems go back to the model."""

    def check(proposal: ToolProposal) -> Tool:
        tool = to_tool(plan, proposal)
        problems = tool_sql_problems(tool, spec.schema_)
        if problems:
            raise Invalid(problems, reason=GeneratorReason.SQL_REJECTED)
        problems = smoke_problems(tool, spec, seed=sample)
        if problems:
            raise Invalid(problems, reason=GeneratorReason.SMOKE_FAILED)
        return priced(tool)

    examples = {t: rows[:2] for t, rows in spec.seed.items()}
    return await llm.structured(
        messages(
            "tool.j2",
            brief=brief,
            schema=spec.schema_,
            examples=examples,
            plan=plan,
            example=example_answer(spec.schema_),
        ),
        ToolProposal,
        stage=STAGE,
        check=check,
        repairs=3,
        sample=sample,
    )


def _spent(stage: str, what: str, budget_s: float) -> Rejection:
    return Rejection(
        stage=stage,
        reason=GeneratorReason.BUDGET_SPENT,
        detail=f"{what}: the tool stage's budget of {budget_s:g} s was spent",
    )


async def propose_tools(
    llm: LLMClient,
    brief: Brief,
    spec: EnvironmentSpec,
    sample: int = 0,
    plan_samples: int = PLAN_SAMPLES,
    budget_s: float | None = None,
    plan_tokens: int | None = None,
) -> tuple[list[Tool], list[Rejection]]:
    """The LLM's tools that pass every check, and why the others were dropped. At most
    `plan_samples` plans and `budget_s` seconds in all: what is not done by then is dropped
    (a looping small model once held this stage for 26 minutes)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + budget_s if budget_s is not None else None

    def left() -> float | None:
        return None if deadline is None else max(0.0, deadline - loop.time())

    plan: Outcome[list[PlannedTool]] = Outcome()
    for attempt in range(plan_samples):  # a fresh sample gets a model out of a loop
        try:
            plan = await asyncio.wait_for(
                plan_tools(
                    llm, brief, spec.schema_, spec.tools, sample * 10 + attempt, plan_tokens
                ),
                left(),
            )
        except TimeoutError:
            return [], [_spent(PLAN_STAGE, "the tool plan", budget_s or 0)]
        if plan.ok and plan.value:
            break
    if not plan.ok or not plan.value:
        return [], [
            plan.rejection or Rejection(stage=PLAN_STAGE, reason=GeneratorReason.NO_PLAN, detail="")
        ]
    tasks = [asyncio.ensure_future(write_tool(llm, brief, spec, p, sample)) for p in plan.value]
    done, pending = await asyncio.wait(tasks, timeout=left())
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    kept, dropped = [], []
    for p, task in zip(plan.value, tasks, strict=True):
        if task not in done:
            dropped.append(_spent(STAGE, f"tool {p.name!r}", budget_s or 0))
            continue
        outcome = task.result()
        if outcome.ok and outcome.value is not None:
            kept.append(outcome.value)
        else:
            rejection = outcome.rejection or Rejection(
                stage=STAGE, reason=GeneratorReason.NO_TOOL, detail=""
            )
            rejection.detail = f"tool {p.name!r}: {rejection.detail}"
            dropped.append(rejection)
    return kept, dropped
