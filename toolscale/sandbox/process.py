"""The parent's side of sandbox workers: start one, ask it with a deadline, kill it.

A worker (`worker`) is a plain `python -m toolscale.sandbox.worker` over a socket pair,
not a multiprocessing child, so it imports nothing of the caller's (no re-import of a
script's `__main__`, no forked threads or locks). Idle workers wait in a pool and are
reused by the next sandbox, so opening a sandbox costs a process start only the first
time; a worker that was killed, died or ran out of memory is never reused.
"""

from __future__ import annotations

import atexit
import contextlib
import math
import os
import select
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import toolscale
from toolscale.errors import ToolscaleError
from toolscale.sandbox.worker import Host

_ROOT = Path(toolscale.__file__).resolve().parent.parent
STARTUP_S = 30.0  # a worker's start and imports, on a loaded 2-core machine
_WATCH_S = 0.002  # how often a long request's resident memory is looked at
_PAGE = os.sysconf("SC_PAGE_SIZE")


class WorkerLost(ToolscaleError):
    """The worker missed its deadline or went over its memory (and was killed), or died;
    `timed_out` says whether it was the deadline."""

    def __init__(self, detail: str, timed_out: bool):
        super().__init__(detail)
        self.timed_out = timed_out


class WorkerProcess:
    """One worker process and the socket to it; used by one sandbox at a time."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        # the worker imports this very toolscale, whatever the caller's PYTHONPATH says
        path = [str(_ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        env = dict(
            os.environ,
            MALLOC_ARENA_MAX="1",
            PYTHONUNBUFFERED="1",
            PYTHONPATH=os.pathsep.join(path),
        )
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "toolscale.sandbox.worker",
                str(theirs.fileno()),
                str(os.getpid()),
            ],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            env=env,
            close_fds=True,
        )
        theirs.close()
        self._conn = Connection(mine.detach())
        # one poller for the life of the worker: Connection.poll builds a selector per call
        self._poller = select.poll()
        self._poller.register(self._conn.fileno(), select.POLLIN)
        self._statm = f"/proc/{self._proc.pid}/statm"
        self.alive = True
        self.resident = 0  # bytes, as the worker said after its last request
        self._ready = False  # the worker says so once its imports are done

    @property
    def pid(self) -> int:
        return self._proc.pid

    @property
    def ready(self) -> bool:
        return self._ready

    def request(
        self,
        message: tuple,
        timeout: float | None,
        memory_mb: float | None = None,
        on_item: Callable[[Any], None] | None = None,
        items: int = 0,
        then_s: float | None = None,
    ) -> Any:
        """Send one request and wait for its reply. Past `timeout` seconds, or past
        `memory_mb` of resident memory above what it held before, the worker is killed
        and WorkerLost raised. A batch's `items` come ahead of the reply, each to
        `on_item`, each under its own `timeout`; the reply after them gets `then_s`."""
        if not self.alive:
            raise WorkerLost("the worker is gone", timed_out=False)
        try:
            if not self._ready:  # its start is not the request's to pay for
                if not self._poller.poll(int(STARTUP_S * 1000)):
                    self.kill()
                    raise WorkerLost(f"the worker did not start in {STARTUP_S:g} s", False)
                self.resident = self._conn.recv()[1]
                self._ready = True
            self._conn.send(message)
            limit = None if memory_mb is None else self.resident + int(memory_mb * 2**20)
            seen = 0
            while True:
                last = seen >= items and then_s is not None
                self._wait(message[0], then_s if last else timeout, None if last else limit)
                reply, resident = self._conn.recv()
                if resident is None and on_item is not None:  # an item of a batch
                    on_item(reply)
                    seen += 1
                    continue
                self.resident = resident
                return reply
        except (EOFError, OSError) as e:
            self.kill()
            if not self.ready:
                raise WorkerLost(
                    f"the sandbox worker did not start (exit code {self._proc.returncode}; "
                    "its error is on stderr)",
                    timed_out=False,
                ) from None
            raise WorkerLost(
                f"the worker died during {message[0]!r}: {e!r}", timed_out=False
            ) from None

    def _wait(self, op: str, timeout: float | None, limit: int | None) -> None:
        """Until the reply is there; the worker is killed past the deadline or the limit.
        A request that answers within a slice costs one poll."""
        deadline = math.inf if timeout is None else time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise WorkerLost(f"no answer to {op!r} in {timeout:g} s", timed_out=True)
            step = left if limit is None else min(left, _WATCH_S)
            if self._poller.poll(None if math.isinf(step) else max(1, int(step * 1000))):
                return
            if limit is not None and self._resident_now() > limit:
                self.kill()
                mb = (limit - self.resident) / 2**20
                raise WorkerLost(f"{op!r} went over {mb:g} MB of memory", timed_out=False)

    def _resident_now(self) -> int:
        try:
            with open(self._statm) as fh:
                return int(fh.read().split()[1]) * _PAGE
        except OSError:
            return 0

    def kill(self) -> None:
        if not self.alive:
            return
        self.alive = False
        with contextlib.suppress(ProcessLookupError):
            self._proc.kill()
        self._conn.close()
        # a process that held a gigabyte takes a while to go: reaped aside, not waited for
        threading.Thread(target=self._proc.wait, daemon=True, name="reap-worker").start()

    def close(self) -> None:
        """Ask the worker to leave (it exits when its socket closes), and reap it."""
        if not self.alive:
            return
        self.alive = False
        self._conn.close()
        try:
            self._proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


class InProcess:
    """The same requests served in this process, for `Limits(isolated=False)`: no kill, no
    memory cap; for benchmarks that measure what isolation costs."""

    alive = True
    ready = True
    pid = os.getpid()

    def __init__(self) -> None:
        self._host = Host(capped=False)

    def request(
        self,
        message: tuple,
        timeout: float | None,
        memory_mb: float | None = None,
        on_item: Callable[[Any], None] | None = None,
        items: int = 0,
        then_s: float | None = None,
    ) -> Any:
        self._host.stream = on_item or (lambda item: None)
        return self._host.handle(message)

    def kill(self) -> None:
        self._host.handle(("close",))

    def close(self) -> None:
        self.kill()


class WorkerPool:
    """Idle workers kept for the next sandbox; all of them stopped at exit."""

    def __init__(self, max_idle: int = 4):
        self.max_idle = max_idle
        self._idle: list[WorkerProcess] = []
        self._lock = threading.Lock()

    def acquire(self) -> WorkerProcess:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive:
                    return worker
        return WorkerProcess()

    def release(self, worker: WorkerProcess, reusable: bool) -> None:
        if reusable and worker.alive:
            with self._lock:
                if len(self._idle) < self.max_idle:
                    self._idle.append(worker)
                    return
        worker.close()

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


POOL = WorkerPool()
atexit.register(POOL.close)
