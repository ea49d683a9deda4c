"""`toolscale export --format tau2`: per domain, `tasks.json` (a list of tau2-bench `Task`
objects with exactly tau2's field names), `policy.md` and the database (`db.json`, and
`environment.json` to rebuild the sandbox with toolscale), so a tau2-bench user reads our
tasks with tau2's own data model.

The models below are written from tau2-bench's documented `Task` (src/tau2/data_model/
tasks.py); they forbid extra fields, so a field tau2 does not know fails the export's own
tests. The Hub rows (toolscale/dataset.py) share the description and the user scenario;
their `arguments` are JSON text, here an object, as tau2 has it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from toolscale.dataset import TaskRow

RewardType = Literal["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]
DEFAULT_BASIS: tuple[RewardType, ...] = ("DB", "COMMUNICATE")


class Description(BaseModel):
    model_config = ConfigDict(extra="forbid")

    purpose: str | None = None
    relevant_policies: str | None = None
    notes: str | None = None


class Instructions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    domain: str
    reason_for_call: str
    known_info: str | None = None
    unknown_info: str | None = None
    task_instructions: str


class UserScenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    persona: str | None = None
    instructions: Instructions


class Tau2Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    action_id: str
    requestor: Literal["assistant", "user"] = "assistant"
    name: str
    arguments: dict[str, Any]
    info: str | None = None
    compare_args: list[str] | None = None


class Tau2EvaluationCriteria(BaseModel):
    model_config = ConfigDict(extra="forbid")

    actions: list[Tau2Action] | None = None
    env_assertions: list[dict[str, Any]] | None = None
    communicate_info: list[str] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: list[RewardType] = Field(default_factory=lambda: list(DEFAULT_BASIS))


class Tau2Task(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    description: Description | None = None
    user_scenario: UserScenario
    initial_state: dict[str, Any] | None = None
    evaluation_criteria: Tau2EvaluationCriteria | None = None


def tau2_task(row: TaskRow) -> Tau2Task:
    """A task row as tau2-bench's `Task`: the same fields, `arguments` as an object."""
    criteria = row.evaluation_criteria
    return Tau2Task(
        id=row.id,
        description=row.description,
        user_scenario=row.user_scenario,
        initial_state=None,
        evaluation_criteria=Tau2EvaluationCriteria(
            actions=[
                Tau2Action(
                    action_id=a.action_id,
                    requestor="assistant",
                    name=a.name,
                    arguments=json.loads(a.arguments),
                )
                for a in criteria.actions
            ],
            communicate_info=criteria.communicate_info,
            nl_assertions=criteria.nl_assertions,
            reward_basis=["DB", "COMMUNICATE"],
        ),
    )


def write_domain(
    folder: Path, rows: list[TaskRow], policy: str, seed: dict[str, Any], spec_json: str
) -> None:
    """One domain's tau2 files."""
    folder.mkdir(parents=True, exist_ok=True)
    tasks = [tau2_task(r).model_dump(mode="json") for r in rows]
    (folder / "tasks.json").write_text(json.dumps(tasks, indent=2, ensure_ascii=False) + "\n")
    (folder / "policy.md").write_text(policy.rstrip() + "\n")
    (folder / "db.json").write_text(json.dumps(seed, indent=2, sort_keys=True) + "\n")
    (folder / "environment.json").write_text(spec_json + "\n")
