"""Blockwise measures over a whole (L, F) position signal: tensors in, plain numbers out.

Notation: L rows (positions), F features, M sampled positions, b rows per block.
No L x L matrix is ever formed: pairwise distances run block by block against
the sampled rows, with float64 accumulators.
"""

from __future__ import annotations

import math

import torch

from posemb_cli.measures.neighbours import neighbour_similarity, row_norms

_BLOCK_ELEMENTS = 1 << 22
_GRAM_ELEMENTS = 1 << 19  # (b, M) distances per block of the all-pairs search: ~4 MiB per float64 temporary
_FIT_ROWS = 2048
_FIT_FEATURES = 256
_FIT_OFFSETS = 8


def _compute(table: torch.Tensor) -> torch.dtype:
    return torch.float64 if table.dtype == torch.float64 else torch.float32


def sample_stride(rows: int, pair_budget: int) -> int:
    """The smallest stride whose every-``stride``-th positions of ``rows`` have at most ``pair_budget`` pairs."""
    stride = 1
    while (count := -(-rows // stride)) * (count - 1) // 2 > pair_budget:
        stride += 1
    return stride


def min_pair_distance(table: torch.Tensor, *, pair_budget: int) -> dict:
    """Smallest Euclidean distance between two different rows.

    Exact over all pairs while L (L - 1) / 2 <= ``pair_budget``; above it, over
    every ``stride``-th row, with the stride the smallest that fits the budget.

    Returns:
        ``{"distance", "pair": [i, j], "positions": M, "stride", "pairs", "norm_mean"}``.
    """
    stride = sample_stride(table.shape[0], pair_budget)
    index = torch.arange(0, table.shape[0], stride, device=table.device)
    return closest_in_sample(table if stride == 1 else table[index], stride)


def closest_in_sample(sample: torch.Tensor, stride: int) -> dict:
    """``min_pair_distance`` over rows already sampled: row i of ``sample`` is position i * stride."""
    count = sample.shape[0]
    device = sample.device
    sample = sample.to(_compute(sample))  # (M, F)
    norms = row_norms(sample)  # (M,) float64
    squares = norms ** 2
    best, pair = math.inf, (0, min(1, count - 1))
    block = max(1, _GRAM_ELEMENTS // max(count, 1))
    for start in range(0, count - 1, block):
        stop = min(start + block, count - 1)
        gram = (sample[start:stop] @ sample[start:].T).to(torch.float64)  # (b, M - start)
        dist2 = squares[start:stop, None] + squares[None, start:] - 2 * gram
        rows_i = torch.arange(start, stop, device=device)[:, None]
        cols_j = torch.arange(start, count, device=device)[None, :]
        dist2 = torch.where(cols_j > rows_i, dist2, math.inf)
        value, flat = dist2.min(), int(dist2.argmin())
        if float(value) < best:
            best, pair = float(value), (start + flat // dist2.shape[1], start + flat % dist2.shape[1])
    i, j = pair
    exact = float(torch.linalg.vector_norm(sample[i].to(torch.float64) - sample[j].to(torch.float64)))
    return {"distance": exact, "pair": [int(i) * stride, int(j) * stride], "positions": count, "stride": stride,
            "pairs": count * (count - 1) // 2, "norm_mean": float(norms.mean()) if count else 0.0}


def neighbour_min_distance(table: torch.Tensor, max_offset: int) -> dict:
    """Smallest distance between rows p and p + k over every p and k = 1..K (the likeliest close pairs).

    One matrix product per block of rows against the K rows after it gives the dot
    products; squared distances come from the norms; the best pair is then measured
    exactly in float64.
    """
    rows = table.shape[0]
    max_offset = min(max_offset, rows - 1)
    if max_offset < 1:
        return {"distance": math.inf, "pair": [0, 0]}
    compute = _compute(table)
    squares = row_norms(table) ** 2  # (L,) float64
    block = max(2 * max_offset, (1 << 16) // max(table.shape[1], 1))  # small blocks: flops ~ L (b + K) D
    offsets = torch.arange(1, max_offset + 1, device=table.device)
    best, pair = math.inf, (0, 1)
    for start in range(0, rows - 1, block):
        stop = min(start + block, rows - 1)
        window_stop = min(stop + max_offset, rows)
        gram = (table[start:stop].to(compute) @ table[start + 1:window_stop].to(compute).T).to(torch.float64)
        local = torch.arange(stop - start, device=table.device)[:, None]
        column = local + offsets[None, :] - 1  # (b, K): window column of row p + k
        valid = column < gram.shape[1]
        dots = gram.gather(1, column.clamp(max=gram.shape[1] - 1))
        partner = (start + 1 + column).clamp(max=rows - 1)
        dist2 = torch.where(valid, squares[start:stop, None] + squares[partner] - 2 * dots, math.inf)
        value, flat = float(dist2.min()), int(dist2.argmin())
        if value < best:
            i = start + flat // max_offset
            best, pair = value, (i, i + 1 + flat % max_offset)
    i, j = pair
    exact = float(torch.linalg.vector_norm(table[j].to(torch.float64) - table[i].to(torch.float64)))
    return {"distance": exact, "pair": [int(i), int(j)]}


def largest_abs(table: torch.Tensor) -> dict:
    """Largest |x| overall (and where), over the first half of the rows, and the row norms' range."""
    rows = table.shape[0]
    half = max(1, (rows + 1) // 2)
    step = max(1, _BLOCK_ELEMENTS // max(table.shape[1], 1))
    best, at, first = 0.0, 0, 0.0
    low, high = math.inf, 0.0
    for start in range(0, rows, step):
        block = table[start:start + step]
        peaks = block.abs().amax(dim=1)  # (b,) exact in the table's own dtype
        norms = torch.linalg.vector_norm(block.to(_compute(table)), dim=1)
        low, high = min(low, float(norms.min())), max(high, float(norms.max()))
        value, where = float(peaks.max()), int(peaks.argmax())
        if value > best:
            best, at = value, start + where
        if start < half:
            first = max(first, float(peaks[: half - start].max()))
    return {"max_abs": best, "at": at, "first_half": first, "norm_min": low if rows else 0.0, "norm_max": high}


def relative_fit_rows(max_offset: int) -> int:
    """The most leading rows ``relative_fit`` reads: R <= 2048 rows and the K after them."""
    return _FIT_ROWS + max(1, max_offset)


def relative_fit(table: torch.Tensor, max_offset: int) -> dict:
    """Worst relative residual of fitting PE(p + k) ~ M_k PE(p) by least squares, one matrix per offset.

    X is the first R rows (at most 2048) of the first F features (at most 256, and
    at most half of R so that the fit is not trivially exact); Y_k is X moved down
    by k rows. The residual is Y_k minus its projection on the column space of X,
    taken from one SVD of X (rank-aware), in float64 on the CPU. Offsets: up to 8
    evenly spread over 1..K.

    Returns:
        ``{"residual": worst |Y - X M| / |Y|, "offset": k, "rows": R, "features": F}``.
    """
    rows, width = table.shape
    max_offset = max(1, min(max_offset, rows - 1))
    used = min(rows - max_offset, _FIT_ROWS)
    features = min(width, _FIT_FEATURES, max(1, used // 2))
    if features > 1 and features % 2:
        features -= 1  # keep (sin, cos) pairs whole
    count = min(_FIT_OFFSETS, max_offset)
    offsets = sorted({round(1 + i * (max_offset - 1) / max(count - 1, 1)) for i in range(count)})
    window = table[:used + max_offset, :features].to(device="cpu", dtype=torch.float64)  # (R + K, F)
    basis, singular, _ = torch.linalg.svd(window[:used], full_matrices=False)  # (R, F), (F,)
    if singular.numel():  # drop directions the rows do not span (a rank-deficient table)
        basis = basis[:, singular > singular.max() * max(used, features) * torch.finfo(torch.float64).eps]
    worst, worst_offset = 0.0, offsets[0]
    for k in offsets:
        y = window[k:k + used]  # (R, F)
        target = float(torch.linalg.vector_norm(y))
        if target == 0.0:
            continue
        residual = float(torch.linalg.vector_norm(y - basis @ (basis.T @ y))) / target
        if residual > worst:
            worst, worst_offset = residual, k
    return {"residual": worst, "offset": worst_offset, "rows": used, "features": features}


def window_similarity(table: torch.Tensor) -> float:
    """Mean cos(row p, row p + 1) over a window of rows; NaN when undefined."""
    if table.shape[0] < 2:
        return math.nan
    return neighbour_similarity(table, 1)[0]["mean"]
