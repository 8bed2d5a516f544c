"""The order ``posemb extend`` ranks candidate scalings in, stated once (``RULE``) and applied by one key.

Lexicographic, each figure compared rounded to 12 decimals (differences below that are rounding noise
that may differ between machines):

1. the extrapolated share, lowest first: weight on pairs that turn past any angle seen in training, what
   breaks first without fine-tuning (Liu et al.; the YaRN paper's argument);
2. fine-tuning by the published evidence: ``no`` before ``beyond 2x`` before ``yes``;
3. the score, lowest first: the compression cost, the share-weighted sum of log2(θ / θ') over compressed
   pairs (0 when nothing is compressed), how far neighbouring positions were squeezed together;
4. the candidates' own order (none, linear, ntk, dynamic, yarn, llama3, longrope).

A figure that is not finite (a model whose every head has all-zero weights) ranks after every finite one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALINGS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3", "longrope")
FINE_TUNING = ("no", "beyond 2x", "yes")
DECIMALS = 12
RULE = ("lowest extrapolated share first; then fine-tuning by the published evidence (no, beyond 2x, yes); then "
        "the lowest score, the compression cost (share-weighted sum of log2 of theta/theta' over compressed "
        "pairs); then the order none, linear, ntk, dynamic, yarn, llama3, longrope; figures compared to 12 "
        "decimals")

__all__ = ["DECIMALS", "FINE_TUNING", "RULE", "SCALINGS", "Standing", "rank_key", "ranked", "ranked_by_prediction"]


@dataclass(frozen=True)
class Standing:
    """What one candidate is ranked by."""

    scaling: str
    extrapolated_share: float
    needs_fine_tuning: str
    score: float


def _figure(value: float) -> tuple[bool, float]:
    finite = math.isfinite(value)
    return (not finite, round(value, DECIMALS) if finite else 0.0)


def rank_key(standing: Standing) -> tuple:
    return (*_figure(standing.extrapolated_share), FINE_TUNING.index(standing.needs_fine_tuning),
            *_figure(standing.score), SCALINGS.index(standing.scaling))


def ranked(standings: list[Standing]) -> list[Standing]:
    """``standings`` best first, under ``RULE``."""
    return sorted(standings, key=rank_key)


def ranked_by_prediction(predicted: list[tuple[str, float]]) -> list[str]:
    """The scalings, best first: the lowest predicted change of the window's mean loss (compared to 12 decimals,
    below which figures are rounding noise that may differ between machines), then the order of SCALINGS."""
    return [name for name, _ in sorted(predicted, key=lambda item: (*_figure(item[1]), SCALINGS.index(item[0])))]
