"""Stage `replay`: every gold call succeeds, or fails exactly as declared; every value to
communicate resolves in a real output; a claimed outcome is the one reached."""

from __future__ import annotations

from typing import Any

import pytest

from tests.conftest import mini_task
from tests.validators.verdicts import W30, verdict
from toolscale.environment import Environment, Replay
from toolscale.spec import EnvironmentSpec
from toolscale.task import OutputRef
from toolscale.tool import ToolResult
from validators.pipeline import verify
from validators.replay import check, resolve, resolve_all, restated


@pytest.mark.parametrize(
    "overrides, reason",
    [
        (
            {
                "gold_calls": [
                    {"name": "withdraw", "arguments": {"account_id": "A2", "amount": 30}}
                ],
                "instruction": "Withdraw $30 from A2.",
                "communicate": [],
            },
            "gold_call_failed",
        ),
        ({"gold_calls": [W30 | {"expect_error": "frozen"}]}, "expected_error_missing"),
        ({"communicate": [{"call": 0, "path": "pin"}]}, "communicate_unresolved"),
        ({"expected": {"state_hash": "0" * 64, "diff": {"tables": {}}}}, "expected_mismatch"),
        (
            {"gold_calls": [{"name": "withdraw", "arguments": {"account_id": "A9", "amount": 30}}]},
            "gold_call_failed",
        ),
    ],
)
def test_each_reason(mini_spec: EnvironmentSpec, overrides: dict, reason: str) -> None:
    assert verdict(mini_spec, **overrides) == ("replay", reason)


def replayed(*outputs: Any) -> Replay:
    """A replay of calls that gave these outputs; a string stands for a failure, its error."""
    results = [
        ToolResult(ok=False, error=o, code="policy")
        if isinstance(o, str)
        else ToolResult(ok=True, output=o)
        for o in outputs
    ]
    return Replay(results, {})


def test_resolve_walks_the_real_output() -> None:
    run = replayed({"id": "A1", "balance": 70}, [{"amount": 5}, {"amount": 7}], 42)
    assert resolve(OutputRef(call=0, path="balance"), run) == 70
    assert resolve(OutputRef(call=1, path="1.amount"), run) == 7
    assert resolve(OutputRef(call=1, path="-1.amount"), run) == 7
    assert resolve(OutputRef(call=2), run) == 42


@pytest.mark.parametrize(
    "ref, problem",
    [
        (OutputRef(call=0), "is not a single value"),
        (OutputRef(call=0, path="owner"), "is null"),
        (OutputRef(call=3, path="balance"), "gold call 3 failed, it has no output"),
        (OutputRef(call=0, path="pin"), "pin"),
    ],
    ids=["object", "null", "failed_call", "no_such_key"],
)
def test_what_does_not_resolve_says_why(ref: OutputRef, problem: str) -> None:
    run = replayed({"balance": 70, "owner": None}, [], 1, "account is frozen")
    with pytest.raises(KeyError, match=problem):
        resolve(ref, run)


def test_resolve_all_keeps_a_place_for_each_value() -> None:
    task = mini_task(
        gold_calls=[W30, W30],
        communicate=[{"call": 0, "path": "balance"}, {"call": 1, "path": "pin"}],
    )
    assert resolve_all(task, replayed({"balance": 70}, {"balance": 40})) == [70, None]


def test_a_declared_error_must_be_the_one_that_happens() -> None:
    task = mini_task(gold_calls=[W30 | {"expect_error": "Frozen"}], communicate=[])
    assert check(task, replayed("The account is FROZEN or does not exist"), None) is None
    other = check(task, replayed("account not found"), None)
    assert other is not None and other.reason == "gold_call_failed"
    assert other.detail == (
        "gold call 0 withdraw failed with 'account not found', not the declared 'Frozen'"
    )


def test_a_claimed_outcome_is_compared_by_its_state_hash() -> None:
    claimed = {"state_hash": "a" * 64, "diff": {"tables": {}}}
    task = mini_task(expected=claimed)
    assert check(task, replayed({"balance": 70}), "a" * 64) is None
    found = check(task, replayed({"balance": 70}), "b" * 64)
    assert found is not None and found.reason == "expected_mismatch"
    assert (
        found.detail
        == "the task claims final state aaaaaaaaaaaa…, the replay reached bbbbbbbbbbbb…"
    )


def remade(spec: EnvironmentSpec, account: int, balance: float) -> EnvironmentSpec:
    """The spec with one account's seed balance changed, as a seed made again would."""
    seed = {table: [dict(row) for row in rows] for table, rows in spec.seed.items()}
    seed["accounts"][account]["balance"] = balance
    return spec.model_copy(update={"seed": seed})


def test_a_task_whose_gold_does_the_same_on_a_remade_seed_is_restated(
    mini_spec: EnvironmentSpec,
) -> None:
    """Ecommerce on d25e859 lost all 30 kept tasks to `expected_mismatch` when `reach` moved
    two orders none of them changed: the hash is of the whole state. A gold that changes
    the same rows the same way and tells the same values is restated; one whose effect
    differs is judged as it claims."""
    (kept,), _, _ = verify(mini_spec, [mini_task()])  # withdraws 30 from A1, tells its balance
    assert kept.expected is not None
    far = remade(mini_spec, 1, 50)  # A2, which the gold never touches
    _, (refused,), _ = verify(far, [kept])
    assert refused.reason == "expected_mismatch"
    with Environment(far) as env:
        new = restated(kept, env)
    assert new is not None and new.expected is not None
    assert new.expected.state_hash != kept.expected.state_hash
    assert new.model_copy(update={"expected": kept.expected}) == kept
    assert [t.id for t in verify(far, [new])[0]] == [kept.id]
    with Environment(remade(mini_spec, 0, 200)) as env:  # A1 itself: 170 left, not 70
        assert restated(kept, env) is None
    with Environment(mini_spec) as env:  # nothing differs
        assert restated(kept, env) is None
