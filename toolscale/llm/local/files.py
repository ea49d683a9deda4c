"""Shared steps of the embedded model's set-up: the cache folder, file locks, logged
subprocesses, status lines. Nothing here runs at import time."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolscale.errors import ToolscaleError
from toolscale.reasons import ErrorReason

if TYPE_CHECKING:  # rich only types here: `python -m toolscale.llm.local` runs before pip
    from rich.console import Console

CHUNK = 1 << 20  # 1 MiB: hashing/copying granularity, so a 1 GB model never sits in memory
LOG_TAIL_LINES = 20


class LocalLLMError(ToolscaleError):
    """A step of setting up the embedded LLM failed; `detail` names the step and its log."""

    reason = ErrorReason.LOCAL_LLM_FAILED


def cache_dir() -> Path:
    """Where built binaries, models and logs live; overridable so CI can share or isolate it."""
    if explicit := os.environ.get("TOOLSCALE_CACHE"):
        return Path(explicit).expanduser()
    if xdg := os.environ.get("XDG_CACHE_HOME"):
        return Path(xdg).expanduser() / "toolscale"
    return Path.home() / ".cache" / "toolscale"


def log_tail(path: Path, n_lines: int = LOG_TAIL_LINES) -> str:
    """The last lines of a log, so an error message shows the cause without opening the file."""
    try:
        with path.open("rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 64 * 1024))
            data = f.read()
    except OSError:
        return "(no log output)"
    lines = data.decode("utf-8", errors="replace").splitlines()
    return "\n".join(lines[-n_lines:]) or "(log is empty)"


@contextlib.contextmanager
def file_lock(path: Path, console: Console | None, what: str) -> Iterator[None]:
    """Exclusive flock so two processes never build or download the same thing at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if console is not None:
                console.print(f"waiting for another process that is preparing {what} ({path})")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def status_line(console: Console | None, message: str) -> contextlib.AbstractContextManager[object]:
    """A spinner when there is a console, nothing otherwise."""
    return console.status(message) if console is not None else contextlib.nullcontext()


def remove_stale(parent: Path, prefix: str) -> None:
    """Drop temp dirs left by killed runs; only called while holding the lock that owns them."""
    if parent.is_dir():
        for p in parent.glob(f"{prefix}*"):
            shutil.rmtree(p, ignore_errors=True)


def run_logged(
    step: str, cmd: Sequence[str | Path], log_path: Path, cwd: Path | None = None
) -> None:
    """Run a command with its output appended to a log; failure names the step and the log."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        log.write(f"\n$ {' '.join(map(str, cmd))}\n".encode())
        log.flush()
        try:
            rc = subprocess.run(
                [str(c) for c in cmd],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                check=False,
            ).returncode
        except OSError as e:
            raise LocalLLMError(f"{step}: cannot run {cmd[0]!s}: {e} (log: {log_path})") from e
    if rc != 0:
        raise LocalLLMError(
            f"{step} failed (exit {rc}); full log: {log_path}\n"
            f"--- last {LOG_TAIL_LINES} lines ---\n{log_tail(log_path)}"
        )
