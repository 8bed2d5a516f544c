"""Next-token loss by position over one window: buckets, and the mean within and beyond the trained length.

Notation: L the window (tokens), T the trained length (0 < T < L - 1), ``losses[p]`` the loss of
predicting token p + 1 from tokens 0..p, for p = 0..L-2 (the last position predicts nothing inside
the window, so L tokens give L - 1 losses).

- Buckets are half-open position ranges [from, to): at least ``MIN_BUCKETS`` equal parts of [0, L)
  (edges ``i * L // n``), with T added as an edge, so that no bucket straddles the trained length and
  the last one ends at L. A bucket's mean is taken over the losses it holds (``positions``; the last
  bucket holds one position fewer than its width: position L - 1 has no loss).
- ``within``: the mean over positions [0, T); ``beyond``: over [T, L - 1); ``ratio`` = beyond / within.
- ``mean_loss``: the mean over the whole window, the log of the perplexity of the window, as the
  field's long-context evaluations report it (YaRN's ``eval/perplexity.py`` runs one window of L).
- ``keep``: where some losses are not the text's (the predictions of copy probes' tokens,
  ``measures.copy_probes``), only the kept ones count, in every mean and in each bucket's ``positions``;
  a mean over no kept loss is NaN (null in JSON).

Means are taken in float64, whatever the dtype the losses were computed in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["MIN_BUCKETS", "LossBucket", "LossProfile", "bucket_edges", "loss_profile"]

MIN_BUCKETS = 16


@dataclass(frozen=True)
class LossBucket:
    """The mean loss over positions [start, stop) of the window, from ``positions`` losses."""

    start: int
    stop: int
    mean_loss: float
    positions: int

    def to_dict(self) -> dict:
        return {"from": self.start, "to": self.stop, "mean_loss": _finite(self.mean_loss), "positions": self.positions}


@dataclass(frozen=True)
class LossProfile:
    """One window's losses summed up: by position, within and beyond the trained length."""

    length: int
    trained_length: int
    buckets: tuple[LossBucket, ...]
    within: float
    beyond: float
    ratio: float
    mean_loss: float

    def to_dict(self) -> dict:
        return {"loss_by_position": [bucket.to_dict() for bucket in self.buckets], "within": _finite(self.within),
                "beyond": _finite(self.beyond), "ratio": _finite(self.ratio), "mean_loss": _finite(self.mean_loss)}


def bucket_edges(length: int, trained_length: int, buckets: int = MIN_BUCKETS) -> list[int]:
    """Edges of ``buckets`` equal parts of [0, ``length``), with ``trained_length`` added: 0 first, L last."""
    edges = {index * length // buckets for index in range(buckets + 1)}
    if 0 < trained_length < length:
        edges.add(trained_length)
    return sorted(edges)


def loss_profile(losses: np.ndarray, trained_length: int, buckets: int = MIN_BUCKETS, *,
                 keep: np.ndarray | None = None) -> LossProfile:
    """Buckets, within, beyond, ratio and mean of a window's L - 1 next-token ``losses``.

    Args:
        losses: (L - 1,) the loss at each position p of predicting token p + 1.
        trained_length: T, with 0 < T < L - 1 (some position lies beyond it).
        buckets: the number of equal parts of [0, L); T adds one more edge.
        keep: (L - 1,) bool, the losses that count (None: every one).
    """
    values = np.asarray(losses, dtype=np.float64)
    if values.ndim != 1:
        raise ValueError(f"losses must be one window's (L - 1,) array, got shape {values.shape}")
    length = values.size + 1
    if not 0 < trained_length < length - 1:
        raise ValueError(f"trained length {trained_length} must lie inside the window's {length - 1} losses")
    kept = np.ones(values.size, dtype=bool) if keep is None else np.asarray(keep, dtype=bool)
    if kept.shape != values.shape:
        raise ValueError(f"keep must mark the window's {values.size} losses, got shape {kept.shape}")
    edges = bucket_edges(length, trained_length, buckets)
    parts = []
    for start, stop in zip(edges[:-1], edges[1:], strict=True):
        held = values[start:min(stop, length - 1)][kept[start:min(stop, length - 1)]]
        parts.append(LossBucket(start, stop, _mean(held), int(held.size)))
    within = _mean(values[:trained_length][kept[:trained_length]])
    beyond = _mean(values[trained_length:][kept[trained_length:]])
    ratio = beyond / within if within != 0 else math.nan
    return LossProfile(length, trained_length, tuple(parts), within, beyond, ratio, _mean(values[kept]))


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else math.nan


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
