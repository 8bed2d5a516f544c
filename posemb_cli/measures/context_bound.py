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

from posemb_cli.measures.cosine_screen import CosineSumScreen

_TILE = 2048  # G: consecutive distances one column of a block covers
_BLOCK_COLUMNS = 512  # the most columns of one block: G * 512 distances, 8 MiB of float64 sums
_SCREEN_TILE = 8192  # distances per column of the float32 screen (a quarter of the trigonometry per distance)
_SCREENED_BLOCK = 1 << 20  # blocks of at least this many distances are screened first
_BASE_CEILING = 1e300
_RELATIVE_TOLERANCE = 1e-4

__all__ = ["first_negative", "min_base", "stays_non_negative"]


class _Scan:
    """B(m) over distances 1..limit-1 in blocks of tiles, as ``first_negative`` documents.

    The blocks grow from one tile (C = 1, 2, 4, ..., 512 tiles of G distances), so an early
    crossing is found after a few thousand distances; each block is one float64 product.
    """

    def __init__(self, inv_freq: np.ndarray, limit: int) -> None:
        self.freq, self.limit = np.asarray(inv_freq, dtype=np.float64), limit
        self.tile = min(_TILE, limit)
        within = np.arange(self.tile, dtype=np.float64)[:, None] * self.freq[None, :]  # (G, F): j theta
        self.inner = np.concatenate((np.cos(within), -np.sin(within)), axis=1)  # (G, 2F)
        self.screen: CosineSumScreen | None = None  # built for the first large block: early crossings never need it

    def blocks(self) -> list[tuple[int, int]]:
        """``(first, columns)`` of every block, ascending."""
        found, first, columns = [], 0, 1
        while first < self.limit:
            columns = min(columns, -(-(self.limit - first) // self.tile))
            found.append((first, columns))
            first += columns * self.tile
            columns = min(2 * columns, _BLOCK_COLUMNS)
        return found

    def negatives(self, first: int, columns: int) -> np.ndarray:
        """The distances m >= 1 below the limit with B(m) < 0 in one block, ascending (float64 sums)."""
        stop = min(self.limit, first + columns * self.tile)
        if self.screen is None and stop - first >= _SCREENED_BLOCK:
            self.screen = CosineSumScreen(self.freq, _SCREEN_TILE)
        if self.screen is not None and self.screen.clear(first, stop):  # no sum of the block can be negative
            return np.empty(0, dtype=np.int64)
        starts = first + self.tile * np.arange(columns, dtype=np.float64)  # (C,) values of s
        outer = starts[:, None] * self.freq[None, :]  # (C, F): s theta
        sums = np.concatenate((np.cos(outer), np.sin(outer)), axis=1) @ self.inner.T  # (C, G): B(s + j)
        distances = first + np.arange(sums.size)  # row-major: s ascending, then j
        return distances[(sums.ravel() < 0) & (distances >= 1) & (distances < self.limit)]


def first_negative(inv_freq: np.ndarray, limit: int) -> int | None:
    """The first distance m in [1, limit) with B(m) < 0, scanned in blocks; None when there is none.

    The distances are split as m = s + j, s a multiple of the tile G and 0 <= j < G, so that
    ``cos(m theta) = cos(j theta) cos(s theta) - sin(j theta) sin(s theta)``: the sums of a
    block of tiles are one (G, 2F) x (2F, C) matrix product of cosines and sines computed once
    per j and once per s, instead of F cosines per distance. Blocks grow from one tile, so an
    early crossing is found after a few thousand distances.

    Each large block is first screened in float32 (``cosine_screen.py``): where that proves every
    sum non-negative the block is passed; otherwise the float64 product decides, as it always did.
    The answer is the float64 scan's, at a fraction of its cost.

    Args:
        inv_freq: (F,) float64 frequencies as used (after any scaling).
        limit: distances scanned are 1..limit-1.
    """
    if limit <= 1:
        return None
    scan = _Scan(inv_freq, limit)
    for first, columns in scan.blocks():
        negative = scan.negatives(first, columns)
        if negative.size:
            return int(negative[0])
    return None


def stays_non_negative(inv_freq: np.ndarray, limit: int) -> bool:
    """Whether B(m) >= 0 for every m in [1, limit): ``first_negative(inv_freq, limit) is None``.

    The same blocks and sums, read from the last block down: B falls with m on the whole, so a
    negative sum, when there is one, is mostly met sooner from the top.
    """
    if limit <= 1:
        return True
    scan = _Scan(inv_freq, limit)
    return not any(scan.negatives(first, columns).size for first, columns in reversed(scan.blocks()))


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
    known: dict[float, bool] = {}  # the searches below ask for some bases twice

    def covers(base: float) -> bool:
        if base not in known:
            known[base] = stays_non_negative(frequencies_for(base), ctx)
        return known[base]

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
