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

Either way the table is read once. Up to a budget the SVD is exact (float64, from
one float64 copy). Above it, a seeded randomized range finder without power
iterations (a power iteration would read the table again) takes one read, block
by block in float32 (float64 for a float64 table), with no float64 copy of the
table: its shares are approximate, each at most the true share and at most
``shortfall`` below it (a bound proven from the sketch itself, reported beside
them). The report names the method.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TOP = 8
_EXACT_ELEMENTS = 1 << 22  # L * D up to which the SVD is exact
_BLOCK_ELEMENTS = 1 << 22
_OVERSAMPLE = 56  # r = k + 56 = 64 columns of the sketch
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
    shortfall: float = 0.0  # each true share is at most this much above its explained_variance (0: exact)

    def to_dict(self) -> dict:
        return {"rows": self.rows, "components": len(self.explained_variance),
                "explained_variance": self.explained_variance, "periods": self.periods,
                "frequency_bins": self.frequency_bins, "method": self.method, "reads": 1,
                "approximate": self.method != "exact", "shortfall_bound": self.shortfall}


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


def _one_read(table, top: int):
    """Top singular triplets of the centred table from one read, block by block: (U S, S, total, shortfall).

    While reading, each block is centred on the first block's mean m (in the table's compute dtype, into one
    reused buffer) and gives its rows of Y = X' Omega and its share of W = X'^T Y = X'^T X' Omega, the column
    sums and the squares of X' = X - m. The true mean is m + d (d the mean of X'), so Y - 1 (d^T Omega) and
    W - L d (d^T Omega) are the centred table's (the small d: no cancellation). With Y = Q R, the centred
    table's projection B = Q^T X_c is R^-T W^T (taken through Y's SVD, rank-aware): the singular values of B
    are the Ritz values of a randomized range finder without power iterations. Each is at most the true one,
    and a true share exceeds its Ritz share by at most the share of the centred table outside the range of Y
    (Weyl: the centred Gram is B^T B plus a PSD rest of trace total - |B|^2): the ``shortfall``.
    """
    import torch

    from posemb_cli.measures.neighbours import row_norms

    rows, dim = table.shape
    width = min(top + _OVERSAMPLE, rows, dim)  # r
    blocks = _blocks(rows, dim)
    compute = torch.float64 if table.dtype == torch.float64 else torch.float32
    omega64 = torch.randn(dim, width, generator=torch.Generator().manual_seed(_SEED), dtype=torch.float64)
    omega = omega64.to(device=table.device, dtype=compute)
    omega64 = omega64.to(table.device)
    buffer = torch.empty(blocks[0][1] - blocks[0][0], dim, dtype=compute, device=table.device)  # (b, D), reused
    sketch = torch.empty(rows, width, dtype=torch.float64, device=table.device)  # Y (L, r)
    gram = torch.zeros(dim, width + 1, dtype=torch.float64, device=table.device)  # [W, column sums] (D, r + 1)
    part = torch.ones(buffer.shape[0], width + 1, dtype=compute, device=table.device)  # [Y_b, 1]: last column 1
    squares = 0.0
    first = buffer[:blocks[0][1] - blocks[0][0]].copy_(table[blocks[0][0]:blocks[0][1]])
    anchor = first.sum(dim=0, dtype=torch.float64) / first.shape[0]  # (D,) m: the first block's mean
    anchor_c = anchor.to(compute)
    for index, (a, b) in enumerate(blocks):
        block = first if index == 0 else buffer[:b - a].copy_(table[a:b])  # each row read once
        block.sub_(anchor_c)  # X'_b = X_b - m
        torch.matmul(block, omega, out=part[:b - a, :width])  # (b, r)
        sketch[a:b] = part[:b - a, :width]
        gram += (block.T @ part[:b - a]).to(torch.float64)  # X'_b^T Y_b and the column sums, one product
        squares += float((row_norms(block) ** 2).sum())  # float64 norms of the float32 rows, in small blocks
    gram, shift = gram[:, :width], gram[:, width] / rows  # W and d (D,)
    projected = shift @ omega64  # (r,) d^T Omega
    sketch -= projected[None, :]
    gram -= rows * shift[:, None] * projected[None, :]
    total = max(squares - rows * float(shift @ shift), 0.0)
    del first, block, buffer, part  # the read's buffers, freed before the SVD
    left, values, right = _tall_svd(sketch)  # Y = U_y S_y V_y^T; U_y overwrites Y
    # Directions of Y below sqrt(eps) of its largest would divide W's rounding by a tiny value: left out (their
    # variance, if any, stays in the shortfall).
    kept = values > values.max() * torch.finfo(compute).eps ** 0.5 if values.numel() else values > 0
    values, right = values[kept], right[kept]
    small = (right @ gram.T) / values[:, None]  # (r', D) = Q^T X_c with Q = U_y
    u_small, singular, _ = torch.linalg.svd(small, full_matrices=False)
    captured = float((singular ** 2).sum())
    shortfall = min(1.0, max(0.0, 1.0 - captured / total)) if total > 0 else 0.0
    return left(kept, u_small[:, :top]) * singular[:top], singular[:top], total, shortfall


def _tall_svd(tall):
    """The thin SVD of a tall (L, r) float64 matrix with no second (L, r) array: a QR of each block of rows,
    written over its rows, then one QR of the stacked R factors and the SVD of its R (TSQR). Returns
    (left, S, V^T), where ``left(kept, M)`` is U[:, kept] @ M, formed block by block (M: (r', c))."""
    import torch

    rows, width = tall.shape
    step = max(width, _BLOCK_ELEMENTS // max(width, 1) // 16)  # 4,096 rows of 64: 2 MiB a block
    starts = list(range(0, rows, step))
    factors = []
    for a in starts:
        q, r = torch.linalg.qr(tall[a:a + step])
        tall[a:a + q.shape[0], :q.shape[1]] = q  # Q_b has min(b, r) columns
        tall[a:a + q.shape[0], q.shape[1]:] = 0
        factors.append(torch.nn.functional.pad(r, (0, 0, 0, width - r.shape[0])))  # (r, r) each
    outer, top = torch.linalg.qr(torch.cat(factors))  # (n r, r), (r, r)
    u_top, values, right = torch.linalg.svd(top)

    def left(kept, matrix):
        inner = u_top[:, kept] @ matrix  # (r, c)
        return torch.cat([tall[a:a + step] @ (outer[i * width:(i + 1) * width] @ inner)
                          for i, a in enumerate(starts)])

    return left, values, right


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
    top = max(1, min(top, rows, dim))
    if rows * dim <= _EXACT_ELEMENTS:  # one read: the float64 copy, centred in place
        centred = table.to(torch.float64)  # (L, D)
        mean = torch.zeros(dim, dtype=torch.float64, device=table.device)
        for a, b in _blocks(rows, dim):
            mean += centred[a:b].sum(dim=0)  # the float64 sums of the table's values, block by block
        centred -= mean / rows
        u, singular, _ = torch.linalg.svd(centred, full_matrices=False)
        scores, total, method = u[:, :top] * singular[:top], float((singular ** 2).sum()), "exact"
        singular, shortfall = singular[:top], 0.0
    else:
        scores, singular, total, shortfall = _one_read(table, top)
        method = "randomized"
    eps = float(torch.finfo(table.dtype).eps) if table.dtype.is_floating_point else float(np.finfo(np.float64).eps)
    scores = scores.cpu().numpy()
    scores = scores * _signs(scores, eps)
    explained = [float(s) ** 2 / total if total > 0 else 0.0 for s in singular.tolist()]
    periods, bins = dominant_periods(scores, eps)
    return Spectrum(rows=rows, explained_variance=explained, periods=periods, frequency_bins=bins, method=method,
                    scores=scores, shortfall=shortfall)
