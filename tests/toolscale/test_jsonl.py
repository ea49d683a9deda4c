"""Atomic outputs: a run that fails midway never clobbers the previous file or loses lines."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from toolscale.jsonl import AtomicWriter, dumps, read_lines, write_json
from toolscale.report import Rejection


def test_commit_replaces_and_failure_keeps_old_file_and_partial(tmp_path: Path) -> None:
    target = tmp_path / "accepted.jsonl"
    with AtomicWriter(target) as w:
        w.write({"id": "old"})
    assert target.read_text() == '{"id":"old"}\n'
    with pytest.raises(KeyboardInterrupt), AtomicWriter(target) as w:
        w.write({"id": "new-1"})
        raise KeyboardInterrupt
    assert target.read_text() == '{"id":"old"}\n'
    assert (tmp_path / "accepted.jsonl.partial").read_text() == '{"id":"new-1"}\n'
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_read_lines_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\n\n{"b": 2}\n')
    assert list(read_lines(path)) == [(f"{path}:1", b'{"a": 1}\n'), (f"{path}:3", b'{"b": 2}\n')]


def test_an_interrupted_writer_that_wrote_nothing_leaves_no_partial(tmp_path: Path) -> None:
    target = tmp_path / "out" / "rejected.jsonl"
    with pytest.raises(RuntimeError), AtomicWriter(target):
        raise RuntimeError("stopped before the first line")
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_a_committed_file_is_readable_like_any_other(tmp_path: Path) -> None:
    """mkstemp makes the temporary 0600; the committed file follows the umask."""
    mask = os.umask(0o022)
    try:
        write_json(tmp_path / "report.json", {"accepted": 1})
    finally:
        os.umask(mask)
    path = tmp_path / "report.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert json.loads(path.read_text()) == {"accepted": 1}
    assert path.read_text() == '{\n  "accepted": 1\n}\n'


def test_a_model_is_written_without_its_nulls() -> None:
    rejection = Rejection(stage="replay", reason="gold_call_failed", detail="x")
    assert dumps(rejection) == '{"stage":"replay","reason":"gold_call_failed","detail":"x"}'
    assert dumps({"name": "Zoë", "n": None}) == '{"name":"Zoë","n":null}'
