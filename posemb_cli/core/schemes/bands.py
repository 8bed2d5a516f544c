"""Frequency bands of a frequency scheme (sinusoidal, rope): one per feature pair."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Band", "bands_of"]


@dataclass(frozen=True)
class Band:
    """One feature pair's frequency as used (after any scaling) and, for scaled rope, before.

    Attributes:
        pair: k, the pair's index.
        inv_freq: radians per position.
        wavelength: positions per full turn, 2 pi / inv_freq.
        inv_freq_unscaled: the frequency before context scaling; None when unscaled.
        inv_freq_short, inv_freq_long: LongRoPE's two sets, up to and beyond the original length.
    """

    pair: int
    inv_freq: float
    wavelength: float
    inv_freq_unscaled: float | None = None
    inv_freq_short: float | None = None
    inv_freq_long: float | None = None

    def to_dict(self) -> dict:
        out = {"pair": self.pair, "inv_freq": self.inv_freq, "wavelength": self.wavelength}
        for name in ("inv_freq_unscaled", "inv_freq_short", "inv_freq_long"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out


def bands_of(inv_freq: Sequence[float], unscaled: Sequence[float] | None = None) -> list[Band]:
    """Bands from the frequencies as used and, when they were scaled, the ones before scaling."""
    before = [None] * len(inv_freq) if unscaled is None else list(unscaled)
    pairs = enumerate(zip(inv_freq, before, strict=True))
    return [Band(pair, used, 2 * math.pi / used, plain) for pair, (used, plain) in pairs]
