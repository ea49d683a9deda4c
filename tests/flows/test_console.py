"""What a generation run shows besides the table: setbacks as one line each, and a progress
bar per strategy once it reports."""

from __future__ import annotations

import io

from rich.console import Console

from flows.console import make_console, task_progress, warner


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


def test_a_progress_bar_shows_verified_of_target_and_proposed() -> None:
    console, out = recording()
    with task_progress(console, "sampled", target=10) as report:
        assert out.getvalue() == ""  # nothing before the first report
        report(3, 5)
        report(12, 15)  # more verified than the target: the bar stops at the target
    text = out.getvalue()
    assert "tasks/sampled" in text and "10/10" in text and "15 proposed" in text
