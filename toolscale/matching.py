"""Does a text state a value? Normalised comparison, not substring luck.

Strings match as whole token sequences, case- and accent-insensitively ("ACC-12" is not in
"ACC-123"); numbers match numerically in any usual spelling ("$1,234.50" states 1234.5).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from typing import Any

_TOKEN = re.compile(r"[^\W_]+")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.])[-+]?\d+(?:\.\d+)?")
_TRUE = {"yes", "true"}
_FALSE = {"no", "false", "not"}


def tokens(text: str) -> list[str]:
    if not text.isascii():  # fold accents: "Café" states "cafe"
        text = unicodedata.normalize("NFKD", text)
        text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return _TOKEN.findall(text.casefold())


# a day or a time of day states no number of its own: "2022-11-02" says no 2 extra bags
_DAY_OR_TIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\b\d{1,2}:\d{2}(?::\d{2})?\b"
)


def numbers(text: str) -> list[float]:
    text = _DAY_OR_TIME.sub(" ", text.replace("$", " "))
    return [float(m.group().replace(",", "")) for m in _NUMBER.finditer(text)]


def leading_number(text: str) -> float | None:
    """The number a text starts with ("$1,234.50 more" -> 1234.5), or None."""
    m = _NUMBER.match(text.lstrip().removeprefix("$"))
    return float(m.group().replace(",", "")) if m else None


def same_number(a: float, b: float) -> bool:
    """`a`, as a person writes it, states `b`."""
    if abs(a - b) <= max(1e-9, 1e-9 * abs(b)):
        return True
    # a person rounds to cents: "70.01" states 70.005, but "70.1" does not state 70.05
    rounded = abs(b - round(b, 2)) > 1e-9
    return rounded and abs(a - b) <= 0.005 + 1e-9 and abs(a * 100 - round(a * 100)) < 1e-6


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    if n == 0:
        return False
    first = needle[0]
    return any(
        haystack[i] == first and haystack[i : i + n] == needle for i in range(len(haystack) - n + 1)
    )


_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
# a whole day with its month's name: "December 26, 2024", "26th of December 2024"
_WORDED_DAY = re.compile(
    rf"\b(?:{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?"
    rf"{_MONTH}),?\s+(\d{{4}})\b",
    re.IGNORECASE,
)
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def worded_days(text: str) -> set[str]:
    """The days a text writes with their month's name, as ISO dates."""
    out = set()
    for m in _WORDED_DAY.finditer(text):
        month, day = (m[1], m[2]) if m[1] else (m[4], m[3])
        number = _MONTHS.index(month.casefold()[:3]) + 1
        out.add(f"{m[5]}-{number:02d}-{int(day):02d}")
    return out


class Text:
    """A text tokenised once, asked about many values."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = tokens(text)
        self.numbers = numbers(text)
        self.days = worded_days(text)

    def mentions(self, value: Any) -> bool:
        if value is None:
            return False
        if isinstance(value, bool):
            return bool(set(self.tokens) & (_TRUE if value else _FALSE))
        if isinstance(value, int | float):
            return any(same_number(n, float(value)) for n in self.numbers)
        if isinstance(value, str) and _ISO_DAY.fullmatch(value) and value in self.days:
            return True  # "December 26, 2024" states 2024-12-26 (school-intent-00046)
        wanted = tokens(str(value))
        if not wanted:
            return str(value).strip() != "" and str(value).strip() in self.text
        return _contains(self.tokens, wanted)


def day_of(value: object) -> str | None:
    """The day of a moment stored with its time of day, as a person names it ("my order
    from 2024-05-27" of one placed at 21:40:34 that day); None for anything else."""
    if not isinstance(value, str) or not _MOMENT.match(value):
        return None
    return value[:10]


_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def mentions(text: str, value: Any) -> bool:
    return Text(text).mentions(value)


def scalars(value: Any) -> Iterable[Any]:
    """Every scalar inside a JSON value."""
    if isinstance(value, dict):
        for v in value.values():
            yield from scalars(v)
    elif isinstance(value, list):
        for v in value:
            yield from scalars(v)
    elif value is not None:
        yield value
