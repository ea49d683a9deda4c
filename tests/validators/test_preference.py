"""Stage `preference`: a stated preference agrees with the gold."""

from __future__ import annotations

from tests.validators.verdicts import MOVE, bank_verdict
from toolscale.spec import EnvironmentSpec

ACCOUNT = {"name": "get_account", "arguments": {"account_id": "A20001"}}
ASK = "Please move $250 from A20001 to A20002 and tell me what is left in A20001."
TOLD = [{"call": 1, "path": "from_balance"}]
CHEAP = "Keep this as cheap as possible."


def test_a_check_a_cheap_user_does_not_need_is_avoidable_call(
    banking_spec: EnvironmentSpec,
) -> None:
    """Reading the account before the transfer is a fine check, but the transfer's own
    require steps check it too: a user who asked for cheap pays for nothing."""
    assert bank_verdict(banking_spec, ASK, gold_calls=[ACCOUNT, MOVE], communicate=TOLD) == (
        "accepted",
        "ok",
        "",
    )
    stage, reason, detail = bank_verdict(
        banking_spec,
        f"{ASK} {CHEAP}",
        gold_calls=[ACCOUNT, MOVE],
        communicate=TOLD,
        preferences={"cost": 1.0, "statement": CHEAP},
    )
    assert (stage, reason) == ("preference", "avoidable_call")
    assert "cheap" in detail and "get_account" in detail
    lean = bank_verdict(
        banking_spec,
        f"{ASK} {CHEAP}",
        gold_calls=[MOVE],
        communicate=[{"call": 0, "path": "from_balance"}],
        preferences={"cost": 1.0, "statement": CHEAP},
    )
    assert lean == ("accepted", "ok", "")


def test_a_tool_the_user_avoids_in_the_gold_is_avoided_tool_used(
    banking_spec: EnvironmentSpec,
) -> None:
    avoid = "Please don't use get_account."
    stage, reason, detail = bank_verdict(
        banking_spec,
        f"{ASK} {avoid}",
        gold_calls=[ACCOUNT, MOVE],
        communicate=TOLD,
        preferences={"avoid_tools": ["get_account"], "statement": avoid},
    )
    assert (stage, reason) == ("preference", "avoided_tool_used")
    assert "get_account" in detail
