"""Stage `outcome`: the state the gold leaves keeps what every seed row keeps. A new row
that repeats a number its parent's rows keep apart (`toolscale.apart`) sells a seat twice:
railway-intent-00032 on a4b9fc9 sold seat 445 of trip 31079, which ticket 51352 held, and a
trainer would learn that a taken seat is free to sell."""

from __future__ import annotations

from toolscale.apart import holds_slots, kept_apart
from toolscale.environment import Environment, Replay
from toolscale.reasons import OutcomeReason
from toolscale.report import Rejection
from toolscale.schema import Table
from toolscale.wording import singular
from validators.stage import TaskContext

STAGE = "outcome"


def _final(table: Table, seed: list[dict], changed: dict) -> dict[tuple, dict]:
    """The table's rows by key after the gold: the seed's, with the replay's changes."""
    names = table.column_names
    rows = {tuple(r[k] for k in table.primary_key): r for r in seed}
    for key, row in changed.items():
        if row is None:
            rows.pop(tuple(key), None)
        else:
            rows[tuple(key)] = dict(zip(names, row, strict=True))
    return rows


def taken(env: Environment, replay: Replay) -> str:
    """What a new row repeats of another live row in its state under the same parent, where
    the parent holds places and the seed keeps the number apart; "" when nothing."""
    schema = env.spec.schema_
    for name, changed in replay.changes.items():
        table = schema.table(name)
        seed = env.spec.seed.get(name, [])
        before = {tuple(r[k] for k in table.primary_key) for r in seed}
        rows = _final(table, seed, changed)
        keys = {c for fk in table.foreign_keys for c in fk.columns} | set(table.primary_key)
        numbers = [c.name for c in table.columns if c.type == "integer" and c.name not in keys]
        state = table.status()
        for key, row in changed.items():
            if row is None or tuple(key) in before:
                continue
            new = rows[tuple(key)]
            for fk in (fk for fk in table.foreign_keys if len(fk.columns) == 1):
                parent = fk.columns[0]
                if not holds_slots(schema.table(fk.ref_table)):
                    continue  # a passenger's tickets differ in seat by chance, not by rule
                for column in numbers:
                    if new.get(column) is None or not kept_apart(seed, parent, column):
                        continue
                    other = next(
                        (
                            k
                            for k, r in rows.items()
                            if k != tuple(key)
                            and r.get(parent) == new[parent]
                            and r.get(column) == new[column]
                            # a cancelled ticket's seat is free again
                            and (state is None or r.get(state[0]) == new.get(state[0]))
                        ),
                        None,
                    )
                    if other is not None:
                        kind = singular(name)
                        return (
                            f"the gold makes {kind} {', '.join(map(str, key))} with {column} "
                            f"{new[column]} under {parent} {new[parent]}, which {kind} "
                            f"{', '.join(map(str, other))} holds; no two seed {name} under one "
                            f"{parent} share a {column}"
                        )
    return ""


def run(ctx: TaskContext) -> Rejection | None:
    detail = taken(ctx.env, ctx.replayed)
    if detail:
        return Rejection(stage=STAGE, reason=OutcomeReason.TAKEN_VALUE, detail=detail)
    return None
