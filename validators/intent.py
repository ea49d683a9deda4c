"""Stage `intent`: the instruction asks for what the gold does, and the gold does what the
instruction asks. Every write is asked for (its operation is said: the new status, or the
tool's own verb); every value the user is told was asked for (a request for information
about that field or that entity, not another one's); and a question asked is answered
(asked about a field of rows the gold read, the field is told, for each row when the user
says each or all). Wording is matched by `toolscale.wording`; what it cannot settle is
left to the judge.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Set
from dataclasses import dataclass

from toolscale.dataflow import (
    output_rows,
    own_key,
    shown_values,
    stale_told,
    told_of_records,
    value_key,
)
from toolscale.environment import Replay
from toolscale.matching import Text, day_of, numbers, same_number, scalars, tokens
from toolscale.reasons import IntentReason
from toolscale.report import Rejection
from toolscale.schema import Scalar, Schema
from toolscale.task import OutputRef, Task
from toolscale.tool import Tool, finders, reads_from
from toolscale.wording import (
    ACT_WORDS,
    FIELDS,
    GENERIC,
    INFO_CUES,
    OPERATIONS,
    SUPERLATIVES,
    Request,
    asks_left_of_count,
    assistant_voiced,
    closed_choices,
    dangling_reference,
    entity_words,
    greets_a_name,
    names_operation,
    names_state,
    narrated,
    operation_words,
    record_phrase,
    same_field,
    schema_entities,
    sentences,
    singular,
    spelled,
    stem,
    tables_of,
    third_person,
    variants,
    with_article,
    without_name_new,
    words,
)
from validators.facts import (
    EMAIL,
    STATES,
    SeedFacts,
    asker,
    day_at,
    literals,
    phrase,
    without_own_name,
)
from validators.replay import resolve_all
from validators.stage import TaskContext

STAGE = "intent"


def _field(ref: OutputRef) -> str:
    parts = [p for p in ref.path.split(".") if p and not p.lstrip("-").isdigit()]
    return parts[-1] if parts else ""


def unidentified_user(task: Task, tools: dict[str, Tool], schema: Schema) -> str | None:
    """The first write comes before any find of the person who asks (by email, phone or
    name) and before any call naming them by their own id, where the people have an email
    and a tool finds them: the policy has the agent identify the user first, and a gold
    that acts on a record by its id alone teaches it not to (finance set a transfer pending
    by the transfer's id, never asking who the user was)."""
    people = schema.people()
    if people is None or people.email_column() is None:
        return None
    finds = {t.name for t in finders(list(tools.values())) if reads_from(t) == people.name}
    if not finds:
        return None
    key = people.primary_key[0] if len(people.primary_key) == 1 else None
    for i, call in enumerate(task.gold_calls):
        if call.name in finds or (key is not None and call.arguments.get(key) is not None):
            return None  # found, or named by their own id ("I am member 101")
        if tools[call.name].kind == "write":
            found = " or ".join(sorted(finds))
            return f"gold call {i} {call.key()} writes before the user is found ({found})"
    return None


# how a person says who they are: "I'm Katherine", "this is Katherine Schmidt"
_INTRODUCES = re.compile(
    r"\b(?:I'm|I am|this is|my (?:first |last |full )?name is|name's|it's|it is|named|called)\s+$",
    re.I,
)
# ... or "Katherine here", "Daniel Okafor speaking", "Kenji Sato, kenji.sato@example.com"
_INTRODUCED = re.compile(r"\s+(?:here|speaking)\b|,?\s*\(?[\w.+-]+@")
# the user's name opening a message and calling on someone: "Katherine, please ..."
_CALLED_ON = re.compile(r",\s+(?:please|can|could|would|will|I)\b", re.I)


def of_the_user(fact: str, user: str) -> str | None:
    """A known fact that names the user's record as a stranger's: finance-intent-00018 on
    5cf74c2 knew "The client's account is active" and "Ldominguez@hotmail.com is the email
    of the client", its user a client. The user simulator says what it knows as "my"."""
    noun = re.escape(user.replace("_", " "))
    m = re.search(rf"\bthe {noun}(?:'s|’s)|\bof the {noun}\b", fact, re.I)
    return m.group() if m else None


def named_self(task: Task, schema: Schema, replay: Replay, seed: SeedFacts) -> str | None:
    """The user called by their own first name (or handle) as someone else would: school's
    "Sure, Katherine! I'd be happy to activate the course" (an assistant's reply) and
    "deactivate the New Melissaberg Course for Katherine" from Katherine herself. A person
    names themselves to say who they are, in a header ("Kenji Sato, kenji.sato@example.com.")
    or a signature ("Thanks, Katherine"). A name inside another one (the user Marcus and the
    "North Marcus Course") is that record's."""
    people = schema.people()
    row = asker(replay, seed)
    email = people.email_column() if people is not None else None
    if email is None or row is None:
        return None  # basketball's teams ask through a manager, and a team's name is no one's
    own = {w for k, v in row.items() if "name" in k and isinstance(v, str) for w in v.split()}
    first = next((row[k].split()[0] for k in _PERSON_NAMES if _names(row.get(k))), None)
    # weather's forecasters have an email and no name: "... to the North Pole, Victor." from
    # victor.randolph@yahoo.com, "jsimon, can you please update my email" from jsimon@...
    handle = str(row.get(email) or "").split("@")[0]
    called = [first] if first is not None and len(first) >= 3 else []
    called += [handle] if re.fullmatch(r"[a-z]{3,}\d*", handle, re.I) else []
    called += [p for p in re.split(r"[._\d-]+", handle) if len(p) >= 3][:1] if not own else []
    text = task.instruction
    # "my passenger profile, Alan@gmail.com": an email's own name (railway on a4b9fc9)
    emails = [e.span() for e in EMAIL.finditer(text)]
    for name in dict.fromkeys(called):
        for m in re.finditer(rf"\b{re.escape(name)}\b", text, 0 if name == first else re.I):
            if any(a <= m.start() < b for a, b in emails):
                continue
            span = _name_span(text, m.start(), m.end(), own | {m.group()})
            if span is None:  # "North Marcus Course"
                continue
            before, after = text[: span[0]], text[span[1] :]
            if _INTRODUCES.search(before) or _INTRODUCED.match(after):
                continue
            if not before.strip() and not _CALLED_ON.match(after):
                continue  # a header: "Kenji Sato. I lost my card"
            if re.match(r"\s*[.!]?\s*$", after) and _SIGNED.search(before):
                continue  # a signature: "... Thank you, Katherine."
            said = text[max(0, span[0] - 20) : span[1] + 1].strip()
            return (
                f"the instruction calls the user by their own name ({said!r}), as someone "
                "else would"
            )
    return None


# what a signature follows: a closing word, a sentence's end or a dash ("Thanks, Katherine",
# "... my card. Katherine", "- Katherine"); not a request's comma ("... to the North Pole,
# Victor.", weather-intent-00029 on 706f9af)
_SIGNED = re.compile(
    r"(?:\b(?:thanks|thank you|regards|best|cheers|sincerely|best wishes|yours(?: truly)?|"
    r"respectfully|warmly)\s*[,-]|[.!?]\s*[-\u2014]?|\s[-\u2014])\s*$",
    re.I,
)


_PERSON_NAMES = ("first_name", "given_name", "name", "full_name")
# capitalised words that open a sentence or greet, beside a name
_NOT_NAMES = {"Hi", "Hello", "Hey", "Dear", "Sure", "Thanks", "Please", "I", "The", "For"}


def _names(value: object) -> bool:
    return isinstance(value, str) and bool(value.split())


def _name_span(text: str, start: int, end: int, own: set[str]) -> tuple[int, int] | None:
    """Where the user's name around text[start:end] begins and ends, or None where the word
    is part of another capitalised name."""
    while m := re.search(r"([A-Z][\w-]*)\s+$", text[:start]):
        if m.group(1) in _NOT_NAMES:
            break
        if m.group(1) not in own:
            return None
        start = m.start()
    while m := re.match(r"\s+([A-Z][\w-]*)", text[end:]):
        if m.group(1) in _NOT_NAMES:
            break
        if m.group(1) not in own:
            return None
        end += m.end()
    return start, end


# "to 29", "to the amount of 39" (restaurant's "top up my order to the amount of 39")
_TO_NUMBER = re.compile(
    r"(?<!\bup )\bto\s+(?:(?:the|a|an) (?:amount|total|quantity) of\s+)?\$?"
    r"(\d[\d,]*(?:\.\d+)?)(?!\d|\.\d|%)",
    re.I,
)


def _by_as_to(instruction: str, tool: Tool, arguments: dict, others: set[object]) -> str | None:
    """A write that changes a column by an amount, asked for as a change to that amount:
    ecommerce-intent-00017 "reduce the quantity of my order item from 4 to 29", whose gold
    reduced it by 29, and restaurant's "top up my order to the amount of 39"; or from one
    number to another that it does not differ by. An amount another write of the gold sets
    is that write's."""
    for column, param, _ in tool.adjustments():
        amount = arguments.get(param)
        if not isinstance(amount, int | float) or isinstance(amount, bool):
            continue
        if value_key(amount) in others:
            continue
        for said in _TO_NUMBER.finditer(instruction):
            if float(said.group(1).replace(",", "")) == float(amount):
                return (
                    f"changes {column} by {amount:g}; the instruction asks for it "
                    f"{said.group().strip()!r}"
                )
        col = spelled(column)
        for said in _FROM_TO.finditer(instruction):
            named = re.search(rf"\b{col}\b", instruction[max(0, said.start() - 60) : said.start()])
            start, end = (float(g.replace(",", "")) for g in said.groups())
            if named and abs(end - start) != abs(float(amount)):
                return (
                    f"changes {column} by {amount:g}; the instruction asks for it "
                    f"{said.group().strip()!r}"
                )
    return None


# ecommerce-intent-00032 on 8d65db4: "reduce the quantity of my open return ... from 18 to
# 16", whose gold reduced it by 20
_FROM_TO = re.compile(
    r"\bfrom\s+\$?(\d[\d,]*(?:\.\d+)?)\s+to\s+\$?(\d[\d,]*(?:\.\d+)?)(?!\d|\.\d|%|-)", re.I
)


_NUMBER = re.compile(r"(?<![\w.])\$?(\d(?:[\d,]*\d)?(?:\.\d+)?)(?![\w%]|\.\d)")


def _as_column(text: str, start: int, end: int, column: str) -> bool:
    """The number at text[start:end] is said as the column's value: "the quantity of my
    order is 27", "27, which is the quantity of my order", "the current quantity of 38";
    "a quantity of 5" is an amount."""
    col = spelled(column)
    before = re.compile(
        rf"(?<!\ba )(?<!\ban )\b{col}(?:\s+of\s+(?:\w+\s+){{0,3}}?\w+)?\s*"
        rf"(?:is|was|stands at|of|:|=)\s*(?:currently\s+|now\s+)?\$?$",
        re.I,
    )
    after = re.compile(
        rf"^\s*,?\s*(?:which|that)\s+(?:is|was)\s+(?:the|my|its|their|our)\s+"
        rf"(?:\w+\s+){{0,2}}?{col}\b",
        re.I,
    )
    # finance-intent-00445 on 2a7fb38: "my active loan, which is currently outstanding at
    # 37978.35", the column `outstanding_balance` said by its first word
    head = column.split("_")[0]
    at = re.compile(rf"\b{re.escape(head)}\s+at\s*\$?$", re.I)
    said_at = "_" in column and len(head) > 3 and bool(at.search(text[:start]))
    return bool(before.search(text[:start]) or after.search(text[end:]) or said_at)


# words of a column that holds money: anything else (a quantity, seats, points) counts
_MONEY = frozenset(
    {
        *("price", "cost", "amount", "balance", "fee", "fare", "salary", "total", "budget"),
        *("credit", "funds", "payment", "charge", "spend", "limit", "deposit", "refund"),
        *("wage", "pay", "revenue", "value", "money"),
    }
)


def _counts(column: str, schema: Schema) -> bool:
    """The column counts things, not money: whole numbers, named by no word of money."""
    kinds = {c.type for t in schema.tables for c in t.columns if c.name == column}
    return kinds == {"integer"} and not set(words(column)) & _MONEY


def _as_money(text: str, number: re.Match[str]) -> bool:
    """The number is said as money: "$27", "27 dollars", "27 USD"."""
    after = text[number.end() : number.end() + 12]
    return number.group().startswith("$") or bool(
        re.match(r"\s*(?:dollars?|usd|bucks|euros?|eur)\b", after, re.I)
    )


def _said_as(texts: list[str], amount: int | float) -> list[tuple[str, re.Match[str]]]:
    """Each number of the texts equal to the amount, with the text it stands in."""
    return [
        (text, m)
        for text in texts
        for m in _NUMBER.finditer(text)
        if float(m.group(1).replace(",", "")) == float(amount)
    ]


def _amount_as_column(texts: list[str], tool: Tool, arguments: dict, schema: Schema) -> str | None:
    """A write that changes a column by an amount said only as that column's value:
    restaurant-intent-00068 on ec28a14, "top up my reservation for 27, which is the
    quantity of my order" (fact: "The quantity of my order is 27"), whose gold added 27 to
    the 27. What to add is never said; what the order holds is. Nor is a count topped up
    by money: "top up $27 to my order" added 27 to its quantity (restaurant-intent-00068
    on 277c846)."""
    for column, param, _ in tool.adjustments():
        amount = arguments.get(param)
        if not isinstance(amount, int | float) or isinstance(amount, bool):
            continue
        said = _said_as(texts, amount)
        counted = _counts(column, schema)
        if said and counted and all(_as_money(text, m) for text, m in said):
            text, m = said[0]
            return (
                f"changes {column} by {amount:g}; the instruction asks for money "
                f"({m.group().strip()!r}), and {column} counts no money"
            )
        if said and all(_as_column(text, m.start(), m.end(), column) for text, m in said):
            text, m = said[0]
            around = text[max(0, m.start() - 40) : m.end() + 40].strip()
            return (
                f"changes {column} by {amount:g}; {amount:g} is said only as the {column} "
                f"it holds ({around!r}), never as what to add or take off"
            )
    return None


def _count_as_label(texts: list[str], tool: Tool, arguments: dict, schema: Schema) -> str | None:
    """A count a write takes said only as a record's number: ecommerce-intent-00081 on
    c7c1c76, "I want to return item 27 for my order", whose gold returned a quantity of 27
    of the one item bought. "item 27" names an item; how many to return is never said."""
    # "item" is a generic word elsewhere; here it names order_items' records
    kinds = {v for t in schema.tables for w in words(t.name) for v in (w, singular(w))}
    # ... not said as a verb: "I want to return 27 of them", "please order 27"
    label = re.compile(
        rf"(?<!\bto )(?<!\bplease )(?<!\bI )(?<!\byou )"
        rf"\b(?:{'|'.join(map(re.escape, sorted(kinds)))})\s*(?:#|no\.|number)?\s*$",
        re.I,
    )
    keys = {
        c
        for t in schema.tables
        for c in [*t.primary_key, *(c for fk in t.foreign_keys for c in fk.columns)]
    }
    for param, amount in arguments.items():
        if param in keys or not _counts(param, schema):
            continue
        if isinstance(amount, bool) or not isinstance(amount, int):
            continue
        said = [(text, m) for text, m in _said_as(texts, amount) if not m.group().startswith("$")]
        if said and all(label.search(text[: m.start()]) for text, m in said):
            text, m = said[0]
            around = text[max(0, m.start() - 30) : m.end() + 10].strip()
            return (
                f"takes {param}={amount}, said only as a record's number ({around!r}), "
                f"never as how many"
            )
    return None


_WANTS_TO = re.compile(
    r"\b(?:(?:want|wanted|wants|like|need|needed|wish|trying|try|tried|going|able)\s+to|"
    # ecommerce-intent-00011 on 277c846: "Can you help me return this order?"
    r"help me|please|(?:can|could|would) you)(?:\s+please)?(?:\s+help me)?(?:\s+to)?"
    r"\s+(\w+)",
    re.I,
)


def said_as_verb(text: str, tool: Tool) -> str | None:
    """The words wanting the new record's kind done as a verb, if the text has them: "an
    order ... that I wanted to return" asks for a return (ecommerce-intent-00003, whose
    `create_return` was rejected for never saying 'create'); "like to book" asks for a
    booking."""
    made = {stem(singular(table.casefold())) for table in tool.inserts()}
    said = next((m for m in _WANTS_TO.finditer(text) if stem(m.group(1).casefold()) in made), None)
    return said.group() if said else None


# weather-intent-00012 on aedf9df, "I want you to send an alert for watch on House
# Antarctica ...", was unasked_write of create_alert: a record sent or filed is made
_ISSUED = re.compile(
    r"\b(?:send|issue|post|raise|file|submit|lodge|log|put (?:in|out))\s+"
    r"(?:(?:a|an|one|new|another)\s+){0,2}(\w+)",
    re.I,
)


def said_as_issued(text: str, tool: Tool) -> str | None:
    """The words sending or filing a record of the new one's kind ("send an alert", "file
    a claim"), if the text has them."""
    made = {stem(singular(table.casefold())) for table in tool.inserts()}
    said = next((m for m in _ISSUED.finditer(text) if stem(m.group(1).casefold()) in made), None)
    return said.group() if said else None


_MAKING = next(group for group in OPERATIONS if "create" in group)
_WHEN = {"at", "on", "from", "by", "until", "time", "date", "day"}


def other_kind_asked(request: Request, tool: Tool, tools: dict[str, Tool]) -> str | None:
    """Every act of making said is of another kind, one another tool makes: medicine's "I
    need to schedule an appointment for Royal Migraine Pills" whose gold made a prescription
    (create_appointment makes appointments); travel-intent-00040 on 00fbd03, "I just booked
    a hotel stay ... and I want to add a flight booking with 20 bags", whose gold made the
    hotel booking. An act followed by no kind, or by a word both kinds share ("booking"),
    may be of this one."""
    made = set(tool.inserts())
    # a maker that also takes a seat (create_flight_booking on 00fbd03) makes one all the same
    others = {t for other in tools.values() for t in other.inserts()} - made

    mine = set().union(*map(entity_words, made))  # entity_words holds singulars too
    theirs = set().union(*map(entity_words, others))
    only_mine, only_theirs = mine - theirs, theirs - mine
    toks = request.tokens
    asked: tuple[str, str, str] | None = None  # (act, the other kind's word, its table)
    for k, word in enumerate(toks):
        if word not in _MAKING:
            continue
        after = [singular(a) for a in toks[k + 1 : k + 4]]
        if after and (after[0] in _WHEN or re.fullmatch(r"(?:19|20)\d\d", after[0])):
            continue  # "the alert will start at 13:50": a moment, no making (00138 on 6accfa9)
        said = next((a for a in after if a in only_theirs), None)
        if said is None or any(a in only_mine for a in after):
            return None  # an act that may be of this kind
        kind = next(t for t in others if said in entity_words(t))
        asked = asked or (word, said, kind)
    if asked is None:
        return None
    word, after_word, kind = asked
    maker = next(o.name for o in tools.values() if kind in o.inserts())
    kind_made = record_phrase(sorted(made)[0]) if made else "record"
    return (
        f"creates a new {kind_made}; the instruction asks to {word} a {after_word}, "
        f"which {maker} makes"
    )


# where the thing an act is done to ends: "move my enrollment to the course ...", "activate
# the enrollment for the course ..."
_OBJECT_ENDS = frozenset(
    ("to", "into", "onto", "for", "on", "in", "at", "with", "from", "of", "by", "under")
)


def other_kind_changed(
    request: Request, tool: Tool, said: list[str], schema: Schema, served: Set[str] = frozenset()
) -> str | None:
    """Every time the write's act is said, it is said of another kind of record:
    school-intent-00023 on 6accfa9, "I would like to activate the enrollment for the course
    named South Eric Course", whose gold activated a grade. The thing acted on is read from
    the act to the end of its clause or the first preposition ("move my enrollment to the
    course" moves an enrollment). An act followed by no kind ("get it frozen, my account
    was ..."), or by one the write changes, may be this write's; so may one said of a kind
    the write's parameters point to, or that another gold write changes (`served`):
    school-intent-00065's "deactivate the course ... and the active grade" asks for both."""
    changed = tool.updated_tables()
    if not changed:
        return None
    changed += [t for t in tool.inserts() if t not in changed]  # a ticket that takes a seat
    mine = set().union(*map(entity_words, changed))
    pointed = {singular(w) for p in tool.param_types() for w in words(p)}
    theirs = schema_entities(schema) - mine
    acts = frozenset().union(*(variants(w) for w in said if w not in GENERIC))
    asked: tuple[str, str] | None = None  # (the act, the other kind's word)
    for clause in re.split(r"[.,;:!?]+", without_name_new(request.text)):
        toks = tokens(clause)
        for k, word in enumerate(toks):
            if stem(word) not in acts or word in theirs:
                continue
            after = []
            for a in toks[k + 1 :]:
                if a in _OBJECT_ENDS:
                    break
                after.append(singular(a))
            kind = next((a for a in after if a in theirs), None)
            if kind is None or any(a in mine for a in after):
                return None
            if kind not in served and kind not in pointed:
                asked = asked or (word, kind)
    if asked is None:
        return None
    return (
        f"changes {with_article(record_phrase(changed[0]))}; the instruction's {asked[0]!r} "
        f"is said of {with_article(asked[1])}"
    )


# thanks for an act is no request for it: medicine's "Thank you for creating an appointment
# for March 20, 2025 ..." opened a conversation as if the booking were made
_THANKED = re.compile(r"\bthank(?:s| you)(?: so much| very much)? for [^.!?]*", re.I)
# an act the user will do later asks for none now: restaurant-intent-00050 on 530f5cd, "tell
# me the status of my current reservation before I move it to House Table 8", whose gold
# made the move ("before I can withdraw" wants the value first: asked_before_told_after)
_LATER_ACT = re.compile(r"\bbefore (?:I|we) (?!can\b|could\b|may\b)[^.!?]*", re.I)


def unasked_write(task: Task, tools: dict[str, Tool], schema: Schema) -> str | None:
    request = Request(_LATER_ACT.sub(" ", _THANKED.sub(" ", task.instruction)))
    entities = schema_entities(schema)
    columns = frozenset(c.name.casefold() for t in schema.tables for c in t.columns)
    for i, call in enumerate(task.gold_calls):
        tool = tools[call.name]
        if tool.kind != "write":
            continue
        # "raise its limit to $3000" beside a transfer of $3000: the value another write sets
        others = {
            value_key(v)
            for j, c in enumerate(task.gold_calls)
            if j != i and tools[c.name].kind == "write"
            for v in c.arguments.values()
        }
        if (by := _by_as_to(task.instruction, tool, call.arguments, others)) is not None:
            return f"gold call {i} {call.key()} {by}"
        texts = [task.instruction, *task.known_facts]
        if (own := _amount_as_column(texts, tool, call.arguments, schema)) is not None:
            return f"gold call {i} {call.key()} {own}"
        if (own := _count_as_label(texts, tool, call.arguments, schema)) is not None:
            return f"gold call {i} {call.key()} {own}"
        said = operation_words(tool, call.arguments, schema)
        # a new record is described by its kind ("open a checking account"), an existing
        # one is not changed by saying what it already is ("my pending transfer"); the kind
        # of a new record is not enough, the act is asked for too
        named = words(tool.name)
        act = named[0] if named and named[0] not in GENERIC else "create"
        if tool.creates and (other := other_kind_asked(request, tool, tools)):
            return f"gold call {i} {call.key()} {other}"
        if tool.creates and (
            said_as_verb(task.instruction, tool) or said_as_issued(task.instruction, tool)
        ):
            continue
        if tool.creates and not request.requests(act, entities, describes=False):
            return (
                f"gold call {i} {call.key()} creates a record the instruction does not ask "
                f"for (it never says {act!r} or its like)"
            )
        if said and not request.requests_any(
            said, entities, describes=not tool.creates, fields=columns
        ):
            how = "as a change" if request.says_any(said) else ""
            return (
                f"gold call {i} {call.key()} is a write the instruction does not ask for "
                f"(it says none of: {', '.join(said)}{' ' + how if how else ''})"
            )
        served = {
            w
            for j, c in enumerate(task.gold_calls)
            if j != i
            for t in tools[c.name].updated_tables() + tools[c.name].inserts()
            for w in entity_words(t)
        }
        if not tool.creates and (other := other_kind_changed(request, tool, said, schema, served)):
            return f"gold call {i} {call.key()} {other}"
    return None


@dataclass(frozen=True)
class Target:
    """A record a write touches: the argument that names it, and the table it is of."""

    call: int
    param: str
    value: object
    table: str


def targets(task: Task, tools: dict[str, Tool], schema: Schema, seed: SeedFacts) -> list[Target]:
    """Per write, the arguments whose value is a key of a record of the table the write is
    about (`card_id` of `freeze_card`, both accounts of a transfer)."""
    out = []
    for i, call in enumerate(task.gold_calls):
        tool = tools[call.name]
        if tool.kind != "write":
            continue
        closed = closed_choices(tool)
        for table in tables_of(tool, schema):
            keys = seed.keys.get(table, frozenset())
            for param, value in call.arguments.items():
                if param not in closed and value is not None and value_key(value) in keys:
                    out.append(Target(i, param, value, table))
    return out


def _outputs_of(value: object, replay: Replay, before: int) -> list[int]:
    """The calls before `before` whose output holds `value`: first those that show it as
    what a row is (its key or a column), then those that only point to it (the trip of one
    of the tickets listed). travel-intent-00030 on d7b1bec was rejected for a hotel id one
    of its listed bookings pointed to, where the find of the hotel the user named gave it."""
    key = value_key(value)
    ok = [j for j in range(before) if replay.results[j].ok]
    shown = [j for j in ok if key in map(value_key, shown_values(replay.results[j].output))]
    held = [j for j in ok if key in map(value_key, scalars(replay.results[j].output))]
    return [*shown, *(j for j in held if j not in shown)]


def _first_output(value: object, replay: Replay, before: int) -> int | None:
    return next(iter(_outputs_of(value, replay, before)), None)


def _picked(rows: list[dict], value: object, said: Text) -> bool:
    """Something the user says tells the row holding `value` apart from the others."""
    key = value_key(value)
    row = next(r for r in rows if any(value_key(v) == key for v in r.values()))
    for column, cell in row.items():
        if cell is None or isinstance(cell, bool) or value_key(cell) == key:
            continue
        if said.mentions(cell) and sum(r.get(column) == cell for r in rows) < len(rows):
            return True
        day = day_of(cell)  # "my order from 2024-05-27" of one placed at 21:40 that day
        if day and said.mentions(day) and sum(day_of(r.get(column)) == day for r in rows) == 1:
            return True
    return False


def _named(target: Target, replay: Replay, asked: Text, seed: SeedFacts) -> bool:
    """The record is named by a text of its own row that no category holds: basketball's
    "Can you please suspend Gary Gallegos?" names the player whose row (listed by an
    earlier call) has that name, though it never says "player". Not the asker's own record:
    their email identifies them, it names no record to change; nor the name they give as
    their own ("Hi! I'm Shannon Sparks. I want to deactivate my account", from a team's
    email, of its player Shannon Sparks: basketball-intent-00044 on 277c846)."""
    source = _first_output(target.value, replay, target.call)
    if source is None:
        return False
    key = value_key(target.value)
    output = replay.results[source].output
    rows = output if isinstance(output, list) else [output]
    row = next(
        (r for r in rows if isinstance(r, dict) and any(value_key(v) == key for v in r.values())),
        None,
    )
    if row is None:
        return False
    kinds = seed.categories.get(target.table, frozenset())
    return any(
        isinstance(cell, str)
        and any(ch.isalpha() for ch in cell)
        and phrase(cell) not in kinds
        and asked.mentions(cell)
        for cell in row.values()
    ) or any(
        _described(asked.text, column, cell)
        for column, cell in row.items()
        if value_key(cell) != key and isinstance(cell, int | float) and not isinstance(cell, bool)
    )


def _described(text: str, column: str, value: int | float) -> bool:
    """A word of the column just before its value: "from a party of 2 to a party of 5"
    describes the reservations by `party_size` (restaurant-intent-00060 on 277c846, whose
    move was rejected as never naming the reservation it goes to)."""
    own = [w for w in words(column) if w not in GENERIC]
    number = re.escape(f"{value:g}")
    return any(
        re.search(rf"\b{re.escape(w)}\w*(?:\s+\w+){{0,2}}?\s+{number}(?!\d|\.\d)", text, re.I)
        for w in own
    )


def unasked_target(
    task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay, seed: SeedFacts
) -> str | None:
    """Every record a write touches is the one the user means: its kind is named (the table,
    a column the write sets, the record itself or one of its categories); a record the user
    states is not one they did not name beside one they did; a record found in a listing is
    told apart from the listing's other rows by what the user says."""
    request = Request(task.instruction)
    asked = Text(task.instruction)
    said = Text(task.user_text())
    every = request.asks_for_each or bool(SUPERLATIVES & set(request.tokens))
    people = schema.people()
    found = targets(task, tools, schema, seed)
    if ends := _SAME_ENDS.search(task.instruction):  # "from my ACC-53486 account to my ACC-53486"
        for index in sorted({t.call for t in found}):
            mine = [t for t in found if t.call == index]
            tables = [t.table for t in mine]
            twice = [t for t in mine if tables.count(t.table) > 1]
            if len({value_key(t.value) for t in twice}) > 1:
                return (
                    f"gold call {index} {task.gold_calls[index].key()}: the instruction names "
                    f"{ends.group(1)} at both ends, the gold uses two records"
                )
    for target in found:
        call = task.gold_calls[target.call]
        where = f"gold call {target.call} {call.key()}"
        # "update my email": a person's own record is named by what is set on it
        person = people is not None and target.table == people.name
        setting = {w for p in call.arguments if p != target.param for w in words(p)} - GENERIC
        # "withdraw 43 loyalty points from my profile": `amount` names nothing, the column
        # it changes and "my profile" do (5 of movie's 49 drafts were rejected without)
        tool = tools[call.name]
        setting |= {w for c in tool.assigned(target.table) for w in words(c)} - GENERIC
        # "change my address" of `update_client_address`, which sets street, city and code
        setting |= {w for w in words(call.name) if w not in ACT_WORDS} - GENERIC
        setting = _own_words(setting, target.table, schema, request) if person else set()
        if person and _MY_PROFILE.search(task.instruction):
            continue
        _, categories = seed.records.get(value_key(target.value), ("", frozenset()))
        if not (
            request.says_any(entity_words(target.table) | setting, FIELDS)
            or asked.mentions(target.value)
            or any(
                asked.mentions(c)
                and not _of_another_kind(task.instruction, c, target.table, schema)
                for c in categories
            )
            or (
                not person
                and _named(target, replay, Text(without_own_name(task.instruction)), seed)
            )
        ):
            return f"{where}: the instruction never names the {singular(target.table)} it changes"
        if said.mentions(target.value):
            named = [
                k
                for k in literal_keys(task.instruction, seed.keys.get(target.table, frozenset()))
                if value_key(k) != value_key(target.value)
            ]
            if named and not asked.mentions(target.value):
                return (
                    f"{where}: the instruction names {singular(target.table)} {named[0]}, not "
                    f"{target.value}"
                )
            continue
        if not every and (among := _one_of_many(target.value, target.call, replay, said)):
            return f"{where}: {target.param}={target.value!r} {among}"
    return None if every else _unpicked_reference(task, tools, replay, seed, found)


def _of_another_kind(text: str, category: str, table: str, schema: Schema) -> bool:
    """Every time the category is said, a record of another kind follows it: "the active
    enrollment" names no active grade (school-intent-00002 on 0fd2081)."""
    own = entity_words(table)
    others = {w for t in schema.tables if t.name != table for w in entity_words(t.name)} - own
    found = list(re.finditer(rf"\b{re.escape(category)}\s+(\w+)", text, re.I))
    return bool(found) and all(m.group(1).casefold() in others for m in found)


def _own_words(setting: set[str], table: str, schema: Schema, request: Request) -> set[str]:
    """The words of what a write sets that name the person's own record: not a state it
    sets ("suspended" says what, not whose), nor a column another kind the request names
    has too. Ecommerce-intent-00001 on c1da9aa, "update my order shipping address and set
    the status to 'suspended'", suspended the customer: the status read is the order's."""
    own = schema.table(table)
    states = {w for c in own.columns for v in own.enum_values(c.name) or [] for w in words(v)}
    named = [
        t
        for t in schema.tables
        if t.name != table and request.says_any(entity_words(t.name) - entity_words(table), FIELDS)
    ]
    shared = {w for t in named for c in t.columns for w in words(c.name)}
    return setting - states - shared


def _one_of_many(value: object, call: int, replay: Replay, said: Text) -> str | None:
    """Where `value` was picked from a listing of several rows before gold call `call`, and
    nothing the user says tells its row apart: how to say so."""
    source = _first_output(value, replay, call)
    if source is None:
        return None
    output = replay.results[source].output
    rows = [r for r in output if isinstance(r, dict)] if isinstance(output, list) else []
    if len(rows) > 1 and not _picked(rows, value, said):
        return (
            f"is one of {len(rows)} rows of gold call {source}, and nothing the user says "
            "tells it apart"
        )
    return None


def unlisted_twin(
    task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay, seed: SeedFacts
) -> str | None:
    """A record picked from a listing by one of two keys to the same table, where the user's
    words fit a record the other key holds, which no call lists: basketball-intent-00057 on
    31bc8d2, "a ticket for Mathew Fletcher's game on July 13th", picked among the team's
    home games, while the team also played away that day. The agent cannot tell which."""
    said = Text(task.user_text())
    for i, call in enumerate(task.gold_calls):
        if tools[call.name].kind != "write":
            continue
        for param, value in call.arguments.items():
            source = _first_output(value, replay, i) if value is not None else None
            if source is None or isinstance(value, bool):
                continue
            read = task.gold_calls[source]
            table = tools[read.name].returned_table() if read.name in tools else None
            if table not in seed.two_way:
                continue
            keys = schema.table(table).foreign_keys
            for by, arg in read.arguments.items():
                ref = next((fk.ref_table for fk in keys if fk.columns == [by]), None)
                others = [
                    fk.columns[0]
                    for fk in keys
                    if fk.ref_table == ref and fk.columns != [by] and len(fk.columns) == 1
                ]
                listed = [
                    other
                    for c in task.gold_calls
                    for other in others
                    if c.arguments.get(other) == arg
                ]
                # "my home game" says which of the two keys holds the user
                side = set(words(by)) - entity_words(ref or "") - GENERIC - {"id"}
                if ref is None or not others or listed or Request(task.instruction).says_any(side):
                    continue
                output = replay.results[source].output
                rows = (
                    [r for r in output if isinstance(r, dict)] if isinstance(output, list) else []
                )
                twins = [
                    r
                    for r in seed.two_way[table]
                    if any(r.get(o) == arg for o in others) and r.get(by) != arg
                ]
                if not twins or not rows or (len(rows) > 1 and not _picked(rows, value, said)):
                    continue
                fit = [r for r in twins if _fits_as_well(r, rows, value, said)]
                if fit:
                    other = next(o for o in others if fit[0].get(o) == arg)
                    return (
                        f"gold call {i} {call.key()}: {param}={value!r} is picked among the "
                        f"rows of gold call {source} ({by}={arg!r}); the user's words fit as "
                        f"well {with_article(singular(table))} whose {other} is {arg!r}, which "
                        "no call lists"
                    )
    return None


def _fits_as_well(twin: dict, rows: list[dict], value: object, said: Text) -> bool:
    """Every value the user says of the row holding `value` (its day, its status) the
    twin holds too: what told the row apart does not tell it from the twin."""
    key = value_key(value)
    row = next(r for r in rows if any(value_key(v) == key for v in r.values()))
    shared = 0
    for column, cell in row.items():
        if cell is None or isinstance(cell, bool) or value_key(cell) == key:
            continue
        day = day_of(cell)
        if said.mentions(cell) or (day and said.mentions(day)):
            if twin.get(column) != cell and not (day and day_of(twin.get(column)) == day):
                return False
            shared += 1
    return shared > 0


def _unpicked_reference(
    task: Task, tools: dict[str, Tool], replay: Replay, seed: SeedFacts, found: list[Target]
) -> str | None:
    """A record a write points to without changing it, picked from a listing of several
    rows that nothing the user says tells apart: a ticket made for one of a team's several
    players, none named. An agent cannot know which; another choice fails the state check,
    so the gold teaches a guess. (Asked on reading basketball-intent-00022 on cb56dcd, "create
    a ticket for my game on June 26 at 438.31 price", whose player the facts name and whose
    team lists one: kept, rightly.) The records a tool is named for are `unasked_target`'s."""
    said = Text(task.user_text())
    changed = {(t.call, t.param) for t in found}
    keys = set().union(*seed.keys.values()) if seed.keys else set()
    for i, call in enumerate(task.gold_calls):
        if tools[call.name].kind != "write":
            continue
        for param, value in call.arguments.items():
            if (i, param) in changed or value is None or isinstance(value, bool):
                continue
            if value_key(value) not in keys or said.mentions(value):
                continue
            if among := _one_of_many(value, i, replay, said):
                return f"gold call {i} {call.key()}: {param}={value!r} {among}"
    return None


_THIS = re.compile(r"\b(?:(to|from|into|onto)\s+)?(?:this|that|the same)\s+([a-z]+)\b", re.I)


def this_names_another(task: Task, tools: dict[str, Tool]) -> str | None:
    """ "this <kind>" right after a record of that kind named by its id points at that
    record, yet the gold's write said beside it acts on another: finance-intent-00630 on
    0d74fa0, "transfer $52.58 from my active account to account ID 27604 and create a new
    card for this account", put the card on the user's own account, 27586. An agent reads
    "this account" as 27604 (someone else's, which the policy forbids), or has to ask."""
    text, at = task.instruction, 0
    for sentence in sentences(text):
        at = text.find(sentence, at)
        for m in _THIS.finditer(sentence):
            if detail := _this_elsewhere(task, tools, text[: at + m.start()], sentence, m):
                return detail
    return None


def _this_elsewhere(
    task: Task, tools: dict[str, Tool], before: str, sentence: str, m: re.Match[str]
) -> str | None:
    """The gold write said in `sentence` that acts on another record than the one "this
    <kind>" (`m`) points at, the last of that kind named by its id in `before`."""
    kind = singular(m[2].casefold())
    said = list(re.finditer(rf"\b{re.escape(kind)}s?\b", before, re.I))
    if not said:
        return None
    named = re.match(
        r"\s*(?:with\s+)?(?:the\s+)?(?:id|number|#)\s*(?:of\s+|is\s+|:\s*)?#?(\d+)\b",
        before[said[-1].end() :],
        re.I,
    )
    if named is None:
        return None
    direction = (m[1] or "").casefold()
    for i, call in enumerate(task.gold_calls):
        tool = tools.get(call.name)
        if tool is None or tool.kind != "write":
            continue
        acts = [w for w in words(call.name) if w not in GENERIC and w != kind]
        if not Request(sentence).says_any(acts, OPERATIONS + FIELDS):
            continue
        wanted = [f"{direction}_{kind}_id"] if direction in ("to", "from") else []
        wanted += [f"{kind}_id", f"new_{kind}_id"]
        param = next((p for p in wanted if p in call.arguments), None)
        if param is None or str(call.arguments[param]) == named[1]:
            continue
        return (
            f"{m.group().strip()!r} points at {kind} {named[1]}, named right before it, "
            f"but gold call {i} {call.name} acts on {kind} {call.arguments[param]}"
        )
    return None


def unlike_its_reference(
    task: Task, tools: dict[str, Tool], replay: Replay, seed: SeedFacts
) -> str | None:
    """A new record pointed at a record the request never names, where another record it
    points to holds a different one in that place: medicine-intent-00022 on b5cbf4f asked
    "create a prescription for me with Royal Aspirin. The appointment is for 2024-08-30",
    and the gold prescribed by a doctor only the facts name, not the appointment's, and was
    refused for it. An agent takes the appointment's doctor and succeeds; the gold teaches
    it to reach for a name nobody asked for."""
    asked = Text(without_own_name(task.instruction))
    keys = set().union(*seed.keys.values()) if seed.keys else set()
    for i, call in enumerate(task.gold_calls):
        if not tools[call.name].creates:
            continue
        refs = {
            p: v
            for p, v in call.arguments.items()
            if v is not None and not isinstance(v, bool) and value_key(v) in keys
        }
        earlier = [r for j in range(i) for r in output_rows(replay.results[j].output)]
        for param, value in refs.items():
            table = seed.records.get(value_key(value), ("", frozenset()))[0]
            if asked.mentions(value) or _named(Target(i, param, value, table), replay, asked, seed):
                continue
            for other, held in refs.items():
                row = next(
                    (
                        r
                        for r in earlier
                        if other != param
                        and own_key(r) == other
                        and value_key(r.get(other)) == value_key(held)
                    ),
                    None,
                )
                if row is None or row.get(param) is None:
                    continue
                if value_key(row[param]) != value_key(value):
                    return (
                        f"gold call {i} {call.key()}: {param}={value!r}, which the request never "
                        f"names, where {other} {held} holds {param} {row[param]!r}"
                    )
    return None


_MY_PROFILE = re.compile(r"\bmy (?:own )?profile\b", re.I)
# "top up my account by 13": the act's object is the asker's own profile
_ON_ME = re.compile(r"\b(\w+)(?: up| down| off)? my (?:own )?(account|profile)\b", re.I)


def new_beside_old(task: Task, tools: dict[str, Tool], replay: Replay) -> str | None:
    """A new record made beside a change of another record of its kind: worded as one
    request, the two read as one record. Travel-intent-00052 on 0651c04 asked "I'm looking
    to book a flight ... I want to include these bags in my flight booking", and the gold
    added the bags to another booking the user had (`generators.compound` no longer joins
    such purposes). A change of the record just made ("book a flight with two bags") is
    the same record, and so is one the request names by its key."""
    asked = Text(task.instruction)
    made: dict[str, int] = {}
    for i, call in enumerate(task.gold_calls):
        for table in tools[call.name].inserts() if tools[call.name].kind == "write" else []:
            made.setdefault(table, i)
    for i, call in enumerate(task.gold_calls):
        tool = tools[call.name]
        if tool.kind != "write" or tool.inserts():
            continue
        for table in tool.updated_tables():
            j = made.get(table)
            if j is None:
                continue
            output = replay.results[j].output if replay.results[j].ok else None
            new = {value_key(v) for k, v in (output or {}).items() if k.endswith("id")}
            if isinstance(output, dict) and new & {value_key(v) for v in call.arguments.values()}:
                continue
            if any(asked.mentions(v) for k, v in call.arguments.items() if k.endswith("id")):
                continue  # "withdraw 30 from A1, open an account": the old one named by its key
            return (
                f"gold call {i} {call.key()} changes a {record_phrase(table)} the user has, "
                f"beside gold call {j}, which makes a new one: worded as one request, the two "
                "read as one"
            )
    return None


def acted_on_self(
    task: Task, tools: dict[str, Tool], schema: Schema, seed: SeedFacts
) -> str | None:
    """A write asked of the user's own account or profile whose gold acts on another of
    their records: restaurant-intent-00021 on 277c846 said "I want to top up my account by
    13 to order 27", and its gold added 13 to an order's quantity. Where a table is the
    accounts, "my account" names one of them."""
    people = schema.people()
    named = set().union(*(entity_words(t.name) for t in schema.tables))
    for m in _ON_ME.finditer(task.instruction):
        if m.group(2).lower() in named:
            continue
        for target in targets(task, tools, schema, seed):
            if people is not None and target.table == people.name:
                continue
            call = task.gold_calls[target.call]
            tool = tools[call.name]
            acts = {
                v
                for w in [*operation_words(tool, call.arguments, schema), *words(tool.name)]
                for v in variants(w)
            }
            if variants(m.group(1)) & acts:
                return (
                    f"gold call {target.call} {call.key()}: the instruction asks to "
                    f"{m.group().strip()!r}, the user's own {m.group(2).lower()}, and the gold "
                    f"acts on their {singular(target.table).replace('_', ' ')}"
                )
    return None


# "to" as a direction, not the infinitive of "I need to move the House Table 9 ..."
_ACTS = r"move|change|switch|transfer|put|shift|swap|reassign|relocate|book|get|have|make"
# a title before a name: medicine's "send my prescription to Dr. Erin Kirk" on 277c846
_TOWARD = (
    rf"\b(?:to|into|onto)\s+(?:(?:the|a|an|my)\s+)?(?:(?:dr|mr|mrs|ms|prof)\.?\s+)?"
    rf"(?:(?!(?:{_ACTS})\b)\w+,?\s+){{0,4}}?"
)


# "My new flight id is 26127" (travel-intent-00003 on b8ec214) says where it goes too
_NEW = r"\bnew\s+(?:\w+\s+){0,3}?(?:(?:is|was|=|:|of)\s+)?"


_AWAY = r"\bfrom\s+(?:(?:the|a|an|my)\s+)?(?:\w+\s+){0,2}?"


# the same words at both ends, not a number and a longer one ("from 10 to 10:30")
_SAME_PHRASE = re.compile(r"\bfrom\s+(\S.{0,80}?)\s+(?:in)?to\s+\1(?![\w:]|[.-]\d)", re.I)


def unsaid_destination(task: Task, tools: dict[str, Tool], replay: Replay) -> str | None:
    """A move whose destination was found by its name must be asked to go there: "move my
    reservation to Special Table 7". Restaurant's 1.5B wrote "move the reservation table
    named Classic Table 5 from the current seating arrangement to the next available
    table", and "the Special Table 7 reservation", each for a move onto that table. Nor
    is a move asked for by the same words at both ends ("move my flight booking from
    2022-08-05 to 2022-08-05": travel-intent-00045 on b8ec214)."""
    if same := _SAME_PHRASE.search(task.instruction):
        for index, call in enumerate(task.gold_calls):
            moves = call.name in tools and tools[call.name].kind == "write"
            if moves and any(p.startswith("new_") for p in call.arguments):
                return (
                    f"gold call {index} {call.key()}: the instruction says "
                    f"{same.group().strip()!r}, the same at both ends of a move"
                )
    for index, call in enumerate(task.gold_calls):
        if call.name not in tools or tools[call.name].kind != "write":
            continue
        for param, value in call.arguments.items():
            if not param.startswith("new_") or isinstance(value, bool):
                continue
            name = _found_by(value, task, replay, index)
            if name is None and Text(task.instruction).mentions(value):
                name = str(value)  # "from flight 26187 to flight", a move onto 26187
            if name is None:
                continue
            # a name in quotes: "to the region 'California'" (weather-intent-00011 on aedf9df)
            toward = rf"(?:{_TOWARD}|{_NEW})['\"“‘]?{re.escape(name)}\b"
            if not re.search(toward, task.instruction, re.I):
                return (
                    f"gold call {index} {call.key()}: the instruction names {name!r}, but not "
                    f"as where it moves to ({param})"
                )
            if re.search(rf"{_AWAY}['\"“‘]?{re.escape(name)}\b", task.instruction, re.I):
                # "from Barron-Fleming to Barron-Fleming": it was somewhere else
                return (
                    f"gold call {index} {call.key()}: the instruction names {name!r} as where "
                    f"it moves from too, and it moves there ({param})"
                )
    return None


def _found_by(value: object, task: Task, replay: Replay, before: int, hops: int = 2) -> str | None:
    """The text argument the instruction says that an earlier lookup found `value` by, or
    found the key of that lookup by: movie-intent-00004 on 71aacdf moved a booking onto a
    showtime listed by a movie id that the film's title found ("Move the showtime for my
    booking of Inception", a booking of another film). The lookup is the one that shows
    `value` as what a row is before one that only points to it (`_outputs_of`)."""
    for index in _outputs_of(value, replay, min(before, len(replay.results))):
        for said in task.gold_calls[index].arguments.values():
            if (
                isinstance(said, str)
                and not said.isdigit()
                and said.lower() in task.instruction.lower()
            ):
                return said
        keys = [k for k in task.gold_calls[index].arguments.values() if type(k) is int]
        for key in keys if hops > 1 else []:
            if (name := _found_by(key, task, replay, index, hops - 1)) is not None:
                return name
    return None


_SAME_ENDS = re.compile(
    r"\bfrom (?:my |the |account )*(?!(?:my|the|account)\b)(\S+?)(?: account)? (?:in)?to "
    r"(?:my |the |account )*\1\b",
    re.I,
)


def literal_keys(text: str, keys: frozenset[object]) -> list[object]:
    """The keys of a table a text states, as it states them."""
    found: list[object] = [*literals(text), *(int(n) for n in numbers(text) if n.is_integer())]
    return list({value_key(x): x for x in found if value_key(x) in keys}.values())


def _written_records(
    task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay, seed: SeedFacts
) -> dict[int, set[tuple[str, object]]]:
    """Per write call that succeeds, the records it changes or makes, as (table, key): a new
    record's key is its output's, or the call itself where the output shows none; a move's
    destination (`new_course_id`) is only pointed to."""
    out: dict[int, set[tuple[str, object]]] = {}
    for target in targets(task, tools, schema, seed):
        if not target.param.startswith("new_"):
            out.setdefault(target.call, set()).add((target.table, value_key(target.value)))
    for i, call in enumerate(task.gold_calls):
        tool = tools[call.name]
        for table in tool.inserts() if tool.kind == "write" and tool.creates else []:
            pk = schema.table(table).primary_key
            row = replay.results[i].output if i < len(replay.results) else None
            key = row.get(pk[0]) if isinstance(row, dict) and len(pk) == 1 else None
            out.setdefault(i, set()).add((table, value_key(key) if key is not None else ("new", i)))
    return {i: recs for i, recs in out.items() if task.gold_calls[i].expect_error is None}


_ASKS_OF_NEW = re.compile(r"\bnew\s+(?:\w+\s+){0,2}?(\w+)", re.I)


def told_of_either(
    task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay, seed: SeedFacts
) -> str | None:
    """A value told of one of two records of a kind that two writes change or make:
    travel-intent-00024 on d7b1bec moved a hotel booking and made another, and asked "the
    hotel booking ID and its status"; school-intent-00062 on 13b4e73 made an enrollment,
    moved another, and asked "the enrollment id and enrollment status". Either answer fits
    the words, and the gold holds one. Not so where the record is said by its key ("my
    checking A20003"), where the asking sentence says the new one ("the id of the new
    account"), or where one call writes both (a transfer's `from_balance` says which)."""
    if sum(tools[c.name].kind == "write" for c in task.gold_calls) < 2:
        return None
    written = _written_records(task, tools, schema, replay, seed)
    said = Text(" ".join([task.instruction, *task.known_facts]))
    for ref in task.communicate:
        records = written.get(ref.call, set())
        if len({t for t, _ in records}) != len(records):
            continue  # two records of one kind in one call: the path says which
        for table, record in records:
            others = {
                r for i, recs in written.items() if i != ref.call for t, r in recs if t == table
            }
            if not others - {record} or said.mentions(record):
                continue
            if tools[task.gold_calls[ref.call].name].creates and _asked_as_new(task, table):
                continue
            phrase = record_phrase(table)
            name = task.gold_calls[ref.call].name
            return (
                f"tells {ref.path} of the {phrase} gold call {ref.call} {name} writes, "
                f"beside another {phrase} another write changes: asked of either"
            )
    return None


# the two ends of a move, as a parameter's words say them and as a text calls them
_SOURCE = frozenset({"from", "source", "sender", "sending", "origin", "old"})
_DESTINATION = frozenset({"to", "target", "destination", "recipient", "receiving", "new"})
# `{kind}` takes the words of the moved records' kind
_CALLED_DESTINATION = (
    r"\b(?:recipient|destination|target|receiving|receiver|beneficiary|payee)\b"
    r"|\b(?:that|the other)\s+(?:\w+\s+)?{kind}\b"
)
_ASK_CUE = re.compile(r"\b(?:know|tell|provide|give|show|see|check|what|confirm)\b", re.I)
_CALLED_SOURCE = re.compile(r"\b(?:source|sending|sender|origin|originating)\b", re.I)


def _end_of(param: str) -> str | None:
    """Which end of a move a parameter names: `from_account_id` the source."""
    said = set(words(param))
    if said & _SOURCE and not said & _DESTINATION:
        return "source"
    if said & _DESTINATION and not said & _SOURCE:
        return "destination"
    return None


def _ends(arguments: Mapping[str, object]) -> dict[str, object]:
    """The source and destination a move's arguments name (`from_account_id` ...)."""
    return {end: v for param, v in arguments.items() if (end := _end_of(param)) is not None}


def told_of_the_other_end(task: Task, tools: dict[str, Tool], replay: Replay) -> str | None:
    """A value told of one end of a move where the sentence asking for it names the other:
    finance-intent-00282 on c430db5, "I want to transfer $1.04 from my active account to
    another account id of 27560. I need to know the current balance of that account", and
    00287, "... the balance of the recipient account", were told the source's balance (a
    transfer's output lists both accounts, the source second by its id)."""
    for ref in task.communicate:
        call = task.gold_calls[ref.call]
        output = replay.results[ref.call].output
        head, _, field = ref.path.partition(".")
        if not head.isdigit() or not isinstance(output, list) or len(output) < 2 or not field:
            continue
        row = output[int(head)]
        if not isinstance(row, dict):
            continue
        ends = _ends(call.arguments)
        told = [
            end for end, value in ends.items() if value_key(value) in map(value_key, row.values())
        ]
        if len(ends) != 2 or len(told) != 1:
            continue
        other = "destination" if told[0] == "source" else "source"
        kinds = sorted({w for t in tools[call.name].updated_tables() for w in entity_words(t)})
        kind = f"(?:{'|'.join(map(re.escape, kinds))})" if kinds else r"\w+"
        called = {
            "destination": re.compile(_CALLED_DESTINATION.format(kind=kind), re.I),
            "source": _CALLED_SOURCE,
        }
        asking = [
            sentence
            for sentence in sentences(task.instruction)
            if Request(sentence).asks_about(field.rsplit(".", 1)[-1])
        ]
        for sentence in asking:
            # what follows the cue: "transfer ... to account 27593 and tell me the balance"
            # names the destination in the act, not in the ask
            cue = _ASK_CUE.search(sentence)
            asked = sentence[cue.end() :] if cue else sentence
            own = called[told[0]].search(asked) or str(ends[told[0]]) in asked
            named = called[other].search(asked) or str(ends[other]) in asked
            if named and not own:
                said = named.group() if isinstance(named, re.Match) else str(ends[other])
                return (
                    f"tells {ref.path} of the {told[0]} of gold call {ref.call} {call.name}, "
                    f"where the sentence asking for it says the {other} ({said!r}): "
                    f"{sentence.strip()!r}"
                )
    return None


def from_the_destination(task: Task, tools: dict[str, Tool]) -> str | None:
    """A move whose destination the instruction says it goes from: finance-intent-00457 on
    2a7fb38, "I need to transfer the balance of my inactive account from 27562 to my other
    inactive account", whose gold moved money from the user's 27615 to 27562."""
    for i, call in enumerate(task.gold_calls):
        if tools[call.name].kind != "write":
            continue
        ends = _ends(call.arguments)
        if len(ends) != 2 or value_key(ends["source"]) == value_key(ends["destination"]):
            continue
        # "move $5000 to my checking A20019, then pay my loan from A20019": the source of
        # another write (bank-014)
        sources = {
            value_key(v)
            for j, c in enumerate(task.gold_calls)
            if j != i and tools[c.name].kind == "write"
            for p, v in c.arguments.items()
            if _end_of(p) == "source"
        }
        if value_key(ends["destination"]) in sources:
            continue
        said = re.escape(str(ends["destination"]))
        found = re.finditer(
            rf"\bfrom\s+(?:[\w'-]+\s+){{0,5}}?(?:\(\s*)?(?:id|number|no|#)?[\s:#]*{said}\b",
            task.instruction,
            re.I,
        )
        m = next((m for m in found if not re.search(r"\b(?:to|into|onto)\b", m.group())), None)
        if m:
            return (
                f"gold call {i} {call.key()} moves to {ends['destination']}, which the "
                f"instruction says it moves from ({m.group()!r})"
            )
    return None


def _asked_as_new(task: Task, table: str) -> bool:
    """A sentence that asks to be told says the new record of the table: "Tell me the id of
    the new account"."""
    kind = entity_words(table)
    return any(
        singular(m.group(1).casefold()) in kind
        for s in sentences(task.instruction)
        if Request(s).asks_for_information
        for m in _ASKS_OF_NEW.finditer(s)
    )


# ... or whether it can be done (school-intent-00005 on 920fa98: "I'd like to know if it's
# possible and if it can be done", told a student id and a course id)
_WHY = re.compile(
    r"\bwhy\b|\b(?:the|a) reasons?\b"
    r"|\b(?:if|whether) (?:it['’]s|it is|this is|that is|it would be) (?:possible|allowed)\b"
    r"|\b(?:if|whether) (?:it|this|that) (?:can|could) be done\b",
    re.I,
)
_SAYS_ID = re.compile(r"\b(?:ids?|numbers?|identifiers?)\b", re.I)


def _ids_told_unnamed(task: Task) -> str | None:
    """An id told where the instruction names no id: finance-intent-00723 on 0d74fa0, "Please
    let me know if I should enter my email address, loan amount (in dollars), and what I
    want as the loan status", was told its new loan's id; school-intent-00061 on 6accfa9,
    "If this is not possible, please inform me why", the enrollment's student id and course
    id. A status or a date may be what is asked (a game that is completed cannot be
    postponed); an id nobody named is not. Of 139 kept tasks told an id, the other 138 say
    "id"."""
    if _SAYS_ID.search(task.instruction):
        return None
    asked = (
        "asks why (or whether it can be done) and names no id"
        if _WHY.search(task.instruction)
        else "names no id (nor number) to be told"
    )
    for i, ref in enumerate(task.communicate):
        field = _field(ref)
        if field == "id" or field.endswith("_id"):
            return f"communicate[{i}] ({field} of gold call {ref.call}): the instruction {asked}"
    return None


def unasked_value(task: Task, tools: dict[str, Tool], schema: Schema) -> str | None:
    request = Request(task.instruction)
    if task.communicate and not request.asks_for_information:
        return "the user is told values, but the instruction asks for no information"
    if detail := _ids_told_unnamed(task):
        return detail
    if detail := _left_told_as_count(task):
        return detail
    for i, ref in enumerate(task.communicate):
        tool = tools[task.gold_calls[ref.call].name]
        field = _field(ref)
        mine = tables_of(tool, schema)
        entity = set().union(*(entity_words(t) for t in mine)) if mine else set()
        entity |= {w for w in words(tool.name) if w not in GENERIC}
        if "by" in words(tool.name):  # list_passengers_by_trip_id tells of passengers
            before = words(tool.name)[: words(tool.name).index("by")]
            entity = {w for w in entity if w in before} or entity
        field_said = bool(field) and request.says_any(words(field), FIELDS)
        if not field_said and not request.says_any(entity, OPERATIONS + FIELDS):
            return (
                f"communicate[{i}] ({field or 'the output'} of gold call {ref.call}, "
                f"{tool.name}): the instruction asks neither for it nor about its entity"
            )
        if field_said and not request.says_any(entity, OPERATIONS + FIELDS):
            others = [
                t.name
                for t in schema.tables
                if t.name not in mine
                and field in t.column_names
                and request.says_any(entity_words(t.name), OPERATIONS + FIELDS)
            ]
            if others:
                return (
                    f"communicate[{i}] is the {field} of {', '.join(mine) or tool.name}, but "
                    f"the instruction asks for the {field} of {others[0]}"
                )
        shown = _returned_table(tool, schema) if tool.kind == "write" else None
        if shown and field not in schema.table(shown).column_names:
            shown = None  # the output is not that table's row alone
        if field and shown and (other := _asked_of_other(task.instruction, field, shown, schema)):
            return (
                f"communicate[{i}] is the {field} of the {record_phrase(shown)} {tool.name} "
                f"returns, but the instruction asks for the {field} of the {record_phrase(other)}"
            )
    return _said_not_asked(task, request)


def _said_not_asked(task: Task, request: Request) -> str | None:
    """A told field the request names only outside what it asks, beside one it asks for:
    travel-intent-00000 on d7b1bec, "add 16 checked bags to my flight booking ... I also
    need to know the fee for those bags", was told the bag count and the fee."""
    fields = [_field(ref) for ref in task.communicate]
    asked = [f for f in fields if f and request.names_as_asked(f)]
    if not asked:
        return None
    for i, field in enumerate(fields):
        if field and field not in asked and request.says_any(words(field), FIELDS):
            return (
                f"communicate[{i}] ({field}) is said in the instruction only as what to change "
                f"or whom for; it asks to be told {', '.join(sorted(set(asked)))}"
            )
    return None


def _returned_table(tool: Tool, schema: Schema) -> str | None:
    """The table of the row a write returns (its `returns` query reads one table)."""
    found = tool.returned_table()
    return found if found in schema.table_names else None


def _past_own_fields(before: list[str], own: set[str]) -> list[str]:
    """The words before a list of a record's own fields that ends in "and": "the ticket ID
    and status" asks the ticket's status (basketball on 9b9d975, told it and kept only
    after this)."""
    cut = before[:-1] if before[-1:] in (["its"], ["the"]) else before
    if cut[-1:] != ["and"]:
        return before
    cut = cut[:-1]
    while cut and (cut[-1] in own or cut[-1] == "s"):
        cut = cut[:-1]
    return cut if len(cut) < len(before) - 1 else before


def _asked_of_other(text: str, field: str, shown: str, schema: Schema) -> str | None:
    """The table another record is named by right before the field ("the order created
    at"), where the row told is of `shown` (an order item): None when the field is named
    with the shown row's own name ("the order item created at") or with none."""
    phrase = spelled(field)
    fields = {w for t in schema.tables if t.name == shown for c in t.columns for w in words(c.name)}
    own = fields - entity_words(shown)
    other: str | None = None
    for m in re.finditer(rf"\b{phrase}\b", text, re.I):
        start = max(text.rfind(p, 0, m.start()) for p in ".?!")
        if not INFO_CUES & set(tokens(text[start + 1 : m.start()])):
            continue  # "a return for my order item with order status 'delivered'": said of it
        rest = re.split(r"[.?!,;]", text[m.end() :])[0]
        if re.match(r"\s*of\b", rest):  # "the status of Vicki Clarke's player"
            after = tokens(rest)
            grams = set(after) | {" ".join(pair) for pair in itertools.pairwise(after)}
            if record_phrase(shown) in grams:
                return None
            other = other or _named_in(grams, field, shown, schema)
            continue
        if re.match(r"\s*(?:is|was|are|were|of|=|:|')", text[m.end() :]):
            continue  # "my account status is active": a fact, not a question
        before = tokens(text[start + 1 : m.start()])
        before = _past_own_fields(before[:-1] if before[-1:] == ["s"] else before, own)
        said = {" ".join(before[-1:]), " ".join(before[-2:])}
        if record_phrase(shown) in said:
            return None  # asked of the shown record too ("the contract status, ticket status")
        other = other or _named_in(said, field, shown, schema)
    return other


def _named_in(said: Set[str], field: str, shown: str, schema: Schema) -> str | None:
    """Another table with the field whose record's name is one of the words said."""
    return next(
        (
            t.name
            for t in schema.tables
            if t.name != shown and field in t.column_names and record_phrase(t.name) in said
        ),
        None,
    )


def _left_told_as_count(task: Task) -> str | None:
    """A question about what is left answered with a count of something else: medicine's
    "please tell me how many refills I have left", told refills_used."""
    for ref in task.communicate:
        if sentence := asks_left_of_count(task.instruction, _field(ref)):
            return (
                f"the instruction asks {sentence!r}; the gold tells {_field(ref)}, which counts "
                "something else than what is left"
            )
    return None


def gold_operations(task: Task, tools: dict[str, Tool], schema: Schema) -> set[str]:
    """The words that name what the gold's writes do ("repay", "frozen")."""
    return {
        w
        for c in task.gold_calls
        if c.name in tools and tools[c.name].kind == "write"
        for w in operation_words(tools[c.name], c.arguments, schema)
    }


def _names_a_record(field: str, schema: Schema) -> bool:
    """Every word of `field` is a form of a record's kind (`booked_at` of "booking"): "the
    status of my booking" asks about the booking, not when it was booked (travel on
    b8ec214)."""
    wanted = [w for w in words(field) if w not in GENERIC]
    kinds = {stem(w) for w in schema_entities(schema)}
    return bool(wanted) and all(stem(w) in kinds for w in wanted)


def untold_value(
    task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay, seed: SeedFacts
) -> str | None:
    request = Request(task.request())
    said = Text(task.user_text())
    told: dict[int, set[str]] = {}
    rows_told: dict[tuple[int, str], set[str]] = {}
    for ref in task.communicate:
        field = _field(ref)
        told.setdefault(ref.call, set()).add(field)
        index = ref.path.split(".")[0] if ref.path.split(".")[0].isdigit() else ""
        rows_told.setdefault((ref.call, field), set()).add(index)
    told_fields = {f for fields in told.values() for f in fields}
    written = {name for c in task.gold_calls for name in c.arguments}
    # "close my account" names an operation, not a question about `closed_on`
    operations = gold_operations(task, tools, schema)
    # asked about a field of rows the gold read, and never told it
    for i, (call, result) in enumerate(zip(task.gold_calls, replay.results, strict=True)):
        if not result.ok or tools[call.name].kind != "read":
            continue
        rows = result.output if isinstance(result.output, list) else [result.output]
        fields = {k for row in rows if isinstance(row, dict) for k in row}
        for field in sorted(fields - told_fields):
            if any(same_field(field, t) for t in told_fields) or field.endswith("id"):
                continue
            when = _asks_when(task.instruction, field)
            # "my order that was created at 2024-10-28" says the day of a moment: it
            # describes the order, it asks nothing (ecommerce-intent-00028 on 05f674d)
            if (
                field in written
                or any(
                    isinstance(row, dict) and _said_of(said, row.get(field), task.instruction)
                    for row in rows
                )
            ) and not (when or _asks_mine(task.instruction, field)):
                continue
            if names_operation(field, operations) or _names_a_record(field, schema):
                continue
            if request.asks_about(field) or when:
                return f"the instruction asks about {field!r} (gold call {i}), nobody tells it"
    if (
        detail := _whole_record_untold(request.text, said, asker(replay, seed), told_fields)
    ) is not None:
        return detail
    if (detail := _each_record_untold(request.text, task, schema, replay)) is not None:
        return detail
    # told for some rows but not for the others of the same kind
    by_tool: dict[str, list[int]] = {}
    for i, call in enumerate(task.gold_calls):
        by_tool.setdefault(call.name, []).append(i)
    for (call_index, field), indices in rows_told.items():
        siblings = by_tool[task.gold_calls[call_index].name]
        for j in siblings:
            result = replay.results[j]
            if not result.ok:
                continue
            if j != call_index and field not in told.get(j, set()):
                rows = result.output if isinstance(result.output, list) else [result.output]
                if any(isinstance(r, dict) and r.get(field) is not None for r in rows):
                    return (
                        f"the {field} of gold call {call_index} is told, but not that of "
                        f"gold call {j}, the same lookup for another row"
                    )
            if j == call_index and isinstance(result.output, list) and request.asks_for_each:
                missing = [
                    str(k)
                    for k, row in enumerate(result.output)
                    if isinstance(row, dict)
                    and row.get(field) is not None
                    and str(k) not in indices
                ]
                if missing:
                    return (
                        f"the user asks for each, but the {field} of rows {', '.join(missing)} "
                        f"of gold call {j} is not told"
                    )
    return None


# "the course status and grade status for each course", "the balance of both accounts"
# ... its kind the first word or the second ("for both accounts and", "for each open account")
_FOR_EACH_KIND = re.compile(
    r"\b(?:for|of|on|about|in)\s+(?:each|both|every|all)\s+(?:of\s+(?:the|my|these|those)\s+)?"
    r"(?P<kind>[a-z]+(?:\s+[a-z]+)?)\b",
    re.I,
)


def _each_record_untold(text: str, task: Task, schema: Schema, replay: Replay) -> str | None:
    """Asked for a field "for each" record of a kind, the user is owed it for every record
    of that kind the gold reads or acts on by its key: school-intent-00036 in runs/, "the
    current course status and grade status for each course", with one course activated and
    another's grade, was told one course's status alone."""
    told = told_of_records(task.communicate, replay.results, schema)
    by_kind = {singular(t.name): t for t in schema.tables}
    for m in _FOR_EACH_KIND.finditer(text):
        kind = next((k for w in m["kind"].split() if (k := singular(w.lower())) in by_kind), "")
        table = by_kind.get(kind)
        if table is None or len(table.primary_key) != 1:
            continue
        key = table.primary_key[0]
        fields = set().union(*(f for (t, _), f in told.items() if t == table.name))
        records: dict[object, object] = {}  # compared by value_key, named as given
        for call in task.gold_calls:
            for name, value in call.arguments.items():
                if name == key or name.endswith(f"_{key}"):  # a transfer's from_account_id
                    records.setdefault(value_key(value), value)
        if len(records) < 2 or not fields:
            continue
        for record, given in records.items():
            if missing := sorted(fields - told.get((table.name, record), set())):
                return (
                    f"the user asks for each {kind}, but the {', '.join(missing)} of "
                    f"{kind} {given} is not told (told of another {kind})"
                )
    return None


# "I need to know what time I started it": the day is said, the hour is asked
_WHAT_TIME = re.compile(r"\b(?:what|which)\s+time\b|\bwhat\s+hour\b", re.I)


def _said_of(said: Text, value: object, text: str) -> bool:
    """The user says `value`, or the day of a moment where the request does not ask its
    hour: medicine-intent-00040 on b5cbf4f, "cancel my appointment at 2024-02-01. I need to
    know what time I started it", was told the appointment's status alone."""
    if said.mentions(value):
        return True
    day = day_of(value)
    return day is not None and said.mentions(day) and not _WHAT_TIME.search(text)


def _asks_mine(text: str, field: str) -> bool:
    """The request asks in so many words to be told the user's own `field`, though they say
    it themselves: ecommerce-intent-00021 on 6c5d348, "Please tell me my email and the
    current customer status", was told the status alone; travel-intent-00039 on 0651c04,
    "I need to know my email, check-in date, ...", a new booking's id and status;
    finance-intent-00570 on 5ef987c, "I need to know what the current balance is", with the
    balance 0 a known fact, was told the account's status alone. Or the last of a list:
    weather-intent-00027 in runs/, "I want to know the current alert type, status, and new
    region name", its new region named by the user, was told the type and status."""
    named = r"\s+".join(re.escape(w) for w in words(field))
    asks = r"(?:(?:tell|show|give|remind)\s+me|(?<!n't )(?<!n’t )(?<!not )know)"
    return bool(
        re.search(
            rf"\b(?:{asks}|what(?:'s|\s+is))\s+(?:my|(?:what|how\s+much)\s+(?:my|the))\s+"
            rf"(?:current\s+)?{named}\b",
            text,
            re.I,
        )
        or re.search(
            rf"\b{asks}\s+(?:my|the)\s+(?:(?:the\s+|my\s+)?\w+(?:\s+\w+){{0,3}},\s+)+"
            rf"(?:and\s+)?(?:the\s+|my\s+)?(?:\w+\s+){{0,2}}{named}\b",
            text,
            re.I,
        )
    )


# a moment a record's field holds, by the verb of its first word: start_date, end_time,
# expiry_date, departure_time, due_date ("when is my loan due")
_MOMENT_ENDS = {"date", "time", "at", "on", "day"}
# what makes "when" ask: the sentence opens with it ("When does my card expire?"), or it
# follows a word of asking right away or as the last of a list that one opens ("I want to
# know the status, how many tickets are sold, and when the game will start"); not "I was
# away when it was posted"
_ASKING = r"know|tell\s+me|show\s+me|find\s+out|check|see|wonder\w*|ask\w*|remind\s+me"
_ASKS_BEFORE = re.compile(rf"\b(?:{_ASKING})\b", re.I)
_ASKS_RIGHT_BEFORE = re.compile(rf"(?:\b(?:{_ASKING}|and|or)|,)\s*$", re.I)


def _asks_when(text: str, field: str) -> bool:
    """The request asks when a record's moment is, by the moment's verb, though the user
    says its day: basketball-intent-00076 in runs/, "I want to know the current status of
    the game, how many tickets are sold, and when the game will start", the start date a
    known fact, was told the status and the tickets sold."""
    parts = words(field)
    if len(parts) < 2 or parts[-1] not in _MOMENT_ENDS:
        return False
    # every word but the last, each by its stem: check_out_date is "check out", not the
    # "check-in" of travel-intent-00016 in runs/
    verb = r"[\s-]+".join(re.escape(w[: max(3, min(len(w), 5))]) + r"\w*" for w in parts[:-1])
    moment = re.compile(rf"\bwhen\s+(?:\w+\s+){{0,4}}?{verb}\b", re.I)
    for sentence in sentences(text):
        if re.search(r"\b(?:n't|n’t|not|already)\s+know\b", sentence, re.I):
            continue
        for found in moment.finditer(sentence):
            before = sentence[: found.start()]
            if not before.strip() or (
                _ASKS_BEFORE.search(before) and _ASKS_RIGHT_BEFORE.search(before)
            ):
                return True
    return False


# railway-intent-00040 on a4b9fc9: "could you deactivate my passenger profile? I want to see
# my information", told the status alone
_MY_WHOLE_RECORD = re.compile(
    r"\b(?:see|view|show me|give me|tell me|send me|review|check)\s+(?:all\s+(?:of\s+)?)?"
    r"my\s+(?:personal\s+|account\s+|profile\s+)?(?:information|info|details|data)\b",
    re.I,
)


def _whole_record_untold(text: str, said: Text, mine: dict | None, told: set[str]) -> str | None:
    """Asked to see "my information", the user is owed every field of their own record
    (`mine`, the asker's row) they did not say themselves; a status alone answers a
    narrower question."""
    if mine is None or not (m := _MY_WHOLE_RECORD.search(text)):
        return None
    missing = sorted(
        field
        for field, value in mine.items()
        if not field.endswith("id")
        and field not in told
        and not any(same_field(field, t) for t in told)
        and not said.mentions(value)
    )
    if missing:
        return f"the user asks {m.group()!r}; nobody tells their {', '.join(missing)}"
    return None


FILLER = r"(?:(?:the|all|of)\s+)?"  # "list the accounts by client ID"


_BEFORE = re.compile(r"\b(?:before|previous(?:ly)?|old|used to|was|were|prior|originally)\b")


def stale_value(task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay) -> str | None:
    """A value told from a read made before a later write changed it: the user who asks
    for a status and gets the one the gold then overwrote (basketball: 'tell me the
    current game status', told 'completed' read before setting it to another) is told a
    value that no longer holds; unless the instruction asks for the value before."""
    if _BEFORE.search(task.instruction.lower()):
        return None
    is_write = lambda name: tools[name].kind == "write"  # noqa: E731
    return stale_told(
        task.communicate, task.gold_calls, replay.results, replay.changes, schema, is_write
    )


_ASKS_NOW = re.compile(
    # railway-intent-00011 on 21ceb83: "I want to cancel the ticket for seat 169. Can you
    # tell me if it's already been used?", told 'cancelled' by the cancel
    r"\b(?:if|whether)\b[^.?!]*\b(?:currently|right now|at the moment|still|already)\b"
    # basketball-intent-00019 on 65cb0f1: "I'm trying to deactivate Debra Reyes. Can you
    # tell me what status she currently has?", told 'inactive' by the deactivation
    r"|\bwhat\b[^.?!]*\b(?:currently|right now|at the moment)\b"
    r"|\bor not\b"
    # finance's "I need to know the balance of my inactive account before I can withdraw"
    r"|\b(?:know|see|check|tell me|find out)\b[^.?!]*\bbefore (?:I|we) "
    r"(?:can |could |do |may |will |go ahead and )?\w+"
    # finance-intent-00168 on 8a34956: "Could you please check the balance before
    # transferring?", told the balance the transfer left
    # (bank-m05's "my landlord only needs to see the payment arrive before the end of the
    # week" asks nothing: the act is named after "before")
    r"|\b(?:know|see|check|tell me|find out)\b[^.?!]{0,40}?\bbefore (?:\w+ing|(?:the|my|this) "
    r"(?:transfer|withdrawal|payment|change|move|update|cancellation|refund|top-?up|freeze)s?)\b"
    # finance's "Can you please tell me the current balance so I can proceed?" beside a
    # withdrawal: the balance the user decides on is the one before it
    # ("the return ID to proceed with the return process" needs the new record's id)
    r"|\b(?:so (?:that )?(?:I|we) can|to|before (?:I|we)|in order to) "
    r"(?:proceed|continue|decide)\s*(?:[.?!]|$)",
    re.I,
)


_ASKS_IF_STATE = (
    # finance's "I would like to know if the loan has been repaid" beside its activation
    re.compile(
        r"\b(?:if|whether)\b[^.?!]*?\b(?:is|are|has been|have been)\s+"
        r"(?:still\s+|currently\s+|now\s+)?(?P<state>\w+)",
        re.I,
    ),
    # finance's "Can you please activate my loan to confirm it's still repaid?" ("make sure
    # it's active" is a wish about the state after: unmet_wish)
    re.compile(
        r"\b(?:confirm|verify)\s+(?:that\s+)?[^.?!,]{0,30}?(?:'s|\u2019s|\s+is|\s+are)"
        r"\s+(?:still\s+|currently\s+|now\s+)?['\"]?(?P<state>\w+)",
        re.I,
    ),
    # basketball on 9b9d975: "Please tell me that the ticket on my game on June 3rd, 2025,
    # is still active and that I would like to receive a refund", told 'refunded'
    re.compile(
        r"\b(?:tell|let)\s+me\s+(?:know\s+)?that\s+[^.?!]{0,60}?\b(?:is|are)\s+"
        r"(?:still\s+|currently\s+|now\s+)?(?P<state>\w+)",
        re.I,
    ),
)


def _asks_state(text: str, told: Scalar, seed: SeedFacts) -> re.Match[str] | None:
    """A question whether a record is in a state other than the one told: "cancel my
    booking ... check if my booking's status is pending", told 'cancelled'."""
    states = {
        v.casefold() for columns in seed.states.values() for vs in columns.values() for v in vs
    }
    states |= STATES  # a common state word no record takes is still asked about
    for m in (m for pattern in _ASKS_IF_STATE for m in pattern.finditer(text)):
        said = m.group("state").casefold()
        if said in states and stem(said) != stem(str(told)):  # "canceled" is "cancelled"
            return m
    return None


# finance-intent-00518: "I need to know the outstanding balance of my active loan so I can
# repay 1930.06", told the balance the repayment left
_SO_I_CAN = re.compile(
    r"\b(?:know|see|check|tell me|find out)\b[^.?!]*?\bso (?:that )?(?:I|we) (?:can|could|may) "
    r"(?P<act>\w+)",
    re.I,
)


def _asks_to_act(task: Task, tools: dict[str, Tool], schema: Schema) -> re.Match[str] | None:
    """A value asked for so that the user can do the gold's own write: the value before it.
    "Tell me its status so I can relax" asks nothing of the kind."""
    acts = {stem(w) for w in gold_operations(task, tools, schema)}
    for m in _SO_I_CAN.finditer(task.instruction):
        if stem(m.group("act")) in acts:
            return m
    return None


_CURRENT = re.compile(r"\b(?:current|currently|right now|at the moment)\b", re.I)


def _current_before_act(task: Task, tools: dict[str, Tool], schema: Schema) -> str | None:
    """A sentence that asks for a value as it is now, before any sentence that asks for
    the gold's write: finance-intent-00029 on 0302284, "Please tell me the current status
    of my account and card. I want to activate my account and unfreeze my card.", told
    the states the activations gave."""
    acts = {stem(w) for w in gold_operations(task, tools, schema)}
    said = sentences(task.instruction)
    for k, sentence in enumerate(said):
        request = Request(sentence)
        if any(stem(t) in acts for t in request.tokens):
            return None  # the act comes first (or with it)
        if _CURRENT.search(sentence) and request.asks_for_information and not request.asks_after():
            later = " ".join(said[k + 1 :])
            if any(stem(t) in acts for t in Request(later).tokens):
                return sentence.strip()
    return None


def asked_before_told_after(
    task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay, seed: SeedFacts
) -> str | None:
    """A question about the state now ("tell me if Crystal Hatfield is currently active or
    not", before activating her; "check if my booking's status is pending", before
    cancelling it) answered from a write's own output, the state after it: the user learns
    what they asked to have done, not what they asked. "Cancel it and check that it is
    cancelled" asks after the write, and is kept."""
    values = resolve_all(task, replay)
    now = _ASKS_NOW.search(task.instruction) or _asks_to_act(task, tools, schema)
    first = _current_before_act(task, tools, schema)
    for ref, told in zip(task.communicate, values, strict=True):
        call = task.gold_calls[ref.call]
        found = now or _asks_state(task.instruction, told, seed)
        asked = found.group() if found is not None else None
        if asked is None and first is not None and Request(first).asks_about(_field(ref)):
            asked = first  # "the current status ..." asks of the status, not the balance
        if asked is None:
            continue
        if call.name in tools and tools[call.name].kind == "write" and call.expect_error is None:
            return (
                f"the instruction asks {asked!r}, but {_field(ref) or 'the value'} is "
                f"told from the output of the write {call.name}, after it"
            )
    return None


def reads_like_calls(task: Task, tools: dict[str, Tool]) -> str | None:
    """A gold lookup's name of three words or more spelled out in the instruction ("get
    cards with card id 39495, then list cards by account id"): a sampled walk put into
    words, not what a person asks, which the issue named as invalid training data. A
    write's name is how people say what they want ("make a loan payment"), so a write
    counts only from five words: travel-intent-00010 on d7b1bec, "I want to add flight
    booking checked bags for my flight booking" (`add_flight_booking_checked_bags`)."""
    for name in dict.fromkeys(c.name for c in task.gold_calls):
        parts = [re.escape(w) for w in words(name)]
        if name not in tools or len(parts) < (3 if tools[name].kind == "read" else 5):
            continue
        said = re.search(r"\b" + rf"\s+{FILLER}".join(parts) + r"\b", task.instruction, re.I)
        if said:
            return f"the instruction says {said.group()!r}, the name of {name}"
    return None


def asks_after_refusal(task: Task, tools: dict[str, Tool]) -> str | None:
    """A refusal (every write refused, nothing changes) whose request asks to be told
    something after the write ("the balance of my account after this transfer"): no such
    value exists, and the one told is the state before."""
    writes = [c for c in task.gold_calls if c.name in tools and tools[c.name].kind == "write"]
    if not writes or any(c.expect_error is None for c in writes):
        return None
    after = Request(task.instruction).asks_after()
    if after is None:
        return None
    return f"every write is refused, yet the instruction asks to be told something {after!r} it"


def refused_as_is(task: Task, tools: dict[str, Tool], replay: Replay) -> str | None:
    """A refused write that moves a record to the state a read before it shows: finance on
    4221446 kept "I'm trying to freeze my frozen card", refused because only an active or
    reported card can be frozen. The agent should say the card already is frozen; the gold
    teaches it to quote a rule instead."""
    for i, call in enumerate(task.gold_calls):
        tool = tools.get(call.name)
        if call.expect_error is None or tool is None or tool.kind != "write":
            continue
        for _, column, state, key, param in tool.state_moves():
            if param not in call.arguments:
                continue
            if not names_state(tool, state):
                continue  # a seat change that also books the ticket is no move to booked
            wanted = value_key(call.arguments[param])
            for j in range(i - 1, -1, -1):
                # the row of the record itself, by its own key (a grade's enrollment_id is not
                # the enrollment's row)
                rows = [r for r in output_rows(replay.results[j].output) if own_key(r) == key]
                row = next((r for r in rows if value_key(r[key]) == wanted), None)
                if row is None or column not in row:
                    continue
                if row[column] == state:
                    return (
                        f"gold call {i} {call.key()} is refused for moving {key} "
                        f"{call.arguments[param]} to {column} {state!r}, which gold call "
                        f"{j} shows it already has"
                    )
                break
    return None


# "make sure it's repaid", "ensure that my card is still active": the state wanted after
_WISH = re.compile(
    r"\b(?:(?:make\s+sure|ensure)\s+(?:that\s+)?(?:it|it['’]s|it\s+is|its\s+\w+\s+is|"
    r"(?:my|the)\s+\w+(?:\s+\w+)?\s+is)"
    # finance-intent-00399: "I want to update my loan status to repaid. Please set the loan
    # status to active", whose gold leaves it repaid
    # and ecommerce-intent-00011 on 05f674d: "I want to close the return status to 'open'",
    # whose gold closed it: any verb
    r"|[a-z]+\s+(?:[\w'’]+\s+){0,3}?(?:status|state)\s+"
    r"(?:from\s+[\w-]+\s+)?to(?:\s+be)?)"
    r"\s+(?:still\s+|now\s+)?['\"‘“]?(?P<state>[a-z][\w -]*)",
    re.I,
)


# "I'd like to book my next movie", "could you please activate": a frame that asks for an
# act, and the words that follow it up to the end of the clause
_ASKS_FOR = re.compile(
    r"\b(?:i(?:'d| would) (?:like|love) to|i want to|i need to|i wish to|please|help me|"
    # "I'm trying to book a hotel and a flight" (travel-intent-00062 on 0651c04)
    r"i(?:'m| am) (?:trying|looking|hoping|planning) to|i (?:plan|hope) to|"
    r"(?:can|could|would|will) you(?: please)?)\s+(?P<clause>[^.,;:?!]+)",
    re.I,
)
_FILLER = {"also", "just", "kindly", "please", "go", "ahead", "now", "quickly", "to", "you"}
# verbs whose object says what they mean ("make it quick", "request a refund", "place an
# order" is said by the order): only a plain verb of an act is taken at its word
_WEAK = {"make", "new", "start", "hold", "place", "request", "order", "issue", "apply", "top"}
# "please confirm the booking details" asks to be told as often as to act (travel-old)
_WEAK |= {"confirm", "verify"}


def unserved_request(task: Task, tools: dict[str, Tool], schema: Schema) -> str | None:
    """Every act the user asks for is one a gold write does (or tries, for a refusal):
    movie-intent-00011 said "I'd like to book my next movie. Could you please activate my
    booking ...", and its gold only activated; an agent trained on it learns to leave half
    a request undone. The verbs that open a request clause and each part of it joined by
    "and" or "then" are read (of a weak verb, "request refills", its object)."""
    entities = schema_entities(schema)
    served: set[str] = set()
    for call in task.gold_calls:
        tool = tools[call.name]
        if tool.kind != "write":
            continue
        acts = [w for w in words(tool.name) if w not in entities]  # not "booking": "book"
        for word in [*operation_words(tool, call.arguments, schema), *acts]:
            served |= variants(word)
        if not tool.creates:  # a status set, a move, an adjustment is a change
            served |= variants("change")
    # the acts this environment's writes do (their names' verbs), synonyms or not ("refill")
    own = {
        stem(named[0])
        for t in tools.values()
        if t.kind == "write" and (named := words(t.name)) and named[0] not in entities | GENERIC
    }
    text = re.sub(r"\b(Dr|Mr|Mrs|Ms|Prof)\.", r"\1", task.instruction)  # no sentence's end
    for m in _ASKS_FOR.finditer(text):
        # each verb joined by "and"/"then": medicine-intent-00078 on 277c846, "I'd like to
        # move this prescription to Dr. Rhonda Farmer and request refills", only moved
        parts = re.split(r"\s+(?:and|then|so|but)\s+", m.group("clause"))
        for k, part in enumerate(parts):
            said = [w for w in tokens(part) if w not in _FILLER]
            if said and said[0] in _WEAK:  # "request refills": the object says the act
                said = [w for w in said[1:] if w not in ("a", "an", "the", "some", "my")]
            elif k and said and len(variants(said[0])) == 1 and stem(said[0]) not in own:
                continue  # "... and it was delivered": no verb of an act opens it
            if not said or said[0] in entities | _WEAK or said[1:2] == ["me"]:
                continue  # "send me the appointment id" asks to be told
            verb = said[0]
            synonyms = variants(verb)
            if (len(synonyms) == 1 and stem(verb) not in own) or synonyms & served:
                continue  # no act ("know", "check", "tell"), or one the gold does
            if not Request(" ".join(said)).requests(verb, entities):
                continue  # "confirm the booking status" asks to be told; "is frozen" a state
            return (
                f"the instruction asks to {verb!r} ({m.group().strip()!r}), and no gold write "
                "does it"
            )
    return (
        _unmade_kind(task, tools)
        or _unset_field(task, tools, schema)
        or _timed_act(task, tools)
        or _delivered(task, tools)
    )


# "send it to amber@outlook.com": a delivery to an address, which an agent in a chat does
# not make (weather-intent-00100 on 6accfa9, whose gold only created the alert)
_DELIVERY = re.compile(
    r"\b(?:send|forward)\b(?:\s+[\w']+){0,6}?\s+(?:to|at)\s+"
    r"(?:me\s+at\s+)?[\w.+-]+@[\w-]+\.\w+",
    re.I,
)


def _delivered(task: Task, tools: dict[str, Tool]) -> str | None:
    """A request to send something to an email address, where no tool sends anything."""
    sends = {"send", "email", "notify", "mail", "forward", "message"}
    written = [c for c in task.gold_calls if c.name in tools and tools[c.name].kind == "write"]
    if any(sends & set(words(c.name)[:1]) for c in written):
        return None
    given = {str(v).casefold() for c in written for v in c.arguments.values()}
    for m in _DELIVERY.finditer(task.instruction):
        address = m.group().split()[-1].rstrip(".,;!?").casefold()
        if address not in given:  # a subscription's address is the write's own
            return f"the instruction asks to send something ({m.group()!r}), and no call sends"
    return None


_A = {"a", "an", "another", "one", "some"}
# "add two bags to a flight booking": the record an act is done to is not the one made
_TO = {"to", "for", "on", "onto", "in", "into", "at", "from", "with", "of", "under"}


def _names_longer(toks: list[str], at: int, tables: Set[str]) -> bool:
    """The words from `at` on spell one of `tables` in full: "an order item", not "an order"."""
    for table in tables:
        parts = record_phrase(table).split()
        if len(parts) > 1 and [singular(w) for w in toks[at : at + len(parts)]] == parts:
            return True
    return False


def _unmade_kind(task: Task, tools: dict[str, Tool]) -> str | None:
    """A kind asked to be made that no gold write makes, though another of the user's acts
    is a making: travel-intent-00064 on dee4810, "I want to book some travel, specifically a
    flight and a hotel", whose gold made a hotel booking and added bags to a flight booking
    it already had. The things made are the first kind after the act that an article opens
    ("a flight"), not one a preposition opens ("to a flight"), and those "and" joins to it
    ("and a hotel"); a kind only counts where some tool makes it and no gold write does."""
    gold = {t for c in task.gold_calls for t in tools[c.name].inserts()}
    makeable = {t for tool in tools.values() for t in tool.inserts()} - gold
    # "place an order" names `orders`, though an order item's words are "order" too
    # (ecommerce-intent-00025 on 6c5d348, whose gold added an item to an order it had)
    whole = {singular(t) for t in makeable}
    mine = set().union(*map(entity_words, gold)) - whole
    theirs = {w: t for t in makeable for w in entity_words(t) - mine}
    if not gold or not theirs:
        return None
    kinds = theirs.keys() | mine
    for said in sentences(task.instruction):
        if not _ASKS_FOR.search(said):
            continue
        toks = tokens(said)
        for k, word in enumerate(toks):
            if word not in _MAKING:
                continue
            first = next(
                (
                    j
                    for j in range(k + 2, len(toks))
                    if toks[j - 1] in _A and singular(toks[j]) in kinds and toks[j - 2] not in _TO
                ),
                None,
            )
            if first is None:
                continue
            made = [first]
            j = first + 1
            while j < len(toks) - 2 and j - made[-1] <= 2:
                if toks[j] == "and" and toks[j + 1] in _A and singular(toks[j + 2]) in kinds:
                    made.append(j + 2)
                    j += 3
                else:
                    j += 1
            for at in made:
                if (kind := singular(toks[at])) in theirs and not _names_longer(toks, at, gold):
                    return (
                        f"the instruction asks to {word} {toks[at - 1]} {toks[at]} "
                        f"({said.strip()!r}), and no gold write makes "
                        f"{with_article(record_phrase(theirs[kind]))}"
                    )
    return None


# "suspended as of 2022-02-12", "effective June 1": the moment an act is to take hold
_AS_OF = re.compile(r"\b(?:as of|effective(?:\s+(?:from|on|as of))?|with effect from)\s+", re.I)


def _timed_act(task: Task, tools: dict[str, Tool]) -> str | None:
    """An act asked to take hold from a day, where no gold write takes a day: basketball-
    intent-00015 on 277c846 said "I want to get Laura Mora's contract suspended as of
    2022-02-12" (the contract's start date), and its gold suspended it now."""
    dated = any(
        day_at(value) is not None
        for call in task.gold_calls
        if tools[call.name].kind == "write"
        for value in call.arguments.values()
        if isinstance(value, str)
    )
    for m in _AS_OF.finditer(task.instruction):
        day = day_at(task.instruction[m.end() :])
        if day is not None and not dated:
            return (
                f"the instruction asks the act to hold {m.group().strip()!r} {day}, and no gold "
                "write takes a day: it acts now"
            )
    return None


# "change my email to abecker@gmail.com": a field of a record, and what it becomes
_CHANGE_TO = re.compile(
    r"\b(?:change|update|set|modify|edit|(?P<moved>move))\s+(?:my|the|our)\s+"
    # restaurant-intent-00025 on 530f5cd: "move my order quantity from 13 to 7", of a move
    # of the order to another reservation: a field moved from a value to another is changed
    r"(?P<field>(?:\w+\s+){0,2}?\w+)\s+(?(moved)from\s+[\w$.,:-]+\s+|(?:from\s+[\w$.,:-]+\s+)?)to\b",
    re.I,
)


def _unset_field(task: Task, tools: dict[str, Tool], schema: Schema) -> str | None:
    """A field the user asks to have changed that no gold write sets: movie-intent-00043
    said "I want to deactivate my customer profile and change my email to
    abecker@gmail.com", and its gold only deactivated ("change" alone is served by any
    write). A field is a column of the schema that is no key."""
    written: set[str] = set()
    for call in task.gold_calls:
        tool = tools[call.name]
        if tool.kind != "write":
            continue
        for name in schema.table_names:
            written.update(w for c in tool.assigned(name) for w in words(c))
        written.update(w for p in call.arguments for w in words(p))
    for m in _CHANGE_TO.finditer(task.instruction):
        said = set(tokens(m.group("field")))
        for table in schema.tables:
            keys = {*table.primary_key, *(c for fk in table.foreign_keys for c in fk.columns)}
            for column in table.column_names:
                wanted = set(words(column)) - GENERIC
                if column in keys or not wanted or not wanted <= said or wanted & written:
                    continue
                return (
                    f"the instruction asks to change the {column.replace('_', ' ')} "
                    f"({m.group().strip()!r}), and no gold write sets it"
                )
    return None


# a state a person may ask about that names no field: whether the act can be done at all
_ANSWERABLE = frozenset({"possible", "impossible", "doable", "acceptable", "able", "unable"})


def unknowable_state(task: Task, schema: Schema, seed: SeedFacts) -> str | None:
    """A yes/no question about a quality no column or state of the schema holds, which no
    told value can answer: railway-intent-00051 on de87116 asked "tell me if the seat is
    available or if I have to wait", and was told its ticket's status. Only words of a
    quality ("available", "refundable") are read: "if it is for me" states nothing."""
    known = {w for t in schema.tables for c in t.columns for w in words(c.name)}
    for states in seed.states.values():
        known |= {w for values in states.values() for v in values for w in words(v)}
    for m in _ASKS_IF_STATE[0].finditer(task.request()):
        state = m["state"].casefold()
        if not state.endswith(("able", "ible")) or state in _ANSWERABLE:
            continue
        if state in known or state.removesuffix("able") in known:
            continue
        return (
            f"the instruction asks {m.group().strip()!r}, which no field or state of the "
            "environment tells"
        )
    return None


# "transfer the balance", "move all of my balance": the whole of it, not "the balance of 200"
_WHOLE_BALANCE = re.compile(
    r"\b(?:transfer|move|send|withdraw)\s+(?:all\s+(?:of\s+)?)?(?:the|my)\s+"
    r"(?:whole\s+|entire\s+|remaining\s+|full\s+)?balance\b(?!\s+(?:of\s+)?\$?\d)",
    re.I,
)


def part_for_whole(task: Task, tools: dict[str, Tool], replay: Replay) -> str | None:
    """A balance asked to go whole that the gold moves part of: finance-intent-00190 in
    runs/, "my account with a balance of 654 ... transfer the balance to another account",
    transferred 191.37 (its known fact "The amount is 191.37"). The source's balance is the
    one a read before the write showed."""
    if not (asked := _WHOLE_BALANCE.search(task.request())):
        return None
    for i, call in enumerate(task.gold_calls):
        amount = call.arguments.get("amount")
        if tools[call.name].kind != "write" or not isinstance(amount, int | float):
            continue
        keys = {p.removeprefix("from_"): v for p, v in call.arguments.items() if p.endswith("_id")}
        sources = {p: v for p, v in keys.items() if f"from_{p}" in call.arguments} or keys
        for result in replay.results[:i]:
            for row in output_rows(result.output) if result.ok else []:
                held = row.get("balance")
                if not isinstance(held, int | float) or not any(
                    value_key(row.get(p)) == value_key(v) for p, v in sources.items()
                ):
                    continue
                if abs(held - amount) > 0.005:
                    return (
                        f"the user asks to {asked.group().strip()!r}, {held:g}; gold call {i} "
                        f"{call.name} moves {amount:g}"
                    )
    return None


def unmet_wish(task: Task, replay: Replay, seed: SeedFacts) -> str | None:
    """A state the user wants a record left in that no row of its kind the gold changes
    has: finance's gold activated a repaid loan for "I need to activate my loan and make
    sure it's repaid". An email asked to be set ("update my email to ...") that no row the
    gold changes holds is one too. A refusal changes nothing and is not asked."""
    for m in _WISH.finditer(task.instruction):
        said = " ".join(tokens(m.group("state"))[:3])
        for table, rows in replay.changes.items():
            columns = seed.columns.get(table, ())
            for column, values in seed.states.get(table, {}).items():
                wished = {v.casefold() for v in values if said.startswith(phrase(v))}
                if not wished or column not in columns:
                    continue
                i = columns.index(column)
                after = {str(row[i]).casefold() for row in rows.values() if row is not None}
                if after and not wished & after:
                    return (
                        f"the instruction says {m.group().strip()!r}, but the gold leaves the "
                        f"{singular(table)} {' or '.join(sorted(after))} ({column})"
                    )
    after_rows = [r for rows in replay.changes.values() for r in rows.values() if r]
    held = {str(v).casefold() for r in after_rows for v in r}
    for m in _TO_EMAIL.finditer(task.instruction):
        if held and m.group("email").rstrip(".").casefold() not in held:
            return (
                f"the instruction asks for {m.group().strip()!r}, but no row the gold changes "
                "holds that email"
            )
    for m in _TO_BE.finditer(task.instruction):
        field = set(tokens(m.group("field")))
        wanted = float(m.group("number").replace(",", ""))
        for table, rows in replay.changes.items():
            columns = seed.columns.get(table, ())
            for i, column in enumerate(columns):
                if not set(words(column)) <= field:
                    continue
                kept = [r[i] for r in rows.values() if r is not None]
                left = [v for v in kept if isinstance(v, int | float) and not isinstance(v, bool)]
                if left and not any(same_number(wanted, v) for v in left):
                    return (
                        f"the instruction says {m.group().strip()!r}, but the gold leaves the "
                        f"{singular(table)}'s {column} at {', '.join(f'{v:g}' for v in left)}"
                    )
    return None


# "I want the quantity of that item to be 15", its gold topping it up from 15 to 23
# (ecommerce-intent-00092 on 8d65db4)
_TO_BE = re.compile(
    r"\b(?:want|would like|need|like)\s+(?:the|my|its|that|this)\s+(?P<field>[\w ]{2,40}?)\s+"
    r"to\s+(?:be|become|reach|equal)\s+\$?(?P<number>\d[\d,]*(?:\.\d+)?)\b",
    re.I,
)


# "update my email to hfarmer@icloud.com", its gold setting another (medicine-intent-00058 on
# b5cbf4f, whose facts held both)
_TO_EMAIL = re.compile(
    r"\b(?:change|update|set|switch|correct|replace|modify)\b[^.?!]{0,40}?\bto\s+"
    r"(?P<email>[\w.+-]+@[\w-]+(?:\.[\w-]+)+)",
    re.I,
)


_YOUR = re.compile(r"\byour((?:\s+[\w-]+){1,3})", re.I)
_MODIFIERS = frozenset({"own", "current", "new", "old", "next", "last", "upcoming", "recent"})


def owned_as_yours(text: str, seed: SeedFacts) -> str | None:
    """The user's own record called the assistant's: basketball-intent-00019 on 277c846,
    "move the ticket player from your active ticket on your game on June 26", a team's
    ticket of its own game. A record of the business ("one of your tables") is its own;
    only a kind the asker owns, after nothing but a state or "own", "current" and the like."""
    owned = {*seed.owner, *([seed.people] if seed.people else [])}
    kinds = set().union(*(entity_words(t) for t in owned))
    states = {
        w for t in owned for vals in seed.states.get(t, {}).values() for v in vals for w in words(v)
    }
    for m in _YOUR.finditer(text):
        said = words(m.group(1))
        for k, word in enumerate(said):
            if word in kinds or singular(word) in kinds:
                return " ".join(["your", *said[: k + 1]])
            if word not in _MODIFIERS | states:
                break
    return None


# the user offering to tell what they want told: "Can I cancel it and tell you the status?"
_TELL_YOU = re.compile(
    # "and then tell you the current station status" (weather-intent-00033 on 8a86ecf)
    # and "I'll provide you with the card ID and status" (finance-intent-00062 on 8a47752);
    # an offer ends with its clause: "I can give you my card number, and then tell me ..."
    r"\b(?:I(?:['’]ll|\s+will|\s+can|\s+could|\s+would)?|and|to|also)\s+(?:(?:also|then)\s+)?"
    r"(?:tell|inform|notify|show|give|provide)\s+you\b"
    r"([^.?!;,]{0,60})",
    re.IGNORECASE,
)


# a request to reach someone: basketball-intent-00056 on 31bc8d2, "Please create a ticket
# ... by sending the information to twarren@hotmail.com"; 00032, "Please contact
# sally@outlook.com"
_SENDS = re.compile(
    r"\b(?:send|sending|forward|forwarding|contact|contacting|notify|notifying|e-?mail me)\b"
    r"[^.?!]{0,60}?[\w.+-]+@[\w-]+\.[\w.]+",
    re.I,
)
_SENDERS = {"send", "forward", "contact", "notify", "mail", "message"}


def asks_to_send(task: Task, tools: Mapping[str, Tool]) -> str | None:
    """The words that ask the agent to send something to an email address, where no tool
    sends anything: an agent trained on it learns to promise what it cannot do."""
    m = _SENDS.search(task.instruction)
    if m is None or any(_SENDERS & set(words(name)) for name in tools):
        return None
    return f"the instruction asks {m.group()!r}, and no tool sends anything"


# a request written to the person whose record it is: basketball-intent-00026 on 31bc8d2,
# "Can you please update your status to active? I want you to join the team", of a player
_SPOKEN_TO = re.compile(
    r"\b(?:update|change|set) your (?:own )?status\b|\bI want you to (?:join|play|sign)\b", re.I
)


def told_to_assistant(task: Task) -> str | None:
    """The words where the user offers the assistant a value the gold tells the user ("I
    want to cancel my warning alert and tell you the alert status", weather-intent-00014 on
    aedf9df; "suspend Shannon Bentley and inform you of their current status"): the
    assistant's line, the roles swapped."""
    told = {w for ref in task.communicate for w in words(ref.path.split(".")[-1])}
    for m in _TELL_YOU.finditer(task.request()):
        if told & {singular(w) for w in tokens(m.group(1))} | told & set(tokens(m.group(1))):
            return m.group().strip()
    return None


def check(
    task: Task, tools: dict[str, Tool], schema: Schema, replay: Replay, seed: SeedFacts
) -> Rejection | None:
    if (detail := reads_like_calls(task, tools)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.READS_LIKE_CALLS, detail=detail)
    if (said := assistant_voiced(task.instruction)) is not None:
        detail = f"the instruction says {said!r}: an assistant's words, not the customer's"
        return Rejection(stage=STAGE, reason=IntentReason.ASSISTANT_VOICE, detail=detail)
    # weather-intent-00005 on 706f9af knew "I am a weather service assistant"
    if said := next(filter(None, map(assistant_voiced, task.known_facts)), None):
        detail = f"a known fact says {said!r}: an assistant's words, not the customer's"
        return Rejection(stage=STAGE, reason=IntentReason.ASSISTANT_VOICE, detail=detail)
    if (said := told_to_assistant(task)) is not None:
        detail = f"the instruction says {said!r}: the user offers what they ask to be told"
        return Rejection(stage=STAGE, reason=IntentReason.ASSISTANT_VOICE, detail=detail)
    if (said := owned_as_yours(task.instruction, seed)) is not None:
        detail = f"the instruction says {said!r} of the user's own record: an assistant's words"
        return Rejection(stage=STAGE, reason=IntentReason.ASSISTANT_VOICE, detail=detail)
    if (said := dangling_reference(task.instruction)) is not None:
        detail = f"the instruction says {said!r}, and holds no such thing"
        return Rejection(stage=STAGE, reason=IntentReason.DANGLING_REFERENCE, detail=detail)
    entities = schema_entities(schema)
    people = schema.people()
    user = singular(people.name) if people is not None else None
    if m := _SPOKEN_TO.search(task.instruction):
        detail = f"the instruction says {m.group()!r}: written to the record's person"
        return Rejection(stage=STAGE, reason=IntentReason.THIRD_PERSON, detail=detail)
    if (said := third_person(task.instruction, entities, user)) is not None:
        detail = f"the instruction says {said!r}: someone else's record, not the user's own"
        return Rejection(stage=STAGE, reason=IntentReason.THIRD_PERSON, detail=detail)
    # ecommerce-intent-00063 on 8d65db4 knew "The customer wants to move the open return."
    if said := next(filter(None, map(narrated, task.known_facts)), None):
        detail = f"a known fact says {said!r}: told about the user, not what they know"
        return Rejection(stage=STAGE, reason=IntentReason.THIRD_PERSON, detail=detail)
    if user and (
        said := next(filter(None, (of_the_user(f, user) for f in task.known_facts)), None)
    ):
        detail = f"a known fact says {said!r}: told about the user, not what they know"
        return Rejection(stage=STAGE, reason=IntentReason.THIRD_PERSON, detail=detail)
    if (detail := named_self(task, schema, replay, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.THIRD_PERSON, detail=detail)
    if (said := greets_a_name(task.instruction)) is not None:
        detail = f"the instruction says {said!r}: an assistant's words, not the customer's"
        return Rejection(stage=STAGE, reason=IntentReason.ASSISTANT_VOICE, detail=detail)
    if (detail := unidentified_user(task, tools, schema)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNIDENTIFIED_USER, detail=detail)
    if (detail := asks_after_refusal(task, tools)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.ASKS_AFTER_REFUSAL, detail=detail)
    if (detail := refused_as_is(task, tools, replay)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.REFUSED_AS_IS, detail=detail)
    if (detail := unasked_write(task, tools, schema)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_WRITE, detail=detail)
    if (detail := unserved_request(task, tools, schema)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNSERVED_REQUEST, detail=detail)
    if (detail := asks_to_send(task, tools)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNSERVED_REQUEST, detail=detail)
    if (detail := unasked_target(task, tools, schema, replay, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := unlisted_twin(task, tools, schema, replay, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := acted_on_self(task, tools, schema, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := unlike_its_reference(task, tools, replay, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := this_names_another(task, tools)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := new_beside_old(task, tools, replay)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := from_the_destination(task, tools)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := unsaid_destination(task, tools, replay)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_TARGET, detail=detail)
    if (detail := unasked_value(task, tools, schema)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_VALUE, detail=detail)
    if (detail := told_of_either(task, tools, schema, replay, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_VALUE, detail=detail)
    if (detail := told_of_the_other_end(task, tools, replay)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNASKED_VALUE, detail=detail)
    if (detail := untold_value(task, tools, schema, replay, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNTOLD_VALUE, detail=detail)
    if (detail := unknowable_state(task, schema, seed)) is not None:
        return Rejection(stage=STAGE, reason=IntentReason.UNTOLD_VALUE, detail=detail)
    if detail := stale_value(task, tools, schema, replay):
        return Rejection(stage=STAGE, reason=IntentReason.STALE_VALUE, detail=detail)
    if detail := asked_before_told_after(task, tools, schema, replay, seed):
        return Rejection(stage=STAGE, reason=IntentReason.ASKED_BEFORE_TOLD_AFTER, detail=detail)
    if detail := unmet_wish(task, replay, seed) or part_for_whole(task, tools, replay):
        return Rejection(stage=STAGE, reason=IntentReason.UNMET_WISH, detail=detail)
    return None


def run(ctx: TaskContext) -> Rejection | None:
    return check(ctx.worded, ctx.env.tools, ctx.env.spec.schema_, ctx.replayed, ctx.seed_facts)
