"""Words shared by the measures' notes, the sources' rules and the renderers: ordinals, "every n-th position",
runs of layer indices, a measured figure, and a figure within rounding as its bound.

Lives in core (it imports nothing) so that measures and render both reach it
without crossing layers.
"""

from __future__ import annotations

import math

__all__ = ["every_nth", "general", "layer_ranges", "ordinal", "within_rounding"]


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


def layer_ranges(layers) -> str:
    """``0-4, 6-10, 12-16`` for runs of consecutive indices (two in a row are listed: ``5, 6``)."""
    runs: list[list[int]] = []
    for index in layers:
        if runs and index == runs[-1][-1] + 1:
            runs[-1].append(index)
        else:
            runs.append([index])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs)


def general(value: float | None) -> str:
    """A measured figure: four significant digits; from 1,000 up (positions, lengths) a whole number with
    separators, never an exponent: 0.3541, 1.277e-06, 255.5, 1,024, 65,536."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if 1000 <= abs(value) < 1e15:
        return f"{value:,.0f}"
    return f"{value:.4g}"


def within_rounding(value: float | None, bound: float, *, digits: int | None = None) -> str:
    """A figure that is zero by construction up to rounding: ``<bound`` (two digits) when 0 < |value| <= bound,
    else ``general`` (or ``digits`` significant digits, for the notes written with three).

    Its digits under the bound are the rounding of one machine's arithmetic (another CPU's kernels give others),
    so people see the bound the verdict used, never those digits; JSON keeps the measured value beside it.
    """
    if value is not None and math.isfinite(value) and 0 < abs(value) <= bound:
        return f"<{bound:.2g}"  # a bound, not a measurement: two digits say it
    return general(value) if digits is None or value is None else f"{value:.{digits}g}"
