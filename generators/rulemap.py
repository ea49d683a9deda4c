"""A rule of the brief mapped onto catalogue conditions without a model: the fallback when
the model's choice is unusable. It reads the few phrasings briefs use ("at most 10000",
"5 times the client's annual_income", "at most 2 cards with status active", "an active
account", "its balance is exactly 0", "greater than 0", "must differ") and picks the write
candidate the rule is about by its verb and nouns. What it cannot read stays unmapped, and
the run reports the rule as not enforced: a guess never passes for coverage it is not."""

from __future__ import annotations

import re

from generators.allowances import allowance_said
from generators.patterns import (
    COUNT_WORDS,
    EVERY,
    Candidate,
    Condition,
    enum_values,
    link,
    reachable,
    resolve_row,
    sold_column,
    span,
    status_column,
    stock_column,
)
from toolscale.schema import Schema, Table
from toolscale.wording import entity_words, record_phrase, schema_entities, singular, words

STEMS = {
    "transfer": ("transfer", "move", "send"),
    "create": (
        *("issu", "new", "open", "apply", "creat", "add", "borrow", "lend", "lent", "book"),
        *("sell", "sold", "buy", "bought", "purchas", "place", "enrol", "regist", "prescrib"),
        *("hold", "record", "sign", "make"),
    ),
    "adjust": ("repay", "pay", "withdraw", "redeem", "spend", "deduct"),
    "topup": ("deposit", "top up"),
    "update": ("chang", "updat"),
    "cancel": ("cancel", "refund"),
    "move": ("move", "trade", "traded", "transfer", "reassign"),
}
TARGET_STEMS = {
    "active": ("activ", "unfroz", "unfreez", "unblock", "reactiv"),
    "frozen": ("froz", "freez"),
    "closed": ("clos",),
    "blocked": ("block",),
    "suspended": ("suspend",),
    "dropped": ("drop",),
    "shipped": ("ship",),
    "finished": ("finish", "record", "complet", "play"),
    "completed": ("complet", "record", "finish"),
}
GUARDS = {  # a candidate's built-in checks, as rules phrase them (`charges`: allowance_said)
    "positive": r"greater than 0|more than 0|positive",
    "enough": r"at least the (?:amount|quantity|number)|enough|sufficient",
    "takes": r"then goes down|goes down by|is reduced by|decreases by",
    "restocks": r"back in(?:to)? stock|restock|seats? back|back on sale",
    "distinct": r"differ|not the same",
    "differs": r"\balready\b|differ|not the same",
    "not_above": r"at most the|not exceed the|no more than the|(?:cannot|not|never) go below 0",
    "close_at_zero": r"to 0 becomes|repaid to 0|reaches 0",
}
COMPARISONS = {"below", "above", "under", "over", "less", "more", "greater", "at", "not", "within"}
NEGATION = r"\b(cannot|not|never|no)\b"
NUMBER = r"(\d[\d,]*(?:\.\d+)?|" + "|".join(COUNT_WORDS) + ")"


def _number(text: str) -> float:
    return float(COUNT_WORDS.get(text, 0) or text.replace(",", ""))


def _stems(cand: Candidate) -> tuple[str, ...]:
    if cand.pattern == "status" and cand.sets is not None:
        return TARGET_STEMS.get(cand.sets[2], (cand.sets[2][:5],))
    if cand.pattern == "use":  # `refill_prescription`: "can be refilled"
        return (cand.tool.name.split("_")[0][:6], "use")
    return STEMS.get(cand.pattern, ())


def _score(cand: Candidate, text: str, verb: str) -> int:
    if cand.tool.kind != "write":
        return 0
    if cand.pattern == "move" and changes(verb):
        # "a reservation can be changed only while ...": moving the reservation to another
        # table changes it (the rule need not name the table it moves to)
        return 5 if is_subject(cand.rows.get(cand.main, ""), text) else 0
    if cand.pattern == "move" and not all(
        re.search(rf"\b{singular(t).replace('_', ' ')}", text) for t in cand.rows.values()
    ):
        return 0  # "a ticket can be moved to another trip": the ticket and the trip
    # "tickets with status active" names a state, not an activation
    said = re.sub(r"\bstatus(?: is| of)? \w+(?:(?: or |, )\w+)*", " ", text)
    nouns = set().union(*(entity_words(t) for t in {*cand.rows.values(), cand.creates or ""}))
    said = " ".join(w for w in said.split() if w.strip(".,;") not in nouns)  # an enrollment
    said = re.sub(r"\b\w+_\w+\b", " ", said)  # a column's name (booked_at) is no verb
    score = 0
    if any(re.search(rf"\b{s}", said) for s in _stems(cand)):
        score += 2
    if verb and any(v.startswith(s) for v in _verbs(text, verb) for s in _stems(cand)):
        score += 3
    limits = (
        " ".join(w for w in _limited(m, text)[:2] if w)
        for m in _LIMIT.finditer(text)
        if not m["none"]
    )
    if cand.creates and any(re.search(rf"\b{singular(cand.creates)}", n) for n in limits):
        score += 3  # "may hold at most 4 tickets": a limit on making one more
    if verb and cand.creates and len(verb) >= 4 and singular(cand.creates).startswith(verb[:4]):
        score += 2  # "cannot book a movie rated R": a booking is what booking makes
    if not score or (verb and score < 3):
        return 0  # the rule never says the operation (or says another): tables are not enough
    attribute = cand.id.split(".", 1)[1].split("=")[0] if "." in cand.id else ""
    if cand.pattern == "update" and attribute and attribute.replace("_", " ") not in text:
        return 0  # "an order's shipping address can be changed ..." is no customer's email
    main = cand.creates or (cand.sets[0] if cand.sets else cand.rows.get(cand.main, ""))
    if cand.creates and re.match(rf"(?:an? |the )?{singular(cand.creates)} with status", text):
        return 0  # "a trip with status cancelled cannot be booked": the trip exists already
    if main and re.search(rf"\b{record_phrase(main)}", text):
        score += 2  # the table it is about
    if main and re.search(rf"\b{record_phrase(main)}s?\b", _subject(text)):
        # and the rule's subject: "a (first class) ticket can be sold only ..."; "a flight
        # booking ..." is a booking's rule more than a flight's
        score += 1 + ("_" in singular(main))
    if any(re.search(rf"\b{record_phrase(t)}", text) for t in set(cand.rows.values()) - {main}):
        score += 1
    # a rule that states a candidate's own checks ("at most the outstanding balance") is
    # about it, not about a status change whose word it shares ("repaid")
    score += _guards_said(cand, text)
    column = cand.id.split(".", 1)[1].split("=")[0] if "." in cand.id else ""
    # a create taking stock is about its stock where the rule says it goes down: travel's
    # "the hotel must have rooms_available above 0" is a hotel booking's check, no taking
    taking = cand.variant is not None and cand.variant.how == "taking"
    taking = taking and not re.search(GUARDS["takes"], text)
    if column and column in text and not taking:
        score += 1
    if verb and cand.sets is not None and cand.sets[2] == verb:
        # "can be refunded" is the write that sets `refunded`, where a cancel may also
        # be called a refund (railway on de87116 gave the refund's rule to the cancel)
        score += 1
    return score


def _verbs(text: str, verb: str) -> list[str]:
    """The rule's verb and the one it offers beside it: "can be changed or cancelled"."""
    other = re.search(rf"\b{re.escape(verb)} or (\w+)", text)
    return [verb, other.group(1)] if other else [verb]


_CHANGE = ("chang", "modif", "alter", "edit", "amend")


def changes(verb: str) -> bool:
    """The rule's verb is a change of the record as a whole ("can be changed")."""
    return verb.startswith(_CHANGE)


def is_subject(table: str, text: str) -> bool:
    """The rule is about a record of this table itself ("a reservation can be changed"),
    not about one of its fields ("the shipping address of an order can be changed")."""
    return bool(table) and bool(
        re.match(rf"(?:an? |the |each |every )?{record_phrase(table)}s?\b", _subject(text))
    )


def verb_parts(rule: str) -> list[str]:
    """The rule once per operation it names: "a reservation can be changed or cancelled
    only while ..." restricts a change and a cancellation alike, so each is mapped on its
    own (as one rule it went to the cancellation alone, and a move of a seated
    reservation to another table broke it)."""
    text, verb = rule.strip(), rule_verb(rule)
    m = re.search(rf"\b({re.escape(verb)}) or (\w+)", text, re.IGNORECASE) if verb else None
    if m is None or m.group(2).lower() in _NO_OPERATION:
        return [rule]
    return [text[: m.start()] + m.group(i) + text[m.end() :] for i in (1, 2)]


def _subject(text: str) -> str:
    """What a rule is about: its words before the verb ("a first class ticket")."""
    return re.split(r"\b(?:can|cannot|may|must|needs?|requires?)\b", text)[0]


def rule_verb(rule: str) -> str:
    """The operation a rule restricts, as it says it: "can only be closed" → closed, "cannot
    be set back to active" → active."""
    m = re.search(r"can(?:not)? (?:only )?(?:be )?(?:set (?:back )?to )?(\w+)", rule.lower())
    return m.group(1) if m and m.group(1) not in _NO_OPERATION else ""


# "cannot exceed", "cannot go below 0": a bound, said without the operation it bounds
_NO_OPERATION = {"exceed", "go", "fall", "differ", "equal", "be"}


_EITHER = re.compile(r",? or (?=(?:when|if|while|whenever)\b)")
_FIRST_CASE = re.compile(r"\b(?:within|when|if|while|before|after)\b")


def either_case(rule: str) -> bool:
    """The rule allows the operation in either of two cases ("only within 24 hours of its
    booked_at time or when the flight's status is cancelled"): conditions that must all
    hold enforce one case and refuse the other, so only an `either` says it."""
    return bool(_EITHER.search(rule.lower()))


def either_parts(rule: str) -> tuple[str, str] | None:
    """The two cases of such a rule, each as a rule of its own: "a flight booking gets a
    full refund only within 24 hours of its booked_at time" and "a flight booking gets a
    full refund only when the flight's status is cancelled"."""
    text = rule.lower().strip().rstrip(".")
    m = _EITHER.search(text)
    if m is None:
        return None
    first, second = text[: m.start()], text[m.end() :]
    only = re.search(r"\bonly\b", first)
    opening = only.end() if only else (c.start() if (c := _FIRST_CASE.search(first)) else -1)
    if opening < 0:
        return None
    return first + ".", f"{first[:opening].rstrip()} {second}."


def says_other_operation(rule: str, cand: Candidate) -> bool:
    """The rule names its operation ("can be moved") and it is not this candidate's: the
    same test the wording fallback passes, asked of the model's mapping."""
    verb = rule_verb(rule)
    return bool(verb) and cand.tool.kind == "write" and _score(cand, rule.lower(), verb) == 0


def candidate_for(rule: str, candidates: list[Candidate]) -> Candidate | None:
    """The write the rule is about: its verb ("can only be closed", "cannot borrow") weighs
    most."""
    return next(iter(candidates_for(rule, candidates)), None)


def candidates_for(rule: str, candidates: list[Candidate]) -> list[Candidate]:
    """The writes the rule may be about, best first (`candidate_for`'s pick leads): where
    two score alike ("a player can be signed": a new player, or a new contract), the one
    whose rows the rule's conditions can read is the one to take."""
    if either_case(rule):  # the operations both cases may be about, as the first ranks them
        parts = either_parts(rule)
        if parts is None:
            return []
        second = candidates_for(parts[1], candidates)
        return [c for c in candidates_for(parts[0], candidates) if c in second]
    if allowance_said(rule) is not None:  # "each extra bag costs 50": the adding that charges
        return [c for c in candidates if c.pattern == "charge"][:1]
    text, verb = rule.lower(), rule_verb(rule)
    summed = _SUM.search(text)
    if summed and summed["child"]:  # "the sum of ... of a team's active contracts": a new one
        noun = singular(summed["child"])
        made = [c for c in candidates if c.creates and singular(c.creates).endswith(noun)]
        if made and made[0].tool.kind == "write":
            return made[:1]
    scored = [(_score(c, text, verb), i, c) for i, c in enumerate(candidates)]
    ranked = [c for score, _, c in sorted(scored, key=lambda s: (-s[0], s[1])) if score >= 3]
    # no operation said: "a reservation's party_size must be between 1 and 12", "one
    # booking holds between 1 and 10 seats" are about the record as it is made
    subject = _subject(text)
    made = [
        c
        for c in candidates
        if c.creates
        and c.tool.kind == "write"
        and re.match(rf"(?:an? |the |one )?{singular(c.creates).replace('_', ' ')}", subject)
    ]
    # ... the one whose own checks the rule says first: travel's "a flight booking needs
    # ... seats_available then goes down" is the booking that takes a seat
    made = sorted(made, key=lambda c: -_guards_said(c, text))[:1]
    if not verb and made and ranked and _moves_what_it_reads(ranked[0], made[0], subject):
        return made
    if ranked or verb:
        return ranked
    return made


def _moves_what_it_reads(ranked: Candidate, made: Candidate, subject: str) -> bool:
    """The first-ranked is a change of state of another table than the one the rule's
    subject makes: travel's 1.5B flights on f716f2d were scheduled, active or cancelled, so
    the flight's move to scheduled took "a flight booking needs the flight's status to be
    scheduled", and no booking checked its flight."""
    phrase = singular(made.creates or "").replace("_", " ")
    whole = re.fullmatch(rf"(?:an? |the |one )?{phrase}s?\s*", subject)
    return bool(whole) and ranked.sets is not None and ranked.sets[0] != made.creates


def _guards_said(cand: Candidate, text: str) -> int:
    return sum(1 for g in cand.guards if g in GUARDS and re.search(GUARDS[g], text))


def guess_conditions(
    rule: str, cand: Candidate, schema: Schema, seed: dict[str, list[dict]] | None = None
) -> list[Condition]:
    """The conditions the rule's phrasing states, on `cand`'s rows (status words are the
    values the schema's CHECK or else the seed has); for a rule about one kind of record
    ("a first class ticket", "a medication marked controlled"), each holds only in that
    case, and a kind it cannot read gives none (the rule would be enforced on every record)."""
    if cand.pattern == "charge":  # its charge is the rule: nothing else to require
        charges = allowance_said(rule) is not None
        return [Condition(kind="guard", guard="charges")] if charges else []
    if cand.pattern == "move" and (same := _same_as(rule.lower(), cand, schema)) is not None:
        return same
    if either_case(rule):
        return _either(rule, cand, schema, seed)
    text = rule.lower()
    case, unread = _case(text, cand, schema, seed or {})
    if unread:
        return []
    out = _stated(text, cand, schema, seed) + _flags(text, cand, schema)
    if (
        case
        and case.get("if_row")
        and re.search(NEGATION, text)
        and all(c.kind == "guard" for c in out)
    ):  # "an enrollment in a course marked core cannot be dropped": never in that case
        row, column, value = case["if_row"], case["if_column"], case["if_value"]
        ban = Condition(kind="value", row=str(row), column=str(column), op="<>", value=value)
        return [*out, ban]
    if case:
        out = [c if c.kind == "guard" else c.model_copy(update=case) for c in out]
    return out


def _either(
    rule: str, cand: Candidate, schema: Schema, seed: dict[str, list[dict]] | None
) -> list[Condition]:
    """One `either` of the two cases' conditions, where each case reads as exactly one
    (a case read as two, or as none, leaves the rule unmapped)."""
    parts = either_parts(rule)
    if parts is None:
        return []
    cases = []
    for part in parts:
        read = [c for c in guess_conditions(part, cand, schema, seed) if c.kind != "guard"]
        if len(read) != 1 or read[0].if_parameter or read[0].if_column:
            return []
        cases.append(read[0])
    return [Condition(kind="either", cases=cases)]


_PLAIN = {"a", "an", "the", "one", "new", "own", "existing", "other", "each", "every", "any"}


def _case(
    text: str, cand: Candidate, schema: Schema, seed: dict[str, list[dict]]
) -> tuple[dict[str, str | float], bool]:
    """The case a rule is about, as `if_` fields of a condition, and whether its subject
    names a kind of record this cannot read: "a first class ticket" (a value of the new
    ticket's parameter), "a medication marked controlled" (a flag of a row the call reads);
    "a frozen card" is a status, read as a condition of its own."""
    subject = _subject(text)
    named: list[tuple[str | None, Table]] = (
        [(None, schema.table(cand.creates))] if cand.creates else []
    )
    named += reachable(cand, schema)
    entities = schema_entities(schema)
    for table in schema.tables:
        noun = singular(table.name).replace("_", " ")
        m = re.search(rf"\b(?:an?|the|one) ((?:[a-z_]+ ){{0,3}}){noun}s?\b(.*)", subject)
        if m is None:
            continue
        found = status_column(table, seed)
        states = set(found[1]) if found else set()  # "a frozen card": a status condition
        qualifier = [w for w in m.group(1).split() if w not in _PLAIN | states | entities]
        flag = re.match(r"\s*(?:marked|flagged|labell?ed)(?: as)? (\w+)", m.group(2))
        if not (flag or qualifier):
            return {}, False
        row = next((r for r, t in named if t.name == table.name), "")
        if row == "":
            return {}, True  # a kind of record the operation does not touch
        case = _flag_case(table, row, flag[1]) if flag else None
        case = case or _value_case(table, row, qualifier, cand)
        return (case or {}), case is None
    return {}, False


def _flag_case(table: Table, row: str | None, word: str) -> dict[str, str | float] | None:
    """ "a medication marked controlled": the row's flag with that word is set (for the row
    a create adds, its parameter)."""
    column = next(
        (c.name for c in table.columns if c.type == "boolean" and word in words(c.name)), None
    )
    if column is None:
        return None
    if row is None:
        return {"if_parameter": column, "if_value": 1.0}
    return {"if_row": row, "if_column": column, "if_value": 1.0}


def _value_case(
    table: Table, row: str | None, qualifier: list[str], cand: Candidate
) -> dict[str, str | float] | None:
    """ "a first class ticket": a column (or, for the row a create adds, a parameter) that
    allows the qualifier as a value, "first_class" or "first"."""
    props = cand.tool.parameters.get("properties", {})
    for value in ["_".join(qualifier), *qualifier]:
        if row is None:
            param = next((p for p, v in props.items() if value in v.get("enum", [])), None)
            if param is not None:
                return {"if_parameter": param, "if_value": value}
            continue
        for c in table.columns:
            if value in (table.enum_values(c.name) or []):
                return {"if_row": row, "if_column": c.name, "if_value": value}
    return None


def _flags(text: str, cand: Candidate, schema: Schema) -> list[Condition]:
    """Flags a rule wants set on a row the call reads: "a trip whose train has
    has_first_class set to true", "a doctor with can_prescribe_controlled set to true"."""
    out: list[Condition] = []
    rows = reachable(cand, schema)
    for m in re.finditer(r"\b([a-z][a-z0-9_]*) (?:is |set to |= )(true|false)\b", text):
        name = m.group(1)
        holders = [(r, t) for r, t in rows if name in t.column_names]
        holders = [(r, t) for r, t in holders if t.column(name).type == "boolean"]
        if not holders:
            continue
        before = text[: m.start()]
        row, _ = max(holders, key=lambda h: before.rfind(singular(h[1].name).split("_")[-1]))
        op = "<>" if _negated(text, m.start()) else "="
        value = 1.0 if m.group(2) == "true" else 0.0
        out.append(Condition(kind="value", row=row, column=name, op=op, value=value))
    return out


_SAME_AS = re.compile(
    r"\bhas the same (?P<what>[a-z_ ]+?)(?: and (?:free|available|open) (?P<free>\w+))?"
    r"\s*(?:[.,;]|$)"
)


def _same_as(text: str, cand: Candidate, schema: Schema) -> list[Condition] | None:
    """Railway's "a ticket can be moved to another trip only if that trip has the same
    origin and destination stations and free seats" (5 of 6 rules on every railway run): the
    new parent's columns equal the current one's, and it has a seat left. None where the
    rule says no "same", or names a column the new parent lacks (the rule would be enforced
    in part)."""
    m = _SAME_AS.search(text)
    new = next((p for p in cand.rows if p != cand.main), None)
    if m is None or new is None:
        return None
    parent = schema.table(cand.rows[new])
    current = f"{cand.main}.{new.removeprefix('new_')}"  # the ticket's trip, as it is
    parts = [p.split() for p in m["what"].split(" and ")]
    noun = singular(parts[-1][-1]) if len(parts[-1]) > 1 else ""  # "... destination stations"
    out = []
    for part in parts:
        said = {singular(w) for w in part} | ({noun} if noun else set())
        column = next((c.name for c in parent.columns if said <= set(c.name.split("_"))), None)
        if column is None:
            return None
        out.append(Condition(kind="compare", row=new, column=column, op="=", other=current,
                             other_column=column))  # fmt: skip
    if m["free"]:
        seats = _seat_left(parent, new, schema)
        if seats is None:
            return None
        out.append(seats)
    return out


def _seat_left(parent: Table, new: str, schema: Schema) -> Condition | None:
    """A seat left on the new parent: its stock above 0, or what it sold below its (or its
    own parent's) capacity."""
    free = stock_column(parent)
    if free is not None:
        return Condition(kind="value", row=new, column=free, op=">", value=0.0)
    sold = sold_column(parent)
    if sold is None:
        return None
    if "capacity" in parent.column_names:
        return Condition(kind="compare", row=new, column=sold, op="<", other=new,
                         other_column="capacity")  # fmt: skip
    for fk in parent.foreign_keys:
        if len(fk.columns) == 1 and "capacity" in schema.table(fk.ref_table).column_names:
            return Condition(kind="compare", row=new, column=sold, op="<",
                             other=f"{new}.{fk.columns[0]}", other_column="capacity")  # fmt: skip
    return None


def _stated(
    text: str, cand: Candidate, schema: Schema, seed: dict[str, list[dict]] | None
) -> list[Condition]:
    negated = bool(re.search(NEGATION, text))
    out: list[Condition] = []
    for guard, phrase in GUARDS.items():
        if guard in cand.guards and re.search(phrase, text):
            out.append(Condition(kind="guard", guard=guard))
    tables = {t.name: t for t in schema.tables}
    limit = rf"(?:at most|no more than|up to|cannot exceed|maximum of) {NUMBER}\b(?! times)"
    for m in re.finditer(limit + r"(?: (\w+))?(?: (\w+))?", text):
        nouns = [m.group(2) or "", m.group(3) or ""]  # "at most 6 active enrollments" counts
        if cand.amount and not any(n.startswith(singular(t)) for t in tables for n in nouns):
            out.append(Condition(kind="amount", op="<=", value=_number(m.group(1))))
    rows = list(cand.rows.items())
    for m in re.finditer(rf"{NUMBER} times the (\w+)'s (\w+)", text):
        row = next((p for p, t in rows if m.group(3) in tables[t].column_names), None)
        if row and cand.amount:
            out.append(
                Condition(
                    kind="amount",
                    row=row,
                    column=m.group(3),
                    op="<=",
                    factor=_number(m.group(1)),
                )
            )
    cost = re.search(rf"\bcosts? (?:exactly )?{NUMBER} (\w+)", text)
    if cost and cand.amount and cand.pattern == "adjust" and cost.group(2) in cand.id:
        # "redeeming a free ticket costs 100 loyalty points": the amount is that
        out.append(Condition(kind="amount", op="=", value=_number(cost.group(1))))
    params = set(cand.tool.param_types())
    out += _counts(text, rows, tables, seed or {}, cand.creates, params)
    out += _between(text, cand)
    out += _pairs(text, cand) + _future(text, cand, schema) + _hours(text, cand)
    out += _ages(text, cand, schema)
    sums = _sums(text, cand, schema, seed or {})
    crossed = _cross_row(text, cand, schema, matched_guards={c.guard for c in out})
    # "the new seats cannot exceed the screen's capacity" is the sum's last term, not a bound
    # (of a move, the moved record's own seats against the capacity: the sum's last term)
    bounded = {(c.total, c.other_column) for c in sums}
    out += sums + [
        c
        for c in crossed
        if (c.parameter, c.column) not in bounded and (c.column, c.other_column) not in bounded
    ]
    source = "source" in text or "from" in text
    subject = _subject(text)
    for row, table_name in rows:
        target = tables[table_name]
        if len(rows) > 1 and row.startswith("to_") and source:
            continue
        about = not cand.creates and singular(table_name).replace("_", " ") in subject
        for column in target.columns:
            name = column.name
            if column.type == "boolean" and re.search(
                rf"\b{name} (?:is |set to |= )(?:true|false)", text
            ):
                continue  # a flag: `_flags`
            kept = re.search(rf"\bwith {name} (\w+)", subject) if about else None
            kept = None if "status" in name else kept  # a status is read by `_statuses`
            if kept:  # "a flight booking with fare_class basic_economy cannot be changed"
                said: str | float = kept.group(1)
                if column.type == "boolean" and said in ("true", "false"):
                    said = 1.0 if said == "true" else 0.0
                op = "<>" if _negated(text, kept.start()) else "="
                out.append(Condition(kind="value", row=row, column=name, op=op, value=said))
                continue
            found = re.search(rf"\b{name} is (?:exactly )?(?:not )?{_VALUES}", text)
            owner = re.search(rf"\b(\w+) whose {name} is", text)
            others = {singular(t) for t in tables if t != table_name}
            if found and found.group(1) in COMPARISONS:
                found = None  # "refills_used is below refills_allowed": no value to match
            if found and owner and owner.group(1) in others:
                found = None  # "a doctor whose status is active" says nothing of the patient
            whose = re.search(rf"\b(\w+)'s {name} is", text)
            if found and whose and whose.group(1) in others:
                found = None  # "when the flight's status is cancelled": not the booking's
            if found and found.group(2):  # "whose status is suspended or graduated"
                listed = [found.group(1), *re.findall(r"\w+", found.group(2).replace(" or ", " "))]
                op = "not in" if _negated(text, found.start()) else "in"
                out.append(Condition(kind="in", row=row, column=name, op=op, values=listed))
                continue
            if found:
                raw = found.group(1)
                value: str | float = _number(raw) if re.fullmatch(r"[\d.]+", raw) else raw
                op = "<>" if _negated(text, found.start()) else "="
                out.append(Condition(kind="value", row=row, column=name, op=op, value=value))
                continue
            spaced = name.replace("_", " ")
            if column.type in ("real", "integer") and re.search(rf"(has|have|with) {spaced}", text):
                out.append(Condition(kind="value", row=row, column=name, op=">", value=0))
        out += _statuses(text, row, target, seed or {}, negated)
    named = set(cand.rows.values())
    for row, target in reachable(cand, schema):  # "if its game has status scheduled"
        if "." in row and target.name not in named:
            named.add(target.name)
            out += _statuses(text, row, target, seed or {}, negated)
            out += _kind_of(text, subject, row, target, cand, tables)
    return out


def _kind_of(
    text: str, subject: str, row: str, target: Table, cand: Candidate, tables: dict[str, Table]
) -> list[Condition]:
    """ "A flight booking with fare_class basic_economy cannot be changed": the fare class
    is the booked flight's, a row the booking points to."""
    main = tables[cand.rows[row.split(".")[0]]]
    if cand.creates or record_phrase(main.name) not in subject:
        return []
    out = []
    for column in target.columns:
        kept = re.search(rf"\bwith {column.name} (\w+)", subject)
        if kept and "status" not in column.name and column.name not in main.column_names:
            op = "<>" if _negated(text, kept.start()) else "="
            out.append(
                Condition(kind="value", row=row, column=column.name, op=op, value=kept.group(1))
            )
    return out


def _statuses(
    text: str, row: str, target: Table, seed: dict[str, list[dict]], negated: bool
) -> list[Condition]:
    """The statuses the rule allows (or bars) the row's table in: "an active account", "a
    trip with status scheduled or delayed"."""
    status = next((c for c in target.columns if "status" in c.name), None)
    if status is None:
        return []
    allowed = enum_values(target, status.name, seed)
    never = set(re.findall(rf"\bnever after the {singular(target.name)} is (\w+)", text))
    said = [v for v in _status_values(text, singular(target.name)) if v in allowed]
    said = [v for v in said if v not in never]  # "never after the game is finished"
    barred = [
        v
        for v in said
        if negated
        and (m := re.search(rf"with {status.name} {v}", text))
        and _negated(text, m.start())
    ]  # "a movie with status now_showing, on a screen that has no other ...": allowed
    out = []
    if barred:
        out.append(Condition(kind="in", row=row, column=status.name, op="not in", values=barred))
    if allowed_here := [v for v in said if v not in barred]:  # "scheduled or delayed"
        out.append(Condition(kind="in", row=row, column=status.name, values=allowed_here))
    return out


_VALUES = r"(\w+(?:\.\d+)?)((?:, \w+(?=,|,? or )|,? or \w+)*)"  # a value, then "or" more
_LIMIT = re.compile(
    rf"(?:(?:at most|no more than|up to) (?P<most>{NUMBER})"
    rf"|(?:cannot|not|never) have more than (?P<more>{NUMBER})"
    r"|(?:can|may) have only (?P<only>one)|(?:cannot|not|never) have (?P<two>two)|\b(?P<none>no))"
    r" (?P<first>\w+)(?: (?!with\b)(?P<second>\w+))?(?: with (?P<column>\w+) (?P<value>\w+))?"
)


def _keyed_by_value(before: str, child: Table) -> str | None:
    """The column of the child a limit's subject names ("an email address can have ..."):
    the rows counted are those with the new row's value of it, whoever's they are."""
    said = re.search(r"\b(\w+(?: \w+)?) (?:can|may|cannot) (?:only )?(?:have|hold)\s*$", before)
    if said is None:
        return None
    spoken = set(said.group(1).split())
    return next(
        (c.name for c in child.columns if c.type == "text" and set(words(c.name)) <= spoken),
        None,
    )


def _limited(
    m: re.Match[str], text: str, tables: dict[str, Table] | None = None
) -> tuple[str, str | None, str | None, str | None]:
    """(first word, second word, column, value) of a limit: "at most 15 players with an
    active contract" limits the active contracts."""
    through = re.match(r"\w+ with an? (\w+) (\w+)", text[m.start("first") :])
    known = tables is None or (through and any(through[2].startswith(singular(t)) for t in tables))
    if through and known:
        return through.group(1), through.group(2), None, None
    return m["first"], m["second"], m["column"], m["value"]


def _counts(
    text: str,
    rows: list[tuple[str, str]],
    tables: dict[str, Table],
    seed: dict[str, list[dict]],
    creates: str | None,
    params: set[str],
) -> list[Condition]:
    """Limits on how many child rows a row holds: "at most 2 cards with status active", "cannot
    have more than 6 active enrollments", "can have only one alert with status active", "has
    no contract with status active" (none before the operation); with
    "on the same trip", only those of that row too. A limit it cannot read whole (a filter
    or a "same" it cannot place) is left out: a looser or stricter guess is no rule."""
    out: list[Condition] = []
    cand_rows = dict(rows)
    text = re.sub(r"\bno other\b", "no", text)  # "has no other showtime": none but this one
    for m in _LIMIT.finditer(text):
        if m["none"] or m["two"]:  # "has no contract", "cannot have two reservations"
            number = 1 if m["two"] else 0
        else:
            number = int(_number(m["most"] or m["more"] or m["only"]))
        first, second, column, value = _limited(m, text, tables)
        owner_said = re.search(
            r"\b(\w+) (?:can |may |cannot )?(?:has|have|holds?)?\s*$", text[: m.start()]
        )
        holder_table = next(
            (t for t in tables if owner_said and owner_said.group(1) in entity_words(t)), None
        )
        if holder_table and not any(t == holder_table for _, t in rows):
            continue  # "the player has no contract": no player the call names
        child = next((t for t in tables if first.startswith(singular(t))), None)
        adjective = None
        if child is None and second:
            child = next((t for t in tables if second.startswith(singular(t))), None)
            adjective = first
        if child is None:
            continue
        if adjective is not None:  # "6 active enrollments": a status word of the child
            status = next((c.name for c in tables[child].columns if "status" in c.name), None)
            if status is None or adjective not in enum_values(tables[child], status, seed):
                continue
            column, value = status, adjective
        if column and column not in tables[child].column_names:
            continue
        if child == creates and (keyed := _keyed_by_value(text[: m.start()], tables[child])):
            # "an email address can have at most 5 subscriptions, and only one per region"
            every = {"kind": "count", "row": EVERY, "child": child, "column": column or ""}
            out.append(Condition(**every, value=value, number=number, per=keyed))
            one = re.search(r"\bonly one per (\w+)", text[m.end() :])
            also = next(
                (p for p in sorted(params) if one and singular(one.group(1)) in words(p)), None
            )
            if also is not None:
                out.append(Condition(**every, value=value, number=1, per=f"{keyed},{also}"))
            continue
        same = re.search(
            r"\b(?:on|for|in|of|at) the same (\w+)(?: and (\w+(?: \w+)?))?", text[m.end() :]
        )
        word = same.group(1) if same else None
        if word is None and re.search(r"\btime when\b", text[: m.start()]):
            word = "time"  # "at a future time when that doctor has no other appointment"
        times = [p for p in sorted(params) if "time" in words(p)]
        if word == "time" and not same and child == creates and span(times):
            word = ",".join(times)  # "at a time when": the new row's span, start to end
        elif word and child == creates and word not in params:
            # "starting at the same time": the new row's own time (movie on 3d6f8ed named
            # it `showtime_date`: the one moment of the row is its time)
            moments = [p for p in sorted(params) if {"date", "datetime", "at"} & set(words(p))]
            word = next((p for p in sorted(params) if word in words(p)), None) or (
                moments[0] if word == "time" and len(moments) == 1 else word
            )
        if same and same.group(2) and child == creates and word in params:
            # "on the same date and time slot": both of the new row's own values
            also = same.group(2).replace(" ", "_")
            also = next((p for p in sorted(params) if p == also or also in p), "")
            if not also:
                continue
            word = f"{word},{also}"

        def nearest(row_table: tuple[str, str], before: str = text[: m.start()]) -> int:
            """ "on a screen that has no other showtime": the row named last before it."""
            return max(before.rfind(w) for w in entity_words(row_table[1]))

        for row, table in sorted(rows, key=nearest, reverse=True):
            if link(tables[child], tables[table]) is None:
                continue
            per = next(
                (p for p, t in rows if word and p != row and singular(word) in entity_words(t)),
                "",
            )
            if word and not per and child == creates and set(word.split(",")) <= params:
                per = word  # "of the same alert_type": the new row's own value
            if word and not per:  # "in the same term": a column of a row the call names
                per = next(
                    (
                        f"{p}.{word}"
                        for p, t in rows
                        if p != row
                        and word in tables[t].column_names
                        and link(tables[child], tables[t]) is not None
                    ),
                    "",
                )
            if word and not per:
                break  # "in the same term": a column, no row of the operation
            out.append(
                Condition(
                    kind="count",
                    row=row,
                    child=child,
                    column=column or "",
                    value=value,
                    number=number,
                    per=per,
                )
            )
            break
    for m in re.finditer(
        rf"number of (?:(\w+) )?(\w+) is (?:below|under|less than) {_OTHER}", text
    ):
        adjective, noun, entity, most = m.groups()
        if creates is None or not noun.startswith(singular(creates)):
            continue  # "below" before the call is "at most" after it only when the call adds one
        owner = next(
            (r for r, t in rows if entity in entity_words(t) and most in tables[t].column_names),
            None,
        )
        if owner is None or link(tables[creates], tables[cand_rows[owner]]) is None:
            continue
        status = next((c.name for c in tables[creates].columns if "status" in c.name), "")
        if adjective and adjective not in enum_values(tables[creates], status, seed):
            continue
        out.append(
            Condition(
                kind="count",
                row=owner,
                child=creates,
                column=status if adjective else "",
                value=adjective,
                other_column=most,
            )
        )
    twice = re.search(r"\bcannot \w+ twice (?:in|on|for|at) the same (\w+)", text)
    if twice and creates is not None:  # "a student cannot enroll twice in the same course"
        linked = [r for r, t in rows if link(tables[creates], tables[t]) is not None]
        per = next(
            (r for r in linked if singular(twice.group(1)) in entity_words(cand_rows[r])), ""
        )
        holder = next((r for r in linked if r != per), None)
        if per and holder:
            out.append(Condition(kind="count", row=holder, child=creates, number=1, per=per))
    return out


_SUM = re.compile(
    r"\bsum of (?:the |their )?(?P<quantity>[a-z_]+(?: [a-z_]+)?) of "
    r"(?:an? |the )?(?P<owner>\w+)'s (?:(?P<adjective>\w+) )?(?P<child>\w+)|"
    r"\bthe (?P<quantity2>[a-z_]+) already \w+ plus the new (?P=quantity2)"
)
_CAP = re.compile(r"\b(?:cannot|must not|may not) exceed the (\w+)'s ([a-z_]+)")


def _fk_like(column: str) -> bool:
    return column.endswith("_id") or column == "id"


def _sums(
    text: str, cand: Candidate, schema: Schema, seed: dict[str, list[dict]]
) -> list[Condition]:
    """A quantity added up over the rows a row holds, the new one's included, kept under a
    column: "the sum of yearly salaries of a team's active contracts cannot exceed the
    team's salary_cap", "the seats already booked plus the new seats cannot exceed the
    screen's capacity"."""
    found, cap = _SUM.search(text), _CAP.search(text)
    # a record moved under another row is one more of what that row holds: movie's
    # `move_booking_showtime` on 3d6f8ed sent 10 seats to a full showtime
    moved = cand.rows.get(cand.main) if cand.pattern == "move" else None
    if not (found and cap and (cand.creates or moved)):
        return []
    child = schema.table(cand.creates or moved or "")
    if found["child"] and not found["child"].startswith(singular(child.name).split("_")[-1]):
        return []  # a sum over other rows than the ones this call adds
    said = {singular(w) for w in (found["quantity"] or found["quantity2"]).split()}
    numbers = [c for c in child.columns if c.type in ("integer", "real")]
    spelled = {c.name: {singular(x) for x in words(c.name)} for c in numbers}
    total = next((c for c, w in spelled.items() if said <= w), None) or next(
        # "yearly salaries" of contracts that have a `salary`: every word of the column said
        (c for c, w in spelled.items() if w <= said and not _fk_like(c)),
        None,
    )
    entity, column = cap.group(1), cap.group(2)
    holder = next(
        (
            r
            for r, t in reachable(cand, schema)
            if entity in entity_words(t.name) and (not moved or r.startswith("new_"))
        ),
        None,
    )
    if total is None or holder is None:
        return []
    if column not in resolve_row(cand, holder, schema)[0].column_names:
        return []
    row = holder.split(".")[0]
    if row not in cand.rows or link(child, schema.table(cand.rows[row])) is None:
        return []
    filt: dict[str, str] = {}
    if found["adjective"]:  # "a team's active contracts"
        status = status_column(child, seed)
        if status is None or found["adjective"] not in status[1]:
            return []
        filt = {"column": status[0], "value": found["adjective"]}
    other = holder if holder != row else ""
    return [
        Condition(
            kind="count",
            row=row,
            child=child.name,
            total=total,
            other=other,
            other_column=column,
            **filt,
        )
    ]


_BETWEEN = re.compile(
    r"(?:(\w+) (?:must be |is |are |stays? )?)?between (-?[\d.]+) and (-?[\d.]+)(?: (\w+))?"
)


_AGE = re.compile(
    r"\b(?:an?|the) (\w+) younger than (\d+)(?: years)? \(from ([a-z_]+)\) cannot \w+ "
    r"(?:an?|the) (\w+) rated ([\w-]+)"
)


def _ages(text: str, cand: Candidate, schema: Schema) -> list[Condition]:
    """ "a customer younger than 18 (from birth_date) cannot book a movie rated R": the
    person's birth date is 18 years back, in the one case of a movie so rated."""
    m = _AGE.search(text)
    if m is None:
        return []
    rows = reachable(cand, schema)
    person = next(
        (r for r, t in rows if m[1] in entity_words(t.name) and m[3] in t.column_names), None
    )
    rated = next(
        (
            (r, c.name)
            for r, t in rows
            if m[4] in entity_words(t.name)
            for c in t.columns
            if "rat" in c.name and m[5].upper() in [v.upper() for v in t.enum_values(c.name) or []]
        ),
        None,
    )
    if person is None or rated is None:
        return []
    table = next(t for r, t in rows if r == rated[0])
    value = next(v for v in table.enum_values(rated[1]) or [] if v.upper() == m[5].upper())
    return [
        Condition(
            kind="age",
            row=person,
            column=m[3],
            number=int(m[2]),
            if_row=rated[0],
            if_column=rated[1],
            if_value=value,
        )
    ]


_HOURS = re.compile(
    r"\b(\w+)(?: (\w+))? (?:must be |are |is )?between ([0-2]?\d:[0-5]\d) and ([0-2]?\d:[0-5]\d)"
)


def _hours(text: str, cand: Candidate) -> list[Condition]:
    """ "time slots between 12:00 and 22:00": the time of day of the call's time parameter."""
    out: list[Condition] = []
    for m in _HOURS.finditer(text):
        said = {singular(w) for w in (m.group(1), m.group(2)) if w} - {"only", "for"}
        param = next(
            (
                p
                for p, t in cand.tool.param_types().items()
                if t == "string" and said & set(words(p))
            ),
            None,
        )
        if param is not None:
            values = [v.zfill(5) for v in (m.group(3), m.group(4))]
            out.append(Condition(kind="clock", parameter=param, values=values))
    return out


def _between(text: str, cand: Candidate) -> list[Condition]:
    """ "temperature must be between -90 and 60", "holds between 1 and 10 seats": a number
    parameter of the operation named by the word before or after, kept within both bounds."""
    numbers = [p for p, t in cand.tool.param_types().items() if t in ("number", "integer")]
    out: list[Condition] = []
    for m in _BETWEEN.finditer(text):
        said = [w for w in (m.group(1), m.group(4)) if w]
        param = next(
            (p for p in numbers for w in said if w == p or {w, singular(w)} & set(words(p))),
            None,
        )
        if param is None:
            continue
        low, high = float(m.group(2)), float(m.group(3))
        out.append(Condition(kind="amount", parameter=param, op=">=", value=low))
        out.append(Condition(kind="amount", parameter=param, op="<=", value=high))
    return out


def _parameter(name: str, cand: Candidate) -> str | None:
    """The call's parameter a rule names: itself, or the one its words begin or hold
    ("check_out" is `check_out_date`, "home score" is `home_score`)."""
    params = list(cand.tool.param_types())
    said = [w for w in words(name) if w not in ("date", "time")] or words(name)
    exact = next((p for p in params if p == name), None)
    return exact or next((p for p in params if all(w in words(p) for w in said)), None)


_ORDER = {"after": ">", "later than": ">", "before": "<", "earlier than": "<"}
_ORDERED = re.compile(
    r"\b([a-z][a-z_]*)(?: date| time)? (?:must be|must come|has to be|should be|is|comes) "
    r"(after|later than|before|earlier than) (?:its |the |their )?([a-z][a-z_]*)\b(?!')"
)
_UNEQUAL = re.compile(
    r"\b(?:the |its |their )?(\w+) and (\w+) (\w+) "
    r"(?:cannot|must not|may not|can ?not) be (?:equal|the same)"
)


def _pairs(text: str, cand: Candidate) -> list[Condition]:
    """One parameter of the call against another: "its end_time must be after its
    start_time", "the check_out date must be after its check_in date", "the home and away
    scores cannot be equal"."""
    out: list[Condition] = []
    for m in _ORDERED.finditer(text):
        left, right = _parameter(m.group(1), cand), _parameter(m.group(3), cand)
        if left and right and left != right:
            op = _ORDER[m.group(2)]
            out.append(Condition(kind="pair", parameter=left, op=op, other_parameter=right))
    for m in _UNEQUAL.finditer(text):
        noun = singular(m.group(3))
        left, right = _parameter(f"{m[1]}_{noun}", cand), _parameter(f"{m[2]}_{noun}", cand)
        if left and right and left != right:
            out.append(Condition(kind="pair", parameter=left, op="<>", other_parameter=right))
    return out


_FUTURE = re.compile(r"\b(?:for|on|at) (?:a )?future (?:dates?|days?|times?)\b")


def _future(text: str, cand: Candidate, schema: Schema) -> list[Condition]:
    """ "Reservations are only for future dates", "booked ... at a future time": the date
    of the row a create adds is ahead of now."""
    if not cand.creates or not _FUTURE.search(text):
        return []
    when = _moment(schema.table(cand.creates))
    if when is None or when not in cand.tool.param_types():
        return []
    return [Condition(kind="days_ahead", parameter=when, number=0)]


def column_said(table: Table, said: str) -> str | None:
    """The column a rule's word names: itself, or the one column that ends in it."""
    if said in table.column_names:
        return said
    ends = [c for c in table.column_names if c.endswith(f"_{said}")]
    return ends[0] if len(ends) == 1 else None


COMPARE_OPS = {
    "below": "<",
    "under": "<",
    "less than": "<",
    "at most": "<=",
    "no more than": "<=",
    "no larger than": "<=",
    "not exceed": "<=",
    "cannot exceed": "<=",
    "above": ">",
    "more than": ">",
    "greater than": ">",
    "at least": ">=",
}
_OTHER = r"the (\w+)'s ([a-z_]+)"


def _cross_row(
    text: str, cand: Candidate, schema: Schema, matched_guards: set[str]
) -> list[Condition]:
    """Conditions on a row the operation reaches through its keys: "seats_sold is below the
    train's capacity" (a column against another row's), "party_size no larger than the
    table's seats" (a parameter against a column), "only before the trip's departure_time",
    "within 30 days of its delivered_date"."""
    rows = reachable(cand, schema)
    out: list[Condition] = []

    def row_of(entity: str, said: str) -> tuple[str, str] | None:
        """The row of `entity` and its column `said` names (`tickets_capacity` for
        basketball's "the game's capacity", which went unread on 65cb0f1)."""
        return next(
            (
                (r, column)
                for r, t in rows
                if entity in entity_words(t.name) and (column := column_said(t, said))
            ),
            None,
        )

    ops = "|".join(sorted(COMPARE_OPS, key=len, reverse=True))
    numbers = {p for p, t in cand.tool.param_types().items() if t in ("number", "integer")}
    for m in re.finditer(rf"\b([a-z_]+) (?:is |stays |must be |to be )?({ops}) {_OTHER}", text):
        left, op, entity = m.group(1), COMPARE_OPS[m.group(2)], m.group(3)
        if (found := row_of(entity, m.group(4))) is None:
            continue
        there, col = found
        if left in ("and", "but", "or"):  # "party_size must be between 1 and 12 and no
            # larger than the table's seats": the parameter named last before it
            earlier = re.findall(r"\b[a-z]+_[a-z_]+\b|\b[a-z]+\b", text[: m.start()])
            left = next((w for w in reversed(earlier) if w in numbers), left)
        mine = next((r for r, t in rows if left in t.column_names and r != there), None)
        same = dict(rows).get(there)
        if mine is None and same is not None and left in same.column_names and left != col:
            mine = there  # "while tickets_sold is below the game's capacity": both the game's
        if left in numbers and not (op == "<=" and "not_above" in matched_guards):
            out.append(
                Condition(kind="amount", parameter=left, op=op, row=there, column=col, factor=1)
            )
        elif mine is not None:
            out.append(
                Condition(
                    kind="compare",
                    row=mine,
                    column=left,
                    op=op,
                    other=there,
                    other_column=col,
                )
            )
    for m in re.finditer(
        r"\b([a-z_]+) (?:cannot|must not|may not) exceed the ([a-z_]+) (?:\w+ )?(?:on|of|in|for) "
        r"(?:that|the|its) ([a-z]+(?: [a-z]+)?)\b",
        text,
    ):  # "a return quantity cannot exceed the quantity bought on that order item"
        noun = m.group(3).replace(" ", "_")
        other = next(
            (r for r, t in rows if singular(t.name) == noun and m.group(2) in t.column_names),
            None,
        )
        if other is not None and m.group(1) in numbers:
            out.append(
                Condition(kind="amount", parameter=m[1], op="<=", row=other, column=m[2], factor=1)
            )
    own = schema.table(cand.rows[cand.main]) if cand.main in cand.rows else None
    status_now = re.search(r"\bbefore its ([a-z_]+) becomes (\w+)", text)
    if status_now and own and status_now.group(1) in own.column_names:
        # "changed only before its status becomes shipped": not shipped nor anything after
        states = own.enum_values(status_now.group(1)) or []
        if status_now.group(2) in states:
            barred = states[states.index(status_now.group(2)) :]
            out.append(
                Condition(
                    kind="in", row=cand.main, column=status_now[1], op="not in", values=barred
                )
            )
    for m in re.finditer(rf"\bbefore {_OTHER}", text):
        if (found := row_of(m.group(1), m.group(2))) is not None:
            out.append(Condition(kind="days_ahead", row=found[0], column=found[1], number=0))
    out += _thresholds(text, rows) + _same_parties(text, cand, schema)
    moments = r"\bits ([a-z_]+) has not (?:yet )?passed|\bbefore its ([a-z_]+)(?: (date|time))?"
    for m in re.finditer(moments, text):
        # "its expiry_date has not passed", "cancelled only before its check_in date": a
        # moment of the row itself is still ahead
        said = m.group(1) or m.group(2)
        named = [said, f"{said}_{m.group(3)}"] if m.group(3) else [said]
        column = next((n for n in named if own and n in own.column_names), None)
        if own is not None and column and own.column(column).type in ("date", "datetime"):
            out.append(Condition(kind="days_ahead", row=cand.main, column=column, number=0))
    starts = r"(?:starts|begins|departs|leaves)"
    ahead = rf"the (\w+) {starts} (?:more than|at least) {NUMBER} hours? (?:later|from now|ahead)"
    for m in re.finditer(rf"\b{ahead}|\b(?:an?|the) (\w+) (?:is )?in the future", text):
        entity = m.group(1) or m.group(3)
        row, column = next(
            ((r, when) for r, t in rows if entity in entity_words(t.name) and (when := _moment(t))),
            (None, None),
        )
        if row is None or column is None:
            continue
        hours = int(_number(m.group(2))) if m.group(2) else None
        out.append(
            Condition(kind="hours_ahead", row=row, column=column, number=hours)
            if hours is not None
            else Condition(kind="days_ahead", row=row, column=column, number=0)
        )
    for m in re.finditer(
        rf"within {NUMBER} (days|hours) of (?:its|the (\w+)'s) ([a-z_]+)", text
    ):  # "within 30 days of its delivered_date", "within 24 hours of its booked_at time"
        unit, entity, said = m.group(2), m.group(3), m.group(4)
        at: tuple[str, str] | None = row_of(entity, said) if entity else (cand.main, said)
        if not entity and own is not None and said not in own.column_names:
            # "a return can be opened only for an order ... within 30 days of its
            # delivered_date": the order's, reached through the order item a return is
            # made under (ecommerce's returns were checked for "delivered" alone)
            at = next(((r, said) for r, t in rows if said in t.column_names), None)
        if at is not None:
            out.append(
                Condition(
                    kind="within_days" if unit == "days" else "within_hours",
                    row=at[0],
                    column=at[1],
                    number=int(_number(m.group(1))),
                )
            )
    return out


_OPS = "|".join(sorted(COMPARE_OPS, key=len, reverse=True))
# "the full price more than 24 hours before departure" bounds a time, not the price
_SPAN = r"(?:minutes?|hours?|days?|weeks?|months?|years?)\b"
_BOUND = re.compile(
    rf"\b([a-z][a-z_]*) (?:is |stays |must be |to be |of )?({_OPS}) "
    rf"(?:(-?[\d.]+)(?![\d.]| times| {_SPAN})|([a-z][a-z_]*)\b(?!'))"
)
_AT_LEAST = re.compile(rf"\bwith {NUMBER} or more (?:\w+ )?([a-z][a-z_]*)")


_BETWEEN_PARTIES = re.compile(r"\b(\w+) between the same (\w+) and the (?:\w+ing )?(\w+)")


def _same_parties(text: str, cand: Candidate, schema: Schema) -> list[Condition]:
    """ "requires a completed appointment between the same patient and the prescribing
    doctor": the record the call names points to the same rows the call names."""
    m = _BETWEEN_PARTIES.search(text)
    if m is None:
        return []
    record = next(
        ((r, t) for r, t in cand.rows.items() if singular(m.group(1)) in entity_words(t)), None
    )
    if record is None:
        return []
    out = []
    for party in (m.group(2), m.group(3)):
        row = next((r for r, t in cand.rows.items() if party in entity_words(t)), None)
        if row is None:
            return []
        joined = link(schema.table(record[1]), schema.table(cand.rows[row]))
        if joined is None or joined[1] == "sibling":
            return []
        key = schema.table(cand.rows[row]).primary_key[0]
        out.append(
            Condition(
                kind="compare", row=record[0], column=joined[0], op="=", other=row, other_column=key
            )
        )
    return out


def _thresholds(text: str, rows: list[tuple[str, Table]]) -> list[Condition]:
    """A column of a row the call reads against a number or another column of that row:
    "the hotel must have rooms_available above 0", "while refills_used is below
    refills_allowed"; and "a customer with 3 or more recorded no_shows cannot ...": the
    column stays under the number."""
    out: list[Condition] = []
    for m in _BOUND.finditer(text):
        left, op = m.group(1), COMPARE_OPS[m.group(2)]
        holder = next(((r, t) for r, t in rows if left in t.column_names), None)
        if holder is None or holder[1].column(left).type not in ("integer", "real"):
            continue
        row, table = holder
        if m.group(3) is not None:
            out.append(Condition(kind="value", row=row, column=left, op=op, value=float(m[3])))
        elif m.group(4) in table.column_names and m.group(4) != left:
            out.append(
                Condition(kind="compare", row=row, column=left, op=op, other=row, other_column=m[4])
            )
    for m in _AT_LEAST.finditer(text):
        holder = next(((r, t) for r, t in rows if m.group(2) in t.column_names), None)
        if holder is None or holder[1].column(m.group(2)).type not in ("integer", "real"):
            continue
        op = "<" if _negated(text, m.start()) else ">="
        value = _number(m.group(1))
        out.append(Condition(kind="value", row=holder[0], column=m.group(2), op=op, value=value))
    return out


def _moment(table: Table) -> str | None:
    """The column that says when a row happens: its start or departure, else its first
    date or time."""
    times = [c.name for c in table.columns if c.type in ("date", "datetime")]
    starts = [c for c in times if re.search(r"start|depart|begin|scheduled", c)]
    return next(iter(starts or times), None)


def _negated(text: str, at: int) -> bool:
    """A negation in the clause that holds position `at`: "no other scheduled appointment"
    after a comma does not negate "whose status is active" before it."""
    start = max(text.rfind(sep, 0, at) for sep in (",", ";", " and ", " but "))
    ends = [i for sep in (",", ";", " and ", " but ") if (i := text.find(sep, at)) >= 0]
    return bool(re.search(NEGATION, text[start + 1 : min(ends, default=len(text))]))


def _status_values(text: str, noun: str) -> list[str]:
    """Status words said of the noun: "an active account", "account to be active",
    "a member with status suspended"."""
    found = re.findall(rf"\b(\w+) {noun}\b", text)
    found += re.findall(rf"\b{noun}\w* (?:to be|is|must be) (\w+)", text)
    has = r"(?: with| has|'s) status(?: is| to be)?"  # "its game has status", "the flight's status"
    for listed in re.findall(rf"\b{noun}\w*{has} (\w+(?:(?:,| or|, or) \w+)*)", text):
        found += re.split(r",? or |, ", listed)  # "with status scheduled or delayed"
    skip = {"a", "an", "the", "source", "target", "new", "its", "their", "one", "per", "each"}
    return [w for w in dict.fromkeys(found) if w not in skip and w.replace("_", "").isalpha()]
