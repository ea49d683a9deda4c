"""`toolscale.llm.local` itself: `embedded_endpoint`, the local server set up on first use and
stopped on exit."""

from __future__ import annotations

import os
import urllib.request
from pathlib import Path

import pytest

import toolscale.llm.local as local
from tests.toolscale.llm.local.processes import fake_server, gone, logged_pid
from toolscale.llm.local import embedded_endpoint
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
    assert asked == [("llama-server", str(cache)), ("model", "0.5b", str(cache))]


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
