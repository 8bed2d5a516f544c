"""Is the attention score a function of m - n alone? Measured, for any scheme.

Notation: L max context, D width, A anchor positions, O signed offsets, S score series (heads).

For query q at position m and key k at position n the scheme gives a score:
``(q + PE(m)) . (k + PE(n))`` for an additive table, ``(R_m q) . (R_n k)`` for
RoPE, ``q . k + bias(m - n)`` per head for ALiBi, ``q . k`` for NoPE. Over A
anchors n and signed offsets d (m = n + d) the score at each offset is compared
with its mean over anchors, f(d); the largest gap is the deviation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from posemb_cli.core.dtypes import rounding_level
from posemb_cli.core.schemes.protocols import AttentionScheme, PositionScheme

_ANCHORS = 32
_FAR_OFFSETS = 8


@dataclass(frozen=True)
class RelativeDeviation:
    """How far the score strays from a function of m - n.

    Attributes:
        deviation: largest |score(m, n) - f(m - n)| over the grid.
        scale: largest |score| (what the deviation is relative to).
        spread: largest f(d) - smallest f(d): zero when the score ignores the offset.
        pairs: (m, n) pairs measured.
        offsets: the signed offsets d = m - n of the grid.
        rounding: the rounding level of the deviation relative to ``scale`` (``core.dtypes.rounding_level`` of the
            probes' dtype): a deviation at or below ``rounding * scale`` is the arithmetic's rounding.
    """

    deviation: float
    scale: float
    spread: float
    pairs: int
    offsets: tuple[int, ...]
    rounding: float = 0.0

    @property
    def rounding_bound(self) -> float:
        """The deviation below which it is rounding, in score units: ``rounding * scale``."""
        return self.rounding * self.scale

    def to_dict(self) -> dict:
        """The JSON keys of a scheme object: ``relative_deviation``, ``relative_scale`` and
        ``relative_rounding_level`` (relative to the scale)."""
        return {"relative_deviation": self.deviation, "relative_scale": self.scale,
                "relative_rounding_level": self.rounding}


def offset_grid(rows: int, max_offset: int) -> tuple[list[int], list[int]]:
    """Anchor positions and non-negative offsets: 0..K, then a log-spaced few up to L/2.

    Every anchor plus every offset stays below ``rows``.
    """
    top = max(max_offset, rows // 2)
    far = np.unique(np.round(np.geomspace(max(max_offset, 1), max(top, 1), _FAR_OFFSETS)).astype(int))
    offsets = sorted(set(range(max_offset + 1)) | {int(d) for d in far if d < rows})
    span = rows - 1 - offsets[-1]
    anchors = np.unique(np.round(np.linspace(0, max(span, 0), _ANCHORS)).astype(int)).tolist()
    return anchors, offsets


class RowsAt:
    """Rows of an additive scheme's signal at a few positions, each read once with ``signal(p, p + 1)``.

    No (L, D) table is built: a scheme computed from a formula gives just these rows.
    """

    def __init__(self, scheme: PositionScheme, positions: list[int]) -> None:
        wanted = sorted(set(positions))
        self.index = {position: i for i, position in enumerate(wanted)}
        self.rows = torch.cat([scheme.signal(p, p + 1) for p in wanted])  # (U, D)

    def __call__(self, positions: torch.Tensor) -> torch.Tensor:
        where = torch.tensor([self.index[int(p)] for p in positions.tolist()], device=self.rows.device)
        return self.rows[where].to(torch.float64)  # (P, D)


def _additive_scores(rows_at: RowsAt, q, k, m, n) -> torch.Tensor:
    rows_m = rows_at(m)  # (P, D)
    rows_n = rows_at(n)
    return ((q.to(torch.float64) + rows_m) * (k.to(torch.float64) + rows_n)).sum(-1)


def pair_scores(scheme: PositionScheme, q: torch.Tensor, k: torch.Tensor, m: torch.Tensor,
                n: torch.Tensor, *, rows_at: RowsAt | None = None) -> torch.Tensor:
    """The score of q at each m against k at each n: (P, S) float64, S = 1 unless per head.

    ``rows_at`` holds the rows of an additive scheme at every position in m and n (read here otherwise).
    """
    if isinstance(scheme, AttentionScheme):
        scores = scheme.pair_scores(q, k, m, n)
    else:
        rows_at = rows_at or RowsAt(scheme, m.tolist() + n.tolist())
        scores = _additive_scores(rows_at, q, k, m, n)
    scores = scores.to(torch.float64)
    return scores[:, None] if scores.dim() == 1 else scores


def relative_deviation(scheme: PositionScheme, q: torch.Tensor, k: torch.Tensor, *, max_offset: int
                       ) -> RelativeDeviation:
    """Largest |score(m, n) - f(m - n)| over the grid, with f the mean score at each offset.

    Args:
        scheme: a positional scheme (its ``signal`` rows, or ``pair_scores``).
        q, k: (D,) query and key vectors, on the scheme's device.
        max_offset: K; offsets 0..K and a few far ones, both signs.

    Returns:
        ``{"deviation": x, "scale": largest |score|, "spread": largest f(d) - smallest f(d),
        "pairs": P, "offsets": [signed offsets]}``.
    """
    rows = int(scheme.max_ctx)
    anchors, offsets = offset_grid(rows, max_offset)
    signed = sorted({d for d in offsets} | {-d for d in offsets})
    device = q.device
    anchor = torch.tensor(anchors, device=device)
    rows_at = None
    if not isinstance(scheme, AttentionScheme):  # the rows at every anchor and anchor + |d|, read once
        rows_at = RowsAt(scheme, [a + d for a in anchors for d in offsets])
    columns = []
    for d in signed:  # d = m - n; the later of the two sits d (or -d) after the anchor
        later = anchor + abs(d)
        m, n = (later, anchor) if d >= 0 else (anchor, later)
        columns.append(pair_scores(scheme, q, k, m, n, rows_at=rows_at))  # (A, S)
    scores = torch.stack(columns, dim=1)  # (A, O, S)
    f = scores.mean(dim=0, keepdim=True)  # (1, O, S)
    deviation = (scores - f).abs().max()
    spread = (f.amax(dim=1) - f.amin(dim=1)).max()
    return RelativeDeviation(deviation=float(deviation), scale=float(scores.abs().max()), spread=float(spread),
                             pairs=int(scores.shape[0] * scores.shape[1]), offsets=tuple(signed),
                             rounding=rounding_level(q.dtype))


def probe_vectors(dim: int, std: float, *, seed: int, device=None,
                  dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """Two seeded (D,) vectors drawn like token rows, N(0, std^2) (std 1/sqrt(D) when std is 0).

    The draw is float64 on the CPU, so one seed gives the same pair everywhere, then cast to ``dtype``.
    """
    generator = torch.Generator().manual_seed(seed)
    std = std if std > 0 else dim ** -0.5
    pair = torch.randn(2, dim, generator=generator, dtype=torch.float64) * std
    pair = pair.to(device=device, dtype=dtype)
    return pair[0], pair[1]
