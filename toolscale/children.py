"""Child processes that die with us: a free port for a server, and the Linux hook that has
the kernel end a child when its parent dies, kill -9 included (nothing a run starts may
outlive it)."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path


def free_port() -> int:
    """A port nothing listens on right now (the OS picks it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def die_with_parent(sig: int = signal.SIGTERM) -> Callable[[], None] | None:
    """preexec_fn making the child get `sig` when we die, even by kill -9 (Linux only).

    The signal follows the *thread* that started the child, so start servers from a thread
    that outlives them (the main thread, or the one running the `with` block).
    """
    if not sys.platform.startswith("linux"):
        return None
    parent = os.getpid()

    def hook() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, sig, 0, 0, 0)
        if os.getppid() != parent:  # parent died before prctl took effect
            os.kill(os.getpid(), sig)

    return hook


def descendants(pid: int) -> set[int]:
    """Every live process under `pid` (Linux: read from /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out: set[int] = set()
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in out:
                out.add(child)
                todo.append(child)
    return out


def alive(pid: int) -> bool:
    """Running (a zombie has ended: only its parent's wait is missing, which is done here
    when the parent is us)."""
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    if state == "Z":
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        return False
    return True


def end(proc: subprocess.Popen, grace_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL after `grace_s`; the process is reaped either way."""
    if proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
