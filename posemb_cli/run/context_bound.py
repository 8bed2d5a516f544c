"""The base's context bound of a built frequency scheme (rope, sinusoidal): the ``context_bound`` JSON key.

``{"first_negative": m, "min_base": b, "ctx": L, "scanned_to": S}``: the first
distance m >= 1 (scanned below S) where the sum of cos(m * theta_i) over the
frequencies in use goes negative (null when none is), and the smallest base,
with the same head size and scaling, whose sum stays non-negative below L.
"""

from __future__ import annotations

from dataclasses import dataclass

from posemb_cli.core.schemes.protocols import FrequencyScheme, PositionScheme
from posemb_cli.measures.context_bound import first_negative, min_base

_LEAST_SCAN = 1 << 16  # first_negative is looked for at least this far, even for a short ctx

__all__ = ["ContextBound", "context_bound"]


@dataclass(frozen=True)
class ContextBound:
    """Where the frequencies' cosine sum first goes negative, and the base that would push it past ctx."""

    first_negative: int | None
    min_base: float | None
    ctx: int
    scanned_to: int

    def to_dict(self) -> dict:
        return {"first_negative": self.first_negative, "min_base": self.min_base, "ctx": self.ctx,
                "scanned_to": self.scanned_to}


def context_bound(position: PositionScheme, ctx: int) -> ContextBound | None:
    """The context bound of ``position`` for a context of ``ctx`` positions; None for schemes without a base."""
    if not isinstance(position, FrequencyScheme):
        return None
    scanned_to = max(2 * ctx, _LEAST_SCAN)
    in_use = position.inv_freq_for_base(position.base)
    return ContextBound(first_negative=first_negative(in_use, scanned_to),
                        min_base=min_base(position.inv_freq_for_base, ctx, start=float(position.base)),
                        ctx=ctx, scanned_to=scanned_to)
