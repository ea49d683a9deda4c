"""The llama-server's life cycle against a fake one: started on a free port and waited for,
always stopped (a failing block, a server that exits or never gets ready, a killed parent)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.toolscale.llm.local.processes import executable, fake_server, gone, logged_pid, wait_gone
from toolscale.llm.local.files import LocalLLMError
from toolscale.llm.local.server import LocalServer


def _server(tmp_path: Path, binary: Path, **kw: Any) -> LocalServer:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    return LocalServer(binary, model, log_path=tmp_path / "server.log", **kw)


def _health(base_url: str) -> int:
    url = base_url.removesuffix("/v1") + "/health"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=5) as resp:
        return int(resp.status)


def test_server_starts_serves_and_stops(tmp_path: Path) -> None:
    server = _server(
        tmp_path, fake_server(tmp_path, ready_after_s=1.0), parallel=3, ctx_per_slot=1000
    )
    started = time.monotonic()
    with server as s:
        assert time.monotonic() - started >= 1.0, "must wait for /health to turn 200"
        assert s.port is not None
        assert s.base_url == f"http://127.0.0.1:{s.port}/v1"
        assert _health(s.base_url) == 200
        pid = s.pid
        assert pid is not None and not gone(pid)
        argv = (tmp_path / "server.log").read_text()
        assert "'-c', '3000'" in argv and "'-np', '3'" in argv and "'--jinja'" in argv
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 5, "SIGTERM first, SIGKILL only as a fallback"
    assert gone(pid)
    assert server.pid is None
    server.stop()  # idempotent


def test_server_is_stopped_when_the_block_raises(tmp_path: Path) -> None:
    server = _server(tmp_path, fake_server(tmp_path))
    pid = None
    with pytest.raises(ZeroDivisionError), server:
        pid = server.pid
        1 / 0  # noqa: B018
    assert pid is not None and gone(pid)


def test_server_that_exits_at_once_reports_its_log(tmp_path: Path) -> None:
    binary = executable(
        tmp_path / "bin" / "broken-server",
        """
        import sys
        print("error: failed to load model 'model.gguf': boom", flush=True)
        sys.exit(3)
        """,
    )
    with pytest.raises(LocalLLMError) as err:
        _server(tmp_path, binary).start()
    assert "boom" in str(err.value)
    assert "exited with code 3" in str(err.value)
    assert str(tmp_path / "server.log") in str(err.value)


def test_server_that_never_gets_ready_times_out_and_is_killed(tmp_path: Path) -> None:
    server = _server(tmp_path, fake_server(tmp_path, ready_after_s=3600), startup_timeout_s=1.0)
    with pytest.raises(LocalLLMError, match="not healthy after") as err:
        server.start()
    assert "fake llama-server pid" in str(err.value), "the message carries the log tail"
    assert gone(logged_pid(tmp_path / "server.log"))
    assert server.pid is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_server_dies_with_a_killed_parent(tmp_path: Path) -> None:
    binary = fake_server(tmp_path)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    parent_code = textwrap.dedent(
        f"""
        import time
        from pathlib import Path
        from toolscale.llm.local.server import LocalServer
        s = LocalServer(Path({str(binary)!r}), Path({str(model)!r}),
                        log_path=Path({str(tmp_path / "server.log")!r}))
        s.start()
        print(s.pid, flush=True)
        time.sleep(60)
        """
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", parent_code],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    pid = None
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert not gone(pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert wait_gone(pid), "llama-server outlived its killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if pid is not None and not gone(pid):  # do not leak the orphan when the test fails
            os.kill(pid, signal.SIGKILL)
