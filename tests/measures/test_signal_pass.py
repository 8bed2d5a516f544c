"""The one-pass measures against plain NumPy loops over a materialised table, and the old whole-table functions.

Small blocks force many blocks (and sub-blocks ending inside a block) so that the
streaming paths, not a single block, are what is checked.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from posemb_cli.core.schemes.alibi import AlibiPositionalBias
from posemb_cli.core.schemes.learned import LearnedPositionalEmbedding
from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.core.schemes.table import TablePositionalEmbedding
from posemb_cli.core.settings import RopeScaling
from posemb_cli.measures.neighbours import neighbour_similarity
from posemb_cli.measures.pairs import largest_abs
from posemb_cli.measures.signal_pass import measure_signal

from tests.pair_oracles import min_pair_distance, neighbour_min_distance


def _schemes():
    generator = torch.Generator().manual_seed(4)
    return {
        "learned": LearnedPositionalEmbedding(300, 24, generator=generator),
        "sinusoidal": SinusoidalPositionalEmbedding(300, 24),
        "rope": RotaryPositionalEmbedding(300, 16, 8, generator=torch.Generator().manual_seed(5)),
        "rope-half-yarn": RotaryPositionalEmbedding(
            300, 16, 8, layout="half", generator=torch.Generator().manual_seed(6),
            scaling=RopeScaling(kind="yarn", factor=4.0, original_ctx=75)),
        "alibi": AlibiPositionalBias(300, 16, 4),
        "float64-table": TablePositionalEmbedding(torch.randn(300, 12, generator=generator, dtype=torch.float64)),
    }


def _oracle(rows: np.ndarray, max_offset: int, pair_budget: int) -> dict:
    """Every figure of the pass from plain loops over the (L, F) float64 rows."""
    length = rows.shape[0]
    norms = np.sqrt((rows ** 2).sum(axis=1))
    neighbours = []
    for k in range(1, max_offset + 1):
        cos = [rows[p] @ rows[p + k] / (norms[p] * norms[p + k]) for p in range(length - k)
               if norms[p] * norms[p + k] > 0]  # a zero row has no direction: left out
        neighbours.append((np.mean(cos), np.min(cos), np.max(cos)))
    peaks = np.abs(rows).max(axis=1)
    stride = 1
    while (count := -(-length // stride)) * (count - 1) // 2 > pair_budget:
        stride += 1
    sample = rows[::stride]
    closest = min(np.linalg.norm(sample[i] - sample[j]) for i in range(len(sample)) for j in range(i + 1, len(sample)))
    near = min(np.linalg.norm(rows[p + k] - rows[p]) for k in range(1, max_offset + 1) for p in range(length - k))
    return {"neighbours": neighbours, "norms": (norms.min(), norms.mean(), norms.max()), "max_abs": peaks.max(),
            "first_half": peaks[:(length + 1) // 2].max(), "closest": closest, "near": near, "stride": stride}


@pytest.mark.parametrize("name", list(_schemes()))
@pytest.mark.parametrize("max_offset", [1, 5, 8])
def test_one_pass_matches_plain_loops(name, max_offset):
    scheme = _schemes()[name]
    rows = scheme.signal(0, scheme.max_ctx).to(torch.float64).numpy()
    found = measure_signal(scheme, max_offset=max_offset, pair_budget=2000, block_rows=16,
                           block_bytes=48 * rows.shape[1] * 4)
    expected = _oracle(rows, max_offset, 2000)
    tolerance = 1e-12 if rows.dtype == np.float64 and name == "float64-table" else 2e-6
    for got, (mean, low, high) in zip(found.neighbours, expected["neighbours"], strict=True):
        assert got["mean"] == pytest.approx(mean, rel=0, abs=tolerance)
        assert got["min"] == pytest.approx(low, rel=0, abs=tolerance)
        assert got["max"] == pytest.approx(high, rel=0, abs=tolerance)
    low, mean, high = expected["norms"]
    assert (found.norms["norm_min"], found.norms["norm_mean"], found.norms["norm_max"]) == pytest.approx(
        (low, mean, high), rel=1e-12)
    assert found.bounds["max_abs"] == pytest.approx(expected["max_abs"], rel=1e-12)
    assert found.bounds["first_half"] == pytest.approx(expected["first_half"], rel=1e-12)
    assert found.closest["stride"] == expected["stride"] > 1  # 300 rows exceed a budget of 2000 pairs
    assert found.closest["distance"] == pytest.approx(expected["closest"], rel=1e-6)  # float32 near-ties
    assert found.near["distance"] == pytest.approx(expected["near"], rel=1e-6, abs=1e-9)
    # The reported pairs, measured here: sampled positions for the closest, at most K apart for the nearest
    # (near-ties make the argmin itself ambiguous in float32, so its distance is what is checked).
    i, j = found.closest["pair"]
    assert i < j and i % expected["stride"] == 0 and j % expected["stride"] == 0
    assert np.linalg.norm(rows[j] - rows[i]) == pytest.approx(expected["closest"], rel=1e-6)
    i, j = found.near["pair"]
    assert 1 <= j - i <= max_offset
    assert np.linalg.norm(rows[j] - rows[i]) == pytest.approx(expected["near"], rel=1e-6, abs=1e-9)
    assert found.same and found.diff == 0.0
    # A learned table's rebuild is drawn in full, so compared in full; a signal's, on at most 16 blocks.
    assert found.compared == (found.blocks if found.drawn else min(found.blocks, 16))
    assert found.values == rows.size if found.compared == found.blocks else 0 < found.values < rows.size


@pytest.mark.parametrize("name", list(_schemes()))
def test_one_pass_equals_the_whole_table_functions(name):
    scheme = _schemes()[name]
    table = scheme.signal()
    found = measure_signal(scheme, max_offset=6, pair_budget=3000, block_rows=32, block_bytes=1)
    measured = [{key: value for key, value in entry.items() if key != "exact"} for entry in found.neighbours]
    assert measured == neighbour_similarity(table, 6, block_rows=32)
    assert found.closest == min_pair_distance(table, pair_budget=3000)
    assert found.near == neighbour_min_distance(table, 6)
    assert found.bounds == largest_abs(table)


def test_a_rebuild_that_differs_is_reported():
    first = SinusoidalPositionalEmbedding(200, 8)
    other = SinusoidalPositionalEmbedding(200, 8, base=10001.0)
    found = measure_signal(first, max_offset=2, pair_budget=100, second=other.signal, how="rebuilt",
                           block_rows=16, block_bytes=1)
    expected = np.abs(first.table().double().numpy() - other.table().double().numpy()).max()
    assert not found.same
    assert found.diff == pytest.approx(expected, rel=1e-12) and found.diff > 0


def test_sixteen_spread_blocks_are_compared_with_the_rebuild():
    """The determinism check reads 16 of the pass's blocks again: i * (n - 1) // 15, the first and the last."""
    scheme = RotaryPositionalEmbedding(4096, 8, generator=torch.Generator().manual_seed(1))
    again = RotaryPositionalEmbedding(4096, 8, generator=torch.Generator().manual_seed(1))
    asked = []

    def second(start, stop):
        asked.append((start, stop))
        return again.signal(start, stop)

    found = measure_signal(scheme, max_offset=2, pair_budget=100, second=second, how="rebuilt",
                           block_rows=64, block_bytes=64 * 64 * 4)
    blocks = [(start, min(start + 64, 4096)) for start in range(0, 4096, 64)]  # 64 blocks of 64 rows
    assert asked == [blocks[i * 63 // 15] for i in range(16)]
    assert asked[0] == (0, 64) and asked[-1] == (4032, 4096)
    assert found.same and (found.compared, found.blocks) == (16, 64) and found.values == 16 * 64 * 64


def test_nan_rows_keep_the_first_pair():
    table = torch.full((40, 4), math.nan)
    found = measure_signal(TablePositionalEmbedding(table), max_offset=2, pair_budget=100)
    assert found.near["pair"] == [0, 1]


def _heatmap_loop(table: np.ndarray, cells: int) -> np.ndarray:
    """Plain oracle: the mean of cos(row p, row q) over every p in bin i and q in bin j."""
    rows = table.shape[0]
    edges = np.linspace(0, rows, cells + 1).round().astype(int)
    units = table / np.linalg.norm(table, axis=1, keepdims=True)
    cosine = units @ units.T
    return np.array([[cosine[edges[i]:edges[i + 1], edges[j]:edges[j + 1]].mean() for j in range(cells)]
                     for i in range(cells)])


@pytest.mark.parametrize("name", ["learned", "sinusoidal", "rope"])
def test_heatmaps_come_from_the_same_pass(name):
    scheme = _schemes()[name]
    measured = measure_signal(scheme, max_offset=4, pair_budget=10_000, block_rows=16, block_bytes=16 * 64 * 8,
                              heatmaps={"screen": 7, "plot": 32})
    table = scheme.signal(0, scheme.max_ctx).double().numpy()
    for label, cells in (("screen", 7), ("plot", 32)):
        got = measured.heatmaps[label]
        assert got.cells.shape == (cells, cells)
        np.testing.assert_allclose(got.cells, _heatmap_loop(table, cells), atol=2e-6)
