"""The base's context bound of a built frequency scheme (rope, sinusoidal): the ``context_bound`` JSON key.

``{"ctx": L, "covers": bool, "first_negative": m, "scanned_to": S, "dip": {...},
"min_base": b, "base_grid": {...}}`` for the frequencies in use over the distances
the scheme is analysed at (a real model's sliding set: its window). Definitions
in ``measures/context_bound.py`` (the sum, covering, the dip) and
``measures/base_grid.py`` (the grid, the proof, ``min_base``); the contract is
docs/json-contract.md "The context bound".

Past 1,048,576 distances nothing is scanned beyond the first 2,097,152 (the
work must not grow with the context): ``covers`` then rests on the proof (a base
at or above ``proven_from``) or on a negative sum found early, else is null, and
``min_base`` is null (``base_grid.method`` says "proof only").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.measures.base_grid import MinBase, min_base, proven_from
from posemb_cli.measures.context_bound import Dip, dip, first_negative

if TYPE_CHECKING:  # doctor reaches this module without torch: the scheme protocols import it
    from posemb_cli.core.schemes.protocols import PositionScheme

_LEAST_SCAN = 1 << 16  # first_negative is looked for at least this far, even for a short ctx
SCANNED_UP_TO = 1 << 20  # contexts up to this many distances are scanned whole; longer ones rest on the proof
_LONGEST_SCAN = 2 * SCANNED_UP_TO

__all__ = ["SCANNED_UP_TO", "ContextBound", "context_bound", "frequency_bound"]


@dataclass(frozen=True)
class ContextBound:
    """Whether the frequencies' cosine sum stays non-negative over ctx distances, and which bases make it so.

    Attributes:
        first_negative: the first m >= 1 below ``scanned_to`` with a negative sum (None when none is).
        ctx: the distances analysed (1 .. ctx - 1): a context, or a sliding set's window.
        covers: whether every sum below ctx is non-negative; None when neither a scan nor the proof tells.
        dip: the lowest sum below ctx (None past the scanned contexts). grid: min_base and its grid.
    """

    first_negative: int | None
    ctx: int
    scanned_to: int
    covers: bool | None
    dip: Dip | None
    grid: MinBase
    scanned: bool = True

    @property
    def min_base(self) -> float | None:
        return self.grid.min_base if self.scanned else None

    def to_dict(self) -> dict:
        return {"first_negative": self.first_negative, "min_base": self.min_base, "ctx": self.ctx,
                "scanned_to": self.scanned_to, "covers": self.covers,
                "dip": None if self.dip is None else self.dip.to_dict(),
                "base_grid": {**self.grid.to_dict(), "method": "scan" if self.scanned else "proof only"}}


def frequency_bound(frequencies_for, base: float, ctx: int) -> ContextBound:
    """The bound of the frequencies ``frequencies_for(base)`` over ``ctx`` distances.

    Args:
        frequencies_for: base -> (F,) float64 frequencies as used with that base (any scaling applied).
        base: the base analysed. ctx: the distances to cover are 1..ctx-1.
    """
    in_use = frequencies_for(base)
    if ctx <= SCANNED_UP_TO:
        scanned_to = max(2 * ctx, _LEAST_SCAN)
        first = first_negative(in_use, scanned_to)
        return ContextBound(first_negative=first, ctx=ctx, scanned_to=scanned_to,
                            covers=first is None or first >= ctx, dip=dip(in_use, ctx),
                            grid=min_base(frequencies_for, ctx))
    first = first_negative(in_use, _LONGEST_SCAN)
    proof = proven_from(frequencies_for, ctx)
    covered = False if first is not None and first < ctx else True if proof is not None and base >= proof else None
    return ContextBound(first_negative=first, ctx=ctx, scanned_to=_LONGEST_SCAN, covers=covered, dip=None,
                        grid=MinBase(None, proof, 0), scanned=False)


def context_bound(position: PositionScheme, ctx: int) -> ContextBound | None:
    """The context bound of ``position`` over ``ctx`` distances; None for schemes without a base."""
    from posemb_cli.core.schemes.protocols import FrequencyScheme

    if not isinstance(position, FrequencyScheme):
        return None
    return frequency_bound(position.inv_freq_for_base, float(position.base), ctx)

