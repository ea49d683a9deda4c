"""Seed rows a create's own guard would refuse, per guard: how far a run's seed breaks the
rules its tools enforce (a grade score of 978 where "a grade score must be between 0 and
100", a return on an order that was never delivered).

Each create's require steps are asked, in the sandbox, of every seed row of the table it
makes, with the row's own values as the arguments. Steps that read an argument the row
does not hold are left out, and so are count and sum limits; the rows past a count limit
(which a new build's `generators/limits.py` moves out) are printed beside them, and so are
the parents not yet in the state a create asks of them (which `generators/parents.py`
moves) and those whose state is history (a grade recorded before its enrollment was
dropped). Ends with one JSON line: rows refused or over a limit, per run folder.

    python bench/seed_guards.py data/school data/ecommerce
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from generators.limits import keep  # noqa: E402
from generators.parents import place  # noqa: E402
from toolscale.environment import Environment  # noqa: E402
from toolscale.spec import EnvironmentSpec  # noqa: E402
from toolscale.tool import Tool, ToolCall  # noqa: E402

PROBE = "seed_guard_probe"
_PARAM = re.compile(r":(\w+)")


def refused(spec: EnvironmentSpec) -> list[tuple[str, int, int, int, str]]:
    """(tool, step, rows refused, rows asked, step's SQL) for each step that refuses some."""
    out = []
    for tool in spec.tools:
        made = tool.inserts()
        if tool.kind != "write" or len(made) != 1:
            continue
        table = spec.schema_.table(made[0])
        rows = spec.seed.get(table.name, [])
        for i, step in enumerate(tool.require):
            params = set(_PARAM.findall(step.sql))
            if not params or not params <= set(table.column_names) or "COUNT(*) +" in step.sql:
                continue
            if "SUM(" in step.sql.upper():
                continue
            types = {p: {"type": _json_type(table.column(p).type)} for p in params}
            probe = Tool(
                name=PROBE,
                description="Asks one guard of a seed row (bench only).",
                kind="read",
                parameters={"type": "object", "properties": types, "required": sorted(params)},
                returns=step.sql,
                single=True,
            )
            spec_probe = spec.model_copy(update={"tools": [probe]})
            bad = 0
            with Environment(spec_probe) as env:
                for row in rows:
                    if any(row.get(p) is None for p in params):
                        continue
                    call = ToolCall(name=PROBE, arguments={p: row[p] for p in params})
                    result = env.replay([call]).results[0]
                    value = next(iter(result.output.values()), None) if result.output else None
                    bad += not value
            if bad:
                out.append((tool.name, i, bad, len(rows), step.sql))
    return out


def _json_type(kind: str) -> str:
    return {"integer": "integer", "real": "number", "boolean": "boolean"}.get(kind, "string")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="run folders with environment.json")
    args = parser.parse_args()
    totals: dict[str, int] = {}
    for run in args.runs:
        spec = EnvironmentSpec.model_validate_json(Path(run, "environment.json").read_text())
        found = refused(spec)
        for tool, step, bad, asked, sql in found:
            print(f"{spec.name}: {tool} step {step}: {bad} of {asked} rows refused: {sql}")
        over = keep(spec).moved  # rows a new build's `limits` stage would move
        for limit, rows in over.items():
            print(f"{spec.name}: {len(rows)} rows over {limit}")
        placed = place(spec)  # parents a new build's `parents` stage would move
        for ask, rows in placed.moved.items():
            print(f"{spec.name}: {len(rows)} parents not yet in the state {ask} asks")
        for ask, n in placed.history.items():
            print(f"{spec.name}: {n} parents moved on since {ask} made their rows (history)")
        for name, bucket in (("held", placed.held), ("unplaced", placed.unplaced)):
            for ask, n in bucket.items():
                print(f"{spec.name}: {n} parents left for {ask} ({name})")
        for ask, n in placed.spared.items():
            print(f"{spec.name}: {n} parents spared for {ask}, so that their state keeps rows")
        totals[run] = sum(bad for _, _, bad, _, _ in found) + sum(map(len, over.values()))
    print(json.dumps({"rows_refused": totals}))  # per run folder
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
