"""What a generation run shows on the terminal besides the summary table: a progress bar per
strategy and the generators' setbacks, on stderr."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)

from generators.environment import Warn
from generators.scheduler import OnProgress


def make_console() -> Console:
    """Progress and the summary go to stderr; wide enough for the table when piped."""
    console = Console(stderr=True)
    if not console.is_terminal:
        console = Console(stderr=True, width=150)
    return console


def warner(console: Console) -> Warn:
    """A generator's setback as one console line: the headline in yellow, then the detail."""

    def warn(headline: str, detail: str) -> None:
        console.print(f"[yellow]{headline}[/]" + (f" {detail}" if detail else ""))

    return warn


def plain_lines(console: Console, prefix: str) -> Callable[[str], None]:
    """A line with the time per event, where no bar can be drawn (output piped to a file);
    nothing on a terminal, where the bars and the table say it."""

    def tell(line: str) -> None:
        if not console.is_terminal:
            console.print(f"{time.strftime('%H:%M:%S')} {prefix}: {line}", highlight=False)

    return tell


@contextlib.contextmanager
def task_progress(console: Console, strategy: str, target: int) -> Iterator[OnProgress]:
    """A strategy's progress bar, shown from its first report until the block ends; piped,
    a plain line whenever a task is verified or ten more are proposed."""
    if not console.is_terminal:
        tell = plain_lines(console, f"tasks/{strategy}")
        last = [-1, -10, -math.inf]  # verified, proposed, when

        def line(verified: int, proposed: int) -> None:
            now = time.monotonic()
            new = verified != last[0] or proposed - last[1] >= 10
            done = verified >= target and last[0] < target
            if new and (done or now - last[2] >= 1.0):  # a line a second at most
                last[:] = [verified, proposed, now]
                tell(f"{min(verified, target)}/{target} verified · {proposed} proposed")

        yield line
        return
    progress = Progress(
        TextColumn(f"tasks/{strategy}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("verified · {task.fields[proposed]} proposed"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    bar: TaskID | None = None

    def report(verified: int, proposed: int) -> None:
        nonlocal bar
        if bar is None:
            bar = progress.add_task(strategy, total=target, proposed=proposed)
            progress.start()
        progress.update(bar, completed=min(verified, target), proposed=proposed)

    try:
        yield report
    finally:
        progress.stop()


async def leave_artifact(console: Console, key: str, markdown: str, description: str) -> None:
    """A markdown artifact for the run in Prefect's UI. What it shows is on disk already,
    so a server that refuses it is worth a warning only."""
    from prefect.artifacts import acreate_markdown_artifact

    try:
        await acreate_markdown_artifact(key=key, markdown=markdown, description=description)
    except Exception as e:
        console.print(f"[yellow]no Prefect artifact: {e}[/]")
