"""Whole-table versions of the closest-pair searches, beside which the streamed signal pass is checked.

They read the whole table at once (one Gram block after another over every row), with the same
tie rule as the pass (the first pair within its rounding noise of the smallest), so a streamed
pick, a sampled pick and a scorecard pick can be held to them.
"""

from __future__ import annotations

import math
from functools import partial

import torch
from posemb_cli.measures.neighbours import row_norms
from posemb_cli.measures.pairs import closest_in_sample, sample_stride
from posemb_cli.measures.signal_accumulators import neighbour_pair
from posemb_cli.measures.ties import FirstLow, distance_noise


def _compute(table: torch.Tensor) -> torch.dtype:
    return torch.float64 if table.dtype == torch.float64 else torch.float32


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


def _neighbour_pick(start: int, max_offset: int, noise: torch.Tensor, flat: int) -> tuple[int, int, float]:
    """(p, p + k, its noise) of the pair at ``flat`` of a (b, K) block of neighbour distances."""
    return *neighbour_pair(start, flat, max_offset), float(noise.reshape(-1)[flat])


def neighbour_min_distance(table: torch.Tensor, max_offset: int) -> dict:
    """Smallest distance between rows p and p + k over every p and k = 1..K (the likeliest close pairs).

    One matrix product per block of rows against the K rows after it gives the dot
    products; squared distances come from the norms; the first pair (p, then k) within
    its rounding noise of the smallest (``ties``) is then measured exactly in float64.
    """
    rows = table.shape[0]
    max_offset = min(max_offset, rows - 1)
    if max_offset < 1:
        return {"distance": math.inf, "pair": [0, 0], "noise": 0.0}
    compute = _compute(table)
    noise = distance_noise(table.dtype, compute, table.shape[1])
    squares = row_norms(table) ** 2  # (L,) float64
    block = max(2 * max_offset, (1 << 16) // max(table.shape[1], 1))  # small blocks: flops ~ L (b + K) D
    offsets = torch.arange(1, max_offset + 1, device=table.device)
    search: FirstLow[tuple[int, int, float]] = FirstLow()
    for start in range(0, rows - 1, block):
        stop = min(start + block, rows - 1)
        window_stop = min(stop + max_offset, rows)
        gram = (table[start:stop].to(compute) @ table[start + 1:window_stop].to(compute).T).to(torch.float64)
        local = torch.arange(stop - start, device=table.device)[:, None]
        column = local + offsets[None, :] - 1  # (b, K): window column of row p + k
        valid = column < gram.shape[1]
        dots = gram.gather(1, column.clamp(max=gram.shape[1] - 1))
        partner = (start + 1 + column).clamp(max=rows - 1)
        scale = squares[start:stop, None] + squares[partner]  # (b, K)
        dist2 = torch.where(valid, scale - 2 * dots, math.inf)
        spread = noise * scale
        search.feed(dist2, spread, partial(_neighbour_pick, start, max_offset, spread))
    i, j, within = search.pick((0, 1, 0.0))
    exact = float(torch.linalg.vector_norm(table[j].to(torch.float64) - table[i].to(torch.float64)))
    return {"distance": exact, "pair": [int(i), int(j)], "noise": within}
