"""The base's context bound of a built frequency scheme (rope, sinusoidal): the ``context_bound`` JSON key.

``{"first_negative": m, "min_base": b, "ctx": L, "scanned_to": S}``: the first
distance m >= 1 (scanned below S) where the sum of cos(m * theta_i) over the
frequencies in use goes negative (null when none is), and the smallest base,
with the same head size and scaling, whose sum stays non-negative below L.
"""

from __future__ import annotations

import numpy as np

from posemb_cli.measures.context_bound import first_negative, min_base

_LEAST_SCAN = 1 << 16  # first_negative is looked for at least this far, even for a short ctx

__all__ = ["context_bound", "frequencies_for_base"]


def frequencies_for_base(position, ctx: int):
    """base -> the (F,) float64 frequencies the scheme would use with that base, or None for other schemes."""
    if hasattr(position, "scaling") and hasattr(position, "head_dim"):  # rope, scaling as configured
        from posemb_cli.core.schemes.rope_scaling import rope_frequencies

        def rope(base: float) -> np.ndarray:
            return rope_frequencies(position.head_dim, base, position.scaling, seq_len=ctx)[1]

        return rope
    if hasattr(position, "pe") and hasattr(position, "base"):  # sinusoidal
        pairs = np.arange((position.dim + 1) // 2, dtype=np.float64)

        def sinusoidal(base: float) -> np.ndarray:
            return 1.0 / base ** (2.0 * pairs / position.dim)

        return sinusoidal
    return None


def context_bound(position, ctx: int) -> dict | None:
    """The context bound of ``position`` for a context of ``ctx`` positions; None for schemes without a base."""
    frequencies = frequencies_for_base(position, ctx)
    if frequencies is None:
        return None
    scanned_to = max(2 * ctx, _LEAST_SCAN)
    in_use = frequencies(float(position.base))
    return {"first_negative": first_negative(in_use, scanned_to), "min_base": min_base(frequencies, ctx,
            start=float(position.base)), "ctx": ctx, "scanned_to": scanned_to}
