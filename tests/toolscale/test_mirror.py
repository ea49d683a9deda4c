"""The store at an fsspec URL (issue 12), against moto's S3 server on a local port: what a
run writes reaches the bucket object first, marker after; a fresh machine reads back what
was kept; an object without its marker or changed under it is not taken."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscale.mirror import MARKER, Marker, Mirror, MirrorError, domains_at
from toolscale.spec import EnvironmentSpec
from toolscale.store import Batch, DomainStore
from toolscale.task import Task

URL = "s3://toolscale-test/data"


def stored(banking_spec: EnvironmentSpec, tasks: list[Task]) -> DomainStore:
    """The banking domain written through a store on the bucket: environment, two batches,
    the views."""
    store = DomainStore.open(URL, "banking")
    assert store.mirror is not None and store.dir.is_relative_to(store.mirror.local.parent)
    store.save_environment(banking_spec)
    store.commit_batch(Batch(strategy="intent", indices=[0, 1], accepted=tasks[:2]))
    store.commit_batch(Batch(strategy="intent", indices=[2, 3], accepted=tasks[2:4]))
    store.write_views()
    return store


def test_a_fresh_machine_reads_back_what_a_run_kept(
    s3, banking_spec: EnvironmentSpec, banking_tasks: list[Task], tmp_path: Path, monkeypatch
) -> None:
    here = stored(banking_spec, banking_tasks)
    names = {p.rsplit("/", 1)[-1] for p in s3.find("toolscale-test/data/banking")}
    for name in ("environment.json", "seed.sqlite", "intent-000000.json", "tasks.jsonl"):
        assert name in names and name + MARKER in names
    marker = Marker.model_validate_json(
        s3.cat_file("toolscale-test/data/banking/batches/intent-000002.json" + MARKER)
    )
    assert marker == Marker.of((here.batches_dir / "intent-000002.json").read_bytes())

    monkeypatch.setenv("TOOLSCALE_STORE_CACHE", str(tmp_path / "elsewhere"))
    there = DomainStore.open(URL, "banking")
    assert there.dir != here.dir
    assert [t.id for t in there.accepted()] == [t.id for t in banking_tasks[:4]]
    assert there.load_environment() == banking_spec
    assert (there.dir / "tasks.jsonl").read_bytes() == (here.dir / "tasks.jsonl").read_bytes()
    assert domains_at(URL) == ["banking"]


def test_an_object_without_its_marker_or_changed_under_it_is_not_taken(
    s3, banking_spec: EnvironmentSpec, banking_tasks: list[Task], tmp_path: Path, monkeypatch
) -> None:
    stored(banking_spec, banking_tasks)
    root = "toolscale-test/data/banking/batches"
    # a run killed between the object and its marker
    late = Batch(strategy="intent", indices=[4], accepted=banking_tasks[4:5])
    s3.pipe_file(f"{root}/intent-000004.json", late.model_dump_json().encode())
    # a batch rewritten while a reader lists: the object no longer matches its marker
    s3.pipe_file(f"{root}/intent-000002.json", b"{}")
    monkeypatch.setenv("TOOLSCALE_STORE_CACHE", str(tmp_path / "elsewhere"))
    mirror = Mirror(f"{URL}/banking", tmp_path / "elsewhere" / "banking")
    done = mirror.sync()
    assert list(done.skipped) == ["batches/intent-000002.json"]
    assert "another run" in done.skipped["batches/intent-000002.json"]
    assert "batches/intent-000004.json" not in done.pulled
    taken = sorted(p.name for p in (tmp_path / "elsewhere" / "banking" / "batches").iterdir())
    assert taken == ["intent-000000.json"]


def test_what_a_run_here_committed_but_never_sent_is_sent_on_open(
    s3, banking_spec: EnvironmentSpec, banking_tasks: list[Task]
) -> None:
    store = stored(banking_spec, banking_tasks)
    # committed locally, then killed before the put: the bucket never heard of it
    late = Batch(strategy="intent", indices=[4], accepted=banking_tasks[4:5])
    (store.batches_dir / "intent-000004.json").write_text(late.model_dump_json())
    assert not s3.exists("toolscale-test/data/banking/batches/intent-000004.json")
    again = DomainStore.open(URL, "banking")
    assert s3.exists("toolscale-test/data/banking/batches/intent-000004.json" + MARKER)
    assert len(again.accepted()) == 5


def test_an_unreachable_bucket_is_a_clear_error(s3, tmp_path: Path) -> None:
    with pytest.raises(MirrorError, match="s3://no-such-bucket/data/banking"):
        DomainStore.open("s3://no-such-bucket/data", "banking").save_report({"tasks": 0})
