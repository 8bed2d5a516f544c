"""A cheap certificate that B(m) = sum_i cos(m * theta_i) stays non-negative over a block of distances.

Notation: F frequencies theta_i, G distances per tile, C tiles per block, m = s + j
with s a tile's first distance and 0 <= j < G.

``context_bound.first_negative`` scans millions of distances per base. Most
blocks hold no negative sum, and proving that needs no float64 sum: this screen
computes every B(m) of a block in float32 from one (C, n) x (n, G) product and
bounds how far that can be from the float64 sums. Frequencies that turn by at
most a quarter radian over a tile ("slow") enter as one cubic in j per tile
(their Taylor series about the tile's middle, remainder bounded); the others
("fast") as cos(s theta) cos(j theta) - sin(s theta) sin(j theta). Where every
value is at least ``margin``, no float64 sum of the block is negative.
"""

from __future__ import annotations

import numpy as np

_SLOW_TURN = 0.25  # radians over one tile, at most, for a frequency taken by its cubic
_UNIT = 2.0 ** -24  # float32 unit roundoff

__all__ = ["CosineSumScreen"]


class CosineSumScreen:
    """Float32 lower bounds of B over blocks of distances, for one set of frequencies.

    Args:
        inv_freq: (F,) float64 frequencies.
        tile: G, distances per column of the product.
    """

    def __init__(self, inv_freq: np.ndarray, tile: int) -> None:
        freq = np.asarray(inv_freq, dtype=np.float64)
        self.tile = tile
        slow = freq * tile <= _SLOW_TURN
        self.fast, self.slow = freq[~slow], freq[slow]
        self.total = float(np.abs(freq).sum())
        self.half = self.slow * (tile / 2)  # (S,) h_i: the most a slow angle moves from the tile's middle
        j = np.arange(tile, dtype=np.float64)
        within = j[:, None] * self.fast[None, :]  # (G, F_fast): j theta
        t = (j - (tile - 1) / 2) / (tile / 2)  # (G,) in [-1, 1]: distance from the middle, in half tiles
        powers = np.stack((np.ones_like(t), t, t ** 2, t ** 3), axis=1)  # (G, 4)
        self.right = np.ascontiguousarray(
            np.concatenate((np.cos(within), -np.sin(within), powers), axis=1).T, dtype=np.float32)  # (n, G)
        # Rounding: each product's inputs (2u) and the float32 sum of n products (gamma_n), against the sum of
        # |left| |right|: at most 1 per fast frequency and 1 + h + h^2/2 + h^3/6 per slow one. The cubic's
        # remainder: h^4 / 24 per slow frequency. Doubled, plus 1e-9 for the float64 sums' own rounding.
        terms = self.right.shape[0]
        gamma = terms * _UNIT / (1 - terms * _UNIT)
        size = self.fast.size + float((1 + self.half + self.half ** 2 / 2 + self.half ** 3 / 6).sum())
        self.margin = 2.0 * (size * (2 * _UNIT + _UNIT ** 2 + gamma * (1 + _UNIT) ** 2)
                             + float((self.half ** 4 / 24).sum())) + 1e-9

    def clear(self, first: int, stop: int) -> bool:
        """Whether B(m) >= 0 certainly, in float64 too, for every distance m in [first, stop)."""
        starts = np.arange(first, stop, self.tile, dtype=np.float64)  # (C,) values of s
        outer = starts[:, None] * self.fast[None, :]  # (C, F_fast): s theta
        middle = (starts[:, None] + (self.tile - 1) / 2) * self.slow[None, :]  # (C, S): angle at the middle
        cos_middle, sin_middle = np.cos(middle), np.sin(middle)
        cubic = np.stack((cos_middle.sum(axis=1), -(sin_middle * self.half).sum(axis=1),
                          -(cos_middle * self.half ** 2 / 2).sum(axis=1),
                          (sin_middle * self.half ** 3 / 6).sum(axis=1)), axis=1)  # (C, 4): Taylor coefficients
        left = np.concatenate((np.cos(outer), np.sin(outer), cubic), axis=1).astype(np.float32)  # (C, n)
        values = (left @ self.right).ravel()[:stop - first]  # B(first + i), row-major: s, then j
        # The float64 angles here and in the scan split m differently: each is within 2^-53 m theta of m theta.
        slack = 4 * 2.0 ** -53 * (stop + self.tile) * self.total
        return bool(values.min() >= self.margin + slack)
