"""Blockwise neighbour similarity against the per-offset method, written out here as the oracle."""

from __future__ import annotations

import math

import pytest
import torch
from posemb_cli.measures.neighbours import neighbour_similarity

CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)


def per_offset(table: torch.Tensor, max_offset: int) -> list[dict]:
    """Normalise the table in float64, then (n[:-k] * n[k:]).sum(1) for each k; zero rows left out."""
    table = table.to(torch.float64).cpu()
    norms = table.norm(dim=1, keepdim=True)
    normalised = table / torch.where(norms > 0, norms, 1.0)
    nonzero = norms[:, 0] > 0
    result = []
    for k in range(1, max_offset + 1):
        cosine = (normalised[:-k] * normalised[k:]).sum(1)
        cosine = cosine[nonzero[:-k] & nonzero[k:]]
        if cosine.numel() == 0:
            result.append({"offset": k, "mean": math.nan, "min": math.nan, "max": math.nan})
            continue
        result.append({"offset": k, "mean": cosine.mean().item(), "min": cosine.min().item(),
                       "max": cosine.max().item()})
    return result


def sinusoidal(rows: int, dim: int) -> torch.Tensor:
    position = torch.arange(rows, dtype=torch.float64)[:, None]
    feature = torch.arange(dim)
    angle = position / 10000.0 ** (2 * (feature // 2) / dim)
    return torch.where(feature % 2 == 0, torch.sin(angle), torch.cos(angle))


def assert_matches(got: list[dict], want: list[dict], tol: float = 1e-6) -> None:
    assert [g["offset"] for g in got] == [w["offset"] for w in want]
    for g, w in zip(got, want):
        for key in ("mean", "min", "max"):
            if math.isnan(w[key]):
                assert math.isnan(g[key]), (g, w)
            else:
                assert abs(g[key] - w[key]) <= tol, (key, g, w)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("rows, dim, max_offset", [(300, 48, 1), (300, 48, 16), (257, 33, 7), (40, 8, 39)])
@pytest.mark.parametrize("block_rows", [None, 1, 5, 64, 10_000])
def test_random_table_matches_per_offset(dtype, rows, dim, max_offset, block_rows):
    table = torch.randn(rows, dim, dtype=torch.float64)
    got = neighbour_similarity(table.to(dtype), max_offset, block_rows=block_rows)
    assert_matches(got, per_offset(table.to(dtype), max_offset))


@pytest.mark.parametrize("block_rows", [None, 3, 32])
def test_sinusoidal_table_matches_per_offset_and_reference(block_rows):
    table = sinusoidal(512, 64)
    got = neighbour_similarity(table.to(torch.float32), 16, block_rows=block_rows)
    assert_matches(got, per_offset(table.to(torch.float32), 16))
    assert got[0]["mean"] == pytest.approx(0.966, abs=1e-3)  # the lesson's reference figure


def test_zero_rows_are_left_out():
    table = torch.randn(100, 16, dtype=torch.float64)
    table[[0, 10, 11, 50, 99]] = 0.0
    assert_matches(neighbour_similarity(table, 9, block_rows=7), per_offset(table, 9))


def test_all_zero_table_reports_nan():
    got = neighbour_similarity(torch.zeros(20, 4), 3)
    assert all(math.isnan(row[key]) for row in got for key in ("mean", "min", "max"))


def test_wide_table_default_blocks():
    """The default block size at a realistic width (several blocks, window crossing block edges)."""
    table = torch.randn(1500, 1024)
    assert_matches(neighbour_similarity(table, 16), per_offset(table, 16))


def test_progress_counts_every_row_once():
    seen = []
    neighbour_similarity(torch.randn(301, 8), 4, block_rows=16, progress=seen.append)
    assert sum(seen) == 301


@CUDA
def test_cuda_matches_per_offset():
    table = torch.randn(700, 96)
    got = neighbour_similarity(table.cuda(), 12)
    assert_matches(got, per_offset(table, 12), tol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_low_precision_table_matches_per_offset_on_its_own_values(dtype):
    table = torch.randn(200, 40).to(dtype)
    assert_matches(neighbour_similarity(table, 6, block_rows=48), per_offset(table, 6))


def test_strided_table_matches_per_offset():
    table = torch.randn(64, 150, dtype=torch.float64).T  # (150, 64), not contiguous
    assert not table.is_contiguous()
    assert_matches(neighbour_similarity(table, 10, block_rows=32), per_offset(table, 10))


@pytest.mark.parametrize("max_offset", [1, 16, 40])
def test_blocks_that_end_inside_a_group(max_offset):
    """Row counts that leave a partial group and a window running past the table's end."""
    table = torch.randn(16 * 7 + 5, 24, dtype=torch.float64)
    for block_rows in (None, 17, 50):
        assert_matches(neighbour_similarity(table, max_offset, block_rows=block_rows), per_offset(table, max_offset))
