"""Ordinals and "every n-th position", checked against the English rule written out here."""

from __future__ import annotations

import pytest
from posemb_cli.core.wording import every_nth, ordinal, within_rounding


def _english(n: int) -> str:
    last_two, last = n % 100, n % 10
    suffix = "th" if 10 <= last_two <= 20 else ("st", "nd", "rd")[last - 1] if last in (1, 2, 3) else "th"
    return f"{n:,}{suffix}"


@pytest.mark.parametrize("n", [*range(0, 130), 1001, 1011, 1012, 1013, 1022, 65536, 1_000_003])
def test_ordinal_follows_the_english_rule(n):
    assert ordinal(n) == _english(n)


def test_known_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 111, 112, 113)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "111th", "112th", "113th"]


def test_every_nth():
    assert every_nth(1) == "every position"
    assert every_nth(2) == "every other position"
    assert every_nth(23) == "every 23rd position"
    assert every_nth(1001, "row") == "every 1,001st row"


@pytest.mark.parametrize(("value", "bound", "shown"), [
    (6.336e-15, 2.220446049250313e-13, "<2.2e-13"),  # rounding: the bound, two digits, whatever this CPU's digits
    (6.467e-15, 2.220446049250313e-13, "<2.2e-13"),  # another CPU's digits print the same
    (-3e-16, 2.220446049250313e-13, "<2.2e-13"),
    (2.220446049250313e-13, 2.220446049250313e-13, "<2.2e-13"),  # at the bound: still rounding
    (0.0, 2.220446049250313e-13, "0"),  # exactly zero stays zero
    (0.8656, 2.220446049250313e-13, "0.8656"),  # a figure above its rounding keeps its four digits
    (3e-13, 2.220446049250313e-13, "3e-13"),
    (float("nan"), 1e-13, "n/a"),
])
def test_within_rounding(value, bound, shown):
    assert within_rounding(value, bound) == shown


def test_within_rounding_keeps_a_notes_digits():
    assert within_rounding(0.123456, 1e-9, digits=3) == "0.123"
    assert within_rounding(1e-12, 1e-9, digits=3) == "<1e-09"
