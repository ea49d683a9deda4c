"""Child processes that die with us: a free port for a server, and the Linux hook that has
the kernel end a child when its parent dies, kill -9 included (nothing a run starts may
outlive it)."""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import sys
from collections.abc import Callable


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
