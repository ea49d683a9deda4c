"""Canonical state: equal states hash equal on both engines; diffs explain mismatches."""

from __future__ import annotations

import datetime as dt
import decimal

import pytest

from toolscale.sandbox import open_sandbox
from toolscale.sandbox.base import EngineName
from toolscale.sandbox.state import normalise
from toolscale.spec import EnvironmentSpec


@pytest.mark.parametrize(
    "raw, canonical",
    [
        (33, 33),
        (33.0, 33),
        (decimal.Decimal("33.00"), 33),
        (0.1 + 0.2, 0.3),
        (True, 1),
        ("33", "33"),  # text is text
        (None, None),
        (dt.date(2025, 3, 14), "2025-03-14"),
        (b"\x01\xff", "01ff"),
    ],
)
def test_normalise(raw: object, canonical: object) -> None:
    assert normalise(raw) == canonical
    assert type(normalise(raw)) is type(canonical)


def test_same_state_same_hash_on_both_engines(mini_spec: EnvironmentSpec) -> None:
    hashes = {}
    for engine in ("sqlite", "duckdb"):
        with open_sandbox(mini_spec, engine) as sb:
            seed = sb.state_hash()
            assert sb.call("withdraw", {"account_id": "A1", "amount": 30.5}).ok
            assert sb.call("open_account", {"client_id": 2}).ok
            assert sb.call("withdraw", {"account_id": "A1", "amount": 69.5}).ok
            assert sb.call("close_account", {"account_id": "A1"}).ok
            hashes[engine] = (seed, sb.state_hash())
            sb.reset()
            assert sb.state_hash() == seed
    assert hashes["sqlite"] == hashes["duckdb"]
    assert hashes["sqlite"][0] != hashes["sqlite"][1]


def test_reverted_update_is_no_change(mini_dict: dict) -> None:
    withdraw = next(t for t in mini_dict["tools"] if t["name"] == "withdraw")
    del withdraw["parameters"]["properties"]["amount"]["exclusiveMinimum"]
    with open_sandbox(EnvironmentSpec.model_validate(mini_dict)) as sb:
        seed = sb.state_hash()
        sb.call("withdraw", {"account_id": "A1", "amount": 10})
        assert sb.changes()
        sb.call("withdraw", {"account_id": "A1", "amount": -10})  # schema allows it here
        assert sb.changes() == {}
        assert sb.state_hash() == seed


def test_diff_names_inserted_updated_deleted_and_columns(mini_spec: EnvironmentSpec) -> None:
    with open_sandbox(mini_spec) as sb:
        sb.call("withdraw", {"account_id": "A1", "amount": 100})
        sb.call("close_account", {"account_id": "A1"})
        sb.call("open_account", {"client_id": 1})
        after = sb.changes()
        sb.reset()
        sb.call("withdraw", {"account_id": "A1", "amount": 40})
        other = sb.changes()
        diff = sb.seed_state.diff({}, after)
        kinds = {(row.kind, tuple(row.key)) for row in diff.tables["accounts"]}
        # the two writes before it took no id, so the new account takes the first
        assert kinds == {("deleted", ("A1",)), ("inserted", ("AC1000000",))}
        between = sb.seed_state.diff(other, after)
        assert "accounts: " in between.summary()
        (updated,) = sb.seed_state.diff({}, other).tables["accounts"]
        assert updated.kind == "updated"
        assert updated.changed_columns == ["balance"]
        assert updated.before is not None and updated.after is not None
        assert (updated.before["balance"], updated.after["balance"]) == (100, 60)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_changes_of_many_rows(mini_dict: dict, engine: EngineName) -> None:
    """More changed rows than one statement may bind parameters for (SQLite caps it at 100)."""
    mini_dict["seed"]["clients"] = [{"id": i, "name": f"c{i}"} for i in range(1, 301)]
    mini_dict["tools"].append(
        {
            "name": "rename_all",
            "description": "Rename every client.",
            "kind": "write",
            "run": ["UPDATE clients SET name = name || '!'"],
        }
    )
    spec = EnvironmentSpec.model_validate(mini_dict)
    with open_sandbox(spec, engine) as sb:
        assert sb.call("rename_all", {}).ok
        changed = sb.changes()["clients"]
        assert len(changed) == 300 and changed[(7,)] == (7, "c7!")
