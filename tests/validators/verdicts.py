"""What the verifier makes of one task on the small environment: the stage files each pin
their reasons with it, with the smallest possible inputs (test_banking.py covers the same
reasons on a realistic environment)."""

from __future__ import annotations

from typing import Any

from tests.conftest import mini_task
from toolscale.spec import EnvironmentSpec
from validators.pipeline import TASK_STAGES, verify
from validators.stage import TaskStage

W30 = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 30}}


def verdict(spec: EnvironmentSpec, **overrides: Any) -> tuple[str, str]:
    """(stage, reason) of the rejection of `mini_task(**overrides)`, or ("accepted", "ok");
    a rejection names the task and keeps it as read."""
    task = mini_task(**overrides)
    accepted, rejected, _ = verify(spec, [task])
    if not rejected:
        assert [t.id for t in accepted] == [task.id]
        return "accepted", "ok"
    assert len(rejected) == 1 and accepted == [], rejected
    assert rejected[0].task_id == task.id and rejected[0].item["id"] == task.id
    return rejected[0].stage, rejected[0].reason


MARIA = {
    "instruction": "Hi, this is Maria Lopez (maria.lopez@example.com).",
    "known_facts": ["My email is maria.lopez@example.com."],
}
MARIA_EMAIL = "maria.lopez@example.com"
FIND_MARIA = {"name": "find_client_by_email", "arguments": {"email": MARIA_EMAIL}}


def bank_verdict(
    spec: EnvironmentSpec,
    ask: str,
    email: str = MARIA_EMAIL,
    stages: tuple[TaskStage, ...] = TASK_STAGES,
    **overrides: Any,
) -> tuple[str, str, str]:
    """(stage, reason, detail) the verifier gives a task of a client's on the banking
    environment (Maria Lopez's unless `email` names another): `ask` follows her greeting,
    the gold starts by finding her by email; ("accepted", "ok", "") when it is kept. With
    `stages`, only those run: a later stage's check pinned where an earlier one also
    rejects."""
    maria = email == MARIA_EMAIL
    fields: dict[str, Any] = {
        "id": "fidelity",
        "instruction": f"{MARIA['instruction'] if maria else f'Hi, this is {email}.'} {ask}",
        "known_facts": MARIA["known_facts"] if maria else [f"My email is {email}."],
    } | overrides
    find = {"name": "find_client_by_email", "arguments": {"email": email}}
    fields["gold_calls"] = [find, *fields.get("gold_calls", [])]
    fields["communicate"] = [
        {"call": ref["call"] + 1, "path": ref["path"]} for ref in fields.get("communicate", [])
    ]
    task = mini_task(**fields)
    _, rejected, _ = verify(spec, [task], cross_engine=False, stages=stages)
    if not rejected:
        return "accepted", "ok", ""
    return rejected[0].stage, rejected[0].reason, rejected[0].detail


ACCEPTED = ("accepted", "ok", "")


def transfer(to_account: str, amount: float) -> dict[str, Any]:
    """Maria's transfer of `amount` from her checking account A20001."""
    arguments = {"client_id": "C1001", "from_account_id": "A20001", "to_account_id": to_account}
    return {"name": "transfer_funds", "arguments": arguments | {"amount": amount}}


MOVE = transfer("A20002", 250)  # from her checking account to her savings account
SAVE = "Please send $25 from my checking account to my savings account. My balance after?"


def saving_verdict(
    spec: EnvironmentSpec, facts: list[str], ask: str = SAVE
) -> tuple[str, str, str]:
    """The verdict on Maria's $25 from her checking A20001 to her savings A20002, her accounts
    listed first and the balance left told, with `facts` as what she knows."""
    mine = {"name": "list_accounts", "arguments": {"client_id": "C1001"}}
    return bank_verdict(
        spec,
        ask,
        gold_calls=[mine, transfer("A20002", 25)],
        communicate=[{"call": 1, "path": "from_balance"}],
        known_facts=facts,
    )


def all_kept(spec: EnvironmentSpec, asks: tuple[str, ...], **overrides: Any) -> None:
    """Each request, with the same gold, is kept: the near misses a check must let pass."""
    for ask in asks:
        assert bank_verdict(spec, ask, **overrides) == ACCEPTED, ask
