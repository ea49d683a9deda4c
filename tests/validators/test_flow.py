"""Stage `flow`: no call repeats while nothing changed, and every read contributes."""

from __future__ import annotations

from tests.validators.verdicts import MOVE, bank_verdict
from toolscale.spec import EnvironmentSpec

BALANCE = {"name": "get_balance", "arguments": {"account_id": "A20001"}}
ASK = "Please move $250 from A20001 to A20002 and tell me what is left in A20001."


def test_the_same_lookup_twice_is_a_repeated_call(banking_spec: EnvironmentSpec) -> None:
    stage, reason, detail = bank_verdict(
        banking_spec,
        "What is the balance of A20001?",
        gold_calls=[BALANCE, BALANCE],
        communicate=[{"call": 1, "path": "balance"}],
    )
    assert (stage, reason) == ("flow", "repeated_call")
    assert "gold call 2 get_balance" in detail


def test_the_same_lookup_after_a_write_reads_something_new(
    banking_spec: EnvironmentSpec,
) -> None:
    verdict = bank_verdict(
        banking_spec,
        "What is the balance of A20001? Then move $250 from A20001 to A20002 and tell me "
        "the balance of A20001 again.",
        gold_calls=[BALANCE, MOVE, BALANCE],
        communicate=[{"call": 0, "path": "balance"}, {"call": 2, "path": "balance"}],
    )
    assert verdict == ("accepted", "ok", "")


def test_a_lookup_nothing_uses_is_an_unused_read(banking_spec: EnvironmentSpec) -> None:
    card = {"name": "get_card", "arguments": {"card_id": "K30001"}}
    stage, reason, detail = bank_verdict(
        banking_spec,
        f"My card is K30001. {ASK}",
        gold_calls=[card, MOVE],
        communicate=[{"call": 1, "path": "from_balance"}],
    )
    assert (stage, reason) == ("flow", "unused_read")
    assert "gold call 1 get_card" in detail


def test_reading_the_row_a_write_touches_is_its_check(banking_spec: EnvironmentSpec) -> None:
    """The policy's "read before writing": the read's output holds the write's argument."""
    account = {"name": "get_account", "arguments": {"account_id": "A20001"}}
    verdict = bank_verdict(
        banking_spec,
        ASK,
        gold_calls=[account, MOVE],
        communicate=[{"call": 1, "path": "from_balance"}],
    )
    assert verdict == ("accepted", "ok", "")


def test_reading_again_what_a_find_showed_is_an_unused_read(
    banking_spec: EnvironmentSpec,
) -> None:
    """travel-intent-00007 found the customer by email, then read the same customer by id
    before writing: the second read shows nothing the first did not (`bank_verdict` finds
    Maria by email first)."""
    again = {"name": "get_client", "arguments": {"client_id": "C1001"}}
    update = {
        "name": "update_client_email",
        "arguments": {"client_id": "C1001", "new_email": "maria.l@example.org"},
    }
    ask = "Please change my email to maria.l@example.org."
    stage, reason, detail = bank_verdict(banking_spec, ask, gold_calls=[again, update])
    assert (stage, reason) == ("flow", "unused_read")
    assert "get_client" in detail and "already showed" in detail
    assert bank_verdict(banking_spec, ask, gold_calls=[update]) == ("accepted", "ok", "")


def test_reading_back_what_the_writes_output_showed_is_an_unused_read(
    banking_spec: EnvironmentSpec,
) -> None:
    """finance-intent-00036 on e4504b8 read the account back after a transfer whose output
    held its new balance, and told the balance from the read."""
    freeze = {"name": "freeze_card", "arguments": {"client_id": "C1001", "card_id": "K30001"}}
    card = {"name": "get_card", "arguments": {"card_id": "K30001"}}
    ask = "Please freeze my card K30001 and tell me its status."
    stage, reason, detail = bank_verdict(
        banking_spec, ask, gold_calls=[freeze, card], communicate=[{"call": 1, "path": "status"}]
    )
    assert (stage, reason) == ("flow", "unused_read")
    assert detail == (
        'gold call 2 get_card{"card_id":"K30001"} tells only what gold call 1\'s output '
        "already showed, and nothing was written since"
    )
    told = [{"call": 0, "path": "status"}]
    assert bank_verdict(banking_spec, ask, gold_calls=[freeze], communicate=told)[0] == "accepted"
