"""Numbers a parent's rows keep apart: no two of a trip's tickets share a seat number, no
two of a restaurant's tables a table number. The schema says nothing of it (no UNIQUE), but
a seed where every group of rows differs in a column, over enough pairs to tell, does; a new
row that repeats one sells a seat twice (railway-intent-00032 on a4b9fc9 sold seat 445 of
trip 31079, held by ticket 51352). Generation draws apart numbers
(`generators.arguments`); the `outcome` stage rejects a gold that makes a repeat.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from toolscale.schema import Table

# pairs of rows under one parent that must all differ in a number to keep a new one apart
# from them: a quantity of 1 to 10 differs in 20 such pairs about 1 time in 8 (0.9 ** 20)
APART_PAIRS = 20


def kept_apart(rows: Iterable[Mapping[str, object]], parent: str, column: str) -> bool:
    """No two rows under one `parent` share `column`, over at least APART_PAIRS pairs."""
    groups: dict[object, list[object]] = {}
    for row in rows:
        groups.setdefault(row.get(parent), []).append(row.get(column))
    pairs = sum(len(g) * (len(g) - 1) // 2 for g in groups.values())
    return pairs >= APART_PAIRS and all(len(set(g)) == len(g) for g in groups.values())


_SLOTS = re.compile(r"capacity|seat|slot|room|place|table", re.I)


def holds_slots(parent: Table) -> bool:
    """The parent says how many it holds (a trip's seats_sold, a hall's capacity): its
    children's numbers are places in it, not numbers that differ by chance (a passenger's
    tickets, a team's games)."""
    return any(_SLOTS.search(c.name) for c in parent.columns if c.type in ("integer", "real"))
