"""The sandbox worker: one process that holds one database at a time and runs its calls.

`python -m toolscale.sandbox.worker FD` serves requests on the socket FD until the other
end closes. The parent (`process`) kills it when a call outlives its budget: SQLite's
progress handler and DuckDB's interrupt are looked at between steps, so a single costly
function call (formatting with a huge width, an edit distance over long strings) can
only be stopped from outside. Its address space is capped at what it holds before each
request plus the memory budget, so no call can take more than that.

Requests are tuples `(op, *args)`; replies are `("ok", value)` or `("error", kind,
payload)`. Imports stay at the standard library and the engines, so a worker starts in
tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import resource
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from toolscale.sandbox.blueprint import Blueprint
from toolscale.sandbox.engine import Engine, SandboxRefused, SeedError

_PAGE = resource.getpagesize()
_OPEN_MB = 1024  # address space an engine maps when it opens, beyond the call budget


def open_engine(blueprint: Blueprint) -> Engine:
    if blueprint.engine == "sqlite":
        from toolscale.sandbox.sqlite import SQLiteEngine

        return SQLiteEngine(blueprint)
    from toolscale.sandbox.duckdb import DuckDBEngine

    return DuckDBEngine(blueprint)


def bind_errors(blueprint: Blueprint) -> list[tuple[str, str, str]]:
    from toolscale.sandbox.duckdb import bind_errors as duckdb_bind_errors

    return duckdb_bind_errors(blueprint)


def statm() -> tuple[int, int]:
    """Mapped and resident bytes of this process."""
    with open("/proc/self/statm") as fh:
        mapped, resident = fh.read().split()[:2]
    return int(mapped) * _PAGE, int(resident) * _PAGE


def memory() -> dict[str, int]:
    """Resident, peak resident and mapped bytes (VmRSS, VmHWM, VmSize), for tests and
    benchmarks."""
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(("VmRSS:", "VmHWM:", "VmSize:")):
                key, value = line.split(":", 1)
                out[key] = int(value.split()[0]) * 1024
    return out


def reset_peak() -> None:
    with open("/proc/self/clear_refs", "w") as fh:
        fh.write("5")  # resets VmHWM to the current resident size


class Host:
    """What a worker holds: at most one engine; every request is answered, none raises.
    `stream` sends an item of a batch's answer ahead of the reply."""

    def __init__(self, capped: bool, stream: Callable[[Any], None] | None = None):
        self.stream = stream or (lambda item: None)
        self.engine: Engine | None = None
        self.capped = capped
        self.mapped, self.resident = statm() if capped else (0, 0)

    def measure(self) -> int:
        """After each request: what is mapped (the next cap's base) and resident."""
        self.mapped, self.resident = statm()
        return self.resident

    def cap(self, headroom_mb: float) -> None:
        """The address space this request may reach: what was mapped after the last one
        plus headroom (the parent watches resident memory, which the cap bounds too)."""
        if not self.capped:
            return
        limit = self.mapped + int(headroom_mb * 2**20)
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))

    def uncap(self) -> None:
        if self.capped:
            resource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    def handle(self, request: tuple) -> tuple:
        op, *args = request
        try:
            return ("ok", self._do(op, args))
        except SeedError as e:
            return ("error", "seed", (e.what, str(e.reason), e.table, e.index))
        except SandboxRefused as e:
            return ("error", "refused", str(e))
        except MemoryError:
            self._drop()
            return ("error", "memory", f"{op}: out of memory")
        except Exception as e:  # the parent decides; the worker stays up
            return ("error", "failed", f"{op}: {type(e).__name__}: {e}")
        finally:
            self.uncap()

    def _do(self, op: str, args: list) -> Any:
        engine = self.engine
        if op == "call":
            assert engine is not None
            self.cap(engine.limits.memory_mb)
            return engine.call(*args)
        if op == "batch":  # (reset first?, calls, changes after?): each outcome streamed
            assert engine is not None
            reset, calls, changes = args
            if reset:
                engine.reset()
            for name, params in calls:
                self.cap(engine.limits.memory_mb)
                outcome = engine.call(name, params)
                self.uncap()
                self.stream(outcome)
            return engine.changes() if changes else None
        if op == "open":
            (blueprint,) = args
            self._drop()
            limits = blueprint.limits
            # opening maps the engine itself (DuckDB reserves hundreds of MB of addresses)
            self.cap(_OPEN_MB + limits.memory_mb + limits.seed_kb_per_row * blueprint.n_rows / 1024)
            self.engine = open_engine(blueprint)
            return self.engine.rows()
        if op == "bind":
            (blueprint,) = args
            self.cap(_OPEN_MB + blueprint.limits.memory_mb)
            return bind_errors(blueprint)
        if op == "close":
            dirty = engine is not None and engine.out_of_memory
            self._drop()
            return dirty
        if op == "memory":
            return memory()
        if op == "reset_peak":
            return reset_peak()
        if op == "sleep":  # tests: a request that outlives its deadline
            time.sleep(args[0])
            return None
        assert engine is not None, f"{op} before open"
        if op == "reset":
            return engine.reset()
        if op == "changes":
            return engine.changes()
        if op == "rows":
            return engine.rows()
        if op == "restore":
            self.cap(engine.limits.memory_mb)
            return engine.restore(*args)
        raise ValueError(f"unknown request {op!r}")

    def _drop(self) -> None:
        if self.engine is not None:
            engine, self.engine = self.engine, None
            with contextlib.suppress(Exception):
                engine.close()


def _watch_parent(parent: int) -> None:
    """A worker whose parent is gone exits, even in the middle of a call."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def serve(conn: Connection, capped: bool = True) -> None:
    """Answer requests until the socket closes; each reply carries the resident bytes the
    worker holds after it, which the parent's memory watch counts from."""
    host = Host(capped, stream=lambda item: conn.send((item, None)))
    conn.send((("ready",), host.measure()))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        reply = host.handle(request)
        try:
            conn.send((reply, host.measure()))
        except (BrokenPipeError, OSError):
            return


def main() -> None:
    threading.stack_size(512 * 1024)  # our threads (watchdogs) need little of the cap
    fd = int(sys.argv[1])
    parent = int(sys.argv[2])
    os.chdir("/")  # DuckDB reports its working directory among its settings
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    serve(Connection(fd))


if __name__ == "__main__":
    main()
