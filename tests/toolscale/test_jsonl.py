"""Atomic outputs: a run that fails midway never clobbers the previous file or loses lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolscale.jsonl import AtomicWriter, read_lines
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


def test_a_line_that_is_not_utf8_is_rejected_alone(tmp_path: Path) -> None:
    from validators.structure import parse

    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"id": "caf\xe9"}\n{"id": 2}\n')
    (first, raw), (second, _) = read_lines(path)
    rejection = parse(raw, first)
    assert isinstance(rejection, Rejection)
    assert (rejection.reason, rejection.source) == ("bad_json", f"{path}:1")
    assert "not UTF-8" in rejection.detail and rejection.item == '{"id": "caf\\xe9"}'
    second_rejection = parse(b'{"id": 2}', second)
    assert isinstance(second_rejection, Rejection) and second_rejection.reason == "not_a_task"
