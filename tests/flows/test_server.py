"""`flows/server.py`: a run's own Prefect server, and nothing a run starts outlives it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import ROOT
from toolscale.children import alive, descendants
from toolscale.store import DomainStore
from toolscale.testing.fakedomain import library
from toolscale.testing.fakellm import FakeLLM


def test_kill_9_of_a_run_leaves_no_process_behind(domains: Path, tmp_path: Path) -> None:
    """Before, a killed `toolscale generate` orphaned Prefect's temporary API server (a
    `uvicorn` child); now its own server dies with it, and so do the sandbox workers."""
    data = tmp_path / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    with FakeLLM(library, latency_s=0.3) as fake:
        env |= {
            "PREFECT_HOME": str(tmp_path / "prefect"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "TOOLSCALE_LLM_URL": fake.base_url,
            "TOOLSCALE_LLM_MODEL": "fake",
        }
        command = [sys.executable, "-m", "flows.cli", "generate", "library", "-n", "12"]
        command += ["--data", str(data), "--domains", str(domains), "--no-cross-engine"]
        log = (tmp_path / "run.log").open("wb")
        proc = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=log)
        store = DomainStore(data, "library")
        deadline = time.monotonic() + 120
        started: set[int] = set()
        while time.monotonic() < deadline and proc.poll() is None:
            started |= descendants(proc.pid)
            if list(store.batches_dir.glob("*.json")) and len(started) >= 2:
                break  # its server and a sandbox worker at least, and work committed
            time.sleep(0.05)
        text = (tmp_path / "run.log").read_text(errors="replace")[-3000:]
        assert proc.poll() is None, f"the run ended before it could be killed:\n{text}"
        started |= descendants(proc.pid)
        commands = {
            pid: (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ")
            for pid in started
            if alive(pid)
        }
        assert any(b"uvicorn" in c for c in commands.values()), commands
        assert any(b"toolscale.sandbox.worker" in c for c in commands.values()), commands
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(alive(p) for p in started):
        time.sleep(0.1)
    left = {p: commands.get(p, b"") for p in started if alive(p)}
    for pid in left:  # leave the machine clean even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not left, f"outlived the run: {left}"
