"""The downsampled similarity heatmap against the full L x L cosine matrix, and its terminal picture."""

import io

import numpy as np
import pytest
import torch
from posemb_cli.measures.heatmap import Heatmap, bin_edges, heatmap_of_rows, similarity_heatmap
from posemb_cli.render.pictures import RAMP, heatmap_picture, sparkline
from rich.console import Console

from tests.conftest import DEVICES
from tests.oracles import sinusoidal_table


def full_block_means(table: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Oracle: the full cosine matrix, then a plain average over each block."""
    unit = table / np.linalg.norm(table, axis=1, keepdims=True)
    cos = unit @ unit.T  # (L, L)
    n = len(edges) - 1
    return np.array([[cos[edges[i]:edges[i + 1], edges[j]:edges[j + 1]].mean() for j in range(n)] for i in range(n)])


@pytest.mark.parametrize("rows, dim, size", [(64, 16, 8), (100, 12, 7), (30, 6, 64), (257, 32, 16)])
def test_block_means_equal_the_full_matrix(rows, dim, size):
    table = np.random.default_rng(rows).normal(size=(rows, dim))
    heatmap = similarity_heatmap(torch.from_numpy(table).float(), size)
    assert heatmap.size == min(size, rows)
    assert heatmap.edges[0] == 0 and heatmap.edges[-1] == rows
    np.testing.assert_allclose(heatmap.cells, full_block_means(table, heatmap.edges), atol=1e-6)


def test_sinusoidal_heatmap_and_small_blocks():
    table = sinusoidal_table(128, 16)
    heatmap = similarity_heatmap(torch.from_numpy(table), 16)
    np.testing.assert_allclose(heatmap.cells, full_block_means(table, heatmap.edges), atol=1e-12)
    np.testing.assert_allclose(np.diag(similarity_heatmap(torch.from_numpy(table), 128).cells), 1.0, atol=1e-12)


def test_zero_rows_are_left_out_and_large_tables_stay_small(monkeypatch):
    table = torch.zeros(40, 4)
    table[20:] = torch.randn(20, 4)
    cells = similarity_heatmap(table, 4).cells
    assert np.isnan(cells[0, 0]) and np.isnan(cells[0, 3]) and np.isfinite(cells[3, 3])
    import posemb_cli.measures.heatmap as module

    monkeypatch.setattr(module, "_BLOCK_ELEMENTS", 64)  # many blocks: the same answer
    np.testing.assert_allclose(similarity_heatmap(table, 4).cells, cells, atol=1e-12, equal_nan=True)


def test_distance_profile_averages_diagonals():
    heatmap = similarity_heatmap(torch.from_numpy(sinusoidal_table(64, 8)), 8)
    distances, means = heatmap.distance_profile()
    assert distances.tolist() == [0, 8, 16, 24, 32, 40, 48, 56]
    want = [np.diagonal(heatmap.cells, k).mean() for k in range(8)]  # block diagonals, averaged
    np.testing.assert_allclose(means, want, rtol=1e-12)


def test_bin_edges_cover_every_position():
    assert bin_edges(10, 4).tolist() == [0, 2, 5, 8, 10]
    assert bin_edges(3, 8).tolist() == [0, 1, 2, 3]


def test_picture_renders_as_text():
    heatmap = Heatmap(cells=np.array([[1.0, 0.0, np.nan], [0.0, -1.0, 0.5], [0.5, 0.5, 1.0]]),
                      edges=np.array([0, 4, 8, 12]))
    console = Console(file=io.StringIO(), width=100, color_system=None)
    console.print(heatmap_picture(heatmap, "sinusoidal"))
    lines = console.file.getvalue().splitlines()
    assert "Similarity heatmap, sinusoidal" in lines[0] and "3×3 blocks of ~4 positions" in lines[0]
    assert lines[1] == " 0 @@==  "  # +1 densest, 0 the middle glyph, NaN blank
    assert lines[2] == " 4 ==  ##"  # -1 blank, 0.5 three quarters up the ramp
    assert lines[3] == " 8 ####@@"
    assert "-1" in lines[4] and "+1" in lines[4] and RAMP.strip()[0] * 2 in lines[4]


def test_sparkline():
    assert sparkline([-1.0, -0.5, 0.0, 1.0, float("nan")]) == " ▂▄█·"


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
def test_any_device_and_dtype(device, dtype):
    table = np.random.default_rng(3).normal(size=(50, 8))
    heatmap = similarity_heatmap(torch.from_numpy(table).to(device=device, dtype=dtype), 5)
    reference = full_block_means(torch.from_numpy(table).to(dtype).double().numpy(), heatmap.edges)
    np.testing.assert_allclose(heatmap.cells, reference, atol=1e-6)
    rows = torch.from_numpy(table).to(device=device, dtype=dtype)
    computed = heatmap_of_rows(lambda start, stop: rows[start:stop], 50, 8, 5)  # device found from the rows
    np.testing.assert_allclose(computed.cells, heatmap.cells, atol=1e-12)


def test_large_table_never_needs_an_l_by_l_matrix():
    table = torch.randn(200_000, 4)  # an L x L float64 matrix would be 320 GB
    heatmap = similarity_heatmap(table, 16)
    assert heatmap.cells.shape == (16, 16)
    assert np.all(np.abs(np.diag(heatmap.cells)) < 0.01)  # independent rows: block means near 0
