"""Each validator on the small environment: one broken task per reason, and the stage order.

The banking fixture (test_validators_banking.py) covers the same reasons on a realistic
environment; these pin the mechanics with the smallest possible inputs.
"""

from __future__ import annotations

import pytest

from tests.conftest import expected_of, mini_task
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from validators import dedup
from validators.pipeline import EnvironmentRejected, Verifier, verify

W30 = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 30}}


def _reject(spec: EnvironmentSpec, *tasks: Task) -> tuple[str, str, str]:
    accepted, rejected, _ = verify(spec, list(tasks))
    assert len(rejected) == 1, [t.id for t in accepted]
    r = rejected[0]
    return r.stage, r.reason, r.detail


@pytest.mark.parametrize(
    "overrides, stage, reason",
    [
        ({"gold_calls": [{"name": "teleport", "arguments": {}}]}, "structure", "unknown_tool"),
        (
            {"gold_calls": [{"name": "withdraw", "arguments": {"account_id": "A1"}}]},
            "structure",
            "bad_arguments",
        ),
        ({"preferences": {"avoid_tools": ["fax"]}}, "structure", "unknown_preference_tool"),
        (
            {
                "gold_calls": [
                    {"name": "withdraw", "arguments": {"account_id": "A2", "amount": 30}}
                ],
                "instruction": "Withdraw $30 from A2.",
                "communicate": [],
            },
            "replay",
            "gold_call_failed",
        ),
        ({"gold_calls": [W30 | {"expect_error": "frozen"}]}, "replay", "expected_error_missing"),
        ({"communicate": [{"call": 0, "path": "pin"}]}, "replay", "communicate_unresolved"),
        (
            {"expected": {"state_hash": "0" * 64, "diff": {"tables": {}}}},
            "replay",
            "expected_mismatch",
        ),
        (
            {
                "gold_calls": [{"name": "get_account", "arguments": {"account_id": "A1"}}],
                "communicate": [],
                "instruction": "Look at account A1.",
            },
            "triviality",
            "trivial",
        ),
        (
            {
                "gold_calls": [
                    W30,
                    {"name": "withdraw", "arguments": {"account_id": "A1", "amount": 0.0001}},
                ],
                "instruction": "Withdraw $30 and then 0.0001 from account A1.",
                "communicate": [],
            },
            "accepted",  # 0.0001 is stated and the second write is needed
            "ok",
        ),
        (
            {"gold_calls": [{"name": "withdraw", "arguments": {"account_id": "A9", "amount": 30}}]},
            "replay",
            "gold_call_failed",
        ),
        (
            {
                "gold_calls": [{"name": "open_account", "arguments": {"client_id": 2}}],
                "instruction": "Open me a new account please.",
                "communicate": [{"call": 0, "path": "id"}],
            },
            "provenance",
            "unsupported_argument",
        ),
    ],
)
def test_each_reason(mini_spec: EnvironmentSpec, overrides: dict, stage: str, reason: str) -> None:
    task = mini_task(**overrides)
    accepted, rejected, _ = verify(mini_spec, [task])
    if reason == "ok":
        assert rejected == [] and [t.id for t in accepted] == [task.id]
        return
    assert [(r.stage, r.reason) for r in rejected] == [(stage, reason)], rejected
    assert rejected[0].task_id == task.id and rejected[0].item["id"] == task.id


def test_unnecessary_write(mini_spec: EnvironmentSpec) -> None:
    needed = mini_task(
        instruction="Withdraw 30 from A1, open an account for client 1, withdraw 30 again.",
        gold_calls=[W30, {"name": "open_account", "arguments": {"client_id": 1}}, W30],
        communicate=[],
    )
    assert verify(mini_spec, [needed])[1] == []
    moot = mini_task(  # opening an account and closing it again leaves no trace: call 1 is moot
        instruction="Withdraw 30 from A1, open an account for client 1 and close it again.",
        gold_calls=[
            W30,
            {"name": "open_account", "arguments": {"client_id": 1}},
            {"name": "close_account", "arguments": {"account_id": "AC1000001"}},
        ],
        communicate=[],
    )
    stage, reason, detail = _reject(mini_spec, moot)
    assert (stage, reason) == ("necessity", "unnecessary_write")
    assert "gold call 1 open_account" in detail


def test_nondeterministic_and_engine_mismatch(mini_dict: dict) -> None:
    integers = {
        "type": "object",
        "required": ["total", "people"],
        "properties": {"total": {"type": "integer"}, "people": {"type": "integer"}},
    }
    mini_dict["tools"] += [
        {
            "name": "lucky",
            "description": "A lucky number.",
            "kind": "read",
            "returns": "SELECT abs(random()) % 1000000 AS n",
        },
        {
            "name": "split",
            "description": "Split a bill.",
            "kind": "read",
            "parameters": integers,
            "returns": "SELECT :total / :people AS share",
        },
        {
            "name": "fmt",
            "description": "Split a bill, in dollars.",
            "kind": "read",
            "parameters": integers,
            "returns": "SELECT printf('%.1f', :total / 100.0 / :people) AS share",
        },
    ]
    spec = EnvironmentSpec.model_validate(mini_dict)

    def ask(tid: str, tool: str, total: int) -> Task:
        return mini_task(
            id=tid,
            instruction=f"Split {total} between 3 people.",
            gold_calls=[{"name": tool, "arguments": {"total": total, "people": 3}}],
            communicate=[{"call": 0, "path": "0.share"}],
        )

    lucky = mini_task(
        id="lucky",
        instruction="Give me a lucky number.",
        gold_calls=[{"name": "lucky", "arguments": {}}],
        communicate=[{"call": 0, "path": "0.n"}],
    )
    split, fmt = ask("split", "split", 100), ask("fmt", "fmt", 75)
    accepted, rejected, _ = verify(spec, [lucky, split, fmt])
    assert [(r.task_id, r.stage, r.reason) for r in rejected] == [
        ("lucky", "determinism", "nondeterministic"),
        ("fmt", "determinism", "engine_mismatch"),  # printf rounds 0.25 differently
    ]
    assert "duckdb" in rejected[1].detail
    # integer division is compiled for DuckDB with SQLite's semantics: 100 / 3 is 33 on both
    assert [(t.id, expected_of(t).communicate) for t in accepted] == [("split", [33])]
    # without the cross-engine replay the printf difference slips through: the check matters
    accepted, _, _ = verify(spec, [fmt], cross_engine=False)
    assert [t.id for t in accepted] == ["fmt"]


def test_dedup_gold_and_near_duplicate(mini_spec: EnvironmentSpec) -> None:
    first = mini_task(id="a")
    same_gold = mini_task(
        id="b", instruction="Take thirty dollars, i.e. 30, out of A1; what is left?"
    )
    near = mini_task(
        id="c",
        instruction="Withdraw $30 from account A1 and tell me the new balance please.",
        gold_calls=[W30, {"name": "get_account", "arguments": {"account_id": "A1"}}],
    )
    other = mini_task(
        id="d",
        instruction="Open a new account for client 1 and give me its id.",
        gold_calls=[{"name": "open_account", "arguments": {"client_id": 1}}],
        communicate=[{"call": 0, "path": "id"}],
    )
    accepted, rejected, report = verify(mini_spec, [first, same_gold, near, other])
    assert [t.id for t in accepted] == ["a", "d"]
    assert [(r.task_id, r.reason) for r in rejected] == [
        ("b", "duplicate_gold"),
        ("c", "near_duplicate_instruction"),
    ]
    assert report.stage("dedup").rejected == {"duplicate_gold": 1, "near_duplicate_instruction": 1}


def test_dedup_index_persists_on_disk(tmp_path, mini_spec: EnvironmentSpec) -> None:
    path = tmp_path / "dedup.sqlite"
    index = dedup.DedupIndex(path)
    assert index.check(mini_task(id="a")) is None
    index.close()
    again = dedup.DedupIndex(path)
    found = again.check(mini_task(id="b"))
    assert found is not None and found.reason == "duplicate_gold"
    again.close()


def test_accepted_task_carries_expected_outcome_and_difficulty(mini_spec: EnvironmentSpec) -> None:
    (task,), _, _ = verify(mini_spec, [mini_task()])
    expected = expected_of(task)
    assert expected.communicate == [70]
    assert expected.diff.summary() == "accounts: 1 updated (balance)"
    assert len(expected.state_hash) == 64
    assert task.difficulty is not None
    assert task.difficulty.n_writes == 1 and task.difficulty.level == "easy"
    # verifying a verified task again checks its claimed outcome and accepts it
    again, rejected, _ = verify(mini_spec, [task])
    assert rejected == [] and again[0].expected == task.expected


def test_broken_environment_is_refused_with_every_problem(mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = "SELECT id, colour FROM accounts WHERE id = :account_id"
    mini_dict["tools"][1]["run"] = ["UPDATE accounts SET balance = balance - :amt"]
    spec = EnvironmentSpec.model_validate(mini_dict)
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(spec)
    reasons = [(r.stage, r.reason) for r in info.value.rejections]
    assert reasons == [
        ("static_sql", "sql_unknown_column"),
        ("static_sql", "sql_unknown_parameter"),
    ]
    assert "get_account.returns" in info.value.rejections[0].detail


def test_unportable_sql_is_caught_before_any_task(mini_dict: dict) -> None:
    mini_dict["tools"][0]["returns"] = (
        "SELECT id, julianday(:_now) AS day FROM accounts WHERE id = :account_id"
    )
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(EnvironmentSpec.model_validate(mini_dict))
    (r,) = info.value.rejections
    assert (r.stage, r.reason) == ("static_sql", "sql_not_portable")


def test_bad_seed_is_refused(mini_dict: dict) -> None:
    mini_dict["seed"]["accounts"][0]["balance"] = -1
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(EnvironmentSpec.model_validate(mini_dict))
    stages = {(r.stage, r.reason) for r in info.value.rejections}
    assert stages == {("seed", "seed_constraint_violation")}


def test_near_duplicate_decision_uses_exact_similarity(tmp_path) -> None:
    base = (
        "please move two hundred dollars from my checking account into savings before "
        "the rent is due on friday and tell me the balance"
    )
    words = base.split()
    tail = " ".join([*words[:-1], "total"])  # one shingle differs
    middle = " ".join([*words[:10], "brokerage", *words[11:]])  # three shingles differ

    def jaccard(a: str, b: str) -> float:
        x, y = dedup.shingles(a), dedup.shingles(b)
        return len(x & y) / len(x | y)

    assert jaccard(base, tail) >= 0.8 > jaccard(base, middle) >= 0.7  # close calls both
    index = dedup.DedupIndex(tmp_path / "d.sqlite", threshold=0.8)

    def task(tid: str, text: str, amount: int) -> Task:
        call = {"name": "withdraw", "arguments": {"account_id": "A1", "amount": amount}}
        return mini_task(id=tid, instruction=text, gold_calls=[call])

    assert index.check(task("base", base, 1)) is None
    assert index.check(task("middle", middle, 2)) is None
    found = index.check(task("tail", tail, 3))
    assert found is not None and found.reason == "near_duplicate_instruction"
    assert f"{jaccard(base, tail):.0%} similar" in found.detail and "'base'" in found.detail
    index.close()


def test_update_of_unique_referenced_column_is_not_portable(mini_dict: dict) -> None:
    mini_dict["schema"]["tables"][0]["columns"][1]["unique"] = True  # clients.name
    mini_dict["tools"].append(
        {
            "name": "rename",
            "description": "Rename a client.",
            "kind": "write",
            "parameters": {
                "type": "object",
                "properties": {"client_id": {"type": "integer"}, "name": {"type": "string"}},
                "required": ["client_id", "name"],
            },
            "run": ["UPDATE clients SET name = :name WHERE id = :client_id"],
        }
    )
    with pytest.raises(EnvironmentRejected) as info:
        Verifier(EnvironmentSpec.model_validate(mini_dict))
    (r,) = info.value.rejections
    assert (r.stage, r.reason) == ("static_sql", "sql_not_portable")
    assert "clients.name" in r.detail and "rename.run[0]" in r.detail
