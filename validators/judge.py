"""Stage `judge`: a model reads the instruction and the gold (calls, real outputs, values to
tell) and says whether a careful agent would do exactly this. It complements the
deterministic fidelity stages (flow, intent, facts, preference): those match words, the
judge reads meaning.

A small model's single yes/no is close to noise, so the verdict asks concrete questions
first, one per gold call (asked for, or needed for what was asked?) and one per value told
(asked for?), then whether everything asked is done, and only then the overall answer. A
concrete "no" decides the reason even when the overall answer says yes: the per-item
answers are the reliable part. "Something asked is missing" must quote the user's words,
and a quote the gold tells or does is overruled (`done_anyway`). The lists have exactly
one entry per call and per value (the JSON schema says so, so a grammar-constrained
server cannot miscount).

The judge needs the LLM, so it does not run in the synchronous validator pipeline: the
scheduler calls it in the work item, after the verifier accepts a task. When the judge
cannot answer (the endpoint fails, or its answer stays invalid after repairs), the task is
rejected with `judge_unavailable` and the verified task kept in the rejection's `item`:
never accepted unjudged, never lost silently.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache

from pydantic import BaseModel, Field, create_model

from toolscale import prompting
from toolscale.dataflow import value_key
from toolscale.environment import Replay
from toolscale.llm.client import Invalid, LLMClient
from toolscale.matching import Text
from toolscale.reasons import JudgeReason
from toolscale.report import Rejection
from toolscale.schema import Scalar, Schema
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import Tool
from toolscale.trajectory import Trajectory
from toolscale.wording import (
    FIELDS,
    GENERIC,
    INFO_CUES,
    OPERATIONS,
    RELATIVE,
    Request,
    entity_words,
    operation_words,
    schema_entities,
    stem,
    variants,
    words,
)
from validators import replay
from validators.facts import literals

STAGE = "judge"
SYSTEM = (
    "You review examples that teach assistants to use tools. You answer with JSON only, "
    "exactly in the requested schema."
)
OUTPUT_CHARS = 600  # of one call's output in the prompt: a small model reads little well
POLICY_CHARS = 3000
ARGUMENT_CHARS = 300
MISSING_CHARS = 200


class CallCheck(BaseModel):
    tool: str = Field(description="the call's tool name, copied")
    needed: bool = Field(description="asked for, or needed for what was asked")


class ValueCheck(BaseModel):
    name: str = Field(description="the told value's name, copied")
    asked: bool = Field(description="the user asks to be told this value")


class JudgeVerdict(BaseModel):
    """What the judge answers: concrete questions first, the overall answer last."""

    calls: list[CallCheck]
    values: list[ValueCheck]
    missing: str = Field(
        max_length=MISSING_CHARS,
        description="the user's own words asking for what is neither done nor told; empty "
        "if nothing is missing",
    )
    request_fully_done: bool
    reason: str = Field(max_length=400)
    careful_agent_does_exactly_this: bool


def answer_budget(n_calls: int, n_values: int) -> int:
    """Tokens for a verdict at its longest, laid out as a server may lay it out (one field a
    line, indented): 160 + 40 per entry cut 4 verdicts of restaurant and travel short
    inside their reason ("Unterminated string ... line 24"), judge_unavailable twice."""
    return 320 + 48 * (n_calls + n_values)


@cache
def verdict_format(n_calls: int, n_values: int) -> type[JudgeVerdict]:
    """The verdict with exactly one entry per call and per value (the schema's name stays
    `JudgeVerdict`: a server or a fake recognises the stage by it)."""
    model: type[JudgeVerdict] = create_model(
        "JudgeVerdict",
        __base__=JudgeVerdict,
        calls=(list[CallCheck], Field(min_length=n_calls, max_length=n_calls)),
        values=(list[ValueCheck], Field(min_length=n_values, max_length=n_values)),
    )
    return model


@dataclass(frozen=True)
class Step:
    """One gold call as the prompt shows it (numbered from 1)."""

    number: int
    name: str
    kind: str
    description: str
    arguments: str
    output: str
    refused: str | None = None  # the rule's refusal the gold expects (a refusal task)


@dataclass(frozen=True)
class Told:
    """One value to tell, named by the last part of its path (or its call's tool)."""

    name: str
    value: Scalar
    call: int  # numbered from 1, as the steps


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def outputs(gold: Trajectory | Replay) -> list[str]:
    """Each gold call's real output as the agent sees it, in order."""
    if isinstance(gold, Replay):
        return [r.content() for r in gold.results]
    return [m.content or "" for m in gold.messages if m.role == "tool"]


def told_values(task: Task, gold: Trajectory | Replay) -> list[Told]:
    """The values to tell with their real values: resolved from a replay, or the verified
    task's expected outcome beside a trajectory."""
    if isinstance(gold, Replay):
        values = replay.resolve_all(task, gold)
    elif task.expected is not None:
        values = list(task.expected.communicate)
    else:
        raise ValueError(f"task {task.id!r} has no expected outcome: judge verified tasks")
    return [
        Told(ref.path.split(".")[-1] or task.gold_calls[ref.call].name, value, ref.call + 1)
        for ref, value in zip(task.communicate, values, strict=True)
    ]


def steps(spec: EnvironmentSpec, task: Task, gold: Trajectory | Replay) -> list[Step]:
    seen = outputs(gold)
    if len(seen) != len(task.gold_calls):
        raise ValueError(
            f"task {task.id!r}: {len(task.gold_calls)} gold calls but {len(seen)} outputs"
        )
    tools = spec.tool_map()
    out = []
    for i, (call, output) in enumerate(zip(task.gold_calls, seen, strict=True)):
        tool = tools.get(call.name)
        out.append(
            Step(
                number=i + 1,
                name=call.name,
                kind=tool.kind if tool else "unknown",
                description=tool.description.strip() if tool else "",
                arguments=_cut(json.dumps(call.arguments, ensure_ascii=False), ARGUMENT_CHARS),
                output=_cut(output, OUTPUT_CHARS),
                refused=call.expect_error,
            )
        )
    return out


def _level(line: str) -> int:
    """A markdown heading's level; 0 for any other line."""
    return len(line) - len(line.lstrip("#")) if line.startswith("#") else 0


def rules(policy: str) -> str:
    """The policy in words: markdown tables (the tools' prices) are left out, and a heading
    left with nothing under it."""
    lines = [line for line in policy.splitlines() if not line.lstrip().startswith("|")]
    kept: list[str] = []
    for i, line in enumerate(lines):
        level = _level(line)
        if level:
            after = next((x for x in lines[i + 1 :] if x.strip()), "")
            if not after or 0 < _level(after) <= level:  # nothing of its own under it
                continue
        kept.append(line)
    return _cut("\n".join(kept).strip(), POLICY_CHARS)


def prompt(spec: EnvironmentSpec, task: Task, gold: Trajectory | Replay) -> list[dict[str, str]]:
    """The judge's messages: the rules, the user's words and facts, every gold call with its
    real output, and every value to tell."""
    user = prompting.render(
        "validators",
        "judge.j2",
        domain=spec.name.replace("_", " "),
        policy=rules(spec.policy),
        instruction=task.instruction,
        facts=task.known_facts,
        steps=steps(spec, task, gold),
        told=told_values(task, gold),
    )
    return prompting.chat(SYSTEM, user)


def _same_name(said: str, name: str) -> bool:
    return said.strip().strip("`\"'").lower() == name.lower()


def aligned(verdict: JudgeVerdict, task: Task) -> JudgeVerdict:
    """The verdict, if its entries name the calls in order; otherwise Invalid, so the model
    is asked again (a misaligned list would blame the wrong call)."""
    problems = [
        f"calls[{i}].tool is {c.tool!r}, but call {i + 1} is {g.name!r}: one entry per call, "
        "in order"
        for i, (c, g) in enumerate(zip(verdict.calls, task.gold_calls, strict=False))
        if not _same_name(c.tool, g.name)
    ]
    if problems:
        raise Invalid(problems)
    return verdict


def _parts(quote: str) -> list[str]:
    """Each part of a quoted request ("cancel my booking and tell me what is left": cancel
    my booking / tell me what is left)."""
    pieces = re.split(r"[,;!?]|\.(?!\w)|\band\b|\bthen\b|\balso\b", quote, flags=re.I)
    return [piece.strip() for piece in pieces if words(piece)]


_ACTS = frozenset(stem(w) for group in OPERATIONS for w in group)
_ASKS = INFO_CUES - RELATIVE  # "whose seat count is 6" describes
_CUES = frozenset(stem(w) for w in INFO_CUES)


def _names(part: set[str], field: str) -> bool:
    """The part names the field, in its words or their like ("what is left", `balance`)."""
    wanted = [w for w in words(field) if w not in GENERIC]
    return bool(wanted) and all(variants(w, FIELDS) & part for w in wanted)


# "the new address is ...", and "new email is ..." where "and" opened the part (railway on
# a4b9fc9: "... pdixon@yahoo.com and new email is wheelerdebra@example.org")
_DESCRIBED_NEW = re.compile(r"(?:^\s*|\b(?:the|my|our|your|its|their)\s+)new\b", re.I)
_DETERMINED = re.compile(r"\b(?:the|my|our|your|this|that|an?|his|her|their|its)\s+(\w+)", re.I)


def _kinds_named(part: str, entities: set[str]) -> set[str]:
    """Stems of the record kinds the part names after a determiner ("the order")."""
    return {stem(w.casefold()) for w in _DETERMINED.findall(part) if w.casefold() in entities}


def _joined(text: str) -> str:
    """Hyphened words as one ("check-in", "top-up"): "It's for check-in date 2025-04-27"
    asks nothing to be checked (travel-intent-00023 on 277c846)."""
    return re.sub(r"\b([A-Za-z]+)-(in|out|up)\b", r"\1\2", text)


def _within(said: Scalar, value: Scalar) -> bool:
    """A value said is the written one, or a part of its text ("168" of "168 Oak Lane")."""
    text = f"{said:g}" if isinstance(said, float) else str(said)
    return value_key(said) == value_key(value) or (
        isinstance(value, str) and text.casefold() in value.casefold()
    )


def done_anyway(
    missing: str, task: Task, told: list[Told], tools: Mapping[str, Tool], schema: Schema
) -> bool:
    """Whether every part of what the judge quotes as missing is told or done by the gold:
    it names a told value ("the return ID and status", told `return_id` and `status`), or
    asks for a write's operation ("cancel my booking", done by `cancel_booking`). The
    embedded judge's "something is missing" was wrong for 12 of the 15 drafts of two runs
    read by hand, each misreading an output ("the booking is not cancelled yet" beside a
    cancel that returned `cancelled`): its quote is checked against the gold, not
    trusted. An empty quote names nothing missing."""
    entities = schema_entities(schema)
    writes = [
        operation_words(tools[c.name], c.arguments, schema)
        for c in task.gold_calls
        if c.name in tools and tools[c.name].kind == "write" and c.expect_error is None
    ]
    written = [
        v
        for c in task.gold_calls
        if c.name in tools and tools[c.name].kind == "write" and c.expect_error is None
        for v in c.arguments.values()
        if isinstance(v, str | int | float) and not isinstance(v, bool)
    ]
    fields = {stem(w) for t in schema.tables for c in t.columns for w in words(c.name)}
    fields -= {stem(w) for w in GENERIC}
    own = Text(_joined(" ".join([task.instruction, *task.known_facts])))
    wish = Text(_joined(task.preferences.statement if task.preferences else ""))
    for part in _parts(_joined(missing)):
        # not the user's words ("The user never asked for the check-in date"), or their
        # wish about tools: no request of theirs (travel-intent-00015, 00010 on 277c846)
        if not own.mentions(part) or wish.mentions(part):
            continue
        # "the new address is 168 Rodriguez Light" says what a gold write sets, it makes
        # nothing (ecommerce-intent-00000 on 6b0b758, whose gold updated the order's address)
        named = [v for v in written if Text(part).mentions(v)]
        if named and all(any(_within(x, v) for v in named) for x in literals(part)):
            part = _DESCRIBED_NEW.sub(" ", part)
        said = {stem(w) for w in words(part)}
        # "confirm" and "check" also ask to be told; "the order quantity is 40" names an
        # order, it does not order (restaurant-intent-00011 on 277c846)
        acts = said & _ACTS - _CUES - _kinds_named(part, entities)
        if not (acts or _ASKS & set(words(part))):
            continue  # "I'm Deb", "whose seat count is 6": asks for nothing
        if any(_names(said, t.name) for t in told):
            continue
        asked = Request(part)
        if any(asked.requests_any(ops, entities, describes=False) for ops in writes if ops):
            continue
        if told and not acts and not said & fields:
            continue  # "could you please confirm this?", answered by what is told
        return False
    return True


def asked_anyway(value: Told, task: Task, tools: Mapping[str, Tool], schema: Schema) -> bool:
    """Whether a part of the user's words asks for the told value: it has a question's cue,
    names the value's field and the kind of record it is read from ("I want to know the
    current status of the game", told a game's status). The embedded judge answered "not
    asked" of that value in 3 of basketball's refusals on 277c846, its own reason saying
    "The user asks for the status of the game, but ...": a judge's "no" on a value the
    words ask for is not taken. A status of another kind of record still is."""
    tool = tools.get(task.gold_calls[value.call - 1].name)
    table = tool.returned_table() if tool is not None else None
    if table is None or table not in schema.table_names:
        return False
    kind = {stem(w) for w in entity_words(table)}
    for part in _parts(task.instruction):
        said = {stem(w) for w in words(part)}
        if _ASKS & set(words(part)) and _names(said, value.name) and kind & said:
            return True
    return False


def rejection_of(
    verdict: JudgeVerdict,
    task: Task,
    done: Callable[[str], bool] = lambda missing: False,
    asked: Callable[[int], bool] = lambda value: False,
) -> Rejection | None:
    """The verdict as a rejection, or None when the judge accepts. The first concrete "no"
    decides the reason: an unasked call, then an unasked value, then something asked and
    not done (unless `done` finds the judge's own quote of it told or done: then its
    overall "no", the same misreading, is not taken either); a plain overall "no" is
    `judge_rejected`. A value `asked` finds asked for is not taken as unasked. On a
    refusal, the refused call's "not needed" and the whole-request answers are not taken
    (see below)."""

    def reject(reason: JudgeReason, what: str) -> Rejection:
        detail = f"{what}; the judge: {verdict.reason.strip() or '(no reason given)'}"
        return Rejection(stage=STAGE, reason=reason, detail=detail, task_id=task.id)

    # a refusal's refused write is asked for (the intent stage checks it) and leaves the
    # request done once its reason is told; the embedded judge read both as failures in
    # every refusal of a hand-labelled run, so on a refusal only its per-item answers count
    refused = {i for i, c in enumerate(task.gold_calls) if c.expect_error is not None}
    unasked = [i for i, c in enumerate(verdict.calls) if not c.needed and i not in refused]
    if unasked:
        names = ", ".join(f"{i + 1} {task.gold_calls[i].name}" for i in unasked)
        return reject(JudgeReason.JUDGE_UNASKED_CALL, f"call(s) neither asked nor needed: {names}")
    untold = [i for i, v in enumerate(verdict.values) if not v.asked and not asked(i)]
    if untold:
        names = ", ".join(f"{i + 1} {verdict.values[i].name}" for i in untold)
        return reject(JudgeReason.JUDGE_UNASKED_VALUE, f"value(s) not asked for: {names}")
    if refused:
        return None
    if not verdict.request_fully_done:
        if done(verdict.missing):  # its overall "no" is the same misreading
            return None
        said = verdict.missing.strip()
        return reject(
            JudgeReason.JUDGE_MISSING_REQUEST,
            "something asked is neither done nor told" + (f" ({said!r})" if said else ""),
        )
    if not verdict.careful_agent_does_exactly_this:
        return reject(JudgeReason.JUDGE_REJECTED, "a careful agent would not do exactly this")
    return None


async def judge(
    llm: LLMClient,
    spec: EnvironmentSpec,
    task: Task,
    gold: Trajectory | Replay,
    *,
    repairs: int = 1,
    sample: int = 0,
) -> Rejection | None:
    """None when a careful agent would do exactly this; otherwise the rejection, with the
    task in its `item`. `gold` holds the real outputs: the verified task's trajectory, or
    a replay of its calls."""
    n_values = len(task.communicate)
    outcome = await llm.structured(
        prompt(spec, task, gold),
        verdict_format(len(task.gold_calls), n_values),
        stage=STAGE,
        check=lambda v: aligned(v, task),
        last_check=lambda v: v,  # positions still say which call is meant
        repairs=repairs,
        sample=sample,
        temperature=0.0,
        max_tokens=answer_budget(len(task.gold_calls), n_values),
    )
    if outcome.value is not None:
        told = told_values(task, gold)
        found = rejection_of(
            outcome.value,
            task,
            lambda missing: done_anyway(missing, task, told, spec.tool_map(), spec.schema_),
            lambda i: asked_anyway(told[i], task, spec.tool_map(), spec.schema_),
        )
    else:
        failed = outcome.rejection
        why = f"{failed.reason}: {failed.detail}" if failed else "no answer"
        found = Rejection(
            stage=STAGE,
            reason=JudgeReason.JUDGE_UNAVAILABLE,
            detail=f"the judge gave no verdict ({why})",
            task_id=task.id,
        )
    if found is not None:
        found.item = task.model_dump(mode="json", exclude_none=True)
    return found
