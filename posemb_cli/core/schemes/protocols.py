"""The contracts every positional scheme keeps, as ``typing.Protocol``s.

Notation: T sequence length, L max context (``max_ctx``), D width (``dim``),
F width of the signal a position carries, P (m, n) pairs, S score series (heads).

Callers dispatch on these protocols (``isinstance(scheme, AttentionScheme)``),
never on ad-hoc attribute probes. A new scheme implements ``PositionScheme``
and, when its position acts inside attention, ``AttentionScheme``; rotary and
bias schemes add the one method ``posemb order`` needs to run them in a head.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
import torch

from posemb_cli.core.schemes.bands import Band

__all__ = ["AttentionScheme", "BiasScheme", "ClosedFormSignal", "FormulaTable", "FrequencyScheme", "PositionScheme",
           "RotaryScheme"]


@runtime_checkable
class PositionScheme(Protocol):
    """What the composer and every measure read from a scheme.

    Attributes:
        max_ctx: L, the positions the scheme is built for.
        dim: D, the width of its additive part.
        acts_on: where the position goes: "input" for additive tables.
    """

    max_ctx: int
    dim: int
    acts_on: str

    def __call__(self, seq_len: int) -> torch.Tensor:
        """The additive part for positions 0..T-1: (T, D), or a broadcast view of zero."""
        ...

    def table(self) -> torch.Tensor:
        """The whole additive (L, D) table."""
        ...

    def signal(self, start: int = 0, stop: int | None = None) -> torch.Tensor:
        """The (stop - start, F) signal that positions start..stop-1 carry, which the measures read."""
        ...

    def serves(self, length: int) -> bool:
        """Whether a sequence of ``length`` positions can be encoded."""
        ...

    def bands(self) -> list[Band] | None:
        """One band per feature pair; None for a scheme without frequencies."""
        ...


@runtime_checkable
class FrequencyScheme(PositionScheme, Protocol):
    """A scheme whose signal is set by a base and the frequencies it gives (sinusoidal, rope)."""

    base: float

    def inv_freq_for_base(self, base: float) -> np.ndarray:
        """The (F,) float64 frequencies in use, as they would be with ``base`` and every other setting kept."""
        ...


@runtime_checkable
class ClosedFormSignal(PositionScheme, Protocol):
    """A scheme whose neighbour similarity has a closed form, the same at every position (rope, sinusoidal)."""

    def exact_neighbour_similarity(self, max_offset: int) -> list[float] | None:
        """cos(signal row p, row p + k) for k = 1..K from the formula in float64; None where it depends on p."""
        ...


@runtime_checkable
class FormulaTable(PositionScheme, Protocol):
    """An additive table computed from a formula (sinusoidal): built for L rows, its formula gives any row."""

    def rows(self, start: int, stop: int) -> torch.Tensor:
        """Rows start..stop-1 from the formula, also past L: (stop - start, D)."""
        ...


@runtime_checkable
class AttentionScheme(PositionScheme, Protocol):
    """A scheme whose position enters attention (rope, alibi) or nowhere (none)."""

    def pair_scores(self, q: torch.Tensor, k: torch.Tensor, m: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """The score of query q (D,) at positions m (P,) against key k (D,) at n (P,): (P,) or (P, S)."""
        ...


@runtime_checkable
class RotaryScheme(AttentionScheme, Protocol):
    """Rotates queries and keys by position (RoPE)."""

    attention_factor: float

    def rotate(self, x: torch.Tensor, positions: torch.Tensor, *, seq_len: int | None = None) -> torch.Tensor:
        """``x`` (..., T, D) rotated to ``positions`` (T,)."""
        ...


@runtime_checkable
class BiasScheme(AttentionScheme, Protocol):
    """Adds a bias per head to the attention scores (ALiBi)."""

    slopes: torch.Tensor

    def bias(self, query_positions: torch.Tensor, key_positions: torch.Tensor) -> torch.Tensor:
        """(H, Tq, Tk) biases."""
        ...

    def bias_at_offsets(self, max_offset: int) -> list[dict]:
        """``[{"offset": k, "bias": [per head]}]`` for k = 0..K."""
        ...
