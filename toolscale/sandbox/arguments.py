"""Tool arguments checked before they reach an engine, the same for both.

JSON Schema alone lets through what the engines then disagree on: NaN passes
`exclusiveMinimum: 0` (every comparison with NaN is false) and DuckDB stores it where a
`>= 0` CHECK holds for NaN; infinities store on both; a 10 MB string is stored by DuckDB
and refused by SQLite; an integer past 64 bits overflows differently. So a number must be
finite, an integer must fit 64 bits, and a string is capped by its declared `maxLength`
or the sandbox's `max_string`, whichever is smaller.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import jsonschema

from toolscale.tool import Tool

_INT64 = 2**63


def value_problem(name: str, value: Any, max_string: int) -> str | None:
    """Why one argument value may not reach an engine, or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{name}: {value!r} is not a finite number"
    if isinstance(value, int) and not isinstance(value, bool) and not -_INT64 <= value < _INT64:
        return f"{name}: {value} does not fit a 64-bit integer"
    if isinstance(value, str) and len(value) > max_string:
        return f"{name}: the text is {len(value)} characters, over the cap of {max_string}"
    if value is not None and not isinstance(value, str | int | float):
        return f"{name}: a {type(value).__name__} is not a scalar value"
    return None


class ArgumentCheck:
    """Every tool's argument contract; the verdict on a call's arguments is cached by their
    text, since replays check the same calls again and again."""

    def __init__(self, tools: list[Tool], max_string: int):
        self._validators = {
            t.name: jsonschema.Draft202012Validator(t.openai_schema()["function"]["parameters"])
            for t in tools
        }
        self._caps = {
            t.name: {
                p: min(int(spec.get("maxLength", max_string)), max_string)
                for p, spec in t.parameters.get("properties", {}).items()
            }
            for t in tools
        }
        self._max_string = max_string
        self._passed: set[str] = set()

    def error(self, tool: str, arguments: Mapping[str, Any], key: str | None = None) -> str | None:
        """What is wrong with these arguments, naming the parameter; None if nothing."""
        validator = self._validators.get(tool)
        if validator is None:
            return f"unknown tool {tool!r}; available: {', '.join(sorted(self._validators))}"
        if key is not None and key in self._passed:
            return None
        caps = self._caps[tool]
        for name, value in arguments.items():
            problem = value_problem(f"{tool}: {name}", value, caps.get(name, self._max_string))
            if problem:
                return problem
        errors = sorted(validator.iter_errors(dict(arguments)), key=lambda e: list(e.path))
        if errors:
            e = errors[0]
            where = ".".join(str(p) for p in e.path) or "arguments"
            return f"{tool}: {where}: {e.message}"
        if key is not None:
            if len(self._passed) >= 4096:  # bounded: memory stays flat
                self._passed.clear()
            self._passed.add(key)
        return None
