"""Stage `tool_choice`: the model picks from the catalogue and maps the rules; bad answers
are fed back, an unusable one falls back to the deterministic selection; the finance
brief's seven rules end up enforced either way."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from generators.catalogue import (
    CHOICE_TOKENS,
    EXAMPLE_DESCRIPTION,
    MAX_DESCRIPTION,
    MAX_PICKS,
    CatalogueChoice,
    PatternTools,
    RuleChoice,
    ToolChoice,
    choice_problems,
    describes_its_states,
    fallback_choice,
    forbidding,
    keeps_verb,
    names_its_records,
    propose_pattern_tools,
    realise,
    salvage,
    unchecked_states,
)
from generators.patterns import Condition, catalogue, condition_problems
from generators.policy import tau2_policy
from generators.rulemap import candidate_for, guess_conditions
from generators.toolkit import schema_tools
from generators.tools import propose_tools
from tests.generators.basketball import basketball_rules, basketball_spec
from tests.generators.ecommerce import ecommerce_spec
from tests.generators.finance import SEED, finance_brief, finance_schema
from tests.generators.library import Library, ask, brief, last_user, reply, stage_of
from tests.generators.movie import SCHEMA as MOVIE_SCHEMA
from tests.generators.movie import SEED as MOVIE_SEED
from tests.generators.railway import bed, brief_rules, col, fk, railway_rules, railway_spec
from tests.generators.test_patterns import banking
from toolscale.environment import Environment
from toolscale.figures import environment_figures
from toolscale.rules import Enforcement, RuleCoverage
from toolscale.spec import EnvironmentSpec
from toolscale.testing.fakedomain import library
from toolscale.testing.fakellm import FakeLLM, Reply, scripted
from toolscale.tool import RequireStep, Tool, ToolCall

SCRIPTED = {  # what a model that follows the menu answers for the finance brief
    "tools": [
        {"candidate": "transfer:accounts.balance", "name": "transfer_funds",
         "description": "Move money."},
        {"candidate": "find:clients by email", "name": "find_client", "description": "Find."},
    ],
    "rules": [
        {"rule": 1, "candidate": "transfer:accounts.balance", "conditions": [
            {"kind": "in", "row": "from_account_id", "column": "status", "values": ["active"]},
            {"kind": "guard", "guard": "enough"}]},
        {"rule": 2, "candidate": "transfer:accounts.balance", "conditions": [
            {"kind": "guard", "guard": "positive"}, {"kind": "guard", "guard": "distinct"},
            {"kind": "amount", "op": "<=", "value": 10000}]},
        {"rule": 3, "candidate": "status:accounts.status=closed", "conditions": [
            {"kind": "value", "column": "balance", "op": "=", "value": 0}]},
        {"rule": 4, "candidate": "create:cards under accounts", "conditions": [
            {"kind": "in", "row": "account_id", "column": "status", "values": ["active"]},
            {"kind": "count", "row": "account_id", "child": "cards", "column": "status",
             "value": "active", "number": 2}]},
        {"rule": 5, "candidate": "status:cards.status=active", "conditions": [
            {"kind": "value", "column": "frozen_reason", "op": "<>", "value": "stolen"}]},
        {"rule": 6, "candidate": "create:loans under clients", "conditions": [
            {"kind": "count", "row": "client_id", "child": "loans", "column": "status",
             "value": "active", "number": 1},
            {"kind": "amount", "row": "client_id", "column": "annual_income", "op": "<=",
             "factor": 5}]},
        {"rule": 7, "candidate": "adjust:loans.outstanding", "conditions": [
            {"kind": "guard", "guard": "positive"}, {"kind": "guard", "guard": "not_above"},
            {"kind": "guard", "guard": "close_at_zero"}]},
    ],
}  # fmt: skip


def finance() -> EnvironmentSpec:
    schema = finance_schema()
    return EnvironmentSpec(name="finance", schema_=schema, seed=SEED, tools=schema_tools(schema))


def assembled(spec: EnvironmentSpec, tools, rules) -> EnvironmentSpec:
    return spec.model_copy(update={"tools": [*spec.tools, *tools], "rules": rules})


def test_the_fallback_maps_every_finance_rule_and_meets_the_floors() -> None:
    spec, rules = finance(), finance_brief().rules
    cands = catalogue(spec.schema_, spec.seed)
    out = realise(fallback_choice(cands, rules, spec.schema_, spec.seed), cands, rules, spec)
    assert out.dropped == []
    assert [r.rule for r in out.rules] == rules
    assert all(r.enforced for r in out.rules), [r.rule for r in out.rules if not r.enforced]
    assert out.rules[4].tools() == ["activate_card"]  # the stolen card rule
    figures = environment_figures(assembled(spec, out.tools, out.rules))
    assert figures.tools >= 14 and figures.guarded_writes >= 6
    assert (figures.rules_in_brief, figures.rules_enforced) == (7, 7)


def test_a_tool_whose_rule_refuses_every_seed_row_is_kept_and_refuses() -> None:
    """No active account of the banking seed has a zero balance: closing one is refused by
    the rule on every row, which shows the program runs (and makes refusal tasks)."""
    spec, rules = banking(), finance_brief().rules
    cands = catalogue(spec.schema_, spec.seed)
    out = realise(fallback_choice(cands, rules, spec.schema_, spec.seed), cands, rules, spec)
    figures = environment_figures(assembled(spec, out.tools, out.rules))
    assert figures.tools >= 14 and figures.guarded_writes >= 6
    closing = out.rules[2]
    assert closing.tools() == ["close_account"]
    account = next(a for a in spec.seed["accounts"] if a["status"] == "active")
    with Environment(assembled(spec, out.tools, out.rules)) as env:
        result = env.step(
            ToolCall(name="close_account", arguments={"account_id": account["account_id"]})
        )
    assert not result.ok and result.error == rules[2]


def test_rules_the_model_leaves_unmapped_are_mapped_from_their_wording(tmp_path: Path) -> None:
    shy = {
        "tools": [{"candidate": "transfer:accounts.balance", "name": "transfer_funds"}],
        "rules": [
            {"rule": 1, "candidate": "transfer:accounts.balance",
             "conditions": [{"kind": "guard", "guard": "enough"}]}
        ],
    }  # fmt: skip
    asked = ask(
        scripted(reply(shy)),
        tmp_path,
        lambda llm: propose_pattern_tools(llm, finance_brief(), finance()),
    )
    out = asked.value
    assert not out.fell_back and out.rules[0].tools() == ["transfer_funds"]
    assert sum(r.enforced for r in out.rules) >= 6


def test_a_scripted_answer_maps_all_seven_rules_after_feedback(tmp_path: Path) -> None:
    """An answer with nothing usable (an unknown id, a column the table lacks) goes back
    once with its problems."""
    bad = {
        "tools": [{"candidate": "transfer:nowhere", "name": "x"}],
        "rules": [
            {"rule": 1, "candidate": "transfer:accounts.balance", "conditions": [
                {"kind": "value", "row": "from_account_id", "column": "colour", "value": "red"}]}
        ],
    }  # fmt: skip
    asked = ask(
        scripted(reply(bad), reply(SCRIPTED)),
        tmp_path,
        lambda llm: propose_pattern_tools(llm, finance_brief(), finance()),
    )
    out = asked.value
    feedback = last_user(asked.requests[1])
    assert "unknown candidate 'transfer:nowhere'" in feedback
    assert "table accounts has no column 'colour'" in feedback
    assert not out.fell_back
    assert all(r.enforced for r in out.rules)
    assert out.rules[0].tools() == ["transfer_funds"]
    names = {t.name for t in out.tools}
    assert {"transfer_funds", "find_client", "close_account", "activate_card"} <= names
    figures = environment_figures(assembled(finance(), out.tools, out.rules))
    assert figures.tools >= 14 and figures.guarded_writes >= 6  # topped up to the floors


def test_an_unusable_answer_falls_back(tmp_path: Path) -> None:
    asked = ask(
        scripted(Reply(content="not json at all")),
        tmp_path,
        lambda llm: propose_pattern_tools(llm, finance_brief(), finance()),
    )
    out = asked.value
    assert out.fell_back and out.dropped[0].reason == "fell_back_to_catalogue"
    assert sum(r.enforced for r in out.rules) == 7
    assert asked.llm.ledger.stage("tool_choice").repairs == 1


def test_the_library_model_maps_both_library_rules(tmp_path: Path, lib: Library) -> None:
    """Its answer names one unknown candidate beside the right ones: what fits is kept at
    once, with no second request (repairs bought nothing on three domains' answers)."""
    spec = lib.spec.model_copy(update={"tools": lib.core})
    asked = ask(library, tmp_path, lambda llm: propose_pattern_tools(llm, brief(), spec))
    out = asked.value
    assert [c.tools() for c in out.rules] == [["lend_book"], ["lend_book"]]
    lend = next(t for t in out.tools if t.name == "lend_book")
    assert "A member with status suspended cannot borrow." in [r.error for r in lend.require]
    choices = [b for b in asked.requests if stage_of(b) == "CatalogueAnswer"]
    assert len(choices) == 1 and asked.llm.ledger.stage("tool_choice").repairs == 0
    # with a round of feedback (`tool_choice_feedback`), the slip goes back first
    asked = ask(
        library, tmp_path / "fed", lambda llm: propose_pattern_tools(llm, brief(), spec, feedback=1)
    )
    choices = [b for b in asked.requests if stage_of(b) == "CatalogueAnswer"]
    assert len(choices) == 2 and "unknown candidate 'no:such candidate'" in last_user(choices[1])
    assert [c.tools() for c in asked.value.rules] == [["lend_book"], ["lend_book"]]


def test_the_policy_states_only_enforced_rules_and_a_section_per_operation() -> None:
    spec, rules = finance(), finance_brief().rules
    cands = catalogue(spec.schema_, spec.seed)
    out = realise(fallback_choice(cands, rules, spec.schema_, spec.seed), cands, rules, spec)
    coverage = [*out.rules[:6], RuleCoverage(rule=rules[6])]  # pretend rule 7 is not enforced
    tools = [*spec.tools, *out.tools]
    policy = tau2_policy(finance_brief(), "You help the bank's clients.", tools, coverage)
    assert policy.startswith("# Finance assistant policy\n\nYou help the bank's clients.")
    assert "`find_client_by_email`" in policy.split("## Operations")[0]  # identify first
    assert "explicitly confirms" in policy
    for tool in tools:
        if tool.kind == "write":
            assert f"### {tool.name}\n" in policy
    rules_part = policy.split("## Rules\n")[1].split("## Tool costs")[0]
    for rule in rules[:6]:
        assert rule in rules_part
    assert rules[6] not in policy
    assert "| transfer_balance | write |" in policy
    assert "row with that" not in policy.split("## Operations")[1]  # a lookup is no rule
    # a refusal's reason read as a rule that must hold: "It refuses unless every rule
    # holds: - The subscriptions row already has that status." (weather's on 8a86ecf)
    email = policy.split("### update_client_email\n")[1].split("###")[0]
    assert "- The client already has that email." in email
    assert "It refuses, with one of these reasons, when a check fails:" in email
    assert "unless every rule holds" not in policy


def test_a_copied_or_empty_description_gives_way_to_the_patterns() -> None:
    spec = finance()
    cands = catalogue(spec.schema_, spec.seed)
    transfer = next(c for c in cands if c.pattern == "transfer")
    picks = [
        ToolChoice(candidate=transfer.id, name="transfer_funds", description=EXAMPLE_DESCRIPTION)
    ]
    out = realise(CatalogueChoice(tools=picks, rules=[]), cands, [], spec)
    assert [t.description for t in out.tools] == [transfer.tool.description]
    said = "Move money from one of the client's accounts to another."
    picks = [ToolChoice(candidate=transfer.id, name="transfer_funds", description=said)]
    out = realise(CatalogueChoice(tools=picks, rules=[]), cands, [], spec)
    assert [t.description for t in out.tools] == [said]


def test_a_description_that_misstates_the_states_gives_way_to_the_patterns() -> None:
    """Finance's model described `set_repaid_loan` as "Repay a loan if it is active or
    closed" (only an active loan can be) and `set_pending_transfer` as "Start a transfer if
    it is pending" (only a failed one can be); the policy told agents both."""
    spec = finance()
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    close = cands["status:accounts.status=closed"]  # from active or frozen
    activate = cands["status:accounts.status=active"]  # from frozen
    schema = spec.schema_
    assert describes_its_states("Close an account if it is active or frozen.", close, schema)
    assert describes_its_states("Close an account for good: it ends closed.", close, schema)
    assert not describes_its_states("Close an account when it is closed.", close, schema)
    assert not describes_its_states(
        "Activate an account if it is frozen or closed.", activate, schema
    )
    said = "Activate an account only if it is active."
    picks = [ToolChoice(candidate=activate.id, name="activate_account", description=said)]
    out = realise(CatalogueChoice(tools=picks, rules=[]), list(cands.values()), [], spec)
    assert [t.description for t in out.tools] == [activate.tool.description]


def test_the_free_sql_stage_stops_within_its_budget(tmp_path: Path, lib: Library) -> None:
    base = lib.spec.model_copy(update={"tools": lib.core, "policy": ""})
    with FakeLLM(library, latency_s=0.4) as fake:  # every answer takes 0.4 s
        import asyncio

        from toolscale.llm.cache import ResponseCache
        from toolscale.llm.client import LLMClient
        from toolscale.llm.config import LLMConfig

        config = LLMConfig(base_url=fake.base_url, model="fake", concurrency=1, timeout_s=5)
        llm = LLMClient(config, ResponseCache(tmp_path))

        async def main():
            try:
                return await propose_tools(llm, brief(), base, budget_s=1.0)
            finally:
                await llm.close()

        kept, dropped = asyncio.run(main())
        asked = fake.count
    # counted, not timed (a timed bound failed on a busy machine: 2.75 s for 2.5): a
    # budget of 1 s at 0.4 s an answer starts at most 4 requests, a slower machine fewer;
    # unbounded, 4 tools x up to 4 tries is 16
    assert asked <= 5, asked
    assert any(r.reason == "budget_spent" for r in dropped)
    assert len(kept) < 3


def test_a_model_name_that_drops_the_patterns_verb_is_not_used() -> None:
    assert keeps_verb("transfer_funds", "transfer_account_balance")
    assert keeps_verb("repay_loan", "repay_loan_outstanding")
    assert keeps_verb("pay_off_loan", "repay_loan_outstanding")  # a synonym
    assert not keeps_verb("adjust_max_balance", "reduce_account_max_balance")
    assert not keeps_verb("", "close_account")
    assert keeps_verb("set_card_frozen", "set_card_status")  # a generic verb says nothing
    # ... so the word after it says what the tool does
    assert not keeps_verb("update_game_status", "set_scheduled_game")
    assert keeps_verb("schedule_game", "set_scheduled_game")
    assert keeps_verb("mark_game_scheduled", "set_scheduled_game")
    # movie's model named a status change by the field it sets: no act for a user to ask
    assert not keeps_verb("status_active_bookings", "set_active_booking")
    assert keeps_verb("activate_booking", "set_active_booking")


def test_a_model_name_that_drops_the_record_it_acts_on_is_not_used() -> None:
    """Medicine's model named the move of a prescription to another appointment
    `move_appointment` and the move of an appointment to another patient `move_patient`:
    its users then asked to "move this appointment". A name says the row's kind, and a
    move says where to."""
    spec = finance()
    cands = {c.id: c for c in catalogue(spec.schema_, spec.seed)}
    move = next(c for i, c in cands.items() if i.startswith("move:cards."))
    status = next(c for i, c in cands.items() if i.startswith("status:cards."))
    assert not names_its_records("move_account", move)  # the card is not said
    assert not names_its_records("move_card", move)  # nor where to
    assert names_its_records(move.tool.name, move)
    assert not names_its_records("freeze", status)
    assert names_its_records("freeze_card", status)
    create = next(c for i, c in cands.items() if i.startswith("create:"))
    assert names_its_records("open_new", create)  # a create is checked by its verb alone


def test_a_mapping_onto_another_operation_or_a_condition_no_row_passes_is_refused() -> None:
    """Railway's 1.5B mapped "a ticket can be moved to another trip" onto selling a ticket
    and enforced "first class" as `train_id = 'first_class'`, a check no trip passes: the
    coverage said 6 of 6 while selling was refused for everyone."""
    spec = railway_spec()
    cands = catalogue(spec.schema_, spec.seed)
    rules = railway_rules()
    seats = Condition(
        kind="compare", row="trip_id", column="seats_sold", op="<",
        other="trip_id.train_id", other_column="capacity",
    )  # fmt: skip
    moved = RuleChoice(rule=5, candidate="create:tickets under passengers", conditions=[seats])
    first = RuleChoice(
        rule=2,
        candidate="create:tickets under passengers",
        conditions=[Condition(kind="value", row="trip_id", column="train_id", value="first_class")],
    )
    choice = CatalogueChoice(tools=[], rules=[moved, first])
    problems = choice_problems(choice, cands, rules, spec.schema_, set())
    assert problems == [
        "rules: rule 5 is about another operation than create:tickets under passengers "
        "(create a ticket row under a passenger); map it to the operation it names, or "
        "leave it out",
        "rules: rule 2: create:tickets under passengers: condition value: trips.train_id is a "
        "number; ['first_class'] is not",
    ]
    assert salvage(choice, cands, rules, spec.schema_).rules == []


def test_a_rule_the_wording_reads_is_mapped_as_it_reads(tmp_path: Path) -> None:
    """Railway's 1.5B mapped "on a trip with status scheduled or delayed, while seats_sold
    is below the train's capacity" as status = 'scheduled' alone, refusing delayed trips
    and selling on full trains; the wording's reading replaces it."""
    spec = railway_spec()
    brief = finance_brief().model_copy(update={"name": "railway", "rules": railway_rules()})
    narrow = {
        "tools": [{"candidate": "create:tickets under passengers", "name": "create_ticket"}],
        "rules": [
            {"rule": 1, "candidate": "create:tickets under passengers",
             "conditions": [{"kind": "in", "row": "trip_id", "column": "status",
                             "values": ["scheduled"]}]}
        ],
    }  # fmt: skip
    out = ask(
        scripted(reply(narrow)), tmp_path, lambda llm: propose_pattern_tools(llm, brief, spec)
    ).value
    sell = next(t for t in out.tools if t.name == "create_ticket")
    steps = [s.sql for s in sell.require if s.error == railway_rules()[0]]
    assert any("IN ('scheduled', 'delayed')" in sql for sql in steps)
    assert any("capacity" in sql for sql in steps)
    assert not any("IN ('scheduled')" in sql for sql in steps)
    # the sale the rule needs counts itself on seats_sold, under the model's name, and is
    # the only sale: the plain one's pick and rules went to it
    assert any("seats_sold = seats_sold + 1" in sql for sql in sell.run)
    assert [t.name for t in out.tools if t.name.startswith("create_ticket")] == ["create_ticket"]
    assert any(s.error == railway_rules()[2] for s in sell.require)  # "at most 4 tickets"


def test_a_rule_that_allows_either_of_two_cases_is_mapped_only_as_one_either() -> None:
    """Travel's "a flight booking gets a full refund only within 24 hours of its booked_at
    time or when the flight's status is cancelled" once became "a hotel booking needs a
    cancelled flight": one case of two, as a condition that must hold, refuses the other.
    The wording maps it to one `either` of the two cases; a model's mapping must be one
    too, and anything else is refused and dropped."""
    spec = railway_spec()
    cands = catalogue(spec.schema_, spec.seed)
    either = "A ticket can be refunded only before the trip's departure_time or when the trip's "
    rules = [either + "status is cancelled.", either.replace(" or when", ", and only when")]
    writes = [c for c in cands if c.tool.kind == "write"]
    refund = candidate_for(rules[0], writes)
    assert refund is not None and refund.id == "status:tickets.status=refunded"
    departs = Condition(
        kind="days_ahead", row="ticket_id.trip_id", column="departure_time", number=0
    )
    cancelled = Condition(kind="in", row="ticket_id.trip_id", column="status", values=["cancelled"])
    assert guess_conditions(rules[0], refund, spec.schema_, spec.seed) == [
        Condition(kind="either", cases=[departs, cancelled])
    ]
    must = guess_conditions(rules[1], refund, spec.schema_, spec.seed)  # both must hold
    assert departs in must and all(c.kind != "either" for c in must)
    one_case = RuleChoice(rule=1, candidate=refund.id, conditions=[departs])
    choice = CatalogueChoice(tools=[], rules=[one_case])
    assert choice_problems(choice, cands, rules, spec.schema_, set()) == [
        "rules: rule 1 allows the operation in either of two cases: map it to one condition "
        "of kind either with a case for each, or leave it out"
    ]
    assert salvage(choice, cands, rules, spec.schema_).rules == []
    both = one_case.model_copy(
        update={"conditions": [Condition(kind="either", cases=[departs, cancelled])]}
    )
    answer = CatalogueChoice(tools=[], rules=[both])
    assert choice_problems(answer, cands, rules, spec.schema_, set()) == []
    assert salvage(answer, cands, rules, spec.schema_).rules == [both]
    (mapped,) = fallback_choice(cands, rules[:1], spec.schema_, spec.seed).rules
    assert mapped.conditions == both.conditions
    lone = Condition(kind="either", cases=[departs])
    guarded = Condition(kind="either", cases=[departs, Condition(kind="guard", guard="exists")])
    assert condition_problems(refund, lone, spec.schema_) == [
        f"{refund.id}: condition either: needs two or more cases"
    ]
    assert condition_problems(refund, guarded, spec.schema_) == [
        f"{refund.id}: condition either: case 2 must be a condition of another kind than "
        "guard or either, with no if_ fields"
    ]


def test_a_rule_about_one_attribute_is_not_mapped_onto_an_update_of_another() -> None:
    """Ecommerce's "the shipping address of an order can be changed only before its status
    becomes shipped" was counted as enforced by update_customer_email (its orders had no
    shipping address): a rule is about the attribute it names."""
    from generators.rulemap import says_other_operation

    spec = finance()
    email = next(c for c in catalogue(spec.schema_, spec.seed) if c.id == "update:clients.email")
    rule = "The shipping address of an order can be changed only before its status becomes shipped."
    assert says_other_operation(rule, email)
    assert candidate_for(rule, [email]) is None
    mine = "A client's email can be changed only while the client is active."
    assert not says_other_operation(mine, email)


def test_the_policy_identifies_the_user_only_with_lookups_of_people() -> None:
    """Travel's policy said to identify the user with `find_hotel_by_name` or
    `find_flight_booking_by_name`: neither finds a person."""
    spec = finance()
    cands = catalogue(spec.schema_, spec.seed)
    out = realise(fallback_choice(cands, [], spec.schema_, spec.seed), cands, [], spec)
    by_name = next(t for t in out.tools if t.name == "find_client_by_name")
    account = by_name.model_copy(  # a lookup of another table, as travel's find_hotel_by_name
        update={
            "name": "find_account_by_kind",
            "returns": "SELECT account_id, kind FROM accounts WHERE kind = :kind",
        }
    )
    tools = [*spec.tools, *out.tools, account]
    finds = [t.name for t in tools if t.name.startswith("find_")]
    policy = tau2_policy(finance_brief(), "You help the bank's clients.", tools, [])
    identify = next(line for line in policy.splitlines() if "Identify the user" in line)
    said = set(re.findall(r"`(find_\w+)`", identify))
    assert "find_client_by_email" in said
    assert said == {f for f in finds if f.startswith("find_client")}


def test_the_answer_is_bounded_so_it_ends_before_the_token_cap(tmp_path: Path) -> None:
    """Movie's 1.5B listed all 40 candidates, some twice, ran into the 2048-token cap, and
    its cut JSON cost a second 5-minute answer. The server's grammar now holds the answer to
    25 picks of one sentence each, and the call gets the tokens that takes; a short answer
    is topped up to the floors."""
    asked = ask(
        scripted(reply(SCRIPTED)),
        tmp_path,
        lambda llm: propose_pattern_tools(llm, finance_brief(), finance()),
    )
    body = asked.requests[0]
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["json_schema"]["name"] == "CatalogueAnswer"
    pick = schema["$defs"]["ToolChoice"]["properties"]
    assert schema["properties"]["tools"]["maxItems"] == MAX_PICKS == 25
    assert pick["description"]["maxLength"] == MAX_DESCRIPTION
    assert body["max_tokens"] == CHOICE_TOKENS > 2048
    # the longest answer the grammar lets through, with finance's own ids, in the budget at
    # a conservative 3 characters a token (Qwen's tokenizer averages about 4 on JSON)
    ids = sorted((c.id for c in catalogue(finance().schema_, finance().seed)), key=len)
    longest = [
        {"candidate": i, "name": "x" * 40, "description": "y" * MAX_DESCRIPTION}
        for i in ids[-MAX_PICKS:]
    ]
    # the rest of the budget is the rules' (7 rules of 2 conditions: about 700 tokens)
    assert len(json.dumps({"tools": longest})) / 3 < CHOICE_TOKENS - 700
    assert "Choose about 14 operations" in last_user(body)


def test_a_variant_picked_without_a_name_is_named_as_its_plain_operation() -> None:
    """Ecommerce's users asked to "create an order item taking stock": the variant's own
    name, `create_order_item_taking_stock`, was the tool's. A name is how an agent and a
    user call the act; the stock it takes is in the description."""
    spec = ecommerce_spec()
    candidates = catalogue(spec.schema_, spec.seed)
    taking = "create:order_items under orders taking products.stock"
    plain = taking.split(" taking ")[0]
    by_id = {c.id: c for c in candidates}
    assert by_id[taking].tool.name == by_id[plain].tool.name + "_taking_stock"
    alone = CatalogueChoice(tools=[ToolChoice(candidate=taking)])
    made = realise(alone, candidates, [], spec).tools
    assert [t.name for t in made] == [by_id[plain].tool.name]
    assert "Takes its quantity from the product's stock." in made[0].description
    # beside its plain form, each keeps its own name: one tool per name
    both = CatalogueChoice(tools=[ToolChoice(candidate=taking), ToolChoice(candidate=plain)])
    names = sorted(t.name for t in realise(both, candidates, [], spec).tools)
    assert names == sorted([by_id[taking].tool.name, by_id[plain].tool.name])


def test_a_state_the_rule_names_and_no_step_reads_is_enforced_in_part() -> None:
    """Medicine's "A prescription requires a completed appointment between the same patient
    and the prescribing doctor" was mapped onto the patient and the doctor alone: counted as
    enforced, while any appointment did. The state no step reads makes it enforced in part,
    which the figures count as not enforced and the policy says."""
    rule = "A prescription requires a completed appointment with the same doctor."
    same = "SELECT doctor_id = :doctor_id AS ok FROM appointments WHERE appointment_id = :a"
    write = Tool.model_validate(
        {
            "name": "create_prescription",
            "description": "Create a prescription for an appointment.",
            "kind": "write",
            "parameters": {"type": "object", "properties": {}},
            "require": [{"sql": same, "error": rule}],
            "run": ["DELETE FROM appointments WHERE 0"],
        }
    )
    coverage = RuleCoverage(
        rule=rule, enforced_by=[Enforcement(tool=write.name, step=0, check=rule)]
    )
    partly = unchecked_states(coverage, [write])
    assert partly.unchecked == ["completed"] and not partly.enforced
    policy = tau2_policy(finance_brief(), "You help patients.", [write], [partly])
    assert f"- {rule} (the tool does not check this part: completed)" in policy
    done = "SELECT status = 'completed' AS ok FROM appointments WHERE appointment_id = :a"
    both = write.model_copy(update={"require": [*write.require, RequireStep(sql=done, error=rule)]})
    whole = coverage.model_copy(
        update={
            "enforced_by": [*coverage.enforced_by, Enforcement(tool=write.name, step=1, check=rule)]
        }
    )
    assert unchecked_states(whole, [both]).enforced
    # a span of time no step reads: ecommerce's returns were checked for "delivered" alone
    window = "A return can be opened only for a delivered order within 30 days of delivery."
    delivered = "SELECT status = 'delivered' AS ok FROM orders WHERE order_id = :o"
    opened = write.model_copy(update={"require": [RequireStep(sql=delivered, error=window)]})
    said = RuleCoverage(
        rule=window, enforced_by=[Enforcement(tool=write.name, step=0, check=window)]
    )
    assert unchecked_states(said, [opened]).unchecked == ["30 days"]
    days = (
        "SELECT julianday(:_now) - julianday(delivered_date) <= 30 AS ok FROM orders "
        "WHERE order_id = :o"
    )
    timed = opened.model_copy(
        update={"require": [*opened.require, RequireStep(sql=days, error=window)]}
    )
    both_steps = said.model_copy(
        update={
            "enforced_by": [*said.enforced_by, Enforcement(tool=write.name, step=1, check=window)]
        }
    )
    assert unchecked_states(both_steps, [timed]).enforced
    policy = tau2_policy(
        finance_brief(), "You help shoppers.", [opened], [unchecked_states(said, [opened])]
    )
    assert f"- {window} (the tool does not check this part: 30 days)" in policy
    # a field no step reads: basketball on 65cb0f1 enforced "while tickets_sold is below
    # the game's capacity" by the status alone, and "the home and away scores cannot be
    # equal" by no step, its games holding no scores
    sale = "A ticket is sold for a scheduled game while tickets_sold is below the game's capacity."
    scheduled = "SELECT status = 'scheduled' AS ok FROM games WHERE game_id = :g"
    sell = write.model_copy(
        update={
            "require": [RequireStep(sql=scheduled, error=sale)],
            "run": ["UPDATE games SET tickets_sold = tickets_sold + 1 WHERE game_id = :g"],
        }
    )
    sold = RuleCoverage(rule=sale, enforced_by=[Enforcement(tool=write.name, step=0, check=sale)])
    assert unchecked_states(sold, [sell]).unchecked == ["capacity"]
    room = "SELECT tickets_sold < tickets_capacity AS ok FROM games WHERE game_id = :g"
    roomy = sell.model_copy(update={"require": [RequireStep(sql=room, error=sale)]})
    assert unchecked_states(sold, [roomy]).enforced
    result = "A result is recorded for a scheduled game, and the home and away scores differ."
    finish = sell.model_copy(update={"require": [RequireStep(sql=scheduled, error=result)]})
    scored = RuleCoverage(
        rule=result, enforced_by=[Enforcement(tool=write.name, step=0, check=result)]
    )
    assert unchecked_states(scored, [finish]).unchecked == ["home score", "away score"]
    # a measure said with the column that holds it: weather's "an email address" is its
    # subscriptions' `email`, and read where the email is (reported in part on 285d063)
    capped = "An email address can have at most 5 subscriptions with status active."
    per_email = (
        "SELECT COUNT(*) < 5 AS ok FROM subscriptions WHERE email = :e AND status = 'active'"
    )
    subscribe = sell.model_copy(update={"require": [RequireStep(sql=per_email, error=capped)]})
    emailed = RuleCoverage(
        rule=capped, enforced_by=[Enforcement(tool=write.name, step=0, check=capped)]
    )
    assert unchecked_states(emailed, [subscribe]).enforced
    assert unchecked_states(emailed, [finish]).unchecked == ["active", "address"]


def test_a_tool_that_checks_one_part_of_a_rule_says_which_part_it_leaves() -> None:
    """Restaurant's move_order_menu_item listed "An order can only be placed for a
    reservation with status seated and for a menu item whose is_available is true" as its
    reason to refuse, and checks the menu item alone: an agent read it as refusing an order
    on a booked reservation, which the tool moves (restaurant 00012, 00046). The rule is
    whole at create_order; under the move, the policy says what the move leaves."""
    rule = (
        "An order can only be placed for a reservation with status seated and for a menu "
        "item whose is_available is true."
    )
    seated = "SELECT status IN ('seated') AS ok FROM reservations WHERE reservation_id = :r"
    available = "SELECT is_available = 1 AS ok FROM menu_items WHERE menu_item_id = :m"

    def write(name: str, *sqls: str) -> Tool:
        return Tool.model_validate(
            {
                "name": name,
                "description": "Place or move an order.",
                "kind": "write",
                "parameters": {"type": "object", "properties": {}},
                "require": [{"sql": q, "error": rule} for q in sqls],
                "run": ["UPDATE orders SET quantity = quantity WHERE order_id = :o"],
            }
        )

    create, move = (
        write("create_order", seated, available),
        write("move_order_menu_item", available),
    )
    coverage = RuleCoverage(
        rule=rule,
        enforced_by=[
            Enforcement(tool="create_order", step=0, check=rule),
            Enforcement(tool="create_order", step=1, check=rule),
            Enforcement(tool="move_order_menu_item", step=0, check=rule),
        ],
    )
    assert unchecked_states(coverage, [create, move]).enforced  # whole at create_order
    policy = tau2_policy(finance_brief(), "You help diners.", [create, move], [coverage])
    create_part, move_part = policy.split("### move_order_menu_item")
    assert f"- {rule}\n" in create_part.split("### create_order")[1]
    assert f"- {rule} (the tool does not check this part: seated)" in move_part
    assert (
        f"- {rule} (enforced by create_order; in part by move_order_menu_item (not seated))"
        in policy
    )
    # checked whole by every tool: said as before
    whole = tau2_policy(
        finance_brief(),
        "You help diners.",
        [create],
        [coverage.model_copy(update={"enforced_by": coverage.enforced_by[:2]})],
    )
    assert f"- {rule} (enforced by create_order)" in whole and "this part" not in whole


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_move_meets_the_rules_on_where_it_goes_and_an_ended_record_stays(engine: str) -> None:
    """movie-intent-00004 on 71aacdf moved a cancelled booking onto a showtime of 2024-10-10
    under a 2025 clock: "a booking needs a showtime in the future" was the create's alone,
    and nothing kept a cancelled booking where it was."""
    seed = json.loads(json.dumps(MOVIE_SEED))
    seed["showtimes"].append(
        {"showtime_id": 12, "movie_id": 1, "screen_id": 1, "start_time": "2024-10-10T18:00:00"}
    )
    seed["bookings"].append(
        {"booking_id": 71, "customer_id": 5, "showtime_id": 10, "seats": 1, "status": "cancelled"}
    )
    spec = bed("movie", MOVIE_SCHEMA, seed)
    future = brief_rules("movie")[0]
    assert future.startswith("A booking needs a showtime in the future")
    candidates = catalogue(spec.schema_, spec.seed)
    choice = fallback_choice(candidates, [future], spec.schema_, spec.seed)
    moving = ToolChoice(candidate="move:bookings.showtime_id")
    choice = choice.model_copy(update={"tools": [*choice.tools, moving]})
    made = realise(choice, candidates, [future], spec)
    move = next(t for t in made.tools if t.name == "move_booking_to_showtime")
    assert any(e.tool == move.name for e in made.rules[0].enforced_by)
    with Environment(spec.model_copy(update={"tools": made.tools}), engine=engine) as env:  # type: ignore[arg-type]

        def moved(booking: int, showtime: int) -> str | None:
            env.reset()
            call = ToolCall(
                name=move.name, arguments={"booking_id": booking, "new_showtime_id": showtime}
            )
            return env.step(call).error

        assert moved(70, 11) is None
        assert moved(70, 12) == future  # in the past
        assert moved(71, 11) == "A booking that is cancelled cannot be moved."


ROUTES = {
    "tables": [
        {"name": "stations", "columns": [col("station_id", "integer"), col("name", "text")],
         "primary_key": ["station_id"]},
        {"name": "trains", "columns": [col("train_id", "integer"), col("capacity", "integer")],
         "primary_key": ["train_id"]},
        {
            "name": "trips",
            "columns": [
                col("trip_id", "integer"), col("train_id", "integer"),
                col("origin_station_id", "integer"), col("destination_station_id", "integer"),
                col("seats_sold", "integer"),
            ],
            "primary_key": ["trip_id"],
            "foreign_keys": [
                fk("train_id", "trains"),
                {"columns": ["origin_station_id"], "ref_table": "stations",
                 "ref_columns": ["station_id"]},
                {"columns": ["destination_station_id"], "ref_table": "stations",
                 "ref_columns": ["station_id"]},
            ],
        },
        {"name": "passengers", "columns": [col("passenger_id", "integer"), col("email", "text")],
         "primary_key": ["passenger_id"]},
        {
            "name": "tickets",
            "columns": [col("ticket_id", "integer"), col("passenger_id", "integer"),
                        col("trip_id", "integer")],
            "primary_key": ["ticket_id"],
            "foreign_keys": [fk("passenger_id", "passengers"), fk("trip_id", "trips")],
        },
    ]
}  # fmt: skip
ROUTE_SEED = {
    "stations": [
        {"station_id": i, "name": n} for i, n in ((1, "Ayr"), (2, "Troon"), (3, "Irvine"))
    ],
    "trains": [{"train_id": 1, "capacity": 2}, {"train_id": 2, "capacity": 100}],
    "trips": [
        {"trip_id": 10, "train_id": 2, "origin_station_id": 1, "destination_station_id": 2,
         "seats_sold": 5},
        {"trip_id": 11, "train_id": 1, "origin_station_id": 1, "destination_station_id": 2,
         "seats_sold": 2},  # full
        {"trip_id": 12, "train_id": 2, "origin_station_id": 1, "destination_station_id": 3,
         "seats_sold": 0},  # elsewhere
        {"trip_id": 13, "train_id": 2, "origin_station_id": 1, "destination_station_id": 2,
         "seats_sold": 0},
    ],
    "passengers": [{"passenger_id": 5, "email": "ann@example.com"}],
    "tickets": [{"ticket_id": 70, "passenger_id": 5, "trip_id": 10}],
}  # fmt: skip


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_ticket_moved_to_another_trip_takes_its_seat_sold_along(engine: str) -> None:
    """Railway's `create_ticket` added to the trip's seats_sold, and its move left both
    trips' counts as they were, so a full trip kept taking moved tickets."""
    spec = bed("railway", ROUTES, ROUTE_SEED)
    rules = [brief_rules("railway")[0], brief_rules("railway")[4]]
    candidates = catalogue(spec.schema_, spec.seed)
    made = realise(
        fallback_choice(candidates, rules, spec.schema_, spec.seed), candidates, rules, spec
    )
    move = next(t for t in made.tools if t.name.startswith("move_ticket"))
    assert "counting" not in move.name
    with Environment(spec.model_copy(update={"tools": made.tools}), engine=engine) as env:  # type: ignore[arg-type]
        env.reset()
        before = env.sandbox.changes()
        assert env.step(ToolCall(name=move.name, arguments={"ticket_id": 70, "new_trip_id": 13})).ok
        sold = {
            c.key[0]: (c.after or {}).get("seats_sold")
            for c in env.diff(before, env.sandbox.changes()).tables["trips"]
        }
    assert sold == {10: 4, 13: 1}


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_ticket_moved_to_another_game_needs_room_there(engine: str) -> None:
    """Basketball's "a ticket can only be sold ... while tickets_sold is below the game's
    capacity" held for a new ticket, and `move_ticket_to_game` on 31bc8d2 moved one onto a
    full game. Game 22 is full (3 of 3), game 23 has room."""
    spec = basketball_spec()
    games = [
        *spec.seed["games"],
        {**spec.seed["games"][0], "game_id": 22, "tickets_sold": 3},
        {**spec.seed["games"][0], "game_id": 23, "tickets_sold": 1},
    ]
    spec = spec.model_copy(update={"seed": {**spec.seed, "games": games}})
    sale = next(r for r in basketball_rules() if "ticket can only be sold" in r)
    candidates = catalogue(spec.schema_, spec.seed)
    choice = fallback_choice(candidates, [sale], spec.schema_, spec.seed)
    moving = ToolChoice(candidate="move:tickets.game_id")
    choice = choice.model_copy(update={"tools": [*choice.tools, moving]})
    made = realise(choice, candidates, [sale], spec)
    move = next(t for t in made.tools if t.name.startswith("move_ticket"))
    assert move.name in made.rules[0].tools()
    tools = [*spec.tools, *made.tools]
    with Environment(spec.model_copy(update={"tools": tools}), engine=engine) as env:  # type: ignore[arg-type]

        def moved(game: int) -> str | None:
            env.reset()
            call = ToolCall(name=move.name, arguments={"ticket_id": 50, "new_game_id": game})
            return env.step(call).error

        assert moved(22) == sale
        assert moved(23) is None


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_refund_of_a_ticket_sold_on_a_trip_takes_its_seat_back_off(engine: str) -> None:
    """Railway's `refund_ticket` and `cancel_ticket` left the trip's seats_sold as
    `create_ticket` made it, so a refunded seat stayed sold (the audit of 82a0e57's run).
    Never below 0: trip 12's seed counts none of its ticket 906."""
    spec, rules = railway_spec(), railway_rules()
    candidates = catalogue(spec.schema_, spec.seed)
    made = realise(
        fallback_choice(candidates, rules, spec.schema_, spec.seed), candidates, rules, spec
    )
    names = [t.name for t in made.tools]
    assert "refund_ticket" in names and not any("releasing" in n for n in names), names
    tools = [*spec.tools, *made.tools]
    with Environment(spec.model_copy(update={"tools": tools}), engine=engine) as env:  # type: ignore[arg-type]

        def sold_after(ticket: int, trip: int) -> object:
            env.reset()
            assert env.step(ToolCall(name="refund_ticket", arguments={"ticket_id": ticket})).ok
            found = env.step(ToolCall(name="get_trips", arguments={"trip_id": trip}))
            return found.output["seats_sold"]

        assert sold_after(900, 11) == 4
        assert sold_after(906, 12) == 0


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_a_move_onto_a_trip_with_the_same_stations_and_a_seat_left(engine: str) -> None:
    """Railway's "a ticket can be moved to another trip only if that trip has the same origin
    and destination stations and free seats" was enforced by no tool on any run (5 of 6)."""
    spec = bed("railway", ROUTES, ROUTE_SEED)
    rule = brief_rules("railway")[4]
    assert rule.startswith("A ticket can be moved to another trip only if")
    candidates = catalogue(spec.schema_, spec.seed)
    choice = fallback_choice(candidates, [rule], spec.schema_, spec.seed)
    assert [m.candidate for m in choice.rules] == ["move:tickets.trip_id"]
    made = realise(choice, candidates, [rule], spec)
    move = next(t for t in made.tools if t.name.startswith("move_ticket"))
    assert {e.tool for e in made.rules[0].enforced_by} == {move.name}
    with Environment(spec.model_copy(update={"tools": made.tools}), engine=engine) as env:  # type: ignore[arg-type]

        def moved(trip: int) -> str | None:
            env.reset()
            call = ToolCall(name=move.name, arguments={"ticket_id": 70, "new_trip_id": trip})
            return env.step(call).error

        assert moved(13) is None
        assert moved(11) == rule  # no seat left: 2 sold of 2
        assert moved(12) == rule  # to Irvine, not Troon


REACTIVATE = "A station with status decommissioned cannot be set back to active."


def test_a_status_change_the_rules_forbid_from_every_state_is_left_out() -> None:
    """Weather on 8a86ecf kept `activate_station`, allowed only from decommissioned, with
    this rule's step beside it: the two contradicted each other, no station could pass
    (0 of 69) and every task about it was a refusal. The change is left out, the rule is
    kept by there being no tool to break it, and the policy says so."""
    stations = {
        "name": "stations",
        "columns": [col("station_id", "integer"), col("name", "text"), col("status", "text")],
        "primary_key": ["station_id"],
        "checks": ["status IN ('active', 'decommissioned')"],
    }
    seed = {
        "stations": [
            {"station_id": i, "name": f"Station {i}", "status": s}
            for i, s in enumerate(["active", "active", "decommissioned"], 1)
        ]
    }
    spec = bed("weather", {"tables": [stations]}, seed)
    cands = catalogue(spec.schema_, spec.seed)
    assert "status:stations.status=active" in {c.id for c in cands}
    out = realise(fallback_choice(cands, [REACTIVATE], spec.schema_, spec.seed), cands,
                  [REACTIVATE], spec)  # fmt: skip
    names = {t.name for t in out.tools}
    assert "activate_station" not in names and "set_decommissioned_station" in names
    assert [(r.reason, r.detail.split(":")[0]) for r in out.dropped] == [
        ("forbidden_by_rules", "tool 'activate_station' (status")
    ]
    assert out.rules[0].left_out == ["activate_station"] and out.rules[0].enforced
    brief = finance_brief().model_copy(update={"rules": [REACTIVATE]})
    policy = tau2_policy(brief, "You help forecasters.", [*spec.tools, *out.tools], out.rules)
    assert f"- {REACTIVATE} (no tool can do what it forbids)" in policy


def test_a_rule_that_forbids_some_states_keeps_the_change_from_the_others() -> None:
    """With a third state the reactivation still serves the stations under maintenance."""
    stations = {
        "name": "stations",
        "columns": [col("station_id", "integer"), col("status", "text")],
        "primary_key": ["station_id"],
        "checks": ["status IN ('active', 'maintenance', 'decommissioned')"],
    }
    spec = bed(
        "weather",
        {"tables": [stations]},
        {"stations": [{"station_id": 1, "status": "maintenance"}]},
    )
    activate = next(
        c for c in catalogue(spec.schema_, spec.seed) if c.id == "status:stations.status=active"
    )
    barred = Condition(kind="in", column="status", op="not in", values=["decommissioned"])
    assert set(activate.moves_from) == {"maintenance", "decommissioned"}
    assert forbidding(activate, [(1, barred)]) == []
    only = Condition(kind="in", column="status", values=["decommissioned"])
    assert forbidding(activate, [(1, only), (2, barred)]) == [1, 2]


def with_moves(spec: EnvironmentSpec, rule: str, *moves: str) -> PatternTools:
    """The fallback's tools for one rule, with the moves named (`table.column`) picked too:
    a move is the model's pick, never the fallback's."""
    cands = catalogue(spec.schema_, spec.seed)
    choice = fallback_choice(cands, [rule], spec.schema_, spec.seed)
    picked = [ToolChoice(candidate=f"move:{m}") for m in moves]
    return realise(
        choice.model_copy(update={"tools": [*choice.tools, *picked]}), cands, [rule], spec
    )


PRESCRIBED = (
    "A prescription requires a completed appointment between the same patient and the "
    "prescribing doctor."
)


def test_a_move_keeps_the_rules_same_people_on_the_row_it_goes_to() -> None:
    """Medicine on 8fb416f: the rule held for a new prescription, while its move checked
    only that the appointment was completed, and medicine-intent-00019 moved a prescription
    to another doctor's appointment."""
    person = [col("name", "text"), col("email", "text")]
    tables = [
        {"name": "patients", "columns": [col("patient_id", "integer"), *person],
         "primary_key": ["patient_id"]},
        {"name": "doctors", "columns": [col("doctor_id", "integer"), col("name", "text")],
         "primary_key": ["doctor_id"]},
        {"name": "appointments",
         "columns": [col("appointment_id", "integer"), col("patient_id", "integer"),
                     col("doctor_id", "integer"), col("status", "text")],
         "primary_key": ["appointment_id"],
         "foreign_keys": [fk("patient_id", "patients"), fk("doctor_id", "doctors")],
         "checks": ["status IN ('scheduled', 'completed', 'cancelled')"]},
        {"name": "prescriptions",
         "columns": [col("prescription_id", "integer"), col("patient_id", "integer"),
                     col("doctor_id", "integer"), col("appointment_id", "integer"),
                     col("refills", "integer")],
         "primary_key": ["prescription_id"],
         "foreign_keys": [fk("patient_id", "patients"), fk("doctor_id", "doctors"),
                          fk("appointment_id", "appointments")]},
    ]  # fmt: skip
    visits = [(1, 1, 1, "completed"), (2, 1, 1, "completed"), (3, 1, 2, "completed"),
              (4, 2, 1, "completed"), (5, 1, 1, "scheduled")]  # fmt: skip
    seed = {
        "patients": [{"patient_id": i, "name": f"P{i}", "email": f"p{i}@x.org"} for i in (1, 2)],
        "doctors": [{"doctor_id": i, "name": f"D{i}"} for i in (1, 2)],
        "appointments": [
            {"appointment_id": a, "patient_id": p, "doctor_id": d, "status": s}
            for a, p, d, s in visits
        ],
        "prescriptions": [
            {"prescription_id": 9, "patient_id": 1, "doctor_id": 1, "appointment_id": 1,
             "refills": 2},
            # written by doctor 2 at doctor 1's appointment, as medicine's seed had them
            {"prescription_id": 8, "patient_id": 1, "doctor_id": 2, "appointment_id": 1,
             "refills": 2},
        ],
    }  # fmt: skip
    spec = bed("medicine", {"tables": tables}, seed)
    out = with_moves(spec, PRESCRIBED, "prescriptions.appointment_id", "prescriptions.doctor_id")
    assert out.rules[0].tools() == [
        "create_prescription",
        "move_prescription_to_appointment",
        "move_prescription_to_doctor",
    ]
    with Environment(assembled(spec, out.tools, out.rules)) as env:

        def move(to: int) -> str | None:
            env.reset()
            args = {"prescription_id": 9, "new_appointment_id": to}
            return env.step(ToolCall(name="move_prescription_to_appointment", arguments=args)).error

        assert move(2) is None  # the same patient and doctor, completed
        assert move(3) == PRESCRIBED  # another doctor
        assert move(4) == PRESCRIBED  # another patient
        assert move(5) == PRESCRIBED  # not completed

        def to_doctor(prescription: int, doctor: int) -> str | None:
            env.reset()
            args = {"prescription_id": prescription, "new_doctor_id": doctor}
            return env.step(ToolCall(name="move_prescription_to_doctor", arguments=args)).error

        # medicine-intent-00129 on ac78a9f gave a prescription a doctor its appointment was
        # not with: the appointment it keeps must be with the new doctor
        assert to_doctor(9, 2) == PRESCRIBED
        assert to_doctor(8, 1) is None


@pytest.mark.parametrize(("capacity", "refused"), [(2, True), (3, False)])
def test_a_move_into_a_full_parent_is_refused_as_a_new_record_would_be(
    capacity: int, refused: bool
) -> None:
    """School on 637bf78: "a student can enroll in a course only while the number of active
    enrollments is below the course's capacity" held for a new enrollment, while the move of
    one to another course took it into any course (school-intent-00006 moved one)."""
    from tests.generators.school import school_rules, school_spec

    spec = school_spec()
    courses = [
        c | {"capacity": capacity} if c["course_id"] == 11 else c for c in spec.seed["courses"]
    ]
    spec = spec.model_copy(update={"seed": spec.seed | {"courses": courses}})
    rule = school_rules()[0]
    out = with_moves(spec, rule, "enrollments.course_id")
    move = next(t for t in out.tools if t.name.startswith("move_enrollment"))
    assert rule in {e.check for e in out.rules[0].enforced_by if e.tool == move.name}
    with Environment(assembled(spec, out.tools, out.rules)) as env:
        args = {"enrollment_id": 300, "new_course_id": 11}  # course 11 holds 2 active
        result = env.step(ToolCall(name=move.name, arguments=args))
    assert (result.error == rule) if refused else result.ok


@pytest.mark.parametrize(("held", "refused"), [(38, False), (39, True)])
def test_a_booking_moved_to_a_showtime_takes_its_seats_into_the_sum(
    held: int, refused: bool
) -> None:
    """Movie on 3d6f8ed: "the seats already booked plus the new seats cannot exceed the
    screen's capacity" held for a new booking, while `move_booking_showtime` sent a booking
    to any showtime. A sum carries over with the moved record's own seats. Mia's 2 seats go
    to showtime 11 (screen of 40), which holds `held`."""
    from tests.generators.movie import SEATS as rule
    from tests.generators.movie import booked_beside

    spec = booked_beside(11, held, "confirmed")
    out = with_moves(spec, rule, "bookings.showtime_id")
    move = next(t for t in out.tools if t.name.startswith("move_booking"))
    assert any("SUM(seats)" in step.sql for step in move.require), move.require
    with Environment(assembled(spec, out.tools, out.rules)) as env:
        args = {"booking_id": 70, "new_showtime_id": 11}
        result = env.step(ToolCall(name=move.name, arguments=args))
    assert (result.error == rule) if refused else result.ok


def _moved(spec: EnvironmentSpec, rule: str, tool: str, **args: int) -> str | None:
    """The error of one move picked beside the fallback's tools for the rule (None: done)."""
    out = with_moves(spec, rule, "enrollments.course_id", "enrollments.student_id")
    assert rule in {e.check for e in out.rules[0].enforced_by if e.tool == tool}
    with Environment(assembled(spec, out.tools, out.rules)) as env:
        return env.step(ToolCall(name=tool, arguments=args)).error


def test_a_move_keeps_a_limit_on_the_records_of_the_same_kind() -> None:
    """School on 637bf78: "a student cannot enroll twice in the same course" held for a new
    enrollment, while its moves to another course or student checked nothing of the kind: a
    student could end with two enrollments in one course."""
    from tests.generators.school import school_rules, school_spec

    spec = school_spec()
    students = [*spec.seed["students"], {"student_id": 3, "name": "Ada Ng", "email": "a@x.org"}]
    spec = spec.model_copy(update={"seed": spec.seed | {"students": students}})
    twice = school_rules()[3]
    # student 1 is in courses 10 and 11; student 2 in 10 (dropped) and 11
    to_course, to_student = "move_enrollment_to_course", "move_enrollment_to_student"
    assert _moved(spec, twice, to_course, enrollment_id=301, new_course_id=10) == twice
    assert _moved(spec, twice, to_course, enrollment_id=301, new_course_id=12) is None
    assert _moved(spec, twice, to_student, enrollment_id=303, new_student_id=1) == twice
    assert _moved(spec, twice, to_student, enrollment_id=303, new_student_id=3) is None


@pytest.mark.parametrize(("spring", "refused"), [(6, True), (5, False)])
def test_a_move_keeps_a_limit_in_the_same_term(spring: int, refused: bool) -> None:
    """School's "a student cannot have more than 6 active enrollments in the same term", for
    a move into a spring course: counted on the term of the course it goes to (a move to
    another course) or of its own course (to another student), the moved one never twice."""
    from tests.generators.school import enrollment, school_rules, school_spec

    spec = school_spec()
    more = [
        {**spec.seed["courses"][2], "course_id": 20 + i, "name": f"Spring {i}"} for i in range(5)
    ]
    # student 1's spring enrollments: 300 (course 10) and `spring - 1` of courses 20-24
    mine = [enrollment(500 + i, 1, 20 + i, "active", "letter") for i in range(spring - 1)]
    seed = spec.seed | {
        "courses": [*spec.seed["courses"], *more],
        "enrollments": [*spec.seed["enrollments"], *mine],
    }
    spec = spec.model_copy(update={"seed": seed})
    term = school_rules()[1]
    to_course, to_student = "move_enrollment_to_course", "move_enrollment_to_student"
    fall_to_spring = _moved(spec, term, to_course, enrollment_id=301, new_course_id=12)
    assert fall_to_spring == (term if refused else None)
    # 300 moves within spring: it leaves a course of the term as it enters one
    assert _moved(spec, term, to_course, enrollment_id=300, new_course_id=12) is None
    # 302 (student 2's in spring course 10) is dropped: one more active one only if it is
    # active (the `_adds` +1 of every moved record refused the dropped one too)
    assert _moved(spec, term, to_student, enrollment_id=302, new_student_id=1) is None
    # nor where the student is over the limit already (a seed that breaks it): weather's
    # cancelled advisory moved into a region of 3 active ones (weather-intent-00178)
    over = enrollment(599, 1, 12, "active", "letter")
    spec_over = spec.model_copy(
        update={"seed": seed | {"enrollments": [*seed["enrollments"], over]}}
    )
    assert _moved(spec_over, term, to_student, enrollment_id=302, new_student_id=1) is None
    active = [
        {**e, "status": "active"} if e["enrollment_id"] == 302 else e for e in seed["enrollments"]
    ]
    spec = spec.model_copy(update={"seed": seed | {"enrollments": active}})
    spring_to_one = _moved(spec, term, to_student, enrollment_id=302, new_student_id=1)
    assert spring_to_one == (term if refused else None)


CONTROLLED = (
    "A medication marked controlled can only be prescribed by a doctor with "
    "can_prescribe_controlled set to true."
)


def test_a_move_keeps_a_rule_that_holds_in_one_case() -> None:
    """medicine-intent-00143 on 21e9774 moved a prescription of a doctor who may not
    prescribe controlled medications to a controlled one: the rule, which holds only for a
    controlled medication, was the new prescription's alone."""
    tables = [
        {"name": "doctors", "primary_key": ["doctor_id"],
         "columns": [col("doctor_id", "integer"), col("name", "text"), col("email", "text"),
                     col("can_prescribe_controlled", "boolean")]},
        {"name": "medications", "primary_key": ["medication_id"],
         "columns": [col("medication_id", "integer"), col("name", "text"),
                     col("controlled", "boolean")]},
        {"name": "prescriptions", "primary_key": ["prescription_id"],
         "columns": [col("prescription_id", "integer"), col("doctor_id", "integer"),
                     col("medication_id", "integer")],
         "foreign_keys": [fk("doctor_id", "doctors"), fk("medication_id", "medications")]},
    ]  # fmt: skip
    seed = {
        "doctors": [
            {"doctor_id": 1, "name": "A", "email": "a@x.org", "can_prescribe_controlled": False},
            {"doctor_id": 2, "name": "B", "email": "b@x.org", "can_prescribe_controlled": True},
        ],
        "medications": [
            {"medication_id": 10, "name": "Plain", "controlled": False},
            {"medication_id": 11, "name": "Held", "controlled": True},
            {"medication_id": 12, "name": "Mild", "controlled": False},
        ],
        "prescriptions": [
            {"prescription_id": 9, "doctor_id": 1, "medication_id": 10},
            {"prescription_id": 8, "doctor_id": 2, "medication_id": 10},
            {"prescription_id": 7, "doctor_id": 1, "medication_id": 11},
        ],
    }
    spec = bed("medicine", {"tables": tables}, seed)
    out = with_moves(spec, CONTROLLED, "prescriptions.medication_id", "prescriptions.doctor_id")
    with Environment(assembled(spec, out.tools, out.rules)) as env:

        def moved(tool: str, **args: int) -> str | None:
            env.reset()
            return env.step(ToolCall(name=tool, arguments=args)).error

        medication, doctor = "move_prescription_to_medication", "move_prescription_to_doctor"
        assert moved(medication, prescription_id=9, new_medication_id=11) == CONTROLLED
        assert moved(medication, prescription_id=8, new_medication_id=11) is None
        assert moved(medication, prescription_id=9, new_medication_id=12) is None
        assert moved(doctor, prescription_id=7, new_doctor_id=2) is None
        assert moved(doctor, prescription_id=8, new_doctor_id=1) is None  # not controlled
        controlled = [r for r in out.rules[0].enforced_by if r.tool in (medication, doctor)]
        assert {e.tool for e in controlled} == {medication, doctor}
