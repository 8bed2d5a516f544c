"""What a context extension does to each RoPE pair, against the model as trained, and how much each head cares.

Notation: P pairs, θ_i the model's own published frequencies (pair i), θ'_i a candidate scaling's, T the
length the published frequencies were trained at, D the farthest distance the layers attend at the
target (the target L, or their window where shorter), H heads. The trained angle span of pair i is
T θ_i: a pair with T θ_i >= 2π has turned through every angle. Each pair gets one class, in this order:

- ``extrapolated``: T θ_i < 2π (it never completed a turn in training) and D θ'_i > T θ_i (1 + 1e-9): at
  the target it turns further than it ever did (Liu et al.'s dimensions past the critical one);
- ``compressed``: otherwise, θ'_i < θ_i (1 - 1e-9): neighbouring positions come closer in angle;
- ``sped_up``: otherwise, θ'_i > θ_i (1 + 1e-9): the pair turns faster than the model was trained with (a
  candidate specified from the frequencies before a published scaling, e.g. YaRN's unscaled pairs over a
  model published with linear x8): neighbouring positions move apart in angle, which training never saw;
- ``unchanged``: everything else.

``compression`` is θ_i / θ'_i. The relative 1e-9 keeps float64 rounding from classing a pair that a
scaling maps exactly onto its trained span (linear by L / T: D θ_i / s = T θ_i) as extrapolated.

A head's weight on each pair is its ``pair_share`` (``measures.head_frequencies``: (H, P), each row summing
to 1); with a config alone every pair weighs 1 / P. Per head: the extrapolated and the compressed share
(its shares summed over those pairs), the mean compression of its compressed pairs weighted by share,
the compression cost, the sum over its compressed pairs of share x log2(compression), and likewise the sped-up
share and the speed-up cost, the sum over its sped-up pairs of share x log2(θ' / θ).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CLASSES = ("unchanged", "compressed", "extrapolated", "sped_up")
ROUNDING = 1e-9

__all__ = ["CLASSES", "ROUNDING", "PairClasses", "Shares", "classify_pairs", "equal_weights", "weighted_shares"]


@dataclass(frozen=True)
class PairClasses:
    """One candidate's pairs: ``classes`` (P,) indices into CLASSES, ``compression`` (P,) θ / θ', the trained
    angle span ``trained_span`` (P,) T θ and the span at the target ``target_span`` (P,) D θ'."""

    classes: np.ndarray
    compression: np.ndarray
    trained_span: np.ndarray
    target_span: np.ndarray

    def mask(self, name: str) -> np.ndarray:
        return self.classes == CLASSES.index(name)

    def names(self) -> list[str]:
        return [CLASSES[index] for index in self.classes.tolist()]

    def counts(self) -> dict[str, int]:
        return {name: int(np.count_nonzero(self.mask(name))) for name in CLASSES}


def classify_pairs(trained: np.ndarray, candidate: np.ndarray, *, trained_length: int,
                   distance: int) -> PairClasses:
    """Each pair's class and compression.

    Args:
        trained: (P,) θ, the published frequencies. candidate: (P,) θ', the candidate's.
        trained_length: T. distance: D, the farthest distance attended at the target.
    """
    trained = np.asarray(trained, dtype=np.float64)
    candidate = np.asarray(candidate, dtype=np.float64)
    trained_span = trained_length * trained  # (P,)
    target_span = distance * candidate  # (P,)
    never_turned = trained_span < 2 * math.pi
    extrapolated = never_turned & (target_span > trained_span * (1 + ROUNDING))
    compressed = ~extrapolated & (candidate < trained * (1 - ROUNDING))
    sped_up = ~extrapolated & ~compressed & (candidate > trained * (1 + ROUNDING))
    classes = np.where(extrapolated, 2, np.where(compressed, 1, np.where(sped_up, 3, 0))).astype(np.int8)
    return PairClasses(classes=classes, compression=trained / candidate, trained_span=trained_span,
                       target_span=target_span)


def equal_weights(pairs: int) -> np.ndarray:
    """(1, P): every pair weighs 1 / P (a model read from its config alone)."""
    return np.full((1, pairs), 1.0 / pairs)


@dataclass(frozen=True)
class Shares:
    """Per head (H,): extrapolated and compressed shares, mean compression (NaN: no compressed share), compression
    cost; the sped-up share and the speed-up cost."""

    extrapolated: np.ndarray
    compressed: np.ndarray
    mean_compression: np.ndarray
    cost: np.ndarray
    sped_up: np.ndarray
    speed_cost: np.ndarray


def weighted_shares(pair_share: np.ndarray, pairs: PairClasses) -> Shares:
    """The shares of H heads (pair_share (H, P)) on one candidate's classes; a head without shares gives NaN."""
    share = np.asarray(pair_share, dtype=np.float64)  # (H, P)
    compressed = pairs.mask("compressed")
    on_compressed = share * compressed  # (H, P)
    compressed_share = on_compressed.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(compressed_share > 0, (on_compressed * pairs.compression).sum(1) / compressed_share, np.nan)
    cost = (on_compressed * np.log2(np.where(compressed, pairs.compression, 1.0))).sum(1)
    faster = pairs.mask("sped_up")
    speed_cost = (share * faster * np.log2(np.where(faster, 1.0 / pairs.compression, 1.0))).sum(1)
    return Shares(extrapolated=(share * pairs.mask("extrapolated")).sum(1), compressed=compressed_share,
                  mean_compression=mean, cost=cost, sped_up=(share * faster).sum(1), speed_cost=speed_cost)
