"""Stage 4: the policy the agent is given: rules in words (the tools' `require` steps enforce
them), and each tool's price and latency, so cost-aware agents can choose."""

from __future__ import annotations

from pydantic import BaseModel, Field

from generators.prompting import messages
from toolscale.brief import Brief
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.reasons import GeneratorReason
from toolscale.tool import Tool

STAGE = "policy"


class PolicyProposal(BaseModel):
    introduction: str = Field(min_length=10, max_length=600)
    rules: list[str] = Field(min_length=3, max_length=15)


def render_policy(brief: Brief, introduction: str, rules: list[str], tools: list[Tool]) -> str:
    lines = [f"# {brief.name.replace('_', ' ').title()} assistant policy", ""]
    lines += [introduction.strip(), "", "## Rules", ""]
    lines += [f"- {rule.strip()}" for rule in rules if rule.strip()]
    lines += [
        "",
        "## Tool costs",
        "",
        "| tool | kind | price (USD) | latency (ms) |",
        "|---|---|---|---|",
    ]
    lines += [f"| {t.name} | {t.kind} | {t.price:.4f} | {t.latency_ms:.0f} |" for t in tools]
    return "\n".join(lines) + "\n"


def brief_policy(brief: Brief, tools: list[Tool]) -> str:
    """The policy from the brief alone, when the model cannot write one."""
    rules = brief.rules or ["Identify the customer before changing anything."]
    return render_policy(brief, brief.description[:600], rules[:15], tools)


async def propose_policy(
    llm: LLMClient, brief: Brief, tools: list[Tool], sample: int = 0
) -> Outcome[str]:
    def check(proposal: PolicyProposal) -> str:
        problems = [
            f"rule {i + 1} is {len(r)} characters; keep each rule under 400"
            for i, r in enumerate(proposal.rules)
            if len(r) > 400
        ]
        problems += [
            f"rule {i + 1} is empty" for i, r in enumerate(proposal.rules) if not r.strip()
        ]
        if problems:
            raise Invalid(problems, reason=GeneratorReason.BAD_POLICY)
        return render_policy(brief, proposal.introduction, proposal.rules, tools)

    n_rules = min(12, max(4, len(brief.rules) + 2))
    return await llm.structured(
        messages("policy.j2", brief=brief, tools=tools, n_rules=n_rules),
        PolicyProposal,
        stage=STAGE,
        check=check,
        sample=sample,
    )
