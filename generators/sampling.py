"""Sample-then-verbalize, part one: gold call chains sampled from the environment itself.

A walk calls real tools in a live sandbox: arguments come from real rows and from what
earlier calls returned, so every kept chain has executed. Reads feed writes; the values
the user should be told are picked from read outputs. The LLM only puts it into words."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from generators.arguments import ArgumentSampler
from toolscale.dataflow import avoidable_reads, lighter_read, reread, stale_told, useless_reads
from toolscale.environment import Environment
from toolscale.matching import scalars
from toolscale.schema import Scalar
from toolscale.task import OutputRef
from toolscale.tool import Tool, ToolCall, ToolResult


@dataclass
class Chain:
    calls: list[ToolCall]
    results: list[ToolResult]
    facts: list[tuple[str, Scalar]] = field(default_factory=list)  # what the user must say
    communicate: list[OutputRef] = field(default_factory=list)
    wanted: list[str] = field(default_factory=list)  # names of the values asked for
    start: int = 0  # calls before `start` came from a parent task
    errors: dict[int, str] = field(default_factory=dict)  # call -> the refusal it must meet
    purpose: str | None = None  # what the user wants, in words: shown instead of the steps
    # per write, the words naming it: one of each is said
    operations: list[list[str]] = field(default_factory=list)
    # who speaks: the people's kind where they have an email ("teacher"): school's teachers,
    # told they were customers, wrote "enroll my child"
    speaker: str = "customer"
    # values of records another person holds (the account money goes to): never "my"
    foreign: list[Scalar] = field(default_factory=list)

    def lean(self, env: Environment) -> bool:
        """No call a user who wants it cheap or quick would call avoidable, and no read a
        lighter one with the same arguments makes (medicine's cost preferences over
        `list_appointments_by_patient_id`, where the cheaper `recent_...` gave the same)."""
        facts = " ".join(str(v) for _, v in self.facts)
        told = [(ref.call, ref.path) for ref in self.communicate]
        tools = env.tools
        avoidable = avoidable_reads(
            self.calls,
            self.results,
            lambda n: tools[n].kind == "write",
            facts,
            told,
            expected=set(self.errors),
        )
        if avoidable:
            return False
        return not any(
            lighter_read(self.calls, self.results, told, env, cost, said=facts)
            for cost in (True, False)
        )


def _output_values(output: Any) -> dict[str, list[Scalar]]:
    """key -> values, from a row or a list of rows."""
    rows = output if isinstance(output, list) else [output]
    found: dict[str, list[Scalar]] = {}
    for row in rows:
        if isinstance(row, dict):
            for k, v in row.items():
                if v is not None and not isinstance(v, dict | list):
                    found.setdefault(k, []).append(v)
    return found


def _pick_tool(
    tools: list[Tool], known: dict[str, list[Scalar]], step: int, rng: random.Random
) -> Tool:
    weights = []
    for tool in tools:
        required = tool.parameters.get("required", [])
        chained = sum(p in known for p in required)
        w = 1.0
        if step > 0 and chained:
            w += 4.0 * chained / max(1, len(required))
        if step > 0 and tool.kind == "write":
            w += 1.5
        weights.append(w)
    return rng.choices(tools, weights=weights, k=1)[0]


def _telling(
    i: int, results: list[ToolResult], given: set[Any], rng: random.Random
) -> tuple[list[OutputRef], list[str]]:
    """One or two telling fields of call `i`'s output (its first row), or nothing."""
    out = results[i].output
    row, prefix = (out[0], "0.") if isinstance(out, list) and out else (out, "")
    if not isinstance(row, dict):
        return [], []
    fields = [
        k
        for k, v in row.items()
        if v is not None
        and not isinstance(v, dict | list)
        and not k.endswith("_id")
        and v not in given
        and str(v).strip()
    ]
    if not fields:
        return [], []
    chosen = rng.sample(fields, k=min(len(fields), rng.choice([1, 1, 2])))
    return [OutputRef(call=i, path=f"{prefix}{k}") for k in chosen], chosen


def _communicate(
    calls: list[ToolCall],
    results: list[ToolResult],
    start: int,
    tools: dict[str, Tool],
    given: set[Any],
    rng: random.Random,
) -> tuple[list[OutputRef], list[str]] | None:
    """What the user is told: a telling field or two of the latest read that returned
    something, and of every other new read whose output nothing else uses (a read must
    earn its place); None when such a read has nothing to tell."""
    refs: list[OutputRef] = []
    wanted: list[str] = []
    latest = next(
        (
            i
            for i in range(len(calls) - 1, start - 1, -1)
            if tools[calls[i].name].kind == "read" and _telling(i, results, given, rng)[0]
        ),
        None,
    )
    is_write = lambda name: tools[name].kind == "write"  # noqa: E731
    told = {latest} if latest is not None else set()
    said = " ".join(str(v) for v in given)  # what the user states is no news a read brings
    idle = useless_reads(calls, results, is_write, said, told, check_before_write=True)
    lookups: set[str] = set()
    for i in sorted(told | {j for j in idle if j >= start}):
        found, names = _telling(i, results, given, rng)
        if not found or set(names) & set(wanted) or calls[i].name in lookups:
            return None  # nothing to tell, or two reads telling alike: words can't say which
        refs += found
        wanted += names
        lookups.add(calls[i].name)
    return refs, wanted


def walk(
    env: Environment,
    sampler: ArgumentSampler,
    rng: random.Random,
    max_calls: int = 3,
    prefix: Sequence[ToolCall] | None = None,
    tries: int = 20,
    avoid: frozenset[str] = frozenset(),
) -> Chain | None:
    """A chain of calls that all succeed, with at least one change or one value to tell;
    tools in `avoid` (a user's stated preference) are never added."""
    tools = [t for t in env.spec.tools if t.name not in avoid]
    by_name = env.tools
    is_write = lambda name: by_name[name].kind == "write"  # noqa: E731
    for _ in range(tries):
        env.reset()
        calls: list[ToolCall] = []
        results: list[ToolResult] = []
        known: dict[str, list[Scalar]] = {}
        for call in prefix or []:
            result = env.step(call)
            if not result.ok:
                return None  # a parent that no longer replays cannot be extended
            calls.append(call)
            results.append(result)
            for k, v in call.arguments.items():
                if v is not None:
                    known.setdefault(k, []).append(v)
            for k, vs in _output_values(result.output).items():
                known.setdefault(k, []).extend(vs)
        start = len(calls)
        fresh: set[str] = set()  # keys of the calls since the last write
        length = rng.randint(1, max_calls)
        for step in range(length):
            for _attempt in range(8):
                tool = _pick_tool(tools, known, step + start, rng)
                given = {  # stay with the same customer and things: the first value seen
                    p: known[p][0] if rng.random() < 0.7 else rng.choice(known[p])
                    for p in tool.parameters.get("properties", {})
                    if p in known and rng.random() < 0.85
                }
                arguments = sampler.arguments(tool, rng, given=given)
                if ToolCall(name=tool.name, arguments=arguments).key() in fresh:
                    continue  # the same call again, nothing written since: no new answer
                before = env.sandbox.changes() if tool.kind == "write" else None
                result = env.step(ToolCall(name=tool.name, arguments=arguments))
                if not result.ok:
                    continue
                if before is not None and env.sandbox.changes() == before:
                    continue  # a write that changed nothing would be unnecessary
                call = ToolCall(name=tool.name, arguments=arguments)
                again = reread([*calls, call], [*results, result], is_write)
                if again is not None and again[0] == len(calls):
                    continue  # shows only rows an earlier read showed: an unused read
                calls.append(call)
                results.append(result)
                fresh = set() if tool.kind == "write" else fresh
                fresh.add(calls[-1].key())
                for k, v in arguments.items():
                    if v is not None:
                        known.setdefault(k, []).append(v)
                for k, vs in _output_values(result.output).items():
                    known.setdefault(k, []).extend(vs)
                break
            else:
                break
        if len(calls) == start:
            continue
        facts: list[tuple[str, Scalar]] = []
        seen: set[Any] = set()  # values the user said or an earlier call returned
        for call, result in zip(calls, results, strict=True):  # a parent's values too
            for name, value in call.arguments.items():
                if value is not None and value not in seen:
                    facts.append((name, value))
                    seen.add(value)
            seen.update(scalars(result.output))
        writes = any(by_name[c.name].kind == "write" for c in calls[start:])
        told = _communicate(calls, results, start, by_name, {v for _, v in facts}, rng)
        if told is None:
            continue  # a read with nothing to tell and nothing using it
        communicate, wanted = told
        if not writes and not communicate:
            continue
        changes = env.sandbox.changes()
        if stale_told(communicate, calls, results, changes, env.spec.schema_, is_write):
            continue  # told a value its own later write changed: the user would hear old news
        return Chain(calls, results, facts, communicate, wanted, start)
    return None
