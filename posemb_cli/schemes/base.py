"""What every positional scheme offers the composer and the analysis.

A scheme is an ``nn.Module`` whose ``forward(seq_len)`` returns the additive
positional part for positions 0..T-1, shape (T, D). It also exposes:

- ``max_ctx`` (L) and ``dim`` (D);
- ``table()``: the whole (L, D) table that the metrics read;
- ``bands()``: per feature pair, the frequency and wavelength, or None.
"""

from __future__ import annotations

from ..config import PosembError


def check_length(seq_len: int, max_ctx: int) -> None:
    """Refuse a sequence longer than the table, naming both numbers."""
    if seq_len > max_ctx:
        raise PosembError(f"sequence length {seq_len} exceeds max context {max_ctx}: position {max_ctx} has no row")
