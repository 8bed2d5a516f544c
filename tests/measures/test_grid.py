"""Patch-grid similarity against a plain loop over every pair of patches."""

import numpy as np
import pytest
import torch
from posemb_cli.measures.grid import grid_side, grid_similarity


def loop_oracle(table: np.ndarray, side: int) -> tuple[list[float], list[float]]:
    """Mean cosine of patches d rows apart (same column) and d columns apart (same row), pair by pair."""
    def cos(a, b):
        return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))

    by_row, by_column = [], []
    for d in range(1, side):
        down, across = [], []
        for r in range(side):
            for c in range(side):
                if r + d < side:
                    down.append(cos(table[r * side + c], table[(r + d) * side + c]))
                if c + d < side:
                    across.append(cos(table[r * side + c], table[r * side + c + d]))
        by_row.append(sum(down) / len(down))
        by_column.append(sum(across) / len(across))
    return by_row, by_column


@pytest.mark.parametrize("side, dim", [(2, 3), (4, 8), (5, 16)])
def test_grid_matches_the_loop(side, dim):
    table = np.random.default_rng(side).normal(size=(side * side, dim)).astype(np.float32)
    table[:, 0] += np.arange(side * side) % side  # columns alike: a real structure to find
    got = grid_similarity(torch.from_numpy(table))
    by_row, by_column = loop_oracle(table.astype(np.float64), side)
    assert got["side"] == side
    assert [item["distance"] for item in got["by_row_distance"]] == list(range(1, side))
    assert [item["mean"] for item in got["by_row_distance"]] == pytest.approx(by_row, abs=1e-12)
    assert [item["mean"] for item in got["by_column_distance"]] == pytest.approx(by_column, abs=1e-12)


def test_only_squares_are_grids():
    assert [grid_side(n) for n in (1, 4, 15, 16, 17, 576)] == [None, 2, None, 4, None, 24]
    assert grid_similarity(torch.ones(15, 4)) is None
