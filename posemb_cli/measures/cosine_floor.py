"""A cheap proof that B(m) = sum_i cos(m * theta_i) stays non-negative: each frequency's lowest cosine per tile.

Notation: F frequencies theta_i, a tile [s, s + G] of distances, u = 2^-53.

Over a tile, cos(m theta) is at least its smallest value on the tile: -1 when the
angles s theta .. (s + G) theta pass an odd multiple of pi, else the smaller of its
two ends. The sum of these floors bounds B from below on the whole tile at the cost
of two cosines per frequency, whatever G is, where the float32 screen
(``cosine_screen.py``) evaluates every distance. A tile whose floor is not clear
of the rounding margin is cut in four and tried again, down to single distances;
the proof fails (``False``: unknown, not a negative sum) when any distance is left,
or when the cut tiles outgrow a budget.

Rounding: an end's angle e theta is formed in float64 (within u e theta) and
reduced modulo 2 pi (within 4 u e theta more), then its cosine is taken in float32
(the cast within 2 pi 2^-24, the cosine within about 1.2 x 2^-24 here: a test holds it).
Each floor is lowered by 8 u e theta + 2^-19 for that, and the tile passes only when
the sum still exceeds what the float64 scan's own rounding can take away from any
of its sums (``dip``: 8 u (F + m sum theta), doubled here). So a tile that passes
has no negative float64 sum either: ``covers`` gives the float64 scan's answer.
"""

from __future__ import annotations

import math

import numpy as np

_LEVELS = (1024, 256, 64, 16, 4, 1)  # tile sizes, each a quarter of the one before
_TWO_PI = 2 * math.pi
_UNIT = 2.0 ** -53  # float64 unit roundoff
_FLOAT32_COSINE = 2.0 ** -19  # a float32 cosine of a reduced float64 angle: cast and cosine, with room
_BUDGET = 64  # a level may cut at most limit / this many tiles (at least 4,096): the screen is cheaper beyond

__all__ = ["floors_clear"]


def _cosines(ends: np.ndarray, freq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(E, F) angles e theta in float64 and their float32 cosines, the angles reduced modulo 2 pi first."""
    angles = ends[:, None] * freq[None, :]  # (E, F)
    reduced = angles - _TWO_PI * np.floor(angles / _TWO_PI)
    return angles, np.cos(reduced.astype(np.float32))


def _tile_floors(starts: np.ndarray, tile: int, freq: np.ndarray) -> np.ndarray:
    """(C,) sum over the frequencies of the lowest cos(m theta) for m in [s, s + tile], rounding allowed for."""
    ends = np.unique(np.concatenate((starts, starts + tile)))  # (E,) every tile's two ends, once
    angles, cosines = _cosines(ends, freq)
    low, high = np.searchsorted(ends, starts), np.searchsorted(ends, starts + tile)
    first, last = angles[low], angles[high]  # (C, F)
    # The last odd multiple of pi at or below the tile's last angle: inside the tile when it is not below the first.
    passes_pi = math.pi + _TWO_PI * np.floor((last - math.pi) / _TWO_PI) >= first
    floors = np.where(passes_pi, -1.0, np.minimum(cosines[low], cosines[high]))
    return floors.sum(axis=1, dtype=np.float64)


def _point_values(points: np.ndarray, freq: np.ndarray) -> np.ndarray:
    """(C,) sum over the frequencies of cos(m theta) at single distances m, as ``_tile_floors`` rounds them."""
    return _cosines(points, freq)[1].sum(axis=1, dtype=np.float64)


def floors_clear(inv_freq: np.ndarray, limit: int) -> bool:
    """Whether B(m) >= 0 certainly, in the float64 scan too, for every m in [1, limit); False: not proven.

    Args:
        inv_freq: (F,) float64 frequencies.
        limit: distances 1..limit-1 (tiles from 0 up; B(0) = F).
    """
    freq = np.asarray(inv_freq, dtype=np.float64)
    if limit <= 1 or freq.size == 0:
        return limit <= 1
    count, total = freq.size, float(np.abs(freq).sum())
    fixed = count * (_FLOAT32_COSINE + _UNIT * (16 + count)) + 1e-9  # cosines and the float64 sums' rounding
    starts = np.arange(0, limit, _LEVELS[0], dtype=np.float64)
    for level, tile in enumerate(_LEVELS):
        if tile == 1:
            values, top = _point_values(starts, freq), starts
        else:
            values, top = _tile_floors(starts, tile, freq), starts + tile
        # Angle errors (8 u e theta per end) and the float64 scan's (16 u m sum theta), at the tile's far end.
        bad = starts[values < fixed + 24 * _UNIT * top * total]
        if bad.size == 0:
            return True
        if tile == 1:
            return False
        smaller = _LEVELS[level + 1]
        if bad.size * (tile // smaller) > max(4096, limit // _BUDGET):
            return False  # too much left to cut: the screen is cheaper
        starts = (bad[:, None] + np.arange(0, tile, smaller, dtype=np.float64)[None, :]).ravel()
        starts = starts[starts < limit]  # closed tiles [s, s + G]: together they hold every distance below limit
    return False
