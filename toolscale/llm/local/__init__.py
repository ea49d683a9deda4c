"""The embedded default LLM: a llama.cpp server built from source and a small Qwen model.

Used when no LLM endpoint is configured, so `make generate` works on a bare machine. Every
step caches its result under `cache_dir()` and is guarded by a file lock, so the expensive
parts (a ~3.5 min build, a ~1 GB download) happen once per machine, even with concurrent runs.
Nothing here runs at import time.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from toolscale.children import free_port
from toolscale.llm.local.build import (
    ensure_llama_server,
    llama_server_path,
    llama_server_ready,
)
from toolscale.llm.local.files import LocalLLMError, cache_dir, status_line
from toolscale.llm.local.model import MODELS, ensure_model
from toolscale.llm.local.server import LocalServer

if TYPE_CHECKING:  # rich only types here: `python -m toolscale.llm.local` runs before pip
    from rich.console import Console


@contextlib.contextmanager
def embedded_endpoint(
    size: str = "1.5b",
    parallel: int = 2,
    cache: Path | None = None,
    console: Console | None = None,
    ctx_per_slot: int = 8192,  # repair turns carry the answer back: room for them
) -> Iterator[tuple[str, str]]:
    """(base_url, model name) of a local server, set up on first use and stopped on exit."""
    cache = cache if cache is not None else cache_dir()
    binary, model = prepare(size, cache, console)
    spec = MODELS[size]
    port = free_port()
    log_path = cache / "logs" / f"llama-server-{port}.log"
    server = LocalServer(
        binary,
        model,
        parallel=parallel,
        ctx_per_slot=ctx_per_slot,
        port=port,
        log_path=log_path,
        alias=spec.model_name,
    )
    with status_line(console, f"starting llama-server with {spec.model_name} (log: {log_path})"):
        server.start()
    try:
        yield server.base_url, spec.model_name
    finally:
        server.stop()


def prepare(size: str, cache: Path, console: Console | None = None) -> tuple[Path, Path]:
    """The llama-server binary and the model file. While the server builds, the model is
    fetched beside it (on a fresh machine the ~20 s download hides under the ~6 min build),
    without a progress bar of its own: a console holds one live display at a time."""
    if size not in MODELS:
        raise LocalLLMError(f"unknown embedded model size {size!r}; known: {sorted(MODELS)}")
    if llama_server_ready(cache):  # nothing to build: the fetch shows its own progress
        return llama_server_path(cache), ensure_model(size, cache, console)
    if console is not None:
        console.print(f"fetching {MODELS[size].model_name} while llama-server builds")
    with ThreadPoolExecutor(1, thread_name_prefix="toolscale-model") as pool:
        fetching = pool.submit(ensure_model, size, cache, None)
        binary = ensure_llama_server(cache, console)
        return binary, fetching.result()
