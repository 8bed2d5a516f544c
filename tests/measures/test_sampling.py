"""The sampled pass: which positions it measures, and its figures against plain loops over exactly those.

Small sizes stand for the real ones: P = 1,000 sampled positions in blocks of B = 100 instead of
1,048,576 in blocks of 4,096 (the rule is the same function of L, P and B).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import torch
from posemb_cli.core.schemes.alibi import AlibiPositionalBias
from posemb_cli.core.schemes.learned import LearnedPositionalEmbedding
from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.measures.sampling import SAMPLE_BLOCK, SAMPLE_POSITIONS, coverage_of
from posemb_cli.measures.signal_pass import measure_signal

ROWS, POSITIONS, BLOCK = 3000, 1000, 100


def plain_starts(rows: int, positions: int, block: int) -> list[int]:
    """Block i of n = P / B starts at floor(i (L - B) / (n - 1)), exactly (rational arithmetic)."""
    count = positions // block
    return [math.floor(Fraction(i * (rows - block), count - 1)) for i in range(count)]


@pytest.mark.parametrize(("rows", "positions", "block"), [
    (ROWS, POSITIONS, BLOCK), (1_000_003, POSITIONS, BLOCK), (10_485_760, SAMPLE_POSITIONS, SAMPLE_BLOCK),
    (1 << 27, SAMPLE_POSITIONS, SAMPLE_BLOCK), (SAMPLE_POSITIONS + 1, SAMPLE_POSITIONS, SAMPLE_BLOCK)])
def test_sampled_blocks_follow_the_formula(rows, positions, block):
    coverage = coverage_of(rows, computed=True, positions=positions, block=block, full_by="--full")
    starts = plain_starts(rows, positions, block)
    assert coverage.spans == tuple((start, start + block) for start in starts)
    assert starts[0] == 0 and starts[-1] + block == rows  # the first and the last block
    assert all(b >= a + block for a, b in zip(starts, starts[1:], strict=False))  # whole, disjoint blocks
    assert coverage.to_dict() == {"positions_measured": positions, "of": rows, "blocks": positions // block,
                                  "rule": coverage.rule}
    assert "--full" in coverage.rule and f"{block:,} consecutive positions" in coverage.rule


def test_the_default_sample_is_a_million_positions_in_256_blocks():
    assert (SAMPLE_POSITIONS, SAMPLE_BLOCK) == (1_048_576, 4_096)
    coverage = coverage_of(10_485_760, computed=True)
    assert coverage.measured == 1_048_576 and len(coverage.spans) == 256


@pytest.mark.parametrize(("rows", "computed", "full", "rule"), [
    (SAMPLE_POSITIONS, True, False, "every position"),
    (512, False, False, "every position"),
    (SAMPLE_POSITIONS + 1, True, True, "every position (full)"),
    (SAMPLE_POSITIONS + 1, False, False, "every position (a stored table is measured in full)"),
])
def test_every_position_up_to_the_threshold_for_stored_tables_and_under_full(rows, computed, full, rule):
    coverage = coverage_of(rows, computed=computed, full=full)
    assert coverage.spans == ((0, rows),) and not coverage.sampled
    assert coverage.to_dict() == {"positions_measured": rows, "of": rows, "blocks": 1, "rule": rule}


def _schemes():
    return {
        "rope": RotaryPositionalEmbedding(ROWS, 16, 8, generator=torch.Generator().manual_seed(5)),
        "sinusoidal": SinusoidalPositionalEmbedding(ROWS, 24),
        "alibi": AlibiPositionalBias(ROWS, 16, 4),
        "learned": LearnedPositionalEmbedding(ROWS, 12, generator=torch.Generator().manual_seed(4)),
    }


def _oracle(rows: np.ndarray, measured: list[int], max_offset: int, pair_budget: int, cells: int) -> dict:
    """Every figure of the pass from plain loops over the measured positions p of the (L, F) float64 rows."""
    length = rows.shape[0]
    norms = np.sqrt((rows ** 2).sum(axis=1))
    neighbours = []
    for k in range(1, max_offset + 1):
        cos = [rows[p] @ rows[p + k] / (norms[p] * norms[p + k]) for p in measured
               if p + k < length and norms[p] * norms[p + k] > 0]  # a zero row (alibi's first) has no direction
        neighbours.append((np.mean(cos), np.min(cos), np.max(cos)))
    peaks = np.abs(rows[measured]).max(axis=1)
    first_half = max(peak for p, peak in zip(measured, peaks, strict=True) if p < (length + 1) // 2)
    stride = 1
    while (count := -(-len(measured) // stride)) * (count - 1) // 2 > pair_budget:
        stride += 1
    kept = measured[::stride]
    closest = min(np.linalg.norm(rows[p] - rows[q]) for i, p in enumerate(kept) for q in kept[i + 1:])
    near = min(np.linalg.norm(rows[p + k] - rows[p]) for k in range(1, max_offset + 1) for p in measured
               if p + k < length)
    edges = np.linspace(0, length, cells + 1).round().astype(int)
    units = rows / np.where(norms > 0, norms, 1.0)[:, None]
    heatmap = np.full((cells, cells), np.nan)
    for i in range(cells):
        for j in range(cells):
            a = [p for p in measured if edges[i] <= p < edges[i + 1] and norms[p] > 0]
            b = [q for q in measured if edges[j] <= q < edges[j + 1] and norms[q] > 0]
            if a and b:
                heatmap[i, j] = (units[a] @ units[b].T).mean()
    return {"neighbours": neighbours, "norms": (norms[measured].min(), norms[measured].mean(), norms[measured].max()),
            "max_abs": peaks.max(), "first_half": first_half, "closest": closest, "near": near, "stride": stride,
            "kept": kept, "heatmap": heatmap}


@pytest.mark.parametrize("name", list(_schemes()))
def test_the_sampled_pass_equals_loops_over_the_sampled_positions(name):
    scheme = _schemes()[name]
    coverage = coverage_of(ROWS, computed=True, positions=POSITIONS, block=BLOCK)
    measured = [p for start, stop in coverage.spans for p in range(start, stop)]
    read = []
    signal = scheme.signal

    def spy(start, stop):
        read.append((start, stop))
        return signal(start, stop)

    scheme.signal = spy
    found = measure_signal(scheme, max_offset=5, pair_budget=2000, coverage=coverage, block_rows=16,
                           block_bytes=48 * 64 * 4, heatmaps={"screen": 12}, second=signal)
    scheme.signal = signal
    rows = signal(0, ROWS).to(torch.float64).numpy()
    expected = _oracle(rows, measured, 5, 2000, 12)
    for got, (mean, low, high) in zip(found.neighbours, expected["neighbours"], strict=True):
        assert (got["mean"], got["min"], got["max"]) == pytest.approx((mean, low, high), rel=0, abs=2e-6)
    low, mean, high = expected["norms"]
    norms = found.norms
    assert (norms["norm_min"], norms["norm_mean"], norms["norm_max"]) == pytest.approx((low, mean, high), rel=1e-12)
    assert norms["rows"] == ROWS
    assert found.bounds["max_abs"] == pytest.approx(expected["max_abs"], rel=1e-12)
    assert found.bounds["first_half"] == pytest.approx(expected["first_half"], rel=1e-12)
    assert found.closest["stride"] == expected["stride"] > 1
    assert found.closest["positions"] == len(expected["kept"])
    assert found.closest["distance"] == pytest.approx(expected["closest"], rel=1e-6)
    i, j = found.closest["pair"]  # positions of the signal, among the kept ones
    assert i in expected["kept"] and j in expected["kept"] and i < j
    assert np.linalg.norm(rows[j] - rows[i]) == pytest.approx(expected["closest"], rel=1e-6)
    assert found.near["distance"] == pytest.approx(expected["near"], rel=1e-6, abs=1e-9)
    assert found.near["pair"][0] in measured
    np.testing.assert_allclose(found.heatmaps["screen"].cells, expected["heatmap"], atol=2e-6)
    assert found.coverage is coverage
    # Only the sampled blocks (and the K rows after each, for the neighbours) were read: the first read is
    # one row (the signal's width and dtype), the rest the pass's blocks in order.
    assert read[0] == (0, 1)
    covered = set()
    for start, stop in read[1:]:
        (a, b), = [(a, b) for a, b in coverage.spans if a <= start < b]
        assert stop <= min(b + 5, ROWS), (start, stop)
        covered.update(range(start, min(stop, b)))
    assert covered == set(measured)


def test_a_stored_table_sampled_by_hand_keeps_its_rows_in_order():
    """A stored table is never sampled by the tool; forced, its sample follows the same rule as a signal's."""
    scheme = _schemes()["learned"]
    coverage = coverage_of(ROWS, computed=True, positions=POSITIONS, block=BLOCK)
    found = measure_signal(scheme, max_offset=2, pair_budget=500, coverage=coverage)
    measured = [p for start, stop in coverage.spans for p in range(start, stop)]
    assert found.closest["pair"][0] in measured and found.closest["pair"][1] in measured
