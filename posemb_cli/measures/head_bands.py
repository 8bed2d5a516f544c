"""Which RoPE pairs are high-frequency, which lie beyond the critical pair, and each head's label from its shares.

With the unscaled wavelengths λ_f = 2π / θ_f (increasing with f) and the context T the layer was
trained on:

- the critical pair (Liu et al. 2023, "Scaling Laws of RoPE-based Extrapolation"): the first pair
  with λ_f > T, a pair that never turned a full circle in training; P when there is none;
- the high-frequency pairs: λ_f ≤ √(2π T), the geometric middle between a turn per position (2π)
  and the context, so the first half of the pairs before the critical one;
- a head is ``positional`` when more than half of its pair share lies on high-frequency pairs,
  ``semantic`` when more than half lies at or beyond the critical pair, ``mixed`` otherwise.

Picks rank heads by a share rounded to 12 decimals (differences below that are rounding noise that
may differ between machines), ties broken by the lowest layer, then the lowest head.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["LABELS", "PICK_DECIMALS", "Bands", "band_shares", "bands_of", "label", "ranked"]

LABELS = ("positional", "semantic", "mixed")
PICK_DECIMALS = 12


@dataclass(frozen=True)
class Bands:
    """Pairs [0, high_pairs) are high-frequency; pairs [critical_pair, P) lie beyond the critical pair."""

    high_pairs: int
    critical_pair: int


def bands_of(unscaled_inv_freq: np.ndarray, context: int) -> Bands:
    """The high-frequency pairs and the critical pair of frequencies trained on ``context`` positions."""
    wavelengths = 2 * math.pi / np.asarray(unscaled_inv_freq, dtype=np.float64)
    beyond = np.flatnonzero(wavelengths > context)
    critical = int(beyond[0]) if beyond.size else int(wavelengths.size)
    high = int(np.count_nonzero(wavelengths[:critical] <= math.sqrt(2 * math.pi * context)))
    return Bands(high_pairs=high, critical_pair=critical)


def band_shares(pair_share: np.ndarray, bands: Bands) -> tuple[np.ndarray, np.ndarray]:
    """(H,) share of each head on the high-frequency pairs and (H,) at or beyond the critical pair."""
    return pair_share[:, : bands.high_pairs].sum(1), pair_share[:, bands.critical_pair:].sum(1)


def label(high_share: float, beyond_share: float) -> str:
    """``positional`` (high share above half), ``semantic`` (beyond share above half) or ``mixed``."""
    if high_share > 0.5:
        return "positional"
    if beyond_share > 0.5:
        return "semantic"
    return "mixed"


def ranked(entries: list[tuple[int, int, float]], top: int) -> list[tuple[int, int, float]]:
    """The ``top`` (layer, head, share) entries with the largest share; NaN last, ties to the lowest layer, head."""
    def key(entry: tuple[int, int, float]):
        layer, head, share = entry
        finite = math.isfinite(share)
        return (not finite, -round(share, PICK_DECIMALS) if finite else 0.0, layer, head)

    return sorted(entries, key=key)[:top]
