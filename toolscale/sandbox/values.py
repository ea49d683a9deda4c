"""Canonical values, with nothing but the standard library: the sandbox worker process
normalises what its engine returns before it crosses the pipe, and imports no more than it
needs (see `worker`)."""

from __future__ import annotations

import datetime as dt
import decimal
import math
from collections.abc import Iterable
from typing import Any

Scalar = str | int | float | bool | None
Key = tuple[Any, ...]
Row = tuple[Any, ...]
# table -> primary key -> row after the change (None: deleted). Keys absent are unchanged.
Changes = dict[str, dict[Key, Row | None]]


def normalise(value: Any) -> Scalar:
    """One canonical JSON scalar per value, whatever engine produced it."""
    kind = type(value)
    if kind is str or kind is int or value is None:  # the common case, first
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float | decimal.Decimal):
        x = float(value)
        if math.isnan(x) or math.isinf(x):
            return f"float:{x}"
        x = float(f"{x:.12g}")
        if x.is_integer() and abs(x) < 2**53:
            return int(x)
        return x
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return str(value)


def normalise_row(row: Iterable[Any]) -> Row:
    return tuple(normalise(v) for v in row)
