"""Where a call's output goes: the value flow of a call sequence. In core because the
`flow` and `preference` stages judge a gold sequence by it and the walks that sample gold
sequences use it to keep only calls that earn their place.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence

from toolscale.environment import Environment
from toolscale.matching import Text, scalars
from toolscale.sandbox.state import Changes, normalise
from toolscale.schema import Scalar, Schema
from toolscale.task import OutputRef
from toolscale.tool import Tool, ToolCall, ToolResult

IsWrite = Callable[[str], bool]  # tool name -> is it a write


def value_key(value: object) -> object:
    """Values compared as a person would: 1, 1.0 and True meet, text ignores case and the
    American spelling ("canceled" of a status 'cancelled', medicine on 6789a02)."""
    value = normalise(value)
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        return _SPELLED.get(value.casefold(), value.casefold())
    return value


_SPELLED = {"canceled": "cancelled", "canceling": "cancelling"}


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


def reread(
    calls: Sequence[ToolCall], results: Sequence[ToolResult], is_write: IsWrite
) -> tuple[int, int] | None:
    """(i, j): the first read whose every output row call j already showed whole, with no
    successful write between them (travel-intent-00007 read the customer it had just found
    by email); None when every read shows something new."""
    since = 0  # outputs from here on show the state as it is
    for i, call in enumerate(calls):
        if is_write(call.name):
            if results[i].ok:
                since = i + 1
            continue
        rows = output_rows(results[i].output) if results[i].ok else []
        if not rows or (
            isinstance(results[i].output, list) and len(rows) != len(results[i].output)
        ):
            continue
        for j in range(since, i):
            if is_write(calls[j].name) or not results[j].ok:
                continue
            earlier = output_rows(results[j].output)
            if all(any(_holds(r, row) for r in earlier) for row in rows):
                return i, j
    return None


def told_again(
    told: Sequence[OutputRef],
    calls: Sequence[ToolCall],
    results: Sequence[ToolResult],
    is_write: IsWrite,
) -> tuple[int, int] | None:
    """(i, j): the last call, a read that only tells values call j's output already showed
    (the same record's field, the same value), with no successful write after j; a write's
    own output shows the state it left. finance-intent-00036 on e4504b8 read the account
    back after a transfer whose output held its new balance. None otherwise."""
    i = len(calls) - 1
    mine = [ref for ref in told if ref.call == i]
    if i < 1 or is_write(calls[i].name) or not results[i].ok or not mine:
        return None
    since = max((j for j in range(i) if is_write(calls[j].name) and results[j].ok), default=0)
    wanted = [_row_at(results[i].output, ref.path) for ref in mine]
    if any(row is None or not field or own_key(row) is None for row, field in wanted):
        return None
    for j in range(since, i):
        earlier = output_rows(results[j].output) if results[j].ok else []
        if all(
            any(_holds_as_told(r, row, field) for r in earlier)
            for row, field in wanted
            if row is not None
        ):
            return i, j
    return None


def _holds_as_told(earlier: Mapping[str, object], row: Mapping[str, object], field: str) -> bool:
    """The earlier row is the same record (its own key) and holds the field as told."""
    key = own_key(row)
    return (
        key is not None
        and key in earlier
        and field in earlier
        and value_key(earlier[key]) == value_key(row[key])
        and value_key(earlier[field]) == value_key(row[field])
    )


def own_key(row: Mapping[str, object]) -> str | None:
    """A row's own key: its first id column (a card's card_id, not the client_id it
    belongs to; a grade's grade_id, not its enrollment_id)."""
    return next((c for c in row if c == "id" or c.endswith("_id")), None)


def _holds(bigger: dict, row: dict) -> bool:
    return all(k in bigger and value_key(bigger[k]) == value_key(v) for k, v in row.items())


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
    (`told`: the calls told from). With `check_before_write`, a read of the next write's
    row (by an argument of it, or listing it among others) counts as that write's check.
    `expected`: calls declared to fail, which are the refusal itself."""
    text = Text(said)
    useless = []
    for i, call in enumerate(calls):
        if is_write(call.name) or i in told or i in (expected or set()):
            continue
        if not results[i].ok:
            useless.append(i)
            continue
        known = {
            value_key(v) for j in range(i) if results[j].ok for v in shown_values(results[j].output)
        }
        mine = {value_key(v) for v in scalars(results[i].output)}
        new = {v for v in mine - known if not text.mentions(v)}
        later = calls[i + 1 :]
        if any(value_key(a) in new for c in later for a in c.arguments.values()):
            continue
        if check_before_write:
            write = next((c for c in later if is_write(c.name)), None)
            looked_up = {value_key(a) for a in call.arguments.values()}
            if write is not None and (
                any(value_key(a) in looked_up for a in write.arguments.values())
                or _shows(results[i].output, write, looked_up)
            ):
                continue
        useless.append(i)
    return useless


def shown_values(output: object) -> list[object]:
    """The values an output tells of what it shows: a row's own key and columns, not the
    ids of other records it points to. travel-intent-00030 on d7b1bec listed the user's
    bookings (one at hotel 38582), then found "Marshall-King" (38582) to move another one
    there: the listing does not say which hotel 38582 is, and the find was called idle."""
    rows = output if isinstance(output, list) else [output]
    out: list[object] = []
    for row in rows:
        if not isinstance(row, dict):
            out.extend(scalars(row))
            continue
        key = own_key(row)
        for column, value in row.items():
            if column == key or not (column == "id" or column.endswith("_id")):
                out.extend(scalars(value))
    return [v for v in out if v is not None]


def _shows(output: object, write: ToolCall, looked_up: set[object]) -> bool:
    """The read lists the row the write acts on: a row whose column of a parameter's name
    holds that argument (the user's loans, among them loan 58949 that the user named and
    the write repays). It checks the row is the user's before it is changed, as the policy
    asks; finance lost 6 of 25 proposals at 424686f for want of this."""
    named = {
        k: value_key(v)
        for k, v in write.arguments.items()
        if v is not None and value_key(v) not in looked_up  # the listing's filter, not a row
    }
    for row in output_rows(output):
        # a row is named by its own key: a card's client_id is the card's owner, and shows
        # nothing of a transfer the same client makes
        key = own_key(row)
        if key is not None and key in named and value_key(row[key]) == named[key]:
            return True
    return False


def output_rows(output: object) -> list[dict]:
    """The rows a call returned: one, or a list of them."""
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
                for row in output_rows(r.output)
                if field in row
            }
            repeats = repeats and value in earlier
        if repeats:
            idle.append(i)
    return sorted(set(idle))


def used_rows(
    i: int,
    calls: Sequence[ToolCall],
    results: Sequence[ToolResult],
    told: Sequence[tuple[int, str]],
) -> list[dict[str, object]]:
    """What the task takes from call `i`'s output, row by row: each row's told fields and
    those later calls pass on (a listing's id given to the write), each with the row's own
    key, so a value is matched where the same record holds it (a card's status, not an
    account's that happens to read 'active' too)."""
    output = results[i].output
    later = {value_key(v) for c in calls[i + 1 :] for v in c.arguments.values()}
    needs: list[dict[str, object]] = []
    for row in output_rows(output):
        want = {c: v for c, v in row.items() if v is not None and value_key(v) in later}
        for call, path in told:
            at, field = _row_at(output, path) if call == i else (None, "")
            if at is row and field in row:
                want[field] = row[field]
        if want and (key := own_key(row)) is not None:
            want[key] = row[key]
        if want:
            needs.append(want)
    return needs


def _lighter(other: Tool, tool: Tool, cost: bool, both: bool) -> bool:
    """Cheaper (`cost`) or quicker, and, where the user weighs `both`, no worse on the other:
    a user who asks only for cheap calls is served by a cheaper, slower one (the preference
    reward weighs latency by their weight, 0)."""
    if cost:
        return other.price < tool.price and (not both or other.latency_ms <= tool.latency_ms)
    return other.latency_ms < tool.latency_ms and (not both or other.price <= tool.price)


def lighter_read(
    calls: Sequence[ToolCall],
    results: Sequence[ToolResult],
    told: Sequence[tuple[int, str]],
    env: Environment,
    cost: bool,
    avoid: Collection[str] = (),
    said: str = "",
    both: bool = False,
) -> tuple[int, Tool, ToolCall] | None:
    """(call, its tool, the lighter call) for a read another, cheaper (`cost`) or quicker,
    makes with (a subset of) the same arguments or with what the user `said` of the row
    used (`_stated_arguments`), giving the rows the task uses of it:
    medicine kept "Please keep this as cheap as possible" over
    `list_appointments_by_patient_id` ($0.0049), where `recent_appointments_by_patient_id`
    ($0.0018) with the same patient gave the one appointment the task used. A careful
    agent asked for cheap calls that one. Only a read of the same one table counts:
    `list_prescriptions_by_patient_id` holds the appointment's id too (medicine-intent-00077
    on 369ec82)."""
    found = env.spec.schema_.people()
    people = found.name if found is not None else None
    for i, call in enumerate(calls):
        tool = env.tools.get(call.name)
        if tool is None or tool.kind == "write" or not results[i].ok:
            continue
        needs = used_rows(i, calls, results, told)
        if not needs:
            continue
        used = [r for r in output_rows(results[i].output) if any(_holds(r, n) for n in needs)]
        # the user is found the way the policy says (by email), not by a name they give
        stated = "" if tool.returned_table() == people else said
        for other in env.tools.values():
            if other.kind == "write" or other.name == tool.name or other.name in avoid:
                continue  # a tool the user asked to avoid is no way round (review of 5318624)
            if not _lighter(other, tool, cost, both):
                continue
            if other.returned_table() is None or other.returned_table() != tool.returned_table():
                continue  # a prescription holds its appointment's id, and is no appointment
            arguments = _stated_arguments(other, call, used, stated)
            if arguments is None:
                continue
            instead = ToolCall(name=other.name, arguments=arguments)
            result = env.replay([*calls[:i], instead]).results[-1]
            rows = output_rows(result.output)
            if result.ok and all(any(_holds(r, need) for r in rows) for need in needs):
                return i, tool, instead
    return None


def _stated_arguments(
    other: Tool, call: ToolCall, rows: Sequence[dict], said: str
) -> dict[str, Scalar] | None:
    """The lighter read's arguments: the gold call's it takes, and for each it needs that the
    call lacks, the value the used row holds under that name where the user says it.
    basketball kept "keep this as cheap as possible" over `list_players_by_team_id`
    ($0.0035), where `find_player_by_name` ($0.0008) with "Gabriella Gallagher", the name
    the user gave, finds the one player the task used (basketball-intent-00013)."""
    arguments = {k: v for k, v in call.arguments.items() if k in other.param_types()}
    stated = Text(said)
    for name in other.parameters.get("required", []):
        if name in arguments:
            continue
        values = {r.get(name) for r in rows}
        value = values.pop() if len(values) == 1 else None
        if not isinstance(value, str) or not stated.mentions(value):
            return None
        arguments[name] = value
    return arguments


def _row_at(output: object, path: str) -> tuple[dict | None, str]:
    """The output row a told value sits in, and its field."""
    parts = [p for p in path.split(".") if p]
    node: object = output
    for part in parts[:-1]:
        if isinstance(node, list) and part.lstrip("-").isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict):
            node = node.get(part)
        else:
            return None, ""
    return (node if isinstance(node, dict) else None), (parts[-1] if parts else "")


def _same_row(a: dict, b: dict) -> bool:
    """Two output rows of one record: every key-like field (`..._id`) they share agrees."""
    shared = [k for k in a if k in b and (k == "id" or k.endswith("_id"))]
    return bool(shared) and all(value_key(a[k]) == value_key(b[k]) for k in shared)


def row_table(
    row: Mapping[str, object],
    keys: Mapping[str, Sequence[str]],
    columns: Mapping[str, Sequence[str]],
) -> str | None:
    """The table a row is of: of those whose key it holds, the one with most of its columns,
    where those are most of the row (a join adds a column or two of another table). A new
    ticket's row holds its game's key too, and its status is not the game's (basketball on
    9cd916d: "gold call 3 tells games.status = 'active'" of the ticket just made)."""
    keyed = [t for t, key in keys.items() if key and set(key) <= set(row)]
    best = max(keyed, key=lambda t: len(set(columns[t]) & set(row)), default=None)
    return best if best and 2 * len(set(columns[best]) & set(row)) > len(row) else None


def told_of_records(
    told: Sequence[OutputRef], results: Sequence[ToolResult], schema: Schema
) -> dict[tuple[str, object], set[str]]:
    """The fields told of each record, by its table and key: "the course status for each
    course" is owed for every course, so what was told must be known per record."""
    keys = {t.name: t.primary_key for t in schema.tables}
    columns = {t.name: t.column_names for t in schema.tables}
    out: dict[tuple[str, object], set[str]] = {}
    for ref in told:
        row, field = _row_at(results[ref.call].output, ref.path)
        table = row_table(row, keys, columns) if row is not None and field else None
        if row is None or table is None or len(keys[table]) != 1:
            continue
        out.setdefault((table, value_key(row[keys[table][0]])), set()).add(field)
    return out


def stale_told(
    told: Sequence[OutputRef],
    calls: Sequence[ToolCall],
    results: Sequence[ToolResult],
    changes: Changes,
    schema: Schema,
    is_write: IsWrite,
) -> str | None:
    """A told value read from a row that a later successful write left different: what it
    says no longer holds when the user hears it (None if every told value still holds).
    Not stale: the value the later write was given ("look up what is owed, pay it, tell me
    what you paid"), and a value told again from a read after the write ("the balance, then
    move $250, then the balance again")."""
    rows = [(ref, *_row_at(results[ref.call].output, ref.path)) for ref in told]
    keys = {t.name: t.primary_key for t in schema.tables}
    columns = {t.name: t.column_names for t in schema.tables}
    for ref, row, field in rows:
        if row is None or not field:
            continue
        later = [
            j for j in range(ref.call + 1, len(calls)) if results[j].ok and is_write(calls[j].name)
        ]
        if not later:
            continue
        given = {value_key(v) for j in later for v in calls[j].arguments.values()}
        if value_key(row[field]) in given:
            continue
        if any(
            other.call > later[0] and f == field and r is not None and _same_row(r, row)
            for other, r, f in rows
        ):
            continue
        for name, changed in changes.items():
            table = schema.table(name)
            if field not in table.column_names or name != row_table(row, keys, columns):
                continue
            now = changed.get(tuple(normalise(row[k]) for k in table.primary_key))
            if now is None:  # unchanged, or deleted: what it was is all there is to tell
                continue
            value = now[table.column_names.index(field)]
            if value_key(value) != value_key(row[field]):
                return (
                    f"gold call {ref.call} tells {name}.{field} = {row[field]!r}, read before a "
                    f"later write made it {value!r}"
                )
    return None
