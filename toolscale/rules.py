"""Rule coverage: which rule of a domain's brief is enforced by which tool and `require` step.

Issue 8 asks that every rule of the brief be enforced by some tool and that the run say
which; the policy states only rules that are. This is that record, kept in the environment
document so the policy, the figures and a reader all see the same thing.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Enforcement(BaseModel):
    """One `require` step of one tool that enforces (part of) a rule."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    step: int | None = Field(
        default=None,
        ge=0,
        description="index into the tool's require steps; none when its write itself does it "
        "(a loan repaid to 0 becomes closed)",
    )
    check: str = Field(description="the step's error text: the rule as the agent is told it")


class RuleCoverage(BaseModel):
    """A rule of the brief and the steps that enforce it; none means it is not enforced."""

    model_config = ConfigDict(extra="forbid")

    rule: str = Field(min_length=1)
    enforced_by: list[Enforcement] = Field(default_factory=list)
    unchecked: list[str] = Field(
        default_factory=list,
        description="states the rule names that none of its steps checks (medicine's 'a "
        "completed appointment' with no step reading the appointment's status): the rule "
        "is then enforced in part, which is not enforced",
    )
    left_out: list[str] = Field(
        default_factory=list,
        description="operations left out because the rule forbids every state they start "
        "from (weather's 'a decommissioned station cannot be set back to active' beside a "
        "reactivation allowed only from decommissioned): no tool can break it",
    )

    @property
    def enforced(self) -> bool:
        return bool(self.enforced_by or self.left_out) and not self.unchecked

    def tools(self) -> list[str]:
        """The tools enforcing it, each once, in order."""
        return list(dict.fromkeys(e.tool for e in self.enforced_by))
