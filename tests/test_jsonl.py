"""Atomic outputs: a run that fails midway never clobbers the previous file or loses lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscale.jsonl import AtomicWriter, read_lines


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
    path.write_text('{"a": 1}\n\n{"b": 2}\n')
    assert [src for src, _ in read_lines(path)] == [f"{path}:1", f"{path}:3"]
