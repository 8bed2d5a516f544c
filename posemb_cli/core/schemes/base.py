"""What every positional scheme offers the composer and the analysis.

A scheme is an ``nn.Module`` whose ``forward(seq_len)`` returns the additive
positional part for positions 0..T-1, shape (T, D). It also exposes:

- ``max_ctx`` (L) and ``dim`` (D);
- ``table()``: the whole (L, D) table that the metrics read;
- ``bands()``: per feature pair, the frequency and wavelength, or None.

Schemes that act inside attention (rope, alibi, none) return a zero additive
part and may also offer, all optional:

- ``acts_on``: a short phrase saying where the position goes (default: the input);
- ``fingerprint(start=0, stop=None)``: the (rows, F) signal that position p
  carries, which the metrics and the scorecard read instead of ``table()``;
- ``pair_scores(q, k, m, n)``: the attention score of query q at positions m
  against key k at positions n, (P,) or (P, H);
- ``rotate(x, positions)`` (rope) or ``bias(query_positions, key_positions)`` (alibi).
"""

from __future__ import annotations

from posemb_cli.errors import PosembError


def check_length(seq_len: int, max_ctx: int) -> None:
    """Refuse a sequence longer than the table, naming both numbers."""
    if seq_len > max_ctx:
        raise PosembError(f"sequence length {seq_len} exceeds max context {max_ctx}: position {max_ctx} has no row")
