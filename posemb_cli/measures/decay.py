"""Frequency-scheme figures from the frequencies alone: NumPy in, plain numbers out.

RoFormer (Su et al., section 3.4.3) bounds the attention score at relative
distance r by ``max_i |h_{i+1} - h_i| * sum_j |S_j|`` with
``S_j = sum_{k<j} exp(i r theta_k)``; the relative upper bound plotted in the
paper is ``(1 / (d/2)) * sum_{j=1}^{d/2} |S_j|``. It falls as r grows.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_DECAY_POINTS = 24


def log_distances(ctx: int, points: int = _DECAY_POINTS) -> list[int]:
    """Distinct integer distances from 1 to ``ctx``, evenly spaced on a log scale."""
    grid = np.round(np.geomspace(1, max(ctx, 1), points)).astype(np.int64)
    return [int(d) for d in np.unique(grid)]


@dataclass(frozen=True)
class DecayPoint:
    """The RoFormer relative upper bound at one distance."""

    distance: int
    bound: float

    def to_dict(self) -> dict:
        return {"distance": self.distance, "bound": self.bound}


def long_term_decay(inv_freq: Sequence[float], ctx: int, *, points: int = _DECAY_POINTS) -> list[DecayPoint]:
    """The RoFormer relative upper bound against distance, at log-spaced distances up to ``ctx``.

    Args:
        inv_freq: the d/2 frequencies theta_k as used (after any scaling).
        ctx: the largest distance sampled.
    """
    theta = np.asarray(inv_freq, dtype=np.float64)  # (h,)
    distances = np.asarray(log_distances(ctx, points), dtype=np.float64)  # (R,)
    partial = np.cumsum(np.exp(1j * distances[:, None] * theta[None, :]), axis=1)  # (R, h): S_1..S_h
    bound = np.abs(partial).mean(axis=1)
    return [DecayPoint(int(r), float(b)) for r, b in zip(distances, bound, strict=False)]


def full_turn_pairs(inv_freq: Sequence[float], ctx: int) -> int:
    """How many pairs turn through at least one full circle (2 pi) within ``ctx`` positions."""
    return sum(1 for frequency in inv_freq if ctx * frequency >= 2 * math.pi)
