"""Two changes of one person in one task: the second chain follows the first, a read both
make is made once, and neither change may touch what the other reads."""

from __future__ import annotations

from generators.compound import joined
from generators.sampling import Chain
from toolscale.environment import Environment
from toolscale.spec import EnvironmentSpec
from toolscale.task import OutputRef
from toolscale.tool import ToolCall

FIND = ToolCall(name="find_client_by_email", arguments={"email": "maria.lopez@example.com"})
CARDS = ToolCall(name="list_cards", arguments={"client_id": "C1001"})
FREEZE = ToolCall(name="freeze_card", arguments={"client_id": "C1001", "card_id": "K30001"})
LIMIT = ToolCall(
    name="set_transfer_limit",
    arguments={"client_id": "C1001", "account_id": "A20002", "daily_limit": 1500},
)
BALANCE = ToolCall(name="get_balance", arguments={"account_id": "A20001"})


def chain(env: Environment, calls: list[ToolCall], told: list[OutputRef], **kw: object) -> Chain:
    """A chain as `gold_chain` makes one: its calls run from the seed."""
    env.reset()
    results = [env.step(c) for c in calls]
    assert all(r.ok for r in results)
    return Chain(calls, results, communicate=told, **kw)  # type: ignore[arg-type]


def test_two_changes_join_with_the_shared_reads_made_once(banking_spec: EnvironmentSpec) -> None:
    with Environment(banking_spec) as env:
        freeze = chain(
            env,
            [FIND, CARDS, FREEZE],
            [OutputRef(call=2, path="status")],
            facts=[("email", "maria.lopez@example.com"), ("card last4", "4821")],
            wanted=["card_status"],
            purpose="freeze card, for their card whose last4 is 4821",
            operations=[["freeze"]],
        )
        limit = chain(
            env,
            [FIND, LIMIT],
            [OutputRef(call=1, path="daily_transfer_limit")],
            facts=[("email", "maria.lopez@example.com"), ("daily limit", 1500)],
            wanted=["account_daily_transfer_limit"],
            purpose="set transfer limit, for their savings account",
            operations=[["set", "limit"]],
        )
        both = joined(env, freeze, limit)
    assert both is not None
    assert both.calls == [FIND, CARDS, FREEZE, LIMIT]  # the client found once
    assert [(r.call, r.path) for r in both.communicate] == [
        (2, "status"),
        (3, "daily_transfer_limit"),
    ]
    assert both.results[2].output["status"] == "frozen"
    assert both.results[3].output["daily_transfer_limit"] == 1500
    assert both.facts == [*freeze.facts, ("daily limit", 1500)]
    assert both.operations == [["freeze"], ["set", "limit"]]
    assert both.wanted == ["card_status", "account_daily_transfer_limit"]
    assert both.purpose == (
        "freeze card, for their card whose last4 is 4821; and also set transfer limit, for "
        "their savings account"
    )


def test_a_change_that_alters_what_the_other_reads_or_the_same_field_told_do_not_join(
    banking_spec: EnvironmentSpec,
) -> None:
    with Environment(banking_spec) as env:
        limit = chain(env, [FIND, LIMIT], [OutputRef(call=1, path="daily_transfer_limit")])
        freeze = chain(env, [FIND, FREEZE], [OutputRef(call=1, path="status")])
        # the second reads the card after the first froze it: its status is not what it read
        read_card = chain(
            env,
            [FIND, ToolCall(name="get_card", arguments={"card_id": "K30001"}), LIMIT],
            [OutputRef(call=2, path="daily_transfer_limit")],
        )
        assert joined(env, freeze, read_card) is None
        assert joined(env, read_card, freeze) is not None  # read before the freeze: it holds
        # both tell a status: "tell me the status" of two records asks for neither
        told_alike = chain(
            env, [FIND, LIMIT], [OutputRef(call=1, path="status")], wanted=["status"]
        )
        frozen = chain(env, [FIND, FREEZE], [OutputRef(call=1, path="status")], wanted=["status"])
        assert joined(env, frozen, told_alike) is None
        # the person's own "status" beside "card_status": railway-intent-00006 on 21ceb83
        card = chain(
            env, [FIND, FREEZE], [OutputRef(call=1, path="status")], wanted=["card_status"]
        )
        assert joined(env, card, told_alike) is None
        assert joined(env, told_alike, card) is None
        assert joined(env, freeze, limit) is not None


def test_a_new_record_joins_a_change_made_before_it(banking_spec: EnvironmentSpec) -> None:
    """A new account's id had counted every write before it, so an account opened after a
    card was frozen got another id than alone, and a create never joined a change."""
    opening = ToolCall(name="open_account", arguments={"client_id": "C1001", "kind": "savings"})
    with Environment(banking_spec) as env:
        freeze = chain(
            env,
            [FIND, CARDS, FREEZE],
            [OutputRef(call=2, path="status")],
            wanted=["card_status"],
            operations=[["freeze"]],
        )
        opened = chain(
            env,
            [FIND, opening],
            [OutputRef(call=1, path="account_id")],
            wanted=["account_id"],
            operations=[["open"]],
        )
        both = joined(env, freeze, opened)
    assert both is not None
    assert both.calls == [FIND, CARDS, FREEZE, opening]
    assert both.results[3].output["account_id"] == opened.results[1].output["account_id"]


def test_a_new_record_does_not_join_a_change_of_another_of_its_kind(
    banking_spec: EnvironmentSpec,
) -> None:
    """travel-intent-00052 on 0651c04: "book a flight ... include these bags in my flight
    booking", whose gold added the bags to another booking the user had."""
    opening = ToolCall(name="open_account", arguments={"client_id": "C1001", "kind": "savings"})
    with Environment(banking_spec) as env:
        opened = chain(env, [FIND, opening], [OutputRef(call=1, path="account_id")])
        limit = chain(env, [FIND, LIMIT], [OutputRef(call=1, path="daily_transfer_limit")])
        freeze = chain(env, [FIND, FREEZE], [OutputRef(call=1, path="status")])
        assert joined(env, opened, limit) is None
        assert joined(env, limit, opened) is None
        # a card frozen beside a new account: two kinds, told apart
        assert joined(env, opened, freeze) is not None
