"""What a trained position table learned: principal components over positions and their periods.

Notation: L rows (positions), D features, k components kept.

The table is centred (its mean row removed) and decomposed by SVD, so each
component is one curve over positions: ``scores[:, j] = U[:, j] * S[j]``.
``explained_variance[j]`` is ``S[j]**2 / sum(S**2)``; ``periods[j]`` is
``L / argmax_{f >= 1} |rfft(scores[:, j])|``, the rows per cycle of the
component's strongest non-constant frequency. Each component's sign is fixed
so that its largest entry is positive. Both picks take the first candidate within
rounding noise of the largest (``ties``; the noise of the table's dtype: 4 eps
sqrt(L) times the component's norm for a frequency, times its largest |entry| for
an entry), so two equally strong frequencies or a +/- pair of equal peaks give the
same pick on every CPU.

Up to a budget the SVD is exact (float64). Above it, a seeded randomized
range finder with two power iterations reads the table block by block in
float32 (float64 for a float64 table), so no float64 copy of the table is
ever made; the report names the method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TOP = 8
_EXACT_ELEMENTS = 1 << 22  # L * D up to which the SVD is exact
_BLOCK_ELEMENTS = 1 << 22
_TOTAL_ELEMENTS = 1 << 20
_OVERSAMPLE = 8
_POWER_ITERATIONS = 2
_SEED = 0
_TIE_ULPS = 4.0  # rounding noise: this many eps of the data, times sqrt(L) and the scale

__all__ = ["TOP", "Spectrum", "dominant_periods", "table_spectrum"]


@dataclass(frozen=True)
class Spectrum:
    """The top components of a centred table; ``scores`` stays out of JSON."""

    rows: int
    explained_variance: list[float]
    periods: list[float | None]
    frequency_bins: list[int | None]
    method: str
    scores: np.ndarray  # (L, k) float64

    def to_dict(self) -> dict:
        return {"rows": self.rows, "components": len(self.explained_variance),
                "explained_variance": self.explained_variance, "periods": self.periods,
                "frequency_bins": self.frequency_bins, "method": self.method}


def dominant_periods(scores: np.ndarray, eps: float = float(np.finfo(np.float64).eps)
                     ) -> tuple[list[float | None], list[int | None]]:
    """Rows per cycle of each column's strongest frequency f >= 1, and f; None for fewer than 2 rows.

    Args:
        scores: (L, k) float64 components.
        eps: the rounding unit of the data they come from: magnitudes within 4 eps sqrt(L) |scores[:, j]|
            of the strongest tie, and the lowest frequency among them is taken.
    """
    import torch

    from posemb_cli.measures.ties import first_high

    rows = scores.shape[0]
    if rows < 2:
        return [None] * scores.shape[1], [None] * scores.shape[1]
    magnitude = np.abs(np.fft.rfft(scores, axis=0))[1:]  # (L//2, k): bins 1..L//2
    noise = _TIE_ULPS * eps * math.sqrt(rows) * np.linalg.norm(scores, axis=0)  # (k,)
    bins: list[int | None] = [(first_high(torch.from_numpy(magnitude[:, j]), float(noise[j])) or 0) + 1
                              for j in range(scores.shape[1])]
    return [rows / b for b in bins if b is not None], bins


def _signs(scores: np.ndarray, eps: float) -> np.ndarray:
    """(k,) the sign of each column's first entry within 4 eps sqrt(L) of its largest |entry| (1 for zero)."""
    import torch

    from posemb_cli.measures.ties import first_high

    size = np.abs(scores)
    noise = _TIE_ULPS * eps * math.sqrt(scores.shape[0]) * size.max(axis=0, initial=0.0)  # (k,)
    signs = [np.sign(scores[first_high(torch.from_numpy(size[:, j]), float(noise[j])) or 0, j])
             for j in range(scores.shape[1])]
    return np.where(np.array(signs) == 0, 1.0, np.array(signs))


def _blocks(rows: int, dim: int, elements: int = _BLOCK_ELEMENTS):
    step = max(1, elements // max(dim, 1))
    return [(start, min(rows, start + step)) for start in range(0, rows, step)]


def _randomized(table, mean, top: int):
    """Top singular triplets of (table - mean) by a blockwise randomized range finder: (U S, S, total)."""
    import torch

    rows, dim = table.shape
    width = min(top + _OVERSAMPLE, rows, dim)
    blocks = _blocks(rows, dim)
    compute = torch.float64 if table.dtype == torch.float64 else torch.float32
    mean = mean.to(compute)

    # Every pass centres one block at a time into the same buffer (a fresh block each time was mapped and
    # faulted in anew, which took longer than the arithmetic): the same values as table[a:b] - mean.
    buffer = [torch.empty(blocks[0][1] - blocks[0][0], dim, dtype=compute, device=table.device)]  # (b, D)

    def centre(a: int, b: int) -> torch.Tensor:
        block = buffer[0][:b - a]
        block.copy_(table[a:b])
        return block.sub_(mean)

    def times(matrix):  # (X - mean) @ matrix: (L, r)
        out = torch.empty(rows, matrix.shape[1], dtype=compute, device=matrix.device)
        for a, b in blocks:
            torch.matmul(centre(a, b), matrix, out=out[a:b])
        return out

    def transposed_times(matrix):  # (X - mean)^T @ matrix: (D, r)
        out = torch.zeros(dim, matrix.shape[1], dtype=compute, device=matrix.device)
        for a, b in blocks:
            out += centre(a, b).T @ matrix[a:b]
        return out

    omega = torch.randn(dim, width, generator=torch.Generator().manual_seed(_SEED), dtype=torch.float64)
    q, _ = torch.linalg.qr(times(omega.to(device=mean.device, dtype=compute)))
    for _ in range(_POWER_ITERATIONS):
        z, _ = torch.linalg.qr(transposed_times(q))
        q, _ = torch.linalg.qr(times(z))
    small = transposed_times(q).T  # (r, D) = Q^T (X - mean)
    u_small, singular, _ = torch.linalg.svd(small.to(torch.float64), full_matrices=False)
    buffer.clear()  # freed before the float64 buffer below: one buffer at a time
    # The total variance in float64, in smaller blocks: x - mean promotes x exactly to float64 (into one
    # reused 8 MiB buffer), and the block's sum of squares is its norm squared.
    mean64 = mean.to(torch.float64)
    small_blocks = _blocks(rows, dim, _TOTAL_ELEMENTS)
    wide = torch.empty(small_blocks[0][1] - small_blocks[0][0], dim, dtype=torch.float64, device=table.device)
    total = 0.0
    for a, b in small_blocks:
        block = wide[:b - a]
        block.copy_(table[a:b])
        total += float(torch.linalg.vector_norm(block.sub_(mean64))) ** 2
    return (q.to(torch.float64) @ u_small)[:, :top] * singular[:top], singular[:top], total


def table_spectrum(table, top: int = TOP) -> Spectrum:
    """Principal components over the positions of an (L, D) table.

    Args:
        table: (L, D) torch tensor, any float dtype and device.
        top: how many components to keep (fewer when the table has fewer).

    Returns:
        The spectrum: explained-variance ratios, periods and frequency bins of the top components.
    """
    import torch

    rows, dim = table.shape
    mean = torch.zeros(dim, dtype=torch.float64, device=table.device)
    for a, b in _blocks(rows, dim):
        mean += table[a:b].sum(dim=0, dtype=torch.float64)  # summed in float64, no float64 copy
    mean /= rows
    top = max(1, min(top, rows, dim))
    if rows * dim <= _EXACT_ELEMENTS:
        centred = table.to(torch.float64) - mean  # (L, D)
        u, singular, _ = torch.linalg.svd(centred, full_matrices=False)
        scores, total, method = u[:, :top] * singular[:top], float((singular ** 2).sum()), "exact"
        singular = singular[:top]
    else:
        scores, singular, total = _randomized(table, mean, top)
        method = "randomized"
    eps = float(torch.finfo(table.dtype).eps) if table.dtype.is_floating_point else float(np.finfo(np.float64).eps)
    scores = scores.cpu().numpy()
    scores = scores * _signs(scores, eps)
    explained = [float(s) ** 2 / total if total > 0 else 0.0 for s in singular.tolist()]
    periods, bins = dominant_periods(scores, eps)
    return Spectrum(rows=rows, explained_variance=explained, periods=periods, frequency_bins=bins, method=method,
                    scores=scores)
