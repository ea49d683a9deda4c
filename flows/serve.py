"""`make serve` / `make stop`: a real Prefect server, the process work pool, the deployments
of `prefect.yaml` and a worker, all kept under one folder of the project (`.prefect/` by
default: the server's database, the logs, and `serve.json`, which says what was started).

The server and the worker run in sessions of their own, so `make serve` returns and they go
on; `stop` ends each of them with everything under it (the flow runs the worker started).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from flows.server import healthy, uvicorn_command
from toolscale.children import alive, descendants
from toolscale.errors import ToolscaleError

STARTUP_S = 120.0
STATE = "serve.json"


class ServeError(ToolscaleError):
    """A step of bringing the deployments up failed; what was started is stopped."""


@dataclass
class Served:
    """What `serve` started: where, and the processes to stop."""

    api_url: str
    ui_url: str
    home: str
    pool: str
    server_pid: int
    worker_pid: int
    deployments: list[str]


def _env(home: Path, api_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PREFECT_HOME"] = str(home)
    env.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    env.setdefault("TOOLSCALE_HOME", str(Path.cwd()))  # prefect.yaml's pull step goes there
    if api_url:
        env["PREFECT_API_URL"] = api_url
    else:
        env.pop("PREFECT_API_URL", None)
    return env


def _prefect(args: list[str], env: dict[str, str], what: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "prefect", *args],
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=300,
    )
    if done.returncode != 0:
        tail = (done.stdout + done.stderr).strip()[-1500:]
        raise ServeError(f"{what} failed (prefect {' '.join(args)}):\n{tail}")
    return done.stdout


def _background(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives `make serve`; stopped as a group by `stop`
        )


def serve(
    home: Path,
    port: int = 4200,
    prefect_file: Path = Path("prefect.yaml"),
    pool: str = "toolscale",
) -> Served:
    """Server, pool, deployments, worker; raises ServeError (and stops what it started)."""
    home = home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    if (home / STATE).exists():
        raise ServeError(f"{home / STATE} says a server is running: `make stop` it first")
    api_url = f"http://127.0.0.1:{port}/api"
    if healthy(api_url):
        raise ServeError(f"something already answers on port {port}: choose another (PORT=...)")
    started: list[int] = []
    try:
        # what `prefect server start` runs (API, UI, scheduler and the other services),
        # behind flows.prefect_app's fix for its client's null filters
        server_env = _env(home, None) | {"PREFECT__SERVER_FINAL": "1"}
        server = _background(uvicorn_command(port, "warning"), server_env, home / "server.log")
        started.append(server.pid)
        _wait(api_url, server, home / "server.log")
        env = _env(home, api_url)
        # the REST API, not `prefect work-pool ls`: prefect 3.8.8's client sends null filters
        # its own server refuses (422)
        if pool not in {p["name"] for p in _api(api_url, "work_pools/filter", {})}:
            _api(api_url, "work_pools/", {"name": pool, "type": "process"})
        _prefect(
            ["--no-prompt", "deploy", "--all", "--prefect-file", str(prefect_file)],
            env,
            "deploying",
        )
        names = deployments(api_url)
        worker = _background(
            [
                sys.executable,
                "-m",
                "prefect",
                "worker",
                "start",
                "--pool",
                pool,
                "--type",
                "process",
            ],
            env,
            home / "worker.log",
        )
        started.append(worker.pid)
    except BaseException:
        for pid in started:
            _stop_group(pid)
        raise
    served = Served(
        api_url=api_url,
        ui_url=f"http://127.0.0.1:{port}",
        home=str(home),
        pool=pool,
        server_pid=server.pid,
        worker_pid=worker.pid,
        deployments=names,
    )
    (home / STATE).write_text(json.dumps(asdict(served), indent=1))
    return served


def _api(api_url: str, path: str, body: dict) -> Any:
    """POST to the server's REST API; raises ServeError naming what it refused."""
    request = urllib.request.Request(
        f"{api_url}/{path}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        raise ServeError(f"the server refused POST {path}: {e.code} {e.read()[:500]!r}") from e


def deployments(api_url: str) -> list[str]:
    """`flow/deployment` of every deployment the server holds."""
    flows = {f["id"]: f["name"] for f in _api(api_url, "flows/filter", {})}
    held = _api(api_url, "deployments/filter", {})
    return sorted(f"{flows.get(d['flow_id'], '?')}/{d['name']}" for d in held)


def _wait(api_url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    started = time.monotonic()
    while not healthy(api_url):
        if server.poll() is not None:
            tail = log.read_text(errors="replace")[-1500:]
            raise ServeError(f"the Prefect server exited with code {server.returncode}:\n{tail}")
        if time.monotonic() - started > STARTUP_S:
            raise ServeError(f"the Prefect server was not up in {STARTUP_S:g} s ({log})")
        time.sleep(0.25)


def _stop_group(pid: int, grace_s: float = 10.0) -> None:
    """The process, its session's group and everything under it: asked to stop, then made to."""
    targets = {pid} | descendants(pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, sig)
        for target in targets:
            with contextlib.suppress(ProcessLookupError):
                os.kill(target, sig)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and any(alive(t) for t in targets):
            time.sleep(0.1)
        if not any(alive(t) for t in targets):
            return


def stop(home: Path) -> Served | None:
    """Ends what `serve` started under `home` (worker first); None if nothing was."""
    state = home.resolve() / STATE
    if not state.exists():
        return None
    served = Served(**json.loads(state.read_text()))
    _stop_group(served.worker_pid)
    _stop_group(served.server_pid)
    state.unlink()
    return served
