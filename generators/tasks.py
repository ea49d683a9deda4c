"""The `llm` task strategy: the model invents a request and its gold calls (typed per tool,
so arguments always fit the tool's schema); a quick replay sends failing calls back as
feedback, and values the user never states are asked for, then added as facts.

The other strategies: `sampled` (generators/sampled.py) and `evolved`
(generators/evolution.py); generators/strategies.py declares all three.
"""

from __future__ import annotations

import random
from typing import Any, Literal

from pydantic import BaseModel, Field, create_model

from generators.config import DEFAULT_CONFIG, GenerationConfig
from generators.preferences import sample_preference, with_preference
from generators.prompting import messages
from generators.verbalize import fact_text
from toolscale.brief import Brief
from toolscale.environment import Environment, Replay
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.matching import mentions, scalars
from toolscale.reasons import GeneratorReason
from toolscale.schema import Scalar
from toolscale.task import GoldCall, OutputRef, Provenance, Task
from toolscale.tool import Tool, ToolResult

STAGE = "llm"  # the strategy's name, also its ledger stage
PY = {"integer": int, "number": float, "string": str, "boolean": bool}


def call_model(tool: Tool) -> type[BaseModel]:
    """The JSON shape of one call of `tool`: its name as a constant, its typed arguments."""
    props = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", []))
    fields: dict[str, Any] = {}
    for name, prop in props.items():
        kind: Any = PY.get(prop.get("type") if isinstance(prop.get("type"), str) else "", str)
        if prop.get("enum"):
            kind = Literal[tuple(prop["enum"])]
        fields[name] = (kind, ...) if name in required else (kind | None, None)
    args = create_model(f"{tool.name}_args", **fields)
    constant: Any = Literal[tool.name]
    return create_model(f"call_{tool.name}", name=(constant, ...), arguments=(args, ...))


class CommunicateProposal(BaseModel):
    call: int = Field(ge=0)
    field: str


def _proposal_model(call: Any) -> type[BaseModel]:
    return create_model(
        "TaskProposal",
        instruction=(str, Field(min_length=15, max_length=1500)),
        known_facts=(list[str], Field(default_factory=list, max_length=10)),
        gold_calls=(list[call], Field(min_length=1, max_length=6)),
        communicate=(list[CommunicateProposal], Field(default_factory=list, max_length=4)),
    )


def task_model(tools: list[Tool]) -> type[BaseModel]:
    """Calls as a union of one typed shape per tool: arguments always fit their tool."""
    calls = tuple(call_model(t) for t in tools)
    union: Any = calls[0]
    for c in calls[1:]:
        union = union | c
    return _proposal_model(union)


def loose_task_model(tools: list[Tool]) -> type[BaseModel]:
    """Calls as a tool name and a flat argument object: a grammar a CPU server samples fast;
    argument types are then checked (and fed back) by the quick replay."""
    names: Any = Literal[tuple(t.name for t in tools)]
    call = create_model("GoldCallProposal", name=(names, ...), arguments=(dict[str, Scalar], ...))
    return _proposal_model(call)


def _coerce(value: Scalar, kind: str) -> Scalar:
    """ "203" for an integer parameter is 203: a model's quoting is not the user's intent."""
    if isinstance(value, str):
        text = value.strip()
        try:
            if kind == "integer" and text.lstrip("-").isdigit():
                return int(text)
            if kind == "number":
                return float(text)
        except ValueError:
            return value
    return value


def _task_from(
    proposal: Any, task_id: str, domain: str, provenance: Provenance, tools: dict[str, Tool]
) -> Task:
    calls = []
    for c in proposal.gold_calls:
        args = c.arguments if isinstance(c.arguments, dict) else c.arguments.model_dump()
        kinds = tools[c.name].param_types()
        args = {k: _coerce(v, kinds.get(k, "")) for k, v in args.items() if v is not None}
        calls.append(GoldCall(name=c.name, arguments=args))
    refs = [
        OutputRef(call=r.call, path=r.field) for r in proposal.communicate if r.call < len(calls)
    ]
    return Task(
        id=task_id,
        domain=domain,
        instruction=proposal.instruction.strip(),
        known_facts=[f for f in proposal.known_facts if f.strip()],
        gold_calls=calls,
        communicate=refs,
        provenance=provenance,
    )


def unstated_values(task: Task, results: list[ToolResult]) -> list[tuple[int, str, Scalar]]:
    """(call, parameter, value) of argument values neither the user's words nor an earlier
    output contain: the provenance validator would reject them as invented."""
    text = task.user_text()
    seen: set[Any] = set()
    out: list[tuple[int, str, Scalar]] = []
    for i, call in enumerate(task.gold_calls):
        for name, value in call.arguments.items():
            if value is None or value in seen or isinstance(value, bool) or mentions(text, value):
                continue
            out.append((i, name, value))
            seen.add(value)
        seen.update(scalars(results[i].output))
    return out


def replay_problems(task: Task, run: Replay) -> tuple[list[str], list[int]]:
    """What a quick replay says about the gold calls (the validators decide for real), and
    which communicate refs point at no field."""
    out = []
    for i, (call, result) in enumerate(zip(task.gold_calls, run.results, strict=True)):
        if not result.ok:
            out.append(f"gold_calls[{i}] {call.name}({call.arguments}) failed: {result.error}")
    dangling = []
    for j, ref in enumerate(task.communicate):
        result = run.results[ref.call]
        if not result.ok:
            continue
        out_ = result.output
        row = out_[0] if isinstance(out_, list) and out_ else out_
        key = ref.path.split(".")[-1]
        if not isinstance(row, dict) or key not in row:
            fields = ", ".join(row) if isinstance(row, dict) else "nothing"
            out.append(f"communicate[{j}]: call {ref.call} returns no field {key!r} ({fields})")
            dangling.append(j)
    return out, dangling


async def propose_llm_task(
    llm: LLMClient,
    brief: Brief,
    env: Environment,
    task_id: str,
    rng: random.Random,
    sample: int,
    config: GenerationConfig = DEFAULT_CONFIG,
) -> Outcome[Task]:
    spec = env.spec
    typed = len(spec.tools) <= config.typed_tools
    model = task_model(spec.tools) if typed else loose_task_model(spec.tools)
    provenance = Provenance(source="llm", model=llm.config.model, prompt="task.j2", seed=sample)

    def judge(proposal: Any, complete: bool) -> Task:
        task = _task_from(proposal, task_id, brief.name, provenance, env.tools)
        run = env.replay(task.gold_calls)
        problems, dangling = replay_problems(task, run)
        if complete and dangling and len(problems) == len(dangling):  # only asks that miss
            task.communicate = [r for j, r in enumerate(task.communicate) if j not in dangling]
            problems = []
        if problems:
            raise Invalid(problems, reason=GeneratorReason.GOLD_FAILED)
        for i, ref in enumerate(task.communicate):
            if "." not in ref.path and isinstance(run.results[ref.call].output, list):
                task.communicate[i] = OutputRef(call=ref.call, path=f"0.{ref.path}")
        unstated = unstated_values(task, run.results)
        if unstated and not complete:
            listed = "; ".join(f"{v!r} (gold_calls[{i}].{name})" for i, name, v in unstated)
            raise Invalid(
                [
                    f"the customer never states these values the calls use: {listed}; "
                    "put them in instruction or known_facts"
                ],
                reason=GeneratorReason.FACTS_MISSING,
            )
        facts = [*task.known_facts, *(fact_text(n, v) for _, n, v in unstated)]
        completed = task.provenance.model_copy(update={"facts_completed": len(unstated)})
        return task.model_copy(update={"known_facts": facts, "provenance": completed})

    examples = {t: rng.sample(rows, k=min(3, len(rows))) for t, rows in spec.seed.items()}
    ideas = brief.task_ideas or ["a typical request"]
    outcome = await llm.structured(
        messages(
            "task.j2",
            brief=brief,
            policy=spec.policy,
            tools=spec.tools,
            examples=examples,
            idea=ideas[sample % len(ideas)],
        ),
        model,
        stage=STAGE,
        check=lambda p: judge(p, complete=False),
        last_check=lambda p: judge(p, complete=True),  # the values are added, the task kept
        repairs=2,
        sample=sample,
        max_tokens=1200,
    )
    if outcome.ok and outcome.value is not None:
        pref = sample_preference(rng, spec.tools, outcome.value.gold_calls)
        outcome.value = outcome.value.model_copy(
            update={
                "preferences": pref,
                "instruction": with_preference(outcome.value.instruction, pref),
            }
        )
    return outcome
