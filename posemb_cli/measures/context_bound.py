"""The cosine sum behind the base's context bound (Men et al. 2024, "Base of RoPE Bounds Context Length").

Notation: F frequencies theta_i, m a distance in positions.

For a query equal to its key, RoPE's score at distance m is proportional to
``B(m) = sum_i cos(m * theta_i)`` (the same sum is the dot product of two
sinusoidal rows m apart). While B stays non-negative, attention can still favour
a similar token nearby over a random one; the paper's bound is the first m where
it goes negative. A base *covers* L distances when B(m) >= 0 for every m in
[1, L). This module scans B for one set of frequencies; ``base_grid.py`` asks
which bases cover.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from posemb_cli.measures.cosine_screen import CosineSumScreen

_TILE = 2048  # G: consecutive distances one column of a block covers
_BLOCK_COLUMNS = 512  # the most columns of one block: G * 512 distances, 8 MiB of float64 sums
_SCREEN_TILE = 8192  # distances per column of the float32 screen (a quarter of the trigonometry per distance)
_SCREENED_BLOCK = 1 << 20  # blocks of at least this many distances are screened first
_COVER_TILE = 256  # distances per tile that ``covers`` bounds before it sums (short tiles: tight bounds)
_UNIT = 2.0 ** -53  # float64 unit roundoff

__all__ = ["Dip", "covers", "covers_each", "dip", "first_negative", "stays_non_negative"]


class _Scan:
    """B(m) over distances 1..limit-1 in blocks of tiles, as ``first_negative`` documents.

    The blocks grow from one tile (C = 1, 2, 4, ..., 512 tiles of G distances), so an early
    crossing is found after a few thousand distances; each block is one float64 product.
    A scan that must read every distance (``stays_non_negative``, ``dip``) takes tiles of about
    sqrt(limit) distances instead, which halves the trigonometry of a short scan.
    """

    def __init__(self, inv_freq: np.ndarray, limit: int, *, whole: bool = False) -> None:
        self.freq, self.limit = np.asarray(inv_freq, dtype=np.float64), limit
        self.tile = min(_TILE, limit, max(64, 1 << (int(limit ** 0.5) - 1).bit_length())) if whole \
            else min(_TILE, limit)
        within = np.arange(self.tile, dtype=np.float64)[:, None] * self.freq[None, :]  # (G, F): j theta
        self.inner = np.concatenate((np.cos(within), -np.sin(within)), axis=1)  # (G, 2F)
        self.screen: CosineSumScreen | None = None  # built for the first large block: early crossings never need it
        self.grow = not whole

    def blocks(self) -> list[tuple[int, int]]:
        """``(first, columns)`` of every block, ascending."""
        found, first, columns = [], 0, 1 if self.grow else _BLOCK_COLUMNS
        while first < self.limit:
            columns = min(columns, -(-(self.limit - first) // self.tile))
            found.append((first, columns))
            first += columns * self.tile
            columns = min(2 * columns, _BLOCK_COLUMNS)
        return found

    def sums(self, first: int, columns: int) -> tuple[np.ndarray, np.ndarray]:
        """(distances, B at each) of one block, row-major: s ascending, then j; distances 0 and >= limit included."""
        starts = first + self.tile * np.arange(columns, dtype=np.float64)  # (C,) values of s
        outer = starts[:, None] * self.freq[None, :]  # (C, F): s theta
        sums = np.concatenate((np.cos(outer), np.sin(outer)), axis=1) @ self.inner.T  # (C, G): B(s + j)
        return first + np.arange(sums.size), sums.ravel()

    def negatives(self, first: int, columns: int) -> np.ndarray:
        """The distances m >= 1 below the limit with B(m) < 0 in one block, ascending (float64 sums)."""
        stop = min(self.limit, first + columns * self.tile)
        if self.screen is None and stop - first >= _SCREENED_BLOCK:
            self.screen = CosineSumScreen(self.freq, _SCREEN_TILE)
        if self.screen is not None and self.screen.clear(first, stop):  # no sum of the block can be negative
            return np.empty(0, dtype=np.int64)
        distances, sums = self.sums(first, columns)
        return distances[(sums < 0) & (distances >= 1) & (distances < self.limit)]


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

    Every distance is read, the last block first: B falls with m on the whole, so a negative sum,
    when there is one, is mostly met sooner from the top.
    """
    if limit <= 1:
        return True
    scan = _Scan(inv_freq, limit, whole=True)
    return not any(scan.negatives(first, columns).size for first, columns in reversed(scan.blocks()))


def tile_lower_bounds(inv_freq: np.ndarray, starts: np.ndarray, tile: int, limit: int,
                      highest: np.ndarray | None = None) -> np.ndarray:
    """A lower bound on B(m) over each tile [s, s + tile) below ``limit``: the sum over frequencies of the lowest
    cos(m theta) on the tile, which is -1 where m theta passes an odd multiple of pi, else the lower of its ends.

    With ``highest``, each frequency may be anywhere in [inv_freq, highest] (several bases at once): the angles
    then run from s * inv_freq to (s + tile - 1) * highest, and the bound holds for every frequency between."""
    top = inv_freq if highest is None else highest
    ends = np.minimum(starts + tile - 1, limit - 1)  # (C,)
    # A frequency whose angle moves 2 pi or more across every tile passes an odd multiple of pi on each: -1.
    turning = inv_freq * float((ends - starts).min(initial=tile - 1)) >= 2 * np.pi
    # One whose angle stays within [0, pi] below limit falls all the way: its lowest cosine is at the tile's end.
    falling = ~turning & (top * (limit - 1) <= np.pi)
    rest = ~turning & ~falling
    total = np.cos(ends[:, None] * top[None, falling]).sum(axis=1) - float(turning.sum())
    if rest.any():
        low = starts[:, None] * inv_freq[None, rest]  # (C, F')
        high = ends[:, None] * top[None, rest]
        passes = (2 * np.ceil((low - np.pi) / (2 * np.pi)) + 1) * np.pi <= high
        total += np.where(passes, -1.0, np.minimum(np.cos(low), np.cos(high))).sum(axis=1)
    # rounding: each end's angle is within 2 ulps; 1e-9 of slack keeps the bound below the float64 sums
    return total - 1e-9


def _tile_sums(freq: np.ndarray, starts: np.ndarray, tile: int, dtype=np.float64) -> np.ndarray:
    """(C, G) sums of cos(m theta) over ``freq`` for m = s + j, s in ``starts``, 0 <= j < G: the cosines and sines
    in float64, their product in ``dtype``."""
    within = np.arange(tile, dtype=np.float64)[:, None] * freq[None, :]  # (G, F): j theta
    inner = np.concatenate((np.cos(within), -np.sin(within)), axis=1).astype(dtype)  # (G, 2F)
    outer = starts[:, None] * freq[None, :]  # (C, F): s theta
    return np.concatenate((np.cos(outer), np.sin(outer)), axis=1).astype(dtype) @ inner.T


def _has_negative(sums: np.ndarray, starts: np.ndarray, tile: int, limit: int) -> bool:
    distances = starts[:, None] + np.arange(tile)[None, :]
    return bool(((sums < 0) & (distances >= 1) & (distances < limit)).any())


def covers(inv_freq: np.ndarray, limit: int) -> bool:
    """``stays_non_negative``, cheaper where it can be, tile by tile (256 distances):

    1. a tile whose lower bound (``tile_lower_bounds``, every frequency alone) is non-negative is cleared;
    2. on the others, the fast frequencies (more than a quarter turn over a tile) are summed (in float32, its
       rounding allowed for) and the slow ones bounded alone: where that bound is positive the tile is cleared;
    3. what is left is summed in float64 as the scan sums it, and decides.

    For a base well above the edge of coverage most tiles are cleared by 1, and near it most by 2 at the cost of
    the few fast frequencies. The answer is the float64 scan's.
    """
    return covers_each([inv_freq], limit)[0]


def covers_each(sets: list[np.ndarray], limit: int, each: Callable = map) -> list[bool]:
    """``covers`` for each set of frequencies (each of the same length F), with step 1 shared first: a tile
    whose bound holds for every frequency between the sets' lowest and highest (``tile_lower_bounds`` with
    ``highest``) is cleared for all of them, so each set is bounded and summed on the other tiles only. Each
    answer is ``covers``' own (a tile is cleared only by a proof). ``each``: how the sets' own steps are mapped
    (``map``, or an executor's ``map`` to run them side by side)."""
    if limit <= 1:
        return [True] * len(sets)
    freqs = [np.asarray(inv_freq, dtype=np.float64) for inv_freq in sets]
    tile = min(_COVER_TILE, limit)
    starts = np.arange(0, limit, tile, dtype=np.float64)  # (C,) values of s
    if len(freqs) > 1:
        stacked = np.stack(freqs)
        starts = starts[tile_lower_bounds(stacked.min(axis=0), starts, tile, limit, stacked.max(axis=0)) < 0]
    return list(each(lambda freq: _covers_tiles(freq, starts, tile, limit), freqs))


def _covers_tiles(freq: np.ndarray, starts: np.ndarray, tile: int, limit: int) -> bool:
    """Steps 1 to 3 of ``covers`` on the tiles that start at ``starts`` (the others are cleared)."""
    starts = starts[tile_lower_bounds(freq, starts, tile, limit) < 0]
    fast = freq * (tile - 1) > np.pi / 2
    for first in range(0, starts.size, _BLOCK_COLUMNS):
        chosen = starts[first:first + _BLOCK_COLUMNS]
        if fast.any() and not fast.all():
            # float32 products of 2n terms of size at most 1, inputs rounded once: within 2n (2 + n) eps32 of exact
            count = 2 * int(fast.sum())
            margin = 2 * count * (2 + count) * 2.0 ** -24 + 1e-9
            bound = _tile_sums(freq[fast], chosen, tile, np.float32) + \
                tile_lower_bounds(freq[~fast], chosen, tile, limit)[:, None]
            chosen = chosen[~((bound >= margin) | (chosen[:, None] + np.arange(tile) >= limit)).all(axis=1)]
        if chosen.size and _has_negative(_tile_sums(freq, chosen, tile), chosen, tile, limit):
            return False
    return True


@dataclass(frozen=True)
class Dip:
    """The lowest B(m) over m in [1, limit): where, how low, and how low per frequency.

    Attributes:
        at: the first m whose B(m) is within rounding noise of the lowest (the same m on every CPU).
        sum: B at that m. depth: sum / F, in [-1, 1]: -1 when every pair points away.
    """

    at: int
    sum: float
    depth: float

    def to_dict(self) -> dict:
        return {"at": self.at, "sum": self.sum, "depth": self.depth}


def dip(inv_freq: np.ndarray, limit: int) -> Dip | None:
    """The lowest B(m) over every distance m in [1, limit), with a pick rounding noise cannot move; None below 2.

    Each float64 B(m) is within ``t = 8 u (F + m sum_i theta_i)`` of the exact sum (u the unit
    roundoff: F rounded cosines and their sum, and angles m theta formed as s theta + j theta). The
    lowest is u* = min(B + t); the pick is the first m with B(m) - t <= u*, so values equal within
    their noise go to the lowest distance whatever the CPU's cosines.
    """
    if limit <= 1:
        return None
    freq = np.asarray(inv_freq, dtype=np.float64)
    scan = _Scan(freq, limit, whole=True)
    total = float(np.abs(freq).sum())
    bound, floor = np.inf, np.inf
    records: list[tuple[int, float, float]] = []  # (m, B - t, B) of record lows of B - t that can still tie
    for first, columns in scan.blocks():
        distances, sums = scan.sums(first, columns)
        inside = (distances >= 1) & (distances < limit)
        distances, sums = distances[inside], sums[inside]
        noise = 8 * _UNIT * (freq.size + distances * total)
        lows = sums - noise
        bound = min(bound, float((sums + noise).min()))
        prefix = np.minimum.accumulate(lows)
        before = np.concatenate(([floor], prefix[:-1]))
        for at in np.flatnonzero((lows < before) & (lows <= bound)).tolist():
            records.append((int(distances[at]), float(lows[at]), float(sums[at])))
        floor = min(floor, float(prefix[-1]))
        records = [record for record in records if record[1] <= bound]
    m, _, value = records[0]
    return Dip(at=m, sum=value, depth=value / freq.size)
