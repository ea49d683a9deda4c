"""Two purposes in one task: a person who asks for two changes at once ("cancel my stay at
the Harbor Inn and add two bags to my flight"). Every intent task of our runs made one write
(6 to 8 distinct gold sequences in 30 tasks); ToolScale's users ask for more than one thing.

The second chain's calls follow the first's, a read both make is made once, and the joint
plan is run again: it is kept only where every call returns what it returned in its own
chain, so neither change touches what the other reads or tells, and every fact each chain
gave the user is still true."""

from __future__ import annotations

from generators.sampling import Chain
from toolscale.environment import Environment
from toolscale.task import OutputRef


def joined(env: Environment, first: Chain, second: Chain) -> Chain | None:
    """`first` then `second` as one chain, or None where they cannot be told apart (both
    tell the same field) or one changes what the other reads."""
    if _alike(first.wanted, second.wanted) or first.speaker != second.speaker:
        return None  # "tell me the booking status", of two bookings, asks for neither
    if _new_beside_old(env, first, second) or _new_beside_old(env, second, first):
        return None
    calls = list(first.calls)
    at: dict[int, int] = {}  # second's call -> its place in the joint plan
    for j, call in enumerate(second.calls):
        if env.tools[call.name].kind == "read" and call in calls:
            at[j] = calls.index(call)
        else:
            at[j] = len(calls)
            calls.append(call)
    if len(calls) == len(first.calls):
        return None
    env.reset()
    results = [env.step(call) for call in calls]
    alone = [*enumerate(first.results), *((at[j], r) for j, r in enumerate(second.results))]
    if any(results[i] != result for i, result in alone):
        return None
    facts = [*first.facts, *(f for f in second.facts if f not in first.facts)]
    told = [OutputRef(call=at[ref.call], path=ref.path) for ref in second.communicate]
    errors = {**first.errors, **{at[i]: e for i, e in second.errors.items()}}
    return Chain(
        calls=calls,
        results=results,
        facts=facts,
        communicate=[*first.communicate, *told],
        wanted=[*first.wanted, *second.wanted],
        start=0,
        errors=errors,
        purpose=f"{first.purpose}; and also {second.purpose}",
        operations=[*first.operations, *second.operations],
        speaker=first.speaker,
    )


def _alike(first: list[str], second: list[str]) -> bool:
    """Two fields one request cannot tell apart: the same one, or one the other's last words
    (railway-intent-00006 on 21ceb83 cancelled a ticket and deactivated the passenger's own
    profile, and asked for "the ticket status, status": the second was read as the ticket's)."""
    return any(a == b or a.endswith(f"_{b}") or b.endswith(f"_{a}") for a in first for b in second)


def _new_beside_old(env: Environment, making: Chain, changing: Chain) -> bool:
    """`making` creates a record of a kind whose other record `changing` changes: worded as
    one request, the two read as one record. Travel-intent-00052 on 0651c04 asked "book a
    flight ... I want to include these bags in my flight booking", and the gold added the
    bags to another booking the user had; 00062 asked to "book a hotel and a flight" of a
    new hotel booking and bags added to an old flight booking."""
    return bool(_kinds(env, making)[0] & _kinds(env, changing)[1])


def _kinds(env: Environment, chain: Chain) -> tuple[set[str], set[str]]:
    """(tables the chain's creates add a row to, tables its other writes change): the seats
    a booking takes from its flight are the create's own."""
    made: set[str] = set()
    changed: set[str] = set()
    for call in chain.calls:
        tool = env.tools[call.name]
        if tool.kind == "write":
            inserted = tool.inserts()
            made.update(inserted)
            changed.update([] if inserted else tool.updated_tables())
    return made, changed
