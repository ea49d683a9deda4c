"""Stage `policy`: rules in words, then a table of every tool's price and latency."""

from __future__ import annotations

from pathlib import Path

from generators.policy import (
    brief_policy,
    introduction_of,
    propose_policy,
    rendered_again,
    tau2_policy,
)
from tests.generators.library import Library, ask, brief, last_user, reply
from toolscale.rules import Enforcement, RuleCoverage
from toolscale.testing.fakedomain import library
from toolscale.testing.fakellm import scripted
from toolscale.tool import RequireStep


def test_the_policy_states_the_rules_and_prices_every_tool(lib: Library) -> None:
    """The `lib` fixture's policy came from propose_policy and the library model."""
    policy = lib.spec.policy
    assert policy.startswith("# Library assistant policy\n")
    assert "- Suspended members cannot borrow." in policy
    assert "| borrow_book | write |" in policy
    for tool in lib.spec.tools:
        row = f"| {tool.name} | {tool.kind} | {tool.price:.4f} | {tool.latency_ms:.0f} |"
        assert row in policy, tool.name


def test_an_overlong_rule_is_sent_back(tmp_path: Path, lib: Library) -> None:
    rules = ["Be kind.", "x" * 401, "Only lend a book with copies available."]
    long = {"introduction": "You help members of the public library.", "rules": rules}
    good = {**long, "rules": ["Be kind.", "Check the member.", "Only lend available books."]}
    asked = ask(
        scripted(reply(long), reply(good)),
        tmp_path,
        lambda llm: propose_policy(llm, brief(), lib.spec.tools),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    assert "- Check the member." in outcome.value
    assert "rule 2 is 401 characters; keep each rule under 400" in last_user(asked.requests[1])
    assert asked.llm.ledger.stage("policy").repairs == 1


def test_the_brief_alone_gives_a_policy(lib: Library) -> None:
    """When the model cannot write one: the brief's description and rules, the same table."""
    rules = [*brief().rules, "Returns are accepted at any branch."]
    policy = brief_policy(brief().model_copy(update={"rules": rules}), lib.spec.tools)
    assert "A small public library lends books" in policy
    for rule in rules:
        assert f"- {rule}" in policy
    assert policy.count("\n| ") == len(lib.spec.tools) + 1  # the header and a row per tool


def test_the_brief_alone_gives_a_policy_with_few_rules(lib: Library) -> None:
    assert len(brief().rules) == 2
    policy = brief_policy(brief(), lib.spec.tools)
    assert "- A member with status suspended cannot borrow." in policy


def test_where_tools_enforce_the_rules_the_model_words_only_the_introduction(
    tmp_path: Path, lib: Library
) -> None:
    """Ecommerce's policy stage took 8 minutes on the 1.5B model: it wrote rules over a
    prompt listing all 41 tools, and the enforced rules replaced them. Now the model is
    shown the brief and writes one sentence; the rules are the enforced ones."""
    borrow = next(t for t in lib.spec.tools if t.name == "borrow_book")
    rule = RuleCoverage(
        rule="Only a member with status active can borrow.",
        enforced_by=[Enforcement(tool="borrow_book", step=0, check=borrow.require[0].error)],
    )
    asked = ask(
        library,
        tmp_path,
        lambda llm: propose_policy(llm, brief(), lib.spec.tools, coverage=[rule]),
    )
    outcome = asked.value
    assert outcome.ok, outcome.rejection
    prompt = last_user(asked.requests[0])
    assert brief().description.strip() in prompt
    assert "borrow_book" not in prompt and "Business rules" not in prompt
    assert "You help members of the public library." in outcome.value
    assert "- Only a member with status active can borrow. (enforced by borrow_book)" in (
        outcome.value
    )
    assert "Identify the member by id" not in outcome.value  # no rule the model wrote


def test_a_stored_policy_is_rendered_again_over_the_tools_as_they_are(lib: Library) -> None:
    """A resumed run rebuilds its tools with today's code but kept its stored policy:
    ecommerce's and travel's policies did not list reasons their tools had gained
    ("No order item can be added to an order that is paid, shipped, delivered or
    cancelled."). The model's introduction is kept; the rest follows the tools."""
    borrow = next(t for t in lib.spec.tools if t.name == "borrow_book")
    rule = RuleCoverage(
        rule="Only a member with status active can borrow.",
        enforced_by=[Enforcement(tool="borrow_book", step=0, check=borrow.require[0].error)],
    )
    intro = "You help members of the public library.\n\nBe brief."
    stored = tau2_policy(brief(), intro, lib.spec.tools, [rule])
    assert introduction_of(stored) == intro
    assert rendered_again(brief(), stored, lib.spec.tools, [rule]) == stored
    gained = RequireStep(sql="SELECT 1 AS ok", error="No book can be borrowed on a closing day.")
    later = [
        t.model_copy(update={"require": [*t.require, gained]}) if t is borrow else t
        for t in lib.spec.tools
    ]
    assert gained.error not in stored
    again = rendered_again(brief(), stored, later, [rule])
    assert f"- {gained.error}" in again and again.startswith(stored.split("## Scope")[0])
    # a policy of the brief's rules (no coverage) is not one to render again
    plain = brief_policy(brief(), lib.spec.tools)
    assert introduction_of(plain) is None
    assert rendered_again(brief(), plain, later, []) == plain
