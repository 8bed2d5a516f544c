"""A vision model's patch positions as a 2-D grid: similarity by row distance and by column distance.

Notation: S grid side, N = S * S patch positions, D features. Row p of the
table is the patch at grid row ``p // S``, column ``p % S`` (ViT's and CLIP's
raster order). For a distance d, the mean over every pair of patches d rows
apart in the same column (or d columns apart in the same row) of
cos(row a, row b), accumulated in float64.
"""

from __future__ import annotations

import math


def grid_side(rows: int) -> int | None:
    """S when ``rows`` is S * S with S >= 2, else None."""
    side = math.isqrt(rows)
    return side if side >= 2 and side * side == rows else None


def grid_similarity(table) -> dict | None:
    """Mean cosine by row distance and by column distance over the patch grid.

    Args:
        table: (N, D) tensor, the patch positions only (no class-token row), N = S * S.

    Returns:
        ``{"side": S, "by_row_distance": [{"distance": d, "mean": x}, ...],
        "by_column_distance": [...]}`` for d = 1..S-1, or None when N is not a square.
    """
    import torch

    side = grid_side(int(table.shape[0]))
    if side is None:
        return None
    rows = table.to(torch.float64)
    unit = rows / rows.norm(dim=1, keepdim=True)
    grid = unit.reshape(side, side, -1)  # (S, S, D): [grid row, grid column, feature]
    by_row, by_column = [], []
    for distance in range(1, side):
        down = (grid[distance:] * grid[:-distance]).sum(-1)  # (S - d, S)
        across = (grid[:, distance:] * grid[:, :-distance]).sum(-1)  # (S, S - d)
        by_row.append({"distance": distance, "mean": float(down.mean())})
        by_column.append({"distance": distance, "mean": float(across.mean())})
    return {"side": side, "by_row_distance": by_row, "by_column_distance": by_column}
