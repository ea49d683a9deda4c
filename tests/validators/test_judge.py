"""The judge on a verified banking task (Maria moves $250 and asks what is left), with a
scripted model on the fake endpoint: what the prompt shows, how each verdict maps to its
reason, and what happens when the judge cannot answer."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toolscale.environment import Replay
from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.report import Rejection
from toolscale.spec import EnvironmentSpec
from toolscale.task import Preference, Task
from toolscale.testing.fakedomain import judge_answer
from toolscale.testing.fakellm import FakeLLM, Reply, Responder, scripted
from toolscale.trajectory import Trajectory
from validators.judge import (
    MISSING_CHARS,
    STAGE,
    CallCheck,
    JudgeVerdict,
    Told,
    ValueCheck,
    answer_budget,
    asked_anyway,
    judge,
    prompt,
    rejection_of,
    rules,
    verdict_format,
)
from validators.pipeline import Verifier

pytestmark = pytest.mark.usefixtures("no_proxy")  # the fake endpoint is local


@dataclass
class Gold:
    task: Task  # verified: its expected outcome is filled in
    trajectory: Trajectory
    replay: Replay


@pytest.fixture(scope="module")
def gold(banking_spec: EnvironmentSpec, banking_tasks: list[Task]) -> Iterator[Gold]:
    task = next(t for t in banking_tasks if t.id == "bank-001")
    with Verifier(banking_spec, cross_engine=False) as verifier:
        verified = verifier.verify(task).value
        assert verified is not None
        trajectory = verifier.env.demonstrate(verified)
        replay = verifier.env.replay(verified.gold_calls)
        yield Gold(verified, trajectory, replay)


@dataclass
class Judged:
    rejection: Rejection | None
    llm: LLMClient
    requests: list[dict[str, Any]]


def run_judge(
    spec: EnvironmentSpec, gold: Gold, responder: Responder, cache: Path | None = None
) -> Judged:
    with FakeLLM(responder) as fake:
        config = LLMConfig(
            base_url=fake.base_url, model="fake", timeout_s=5, backoff_s=0, max_backoff_s=0.01
        )
        llm = LLMClient(config, ResponseCache(cache) if cache else None)

        async def main() -> Rejection | None:
            try:
                return await judge(llm, spec, gold.task, gold.trajectory)
            finally:
                await llm.close()

        found = asyncio.run(main())
        return Judged(found, llm, fake.requests)


def answer(**changes: Any) -> Reply:
    """An accepting verdict on bank-001 (two calls, one value), with `changes`."""
    verdict: dict[str, Any] = {
        "calls": [
            {"tool": "find_client_by_email", "needed": True},
            {"tool": "transfer_funds", "needed": True},
        ],
        "values": [{"name": "from_balance", "asked": True}],
        "missing": "",
        "request_fully_done": True,
        "reason": "she asks for the transfer and the balance left",
        "careful_agent_does_exactly_this": True,
    }
    verdict.update(changes)
    return Reply(content=json.dumps(verdict))


def user_prompt(spec: EnvironmentSpec, gold: Gold) -> str:
    return prompt(spec, gold.task, gold.trajectory)[1]["content"]


def test_the_prompt_shows_the_request_every_call_with_its_real_output_and_the_values(
    banking_spec: EnvironmentSpec, gold: Gold
) -> None:
    text = user_prompt(banking_spec, gold)
    assert gold.task.instruction in text
    for fact in gold.task.known_facts:
        assert fact in text
    for call, result in zip(gold.task.gold_calls, gold.replay.results, strict=True):
        assert call.name in text
        assert json.dumps(call.arguments) in text
        assert result.content() in text  # the real output, as the agent saw it
    assert '"from_balance":4000.75' in text
    assert "1. from_balance = 4000.75 (from call 2)" in text
    assert "Identify the client first" in text  # the rules a call may be needed for
    # a write's output is the record after it: the 1.5B judge read weather's cancelled
    # alert as "already cancelled" and refused 14 of 50 drafts
    writes = [c for c in gold.task.gold_calls if banking_spec.tool_map()[c.name].kind == "write"]
    assert writes
    assert text.count("(the record after this change, not before it)") == len(writes)


def test_a_replay_gives_the_same_prompt_as_the_trajectory(
    banking_spec: EnvironmentSpec, gold: Gold
) -> None:
    assert prompt(banking_spec, gold.task, gold.replay) == prompt(
        banking_spec, gold.task, gold.trajectory
    )


def test_the_rules_leave_out_price_tables_and_a_heading_left_empty() -> None:
    policy = "# Shop\n\nBe kind.\n\n## Rules\n\n- Identify first.\n\n## Tool costs\n\n"
    policy += "| tool | price |\n|---|---|\n| get_x | 0.001 |\n"
    assert rules(policy) == "# Shop\n\nBe kind.\n\n## Rules\n\n- Identify first."
    assert rules("# Shop\n## Rules\n- Be kind.\n## Costs\n| a |") == "# Shop\n## Rules\n- Be kind."


def test_the_verdict_schema_has_one_entry_per_call_and_per_value() -> None:
    schema = verdict_format(3, 0).model_json_schema()
    assert verdict_format(3, 0).__name__ == "JudgeVerdict"  # how a server knows the stage
    assert schema["properties"]["calls"]["minItems"] == schema["properties"]["calls"]["maxItems"]
    assert schema["properties"]["calls"]["maxItems"] == 3
    assert schema["properties"]["values"]["maxItems"] == 0
    order = list(schema["properties"])
    assert order.index("careful_agent_does_exactly_this") == len(order) - 1  # decided last


CLOSE = "close my savings account"
CALL_NO = [
    {"tool": "find_client_by_email", "needed": False},
    {"tool": "transfer_funds", "needed": True},
]


@pytest.mark.parametrize(
    ("reply", "reason", "named"),
    [
        (answer(), None, ""),
        (answer(calls=CALL_NO), "judge_unasked_call", "1 find_client_by_email"),
        (answer(values=[{"name": "from_balance", "asked": False}]), "judge_unasked_value", "1 from_balance"),  # noqa: E501
        (answer(request_fully_done=False, missing=CLOSE), "judge_missing_request",
         "neither done nor told ('close my savings account')"),
        (answer(careful_agent_does_exactly_this=False), "judge_rejected", "not do exactly this"),
        # a concrete "no" decides, even under an overall yes (and before the overall no)
        (answer(calls=CALL_NO, careful_agent_does_exactly_this=True), "judge_unasked_call", ""),
        (answer(request_fully_done=False, missing=CLOSE, careful_agent_does_exactly_this=False),
         "judge_missing_request", ""),
    ],
    ids=["accept", "unasked_call", "unasked_value", "missing", "plain_no", "call_over_yes",
         "missing_over_no"],
)  # fmt: skip
def test_each_verdict_maps_to_its_reason(
    banking_spec: EnvironmentSpec, gold: Gold, reply: Reply, reason: str | None, named: str
) -> None:
    # the user also asks to close the account, which the gold does not do
    task = gold.task.model_copy(update={"instruction": f"{gold.task.instruction} Also {CLOSE}."})
    judged = run_judge(banking_spec, Gold(task, gold.trajectory, gold.replay), scripted(reply))
    assert len(judged.requests) == 1
    if reason is None:
        assert judged.rejection is None
        return
    found = judged.rejection
    assert found is not None and (found.stage, found.reason) == (STAGE, reason)
    assert named in found.detail and "the judge:" in found.detail
    assert found.task_id == "bank-001" and found.item["expected"]  # the verified task, kept


@pytest.mark.parametrize(
    ("missing", "said", "kept"),
    [
        ("", "", True),  # names nothing missing
        ("Hi, I'm Maria. Tell me what is left.", "", True),  # a greeting asks for nothing
        ("Could you please confirm this?", "same", True),  # names nothing untold
        ("then tell me what is left in checking", "", True),  # told: from_balance
        ("Please move $250 from my checking account A20001", "", True),  # done: transfer_funds
        ("move $250 into savings, and tell me what is left", "", True),
        (CLOSE, "same", False),
        ("move $250 into savings and close my savings account", "same", False),
        ("tell me my card's status", "same", False),
        # restaurant-intent-00011: "the order quantity is 40" names an order, orders none
        ("Please move $250 into savings. The transaction limit is 500.", "same", True),
        ("Please open an account", "same", False),
        # travel-intent-00015 on 277c846: no words of the user's
        ("The user never asked for the check-in date.", "", True),
        ("tell me my card's status", "", True),
        # travel-intent-00023: "It's for check-in date 2025-04-27" asks nothing checked
        ("It's for check-in date 2025-04-27.", "same", True),
        ("Please check my card's status.", "same", False),
        # ecommerce-intent-00000 on 6b0b758: "The new address is 168 Rodriguez Light" says
        # what a change sets; "a new account" still asks to make one
        ("Please move $250 into savings. The new amount is $250.", "same", True),
        ("Please move $250 into savings. The new amount is $300.", "same", False),
        ("Please move $250 into savings. I want a new account.", "same", False),
        # railway on a4b9fc9: "... and new email is wheelerdebra@example.org", a part that
        # "and" opened, says what the change sets
        ("Please move $250 into savings and new amount is $250.", "same", True),
    ],
)
def test_what_the_judge_quotes_as_missing_is_checked_against_the_gold(
    banking_spec: EnvironmentSpec, gold: Gold, missing: str, said: str, kept: bool
) -> None:
    """The embedded judge said "something is missing" of 15 drafts read by hand, wrongly
    for 12 ("the booking is not cancelled yet" beside a cancel that returned `cancelled`).
    Its own quote of what is missing decides: a part that names a told value or asks for a
    write the gold makes is done, and so is one the user never said (`said` is what the
    user adds to bank-001's request; "same" adds the quote itself)."""
    added = missing if said == "same" else said
    task = gold.task.model_copy(update={"instruction": f"{gold.task.instruction} {added}"})
    reply = answer(request_fully_done=False, missing=missing, careful_agent_does_exactly_this=False)
    found = run_judge(banking_spec, Gold(task, gold.trajectory, gold.replay), scripted(reply))
    assert (found.rejection is None) == kept, found.rejection
    if found.rejection is not None:
        assert found.rejection.reason == "judge_missing_request"
        assert repr(missing) in found.rejection.detail


def test_a_wish_about_tools_is_no_request_left_undone(
    banking_spec: EnvironmentSpec, gold: Gold
) -> None:
    """travel-intent-00010 on 277c846: the judge quoted the user's "Please don't use the
    list hotel bookings by hotel id service; it is expensive" as a request left undone."""
    wish = "Please don't use the list payees service; it is expensive."
    preferences = {"cost": 0.5, "avoid_tools": ["list_payees"], "statement": wish}
    task = gold.task.model_copy(
        update={
            "instruction": f"{gold.task.instruction} {wish}",
            "preferences": Preference.model_validate(preferences),
        }
    )
    reply = answer(request_fully_done=False, missing=wish, careful_agent_does_exactly_this=False)
    found = run_judge(banking_spec, Gold(task, gold.trajectory, gold.replay), scripted(reply))
    assert found.rejection is None


@pytest.mark.parametrize(
    ("question", "kept"),
    [
        ("What balance is left in the checking account?", True),  # the field, of an account
        ("Then tell me my card's status.", False),  # never asks for a balance
        ("What is my loan's balance?", False),  # a balance of another kind of record
    ],
)
def test_a_value_the_users_words_ask_for_is_not_taken_as_unasked(
    banking_spec: EnvironmentSpec, gold: Gold, question: str, kept: bool
) -> None:
    """Basketball on 277c846: the embedded judge said "not asked" of a game's status told
    to "I want to know the current status of the game", in 3 refusals ("The user asks for
    the status of the game, but ..."). Words that ask for the field of that kind of record
    overrule it; anything less leaves the judge's "no" standing."""
    words = "Hi, this is Maria. Please move $250 from my checking account A20001 into savings."
    task = gold.task.model_copy(update={"instruction": f"{words} {question}"})
    ref = task.communicate[0]
    told = Told(ref.path, 0.0, ref.call + 1)
    tools, schema = banking_spec.tool_map(), banking_spec.schema_
    assert asked_anyway(told, task, tools, schema) == kept
    verdict = JudgeVerdict.model_validate_json(
        answer(values=[{"name": ref.path, "asked": False}]).content or ""
    )
    found = rejection_of(verdict, task, asked=lambda i: asked_anyway(told, task, tools, schema))
    assert (found is None) == kept, found
    if found is not None:
        assert found.reason == "judge_unasked_value"


def test_the_request_is_deterministic_and_spent_on_the_judge_stage(
    banking_spec: EnvironmentSpec, gold: Gold
) -> None:
    judged = run_judge(banking_spec, gold, scripted(answer()))
    body = judged.requests[0]
    assert body["temperature"] == 0.0
    assert body["response_format"]["json_schema"]["name"] == "JudgeVerdict"
    usage = judged.llm.ledger.stages[STAGE]
    assert usage.calls == 1 and usage.tokens > 0


@pytest.mark.parametrize(
    ("n_calls", "n_values", "old_fits"), [(1, 0, False), (4, 1, False), (8, 4, True)]
)
def test_the_answer_budget_holds_the_longest_verdict_laid_out(
    n_calls: int, n_values: int, old_fits: bool
) -> None:
    """The longest verdict (every text at its limit), indented a field a line as the
    embedded server wrote it, fits the budget at 3 characters a token (English and JSON
    run about 4): 4 verdicts were cut short inside their reason at 160 + 40 per entry."""
    verdict = JudgeVerdict(
        calls=[CallCheck(tool="list_reservations_by_customer_id", needed=True)] * n_calls,
        values=[ValueCheck(name="reservation_status", asked=True)] * n_values,
        missing="x" * MISSING_CHARS,
        request_fully_done=False,
        reason="x" * 400,
        careful_agent_does_exactly_this=False,
    )
    laid_out = json.dumps(verdict.model_dump(), indent=2)
    assert len(laid_out) <= 3 * answer_budget(n_calls, n_values)
    assert (len(laid_out) <= 3 * (160 + 40 * (n_calls + n_values))) == old_fits


def test_a_misaligned_answer_goes_back_and_the_repaired_one_decides(
    banking_spec: EnvironmentSpec, gold: Gold
) -> None:
    swapped = answer(
        calls=[{"tool": "transfer_funds", "needed": True}, {"tool": "x", "needed": True}]
    )
    judged = run_judge(banking_spec, gold, scripted(swapped, answer(calls=CALL_NO)))
    assert len(judged.requests) == 2
    feedback = judged.requests[1]["messages"][-1]["content"]
    assert "call 1 is 'find_client_by_email'" in feedback
    assert judged.rejection is not None and judged.rejection.reason == "judge_unasked_call"


def test_a_wrong_number_of_entries_after_repairs_is_judge_unavailable(
    banking_spec: EnvironmentSpec, gold: Gold
) -> None:
    short = answer(calls=[{"tool": "find_client_by_email", "needed": True}])
    judged = run_judge(banking_spec, gold, scripted(short))
    found = judged.rejection
    assert found is not None and (found.stage, found.reason) == (STAGE, "judge_unavailable")
    assert "schema_violation" in found.detail
    assert found.item["id"] == "bank-001"  # not lost: rejected.jsonl holds the task


def test_a_failing_endpoint_rejects_the_task_as_judge_unavailable(
    banking_spec: EnvironmentSpec, gold: Gold
) -> None:
    judged = run_judge(banking_spec, gold, scripted(Reply.status(400)))
    found = judged.rejection
    assert found is not None and (found.stage, found.reason) == (STAGE, "judge_unavailable")
    assert "llm_refused" in found.detail and found.item["expected"]
    assert judged.llm.ledger.stages[STAGE].failures == {"llm_refused": 1}


def test_a_second_judgement_comes_from_the_cache(
    banking_spec: EnvironmentSpec, gold: Gold, tmp_path: Path
) -> None:
    first = run_judge(banking_spec, gold, scripted(answer(calls=CALL_NO)), tmp_path)
    again = run_judge(banking_spec, gold, scripted(Reply.status(500)), tmp_path)
    assert again.requests == [] and again.rejection == first.rejection


def test_the_fake_domain_judge_reads_the_prompt(banking_spec: EnvironmentSpec, gold: Gold) -> None:
    text = user_prompt(banking_spec, gold)
    accepted = judge_answer(text)
    assert [c["tool"] for c in accepted["calls"]] == ["find_client_by_email", "transfer_funds"]
    assert [v["name"] for v in accepted["values"]] == ["from_balance"]
    assert accepted["careful_agent_does_exactly_this"]
    refused = judge_answer(text, reject="Maria Lopez")
    assert not refused["calls"][0]["needed"] and not refused["careful_agent_does_exactly_this"]


def test_a_refused_call_is_shown_as_the_rules_refusal_it_should_be(
    banking_spec: EnvironmentSpec, banking_tasks: list[Task], gold: Gold
) -> None:
    """A refusal task's refused write is what a careful agent does: the judge is told so,
    instead of reading it as a request left undone."""
    task = next(t for t in banking_tasks if t.id == "bank-002")
    with Verifier(banking_spec, cross_engine=False) as verifier:
        verified = verifier.verify(task).value
        assert verified is not None
        replay = verifier.env.replay(verified.gold_calls)
    text = prompt(banking_spec, verified, replay)[1]["content"]
    refused = [c for c in verified.gold_calls if c.expect_error]
    assert refused
    assert text.count("refused by a rule, as it should be") == len(refused)
    assert "that request counts as done" in text
    assert "refused by a rule, as it should be" not in user_prompt(banking_spec, gold)


def test_on_a_refusal_only_the_per_item_answers_count(banking_tasks: list[Task]) -> None:
    """The embedded judge read every refusal of a hand-labelled run as an unasked call (the
    refused write) or a request left undone: on a refusal those answers are not taken, an
    unasked other call or value still rejects."""
    task = next(t for t in banking_tasks if t.id == "bank-002")
    refused = next(i for i, c in enumerate(task.gold_calls) if c.expect_error)

    def verdict(unneeded: int | None, asked: bool = True) -> JudgeVerdict:
        return JudgeVerdict(
            calls=[
                CallCheck(tool=c.name, needed=i != unneeded) for i, c in enumerate(task.gold_calls)
            ],
            values=[ValueCheck(name="balance", asked=asked) for _ in task.communicate],
            missing="",
            request_fully_done=False,
            reason="the transfer was refused",
            careful_agent_does_exactly_this=False,
        )

    assert rejection_of(verdict(refused), task) is None
    other = next(i for i in range(len(task.gold_calls)) if i != refused)
    found = rejection_of(verdict(other), task)
    assert found is not None and found.reason == "judge_unasked_call"
    found = rejection_of(verdict(None, asked=False), task)
    assert found is not None and found.reason == "judge_unasked_value"
    plain = next(t for t in banking_tasks if t.id == "bank-001")
    assert not any(c.expect_error for c in plain.gold_calls)
    found = rejection_of(
        verdict(None).model_copy(
            update={"calls": [CallCheck(tool=c.name, needed=True) for c in plain.gold_calls]}
        ),
        plain,
    )
    assert found is not None and found.reason == "judge_missing_request"
