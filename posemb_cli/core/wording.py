"""Words shared by the measures' notes and the renderers: ordinals and "every n-th position".

Lives in core (it imports nothing) so that measures and render both reach it
without crossing layers.
"""

from __future__ import annotations

__all__ = ["every_nth", "ordinal"]


def ordinal(n: int) -> str:
    """English ordinal with thousands separators: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 1,001st."""
    if n % 100 in (11, 12, 13):
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"


def every_nth(n: int, noun: str = "position") -> str:
    """"every position", "every other position", "every 23rd position"."""
    if n == 1:
        return f"every {noun}"
    if n == 2:
        return f"every other {noun}"
    return f"every {ordinal(n)} {noun}"
