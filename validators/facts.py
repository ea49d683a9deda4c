"""Stage `facts`: what the user states is true and about this task. Every literal the user
text holds (an email, a phone number, a date, a code such as A20001, a number other than a
small count) is in a gold argument or a gold output; one that is neither is `false_fact`
when the seed does not hold it anywhere, else `unrelated_fact` (true somewhere, but not of
the records the task is about). A known fact, or a sentence of the request, that names a
record and a category value ("Frozen card: K30006", "my account ACC-83392, which is
frozen") must match that record. A model that invents facts teaches an
agent to trust what is not so.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass, field

from toolscale.dataflow import output_rows, own_key, row_table, value_key
from toolscale.environment import Replay
from toolscale.matching import Text, day_of, leading_number, numbers, same_number, scalars, tokens
from toolscale.reasons import FactsReason
from toolscale.report import Rejection
from toolscale.schema import Scalar, Schema, Table
from toolscale.spec import EnvironmentSpec
from toolscale.task import Task
from toolscale.tool import Tool
from toolscale.wording import (
    FIELDS,
    GENERIC,
    NOT_LEFT,
    OPERATIONS,
    PEOPLE,
    PLACEHOLDER,
    Request,
    entity_words,
    operation_words,
    record_names,
    record_phrase,
    said_left,
    sentences,
    singular,
    spelled,
    states_no_fact,
    stem,
    with_article,
)
from toolscale.wording import (
    words as name_words,
)
from validators.stage import TaskContext

STAGE = "facts"
SMALL = 31  # integers up to this are counts, days or ordinals, not facts about records
CATEGORIES = 8  # a text column with at most this many distinct seed values is a category

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b")
_MONTHS = (
    *("january", "february", "march", "april", "may", "june", "july", "august"),
    *("september", "october", "november", "december"),
)
_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_ORD = r"(\d{1,2})(?:st|nd|rd|th)?"
# a day by its month's name: "June 18", "March 1st, 2022", "the 20th of July"
_NAMED_DAY = re.compile(
    rf"\b(?:{_MONTH}\.?\s+{_ORD}|{_ORD}\s+(?:of\s+)?{_MONTH}\.?)(?!\d|:)(?:,?\s+(\d{{4}})\b)?",
    re.I,
)


def named_day(m: re.Match[str]) -> str | None:
    """The day a match of `_NAMED_DAY` names: `YYYY-MM-DD` with its year, else `day MM-DD`."""
    month_a, day_a, day_b, month_b, year = m.groups()
    word, day = (month_a, day_a) if month_a else (month_b, day_b)
    month = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(word.casefold()[:3]))
    if not 1 <= int(day) <= 31:
        return None
    return f"{year}-{month:02d}-{int(day):02d}" if year else f"day {month:02d}-{int(day):02d}"


def day_at(text: str) -> str | None:
    """The day `text` opens with (`YYYY-MM-DD`, or `day MM-DD` where no year is said)."""
    if m := _DATE.match(text):
        return m.group()[:10]
    if m := _NAMED_DAY.match(text):
        return named_day(m)
    return None


_PHONE = re.compile(r"\+?\(?\d{2,4}\)?[-\s.]\d{2,4}(?:[-\s.]\d{2,5})+\b|\b\d{3}-\d{4}\b")
_CODE = re.compile(
    r"\b(?=[A-Za-z0-9-]*[A-Za-z])(?=[A-Za-z0-9-]*\d)[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*\b"
)
_NOT_A_CODE = re.compile(r"\d+(st|nd|rd|th|s|am|pm|k|m|h|x)", re.IGNORECASE)
# a time of day ("10:00 PM", "22:00"): basketball's user scheduled a game "at 10:00 PM" that
# no record holds (its games have a date only)
_TIME = re.compile(
    r"(?<![\d:T])([01]?\d|2[0-3]):([0-5]\d)(?::\d{2})?(?:\s*([ap])\.?m\.?)?(?![\d:])", re.I
)


def clock(hour: str, minute: str, half: str | None) -> str:
    """A time of day as `HH:MM`, 24-hour: how it is compared with the records'."""
    h = int(hour) % 12 + (12 if half and half.lower() == "p" else 0) if half else int(hour)
    return f"time {h:02d}:{minute}"


# an hour alone, "7pm", "at 6 a.m.": stated where the record's time falls in that hour
_HOUR = re.compile(r"(?<![\d:T])(1[0-2]|0?[1-9])\s*([ap])\.?m\.?(?!\w)", re.I)


def hour(value: str, half: str | None) -> str:
    """The hour of a time of day (travel-intent-00058 on 277c846 said "June 15th at 6am" of
    a check-out at 09:40; hours alone were not read)."""
    return clock(value, "00", half).rsplit(":", 1)[0].replace("time", "hour")


# ... and ecommerce-intent-00004 on 277c846's "The return id is xxxxxx"
# ... and medicine on fe97d36's "The current date is (provide the current date)"
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[ -](?:[A-Z][a-z]+|[A-Z]\.?))+\b")
_NOT_NAMES = {  # capitalised for the sentence or the calendar, not a record's name
    *("I", "Hello", "Hi", "Hey", "Dear", "Please", "Thanks", "Thank", "My", "The", "A", "An"),
    *("Can", "Could", "Would", "Will", "Is", "Are", "What", "When", "How", "Also", "And"),
    *("January", "February", "March", "April", "May", "June", "July", "August"),
    *("September", "October", "November", "December", "Monday", "Tuesday", "Wednesday"),
    *("Thursday", "Friday", "Saturday", "Sunday"),
}


# a verb of an operation that opens a sentence is capitalised for it: "Activate Riveraside
# Station, please." (weather-intent-00041 on 8a86ecf) names "Riveraside Station"
_ACTS = frozenset(w.capitalize() for group in OPERATIONS for w in group)
_SENTENCE_START = re.compile(r"(?:^|[.!?:\n])\W*$")


def names(text: str) -> list[str]:
    """Names of two words or more ("New York", "Scott Alvarez"), without the capitalised
    words around them that are no name ("Hello Scott Alvarez" is "Scott Alvarez")."""
    out = []
    for m in _NAME.finditer(text):
        parts = [w for w in re.split(r"[ -]", m.group()) if w]
        if parts and parts[0] in _ACTS and _SENTENCE_START.search(text[: m.start()]):
            parts.pop(0)  # the verb alone: "Cancel New York Flight" keeps "New"
        while parts and parts[0] in _NOT_NAMES:
            parts.pop(0)
        while parts and parts[-1] in _NOT_NAMES:
            parts.pop()
        if len(parts) >= 2:
            out.append(" ".join(parts))
    return out


# one capitalised word where a place or a party goes ("my trip to Paris", "against the
# Lakers"), not the first of a name of two words (`names` has those) nor a kind with its
# number ("to Flight 26139")
_LONE_NAME = re.compile(
    r"\b(?:to|in|at|from|against|near|versus|vs\.?)\s+(?:the\s+)?([A-Z][a-z]{2,})\b"
    r"(?![ -][A-Z]|\s*#?\d)"
)


def lone_names(text: str, seed: SeedFacts) -> list[str]:
    """Names of one word said as a place or a party, other than the calendar's or a word of
    the schema's ("to Reservation" is a kind): basketball's "my active game against the
    Lakers", of teams named "Cristinaborough Team"."""
    schema = {w for n in [*seed.columns, *seed.names] for w in tokens(n)}
    return [
        m.group(1)
        for m in _LONE_NAME.finditer(text)
        if m.group(1) not in _NOT_NAMES and m.group(1).casefold() not in schema
    ]


_MY_NAME = re.compile(
    r"\b(?i:my name is)\s+([A-Za-z][\w'-]*(?:[ -][A-Za-z][\w'-]*){0,5})"  # to the stop
    r"|\b(?:I am|I'm)\s+([A-Z][\w'-]*(?:[ -][A-Z][\w'-]*){0,3})"  # capitalised words only
)


_MY_NAME_PART = re.compile(r"\bmy (first|last) name is\s+([A-Za-z][\w'-]*)", re.I)


def without_own_name(text: str) -> str:
    """The text without the name the user gives as their own ("I'm Shannon Sparks")."""
    return _MY_NAME.sub(" ", text)


def _not_my_name(task: Task, replay: Replay, seed: SeedFacts) -> str:
    """A name the user gives as their own that is not the name of the person the gold finds
    them as: travel's "My name is Secured leadingedge focus group" (a flight booking's
    name, a Faker catchphrase) from a customer named otherwise."""
    row = asker(replay, seed)
    if row is None or not any(p in (seed.people or "") for p in PEOPLE):
        return ""  # basketball finds a team, whose name is no manager's
    named = {w for k, v in row.items() if "name" in k and isinstance(v, str) for w in tokens(v)}
    if not named:
        return ""
    for text in [*task.known_facts, task.instruction]:
        # medicine on fe97d36: "My first name is Mary", "My last name is Black" from a
        # patient named otherwise (Mary Black was the doctor the appointment moved to)
        for m in _MY_NAME_PART.finditer(text):
            part = row.get(f"{m.group(1).casefold()}_name")
            if isinstance(part, str) and m.group(2).casefold() != part.casefold():
                return f"the user says {m.group().strip()!r}; their {m.group(1)} name is {part!r}"
        for m in _MY_NAME.finditer(text):
            words = tokens(m.group(1) or m.group(2))
            if len(words) >= 2 and not set(words) & named:
                held = " ".join(str(v) for k, v in row.items() if "name" in k)
                return (
                    f"the user says {m.group().strip()!r}; the person the gold finds them as "
                    f"is {held!r}"
                )
    return ""


# "my active account id is 27546", "my inactive account with ID 27534": a record the user
# calls theirs, by its key, with nothing between that makes it another's ("my transfer to
# account 27534", "my friend's account 27534")
_MINE = re.compile(
    r"\bmy[ \t]+((?:(?!(?:to|from|for|of|into|onto|and|or|than|friend|\w+'s)\b)[\w-]+[ \t]+){1,5}?)"
    # finance-intent-00642 on 2a7fb38: "from my account (ID 27560)", another client's
    r"(?:(?:\(|id|number|no|is|:|#)[ \t]*)*([A-Za-z]*-?\d[\w-]*)\b",
    re.I,
)


# "I have an active account with account ID 27570": the same claim, said as having one
_HAVE = re.compile(
    r"\bI[ \t]+(?:have|own|hold)[ \t]+(?:a|an|one)[ \t]+((?:[\w-]+[ \t]+){1,6}?)"
    r"(?:(?:id|number|no|:|#)[ \t]*)+(?:is[ \t]+|of[ \t]+)?([A-Za-z]*-?\d[\w-]*)\b",
    re.I,
)


def not_theirs(text: str, replay: Replay, seed: SeedFacts) -> str:
    """A record the user calls their own that belongs to someone else: finance's "I'd like
    to transfer $56.84 from my inactive account with ID 27534", where 27534 was the
    account the money went to, another client's."""
    row = asker(replay, seed)
    key = seed.primary.get(seed.people or "", ())
    if row is None or len(key) != 1:
        return ""
    user = value_key(row[key[0]])
    for m in [*_MINE.finditer(text), *_HAVE.finditer(text)]:
        said = next(iter(literals(m.group(2))), m.group(2))  # "27534" is the number
        kinds = {singular(w) for w in tokens(m.group(1))}
        for table, owned in seed.owner.items():
            person = owned.get(value_key(said))
            if person is None or person == user or not entity_words(table) & kinds:
                continue  # "my 2 cards": a count, not a record named
            return (
                f"the user calls {singular(table)} {m.group(2)} theirs ({m.group().strip()!r}); "
                "it is another person's"
            )
    return ""


def asker(replay: Replay, seed: SeedFacts) -> dict | None:
    """The row of the person who asks: the first gold output that is one row of the people's
    table (the gold finds the user before it acts for them)."""
    for result in replay.results:
        out = result.output if result.ok else None
        row = out[0] if isinstance(out, list) and len(out) == 1 else out
        if isinstance(row, dict) and seed.people and _table_of(row, seed) == seed.people:
            return row
    return None


_KIN = re.compile(
    r"\bmy\s+(child|children|kids?|sons?|daughters?|wife|husband|spouse|mother|father|mom|"
    r"mum|dad|parents?|brothers?|sisters?|siblings?|grand(?:son|daughter|child|mother|father)s?|"
    r"nephews?|nieces?|guardian|ward)\b",
    re.I,
)
# a schema that records family ties names them: a guardian, a parent, a dependant
_TIES = re.compile(
    r"(?:^|_)(?:child(?:ren)?|kids?|sons?|daughters?|spouses?|parents?|mothers?|fathers?|"
    r"guardians?|dependa?nts?|famil(?:y|ies)|relatives?|siblings?|next_of_kin)(?:_|$)",
    re.I,
)


def claimed_kin(text: str, seed: SeedFacts) -> str:
    """A family tie the records do not hold: school's teachers wrote "I want to enroll my
    child, Pamela Dominguez" of a student the seed ties to nobody. Where a table or column
    names such ties (a guardian, a parent), the claim could be true and is left alone."""
    m = _KIN.search(text)
    if m is None:
        return ""
    named = [*seed.columns, *(c for cols in seed.columns.values() for c in cols)]
    if any(_TIES.search(n) for n in named):
        return ""
    return f"the user says {m.group()!r}: no record holds a family tie between people"


def literals(text: str) -> list[Scalar]:
    """Emails, dates, phone numbers, codes mixing letters and digits, then numbers other than
    small counts, each taken out of the text before the next kind is looked for."""
    found: list[Scalar] = []
    for pattern in (EMAIL, _DATE, _PHONE):
        found += [m.group() for m in pattern.finditer(text)]
        text = pattern.sub(" ", text)
    found += [d for m in _NAMED_DAY.finditer(text) if (d := named_day(m))]
    text = _NAMED_DAY.sub(" ", text)
    found += [clock(*m.groups()) for m in _TIME.finditer(text)]
    text = _TIME.sub(" ", text)
    found += [hour(*m.groups()) for m in _HOUR.finditer(text)]
    text = _HOUR.sub(" ", text)
    found += [m.group() for m in _CODE.finditer(text) if not _NOT_A_CODE.fullmatch(m.group())]
    text = _CODE.sub(" ", text)
    found += [n for n in numbers(text) if not (n.is_integer() and 0 <= n <= SMALL)]
    return found


def _keys(values: Iterable[Scalar]) -> set[object]:
    """Each value, and inside text the numbers and words it holds ("250 Ocean Drive")."""
    out: set[object] = set()
    for v in values:
        out.add(value_key(v))
        if isinstance(v, str):
            out.update(numbers(v.replace("-", " ")))
            out.update(tokens(v))
            times = [m.groups() for m in _TIME.finditer(v)]
            out.update(value_key(clock(*t)) for t in times)
            out.update(value_key(hour(t[0], t[2])) for t in times)
            with contextlib.suppress(ValueError):  # a datetime's time of day, and its hour
                moment = dt.datetime.fromisoformat(v)
                out.add(value_key(clock(str(moment.hour), f"{moment.minute:02d}", None)))
                out.add(value_key(hour(str(moment.hour), None)))
            if day := day_of(v):  # and its day: "my order from 2024-05-27"
                out.add(value_key(day))
            if _DATE.fullmatch(v):  # and its month and day: "my flight on June 17"
                out.add(value_key(f"day {v[5:10]}"))
    return out


def _states(literal: Scalar, known: set[object]) -> bool:
    """Whether a value the user states is among `known`: whole, or word by word ("New York"
    of "New York City"); an email only whole, since part of one is another address
    ("Frazier@yahoo.com." of richard.frazier@yahoo.com, weather-intent-00005 on 8a86ecf)."""
    if value_key(literal) in known:
        return True
    if isinstance(literal, str) and "@" not in literal:
        words = tokens(literal)
        return bool(words) and all(w in known for w in words)
    return False


@dataclass(frozen=True)
class SeedFacts:
    """What the seed holds, built once per verifier: every value, and per record key (a
    primary key or unique value) its table and the category values of its row."""

    values: frozenset[object] = frozenset()
    records: dict[object, tuple[str, frozenset[str]]] = field(default_factory=dict)
    categories: dict[str, frozenset[str]] = field(default_factory=dict)  # per table
    names: frozenset[str] = frozenset()  # column names: "tell me the last4" states no value
    keys: dict[str, frozenset[object]] = field(default_factory=dict)  # per table, its keys
    # per table, per status-like column (a CHECK-ed enum or a category), the values it takes
    states: dict[str, dict[str, frozenset[str]]] = field(default_factory=dict)
    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)  # per table, in order
    primary: dict[str, tuple[str, ...]] = field(default_factory=dict)  # per table
    people: str | None = None  # the table of the people who ask
    # per table a person owns (through its foreign keys), per record key, that person's key
    owner: dict[str, dict[object, object]] = field(default_factory=dict)
    # per table, the other people whose record it is: the table with an email its keys
    # reach first, where that is not the asker's (school's enrollments are students')
    held_by: dict[str, str] = field(default_factory=dict)
    # the rows of each table that points to one table twice (a game's home and away team):
    # a listing by one of the two keys leaves out the records the other holds
    two_way: dict[str, list[dict]] = field(default_factory=dict)

    @classmethod
    def of(cls, spec: EnvironmentSpec) -> SeedFacts:
        values: set[object] = set()
        records: dict[object, tuple[str, frozenset[str]]] = {}
        categories: dict[str, frozenset[str]] = {}
        keyed: dict[str, frozenset[object]] = {}
        states: dict[str, dict[str, frozenset[str]]] = {}
        for table in spec.schema_.tables:
            rows = spec.seed.get(table.name, [])
            values |= _keys(v for row in rows for v in row.values())
            columns = [
                c.name
                for c in table.columns
                if c.type == "text"
                and 2 <= len({r.get(c.name) for r in rows} - {None}) <= CATEGORIES
            ]
            keys = [c.name for c in table.columns if c.name in table.primary_key or c.unique]
            # a text column no two rows share names its record too (ACC-83392, an email)
            named_by = keys + [
                c.name
                for c in table.columns
                if c.type == "text"
                and c.name not in keys
                and len(rows) >= 2
                and len({r.get(c.name) for r in rows} - {None}) == len(rows)
            ]
            # a status the CHECK allows but no seed row has is still a status ("frozen")
            seen = {phrase(v) for c in table.columns for v in table.enum_values(c.name) or []}
            for row in rows:
                cats = frozenset(phrase(str(row[c])) for c in columns if row.get(c) is not None)
                seen |= cats
                for k in keys:
                    if row.get(k) is not None:
                        records[value_key(row[k])] = (table.name, cats)
                for k in named_by[len(keys) :]:
                    if row.get(k) is not None:
                        records.setdefault(value_key(row[k]), (table.name, cats))
            categories[table.name] = frozenset(seen)
            states[table.name] = {
                c.name: frozenset(table.enum_values(c.name) or [])
                | (
                    {str(r[c.name]) for r in rows if r.get(c.name) is not None}
                    if c.name in columns
                    else set()
                )
                for c in table.columns
                if table.enum_values(c.name) or c.name in columns
            }
            keyed[table.name] = frozenset(
                value_key(row[k]) for row in rows for k in keys if row.get(k) is not None
            )
        names = frozenset(c.name.casefold() for t in spec.schema_.tables for c in t.columns)
        people = spec.schema_.people()
        owned = spec.owners(people) if people is not None and people.primary_key else {}
        owner = {
            table: {value_key(k): value_key(person) for k, person in keys.items()}
            for table, keys in owned.items()
        }
        return cls(
            values=frozenset(values),
            records=records,
            categories=categories,
            names=names,
            keys=keyed,
            states=states,
            columns={t.name: tuple(t.column_names) for t in spec.schema_.tables},
            primary={t.name: tuple(t.primary_key) for t in spec.schema_.tables},
            people=people.name if people is not None else None,
            owner=owner,
            held_by=spec.schema_.held_by(people.name) if people is not None else {},
            two_way={
                t.name: spec.seed.get(t.name, [])
                for t in spec.schema_.tables
                if len({fk.ref_table for fk in t.foreign_keys}) < len(t.foreign_keys)
            },
        )


_MY_RECORD = re.compile(r"\bmy[ \t]+((?:[A-Za-z-]+(?:['’]s)?[ \t]*){1,3})", re.I)


def someone_elses(text: str, seed: SeedFacts) -> str:
    """A kind of record the user calls theirs that is another person's: school's teachers
    asked to "activate my enrollment on the New Melissaberg Course", an enrollment of a
    student in their course. "My course" is a teacher's; "my student's grade" says whose."""
    heads = {
        singular(name_words(table)[-1]): (table, holder)
        for table, holder in seed.held_by.items()
        if name_words(table)
    }
    for m in _MY_RECORD.finditer(text):
        words = m.group(1).split()
        for at, word in enumerate(words):  # "my active enrollment": up to three words on
            if word.endswith(("'s", "’s")):
                break  # "my student's grade": whose it is, said
            said = singular(word.casefold())
            if said in heads and said not in entity_words(seed.people or ""):
                table, holder = heads[said]
                kind = with_article(singular(table))
                return (
                    f"the user calls {kind} theirs ({' '.join(['my', *words[: at + 1]])!r}); "
                    f"{kind} is "
                    f"{with_article(singular(holder))}'s, and the user is "
                    f"{with_article(singular(seed.people or ''))}"
                )
    return ""


_DISOWNS = re.compile(
    r"\b(?:forgot(?:ten)?|(?:do not|don['’]t|can['’]t|cannot|can not) (?:remember|recall|know|find)"
    r"|lost)\s+(?:what\s+)?(?:my|the)\s+(?P<what>[\w' ,-]+?)(?=\s+(?:is|was|are)\b|[.;:!?(]|$)",
    re.I,
)
_ATTRIBUTE = re.compile(r"^\s*(?:my|the|our)\s+(?P<what>[\w' -]+?)\s+(?:is|are|was)\b", re.I)


def _parts(phrase: str) -> list[set[str]]:
    """The words of each part of "the email and seat count": {email}, {seat, count}."""
    parts = re.split(r",|\band\b|\bor\b", phrase.replace("'s", ""))
    return [{singular(w) for w in tokens(part)} for part in parts]


def disowned(task: Task) -> str:
    """A known fact the request says the user does not know: movie-intent-00025's "I forgot
    the email and seat count", with "My email is mmyers@yahoo.com" among its facts. An
    agent learns nothing true from a user who both knows and does not know a value. A
    fact's last word names it ("My booking seat count is 6": count); "I lost my card" says
    nothing of "My card number is ...", whose last word is not among the lost."""
    facts = {
        singular(tokens(m.group("what"))[-1]): fact
        for fact in task.known_facts
        if (m := _ATTRIBUTE.match(fact)) and tokens(m.group("what"))
    }
    for said in _DISOWNS.finditer(task.instruction):
        for words in _parts(said.group("what")):
            if known := next((facts[w] for w in sorted(words) if w in facts), None):
                return f"the request says {said.group().strip()!r}, yet a known fact is {known!r}"
    return ""


def check(
    task: Task, replay: Replay, seed: SeedFacts, tools: Mapping[str, Tool] | None = None
) -> Rejection | None:
    gold: list[Scalar] = [v for c in task.gold_calls for v in c.arguments.values()]
    gold += [v for r in replay.results if r.ok for v in scalars(r.output)]
    known = _keys(gold)
    text = "\n".join([task.request(), *task.known_facts])
    for literal in literals(text):
        if _states(literal, known) or str(literal).casefold() in seed.names:
            continue
        if _states(literal, set(seed.values)):
            return Rejection(
                stage=STAGE,
                reason=FactsReason.UNRELATED_FACT,
                detail=f"the user states {literal!r}: the seed holds it, but no gold argument "
                "or output does",
            )
        return Rejection(
            stage=STAGE,
            reason=FactsReason.FALSE_FACT,
            detail=f"the user states {literal!r}, which the seed does not hold",
        )
    if said := _quoted_claim(text, known, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := _wrong_from_state(task, seed) or _from_a_state_it_is_not_in(task, seed, tools or {}):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := disowned(task):
        return Rejection(stage=STAGE, reason=FactsReason.DISOWNED_FACT, detail=said)
    if said := next((f for f in task.known_facts if states_no_fact(f)), ""):
        return Rejection(
            stage=STAGE,
            reason=FactsReason.NOT_A_FACT,
            detail=f"the known fact {said!r} says nothing the user knows of their records",
        )
    if hole := PLACEHOLDER.search(text):  # travel's "my customer status is [current status]"
        return Rejection(
            stage=STAGE,
            reason=FactsReason.FALSE_FACT,
            detail=f"the user states {hole.group()!r}, a template's blank, not a value",
        )
    if said := _not_my_name(task, replay, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := claimed_kin(text, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := not_theirs(text, replay, seed) or someone_elses(text, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    # "a hotel booking for my trip to New York", read nowhere
    for name in [*names(text), *lone_names(text, seed)]:
        if _states(name, known):
            continue
        reason = FactsReason.UNRELATED_FACT if _states(name, set(seed.values)) else None
        return Rejection(
            stage=STAGE,
            reason=reason or FactsReason.FALSE_FACT,
            detail=f"the user names {name!r}, which "
            + (
                "the seed holds, but no gold argument or output does"
                if reason
                else "no record holds"
            ),
        )
    for fact in task.known_facts:
        if said := _miscategorised(fact, seed, set()):
            return Rejection(
                stage=STAGE,
                reason=FactsReason.FALSE_FACT,
                detail=f"the known fact {fact!r} says {said}",
            )
    given = {
        (name, float(v))
        for c in task.gold_calls
        for name, v in c.arguments.items()
        if isinstance(v, int | float) and not isinstance(v, bool)
    }
    # what the gold's writes make or set, where the tools are known
    written: set[tuple[str, str | None]] | None = None
    if tools is not None:
        written = set()
        for c in task.gold_calls:
            tool = tools.get(c.name)
            if tool is not None and tool.kind == "write":
                written |= {(t, None) for t in tool.inserts()}
                written |= {(t, col) for t in tool.updated_tables() for col in tool.assigned(t)}
    if said := _misstated(wanted(text, task, tools or {}), replay, given, seed, written):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := same_record(text, task) or one_for_two(task):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := id_as_quantity(text, task):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := misread_remainder(text, replay):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    # the rows the writes act on only where a count is said "at" (most texts say none)
    if _AT_COUNT.search(text) and (
        said := count_at(text, replay, targets(task, replay, tools or {}))
    ):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := said_of_columnless(text, replay, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := new_as_current(task, replay, tools or {}, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := _misdescribed_target(task, replay, tools or {}, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := state_before_kind(task, replay, tools or {}, seed) or stateless(
        task, tools or {}, seed
    ):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := none_held(task, replay, tools or {}, seed) or two_states(task, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := misattributed(task, replay, tools or {}, seed):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    if said := unknown_id(text, seed, replay):
        return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    # a sentence of the request may describe a record too ("my account ACC-83392, which is
    # frozen"); a word the gold makes true ("set card K30001 to frozen") is no claim
    outcome = {w for v in gold if isinstance(v, str) for w in tokens(v)}
    for sentence in sentences(task.instruction):
        if said := _miscategorised(sentence, seed, outcome):
            return Rejection(
                stage=STAGE,
                reason=FactsReason.FALSE_FACT,
                detail=f"the request's {sentence.strip()!r} says {said}",
            )
    return None


_QUOTED = re.compile(r"(?<!\w)['\"]([^'\"\n]{2,40})['\"](?!\w)")


def _quoted_claim(text: str, known: set[object], seed: SeedFacts) -> str:
    """A value the user quotes that neither the gold nor the seed holds: ecommerce's "update
    the order status of my order from 'awaiting payment' to 'pending'" (no order is awaiting
    payment). A quoted field or table name ("the 'order status'") states no value."""
    named = {
        w
        for t, cols in seed.columns.items()
        for n in (t, *cols)
        for w in tokens(n.replace("_", " "))
    }
    for m in _QUOTED.finditer(text):
        said = m.group(1).strip()
        words = tokens(said)
        if not words or all(w in named or singular(w) in named for w in words):
            continue
        if _states(said, known) or _states(said, set(seed.values)):
            continue
        return f"the user states {m.group()!r}, which the seed does not hold"
    return ""


_FROM_TO = re.compile(
    r"\bfrom ['\"]?([a-z][a-z _-]{1,30}?)['\"]?(?: status)? to ['\"]?([a-z][a-z_-]+)", re.I
)


def _wrong_from_state(task: Task, seed: SeedFacts) -> str:
    """The state a user says a record changes from, when the record is not in it:
    restaurant's "change the status of my reservation from pending to booked" for a
    seated reservation (no reservation is ever pending)."""
    for m in _FROM_TO.finditer(task.instruction):
        before, after = phrase(m.group(1)), phrase(m.group(2))
        if before.split()[0] in ("my", "the", "a", "an", "your", "this", "that", "our"):
            continue  # "from my checking account to ...": a record, not a state
        for call in task.gold_calls:
            for value in call.arguments.values():
                table, categories = seed.records.get(value_key(value), ("", frozenset()))
                columns = seed.states.get(table, {}).values()
                states = next((s for vs in columns if after in (s := {phrase(v) for v in vs})), ())
                if not states or before in categories:
                    continue
                return _goes_from(table, m.group(), categories, set(states))
    return ""


def _goes_from(table: str, said: str, categories: Set[str], states: Set[str]) -> str:
    """How a change said to start from a state the record is not in is told."""
    now = ", ".join(sorted(categories & states)) or "in none of them"
    return f"the user says their {singular(table)} goes {said.strip()!r}; it is {now}"


# what may follow the state a change is said to start from: the clause goes on, or ends
_AFTER_STATE = r"(?=\s*(?:[.,;!?]|$)|\s+(?:for|on|in|at|please|and|so|because|now|status|state)\b)"


def _from_a_state_it_is_not_in(task: Task, seed: SeedFacts, tools: Mapping[str, Tool]) -> str:
    """ "from <state>" said of the record a status write changes, when it is not in that
    state: ecommerce-intent-00047 on 6c5d348, "I need to update my status from suspended
    for my own profile", of an active customer the gold then suspended."""
    for call in task.gold_calls:
        tool = tools.get(call.name)
        if tool is None or tool.kind != "write":
            continue
        for table in tool.updated_tables():
            columns = seed.states.get(table, {})
            changed = set(tool.assigned(table)) & set(columns)
            if not changed:
                continue
            keys = seed.primary.get(table, ())
            for value in (call.arguments.get(k) for k in keys):
                held, categories = seed.records.get(value_key(value), ("", frozenset()))
                if held != table:
                    continue
                states = {phrase(v) for c in changed for v in columns[c]}
                for state in sorted(states):
                    if state in categories:
                        continue
                    said = (
                        rf"\bfrom\s+(?:being\s+|the\s+)?['\"]?{spelled(state)}['\"]?{_AFTER_STATE}"
                    )
                    if m := re.search(said, task.instruction, re.I):
                        return _goes_from(table, m.group(), categories, states)
    return ""


_NUMBER = r"\$?(\d[\d,]*(?:\.\d+)?)"
# "the balance of my active account is $72.61": the field of a record, then its value
# ... or "of this account" (finance-intent-00392: "The current balance of this account is
# $1039.48", the amount of a transfer refused for want of it)
_OF_RECORD = (
    # ... or "for my active loan" (finance-intent-00044 on 0ee2fcd: "My outstanding balance
    # for my active loan is 1562.74", the amount it repays, of a loan owing 4269.96)
    r"(?:\s+(?:of|for|on)\s+(?:my|the|your|this|that|our)\s+(?:\w+\s+){0,4}?\w+"
    r"(?=,?\s+(?:which\s+)?(?:is|was)\b))?"
)


# finance's "My outstanding balance is currently 31842.3": a word of time between the two
_NOW = r"(?:\s+(?:currently|now|still|presently|at present|right now|today))?"


_DONE = re.compile(r"used|allowed|sold|taken|booked|spent|redeemed|enrolled")


def rows_read(replay: Replay, skip: Set[int] = frozenset()) -> list[dict]:
    """Every row the gold's calls returned, in order (less the calls at `skip`)."""
    return [
        row
        for i, result in enumerate(replay.results)
        if result.ok and i not in skip
        for row in (result.output if isinstance(result.output, list) else [result.output])
        if isinstance(row, dict)
    ]


def user_sentences(task: Task) -> Iterator[str]:
    """Each sentence of the request and of the known facts: what one claim is read in."""
    for text in [task.instruction, *task.known_facts]:
        yield from re.split(r"(?<=[.;!?])\s+", text)


def _misstated(
    text: str,
    replay: Replay,
    given: set[tuple[str, float]],
    seed: SeedFacts | None = None,
    written: Set[tuple[str, str | None]] | None = None,
) -> str:
    """A number the user gives as a field's value that no record the gold reads has in that
    field: "a closed loan with an outstanding balance of 1700.55" when the loan read shows
    808.79 (1700.55 was the amount pushed past it to make the refusal). The value of an
    argument of that name ("my amount is 20.06" for `amount`) is what the user asks for. A
    field said with its record's kind ("the return quantity of 34") is read in the rows of
    that kind only, where the gold reads any."""
    held: dict[str, set[float]] = {}
    of_kind: dict[tuple[str, str], set[float]] = {}
    for row in rows_read(replay):
        table = _table_of(row, seed) if seed is not None else None
        for name, value in row.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                held.setdefault(name, set()).add(float(value))
                if table is not None:
                    of_kind.setdefault((table, name), set()).add(float(value))
    for name in sorted(held, key=len, reverse=True):
        # finance's "My outstanding loan balance is $10,806.64": the record's kind may sit
        # inside the field's name
        field = r"\s+(?:[a-z]+\s+)?".join(re.escape(part) for part in name.split("_") if part)
        # not the 4 of "4.85%" (weather's humidity): a number is read whole or not at all
        pattern = (
            # movie-intent-00050 on 9a0577e: "My loyalty points are 0" of a customer with 145
            rf"\b{field}{_OF_RECORD}(?:,? which is| is| are| of| was| were| at|:)?{_NOW}"
            # finance-intent-00027 on 5cf74c2: "The current outstanding balance is the amount
            # requested (31,842.3)" of a loan owing 7938.94
            r"(?:\s+the\s+[a-z]+(?:\s+[a-z]+)?\s*\(|\s+)"
            rf"{_NUMBER}"
            r"(?![\d%]|\.\d)"
        )
        parts = [p for p in name.split("_") if p]
        if len(parts) > 1 and _DONE.fullmatch(parts[-1]):
            # medicine-intent-00029 on 277c846: "It has 60 refills allowed, and I've only
            # used 15" of a prescription with refills_used 6: the field's verb and a number
            done, thing = re.escape(parts[-1]), re.escape(parts[0])
            pattern += (
                rf"|\b(?:i(?:'ve| have)?|we(?:'ve| have)?)\s+(?:only\s+|already\s+)?{done}"
                rf"\s+(?:only\s+)?{_NUMBER}(?![\d%]|\.\d)"
                rf"|(?<![\d.]){_NUMBER}\s+(?:{thing}\w*\s+)?{done}\b"
            )
        for m in re.finditer(pattern, text, re.I):
            said = float(next(g for g in m.groups() if g is not None).replace(",", ""))
            # "The to account id is 27570": the transfer's `to_account_id`, the word before
            # the field naming which ("from the account with ID 27551" of a `to_` is false)
            before = set(tokens(text[max(0, m.start() - 12) : m.start()]))
            # "The amount to topup loyalty points is 891": the argument's name leads the
            # clause, the field says what it is added to (a trial on movie's 71aacdf)
            clause = set(tokens(re.split(r"[.;,!?\n]", text[: m.start()])[-1]))
            # "The amount for the refund is 20": the phrase names `refund_amount`
            phrase = re.match(r"\S+(?:\s+\S+)*?\s+(?:of|for|on)\s+(.+?)\s+(?:is|was)\b", m.group())
            before |= set(tokens(phrase.group(1))) if phrase else set()
            passed = any(
                n == name
                or (n.endswith(f"_{name}") and n.split("_")[0] in before)
                or set(n.split("_")) <= clause
                for n, v in given
                if v == said
            )
            kind = _kind_before(text[: m.start()], name, seed) if seed is not None else None
            # finance-intent-00466 on 2a7fb38: "The loan amount is $11,283.2", the amount it
            # repays, of a loan of 7993.59: said with its record's kind, a field is that
            # record's, unless a gold write makes such a record or sets that field
            if (
                written is not None
                and kind
                and (kind, name) in of_kind
                and not {(kind, None), (kind, name)} & written
            ):
                passed = False
            pool = (of_kind.get((kind, name)) if kind else None) or held[name]
            if not passed and not any(same_number(said, v) for v in pool):
                shown = ", ".join(f"{v:g}" for v in sorted(pool)[:3])
                whose = (
                    f"the {singular(kind)} records"
                    if kind and pool is not held[name]
                    else "the records"
                )
                return (
                    f"the user states {m.group().strip()!r}; {whose} the gold reads hold "
                    f"{name} {shown}"
                )
    return ""


def _kind_before(said: str, column: str, seed: SeedFacts) -> str | None:
    """The table whose kind the words just before a field name: ecommerce-intent-00044 on
    6c5d348 asked to "topup 1 to the open return quantity of 34", 34 being its order item's
    quantity, the return's 31 (the longest kind first: "order item" before "item")."""
    words = tokens(said[-40:])
    kinds = sorted(
        (
            (record_phrase(table).split(), table)
            for table, columns in seed.columns.items()
            if column in columns
        ),
        key=lambda pair: -len(pair[0]),
    )
    return next((table for kind, table in kinds if words[-len(kind) :] == kind), None)


_SAME = re.compile(r"\b(?:to|into|with) the (?:very )?same (\w+)", re.I)


def same_record(text: str, task: Task) -> str:
    """ "The same account" for two different ones: finance's "I would like to transfer
    balance from my inactive account to the same account", whose gold moved money from
    27544 to 27604."""
    for m in _SAME.finditer(text):
        if two := _names_two(task, singular(m.group(1).casefold())):
            return f"the user says {m.group()!r}; {two}"
    return ""


def _names_two(task: Task, kind: str) -> str:
    """ "the gold's transfer_funds names A20001 and A20002": the first gold call that passes
    two different records of `kind` (its `<kind>_id` arguments), or ""."""
    for c in task.gold_calls:
        ends = {v for k, v in c.arguments.items() if k.endswith(f"_{kind}_id")}
        if len(ends) >= 2:
            return (
                f"the gold's {c.name} names {' and '.join(str(v) for v in sorted(ends, key=str))}"
            )
    return ""


_ORDINAL = re.compile(r"\b(first|second|third|1st|2nd|3rd)\s+(\w+)", re.I)


def one_for_two(task: Task) -> str:
    """Two known facts that give "the first account" and "the second account" one id, where
    the gold names two: finance-intent-00707 on d3bc077 knew "The account id of the first
    account is 27586" and "The account id of the second account is 27586", and moved money
    from 27583 to 27586."""
    said: dict[tuple[str, Scalar], set[str]] = {}
    for fact in task.known_facts:
        values = literals(fact)
        for m in _ORDINAL.finditer(fact):
            kind = singular(m.group(2).casefold())
            for value in values:
                said.setdefault((kind, value), set()).add(m.group(1).casefold())
    for (kind, value), ordinals in said.items():
        if len(ordinals) >= 2 and (two := _names_two(task, kind)):
            one = int(value) if isinstance(value, float) and value.is_integer() else value
            return (
                f"the known facts give the {' and the '.join(sorted(ordinals))} {kind} "
                f"one value, {one}; {two}"
            )
    return ""


_QUANTITY = re.compile(
    rf"\b(?:balance|amount|total|price|cost|limit|fee)\s+(?:of|is|was|:)\s*{_NUMBER}(?!\d|\.\d)",
    re.I,
)


_CODED = re.compile(r"[A-Za-z]+[-_]?(\d+)")


def _id_number(value: object) -> float | None:
    """The number an id is said by: itself, or the digits of a code (ACC-53486)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and (m := _CODED.fullmatch(value)):
        return float(m.group(1))
    return None


def id_as_quantity(text: str, task: Task) -> str:
    """An id the gold passes, given as an amount: finance's "I want to repay 527.87 from my
    loan balance of 58952", 58952 being the loan's id. A code's number counts
    too ("a balance of 53486" beside account ACC-53486)."""
    ids = {
        number: (i, name)
        for i, c in enumerate(task.gold_calls)
        for name, v in c.arguments.items()
        if name.endswith("id") and (number := _id_number(v)) is not None
    }
    for m in _QUANTITY.finditer(text):
        said = float(m.group(1).replace(",", ""))
        if said in ids:
            call, name = ids[said]
            return (
                f"the user gives {m.group(1)}, the {name} of gold call {call}, as a quantity "
                f"({m.group().strip()!r})"
            )
    return ""


def misread_remainder(text: str, replay: Replay) -> str:
    """A number said to be what is left that the records hold only as a count of something
    else: medicine's "I've only got 44 refills left", 44 being the prescription's
    refills_allowed (what is left is allowed less used)."""
    for said, words in said_left(text):
        columns = {
            name
            for row in rows_read(replay)
            for name, value in row.items()
            if isinstance(value, int | float)
            and not isinstance(value, bool)
            and same_number(said, value)
        }
        if columns and all(NOT_LEFT.search(c) for c in columns):
            held = " or ".join(sorted(columns))
            return f"the user says {words.strip()!r}; {said:g} is the {held}, not what is left"
    return ""


_AT_COUNT = re.compile(
    rf"\b(?:is|are|'s|am)\s+(?:currently\s+|now\s+|still\s+|already\s+)?at\s+{_NUMBER}\s+([a-z]+)",
    re.I,
)


def _counts(name: str, thing: str) -> bool:
    """`refills_used` counts refills, as done (used, allowed, sold ...)."""
    parts = name.split("_")
    return len(parts) > 1 and parts[0].rstrip("s") == thing and bool(_DONE.fullmatch(parts[-1]))


def count_at(text: str, replay: Replay, aimed: list[dict]) -> str:
    """A record said to be "at" a count of a thing its fields count only as used and allowed:
    medicine's "My prescription is currently at 0 refills" of the one a refill acts on, with
    3 used of 100. The count may be either field, or what is left between them; any other
    number is false. Said of the record a write acts on, it is that record's (`aimed`)."""
    for m in _AT_COUNT.finditer(text):
        said, thing = float(m.group(1).replace(",", "")), m.group(2).casefold().rstrip("s")
        held: dict[str, set[float]] = {}
        possible: set[float] = set()
        counted = [row for row in aimed if any(_counts(name, thing) for name in row)]
        for row in counted or rows_read(replay):
            counts = {
                name: float(value)
                for name, value in row.items()
                if _counts(name, thing)
                and isinstance(value, int | float)
                and not isinstance(value, bool)
            }
            for name, value in counts.items():
                held.setdefault(name, set()).add(value)
            possible |= {*counts.values()}
            possible |= {abs(a - b) for x, a in counts.items() for y, b in counts.items() if x != y}
        if held and not any(same_number(said, v) for v in possible):
            shown = "; ".join(
                f"{n} {', '.join(f'{v:g}' for v in sorted(vs)[:3])}"
                for n, vs in sorted(held.items())
            )
            return f"the user says {m.group().strip()!r}; the records the gold reads hold {shown}"
    return ""


def phrase(value: str) -> str:
    """A category value as the words a text says it in: `paid_off` is "paid off"."""
    return " ".join(tokens(value))


def _miscategorised(text: str, seed: SeedFacts, outcome: set[str]) -> str:
    """What the text says of a record it names that the record is not ("Loan L4001 is
    paid_off" for an active loan), unless another record it names is that. A value is said
    whole: "the new flight id" says nothing of a flight to New York."""
    named = [seed.records[k] for x in literals(text) if (k := value_key(x)) in seed.records]
    said = Text(text)
    for table, row in named:
        wrong = sorted(
            p
            for p in seed.categories[table]
            if said.mentions(p) and p not in row and not set(p.split()) <= outcome
        )
        if wrong and not any(w in other for w in wrong for _, other in named):
            return f"{', '.join(wrong)}, which the {table} record it names is not"
    return ""


# what keeps a status word from being a claim: a negation, a question ("if it is active"),
# or a choice ("active or not")
# ... nor a time to come: finance's "Please notify me when the loan status is updated"
# "let me know if my appointment is still scheduled" asks, words on (medicine on 6789a02)
_NO_CLAIM_BEFORE = re.compile(
    r"(?:(?:\bnot|n't|\bnever|\bno longer|\bwhen|\bonce|\buntil|\bas soon as)\W+(?:\w+\W+)?"
    r"|(?:\bif|\bwhether)\W+(?:[\w']+\W+){0,5})$",
    re.I,
)
_NO_CLAIM_AFTER = re.compile(r"^\W*or\b", re.I)
_LITERAL = re.compile(r"'([^']*)'")


def targets(task: Task, replay: Replay, tools: Mapping[str, Tool]) -> list[dict]:
    """The rows the gold's writes act on, as an earlier read showed them: a row one of the
    write's arguments names (`game_id` 44535 in the list of the user's games)."""
    out: list[dict] = []
    for i, call in enumerate(task.gold_calls):
        tool = tools.get(call.name)
        if tool is None or tool.kind != "write":
            continue
        given = {(k, value_key(v)) for k, v in call.arguments.items()}
        for result in replay.results[:i]:
            rows = result.output if isinstance(result.output, list) else [result.output]
            for row in rows if result.ok else []:
                if isinstance(row, dict) and any(
                    (k, value_key(v)) in given for k, v in row.items() if v is not None
                ):
                    out.append(row)
    return out


def misattributed(task: Task, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts) -> str:
    """A value of the new record said as another record's: travel-intent-00057 on 00fbd03
    cancelled a hotel booking and made a flight booking, and said "The check-out date for
    the hotel booking is 2025-03-04T20:00:38", the new flight booking's. Where the text
    names the other kind and not the new one's, and the record of that kind the gold acts
    on holds another value of that column, the statement is false."""
    acted = [(t, row) for row in targets(task, replay, tools) if (t := _table_of(row, seed))]
    texts = [*task.known_facts, *sentences(task.instruction)]
    requests = [Request(text) for text in texts]
    for call in task.gold_calls:
        tool = tools.get(call.name)
        made = tool.inserts() if tool is not None else []
        if not made:
            continue
        new = entity_words(made[0])  # singulars included
        for column, value in call.arguments.items():
            if value is None or isinstance(value, bool) or column.endswith("_id"):
                continue
            for text, request in zip(texts, requests, strict=True):
                said = {singular(w) for w in tokens(text.replace("_", " "))}
                # "My game will cost 287.02" says the price
                named = all(request.says(w, FIELDS) for w in name_words(column))
                if not Text(text).mentions(value) or not named:
                    continue
                for table, row in acted:
                    other, own = entity_words(table) - new, new - entity_words(table)
                    if table == made[0] or not other & said:
                        continue
                    if own & said and not _whose(text, other, column, value):
                        continue
                    held = row.get(column)
                    kind, new_kind = record_phrase(table), record_phrase(made[0])
                    if column not in seed.columns.get(table, ()) and _as_of(text, other, column):
                        return (
                            f"{text.strip()!r} gives {value}, the new {new_kind}'s {column}, "
                            f"as the {kind}'s; the {kind} has no {column}"
                        )
                    if held is not None and value_key(held) != value_key(value):
                        return (
                            f"{text.strip()!r} says the {kind}'s {column} is {value}, the new "
                            f"{new_kind}'s; the {kind} the gold acts on has {held}"
                        )
    return ""


def _whose(text: str, kind: set[str], column: str, value: object) -> bool:
    """The text gives the value as the column of a record of that kind, though it names
    the new record's kind too: ecommerce-intent-00004 on 63628b9, "create a return for my
    order item whose quantity is 12", whose gold returned 12 of an item of 6 (proposed on
    6b0b758; the commit that added this says 63628b9). "with" is
    not read: "a new reading for New James Station with temperature 2.11" gives the new
    reading's (weather-intent-00050 on 61a5427)."""
    kinds = "|".join(sorted(map(re.escape, kind), key=len, reverse=True))
    col = spelled(column)
    said = re.compile(
        rf"\b(?:{kinds})s?(?:\s+\w+)?\s+"
        r"(?:whose|that (?:has|holds)(?: a| an)?)\s+"
        rf"{col}\s+(?:is|of|was|=)?\s*\$?$",
        re.I,
    )
    forms = {str(value), f"{value:g}" if isinstance(value, int | float) else str(value)}
    at = rf"(?<![\w.])(?:{'|'.join(map(re.escape, forms))})(?![\w]|\.\d)"
    return any(said.search(text[: m.start()]) for m in re.finditer(at, text, re.I))


def _as_of(text: str, kind: set[str], column: str) -> bool:
    """The text says the column as a record of that kind's: basketball-intent-00016 on
    277c846, "The price of the game is $50.33", of the new ticket's price (games have no
    price, so no held value could show it false)."""
    kinds = "|".join(sorted(map(re.escape, kind), key=len, reverse=True))
    alike = next((group for group in FIELDS if column in group), {column})
    col = "|".join(sorted({spelled(column), *alike}, key=len, reverse=True))
    of = rf"\b(?:{col})\s+(?:of|for)\s+(?:the|my|this|that|our)\s+(?:\w+\s+)?(?:{kinds})s?\b"
    # "My game will cost 287.02" (basketball-intent-00038 on fe80ced, of the ticket's price)
    owned = rf"\b(?:{kinds})(?:'s|s')?\s+(?:(?:will|would|should|does)\s+)?(?:{col})s?\b"
    return bool(re.search(of, text, re.I) or re.search(owned, text, re.I))


_HAS_A = re.compile(r"\b(?:has|have|holds)\s+(?:a|an)\b", re.I)


def said_of_columnless(text: str, replay: Replay, seed: SeedFacts) -> str:
    """A value a record the gold reads holds, said as a field of a kind that has no such
    field: finance-intent-00053 on 05f674d, "The card is reported stolen and has a balance
    of $1,013", the balance of the account the card is on (cards hold no balance)."""
    if not _HAS_A.search(text):
        return ""
    said = Text(text)
    for row in rows_read(replay):
        owner = _table_of(row, seed)
        for column, value in row.items():
            if owner is None or not isinstance(value, int | float) or isinstance(value, bool):
                continue
            if column.endswith("_id") or not said.mentions(value):
                continue
            for table, columns in seed.columns.items():
                kind = entity_words(table) - entity_words(owner)
                if table == owner or column in columns or not kind:
                    continue
                kinds = "|".join(sorted(map(re.escape, kind), key=len, reverse=True))
                has = (
                    rf"\b(?:{kinds})\b[^.;!?]{{0,40}}?\b(?:has|have|holds)\s+(?:a|an)\s+"
                    rf"(?:\w+\s+)?{spelled(column)}\s+(?:of\s+)?\$?{_NUMBER}"
                )
                for m in re.finditer(has, text, re.I):
                    if same_number(float(m.group(1).replace(",", "")), value):
                        return (
                            f"the user says {m.group().strip()!r}: {value:g} is the "
                            f"{record_phrase(owner)}'s {column}; a {record_phrase(table)} has "
                            f"no {column}"
                        )
    return ""


def _table_of(row: dict, seed: SeedFacts) -> str | None:
    """The table a read's row comes from: of those whose key it holds, the one that has the
    most of its columns (a join adds a column or two of another table)."""
    return row_table(row, seed.primary, seed.columns)


_IS = r"(?:is\s+|:\s*|of\s+|=\s*)?"
_BEFORE_A_THING = r"(?:my|the|this|that|for|on|from|of|in|with)"


def unknown_id(text: str, seed: SeedFacts, replay: Replay) -> str:
    """An id the user gives as a record's ("my contract ID is 402") that no such record has,
    in the seed or made by the gold: basketball's new player was filed under a contract
    that does not exist, though 402 passed as a gold argument."""
    texts = {k for k in seed.records if isinstance(k, str)}  # a card number names a card
    for table, key in seed.primary.items():
        if len(key) != 1 or not seed.keys.get(table):
            continue
        made = _written(replay, seed, table, key[0])
        noun = spelled(singular(table))
        pattern = rf"\b{noun}[\s_-]*(?:id|number|no\.?|#)\s*{_IS}#?([A-Za-z0-9][\w-]*)"
        # "the booking is for Flight 10": a record named by its kind and a number alone,
        # after a word that makes it a thing ("to order 12 tacos" orders)
        bare = rf"\b{_BEFORE_A_THING}\s+{noun}\s+#?(\d[\d-]*)\b(?![.,:]\d)"
        found = [*re.finditer(pattern, text, re.I), *re.finditer(bare, text, re.I)]
        for m in found:
            said = m.group(1)
            if not any(ch.isdigit() for ch in said):
                continue
            named = re.sub(rf"^{_BEFORE_A_THING}\s+", "", m.group().strip(), flags=re.I)
            if value_key(named) in texts:
                continue  # a name: restaurant's "Table 3"
            number = leading_number(said)
            candidates = {value_key(said)} | ({value_key(number)} if number is not None else set())
            # a number the user may have for it (a card number) names a record too
            if not candidates & (seed.keys[table] | made | texts):
                return f"the user states {m.group().strip()!r}; no {singular(table)} has that id"
    return ""


def _written(replay: Replay, seed: SeedFacts, table: str, key: str) -> set[object]:
    """What the gold writes that may name a record of `table`: a new row's key, and values
    in columns other than a reference to it (a payee's external account number), not
    basketball's new player's `contract_id` 402, which names a contract."""
    out: set[object] = set()
    for name, rows in replay.changes.items():
        columns = seed.columns.get(name, ())
        for row_key, row in rows.items():
            if name == table:
                out |= {value_key(v) for v in row_key if v is not None}
            for column, value in zip(columns, row or (), strict=False):
                if value is not None and column != key:
                    out.add(value_key(value))
    return out


def _same_start(said: list[str], value: list[str]) -> bool:
    """One starts with the other, word for word."""
    n = min(len(said), len(value))
    return n > 0 and said[:n] == value[:n]


def _not_a_value(text: str, column: str, values: Iterable[str], others: Set[str]) -> str:
    """What a text gives as the column's value ("the current game status is in progress")
    when it is none of the values the column takes; a value given as the column of another
    kind of record ("my account kind is checking", an entity of `others`) is not."""
    phrase = spelled(column)
    values = list(values)
    for said in re.finditer(
        rf"(\w+)?\s*\b{phrase}\s*(?:is|:)\s+(?:currently\s+|now\s+|still\s+)?['\"]?"
        r"([a-z][\w -]*)",
        text,
        re.I,
    ):
        if (said.group(1) or "").casefold() in others:
            continue
        if re.match(r"(?:not|unknown|the|a|an|what|which)\b", said.group(2), re.I):
            continue
        if _NO_CLAIM_BEFORE.search(text[: said.start()]):  # "notify me when the ..."
            continue
        # a value with a comma is cut there: "Russell, Whitehead and Terrell" says "russell"
        stated = tokens(said.group(2).replace("_", " "))[:3]
        if not any(_same_start(stated, tokens(v.replace("_", " "))) for v in values):
            return " ".join(stated)
    return ""


# what a record is said to be in a status nobody set ("the reservation ... is currently
# active" of a seated reservation, in a domain where no reservation is ever active)
STATES = frozenset(
    (
        *("active", "inactive", "pending", "open", "closed", "confirmed", "cancelled"),
        *("canceled", "completed", "booked", "seated", "suspended", "frozen", "blocked"),
        *("expired", "paid", "unpaid", "shipped", "delivered", "scheduled", "approved"),
        *("rejected", "available", "unavailable", "enabled", "disabled", "finished"),
        *("started", "ongoing", "used", "redeemed"),
    )
)


def _not_a_state(
    text: str, table: str, seed: SeedFacts, allowed: Set[str], kinds: Set[str] = frozenset()
) -> str:
    """A common state word the text gives the record ("my reservation is currently active")
    that no status column of its table takes, where the gold does not set it. Where `kinds`
    (other kinds of record) are given, a record named after one in the same clause is that
    one's ("my ticket for the game on June 23 is active" says the ticket is)."""
    taken = {phrase(v) for values in seed.states.get(table, {}).values() for v in values}
    noun = spelled(singular(table))
    # movie-intent-00035 on 71aacdf: "My booking is currently in the status 'inactive'"
    within = r"(?:in\s+(?:the\s+|a\s+)?(?:status|state)\s+(?:of\s+)?['\"]?)?"
    # railway-intent-00041 on a4b9fc9: "cancel my ticket because it's already been used"
    pattern = (
        rf"\b{noun}\b([^.?!]{{0,40}}?)(?:\b(?:is|was|has)|\bit['’]s)\s+"
        rf"(?:(?:currently|now|still|already)\s+)?(?:been\s+)?{within}(\w+)"
    )
    for m in re.finditer(pattern, text, re.I):
        said = m.group(2).casefold()
        if said not in STATES or said in taken or said in allowed:
            continue
        clause = re.split(r"[,;:.!?]|\b(?:and|but)\b", text[: m.start()])[-1] + m.group(1)
        if kinds & {singular(w) for w in tokens(clause.replace("_", " "))}:
            continue
        before = (text[: m.start()], m.group(1))  # "if my ticket", "my ticket if it's"
        if any(map(_NO_CLAIM_BEFORE.search, before)) or _NO_CLAIM_AFTER.match(text[m.end() :]):
            continue
        if said == "used" and re.match(r"\s+(?:to|for|by|in|on|at|as|with)\b", text[m.end() :]):
            continue  # "my card is used for groceries" says what it is for
        return said
    return ""


def stateless(task: Task, tools: Mapping[str, Tool], seed: SeedFacts) -> str:
    """A state the user gives a kind of record that no record of the kind is ever in, any
    record, not only a write's target (`_misdescribed_target` reads those against their
    rows): basketball-intent-00043 in runs/ knew "My game on June 23 is active", its games
    scheduled, postponed or completed (the game was no target; the ticket it moved was
    active)."""
    sets = _gold_states(task, tools)
    kinds = {singular(t) for t in seed.columns}
    for line in [*task.known_facts, *sentences(task.instruction)]:
        for table, columns in seed.states.items():
            if not any("status" in column for column in columns):
                continue
            others = kinds - {singular(table)}
            if said := _not_a_state(line, table, seed, sets, others):
                states = sorted({v for values in columns.values() for v in values})
                return (
                    f"{line.strip()!r} says {said!r}, which no {singular(table)} is (they are "
                    f"{', '.join(states)})"
                )
    return ""


def _of_another(value: str, table: str, words: set[str], seed: SeedFacts) -> bool:
    """The text also names another kind of record that can be in this state: in "my other
    checking account has a frozen card", frozen is the card's, not the account's."""
    return any(
        other != table
        and singular(other) in words
        and any(value in values for values in seed.states[other].values())
        for other in seed.states
    )


def _denied(text: str, value: str) -> str:
    """The words of a reason that says the record is not in a state ("deactivate my
    account, as it's no longer active"): finance's gold deactivated an active account. A
    wish is no reason ("so that it is no longer active")."""
    phrase = spelled(value)
    m = re.search(
        rf"\b(?:as|since|because)\s+(?:it|it['’]s|it\s+is|my\s+\w+(?:\s+is)?|the\s+\w+\s+is)\s+"
        rf"(?:(?:currently|now|already)\s+)?(?:no\s+longer|not|never)\s+(?:been\s+)?{phrase}\b",
        text,
        re.I,
    )
    return m.group() if m else ""


def _without_anothers(text: str, column: str, kinds: set[str]) -> str:
    """The text with what it says of another kind of record's column blanked out: "The
    station name is Herreraville Station" beside a move of that station to a region says
    the station's name, not the region's (weather on 6accfa9 refused such proposals as
    false_fact); the rest of the sentence is still read ("... and its region is named
    Antarctica")."""
    if not kinds:
        return text
    field = r"[\s_]+".join(map(re.escape, column.split("_")))
    owners = "|".join(
        r"[\s_]+".join(map(re.escape, k.split("_"))) for k in sorted(kinds, key=len, reverse=True)
    )
    said = re.compile(
        rf"\b(?:{owners})(?:['’]s)?\s+{field}\s+(?:is|are|was|were|will be)\s+"
        rf".+?(?=\s+(?:and|but|while)\b|[,;!?]|\.(?:\s|$)|$)",
        re.I,
    )
    return said.sub(lambda m: " " * len(m[0]), text)


def _set_by_writes(task: Task, tools: Mapping[str, Tool]) -> set[str]:
    """The literals the gold's writes set ('cancelled' in a cancel's UPDATE): a state the
    user asks for, not one they say a record is in."""
    return {
        v.casefold()
        for c in task.gold_calls
        if c.name in tools and tools[c.name].kind == "write"
        for sql in tools[c.name].run
        for v in _LITERAL.findall(sql)
    }


def _gold_states(task: Task, tools: Mapping[str, Tool]) -> set[str]:
    """What the gold's writes set and every value its calls pass: a state the user asks
    for or names to act on, not one they claim a record is in."""
    return _set_by_writes(task, tools) | {
        str(v).casefold() for c in task.gold_calls for v in c.arguments.values()
    }


def _misdescribed_target(
    task: Task, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts
) -> str:
    """A status the user gives the record a write acts on that it does not have: basketball's
    "The current game status is in progress" for a completed game, named by its date, not
    its id. The state a write sets ("I want it scheduled") is no claim, nor is a negation,
    a question or a choice ("if it is active", "active or not")."""
    rows = targets(task, replay, tools)
    if not rows:
        return ""
    sets = _gold_states(task, tools)
    texts = [*task.known_facts, *sentences(task.instruction)]
    held: dict[tuple[str, str], set[str]] = {}  # (table, column): what the target rows hold
    for row in rows:
        table = _table_of(row, seed)
        for column in seed.states.get(table or "", {}):
            if table and row.get(column) is not None:
                held.setdefault((table, column), set()).add(str(row[column]).casefold())
    for (table, column), now in held.items():
        subject = {singular(table), table, column}
        kinds = {singular(t) for t in seed.columns if t != table}
        for line in texts:
            text = _without_anothers(line, column, kinds)
            words = set(tokens(text.replace("_", " ")))
            words |= {singular(w) for w in words}
            if "?" in text or not subject & words:
                continue
            for value in sorted(now):
                if said := _denied(text, value):
                    return (
                        f"{line.strip()!r} says {said!r}, but the {singular(table)} the gold "
                        f"acts on is {value} ({column})"
                    )
            # a value inside the row's own ("Antarctica" in its name "House Antarctica",
            # weather's region) is that one
            own = text
            for value in now:
                own = re.sub(rf"\b{spelled(value)}\b", lambda m: " " * len(m[0]), own, flags=re.I)
            for value in sorted(seed.states[table][column]):
                if value.casefold() in sets | now or _of_another(value, table, words, seed):
                    continue
                phrase = spelled(value)
                for m in re.finditer(rf"\b{phrase}\b", own, re.I):
                    if _NO_CLAIM_BEFORE.search(text[: m.start()]) or _NO_CLAIM_AFTER.match(
                        text[m.end() :]
                    ):
                        continue
                    return (
                        f"{line.strip()!r} says {value}, but the {singular(table)} the gold "
                        f"acts on is {' or '.join(sorted(now))} ({column})"
                    )
            if "status" in column and (said := _not_a_state(text, table, seed, sets | now)):
                return (
                    f"{line.strip()!r} says {said!r}, which no {singular(table)} is (they are "
                    f"{', '.join(sorted(seed.states[table][column]))})"
                )
            # "my account kind is checking" beside a loan payment is the account's kind
            others = {singular(o) for o in seed.states if o != table and column in seed.states[o]}
            if said := _not_a_value(text, column, seed.states[table][column] | sets, others):
                return (
                    f"{line.strip()!r} says its {column} is {said!r}, which no {singular(table)} "
                    f"has (they are {', '.join(sorted(seed.states[table][column]))})"
                )
    return ""


_NOW_WORD = re.compile(r"\b(?:current|currently|existing|presently|at present|right now)\b", re.I)
_ASKING = re.compile(
    r"\b(?:new|want|wants|wish|like|change|update|set|make|please|can|could|would|need|tell|"
    r"show|check|confirm|know|other|another|different|destination|instead|target)\b|\?",
    re.I,
)


def new_as_current(task: Task, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts) -> str:
    """The value a write sets, said to be what the record holds now: ecommerce-intent-00048
    on 6c5d348 knew "The current shipping address is 17530 Mary Lane Apt. 956" and asked for
    that same address as the new one, of an order with none; travel-intent-00013 on 0651c04
    said "I have a hotel booking on 2025-02-05 at the Martin LLC", the hotel it then moved
    the booking (at Meyer Inc) to. A sentence that asks ("change my current address to
    ...") is no such claim, nor is a record that already holds it, nor a value that names a
    record (the card a freeze acts on)."""
    held = {str(v).casefold() for row in targets(task, replay, tools) for v in row.values()}
    for i, name, value, found in _set_values(task, replay, tools):
        if len(value) < 3 or value.casefold() in held:
            continue
        if not found and value_key(value) in seed.records:
            continue  # a key the write passes names its record
        for text in [task.instruction, *task.known_facts]:
            # the value masked first: "Apt. 956" would end a sentence at its dot
            masked = re.sub(re.escape(value), " VALUE ", text, flags=re.I)
            for sentence in re.split(r"(?<=[.;!?])\s+", masked):
                if (
                    " VALUE " in sentence
                    and (_NOW_WORD.search(sentence) or _HAVING.search(sentence))
                    and not _ASKING.search(sentence)
                    and not re.search(r"\b(?:to|into|as)\s+(?:the\s+)?VALUE\b", sentence)
                ):
                    said = re.sub(r"\s+(?=[.;!?]|$)", "", " ".join(sentence.split()))
                    said = said.replace("VALUE", value)
                    return (
                        f"{said!r} says the record holds {value!r} now, the value gold "
                        f"call {i} ({name}) sets"
                    )
    return ""


# "I have a hotel booking ... at the Martin LLC": what the user holds now
_HAVING = re.compile(r"\b(?:i have|i've got|i own|i hold)\b", re.I)
_DESTINATION_PARAMS = ("new_", "to_", "destination")


def _set_values(
    task: Task, replay: Replay, tools: Mapping[str, Tool]
) -> list[tuple[int, str, str, bool]]:
    """(write call, its tool, value, found by it) of each text a write sets: its own text
    arguments, and the name a record it moves to was found by (`find_hotel_by_name("Martin
    LLC")` before `move_hotel_booking_hotel_id(new_hotel_id=...)`)."""
    out: list[tuple[int, str, str, bool]] = []
    for i, call in enumerate(task.gold_calls):
        tool = tools.get(call.name)
        if tool is None or tool.kind != "write":
            continue
        out += [(i, call.name, v, False) for v in call.arguments.values() if isinstance(v, str)]
        toward = {
            value_key(v)
            for p, v in call.arguments.items()
            if p.startswith(_DESTINATION_PARAMS) and v is not None
        }
        for read, result in zip(task.gold_calls[:i], replay.results[:i], strict=True):
            rows = output_rows(result.output) if result.ok else []
            if len(rows) != 1 or tools.get(read.name) is None or tools[read.name].kind == "write":
                continue
            key = own_key(rows[0])
            if key is not None and value_key(rows[0][key]) in toward:
                out += [
                    (i, call.name, v, True) for v in read.arguments.values() if isinstance(v, str)
                ]
    return out


def passed_on(task: Task, replay: Replay) -> list[dict]:
    """The rows read whose own key a later call passes on: the records the gold goes
    through to reach what it acts on (an enrollment whose id lists the grade a write then
    deactivates)."""
    out: list[dict] = []
    for i, result in enumerate(replay.results):
        later = {value_key(v) for c in task.gold_calls[i + 1 :] for v in c.arguments.values()}
        for row in output_rows(result.output) if result.ok else []:
            key = own_key(row)
            if key is not None and value_key(row[key]) in later:
                out.append(row)
    return out


def _not_another_kind(kind: str, tables: set[str]) -> str:
    """A lookahead that the words after `kind` do not name another table with it (flight
    -> booking for flight_bookings); "" where no table does."""
    out = sorted(t.split("_", 1)[1] for t in tables if t.startswith(f"{kind}_"))
    words = "|".join(re.escape(w.replace("_", " ")) for w in out)
    return rf"(?!\s+(?:{words})\b)" if words else ""


def state_before_kind(
    task: Task, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts
) -> str:
    """A state put before a kind of record ("the active enrollment") that no record of that
    kind the gold goes through or acts on is in: school-intent-00067 on 49ac475 deactivated
    the grade of a dropped enrollment it called "the active enrollment". A state a write
    sets is no claim ("my frozen card" of the card it freezes)."""
    held: dict[tuple[str, str], set[str]] = {}  # (table, column): what those rows hold
    for row in [*targets(task, replay, tools), *passed_on(task, replay)]:
        table = _table_of(row, seed)
        for column in seed.states.get(table or "", {}):
            if table and row.get(column) is not None:
                held.setdefault((table, column), set()).add(str(row[column]).casefold())
    sets = _set_by_writes(task, tools)
    texts = [*task.known_facts, *sentences(task.instruction)]
    # every state the rows of a kind hold: "my pending order" of an order whose payment is
    # pending is true though its status is shipped
    states: dict[str, set[str]] = {}
    for (table, _), now in held.items():
        states.setdefault(table, set()).update(now)
    # "my active flight booking" names a booking, not the flight
    compound = {w for t in seed.columns for w in [t.casefold(), singular(t).casefold()]}
    for (table, column), now in held.items():
        kind = spelled(singular(table))
        alone = _not_another_kind(singular(table), compound)
        # another kind's state no column of this kind takes: finance-intent-00403 on
        # d43fe63, "my inactive card on my account", of an active card on an inactive account
        own = {v.casefold() for vs in seed.states[table].values() for v in vs}
        others = {
            v for t, cs in seed.states.items() if t != table for vs in cs.values() for v in vs
        }
        strange = {v for v in others if v.casefold() not in own | seed.categories.get(table, set())}
        if "status" not in column and column != "state":
            strange = set()  # said of the record's own status, reported with it
        for value in sorted(set(seed.states[table][column]) | strange):
            if value.casefold() in states[table] | sets:
                continue
            before = re.compile(
                rf"\b(?:the|my|our|this|that)\s+(?:currently\s+)?{spelled(value)}\s+{kind}s?\b"
                + alone,
                re.I,
            )
            for line in texts:
                if m := before.search(line):
                    return (
                        f"{line.strip()!r} says {m.group()!r}, but the {singular(table)} the "
                        f"gold goes through is {' or '.join(sorted(now))} ({column})"
                    )
    return ""


def none_held(task: Task, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts) -> str:
    """A kind called by a number its records hold ("my outstanding loan", for the column
    `outstanding_balance`) where every such record the gold goes through holds none of it:
    finance-intent-00254 on f61cf75 repaid "my outstanding loan", a repaid loan owing 0,
    while the user's other loan owed 7179.92. The number is read before any write."""
    rows: dict[str, list[dict]] = {}
    for row in [*targets(task, replay, tools), *passed_on(task, replay)]:
        if (table := _table_of(row, seed)) is not None:
            rows.setdefault(table, []).append(row)
    texts = [*task.known_facts, *sentences(task.instruction)]
    for table, held in rows.items():
        kind = spelled(singular(table))
        for column in seed.columns.get(table, ()):
            values = [row.get(column) for row in held if column in row]
            if not values or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and v == 0 for v in values
            ):
                continue
            word, *rest = column.split("_")
            # "my outstanding loan balance is 0" says what the balance is, not that it owes
            after = rf"(?!\s+(?:{'|'.join(map(re.escape, rest))})\b)" if rest else ""
            said = re.compile(
                rf"\b(?:the|my|our|this|that)\s+{re.escape(word)}\s+{kind}\b{after}", re.I
            )
            for line in texts:
                if m := said.search(line):
                    return (
                        f"{line.strip()!r} says {m.group()!r}, but the {singular(table)} the "
                        f"gold goes through holds {column} 0"
                    )
    return ""


def two_states(task: Task, seed: SeedFacts) -> str:
    """A known fact that gives one record two states of one column ("My active card is
    frozen"): finance-intent-00654 on f61cf75, whose gold froze an active card, knew it so;
    the state a write sets is asked, not had. Two columns that could hold one each ("my
    pending order is shipped": a payment pending) are no contradiction."""
    for table, columns in seed.states.items():
        kind = spelled(singular(table))
        values = sorted({v for vs in columns.values() for v in vs}, key=len, reverse=True)
        said = "|".join(spelled(v) for v in values)
        if not said:
            continue
        pattern = re.compile(
            rf"\b(?:the|my|our|this|that)\s+({said})\s+{kind}\s+(?:is|was)\s+"
            rf"(?:(?:now|currently|still|already)\s+)?({said})(?=\s*(?:[.,;!]|$))",
            re.I,
        )
        holding = [{spelled(v).casefold() for v in vs} for vs in columns.values()]
        for fact in task.known_facts:
            for m in pattern.finditer(fact):
                first, second = m.group(1).casefold(), m.group(2).casefold()
                apart = any(
                    first in a and second in b
                    for i, a in enumerate(holding)
                    for j, b in enumerate(holding)
                    if i != j
                )
                if first != second and not apart:
                    return (
                        f"the known fact {fact!r} gives the {singular(table)} two states of "
                        f"one column: {first} and {second}"
                    )
    return ""


_WANTED = re.compile(
    r"\bthe\s+(?:\w+\s+){0,2}?(?:that\s+|which\s+)?i(?:['’]d\s+like|\s+(?:want|would like|"
    r"wish|plan|intend|am going))\s+to\s+(\w+)",
    re.I,
)


def wanted(text: str, task: Task, tools: Mapping[str, Tool]) -> str:
    """`text` with "the balance I want to repay" put as the number the gold's write of that
    verb passes (its one numeric argument that is not a key), so that a field said to be it
    is read as said of that number: finance-intent-00425 on f61cf75 knew "The outstanding
    balance of my loan is the balance I want to repay", 2198.33 owing, 256.85 repaid."""

    def number(m: re.Match[str]) -> str:
        verb = m.group(1).casefold()
        found = {
            float(v)
            for c in task.gold_calls
            if c.name in tools
            and tools[c.name].kind == "write"
            and any(part.startswith(verb) for part in c.name.casefold().split("_"))
            for k, v in c.arguments.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and not k.endswith("id")
        }
        return f"{found.pop():g} ({m.group()})" if len(found) == 1 else m.group()

    return _WANTED.sub(number, text)


_TO_A = r"\b(?:to|into|onto)\s+(?:(?:another|the|a|an|my|our|their|his|her|other)\s+){0,2}"


def destination_state(
    task: Task, spec: EnvironmentSpec, tools: Mapping[str, Tool], seed: SeedFacts
) -> str:
    """A state given to the record a write sends something to that it is not in: finance's
    "transfer 10,618.8 from my inactive account to another inactive account" of a transfer
    to an active one (finance-intent-00009 on 5cf74c2). The record is a write's `to_` or
    `new_` argument, by its key; a state the gold sets is asked, not said."""
    sets = _set_by_writes(task, tools)
    text = "\n".join([task.instruction, *task.known_facts])
    for call in task.gold_calls:
        if call.name not in tools or tools[call.name].kind != "write":
            continue
        for param, value in call.arguments.items():
            prefix, _, column = param.partition("_")
            if prefix not in ("to", "new") or not column:
                continue
            for table, primary in seed.primary.items():
                if primary != (column,) or not seed.states.get(table):
                    continue
                row = next(
                    (
                        r
                        for r in spec.seed.get(table, [])
                        if value_key(r.get(column)) == value_key(value)
                    ),
                    None,
                )
                if row is None:
                    continue
                noun = spelled(singular(table))
                for state_column, states in seed.states[table].items():
                    now = str(row.get(state_column, "")).casefold()
                    said = "|".join(spelled(v) for v in sorted(states, key=len, reverse=True))
                    for m in re.finditer(rf"{_TO_A}({said})\s+(?:\w+\s+)?{noun}\b", text, re.I):
                        state = m.group(1).casefold()
                        if state != now and state not in sets:
                            return (
                                f"the user says {m.group().strip()!r}; the {singular(table)} "
                                f"{value} the gold's {call.name} passes as {param} is {now} "
                                f"({state_column})"
                            )
    return ""


def past_moment(task: Task, spec: EnvironmentSpec, tools: Mapping[str, Tool]) -> str:
    """A new record of something still to come, set before today: travel-intent-00011 on
    277c846 booked a hotel stay from 2023-03-17 (00025: "for the next two days", from
    2024-05-24), where the clock is 2025-01-15 and the seed's pending stays lie ahead. A
    column whose seed rows all lie behind (a birth date, a past payment) is left alone."""
    today = spec.clock[:10]
    for i, call in enumerate(task.gold_calls):
        tool = tools.get(call.name)
        # a create that also takes a seat inserts as well: travel-intent-00004 on 7e55d3f
        # booked a flight on 2024-12-05 through one
        if tool is None or call.expect_error is not None:
            continue
        for table in tool.inserts():
            rows = spec.seed.get(table, [])
            for param, value in call.arguments.items():
                if not isinstance(value, str) or not _DATE.match(value) or value[:10] >= today:
                    continue
                held = [v for r in rows if isinstance(v := r.get(param), str)]
                if any(_DATE.match(v) and v[:10] >= today for v in held):
                    return (
                        f"gold call {i} {call.name} sets {param}={value!r}, before today "
                        f"({today}), where the {table} to come lie ahead"
                    )
    return ""


def told_before_made(task: Task, tools: Mapping[str, Tool]) -> str:
    """What the user states of the record the gold makes, that the making sets itself: its
    id, its state. Ecommerce-intent-00004 on 277c846 said "The return id is xxxxxx" and
    "The return status is pending" of the return its gold opened (status 'open'); what the
    user asks the new record to hold ("a reservation for a party of 5") is theirs to say."""
    for i, call in enumerate(task.gold_calls):
        tool = tools.get(call.name)
        if tool is None or not tool.creates or call.expect_error is not None:
            continue
        for table in tool.inserts():
            kind = re.escape(record_phrase(table))
            for column in tool.set_itself(table):
                field = re.escape(column.replace("_", " ").removeprefix(f"{singular(table)} "))
                claim = re.compile(
                    rf"\b(?:my|the|our)\s+(?:new\s+)?{kind}(?:'s)?\s+{field}\s+(?:is|was)\b", re.I
                )
                for said in [task.instruction, *task.known_facts]:
                    if m := claim.search(said):
                        return (
                            f"the user says {m.group()!r} of the {record_phrase(table)} gold "
                            f"call {i} {call.name} makes: its {column} is set in the making"
                        )
    return ""


def _days_in(text: str) -> list[str]:
    found = [m.group()[:10] for m in _DATE.finditer(text)]
    return found + [d for m in _NAMED_DAY.finditer(text) if (d := named_day(m))]


def _on_day(value: object, day: str) -> bool:
    if not isinstance(value, str) or not _DATE.match(value):
        return False
    return value[5:10] == day[4:] if day.startswith("day ") else value[:10] == day


def unpaired(task: Task, replay: Replay) -> str:
    """One record said by a number and a day that no record the gold reads holds together:
    restaurant-intent-00005 on 277c846 said "I'm ordering for a party of 5 on June 6th" of
    its reservation of June 6th for 2 (its party of 5 was another, of January 15th). Only a
    sentence with one such number and one day is read: "from a party of 2 on June 6 to a
    party of 5" names two records; a number the gold passes is asked of a record, not said
    of one ("create a ticket for my game on 2025-05-06 with a price of 57.44")."""
    rows = rows_read(replay)
    columns = {c for row in rows for c, v in row.items() if type(v) is int or type(v) is float}
    given = {v for call in task.gold_calls for k, v in call.arguments.items() if k[-3:] != "_id"}
    for sentence in user_sentences(task):
        days = _days_in(sentence)
        said = [
            (column, float(m.group(1)))
            for column in sorted(columns)
            for w in name_words(column)
            if w not in GENERIC and not column.endswith("_id")
            for m in re.finditer(
                rf"\b{re.escape(w)}\w*(?:\s+\w+){{0,2}}?\s+(\d+(?:\.\d+)?)(?![\d-]|\.\d)",
                sentence,
                re.I,
            )
        ]
        if len(days) != 1 or len(said) != 1:
            continue
        (column, number), day = said[0], days[0]
        if number in given:
            continue  # what the user asks a record to hold: "a ticket ... with a price of"
        held = [r for r in rows if r.get(column) == number]
        # the day of a record of the number's kind: "the quantity of 3 from the
        # reservation on 2024-10-01" is an order's quantity and a reservation's day
        dated = [r for r in rows if column in r and any(_on_day(v, day) for v in r.values())]
        both = [r for r in held if r in dated]
        if held and dated and not both:
            return (
                f"the user says {sentence.strip()!r}: no record the gold reads has "
                f"{column} {number:g} on {day}"
            )
    return ""


# "the check-in date for both is 2025-02-13T15:00:40": one value said of two records
_BOTH = re.compile(
    r"\b(?:for|of) both(?: of them)?\s+(?:is|are|was|were|should be|will be|would be)\s+"
    r"(?P<value>[^,;!?]+)",
    re.I,
)


def said_of_both(task: Task, replay: Replay, tools: Mapping[str, Tool]) -> str:
    """A value said of two records that fewer than two records the gold reads or writes
    hold: travel-intent-00064 on dee4810 added bags to a flight booking and made a hotel
    booking, "specifying that the check-in date for both is 2025-02-13T15:00:40", its fact
    "My flight check-in date is 2025-02-28"."""
    for text in [task.instruction, *task.known_facts]:
        for m in _BOTH.finditer(text):
            said = literals(m.group("value"))
            if not said:
                continue
            key = value_key(said[0])
            rows = [r for r in rows_read(replay) if any(value_key(v) == key for v in r.values())]
            # a write whose output is not the row it made (a count, nothing) holds it too
            made = [
                c
                for c, result in zip(task.gold_calls, replay.results, strict=False)
                if (tool := tools.get(c.name)) is not None and tool.kind == "write"
                if any(value_key(v) == key for v in c.arguments.values())
                and not isinstance(result.output, dict)
            ]
            held = len({tuple(sorted(map(str, r.items()))) for r in rows}) + len(made)
            if held < 2:
                return (
                    f"the user says {m.group().strip()!r} of two records; "
                    f"{'only one' if held else 'no'} record the gold reads or writes holds it"
                )
    return ""


# a temperature's scale: 19.9 degrees Fahrenheit is another reading than 19.9 degrees Celsius
_SCALES = {"fahrenheit": "f", "celsius": "c", "centigrade": "c", "kelvin": "k"}
_SCALED = re.compile(
    r"-?\d+(?:\.\d+)?\s*(?:degrees?\s+)?(fahrenheit|celsius|centigrade|kelvin)\b"
    r"|-?\d+(?:\.\d+)?\s*°\s*([fck])\b",
    re.I,
)


def unheld_scale(task: Task, schema: Schema) -> str:
    """A temperature said in a scale no column is described in: weather-intent-00132 on
    182938e asked for a reading of "19.9 degrees Fahrenheit", and the gold stored 19.9 in a
    `temperature` column described as "The temperature at the station." (a seed of -20 to
    40, by the look of it Celsius). The number is the gold's, the claim about it is not."""
    temperatures = [
        c
        for t in schema.tables
        for c in t.columns
        if "temp" in f"{c.name} {c.description}".casefold()
    ]
    if not temperatures:
        return ""  # medicine's "I keep it at 4 degrees Celsius" is about no column
    described = " ".join(f"{c.name} {c.description}" for c in temperatures).casefold()
    held = {letter for word, letter in _SCALES.items() if word in described}
    held |= {m.group(1) for m in re.finditer(r"(?:°|\bdeg(?:rees?)?)\s*([fck])\b", described)}
    held |= {c.name.casefold()[-1] for c in temperatures if re.search(r"_[fck]$", c.name, re.I)}
    for text in [task.request(), *task.known_facts]:
        for m in _SCALED.finditer(text):
            scale = _SCALES[m.group(1).casefold()] if m.group(1) else m.group(2).casefold()
            if scale not in held:
                return (
                    f"the user says {m.group()!r}, a scale no column of the schema is described in"
                )
    return ""


# a record said to be today's: "my appointment for today", "it is today", "today's flight"
_TODAYS = re.compile(r"\b(?:for|is|on|scheduled|booked) today\b|\btoday's\b", re.I)


def not_today(task: Task, clock: str) -> str:
    """A record said to be today's with a day that is not today: medicine-intent-00064 on
    277c846 said "I just got my appointment for today and it starts at 2024-04-01" under a
    clock of 2025-01-15. "Today I want to cancel my booking of March 1" says when the user
    asks, not when the record is."""
    today = clock[:10]
    for sentence, day in _days_said(task, _TODAYS):
        if not _on_day(today, day):
            return f"the user says {sentence.strip()!r}, but today is {today}"
    return ""


def _days_said(task: Task, cue: re.Pattern[str]) -> Iterator[tuple[str, str]]:
    """Each day said in a sentence of the user's that has the cue, with its sentence."""
    for sentence in user_sentences(task):
        if cue.search(sentence):
            yield from ((sentence, day) for day in _days_in(sentence))


_TO_COME = re.compile(
    r"\b(?:upcoming|forthcoming|future)\b"
    # a record's "will": basketball-intent-00009 on 65cb0f1, "our current contract for
    # 2024-03-26 will commence on that date"; not what the user will do ("I will need")
    r"|(?<!\bI )(?<!\bwe )(?<!\byou )(?<!\bthey )(?<!\bwhat )\bwill\s+(?!you\b|not\b|need\b)"
    r"[a-z]+",
    re.I,
)


_BEGUN = re.compile(
    r"\b(?:has|have|had) already (?:started|begun|taken place|happened|passed|ended|finished|"
    r"been played)\b|\balready (?:over|finished|played)\b"
    # basketball-intent-00063 on 0d74fa0: "a game that started on January 25, 2025"
    r"|\b(?:that|which) (?:already )?(?:started|began|took place|happened|ended|finished|"
    r"was played)\b",
    re.I,
)


def not_begun(task: Task, clock: str, replay: Replay) -> str:
    """A record said to have begun already, on a day after today: basketball-intent-00029
    on 31bc8d2 knew "The game starting on February 19th has already started", 00063 on
    0d74fa0 asked of "a game that started on January 25, 2025", under a clock
    of 2025-01-15 (game 41371 of 2025-02-19, scheduled). A day without its year is read off
    the records the gold reads on that day, where they all lie ahead."""
    today = clock[:10]
    read = rows_read(replay)
    for sentence, day in _days_said(task, _BEGUN):
        held = {v[:10] for r in read for v in r.values() if _on_day(v, day)}
        if day.startswith("day "):
            ahead = bool(held) and all(d > today for d in held)
        else:
            ahead = day > today
        if ahead:
            return f"the user says {sentence.strip()!r}, but it is on a day after today, {today}"
    return ""


# a thing the user says they bought: "the TV I ordered", "I purchased the Smartwatch"
_BOUGHT = re.compile(
    r"\bthe\s+(?P<after>[\w' -]{2,40}?)\s+(?:that\s+)?I\s+(?:ordered|bought|purchased)\b"
    r"|\bI\s+(?:ordered|bought|purchased)\s+(?:the|a|an|my)\s+(?P<before>[\w' -]{2,40}?)"
    r"(?=\s*(?:[.,;!?]|$|\s+(?:and|on|for|from|last|in|which|that)\b))",
    re.I,
)


def not_bought(task: Task, spec: EnvironmentSpec, replay: Replay, seed: SeedFacts) -> str:
    """A record named as bought by the user ("the TV I ordered") that none of their rows
    points to: ecommerce-intent-00145 on 351e25e asked to add "the TV I ordered" to an order
    whose items are other products, and knew "The TV is currently delivered"."""
    user = asker(replay, seed)
    key = seed.primary.get(seed.people or "", ())
    if user is None or len(key) != 1:
        return ""
    person = value_key(user[key[0]])
    for sentence in user_sentences(task):
        for m in _BOUGHT.finditer(sentence):
            said = (m.group("after") or m.group("before") or "").strip()
            for table in spec.schema_.tables:
                pk = table.primary_key[0] if len(table.primary_key) == 1 else None
                named = [
                    r[pk]
                    for r in spec.seed.get(table.name, [])
                    if pk and any(n.casefold() == said.casefold() for n in record_names(r))
                ]
                if not named:
                    continue
                holders = [
                    (t, fk.columns[0])
                    for t in spec.schema_.tables
                    for fk in t.foreign_keys
                    if fk.ref_table == table.name and len(fk.columns) == 1 and t.name in seed.owner
                ]
                if not holders:
                    continue
                held = any(
                    r.get(column) in named
                    and seed.owner[t.name].get(value_key(r.get(t.primary_key[0]))) == person
                    for t, column in holders
                    for r in spec.seed.get(t.name, [])
                )
                if not held:
                    kinds = " or ".join(record_phrase(t.name) for t, _ in holders)
                    return (
                        f"the user says {m.group().strip()!r}, but no {kinds} of theirs is of "
                        f"the {record_phrase(table.name)} {said}"
                    )
    return ""


# what the user did on a day: "that I booked on April 22, 2025", "I placed it on June 3"
_DID_ON = re.compile(
    r"\b(?:I|we)\s+(?:booked|ordered|placed|bought|purchased|reserved|made|created|opened)"
    r"(?:\s+(?:it|this|that|them|one))?\s+on\s+(?:the\s+)?",
    re.I,
)


def done_ahead(task: Task, clock: str) -> str:
    """Something the user says they did on a day after today: travel-intent-00058 on
    d7b1bec, "my hotel booking that I booked on April 22, 2025" under a 2025-01-15 clock
    (April 22 was the booking's check-in day). A day without its year is left alone."""
    today = clock[:10]
    for sentence in user_sentences(task):
        for m in _DID_ON.finditer(sentence):
            day = day_at(sentence[m.end() :])
            if day and not day.startswith("day ") and day > today:
                return (
                    f"the user says they did it on {day} ({m.group().strip()!r}), a day after "
                    f"today, {today}"
                )
    return ""


# a record said to have none of a kind of record under it: "my game ... does not have an
# active ticket", "the order has no open returns"
_HAS_NONE = re.compile(
    r"\b(?:does not|doesn't|do not|don't|did not|didn't) (?:have|hold) (?:an?|any) "
    r"(?:(?P<state>[a-z_]+) )?(?P<kind>[a-z_]+)"
    r"|\b(?:has|have) no (?:(?P<no_state>[a-z_]+) )?(?P<no_kind>[a-z_]+)",
    re.I,
)


def denied_children(task: Task, spec: EnvironmentSpec, replay: Replay) -> str:
    """A record the gold reads, said to have none of a kind of record it holds in the seed:
    basketball-intent-00040 on 31bc8d2 knew "My game starting on 2025-05-28 does not have an
    active ticket", and game 41348 held active ticket 57898. The record is the one read row
    of the parent's table that holds a day or a name (or key) the sentence says before it."""
    schema = spec.schema_
    read = rows_read(replay)
    for sentence in user_sentences(task):
        for m in _HAS_NONE.finditer(sentence):
            state, kind = m["state"] or m["no_state"], m["kind"] or m["no_kind"] or ""
            child = _table_named(schema, kind)
            if child is None and state is not None:  # "has no tickets yet"
                kind, state = state, None
                child = _table_named(schema, kind)
            if child is None:
                continue
            found = child.status()
            if state is not None and (found is None or state.lower() not in found[1]):
                continue  # "an extra ticket": no state of a ticket
            for fk in (f for f in child.foreign_keys if len(f.columns) == 1):
                parent = schema.table(fk.ref_table)
                key = parent.primary_key[0]
                said = sentence[: m.start()]
                days = _days_in(said)
                rows = {  # one record, read once or more
                    r[key]: r
                    for r in read
                    if set(r) == set(parent.column_names)
                    and any(
                        any(_on_day(v, d) for d in days)
                        or (isinstance(v, str) and len(v) > 3 and v.casefold() in said.casefold())
                        for v in r.values()
                    )
                }
                if len(rows) != 1:
                    continue
                (record,) = rows
                held = [
                    c
                    for c in spec.seed.get(child.name, [])
                    if c.get(fk.columns[0]) == record
                    and (state is None or found is None or c.get(found[0]) == state.lower())
                ]
                if held:
                    kept = held[0][child.primary_key[0]]
                    return (
                        f"the user says {m.group()!r} of {singular(parent.name)} {record}, "
                        f"which holds {singular(child.name)} {kept}"
                    )
    return ""


def _table_named(schema: Schema, noun: str) -> Table | None:
    """The table a noun names ("tickets", "ticket"), or None."""
    return next((t for t in schema.tables if singular(noun.lower()) == singular(t.name)), None)


def not_to_come(task: Task, clock: str) -> str:
    """A record said to be still to come on a day before today: basketball on 9b9d975, "I
    want to create a ticket for my upcoming game at 2024-10-30", under a clock of
    2025-01-15 (the game was completed, and the ticket refused for it). A day without its
    year says nothing of which side of today it lies on."""
    today = clock[:10]
    for sentence, day in _days_said(task, _TO_COME):
        if not day.startswith("day ") and day < today:
            return f"the user says {sentence.strip()!r}, but {day} is before today, {today}"
    return ""


# a day said as when a record ends or starts: "my contract that expires on December 31"
_ENDS = re.compile(
    r"\b(?:expir\w*|ends?|ending|ended|finish\w*|arriv\w*|due|until|valid through)"
    r"(?:\s+(?:on|at|by))?(?:\s+the)?\s+$",
    re.I,
)
_STARTS = re.compile(
    r"\b(?:starts?|starting|started|begins?|beginning|began|depart\w*|leav\w*)"
    r"(?:\s+(?:on|at|from))?(?:\s+the)?\s+$",
    re.I,
)
_END_WORDS = frozenset({"end", "ends", "expiry", "expiration", "expires", "arrival", "due"})
_START_WORDS = frozenset({"start", "starts", "begin", "begins", "departure"})
_ENDS_OR_STARTS = (
    (_ENDS, _END_WORDS, _START_WORDS, "ends"),
    (_STARTS, _START_WORDS, _END_WORDS, "starts"),
)


def wrong_end(task: Task, replay: Replay) -> str:
    """A day said as when a record ends that only a record's start holds, or the other way
    round: basketball-intent-00054 on fe80ced, "I want to activate my contract that expires
    on December 31", of a contract that starts on 2024-12-31 and ends on 2025-01-29. A day
    the gold passes is asked of a record, not said of one ("a contract that ends on ...")."""
    rows = rows_read(replay)
    given = [v for call in task.gold_calls for v in call.arguments.values()]
    for sentence in user_sentences(task):
        for m in [*_DATE.finditer(sentence), *_NAMED_DAY.finditer(sentence)]:
            day = m.group()[:10] if m.re is _DATE else named_day(m)
            if day is None or any(_on_day(g, day) for g in given):
                continue
            held = {c: v for row in rows for c, v in row.items() if _on_day(v, day)}
            for cue, said, other, verb in _ENDS_OR_STARTS:
                if not cue.search(sentence[: m.start()][-40:]):
                    continue
                wrong = [c for c in held if other & set(name_words(c))]
                if wrong and not any(said & set(name_words(c)) for c in held):
                    return (
                        f"the user says {sentence.strip()!r}, but {held[wrong[0]]} is the "
                        f"{wrong[0]} of a record the gold reads, and none {verb} on {day}"
                    )
    return ""


# a name may be a firm's: "Martinez, Howard and Le" (travel-intent-00023 on d7b1bec, "My
# hotel's name is Martinez, Howard and Le" of the hotel a booking moves to, was kept)
_PROPER = r"([A-Z][\w'&.]*(?:(?:[ -]|, |,? and )[A-Z][\w'&.]*){0,4})"
# "my hotel Barron-Fleming", "The hotel Barron-Fleming is my hotel": a record of a table no
# person owns (a hotel, a doctor) called the user's by its name
# and "My region's name is Antarctica", "My region is California" (weather-intent-00000
# and 00011 on aedf9df, of the region a station of theirs moves to)
_MY_NAMED = re.compile(
    rf"\b[Mm]y ([a-z]+) {_PROPER}|\b{_PROPER} is my ([a-z]+)\b"
    # medicine-intent-00098 on 61a5427: "My doctor's first name is Marvin" of the doctor an
    # appointment moves to
    rf"|\b[Mm]y ([a-z]+)(?:(?:'s)?(?: first| last| full| given| family)? name)? is {_PROPER}"
)


_TITLE = re.compile(r"^(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+")


def not_my_named(
    task: Task, spec: EnvironmentSpec, tools: Mapping[str, Tool], replay: Replay, seed: SeedFacts
) -> str:
    """A record the user calls theirs by name ("my hotel Barron-Fleming") that none of their
    records points to: travel-intent-00017 on 7e55d3f moved a booking of another hotel to
    Barron-Fleming and said both "the hotel booking for my hotel Barron-Fleming" and "The
    hotel Barron-Fleming is my hotel". A record the user asks a new record of theirs to
    point to (a booking at it, a prescription of it, refused or not) may be called so."""
    row = asker(replay, seed)
    if row is None or seed.people is None:
        return ""
    user = value_key(row[seed.primary[seed.people][0]])
    # what they own, what a new record of theirs points to, and what those point to ("My
    # train's name is House Train C" of a ticket bought on one of its trips, railway-intent-
    # 00043 on 21ceb83)
    start: dict[str, set[object]] = {
        t: {k for k, person in by_key.items() if person == user} for t, by_key in seed.owner.items()
    }
    for c in task.gold_calls:
        tool = tools.get(c.name)
        for inserted in tool.inserts() if tool is not None else []:
            for fk in spec.schema_.table(inserted).foreign_keys:
                if len(fk.columns) == 1 and fk.columns[0] in c.arguments:
                    start.setdefault(fk.ref_table, set()).add(value_key(c.arguments[fk.columns[0]]))
    tied = _reached(spec, start)
    # a new record's own name, though another record has it too (weather-intent-00030 on
    # aedf9df made a station "East Melanie Station", the name of one of another's)
    new_names = {
        v.casefold()
        for c in task.gold_calls
        if (tool := tools.get(c.name)) is not None and tool.inserts()
        for v in c.arguments.values()
        if isinstance(v, str)
    }
    for text in [task.instruction, *task.known_facts]:
        for m in _MY_NAMED.finditer(text):
            noun, name = next((m[i], m[j]) for i, j in ((1, 2), (4, 3), (5, 6)) if m[i])
            name = name.rstrip(".")  # "... my hotel Dune Lodge." (a name may hold "St.")
            name = _TITLE.sub("", name)  # "Dr. Edward Spencer is my doctor" (medicine on 6789a02)
            table = next(
                (t for t in spec.schema_.tables if singular(noun) in entity_words(t.name)), None
            )
            if table is None or table.name == seed.people or len(table.primary_key) != 1:
                continue
            name, named = _records_named(spec, table, name)
            if not named:  # "My prescription's name is Classic Pillbox": a medication's name
                table, name, named = _named_elsewhere(spec, table, name)
            if not named or named & tied.get(table.name, set()) or name.casefold() in new_names:
                continue
            claim = m.group().strip().rstrip(".")
            return (
                f"the user says {claim!r}; none of their records is tied to the "
                f"{singular(table.name)} {name!r}"
            )
    return ""


def loose_time(task: Task, replay: Replay, tools: Mapping[str, Tool]) -> str:
    """A time of day the user asks a write to set that the gold sets to another minute or
    second: medicine on 6789a02 asked for "a new appointment ... on April 8th at 8 PM" and
    "from 11:20 AM to 2:20 PM", and its gold set 20:45:33, 11:20:10 and 14:20:10 (moments
    copied from the seed). An agent books what it is told. A time a record the gold reads
    holds names that record ("move my 4 PM appointment to 4:30 PM"). A known fact is what
    the user says when asked, so it is read too."""
    text = "\n".join([task.instruction, *task.known_facts])
    said = [(*_time_said(m), m[0]) for m in _TIME.finditer(text)]
    said += [(*_time_said(m), m[0]) for m in _HOUR.finditer(_TIME.sub(" ", text))]
    writes = {
        i
        for i, c in enumerate(task.gold_calls)
        if (tool := tools.get(c.name)) is not None and tool.kind == "write"
    }
    moments = [
        (call.name, name, moment)
        for i, call in enumerate(task.gold_calls)
        if i in writes
        for name, value in call.arguments.items()
        if (moment := _moment_of(value)) is not None
    ]
    read = _moments(v for row in rows_read(replay, skip=writes) for v in row.values())
    for h, m, sec, words in said:
        if any((t.hour, t.minute, t.second) == (h, m or 0, sec or 0) for _, _, t in moments):
            continue  # set as said
        if any(t.hour == h and (m is None or t.minute == m) for t in read):
            continue  # a record's own time
        for tool_name, name, t in moments:
            if t.hour == h and (m is None or t.minute == m):
                asked = words.strip().rstrip(".")  # "at 8 PM." ends its sentence
                return (
                    f"the user asks for {asked!r}; the gold's {tool_name} sets {name} "
                    f"{t.isoformat(timespec='seconds')}"
                )
    return ""


def unpaired_moment(task: Task, replay: Replay) -> str:
    """A day and a time of day said together of one record that no moment the gold reads or
    passes holds together: medicine on fe97d36 said "my appointment on 2024-12-02, starting
    at 11:05:21", the day of the appointment a prescription moved to and the time of the
    new one made on 2025-02-17."""
    moments = _moments(
        [v for row in rows_read(replay) for v in row.values()]
        + [v for call in task.gold_calls for v in call.arguments.values()]
    )
    for sentence in user_sentences(task):
        days = _days_in(sentence)
        if len(days) != 1:
            continue
        for m in _TIME.finditer(sentence):
            h, minute, second = _time_said(m)
            at = [
                t
                for t in moments
                if (t.hour, t.minute) == (h, minute) and second in (None, t.second)
            ]
            on = [t for t in moments if _on_day(t.isoformat(), days[0])]
            if at and on and not any(t in on for t in at):
                return (
                    f"the user says {sentence.strip()!r}: no record the gold reads or "
                    f"writes is at {m[0].strip()} on {days[0]}"
                )
    return ""


def _time_said(m: re.Match[str]) -> tuple[int, int | None, int | None]:
    """The hour, minute and second a match of `_TIME` or `_HOUR` says (None: not said)."""
    if m.re is _HOUR:
        return int(hour(*m.groups())[5:7]), None, None
    parts = m[0].split(":")
    return int(clock(*m.groups())[5:7]), int(m[2]), int(parts[2][:2]) if len(parts) > 2 else None


def _moments(values: Iterable[object]) -> list[dt.datetime]:
    return [t for v in values if (t := _moment_of(v)) is not None]


def _moment_of(value: object) -> dt.datetime | None:
    """A moment with its time of day, or None (a day alone, or no moment)."""
    if not isinstance(value, str) or len(value) <= 10 or not _DATE.match(value):
        return None
    with contextlib.suppress(ValueError):
        return dt.datetime.fromisoformat(value)
    return None


# "my game on January 18th against Briana Ward": the other side, by its name
_AGAINST = re.compile(rf"\bagainst\s+(?:the\s+)?{_PROPER}")


def against_own(task: Task, replay: Replay, tools: Mapping[str, Tool]) -> str:
    """A record the gold's write puts on the user's side, said to be the other side:
    basketball-intent-00052 on cb56dcd, "create a ticket for my game on January 18th
    against Briana Ward", of a ticket for the user's own player Briana Ward."""
    own: dict[str, str] = {}  # a name, and the argument that points to its record
    rows = rows_read(replay)
    for call in task.gold_calls:
        if (tool := tools.get(call.name)) is None or tool.kind != "write":
            continue
        for key, value in call.arguments.items():
            if key.endswith("_id"):
                for row in rows:
                    if value_key(row.get(key)) == value_key(value):
                        own |= {name.casefold(): key for name in record_names(row)}
    for text in [task.instruction, *task.known_facts]:
        for m in _AGAINST.finditer(text):
            # "against Briana Ward. I'll charge ...": the name ends with its sentence
            said = re.split(r"\.(?:\s|$)", m.group(1))[0]
            if (by := own.get(said.casefold())) is not None:
                return (
                    f"the user says 'against {said}', but {said} is the record the gold's "
                    f"write is for ({by})"
                )
    return ""


def _named_elsewhere(
    spec: EnvironmentSpec, table: Table, said: str
) -> tuple[Table, str, set[object]]:
    """The records of another table that `said` names, where none of `table` is named so:
    medicine on fe97d36 said "My prescription's name is Classic Pillbox" of the medication
    its prescription moves to."""
    for other in spec.schema_.tables:
        if other.name != table.name and len(other.primary_key) == 1:
            name, named = _records_named(spec, other, said)
            if named:
                return other, name, named
    return table, said, set()


def _records_named(spec: EnvironmentSpec, table: Table, said: str) -> tuple[str, set[object]]:
    """The longest leading part of `said` that names records of `table`, and their keys:
    "Dune Lodge, Paris" is Dune Lodge; "Martinez, Howard and Le" a firm's whole name."""
    key = table.primary_key[0]
    cuts = [m.start() for m in re.finditer(r",? and |, ", said)]
    for name in [said, *(said[:i] for i in reversed(cuts))]:
        named = {
            value_key(r[key])
            for r in spec.seed.get(table.name, [])
            if any(
                isinstance(v, str) and v.casefold() == name.casefold()
                for v in [*r.values(), *record_names(r)]  # "Edward Spencer": first and last
            )
        }
        if named:
            return name, named
    return said, set()


def _reached(
    spec: EnvironmentSpec, keys: dict[str, set[object]], depth: int = 3
) -> dict[str, set[object]]:
    """Per table, the keys given and those their rows point to, up to `depth` hops (a
    ticket's trip, and the trip's train)."""
    out = {t: set(k) for t, k in keys.items()}
    frontier = out
    for _ in range(depth):
        found: dict[str, set[object]] = {}
        for table in spec.schema_.tables:
            ids = frontier.get(table.name)
            if not ids or len(table.primary_key) != 1:
                continue
            key = table.primary_key[0]
            rows = [r for r in spec.seed.get(table.name, []) if value_key(r.get(key)) in ids]
            for fk in table.foreign_keys:
                if len(fk.columns) == 1:
                    found.setdefault(fk.ref_table, set()).update(
                        value_key(r.get(fk.columns[0])) for r in rows
                    )
        frontier = {t: k - out.get(t, set()) for t, k in found.items()}
        for t, k in frontier.items():
            out.setdefault(t, set()).update(k)
    return out


# the record's owner as the text describes it: "the enrollment for the student named X",
# "from X", "X's enrollment"
_OWNER_BEFORE = re.compile(
    r"\b(?:for|of|from|belonging to|held by|under|"
    # weather-intent-00055 on 61a5427: "It's located in the region named Greenland"
    # restaurant-intent-00034 on 530f5cd: "is already in Special Table 7", where it goes
    r"(?:is|are|was|'s) (?:currently |already |still )?(?:located |based |situated |kept )?"
    r"(?:in|at|with)"
    # ecommerce-intent-00173 in runs/: "The order item is associated with a product named
    # Laptop", of a TV item the gold moves to the Laptop
    r"|(?:is|are|was|'s) (?:currently |already |still )?(?:associated|linked|tied|attached) "
    r"(?:with|to)"
    # weather-intent-00042 on aedf9df: "The current region is House California"
    r"|current [a-z]+ (?:is|was))"
    r"\s+(?:the\s+|my\s+|a\s+)?"
    # restaurant-intent-00004 on 530f5cd: "my order of 21 House Fries", an order of Salad
    r"(?:[a-z]+\s+|\d+\s+)?(?:named\s+|called\s+)?$",
    re.I,
)
_TOWARD = re.compile(r"\b(?:to|onto|into|another|new)\b", re.I)
_TIED_TO = re.compile(r"\b(?:associated|linked|tied|attached)\s+to\b", re.I)


def moves(
    task: Task, spec: EnvironmentSpec, tools: Mapping[str, Tool]
) -> Iterable[tuple[str, str, dict, dict, object]]:
    """Each gold move of a record to another parent (a write with `new_<fk>`): the record's
    table, the parents' table, its parent before and its parent after, as the seed holds
    them, and the new parent's key."""
    for call in task.gold_calls:
        tool = tools.get(call.name)
        if tool is None or tool.kind != "write":
            continue
        for param, new in call.arguments.items():
            column = param.removeprefix("new_")
            for table in spec.schema_.tables if column != param else ():
                key = table.primary_key[0] if len(table.primary_key) == 1 else None
                ref = next((f for f in table.foreign_keys if f.columns == [column]), None)
                if key is None or ref is None or key not in call.arguments:
                    continue
                rows = spec.seed.get(table.name, [])
                row = next(
                    (r for r in rows if value_key(r.get(key)) == value_key(call.arguments[key])),
                    None,
                )
                if row is None or value_key(row.get(column)) == value_key(new):
                    continue
                parents = spec.seed.get(ref.ref_table, [])
                by_key = {value_key(r.get(ref.ref_columns[0])): r for r in parents}
                was, now = by_key.get(value_key(row.get(column))), by_key.get(value_key(new))
                yield table.name, ref.ref_table, was or {}, now or {}, value_key(new)


_MOVED_AS = re.compile(
    r"\b(?:move|moving|switch|transfer)\s+(?:my|the|this)\s+(?:\d+\s+)?$", re.I
)  # "move my 36 House Fries" (restaurant-intent-00079 on 71a1d95): the order of Taco
_TO_AFTER = re.compile(r"\s+(?:to|into|onto)\b", re.I)
_IS_IN_MY = re.compile(
    r"\s+(?:is|was)\s+(?:already\s+|currently\s+)?(?:in|on|part of)\s+my\s+((?:\w+\s+){0,2}\w+)",
    re.I,
)


def moved_from_named(task: Task, spec: EnvironmentSpec, tools: Mapping[str, Tool]) -> str:
    """A move that calls its record the new owner's: school-intent-00013 on 5d152ba moved
    Dennis Bishop's enrollment "for the student named Scott Underwood ... to another student
    named Scott Underwood"; weather-intent-00021 on aedf9df moved a station to California
    and said "The East Desireetown Station is in California". The record is whose, and
    where, it is before the move."""
    text = "\n".join([task.request(), *task.known_facts])
    # a record another change of the task acts on or makes one for may be named its owner:
    # "... and create an enrollment for Port Gavinburgh Course for David Weaver" beside a
    # move to him (school-intent-00041 on 13b4e73)
    others = {
        value_key(v)
        for c in task.gold_calls
        if (tool := tools.get(c.name)) is not None
        and tool.kind == "write"
        and not any(p.startswith("new_") for p in c.arguments)
        for v in c.arguments.values()
    }
    for table, parent, was, now, new in moves(task, spec, tools):
        if new in others:
            continue
        # ... or by the name of what it goes under: movie-intent-00073 on 706f9af moved "my
        # booking for Inception" of The Godfather to a showtime of Inception
        before = set(record_names(was)) | _names_above(spec, parent, was)
        after = set(record_names(now)) | _names_above(spec, parent, now)
        for name in sorted(after - before, key=len, reverse=True):
            for m in re.finditer(rf"\b{re.escape(name)}\b(?:'s\s+(\w+))?", text, re.I):
                lead = text[max(0, m.start() - 60) : m.start()]
                owner = _OWNER_BEFORE.search(lead)
                # "over to a room of the Dune Lodge" is where it goes
                # ... in its own sentence: "to Greenland. It's located in" ties it there
                clause = re.split(r"[.!?;]\s", lead[: owner.start()])[-1] if owner else ""
                near = " ".join(clause.split()[-3:])
                tie = _TIED_TO.sub("", owner.group()) if owner else ""  # "linked to" ties
                if owner and _TOWARD.search(f"{near} {tie}"):
                    owner = None
                # ecommerce-intent-00049 on 8d65db4, of a House Dishwasher moved to the TV:
                # "move the TV from order item quantity 29 to the TV product", "The TV is in
                # my paid order": the record called by its new owner's name
                called = _MOVED_AS.search(lead) and not _TO_AFTER.match(text[m.end() :])
                placed = _IS_IN_MY.match(text[m.end() :])
                kinds = entity_words(table)
                if called or (placed and kinds & {singular(w) for w in tokens(placed.group(1))}):
                    owner = owner or m
                kind = singular(table)
                if owner or (m.group(1) and singular(m.group(1)) in entity_words(table)):
                    return (
                        f"the user ties the {kind.replace('_', ' ')} to {name} already, but the "
                        f"gold moves it from {' or '.join(sorted(before)) or 'another'} to {name}"
                    )
    return ""


# what a record "has been" or "is already": a change made to it
_HAS_BEEN = re.compile(
    r"\b(?:has|have|had)\s+(?:already\s+)?been\s+(?:already\s+)?(\w+)"
    r"|\b(?:is|are|was|were)\s+already\s+(\w+)",
    re.I,
)
# the service's own acts: "my order has been paid" (by the user) or "my item has been returned"
# (sent back) asks the service to record it, "my appointment has been moved" says it did
_SERVICE_ACTS = frozenset(
    stem(w)
    for w in (
        *("move", "transfer", "cancel", "close", "create", "update", "change", "withdraw"),
        *("freeze", "activate", "deactivate", "suspend", "reschedule", "refund", "repay"),
    )
)


# anything before it that takes the claim back: restaurant-intent-00051 in runs/, "I have not
# yet received any confirmation that it has been canceled"
_DOUBTED = re.compile(r"\b(?:not|never|no|if|whether|unless|until|once|when)\b|n't\b", re.I)


def done_before(task: Task, spec: EnvironmentSpec, tools: Mapping[str, Tool]) -> str:
    """A known fact saying the change the gold's write makes has been made: medicine-intent-
    00042 in runs/ knew "My appointment for 2024-03-25 has been moved to a different
    doctor" and asked to move it (it never moved; the gold's move is refused)."""
    acts = {
        stem(w)
        for c in task.gold_calls
        if c.name in tools and tools[c.name].kind == "write"
        for w in operation_words(tools[c.name], c.arguments, spec.schema_)
    } & _SERVICE_ACTS
    for fact in task.known_facts:
        for m in _HAS_BEEN.finditer(fact):
            verb = m.group(1) or m.group(2)
            if stem(verb) in acts and not _DOUBTED.search(fact[: m.start()]):
                return f"the known fact {fact!r} says it has been {verb}: the change the gold makes"
    return ""


def moved_elsewhere(task: Task, spec: EnvironmentSpec, tools: Mapping[str, Tool]) -> str:
    """A move whose request names another record as where it goes: school-intent-00034 on
    0fd2081 asked to "move the enrollment ... to Riddlechester Course. Its capacity is 267",
    and its gold moved it to Port Barbara Course, the course of capacity 267."""
    text = "\n".join([task.instruction, *task.known_facts])
    for table, parent, _was, now, _new in moves(task, spec, tools):
        kept = list(record_names(now))  # where it is now is no place to go either
        for row in spec.seed.get(parent, []):
            for name in (n for n in record_names(row) if " " in n and n not in kept):
                for m in re.finditer(
                    rf"\b(?:to|into|onto)\s+(?:the\s+)?{re.escape(name)}\b", text, re.I
                ):
                    at = m.end() - len(name)
                    if any(text[at : at + len(k)].casefold() == k.casefold() for k in kept):
                        continue  # "to Riddlechester Course 2", the one it goes to
                    return (
                        f"the user asks to move the {record_phrase(table)} {m.group()!r}; the "
                        f"gold moves it to {' or '.join(sorted(record_names(now))) or 'another'}"
                    )
    return ""


def _names_above(spec: EnvironmentSpec, table: str, row: dict) -> set[str]:
    """The names of the records a seed row of `table` points to: a showtime is called by
    its movie's title."""
    out: set[str] = set()
    for fk in spec.schema_.table(table).foreign_keys if row else []:
        key = spec.schema_.table(fk.ref_table).primary_key
        if len(fk.columns) != 1 or len(key) != 1 or row.get(fk.columns[0]) is None:
            continue
        held = value_key(row[fk.columns[0]])
        for parent in spec.seed.get(fk.ref_table, []):
            if value_key(parent.get(key[0])) == held:
                out.update(record_names(parent))
    return out


def tied_elsewhere(
    task: Task, spec: EnvironmentSpec, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts
) -> str:
    """A record the gold acts on said to be "with" a named record it does not point to:
    medicine-intent-00015 on 277c846, "I am scheduling an appointment with Dr. Melissa
    Wood ... I would like to create a prescription for this appointment", whose appointment
    was with another doctor (and the prescription was refused for it); or "for" one:
    basketball-intent-00040 on 65cb0f1 knew "The ticket for Michael Wells is priced at
    $3606", and the $3606 ticket it refunded was another player's; or "from", "at", "in"
    or "assigned to" one: restaurant-intent-00037 on 530f5cd moved a reservation "from
    House Table 5", which was at Special Table 8. A move to that record is where it goes,
    not where it is."""
    text = "\n".join([task.instruction, *task.known_facts])
    moved_to = {
        (param.removeprefix("new_"), value_key(v))
        for c in task.gold_calls
        for param, v in c.arguments.items()
        if param.startswith("new_")
    }
    for row in targets(task, replay, tools):
        table = _table_of(row, seed)
        if table is None:
            continue
        kinds = "|".join(map(re.escape, sorted(entity_words(table), key=len, reverse=True)))
        # the words first, then the named records: the seed is read only where they are
        said = [
            m
            for tied in (
                rf"\b(?:{kinds})s?\b[^.?!\n]{{0,40}}?\b(?:with|for|of|belonging\s+to|from|at|in|"
                r"assigned\s+to)",
                # ... or named beside it: medicine-intent-00061 in runs/, "a prescription for
                # my appointment, Edward Spencer on 2024-08-06", with another doctor
                rf"\b(?:{kinds})s?,(?=\s+(?:Dr\.?\s+|Doctor\s+)?(?-i:[A-Z]))",
            )
            for m in re.finditer(
                rf"(?i:{tied}\s+(?:the\s+)?(?:Dr\.?\s+|Doctor\s+)?)"
                # a name of words or numbers ("House Table 5", "table 1"): the seed decides
                # ... after its kind, maybe ("from the dining table House Table 1")
                r"(?P<name>[A-Za-z][\w'.-]*(?:\s+[\w'.-]+){1,5})",
                text,
            )
        ]
        for fk in spec.schema_.table(table).foreign_keys if said else []:
            column = fk.columns[0] if len(fk.columns) == 1 else None
            if column is None or fk.ref_table == seed.people or column not in row:
                continue
            key = spec.schema_.table(fk.ref_table).primary_key
            for parent in spec.seed.get(fk.ref_table, []) if len(key) == 1 else []:
                held = value_key(parent.get(key[0]))
                if held == value_key(row[column]) or (column, held) in moved_to:
                    continue
                for name in (n for n in record_names(parent) if " " in n):
                    found = next(
                        (
                            m
                            for m in said
                            if _starts_with(m["name"], name)
                            or _starts_with(re.sub(r"^(?:[a-z]+\s+){1,2}", "", m["name"]), name)
                        ),
                        None,
                    )
                    if found:
                        at = text.casefold().find(name.casefold(), found.start("name"))
                        quoted = text[found.start() : at + len(name)]
                        return (
                            f"the user says {quoted!r}; the {record_phrase(table)} the "
                            f"gold acts on is with another {record_phrase(fk.ref_table)}"
                        )
    return ""


_PEOPLE_UNITS = r"people|persons|guests|diners"
_PARTY_WORDS = frozenset({"party", "guest", "guests", "people", "diner", "diners"})
_TOWARD_NUMBER = re.compile(r"\b(?:to|into|onto|new|another|other)\b[^.?!;\n]{0,40}$", re.I)


def number_unlike_target(
    task: Task, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts
) -> str:
    """A count or measure said of the one record of its kind the gold writes, that the record
    does not hold: restaurant-intent-00031 on 530f5cd moved a party of 6 and said "The
    current party size is 4" (another of the user's reservations had 4); 00017 moved "my
    reservation ... with 4 people", of 6. Where the gold touches two records of the kind,
    or the number is one the user gives a write or says of where a record goes ("to a
    table for 8 people"), the words may be of another and are left alone."""
    given = [
        float(v)
        for c in task.gold_calls
        for v in c.arguments.values()
        if isinstance(v, int | float) and not isinstance(v, bool)
    ]
    rows: dict[str, dict[object, dict]] = {}
    for row in targets(task, replay, tools):
        table = _table_of(row, seed)
        key = seed.primary.get(table or "", ())
        if table and len(key) == 1:
            rows.setdefault(table, {})[value_key(row.get(key[0]))] = row
    for c in task.gold_calls:  # a record a move sends another to is one more of its kind
        for param, v in c.arguments.items():
            for table, key in seed.primary.items() if param.startswith("new_") else ():
                if key == (param.removeprefix("new_"),) and table in rows:
                    rows[table].setdefault(value_key(v), {})
    text = "\n".join([task.instruction, *task.known_facts])
    for table, held in rows.items():
        if len(held) != 1:
            continue
        row = next(iter(held.values()))
        for column, value in row.items():
            if type(value) not in (int, float) or column in seed.primary.get(table, ()):
                continue
            parts = [p for p in column.split("_") if p]
            if column.endswith("_id") or (len(parts) < 2 and not set(parts) & _PARTY_WORDS):
                continue
            if any(column in cols for t, cols in seed.columns.items() if t != table):
                continue  # "the quantity" of an order item or of its return
            units = [rf"{re.escape(p)}s" for p in parts if p not in GENERIC]
            units += [_PEOPLE_UNITS] if set(parts) & _PARTY_WORDS else []
            named = r"\s+".join(map(re.escape, parts))
            pattern = (
                rf"\b{named}(?:\s+(?:is|was|of|:|=))?{_NOW}\s+{_NUMBER}(?![\d%:-]|\.\d)"
                + "".join(rf"|(?<![\d.$-]){_NUMBER}\s+(?:{u})\b" for u in units)
            )
            for m in re.finditer(pattern, text, re.I):
                said = float(next(g for g in m.groups() if g is not None).replace(",", ""))
                line_start = text.rfind("\n", 0, m.start()) + 1
                if _TOWARD_NUMBER.search(text[line_start : m.start()]):
                    continue
                if same_number(said, value) or any(same_number(said, g) for g in given):
                    continue
                return (
                    f"the user says {m.group().strip()!r}; the {record_phrase(table)} the "
                    f"gold acts on has {column} {value:g}"
                )
    return ""


def _starts_with(said: str, name: str) -> bool:
    """The words said begin with the whole name: "Melissa Wood" of "Melissa Wood Today"."""
    return re.match(rf"{re.escape(name)}\b", said, re.I) is not None


_COUNT_WORDS = frozenset({"count", "number", "quantity", "total", "amount", "num"})


def one_said_of_many(task: Task, tools: Mapping[str, Tool]) -> str:
    """One thing said of a write that counts more: movie-intent-00006 on 71aacdf, "I want to
    book a seat for myself on Pulp Fiction 3", whose gold booked 3 seats (`seat_count`)."""
    text = "\n".join([task.instruction, *task.known_facts])
    for call in task.gold_calls:
        tool = tools.get(call.name)
        if tool is None or tool.kind != "write":
            continue
        for param, value in call.arguments.items():
            if type(value) is not int or value <= 1 or param.endswith("_id"):
                continue
            named = name_words(param)
            if not set(named) & _COUNT_WORDS and not any(singular(w) != w for w in named):
                continue  # a measure ("severity", "party_size"), not things counted
            for noun in {singular(w) for w in named} - _COUNT_WORDS - GENERIC:
                one = re.search(
                    rf"\b(?:a|an|one|a single)\s+{re.escape(noun)}\b"
                    r"(?!\s+(?:count|number|quantity|total|of|size)\b|-)",
                    text,
                    re.I,
                )
                if one:
                    return f"the user says {one.group()!r}; the gold's {param} is {value}"
    return ""


_IN_WORDS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "ten": 10}
_N = r"(\d{1,3}|a|one|two|three|four|five|six|ten)"
# a day said from today, and the days from today it may be (a week said is read loosely)
_WHEN: tuple[tuple[re.Pattern[str], tuple[int, int]], ...] = (
    (re.compile(r"\b(?:the )?day after tomorrow\b", re.I), (2, 2)),
    (re.compile(r"(?<!after )\btomorrow\b", re.I), (1, 1)),
    (re.compile(r"\byesterday\b", re.I), (-1, -1)),
    (re.compile(r"\bnext week\b", re.I), (1, 14)),
    (re.compile(r"\bthis week\b", re.I), (-7, 7)),
    (re.compile(r"\blast week\b", re.I), (-14, -1)),
    (re.compile(r"\bnext month\b", re.I), (1, 62)),
    (re.compile(r"\blast month\b", re.I), (-62, -1)),
    # a record of today's: ecommerce-intent-00077 on c1da9aa, "cancel my order from today.
    # The order was created on 2022-02-28" ("today I want to cancel" says when one asks)
    (re.compile(r"\b(?:from|(?<!as )of|made|placed|created|booked) today\b", re.I), (0, 0)),
)
_IN_DAYS = re.compile(rf"\b(?:in|due in) {_N} days?\b|\b{_N} days? (ago)\b", re.I)


def not_when_said(task: Task, clock: str, replay: Replay, tools: Mapping[str, Tool]) -> str:
    """A day said from today ("tomorrow", "next week", "in 2 days") that no day of the task
    is: travel-intent-00032 on 7e55d3f booked "a hotel for my trip next week" from
    2025-04-17 under a clock of 2025-01-15; an older run's "a flight from today to tomorrow"
    began on 2023-12-14. The task's days are those its text says, its gold sets and the rows
    its writes act on hold; a task with none is left alone."""
    today = dt.date.fromisoformat(clock[:10])
    text = "\n".join([task.request(), *task.known_facts])
    said = [(m.group(), span) for pattern, span in _WHEN for m in pattern.finditer(text)]
    for m in _IN_DAYS.finditer(text):
        n = _IN_WORDS.get((m.group(1) or m.group(2)).lower()) or int(m.group(1) or m.group(2))
        said.append((m.group(), (-n - 1, -n + 1) if m.group(3) else (n - 1, n + 1)))
    if not said:
        return ""
    values = [v for c in task.gold_calls for v in c.arguments.values()]
    values += [v for row in targets(task, replay, tools) for v in row.values()]
    days = [*_days_in(text), *(v[:10] for v in values if isinstance(v, str) and _DATE.match(v))]
    dates = sorted({d for day in days if (d := _dated(day, today)) is not None})
    if not dates:
        return ""
    for phrase, (first, last) in said:
        if not any(first <= (d - today).days <= last for d in dates):
            shown = ", ".join(d.isoformat() for d in dates)
            return f"the user says {phrase!r}, but the task's days are {shown} and today is {today}"
    return ""


def _dated(day: str, today: dt.date) -> dt.date | None:
    """A day as a date; a day without its year ("December 5th") is the one nearest today."""
    with contextlib.suppress(ValueError):
        if not day.startswith("day "):
            return dt.date.fromisoformat(day)
        month, dom = (int(p) for p in day[4:].split("-"))
        years = (today.year - 1, today.year, today.year + 1)
        return min((dt.date(y, month, dom) for y in years), key=lambda d: abs(d - today))
    return None


def day_of_another_kind(task: Task, replay: Replay, seed: SeedFacts) -> str:
    """A day said as when a kind of record was made (or any day column of its), that no
    record of that kind the gold reads holds, while one of another kind it reads does:
    ecommerce-intent-00094 on 8d65db4, "The item was created on June 7, 2022", its order's
    day (the item's is 2022-07-07). The kind is the one named nearest before the column's
    word ("my order item ... on my order whose created at is 2023-01-06" is the order's)."""
    rows = [(t, r) for r in rows_read(replay) if (t := _table_of(r, seed))]
    kinds = sorted(
        {(p, t) for t, _ in rows for p in {record_phrase(t), record_phrase(t).split()[-1]}},
        key=lambda pair: -len(pair[0]),
    )
    days: dict[tuple[str, str], list[object]] = {}  # (table, day column) -> its values
    for table, row in rows:
        for column, value in row.items():
            if isinstance(value, str) and _DATE.match(value) and not column.endswith("_id"):
                days.setdefault((table, column), []).append(value)
    for text in user_sentences(task):
        named = [
            (m.start(), m.end(), table)
            for phrase, table in kinds
            for m in re.finditer(rf"\b{re.escape(phrase)}s?\b", text, re.I)
        ]
        for (table, column), held in days.items():
            word = name_words(column)[0]
            for m in re.finditer(rf"\b{re.escape(word)}\b", text, re.I):
                before = [n for n in named if n[1] <= m.start() and m.start() - n[1] <= 40]
                if not before:
                    continue
                nearest = max(before, key=lambda n: (n[1], n[1] - n[0]))
                said = _days_in(text[m.end() : m.end() + 40])
                if nearest[2] != table or not said:
                    continue
                day = said[0]
                if any(_on_day(v, day) for v in held):
                    continue
                other = next(
                    (
                        (t, c)
                        for (t, c), values in days.items()
                        if t != table and any(_on_day(v, day) for v in values)
                    ),
                    None,
                )
                if other is not None:
                    kind = record_phrase(table)
                    return (
                        f"the user says {text.strip()!r}: no {kind} the gold reads has that "
                        f"{column}; it is the {record_phrase(other[0])}'s {other[1]}"
                    )
    return ""


def new_day_said_of_another(
    task: Task, replay: Replay, tools: Mapping[str, Tool], seed: SeedFacts
) -> str:
    """A day of the record the gold makes, said in a sentence that names neither it nor the
    field, but a field of another record the gold acts on, which holds no date that day:
    medicine-intent-00038 on 0d74fa0 moved a prescription and booked an appointment, and
    said "The refills are currently available until April 8th at 20:45 and 23:00", the new
    appointment's times (the prescription expires 2026-11-28)."""
    acted = [(t, row) for row in targets(task, replay, tools) if (t := _table_of(row, seed))]
    if not acted:
        return ""
    sentences_ = list(user_sentences(task))
    for call in task.gold_calls:
        tool = tools.get(call.name)
        made = tool.inserts() if tool is not None else []
        if not made:
            continue
        new = entity_words(made[0])
        new_fields = {w for c in seed.columns.get(made[0], ()) for w in name_words(c)}
        for column, value in call.arguments.items():
            if not isinstance(value, str) or not _DATE.match(value):
                continue
            for text in sentences_:
                said = {singular(w) for w in tokens(text.replace("_", " "))}
                days = _days_in(text)
                if not any(_on_day(value, d) for d in days) or said & new:
                    continue
                if said & {singular(w) for w in name_words(column)}:
                    continue
                for table, row in acted:
                    if table == made[0]:
                        continue
                    own = {
                        singular(w)
                        for c in seed.columns.get(table, ())
                        for w in name_words(c)[:1]
                        if w not in new_fields and w not in GENERIC
                    }
                    if not said & own or any(_on_day(v, d) for v in row.values() for d in days):
                        continue
                    word = sorted(said & own)[0]
                    return (
                        f"{text.strip()!r} gives {value}, the new {record_phrase(made[0])}'s "
                        f"{column}, of the {record_phrase(table)}'s {word}; no date of the "
                        f"{record_phrase(table)} the gold acts on is that day"
                    )
    return ""


def run(ctx: TaskContext) -> Rejection | None:
    task, spec = ctx.worded, ctx.env.spec
    found = check(task, ctx.replayed, ctx.seed_facts, ctx.env.tools)
    if found is not None:
        return found
    false_facts = (  # each a claim the records the gold makes or reads contradict
        lambda: past_moment(task, spec, ctx.env.tools),
        lambda: told_before_made(task, ctx.env.tools),
        lambda: unpaired(task, ctx.replayed),
        lambda: said_of_both(task, ctx.replayed, ctx.env.tools),
        lambda: not_today(task, spec.clock),
        lambda: not_to_come(task, spec.clock),
        lambda: not_begun(task, spec.clock, ctx.replayed),
        lambda: done_ahead(task, spec.clock),
        lambda: not_bought(task, spec, ctx.replayed, ctx.seed_facts),
        lambda: denied_children(task, spec, ctx.replayed),
        lambda: wrong_end(task, ctx.replayed),
        lambda: against_own(task, ctx.replayed, ctx.env.tools),
        lambda: loose_time(task, ctx.replayed, ctx.env.tools),
        lambda: unpaired_moment(task, ctx.replayed),
        lambda: not_when_said(task, spec.clock, ctx.replayed, ctx.env.tools),
        lambda: not_my_named(task, spec, ctx.env.tools, ctx.replayed, ctx.seed_facts),
        lambda: moved_from_named(task, spec, ctx.env.tools),
        lambda: moved_elsewhere(task, spec, ctx.env.tools),
        lambda: done_before(task, spec, ctx.env.tools),
        lambda: tied_elsewhere(task, spec, ctx.replayed, ctx.env.tools, ctx.seed_facts),
        lambda: number_unlike_target(task, ctx.replayed, ctx.env.tools, ctx.seed_facts),
        lambda: one_said_of_many(task, ctx.env.tools),
        lambda: destination_state(task, spec, ctx.env.tools, ctx.seed_facts),
        lambda: unheld_scale(task, spec.schema_),
        lambda: day_of_another_kind(task, ctx.replayed, ctx.seed_facts),
        lambda: new_day_said_of_another(task, ctx.replayed, ctx.env.tools, ctx.seed_facts),
    )
    for said in (claim() for claim in false_facts):
        if said:
            return Rejection(stage=STAGE, reason=FactsReason.FALSE_FACT, detail=said)
    return None
