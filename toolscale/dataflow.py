"""Where a call's output goes: the value flow of a call sequence. In core because the
`flow` and `preference` stages judge a gold sequence by it and the walks that sample gold
sequences use it to keep only calls that earn their place.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from toolscale.matching import Text, scalars
from toolscale.sandbox.state import normalise
from toolscale.tool import ToolCall, ToolResult

IsWrite = Callable[[str], bool]  # tool name -> is it a write


def value_key(value: object) -> object:
    """Values compared as a person would: 1, 1.0 and True meet, text ignores case."""
    value = normalise(value)
    if isinstance(value, int | float):
        return float(value)
    return value.casefold() if isinstance(value, str) else value


def repeated_call(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], is_write: IsWrite
) -> int | None:
    """The first call that repeats an earlier one with no successful write between them."""
    seen: set[str] = set()
    for i, call in enumerate(calls):
        key = call.key()
        if key in seen:
            return i
        seen.add(key)
        if is_write(call.name) and results[i].ok:
            seen = {key}  # the state changed: reading again is reading something new
    return None


def useless_reads(
    calls: Sequence[ToolCall],
    results: Sequence[ToolResult],
    is_write: IsWrite,
    said: str,
    told: set[int],
    *,
    check_before_write: bool,
    expected: set[int] | None = None,
) -> list[int]:
    """Reads whose output nothing uses: no later argument takes a value it brought (one the
    user did not say and no earlier call returned), and no value told comes from it
    (`told`: the calls told from). With `check_before_write`, a read whose output holds an
    argument of the next write counts as that write's check. `expected`: calls declared to
    fail, which are the refusal itself."""
    text = Text(said)
    useless = []
    for i, call in enumerate(calls):
        if is_write(call.name) or i in told or i in (expected or set()):
            continue
        if not results[i].ok:
            useless.append(i)
            continue
        known = {
            value_key(v) for j in range(i) if results[j].ok for v in scalars(results[j].output)
        }
        mine = {value_key(v) for v in scalars(results[i].output)}
        new = {v for v in mine - known if not text.mentions(v)}
        later = calls[i + 1 :]
        if any(value_key(a) in new for c in later for a in c.arguments.values()):
            continue
        if check_before_write:
            write = next((c for c in later if is_write(c.name)), None)
            looked_up = {value_key(a) for a in call.arguments.values()}
            if write is not None and any(
                value_key(a) in looked_up for a in write.arguments.values()
            ):
                continue
        useless.append(i)
    return useless


def _rows(output: object) -> list[dict]:
    rows = output if isinstance(output, list) else [output]
    return [r for r in rows if isinstance(r, dict)]


def _at(output: object, path: str) -> object:
    value = output
    for part in [p for p in path.split(".") if p]:
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def avoidable_reads(
    calls: Sequence[ToolCall],
    results: Sequence[ToolResult],
    is_write: IsWrite,
    said: str,
    told: Sequence[tuple[int, str]],
    expected: set[int] | None = None,
) -> list[int]:
    """Reads a user who wants it cheap or quick would not pay for: those nothing uses, even
    as a check before a write (the write's own require steps check), and those whose told
    values (`told`: (call, path) pairs) an earlier output already gave in the same field."""
    idle = useless_reads(
        calls,
        results,
        is_write,
        said,
        {call for call, _ in told},
        check_before_write=False,
        expected=expected,
    )
    for i in sorted({call for call, _ in told}):
        if is_write(calls[i].name) or not results[i].ok:
            continue
        repeats = True
        for _, path in [(c, p) for c, p in told if c == i]:
            field = path.split(".")[-1]
            value = value_key(_at(results[i].output, path))
            earlier = {
                value_key(row.get(field))
                for r in results[:i]
                if r.ok
                for row in _rows(r.output)
                if field in row
            }
            repeats = repeats and value in earlier
        if repeats:
            idle.append(i)
    return sorted(set(idle))
