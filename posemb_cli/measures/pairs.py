"""Blockwise measures over a whole (L, F) position signal: tensors in, plain numbers out.

Notation: L rows (positions), F features, M sampled positions, b rows per block.
No L x L matrix is ever formed: pairwise distances run block by block against
the sampled rows, with float64 accumulators.
"""

from __future__ import annotations

import math
from functools import partial

import torch

from posemb_cli.measures.neighbours import neighbour_similarity, row_norms
from posemb_cli.measures.signal_accumulators import LargestAbs
from posemb_cli.measures.ties import FirstLow, distance_noise, first_high, value_noise

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


def _sample_pick(start: int, noise: torch.Tensor, flat: int) -> tuple[int, int, float]:
    """(i, j, its noise) of the pair at ``flat`` of a (b, M - start) block of the all-pairs search."""
    width = noise.shape[1]
    return start + flat // width, start + flat % width, float(noise.reshape(-1)[flat])


def closest_in_sample(sample: torch.Tensor, stride: int) -> dict:
    """The closest pair of rows already sampled (row i of ``sample`` is position i * stride), and its distance.

    Squared distances within their rounding noise of the smallest (``ties.distance_noise``) tie;
    the first pair (i, then j) among them is reported, so the pick is the same on every CPU.
    """
    count = sample.shape[0]
    device = sample.device
    noise = distance_noise(sample.dtype, _compute(sample), sample.shape[1])
    sample = sample.to(_compute(sample))  # (M, F)
    norms = row_norms(sample)  # (M,) float64
    squares = norms ** 2
    search: FirstLow[tuple[int, int, float]] = FirstLow()
    block = max(1, _GRAM_ELEMENTS // max(count, 1))
    for start in range(0, count - 1, block):
        stop = min(start + block, count - 1)
        gram = (sample[start:stop] @ sample[start:].T).to(torch.float64)  # (b, M - start)
        scale = squares[start:stop, None] + squares[None, start:]  # (b, M - start)
        dist2 = scale - 2 * gram
        rows_i = torch.arange(start, stop, device=device)[:, None]
        cols_j = torch.arange(start, count, device=device)[None, :]
        dist2 = torch.where(cols_j > rows_i, dist2, math.inf)
        spread = noise * scale
        search.feed(dist2, spread, partial(_sample_pick, start, spread))
    i, j, within = search.pick((0, min(1, count - 1), 0.0))
    exact = float(torch.linalg.vector_norm(sample[i].to(torch.float64) - sample[j].to(torch.float64)))
    return {"distance": exact, "pair": [int(i) * stride, int(j) * stride], "positions": count, "stride": stride,
            "pairs": count * (count - 1) // 2, "norm_mean": float(norms.mean()) if count else 0.0, "noise": within}


def largest_abs(table: torch.Tensor) -> dict:
    """Largest |x| overall (and the first row within rounding noise of it), over the first half, the norms' range."""
    found = LargestAbs(table.shape[0])
    found.feed(0, table.shape[0], table)
    return found.result()


def relative_fit_rows(max_offset: int) -> int:
    """The most leading rows ``relative_fit`` reads: R <= 2048 rows and the K after them."""
    return _FIT_ROWS + max(1, max_offset)


def relative_fit(table: torch.Tensor, max_offset: int) -> dict:
    """Worst relative residual of fitting PE(p + k) ~ M_k PE(p) by least squares, one matrix per offset.

    X is the first R rows (at most 2048) of the first F features (at most 256, and
    at most half of R so that the fit is not trivially exact); Y_k is X moved down
    by k rows. The residual is Y_k minus its projection on the column space of X,
    taken from one SVD of X (rank-aware), in float64 on the CPU. Offsets: up to 8
    evenly spread over 1..K; the worst residual is reported, at the first offset whose
    residual is within the rows' rounding noise of it (``ties``: 4 eps sqrt(F)).

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
    residuals = []
    for k in offsets:
        y = window[k:k + used]  # (R, F)
        target = float(torch.linalg.vector_norm(y))
        residuals.append(float(torch.linalg.vector_norm(y - basis @ (basis.T @ y))) / target if target else 0.0)
    found = torch.tensor(residuals, dtype=torch.float64).nan_to_num(nan=0.0)  # a NaN residual never counts
    # Residuals within the rows' rounding noise of the worst tie: the first offset among them is reported.
    at = first_high(found, value_noise(table.dtype) * math.sqrt(features)) or 0
    return {"residual": float(found.max()), "offset": offsets[at], "rows": used, "features": features}


def window_similarity(table: torch.Tensor) -> float:
    """Mean cos(row p, row p + 1) over a window of rows; NaN when undefined."""
    if table.shape[0] < 2:
        return math.nan
    return neighbour_similarity(table, 1)[0]["mean"]
