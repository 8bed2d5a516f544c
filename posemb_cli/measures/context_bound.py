"""The base's context bound (Men et al. 2024, "Base of RoPE Bounds Context Length").

Notation: F frequencies theta_i, m a distance in positions.

For a query equal to its key, RoPE's score at distance m is proportional to
``B(m) = sum_i cos(m * theta_i)`` (the same sum is the dot product of two
sinusoidal rows m apart). While B stays positive, attention can still favour a
similar token nearby over one far away; the paper's bound is the first m where
it goes negative. A context longer than that m asks for a larger base: the
smallest base whose B stays non-negative at every m below the context is found
by bisection on log(base).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

_TILE = 2048  # G: consecutive distances one column of a block covers
_BLOCK_COLUMNS = 512  # the most columns of one block: G * 512 distances, 8 MiB of float64 sums
_BASE_CEILING = 1e300
_RELATIVE_TOLERANCE = 1e-4

__all__ = ["first_negative", "min_base"]


def first_negative(inv_freq: np.ndarray, limit: int) -> int | None:
    """The first distance m in [1, limit) with B(m) < 0, scanned in blocks; None when there is none.

    The distances are split as m = s + j, s a multiple of the tile G and 0 <= j < G, so that
    ``cos(m theta) = cos(j theta) cos(s theta) - sin(j theta) sin(s theta)``: the sums of a
    block of tiles are one (G, 2F) x (2F, C) matrix product of cosines and sines computed once
    per j and once per s, instead of F cosines per distance. Blocks grow from one tile, so an
    early crossing is found after a few thousand distances.

    Args:
        inv_freq: (F,) float64 frequencies as used (after any scaling).
        limit: distances scanned are 1..limit-1.
    """
    freq = np.asarray(inv_freq, dtype=np.float64)
    if limit <= 1:
        return None
    tile = min(_TILE, limit)
    within = np.arange(tile, dtype=np.float64)[:, None] * freq[None, :]  # (G, F): j theta
    inner = np.concatenate((np.cos(within), -np.sin(within)), axis=1)  # (G, 2F)
    first, columns = 0, 1
    while first < limit:
        starts = np.arange(first, min(limit, first + columns * tile), tile, dtype=np.float64)  # (C,) values of s
        outer = starts[:, None] * freq[None, :]  # (C, F): s theta
        sums = np.concatenate((np.cos(outer), np.sin(outer)), axis=1) @ inner.T  # (C, G): B(s + j)
        distances = first + np.arange(sums.size)  # row-major: s ascending, then j
        negative = np.flatnonzero((sums.ravel() < 0) & (distances >= 1) & (distances < limit))
        if negative.size:
            return int(distances[negative[0]])
        first += starts.size * tile
        columns = min(2 * columns, _BLOCK_COLUMNS)
    return None


def min_base(frequencies_for: Callable[[float], np.ndarray], ctx: int, *, start: float = 10000.0,
             tolerance: float = _RELATIVE_TOLERANCE) -> float | None:
    """The smallest base whose B(m) stays non-negative for every m below ``ctx`` (within ``tolerance``).

    Args:
        frequencies_for: base -> (F,) frequencies as used with that base (scaling applied).
        ctx: the context to cover.
        start: where the search begins (the current base).
        tolerance: relative width of the final bracket; the upper end (a base that covers) is returned.

    Returns:
        The base, or None when even 1e300 does not cover ctx.
    """
    def covers(base: float) -> bool:
        return first_negative(frequencies_for(base), ctx) is None

    high = max(start, 2.0)
    while not covers(high):
        high *= 16
        if high > _BASE_CEILING:
            return None
    low = high
    while covers(low):
        low = 1.0 + (low - 1.0) / 16
        if low - 1.0 < 1e-12:
            return low
    while high / low - 1.0 > tolerance:
        middle = math.exp((math.log(low) + math.log(high)) / 2)
        if covers(middle):
            high = middle
        else:
            low = middle
    return high
