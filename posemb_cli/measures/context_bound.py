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

_BLOCK_ELEMENTS = 1 << 20  # m values times F per block
_BASE_CEILING = 1e300
_RELATIVE_TOLERANCE = 1e-4

__all__ = ["cosine_sum", "first_negative", "min_base"]


def cosine_sum(inv_freq: np.ndarray, distances: np.ndarray) -> np.ndarray:
    """B(m) for each distance: (M,) from (F,) frequencies and (M,) distances, float64."""
    return np.cos(np.asarray(distances, dtype=np.float64)[:, None] * np.asarray(inv_freq)[None, :]).sum(axis=1)


def first_negative(inv_freq: np.ndarray, limit: int) -> int | None:
    """The first distance m in [1, limit) with B(m) < 0, scanned in blocks; None when there is none.

    Args:
        inv_freq: (F,) float64 frequencies as used (after any scaling).
        limit: distances scanned are 1..limit-1.
    """
    freq = np.asarray(inv_freq, dtype=np.float64)
    step = max(1, _BLOCK_ELEMENTS // max(freq.shape[0], 1))
    for start in range(1, limit, step):
        distances = np.arange(start, min(limit, start + step), dtype=np.float64)
        negative = np.flatnonzero(cosine_sum(freq, distances) < 0)
        if negative.size:
            return start + int(negative[0])
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
