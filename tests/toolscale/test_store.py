"""What a run persists: stages and the environment read back as written, batches as the unit
of durability, views rebuilt from them, and a broken stored file named with its field."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import mini_task
from toolscale.llm.ledger import Ledger
from toolscale.report import Rejection
from toolscale.spec import EnvironmentSpec
from toolscale.store import REFUSED_ON_RESUME, Batch, DomainStore, StoreError, TrajectoryRecord
from toolscale.trajectory import Message


def batch(strategy: str, indices: list[int], ok: list[str], bad: list[str]) -> Batch:
    """A batch with a verified task and its record per id in `ok`, a rejection per id in `bad`."""
    ledger = Ledger()
    ledger.stage(strategy).calls = len(indices)
    return Batch(
        strategy=strategy,
        indices=indices,
        accepted=[mini_task(id=t) for t in ok],
        trajectories=[
            TrajectoryRecord(
                task_id=t,
                domain="mini",
                strategy=strategy,
                messages=[Message(role="user", content="hi")],
                tools=[],
            )
            for t in ok
        ],
        rejected=[
            Rejection(stage="replay", reason="gold_call_failed", detail="", task_id=t) for t in bad
        ],
        ledger=ledger,
        seconds=1.5,
    )


def no_temporaries(root: Path) -> bool:
    return not [p for p in root.rglob("*") if p.name.endswith((".tmp", ".partial"))]


def test_a_stage_reads_back_as_it_was_saved(tmp_path: Path) -> None:
    store = DomainStore(tmp_path, "mini")
    assert store.load_stage("tools_dropped", list[Rejection]) is None
    dropped = [Rejection(stage="tools", reason="sql_rejected", detail="tool 'x': broken")]
    store.save_stage("tools_dropped", dropped, list[Rejection])
    assert store.stage_path("tools_dropped") == tmp_path / "mini" / "stages" / "tools_dropped.json"
    assert store.load_stage("tools_dropped", list[Rejection]) == dropped
    store.save_stage("policy", "# Policy\n", str)
    assert store.load_stage("policy", str) == "# Policy\n"
    assert no_temporaries(tmp_path)


def test_a_broken_stage_file_names_the_file_the_stage_and_the_field(tmp_path: Path) -> None:
    store = DomainStore(tmp_path, "mini")
    path = store.stage_path("tools_dropped")
    path.parent.mkdir(parents=True)
    path.write_text('[{"stage": "tools", "reason": "sql_rejected"}]')
    with pytest.raises(StoreError) as caught:
        store.load_stage("tools_dropped", list[Rejection])
    assert caught.value.reason == "bad_stored_file"
    assert (
        caught.value.detail == f"{path}: not a valid tools_dropped stage: 0.detail: Field required"
    )


def test_the_environment_and_its_seed_database(tmp_path: Path, mini_spec: EnvironmentSpec) -> None:
    store = DomainStore(tmp_path, "mini")
    assert store.load_environment() is None
    store.save_environment(mini_spec)
    assert store.load_environment() == mini_spec
    con = sqlite3.connect(store.dir / "seed.sqlite")
    try:
        rows = con.execute("SELECT id, client_id, balance, frozen FROM accounts ORDER BY id")
        assert rows.fetchall() == [("A1", 1, 100.0, 0), ("A2", 2, 33.0, 1)]
        assert con.execute("SELECT count(*) FROM clients").fetchone() == (2,)
    finally:
        con.close()
    store.save_environment(mini_spec)  # again: replaced, not appended to
    assert no_temporaries(tmp_path)


def test_a_broken_environment_file_names_the_file_and_the_field(
    tmp_path: Path, mini_dict: dict
) -> None:
    store = DomainStore(tmp_path, "mini")
    del mini_dict["tools"][0]["description"]
    store.dir.mkdir(parents=True)
    store.environment_path.write_text(json.dumps(mini_dict))
    with pytest.raises(StoreError) as caught:
        store.load_environment()
    assert caught.value.detail == f"{store.environment_path}: tools.0.description: Field required"


def test_batches_are_named_by_strategy_and_first_index_and_read_in_order(tmp_path: Path) -> None:
    store = DomainStore(tmp_path, "mini")
    assert list(store.batches()) == []
    later = store.commit_batch(batch("sampled", [7, 3, 5], ["s3"], ["s5"]))
    first = store.commit_batch(batch("sampled", [0, 1], ["s0", "s1"], []))
    llm = store.commit_batch(batch("llm", [0], [], ["l0"]))
    assert [p.name for p in (later, first, llm)] == [
        "sampled-000003.json",
        "sampled-000000.json",
        "llm-000000.json",
    ]
    (store.batches_dir / ".sampled-000009.json.x1.tmp").write_text('{"cut')  # left by a kill
    assert [b.indices for b in store.batches("sampled")] == [[0, 1], [7, 3, 5]]
    assert [b.strategy for b in store.batches()] == ["llm", "sampled", "sampled"]
    assert [t.id for t in store.accepted()] == ["s0", "s1", "s3"]
    assert [t.id for t in store.accepted("llm")] == []
    assert store.batches_dir.joinpath("sampled-000003.json").read_text().startswith("{")


def test_a_broken_batch_names_the_file_and_the_field(tmp_path: Path) -> None:
    store = DomainStore(tmp_path, "shop")
    store.batches_dir.mkdir(parents=True)
    broken = store.batches_dir / "sampled-000000.json"
    broken.write_text('{"strategy": "sampled", "indices": ["one"]}')
    with pytest.raises(StoreError) as caught:
        list(store.batches())
    assert caught.value.reason == "bad_stored_file"
    assert caught.value.detail == f"{broken}: not a valid batch: indices.0: " + (
        "Input should be a valid integer, unable to parse string as an integer"
    )


def test_the_views_are_rebuilt_from_every_batch(tmp_path: Path) -> None:
    store = DomainStore(tmp_path, "mini")
    store.commit_batch(batch("sampled", [0, 1], ["s0", "s1"], []))
    store.commit_batch(batch("llm", [0, 1], ["l1"], ["l0"]))
    seen: list[str] = []
    counts = store.write_views(lambda b: seen.append(b.strategy))
    assert counts == {"tasks": 3, "trajectories": 3, "rejected": 1}
    assert seen == ["llm", "sampled"]

    def ids(name: str, key: str) -> list[str]:
        lines = (store.dir / name).read_text().splitlines()
        return [json.loads(line)[key] for line in lines]

    assert ids("tasks.jsonl", "id") == ["l1", "s0", "s1"]
    assert ids("trajectories.jsonl", "task_id") == ["l1", "s0", "s1"]
    assert ids("rejected.jsonl", "task_id") == ["l0"]
    store.write_views()  # rewritten whole, never appended to
    assert ids("tasks.jsonl", "id") == ["l1", "s0", "s1"]
    assert no_temporaries(tmp_path)


def test_a_batch_from_before_moved_was_counted_counts_its_refused_on_resume() -> None:
    """Medicine's batches of earlier sittings held 17 tasks refused on resume and no
    `moved`: each still gives its budget back."""
    refused = {"stage": "facts", "reason": "false_fact", "detail": f"{REFUSED_ON_RESUME}: x"}
    fresh = {"stage": "facts", "reason": "false_fact", "detail": "the user states 'x'"}
    old = {"strategy": "intent", "indices": [0, 1, 2], "rejected": [refused, fresh, refused]}
    assert Batch.model_validate(old).moved == 2
    assert Batch.model_validate(old | {"moved": 0}).moved == 0  # written since: as written
    assert Batch.model_validate_json(Batch.model_validate(old).model_dump_json()).moved == 2
