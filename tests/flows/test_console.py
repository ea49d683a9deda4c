"""What a generation run shows besides the table: setbacks as one line each, and a progress
bar per strategy once it reports."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

import flows.console as console_module
from flows.console import make_console, plain_lines, task_progress, warner


def recording() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=120, force_terminal=False, color_system=None), out


def test_the_console_writes_to_stderr_wide_enough_when_piped() -> None:
    console = make_console()
    assert console.stderr
    if not console.is_terminal:
        assert console.width == 150


def test_a_setback_is_its_headline_then_its_detail() -> None:
    console, out = recording()
    warn = warner(console)
    warn("tools: broken_tool dropped", "sql_rejected after 4 attempts")
    warn("policy: using the brief's rules", "")
    assert out.getvalue().splitlines() == [
        "tools: broken_tool dropped sql_rejected after 4 attempts",
        "policy: using the brief's rules",
    ]


def test_piped_progress_is_a_line_per_verified_task_or_ten_proposals(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run piped to a file showed nothing for the 20 minutes of its environment stages:
    piped, progress is plain lines with the time, a second apart at most (but the last)."""
    clock = iter([0.0, 2.0, 4.0, 4.5, 6.0])
    monkeypatch.setattr(console_module.time, "monotonic", lambda: next(clock))
    console, out = recording()
    with task_progress(console, "sampled", target=10) as report:
        assert out.getvalue() == ""  # nothing before the first report
        report(3, 5)
        report(3, 9)  # nothing new worth a line
        report(3, 15)  # ten more proposed
        report(4, 16)  # new, but within a second of the last line
        report(12, 17)  # more verified than the target: it says the target, at once
    lines = [line.split(" ", 1)[1] for line in out.getvalue().splitlines()]
    assert lines == [
        "tasks/sampled: 3/10 verified · 5 proposed",
        "tasks/sampled: 3/10 verified · 15 proposed",
        "tasks/sampled: 10/10 verified · 17 proposed",
    ]


def test_plain_lines_say_nothing_on_a_terminal() -> None:
    out = io.StringIO()
    terminal = Console(file=out, force_terminal=True, color_system=None)
    plain_lines(terminal, "finance")("schema: started")
    assert out.getvalue() == ""
    console, piped = recording()
    plain_lines(console, "finance")("schema: started")
    assert piped.getvalue().split(" ", 1)[1] == "finance: schema: started\n"


def test_a_progress_bar_shows_verified_of_target_and_proposed() -> None:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=True, color_system=None)
    with task_progress(console, "sampled", target=10) as report:
        report(3, 5)
        report(12, 15)  # more verified than the target: the bar stops at the target
    text = out.getvalue()
    assert "tasks/sampled" in text and "10/10" in text and "15 proposed" in text
