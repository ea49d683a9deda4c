"""Communicated values: normalised matches, never substring luck."""

from __future__ import annotations

import pytest

from toolscale.matching import Text, mentions


@pytest.mark.parametrize(
    "text, value",
    [
        ("Your new balance is $1,234.50.", 1234.5),
        ("balance: 70", 70.0),
        ("It is 70.01 now", 70.005),
        ("Your account ACC-12 is open", "acc-12"),
        ("The card ending 4821 is frozen", "4821"),
        ("Email set to j.doe@example.com", "J.Doe@Example.com"),
        ("It was opened on 2025-03-14.", "2025-03-14"),
        ("Café Zoë is your payee", "cafe zoe"),
        ("Yes, it is active", True),
    ],
)
def test_states(text: str, value: object) -> None:
    assert mentions(text, value)


@pytest.mark.parametrize(
    "text, value",
    [
        ("Your account ACC-123 is open", "ACC-12"),  # a prefix is not the value
        ("Balance 1234.5", 123),
        ("Balance 712", 71),
        ("nothing here", None),
        ("", "x"),
        ("I sent 5 of 50", 0.5),
    ],
)
def test_does_not_state(text: str, value: object) -> None:
    assert not mentions(text, value)


def test_text_is_tokenised_once_and_reused() -> None:
    text = Text("Moved 250 from A1 to A2")
    assert text.mentions(250) and text.mentions("A2") and not text.mentions("A3")


def test_a_day_written_with_its_months_name_states_the_iso_day() -> None:
    """school-intent-00046 on 13b4e73 said "December 26, 2024", and the verbaliser, not
    seeing 2024-12-26 stated, added "My enrollment start date is 2024-12-26." beside it."""
    assert mentions("It starts on December 26, 2024.", "2024-12-26")
    assert mentions("from the 21st of January 2025", "2025-01-21")
    assert mentions("on Aug. 15 2024", "2024-08-15")
    assert not mentions("It starts on December 26.", "2024-12-26")  # which year?
    assert not mentions("It starts on December 26, 2023.", "2024-12-26")
