"""Stage 4: the policy the agent is given, in the tau2-bench style: scope and role, identify
the user first and act only on their records, read before writing and confirm before any
write, one section per operation that exists with the rules its `require` steps enforce,
the brief's rules that some tool enforces (never one that none does), and each tool's
price and latency, so cost-aware agents can choose. The model words the introduction; the
rules come from the tools and the rule coverage, not from free text."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from generators.catalogue import unread_parts
from generators.prompting import messages
from toolscale.brief import Brief
from toolscale.llm.client import Invalid, LLMClient, Outcome
from toolscale.reasons import GeneratorReason
from toolscale.rules import RuleCoverage
from toolscale.tool import Tool, finders

STAGE = "policy"


class PolicyProposal(BaseModel):
    introduction: str = Field(min_length=10, max_length=600)
    rules: list[str] = Field(min_length=3, max_length=15)


class Introduction(BaseModel):
    """All the model writes where the tools enforce the rules: the policy's rules are theirs."""

    introduction: str = Field(min_length=10, max_length=600)


def _title(brief: Brief) -> str:
    return f"# {brief.name.replace('_', ' ').title()} assistant policy"


def _costs(tools: list[Tool]) -> list[str]:
    lines = [
        "## Tool costs",
        "",
        "| tool | kind | price (USD) | latency (ms) |",
        "|---|---|---|---|",
    ]
    lines += [f"| {t.name} | {t.kind} | {t.price:.4f} | {t.latency_ms:.0f} |" for t in tools]
    return lines


def render_policy(brief: Brief, introduction: str, rules: list[str], tools: list[Tool]) -> str:
    """Rules as given: for an environment without rule coverage (free-SQL tools only)."""
    lines = [_title(brief), "", introduction.strip(), "", "## Rules", ""]
    lines += [f"- {rule.strip()}" for rule in rules if rule.strip()]
    return "\n".join([*lines, "", *_costs(tools)]) + "\n"


def _looks_up(sql: str) -> bool:
    """A require step that only checks the named row exists: not a rule the user meets."""
    return bool(re.fullmatch(r"SELECT COUNT\(\*\) > 0 AS found FROM \w+ WHERE \w+ = :\w+", sql))


def tau2_policy(
    brief: Brief, introduction: str, tools: list[Tool], coverage: list[RuleCoverage]
) -> str:
    """The policy from the tools and the rule coverage: only what a tool enforces is a rule."""
    enforced = [c for c in coverage if c.enforced]
    finds = finders(tools)
    find = (
        "with " + " or ".join(f"`{t.name}`" for t in finds)
        if finds
        else "by the identifier they give, with a lookup tool"
    )
    lines = [_title(brief), "", introduction.strip(), ""]
    lines += [
        "## Scope and role",
        "",
        f"You are the assistant of this {brief.name.replace('_', ' ')} service: "
        f"{brief.description.strip()}",
        "You act only through the tools below, one call at a time, and help only with what "
        "they can do; refuse anything else and say why.",
        "",
        "## Before you act",
        "",
        f"- Identify the user first: find their record {find}, and act only on records "
        "that belong to them.",
        "- Read before you write: look up the record a change is about and check it against "
        "the rules below.",
        "- Before any write, state what you will do (the operation and its details) and go "
        "on only after the user explicitly confirms (yes).",
        "- When a tool refuses a call, tell the user the reason it gives; do not try to get "
        "around it with another tool.",
        "",
        "## Operations",
        "",
    ]
    rules = {c.rule.strip() for c in coverage}
    by_tool: dict[str, list[str]] = {}
    done_by: dict[str, list[str]] = {}  # rules a tool's write carries out, not refuses by
    for c in enforced:
        for name in c.tools():
            steps = [e.step for e in c.enforced_by if e.tool == name]
            # travel's bags rule is a charge: listed as a refusal, the agent would refuse
            # an extra bag instead of charging for it
            (by_tool if any(i is not None for i in steps) else done_by).setdefault(name, []).append(
                c.rule
            )
    for tool in [t for t in tools if t.kind == "write"]:
        lines += [f"### {tool.name}", "", tool.description.strip(), ""]
        checks = list(dict.fromkeys(r.error.strip() for r in tool.require if not _looks_up(r.sql)))
        checks += [r for r in by_tool.get(tool.name, []) if r not in checks]
        if checks:
            # the reasons, not rules that must hold: "The subscriptions row already has
            # that status." listed as a rule told the agent the opposite of the check
            lines += ["It refuses, with one of these reasons, when a check fails:", ""]
            lines += [f"- {c}{_in_part(c, tool, rules)}" for c in checks]
            lines.append("")
        if done := [r for r in done_by.get(tool.name, []) if r not in checks]:
            lines += ["Its write itself carries out:", ""]
            lines += [f"- {r}" for r in done]
            lines.append("")
    reads = [t for t in tools if t.kind == "read"]
    if reads:
        lines += ["### Looking things up", ""]
        lines += [f"- `{t.name}`: {t.description.strip()}" for t in reads]
        lines.append("")
    if enforced:
        lines += ["## Rules", ""]
        for c in enforced:
            lines.append(f"- {c.rule.strip()} ({_how(c, tools)})")
        lines.append("")
    return "\n".join([*lines, *_costs(tools)]) + "\n"


def _how(coverage: RuleCoverage, tools: list[Tool]) -> str:
    """What keeps a rule: the tools that check all of it, those that check a part (with the
    part they leave), or that no operation left could break it."""
    by_name = {t.name: t for t in tools}
    whole: list[str] = []
    part: list[str] = []
    for name in coverage.tools():
        tool = by_name.get(name)
        left = _unread(coverage.rule, tool) if tool else []
        (part if left else whole).append(f"{name} (not {', '.join(left)})" if left else name)
    how = [f"enforced by {', '.join(whole)}"] if whole else []
    if part:
        how.append(f"{'in part ' if whole else 'each in part, '}by {', '.join(part)}")
    if coverage.left_out:
        how.append("no tool can do what it forbids")
    return "; ".join(how)


def _unread(rule: str, tool: Tool) -> list[str]:
    """What of `rule` none of the tool's steps reads: restaurant's move_order_menu_item was
    listed under "an order can only be placed for a reservation with status seated and for
    a menu item whose is_available is true" and checks only the menu item, so an agent
    read it as refusing an order on a booked reservation, which it moves."""
    if tool.kind != "write":
        return []
    return unread_parts(rule, [r.sql for r in tool.require], tool.run)


def _in_part(check: str, tool: Tool, rules: set[str]) -> str:
    unread = _unread(check, tool) if check in rules else []
    return f" (the tool does not check this part: {', '.join(unread)})" if unread else ""


def introduction_of(policy: str) -> str | None:
    """The model's introduction in a policy `tau2_policy` rendered: what a stored policy
    keeps of the model, so it can be rendered again over today's tools."""
    title, _, rest = policy.partition("\n\n")
    intro, found, _ = rest.partition("\n\n## Scope and role\n")
    return intro if title.startswith("# ") and found and intro.strip() else None


def rendered_again(
    brief: Brief, policy: str, tools: list[Tool], coverage: list[RuleCoverage]
) -> str:
    """A stored policy over the tools as they are now: a resumed run whose tools gained a
    step (restaurant's move of an order into a cancelled reservation) kept the policy of
    the old ones, which did not list the step's reason."""
    intro = introduction_of(policy) if coverage else None
    return policy if intro is None else tau2_policy(brief, intro, tools, coverage)


def brief_policy(
    brief: Brief, tools: list[Tool], coverage: list[RuleCoverage] | None = None
) -> str:
    """The policy from the brief alone, when the model cannot write one."""
    if coverage:
        return tau2_policy(brief, brief.description[:600], tools, coverage)
    rules = brief.rules or ["Identify the customer before changing anything."]
    return render_policy(brief, brief.description[:600], rules[:15], tools)


async def propose_policy(
    llm: LLMClient,
    brief: Brief,
    tools: list[Tool],
    sample: int = 0,
    coverage: list[RuleCoverage] | None = None,
) -> Outcome[str]:
    """With `coverage`, the model words only the introduction, from the brief alone: the
    rules are the enforced ones (see `tau2_policy`). Asking it for rules there, over every
    tool, cost ecommerce's 1.5B run 8 minutes for text that was thrown away."""
    if coverage:
        enforced = coverage

        def introduced(proposal: Introduction) -> str:
            return tau2_policy(brief, proposal.introduction, tools, enforced)

        return await llm.structured(
            messages("introduction.j2", brief=brief),
            Introduction,
            stage=STAGE,
            check=introduced,
            sample=sample,
        )

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
