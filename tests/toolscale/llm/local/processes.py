"""Stand-ins for the embedded model's processes: scripts runnable as binaries, a fake
llama-server whose /health turns 200 after a while, and whether a pid is gone."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from pathlib import Path


def gone(pid: int) -> bool:
    """True when no process has this pid, or only a zombie waiting for a reaper (an orphan's
    reaper is whatever PID 1 is, which in some containers never reaps)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] == "Z"


def wait_gone(pid: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if gone(pid):
            return True
        time.sleep(0.05)
    return False


def executable(path: Path, body: str) -> Path:
    """A Python script runnable as a binary (shebang to this interpreter)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


FAKE_SERVER = """
import argparse, http.server, os, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("-m")
ap.add_argument("--host", default="127.0.0.1")
ap.add_argument("--port", type=int, required=True)
args, _unknown = ap.parse_known_args()
ready_at = time.monotonic() + READY_AFTER_S


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        ok = self.path == "/health" and time.monotonic() >= ready_at
        self.send_response(200 if ok else 503)
        self.end_headers()
        self.wfile.write(b'{"status": "ok"}' if ok else b'{"status": "loading"}')

    def log_message(self, *a):
        pass


print("fake llama-server pid", os.getpid(), "argv", sys.argv[1:], flush=True)
http.server.HTTPServer((args.host, args.port), Handler).serve_forever()
"""


def fake_server(tmp_path: Path, ready_after_s: float = 0.3) -> Path:
    """A stand-in llama-server: /health is 503 for ready_after_s, then 200."""
    body = FAKE_SERVER.replace("READY_AFTER_S", repr(ready_after_s))
    return executable(tmp_path / "bin" / "fake-llama-server", body)


def logged_pid(log: Path) -> int:
    """The pid the fake server printed first thing into its log."""
    return int(log.read_text().split("fake llama-server pid ", 1)[1].split()[0])
