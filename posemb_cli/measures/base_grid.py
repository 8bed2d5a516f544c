"""Which bases cover a context: a stated grid of bases, a proof above it, and the smallest base that holds.

Notation: F frequencies, L the distances to cover (m = 1 .. L - 1), b a base,
theta_i(b) the frequencies the base gives (any scaling applied), B(m; b) the sum
of cos(m theta_i(b)). A base covers L when B(m; b) >= 0 for every m below L
(``context_bound.py``).

Coverage is not monotone in the base: at width 64 and L = 8,192, 500,000 and
700,000 cover while 600,000 and 1,000,000 do not. So "the smallest base that
covers" (Men et al.'s definition, the infimum) is no threshold: a larger base can
fail. posemb answers a question that is one:

- the grid: 200 bases per decade, ``10 ** (k / 200)`` rounded to three significant
  figures, so each prints exactly as it was checked;
- ``proven_from``, P: the smallest grid base from 10 up with sum_i min_{m < L}
  cos(m theta_i(P)) >= 0. A term's minimum over m is cos((L - 1) theta_i) while (L - 1) theta_i <= pi,
  else -1, and it can only grow as theta_i falls; every theta_i(b) falls as b grows
  (for each scaling posemb models: a test holds them to it). So B(m; b) >= 0 for every
  m below L and every base b >= P, on the grid or not;
- ``min_base``: the smallest grid base from which every grid base up to P covers,
  found by checking the grid downward from P. Grid bases above it cover; a base
  between two grid values is not checked, and can fail;

Men et al.'s table is the other question: the smallest base that covers at all
(docs/json-contract.md, "The context bound", compares the two).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from posemb_cli.measures.context_bound import covers_each

PER_DECADE = 200
FIGURES = 3
_HIGHEST = 300 * PER_DECADE  # 1e300: no grid base above it
_LOWEST = PER_DECADE  # 10: the proof looks no lower (at tinier bases YaRN's ramp leaves the head)
_WORKERS = 2  # bases checked side by side
_BATCH = 8  # bases per batch: at most this many checked past the first failure
_THREADED_FROM = 1 << 19  # distances from which a base's own steps are worth a thread (2.1 s against 2.5 s at 2**20;
# at 2**17 threads cost more than they give: 0.59 s against 0.40 s)

__all__ = ["FIGURES", "PER_DECADE", "MinBase", "grid_base", "grid_index", "min_base", "proven_from"]


def grid_base(k: int) -> float:
    """The k-th base of the grid: 10 ** (k / 200) rounded to three significant figures."""
    exact = 10.0 ** (k / PER_DECADE)
    exponent = math.floor(math.log10(exact)) - (FIGURES - 1)
    return float(f"{round(exact / 10.0 ** exponent)}e{exponent}")  # the double nearest the decimal, as it prints


def grid_index(base: float) -> int:
    """The smallest k whose grid base is at least ``base``."""
    k = math.floor(PER_DECADE * math.log10(base)) - 1
    while grid_base(k) < base:
        k += 1
    while k > 0 and grid_base(k - 1) >= base:
        k -= 1
    return k


def _worst_case(freq: np.ndarray, limit: int) -> float:
    """sum_i min over m in [1, limit) of cos(m theta_i): a lower bound on every B(m) below limit."""
    angle = (limit - 1) * np.asarray(freq, dtype=np.float64)
    return float(np.where(angle >= math.pi, -1.0, np.cos(np.minimum(angle, math.pi))).sum())


def proven_from(frequencies_for: Callable[[float], np.ndarray], limit: int) -> float | None:
    """P: the smallest grid base whose worst case is non-negative (every base from P up covers); None when even
    1e300 has none (a frequency that no base moves, such as theta_0 = 1 alone)."""
    if _worst_case(frequencies_for(grid_base(_HIGHEST)), limit) < 0:
        return None
    low, high = _LOWEST, _HIGHEST  # low fails or is unknown, high is proven: bisect on the grid
    if _worst_case(frequencies_for(grid_base(low)), limit) < 0:
        while high - low > 1:
            middle = (low + high) // 2
            if _worst_case(frequencies_for(grid_base(middle)), limit) >= 0:
                high = middle
            else:
                low = middle
        low = high
    return grid_base(max(low, _rising_until(frequencies_for, low)))


def _rising_until(frequencies_for: Callable[[float], np.ndarray], start: int) -> int:
    """A guard on the proof's premise: the grid index above the last of 20 bases a decade, over 20 decades from
    ``start``, where a frequency rose with the base (YaRN's ramp, clamped to the head at a tiny base, can)."""
    previous, last = frequencies_for(grid_base(start)), start
    for k in range(start + 10, min(_HIGHEST, start + 20 * PER_DECADE) + 1, 10):
        current = frequencies_for(grid_base(k))
        if (current > previous * (1 + 1e-12)).any():
            last = k
        previous = current
    return last


@dataclass(frozen=True)
class MinBase:
    """The smallest base that holds for ``limit`` distances, with what it rests on.

    Attributes:
        min_base: the smallest grid base from which every grid base up to ``proven_from`` covers (None when no
            base up to 1e300 is proven). proven_from: every base from here up covers (proof, not scan).
        checked: grid bases checked by a scan. per_decade, figures: the grid.
    """

    min_base: float | None
    proven_from: float | None
    checked: int
    per_decade: int = PER_DECADE
    figures: int = FIGURES

    def to_dict(self) -> dict:
        return {"per_decade": self.per_decade, "figures": self.figures, "proven_from": self.proven_from,
                "checked": self.checked}


def min_base(frequencies_for: Callable[[float], np.ndarray], limit: int) -> MinBase:
    """The smallest grid base from which every larger grid base covers ``limit`` distances (see the module doc).

    Args:
        frequencies_for: base -> (F,) frequencies as used with that base (scaling applied).
        limit: the distances to cover are 1..limit-1.
    """
    from concurrent.futures import ThreadPoolExecutor

    proof = proven_from(frequencies_for, limit)
    if proof is None:
        return MinBase(None, None, 0)
    top = grid_index(proof)
    # Bases are checked downward in batches of 8: the tiles that one bound over the batch's frequency range clears
    # are cleared for all 8 (``covers_each``), then each base's own steps run, side by side where a base's work is
    # large enough to pay for a thread (NumPy releases the interpreter's lock); the answer and ``checked`` are
    # those of the one-by-one scan: the grid base above the first failure from the top.
    with ThreadPoolExecutor(_WORKERS) if limit >= _THREADED_FROM else contextlib.nullcontext() as pool:
        each = map if pool is None else pool.map
        k = top
        while k > 0:
            batch = list(range(k - 1, max(k - 1 - _BATCH, -1), -1))
            answers = covers_each([frequencies_for(grid_base(i)) for i in batch], limit, each)
            for index, covered in zip(batch, answers, strict=True):
                if not covered:
                    return MinBase(grid_base(index + 1), proof, top - index)
            k = batch[-1]
    return MinBase(grid_base(0), proof, top)
