"""The Prefect API a run talks to: the one configured (PREFECT_API_URL), or a server of this
process's own that dies with it.

With no API configured, Prefect starts a temporary server as a child process, and a run
killed with kill -9 left it running (a `uvicorn` serving an empty port forever). This one
is started the same way, with the kernel told to end it when its parent dies.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import prefect
from prefect.settings import PREFECT_API_URL, temporary_settings
from prefect.settings.context import get_current_settings

from toolscale.children import die_with_parent, end, free_port
from toolscale.errors import ToolscaleError

STARTUP_S = 60.0  # a cold start on a loaded 2-core machine took 5-12 s


def uvicorn_command(port: int, log_level: str) -> list[str]:
    """Prefect's server app (behind `flows.prefect_app`'s fix) on 127.0.0.1:`port`."""
    return [
        sys.executable, "-m", "uvicorn",
        "--app-dir", str(Path(prefect.__file__).parent.parent),
        "--factory", "flows.prefect_app:create_app",
        "--host", "127.0.0.1", "--port", str(port),
        "--log-level", log_level, "--lifespan", "on",
    ]  # fmt: skip


class ServerError(ToolscaleError):
    """The Prefect server this process started did not come up."""


def healthy(api_url: str, timeout_s: float = 1.0) -> bool:
    try:
        with urllib.request.urlopen(f"{api_url}/health", timeout=timeout_s) as r:
            return bool(r.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def own_server() -> Iterator[str]:
    """The API URL to use for the block: the configured one, else a server started here
    that stops with the block and dies with this process, however it ends."""
    configured = PREFECT_API_URL.value()
    if configured:
        yield configured
        return
    port = free_port()
    url = f"http://127.0.0.1:{port}/api"
    env = {
        **os.environ,
        **get_current_settings().to_environment_variables(exclude_unset=True),
        "PREFECT_UI_ENABLED": "0",
        "PREFECT__SERVER_EPHEMERAL": "1",
        "PREFECT__SERVER_FINAL": "1",
    }
    command = uvicorn_command(port, "error")
    proc = subprocess.Popen(
        command, env=env, stdin=subprocess.DEVNULL, preexec_fn=die_with_parent()
    )
    try:
        started = time.monotonic()
        while not healthy(url):
            if proc.poll() is not None:
                raise ServerError(f"the Prefect server exited with code {proc.returncode}")
            if time.monotonic() - started > STARTUP_S:
                raise ServerError(
                    f"the Prefect server on port {port} was not up in {STARTUP_S:g} s"
                )
            time.sleep(0.1)
        with temporary_settings(updates={PREFECT_API_URL: url}):
            try:
                yield url
            finally:
                _drain()
    finally:
        end(proc)


def _drain(timeout_s: float = 10.0) -> None:
    """Send what Prefect still holds for the API (logs, events) before its server goes:
    otherwise it prints 'Error logging to API' at exit."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    for worker in (APILogWorker, EventsWorker):
        with contextlib.suppress(Exception):
            worker.drain_all(timeout=timeout_s)
