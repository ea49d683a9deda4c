"""The llama-server build: everything at -O3 against the code around the kernels at -O1
(what `ensure_llama_server` builds), side by side in one run from one source download.

Per build: wall and CPU seconds (of the compiler processes). Per binary, served in turns
with the embedded model (fetched into the cache if missing) on 2 slots, as a run serves it:
prompt and decode tokens/s of a ~1,100-token prompt and 200 generated tokens, and the wall
seconds of two JSON-schema answers asked at once; the median of `--rounds`. Then the ratios
light / full: the build's time should fall, the serving stay as it is.

    .venv/bin/python bench/llama_build.py [--model-size 1.5b] [--rounds 3]

Takes the machine for about 12 minutes on 2 cores (give it the machine: a build beside
other work measures the other work). Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from toolscale.children import free_port
from toolscale.llm.local.build import build_llama_server, download_llama_cpp_source
from toolscale.llm.local.files import cache_dir
from toolscale.llm.local.model import ensure_model
from toolscale.llm.local.server import LocalServer

console = Console(stderr=True, width=130)
PROMPT = " ".join(f"The quick brown fox jumps over the lazy dog number {i}." for i in range(80))
QUESTION = "Check each sentence above: is its number even? Answer in the JSON schema given."
VERDICT = {  # a judge-like answer: a list of objects, a string, booleans
    "type": "object",
    "properties": {
        "checks": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"number": {"type": "integer"}, "even": {"type": "boolean"}},
                "required": ["number", "even"],
            },
            "minItems": 8,
            "maxItems": 8,
        },
        "reason": {"type": "string", "maxLength": 200},
        "all_even": {"type": "boolean"},
    },
    "required": ["checks", "reason", "all_even"],
}


SERVED = ("prompt_tok_s", "decode_tok_s", "json_pair_s")


def children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_build(source: Path, where: Path, light: bool) -> tuple[Path, float, float]:
    """(binary, wall s, CPU s) of one build."""
    cpu, wall = children_cpu_s(), time.perf_counter()
    binary = build_llama_server(
        source, where / "build", where / "build.log", os.cpu_count() or 1, light=light
    )
    return binary, time.perf_counter() - wall, children_cpu_s() - cpu


def _post(url: str, body: dict[str, object]) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=600) as response:
        answer: dict[str, Any] = json.load(response)
    return answer


def served(binary: Path, model: Path, log: Path, round_: int) -> dict[str, float]:
    """One server, as a run uses it (2 slots): a plain completion's prompt and decode
    tokens/s, then two JSON-schema-constrained chat answers at once (grammar, chat
    template and server loop all at work), their wall seconds."""
    server = LocalServer(binary, model, parallel=2, port=free_port(), log_path=log)
    with server:
        root = server.base_url.removesuffix("/v1")
        plain = _post(
            root + "/completion",
            {
                "prompt": f"{round_} {PROMPT}",  # unlike the last round's: nothing cached
                "n_predict": 200,
                "ignore_eos": True,
                "cache_prompt": False,
            },
        )["timings"]

        def structured(i: int) -> None:
            _post(
                server.base_url + "/chat/completions",
                {
                    "messages": [{"role": "user", "content": f"{round_}.{i} {PROMPT}\n{QUESTION}"}],
                    "response_format": {
                        "type": "json_schema",
                        "json_schema": {"name": "Verdict", "schema": VERDICT},
                    },
                    "max_tokens": 300,
                    "temperature": 0,
                    "cache_prompt": False,
                },
            )

        started = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(structured, range(2)))
        pair_s = time.perf_counter() - started
    return {
        "prompt_tok_s": plain["prompt_per_second"],
        "decode_tok_s": plain["predicted_per_second"],
        "json_pair_s": pair_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-size", default="1.5b")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    model = ensure_model(args.model_size, cache_dir(), console)
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="llama-build-") as tmp:
        work = Path(tmp)
        console.print("downloading the llama.cpp source (llama-cpp-python sdist)")
        source = download_llama_cpp_source(work, work / "download.log")
        binaries = {}
        for name, light in (("full", False), ("light", True)):
            console.print(f"building llama-server ({name}) ...")
            binary, wall, cpu = timed_build(source, work / name, light)
            binaries[name] = binary
            figures[name] = {"build_wall_s": round(wall, 1), "build_cpu_s": round(cpu, 1)}
            console.print(f"  {wall:.1f} s wall, {cpu:.1f} s CPU")
        speeds: dict[str, list[dict[str, float]]] = {name: [] for name in binaries}
        for round_ in range(args.rounds):
            for name, binary in binaries.items():  # in turns: the machine's drift hits both
                speeds[name].append(served(binary, model, work / f"{name}-serve.log", round_))
        for name, seen in speeds.items():
            for key in SERVED:
                figures[name][key] = round(statistics.median(x[key] for x in seen), 2)
    table = Table(title=f"llama-server build, {os.cpu_count()} cores")
    columns = ("build wall s", "build CPU s", "prompt tok/s", "decode tok/s", "2 JSON answers s")
    for column in ("", *columns):
        table.add_column(column, justify="right")
    keys = ("build_wall_s", "build_cpu_s", *SERVED)
    for name in ("full", "light"):
        table.add_row(name, *(f"{figures[name][k]:g}" for k in keys))
    ratios = {k: round(figures["light"][k] / figures["full"][k], 3) for k in keys}
    table.add_row("light / full", *(f"{ratios[k]:.3f}" for k in keys))
    console.print(table)
    print(json.dumps({**figures, "ratio": ratios}))


if __name__ == "__main__":
    main()
