"""Stage `structure`: the item parses into a Task, names real tools, and fits their schemas."""

from __future__ import annotations

from pathlib import Path

from toolscale.jsonl import read_lines
from toolscale.report import Rejection
from validators.structure import parse


def test_a_line_that_is_not_utf8_is_rejected_alone(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"id": "caf\xe9"}\n{"id": 2}\n')
    (first, raw), (second, _) = read_lines(path)
    rejection = parse(raw, first)
    assert isinstance(rejection, Rejection)
    assert (rejection.reason, rejection.source) == ("bad_json", f"{path}:1")
    assert "not UTF-8" in rejection.detail and rejection.item == '{"id": "caf\\xe9"}'
    second_rejection = parse(b'{"id": 2}', second)
    assert isinstance(second_rejection, Rejection) and second_rejection.reason == "not_a_task"
