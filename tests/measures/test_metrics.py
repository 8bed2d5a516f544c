"""Neighbour similarity and norm statistics against plain NumPy loops."""

import math

import numpy as np
import pytest
import torch
from posemb_cli.measures.neighbours import neighbour_similarity, norm_stats

from tests.oracles import neighbour_cosines, sinusoidal_table


def assert_matches(result, expected, tol):
    assert [row["offset"] for row in result] == [row["offset"] for row in expected]
    for got, want in zip(result, expected):
        for key in ("mean", "min", "max"):
            assert got[key] == pytest.approx(want[key], abs=tol), (got, want, key)


def test_reference_figure_sinusoidal_d64():
    table = torch.from_numpy(sinusoidal_table(512, 64))
    result = neighbour_similarity(table, 8)
    assert result[0]["mean"] == pytest.approx(0.966, abs=5e-4)
    # For an even D every p gives the same cosine: sum_i cos(k w_i) / (D / 2).
    w = 1.0 / 10000 ** (2 * np.arange(32) / 64)
    for row in result:
        closed_form = np.cos(row["offset"] * w).mean()
        for key in ("mean", "min", "max"):
            assert row[key] == pytest.approx(closed_form, abs=1e-12)


@pytest.mark.parametrize("rows,dim,k,block", [(100, 16, 8, None), (100, 16, 8, 7), (37, 5, 36, 3), (2, 3, 1, None)])
def test_random_table_matches_loop(rows, dim, k, block):
    table = np.random.default_rng(1).normal(size=(rows, dim))
    result = neighbour_similarity(torch.from_numpy(table), k, block_rows=block)
    assert_matches(result, neighbour_cosines(table, k), 1e-12)


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-6), (torch.float16, 1e-6), (torch.bfloat16, 1e-6)])
def test_low_precision_tables_accumulate_in_float64(dtype, tol):
    table = torch.randn(300, 24).to(dtype)
    result = neighbour_similarity(table, 6)
    assert_matches(result, neighbour_cosines(table.double().numpy(), 6), tol)


def test_zero_rows_have_no_cosine():
    table = np.ones((5, 3))
    table[2] = 0.0
    result = neighbour_similarity(torch.from_numpy(table), 4)
    assert result[0]["mean"] == pytest.approx(1.0)  # pairs (0,1) and (3,4); pairs with row 2 left out
    assert result[3]["mean"] == pytest.approx(1.0)  # pair (0, 4)
    table[:] = 0.0
    assert math.isnan(neighbour_similarity(torch.from_numpy(table), 2)[0]["mean"])


def test_progress_reports_every_row():
    seen = []
    neighbour_similarity(torch.randn(1000, 8), 4, block_rows=64, progress=seen.append)
    assert sum(seen) == 1000


def test_norm_stats_against_numpy():
    table = np.random.default_rng(2).normal(size=(50, 7))
    stats = norm_stats(torch.from_numpy(table).float())
    norms = np.linalg.norm(table, axis=1)
    assert stats["rows"] == 50 and stats["dim"] == 7
    assert stats["norm_min"] == pytest.approx(norms.min(), rel=1e-6)
    assert stats["norm_mean"] == pytest.approx(norms.mean(), rel=1e-6)
    assert stats["norm_max"] == pytest.approx(norms.max(), rel=1e-6)


def test_progress_counts_a_last_lone_row():
    seen = []
    neighbour_similarity(torch.randn(65, 4), 2, block_rows=64, progress=seen.append)
    assert sum(seen) == 65
