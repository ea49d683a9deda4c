"""The verified set as a Hugging Face dataset: one row model per config, the deterministic
train/test split, and the rows of a run read from its store.

Task rows carry the tau2-bench `Task` columns NVIDIA's ToolScale uses, with the same names
and nesting, and ours beside them. Whatever varies in shape by domain or tool (arguments,
tools, expected outcomes, prices) is a JSON string, so Arrow merges no struct across
domains (ToolScale's `arguments` carries every other domain's argument names as nulls).
The `environments` rows hold the whole `EnvironmentSpec`, so a consumer rebuilds the exact
sandbox a task was verified in (`spec_from_row`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from toolscale.report import Rejection
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, TrajectoryRecord
from toolscale.task import Difficulty, ExpectedOutcome, GoldCall, Preference, Provenance, Task
from toolscale.tau2 import Description, Instructions, UserScenario
from toolscale.trajectory import Message

TEST_FRACTION = 0.1
TASK_INSTRUCTIONS = (
    "You are the customer. Ask for what the reason for your call says, in your own words. "
    "Give the known information when the assistant asks for it; never invent other values."
)


def canonical_json(value: Any) -> str:
    """Canonical JSON: the same value always gives the same bytes."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# -- tau2-bench's Task, field for field (description and user scenario: toolscale/tau2.py) --


class Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action_id: str
    requestor: str = "assistant"
    name: str
    arguments: str = Field(description="JSON object text (tau2 has a dict: see the module doc)")


class EvaluationCriteria(BaseModel):
    model_config = ConfigDict(extra="forbid")

    actions: list[Action]
    communicate_info: list[str]
    nl_assertions: list[str] = Field(default_factory=list)
    reward_basis: list[str]


# -- the rows --------------------------------------------------------------------------------


class TaskRow(BaseModel):
    """One verified task: tau2's columns, then ours."""

    model_config = ConfigDict(extra="forbid")

    id: str
    description: Description
    user_scenario: UserScenario
    initial_state: str | None = Field(
        default=None, description="null: the environment's seed (`environment_id`) is the start"
    )
    evaluation_criteria: EvaluationCriteria
    domain: str
    strategy: str
    messages: list[Message] = Field(description="the gold conversation, OpenAI chat format")
    tools: str = Field(description="JSON list of the OpenAI function schemas")
    gold_calls: str = Field(description="JSON list of {name, arguments, expect_error}")
    expected: str = Field(description="JSON: state_hash, diff, communicate, engine")
    preference: Preference | None = Field(default=None, description="the vector and its words")
    tool_pricing: str = Field(description="JSON: tool name -> {price_usd, latency_ms}")
    difficulty: Difficulty | None = None
    provenance: Provenance
    environment_id: str


class EnvironmentRow(BaseModel):
    """One environment, enough to rebuild its sandbox exactly (`spec`)."""

    model_config = ConfigDict(extra="forbid")

    environment_id: str
    domain: str
    description: str
    policy: str
    db_schema: str = Field(description="JSON: tables, columns, keys, checks")
    tools: str = Field(description="JSON list of the OpenAI function schemas")
    tool_programs: str = Field(description="JSON list of the tools with their SQL programs")
    tool_pricing: str
    rules: str = Field(description="JSON: which tool and step enforces which rule")
    seed: str = Field(description="JSON: table -> the rows the sandbox starts from")
    tables: int
    seed_rows: int
    spec: str = Field(description="the EnvironmentSpec as JSON: `toolscale.dataset.spec_from_row`")


class RejectedRow(BaseModel):
    """One rejection with its stage, reason code and detail, and the item as proposed."""

    model_config = ConfigDict(extra="forbid")

    domain: str
    stage: str
    reason: str
    detail: str
    task_id: str | None = None
    source: str | None = None
    item: str | None = Field(default=None, description="JSON of the rejected proposal")


# -- rows ------------------------------------------------------------------------------------


def environment_id(spec: EnvironmentSpec) -> str:
    """A content hash of the whole environment: the same spec, the same id."""
    return hashlib.sha256(
        canonical_json(spec.model_dump(mode="json", by_alias=True)).encode()
    ).hexdigest()


def pricing(spec: EnvironmentSpec) -> str:
    return canonical_json(
        {t.name: {"price_usd": t.price, "latency_ms": t.latency_ms} for t in spec.tools}
    )


def environment_row(spec: EnvironmentSpec, domain: str) -> EnvironmentRow:
    dumped = spec.model_dump(mode="json", by_alias=True)
    return EnvironmentRow(
        environment_id=environment_id(spec),
        domain=domain,
        description=spec.description,
        policy=spec.policy,
        db_schema=canonical_json(dumped["schema"]),
        tools=canonical_json(spec.openai_tools()),
        tool_programs=canonical_json(dumped["tools"]),
        tool_pricing=pricing(spec),
        rules=canonical_json(dumped.get("rules", [])),
        seed=canonical_json(dumped["seed"]),
        tables=len(spec.schema_.tables),
        seed_rows=sum(len(rows) for rows in spec.seed.values()),
        spec=canonical_json(dumped),
    )


def spec_from_row(row: dict[str, Any]) -> EnvironmentSpec:
    """An `environments` row back as the spec its tasks were verified against."""
    return EnvironmentSpec.model_validate_json(row["spec"])


def task_from_row(row: dict[str, Any]) -> Task:
    """A task row back as the `Task` that `Environment.evaluate` scores a conversation
    against (its gold calls, expected outcome and preference)."""
    said = row["user_scenario"]["instructions"]
    return Task(
        id=row["id"],
        domain=row["domain"],
        instruction=said["reason_for_call"],
        known_facts=(said.get("known_info") or "").splitlines(),
        gold_calls=[GoldCall.model_validate(c) for c in json.loads(row["gold_calls"])],
        preferences=row.get("preference"),
        expected=ExpectedOutcome.model_validate_json(row["expected"]),
        difficulty=row.get("difficulty"),
        provenance=row["provenance"],
    )


def task_row(
    task: Task, record: TrajectoryRecord, env_id: str, prices: str, domain: str
) -> TaskRow:
    """`env_id` and `prices` (`environment_id`, `pricing`) are the environment's, computed
    once for all its tasks."""
    if task.expected is None:
        raise ValueError(f"task {task.id!r} has no expected outcome: only verified tasks export")
    refused = [c.expect_error for c in task.gold_calls if c.expect_error]
    told = [str(v) for v in task.expected.communicate]
    return TaskRow(
        id=task.id,
        description=Description(
            purpose=f"{record.strategy} task: " + " → ".join(c.name for c in task.gold_calls),
            notes=f"A rule refuses the request: {refused[0]}" if refused else None,
        ),
        user_scenario=UserScenario(
            persona=task.persona or None,
            instructions=Instructions(
                domain=domain,
                reason_for_call=task.instruction,
                known_info="\n".join(task.known_facts) or None,
                task_instructions=TASK_INSTRUCTIONS,
            ),
        ),
        evaluation_criteria=EvaluationCriteria(
            actions=[
                Action(
                    action_id=f"{task.id}-{i}", name=c.name, arguments=canonical_json(c.arguments)
                )
                for i, c in enumerate(task.gold_calls)
            ],
            communicate_info=told,
            reward_basis=["DB", "COMMUNICATE"] if told else ["DB"],
        ),
        domain=domain,
        strategy=record.strategy,
        messages=record.messages,
        tools=canonical_json(record.tools),
        gold_calls=canonical_json(
            [c.model_dump(mode="json", exclude_none=True) for c in task.gold_calls]
        ),
        expected=canonical_json(task.expected.model_dump(mode="json")),
        preference=task.preferences,
        tool_pricing=prices,
        difficulty=task.difficulty,
        provenance=task.provenance,
        environment_id=env_id,
    )


def rejected_row(rejection: Rejection, domain: str) -> RejectedRow:
    return RejectedRow(
        domain=domain,
        stage=rejection.stage,
        reason=str(rejection.reason),
        detail=rejection.detail,
        task_id=rejection.task_id,
        source=rejection.source,
        item=canonical_json(rejection.item) if rejection.item is not None else None,
    )


def task_rows(
    batches: Iterable[Batch], spec: EnvironmentSpec, domain: str
) -> Iterator[tuple[Task, TaskRow]]:
    """Every verified task of the batches, with its row, in commit order."""
    env_id, prices = environment_id(spec), pricing(spec)
    for batch in batches:
        records = {r.task_id: r for r in batch.trajectories}
        for task in batch.accepted:
            record = records.get(task.id)
            if record is None:
                raise ValueError(f"task {task.id!r} has no trajectory in its batch")
            yield task, task_row(task, record, env_id, prices, domain)


# -- the split -------------------------------------------------------------------------------


def held_out(
    tasks: Iterable[tuple[str, str | None, str]], fraction: float = TEST_FRACTION
) -> set[str]:
    """The ids that go to `test`, from (id, parent, gold sequence key) of every task: tasks
    tied by evolution or by the same gold sequence stay on one side, and groups are drawn
    in the order of a hash of their smallest id until `fraction` of the tasks is reached,
    so the split is the same on every run and never leaks a parent or a gold sequence."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    ids: list[str] = []
    for task_id, origin, gold in tasks:
        ids.append(task_id)
        find(task_id)
        if origin:
            union(task_id, "task:" + origin)
        union(task_id, "gold:" + gold)
    groups: dict[str, list[str]] = {}
    for task_id in ids:
        groups.setdefault(find(task_id), []).append(task_id)
    members = sorted(groups.values(), key=lambda g: hashlib.sha256(min(g).encode()).hexdigest())
    wanted = round(len(ids) * fraction)
    out: set[str] = set()
    for group in members:
        if len(out) >= wanted:
            break
        out.update(group)
    return out
