"""`toolscale.llm.local` itself: `embedded_endpoint`, the local server set up on first use and
stopped on exit."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

import pytest
from rich.console import Console

import toolscale.llm.local as local
from tests.toolscale.llm.local.processes import fake_server, gone, logged_pid
from toolscale.llm.local import embedded_endpoint
from toolscale.llm.local.files import LocalLLMError
from toolscale.llm.local.model import MODELS


def test_the_embedded_endpoint_serves_the_model_for_the_block(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the binary and the model ready (a fake server, a placeholder file), the block gets
    a healthy server named after the model; leaving it stops the server."""
    cache = tmp_path / "cache"
    binary = fake_server(tmp_path, ready_after_s=0.2)
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    asked: list[tuple[str, ...]] = []

    def ready_binary(where: Path, console: object = None) -> Path:
        asked.append(("llama-server", str(where)))
        return binary

    def ready_model(size: str, where: Path, console: object = None) -> Path:
        asked.append(("model", size, str(where)))
        return model

    monkeypatch.setattr(local, "ensure_llama_server", ready_binary)
    monkeypatch.setattr(local, "ensure_model", ready_model)
    with embedded_endpoint("0.5b", parallel=3, cache=cache, ctx_per_slot=1000) as (url, name):
        assert name == MODELS["0.5b"].model_name == "qwen2.5-coder-0.5b-instruct"
        port = int(url.removeprefix("http://127.0.0.1:").removesuffix("/v1"))
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"http://127.0.0.1:{port}/health", timeout=5) as response:
            assert response.status == 200
        log = cache / "logs" / f"llama-server-{port}.log"
        argv = log.read_text()
        assert "'-np', '3'" in argv and "'-c', '3000'" in argv
        assert f"'--alias', '{name}'" in argv
        pid = logged_pid(log)
        assert not gone(pid)
    assert gone(pid)
    # side by side (`prepare`), so in either order
    assert sorted(asked) == [("llama-server", str(cache)), ("model", "0.5b", str(cache))]


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


def test_the_model_is_fetched_while_llama_server_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The build waits until the fetch has begun: were they one after the other, it would
    time out. Once the binary is built, both are asked in turn, with the console."""
    fetching = threading.Event()
    seen: list[tuple[str, object]] = []

    def build(where: Path, console: object = None) -> Path:
        seen.append(("build", console))
        assert fetching.wait(timeout=10), "the model was not fetched beside the build"
        return where / "llama-server"

    def fetch(size: str, where: Path, console: object = None) -> Path:
        seen.append(("fetch", console))
        fetching.set()
        return where / f"{size}.gguf"

    monkeypatch.setattr(local, "ensure_llama_server", build)
    monkeypatch.setattr(local, "ensure_model", fetch)
    monkeypatch.setattr(local, "llama_server_ready", lambda cache: False)
    console = Console(file=io.StringIO())
    assert local.prepare("0.5b", tmp_path, console) == (
        tmp_path / "llama-server",
        tmp_path / "0.5b.gguf",
    )
    assert sorted(seen, key=lambda s: s[0]) == [("build", console), ("fetch", None)]
    assert "fetching qwen2.5-coder-0.5b-instruct while llama-server builds" in str(
        console.file.getvalue()  # type: ignore[attr-defined]
    )

    seen.clear()
    monkeypatch.setattr(local, "llama_server_ready", lambda cache: True)
    fetching.clear()
    assert local.prepare("0.5b", tmp_path, console) == (
        local.llama_server_path(tmp_path),
        tmp_path / "0.5b.gguf",
    )
    assert seen == [("fetch", console)]  # no build asked; the download shows its progress

    with pytest.raises(LocalLLMError, match="unknown embedded model size '70b'"):
        local.prepare("70b", tmp_path)


def test_the_set_up_runs_as_a_module_on_the_standard_library_alone(tmp_path: Path) -> None:
    """`make generate` starts `python -m toolscale.llm.local` before pip installs anything:
    under `python -S` (no site-packages at all) it still starts, refuses bad usage, and
    names an unknown size (a known one would build and download)."""
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "TOOLSCALE_CACHE": str(tmp_path / "cache")}

    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-S", "-m", "toolscale.llm.local", *argv]
        return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)

    bad = run("--help")
    assert bad.returncode == 2 and "usage: python -m toolscale.llm.local [" in bad.stderr
    unknown = run("70b")
    assert unknown.returncode == 1, unknown.stderr
    assert "error: unknown embedded model size '70b'" in unknown.stderr
