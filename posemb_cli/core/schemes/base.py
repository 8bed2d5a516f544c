"""Shared pieces of the schemes: the length check and the two kinds of reach (see ``protocols.py``)."""

from __future__ import annotations

import torch

from posemb_cli.core.schemes.bands import Band
from posemb_cli.errors import PosembError


def length_refusal(seq_len: int, max_ctx: int) -> str:
    """Why a table of ``max_ctx`` rows cannot serve ``seq_len`` positions, naming both numbers."""
    return f"sequence length {seq_len} exceeds max context {max_ctx}: position {max_ctx} has no row"


def check_length(seq_len: int, max_ctx: int) -> None:
    """Refuse a sequence longer than the table, naming both numbers."""
    if seq_len > max_ctx:
        raise PosembError(length_refusal(seq_len, max_ctx))


class AdditiveTable:
    """Signal and reach of a scheme whose position is an additive (L, D) table of L rows.

    The signal is the table's own rows; positions L and beyond have no row. ``stored`` is True
    where ``table()`` is a tensor held in memory (learned, a checkpoint's), False where it is
    computed from a formula on request (sinusoidal).
    """

    acts_on = "input"
    stored = False
    max_ctx: int

    def table(self) -> torch.Tensor:
        raise NotImplementedError

    def signal(self, start: int = 0, stop: int | None = None) -> torch.Tensor:
        """Rows start..stop-1 of the table: (stop - start, D)."""
        stop = self.max_ctx if stop is None else stop
        check_length(stop, self.max_ctx)
        return self.table()[start:stop]

    def serves(self, length: int) -> bool:
        return length <= self.max_ctx


class InAttention:
    """Reach of a scheme that adds nothing to the input: any length is served."""

    def serves(self, length: int) -> bool:
        return True


class ZeroInput(InAttention):
    """A scheme that acts inside attention (on scores, or on queries and keys): its additive part is zero
    at every length. Subclasses name the tensor whose device the zeros live on (``anchor``).
    """

    acts_on = "attention scores"
    max_ctx: int
    dim: int
    dtype: torch.dtype

    def anchor(self) -> torch.Tensor:
        raise NotImplementedError

    def forward(self, seq_len: int) -> torch.Tensor:
        """The additive part: zero, (T, D) as a broadcast view. Any length is served."""
        return torch.zeros((), dtype=self.dtype, device=self.anchor().device).expand(seq_len, self.dim)

    def table(self) -> torch.Tensor:
        return self.forward(self.max_ctx)  # (L, D) of zeros

    def bands(self) -> list[Band] | None:
        return None
