"""The catalogue's tool choice on the embedded model: this tree against an earlier one,
side by side in one run on one server.

For each domain whose stored stages hold a schema and seed rows (`data/<domain>/stages`,
left by any `make generate`), the stage runs once in a git worktree of `--before` and
once in this tree, in turns, each in its own process with an empty LLM cache, against the
same llama-server. Printed per run: seconds, model calls, repairs, prompt and answer
tokens, tools kept, guarded writes and rules enforced; then the ratios after/before.

    .venv/bin/python bench/tool_choice.py --before fc0e403 finance travel

With `--replay`, no model runs: the stage runs in this tree against a copy of each
domain's LLM cache (`data/<domain>/llm-cache`) with `tool_choice_feedback` 0, 1 and 2, and
prints what each keeps; a setting whose answers are not all in the cache says so (calls
above 0). It shows what the rounds of feedback buy on answers a model really gave.

    .venv/bin/python bench/tool_choice.py --replay finance basketball travel

Ends with one JSON line of the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from rich.console import Console
from rich.table import Table

from toolscale.llm.local import embedded_endpoint

console = Console(stderr=True, width=130)
ROOT = Path(__file__).resolve().parent.parent

# Run in the tree under test (cwd): only names both trees have.
RUNNER = """
import asyncio, json, sys, time
from pathlib import Path
from generators.catalogue import propose_pattern_tools
from generators.rows import id_start
from generators.tools import priced
from generators.toolkit import schema_tools, status_tools
from toolscale.brief import brief_path, load_brief
from toolscale.llm.cache import ResponseCache
from toolscale.llm.client import LLMClient
from toolscale.llm.config import LLMConfig
from toolscale.schema import Schema
from toolscale.spec import EnvironmentSpec

domain, stages, url, model, cache = sys.argv[1:6]
feedback = {"feedback": int(sys.argv[6])} if len(sys.argv) > 6 else {}  # a tree may lack it
brief = load_brief(brief_path("domains", domain))
schema = Schema.model_validate_json(Path(stages, "schema.json").read_text())
seed = json.loads(Path(stages, "rows.json").read_text())
tools = [priced(t) for t in schema_tools(schema) + status_tools(schema, seed)]
try:  # the key's sequence since it took the schema; a tree before that: a round start
    start = id_start(seed, schema)
except TypeError:
    start = id_start(seed)
base = EnvironmentSpec(name=brief.name, description=brief.description, schema_=schema,
                       seed=seed, tools=tools, id_start=start)
config = LLMConfig(base_url=url, model=model, concurrency=1, timeout_s=1800)

async def main():
    llm = LLMClient(config, ResponseCache(cache))
    try:
        started = time.perf_counter()
        out = await propose_pattern_tools(llm, brief, base, **feedback)
        seconds = time.perf_counter() - started
    finally:
        await llm.close()
    row = llm.ledger.stage("tool_choice")
    writes = [t for t in out.tools if t.kind == "write"]
    print(json.dumps({
        "seconds": round(seconds, 1), "calls": row.calls, "repairs": row.repairs,
        "prompt_tokens": row.prompt_tokens, "answer_tokens": row.completion_tokens,
        "tools": len(out.tools), "guarded": sum(1 for t in writes if t.require),
        "rules": f"{sum(r.enforced for r in out.rules)}/{len(out.rules)}",
        "fell_back": out.fell_back, "cached": row.cached,
        "names": sorted(t.name for t in out.tools),
    }))

asyncio.run(main())
"""


@contextlib.contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """A detached checkout of `rev` beside this one, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="toolscale-before-") as tmp:
        path = Path(tmp) / "tree"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(path), rev],
            check=True,
            cwd=ROOT,
            capture_output=True,
        )
        try:
            yield path
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(path)], cwd=ROOT, capture_output=True
            )


def run_stage(
    tree: Path,
    domain: str,
    stages: Path,
    url: str,
    model: str,
    *extra: str,
    seed: Path | None = None,
) -> dict:
    """One tool choice in `tree`, with an LLM cache of its own (a copy of `seed`, if given)."""
    with tempfile.TemporaryDirectory(prefix="toolscale-cache-") as tmp:
        cache = Path(tmp) / "cache"
        if seed is not None:
            shutil.copytree(seed, cache)
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, domain, str(stages), url, model, str(cache), *extra],
            cwd=tree,
            env={**os.environ, "PYTHONPATH": str(tree)},
            capture_output=True,
            text=True,
        )
    if done.returncode:
        raise SystemExit(f"{tree} {domain}: the stage failed:\n{done.stderr[-3000:]}")
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def replay(domains: list[str], data: Path) -> None:
    """The stage on each domain's cached answers with 0, 1 and 2 rounds of feedback."""
    runs = []
    for domain in domains:
        for feedback in (0, 1, 2):
            run = run_stage(
                ROOT, domain, data / domain / "stages", "http://127.0.0.1:9/v1",
                "qwen2.5-coder-1.5b-instruct", str(feedback), seed=data / domain / "llm-cache",
            )  # fmt: skip
            runs.append({"domain": domain, "feedback": feedback, **run})
    table = Table(title="tool_choice on cached answers")
    keys = ["domain", "feedback", "cached", "calls", "tools", "guarded", "rules", "fell_back"]
    for key in [*keys, "same tools as feedback 2"]:
        table.add_column(key)
    for run in runs:
        last = next(r for r in runs if r["domain"] == run["domain"] and r["feedback"] == 2)
        table.add_row(*(str(run[k]) for k in keys), str(run["names"] == last["names"]))
    Console(width=130).print(table)
    print(json.dumps({"replay": runs}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("domains", nargs="+")
    parser.add_argument("--before", help="the git revision to compare with")
    parser.add_argument("--replay", action="store_true", help="on cached answers, no model")
    parser.add_argument("--data", type=Path, default=ROOT / "data")
    parser.add_argument("--model-size", default="1.5b")
    args = parser.parse_args()
    for domain in args.domains:
        for name in ("schema.json", "rows.json"):
            if not (args.data / domain / "stages" / name).is_file():
                raise SystemExit(
                    f"{args.data / domain / 'stages' / name}: missing; run "
                    f"`make generate DOMAIN={domain}` first"
                )
    if args.replay:
        replay(args.domains, args.data)
        return
    if not args.before:
        raise SystemExit("--before REV or --replay is needed")
    runs: list[dict] = []
    with (
        worktree(args.before) as before,
        embedded_endpoint(size=args.model_size, parallel=1, console=console) as (url, model),
    ):
        for i, domain in enumerate(args.domains):
            trees = [("before", before), ("after", ROOT)]
            for label, tree in trees if i % 2 == 0 else trees[::-1]:  # turns: order alternates
                console.log(f"{domain}: {label} ({tree})")
                run = {
                    "domain": domain,
                    "tree": label,
                    **run_stage(tree, domain, args.data / domain / "stages", url, model),
                }
                console.log(run)
                runs.append(run)
    table = Table(title=f"tool_choice: {args.before} (before) and this tree (after)")
    keys = [
        "domain",
        "tree",
        "seconds",
        "calls",
        "repairs",
        "prompt_tokens",
        "answer_tokens",
        "tools",
        "guarded",
        "rules",
        "fell_back",
    ]
    for key in keys:
        table.add_column(key, justify="left" if key in ("domain", "tree") else "right")
    for run in runs:
        table.add_row(*(str(run[k]) for k in keys))
    Console(width=130).print(table)
    ratios = {}
    for key in ("seconds", "answer_tokens", "prompt_tokens"):
        b = sum(r[key] for r in runs if r["tree"] == "before")
        a = sum(r[key] for r in runs if r["tree"] == "after")
        ratios[key] = round(a / b, 3) if b else None
        print(f"{key}: after/before = {ratios[key]} ({a} / {b})")
    print(json.dumps({"runs": runs, "ratios": ratios}))


if __name__ == "__main__":
    main()
