"""The cosine sum of the context bound against plain loops and NumPy scans over distances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.context_bound import (
    covers,
    covers_each,
    dip,
    first_negative,
    stays_non_negative,
    tile_lower_bounds,
)


def thetas(base: float, head: int) -> np.ndarray:
    return base ** (-np.arange(0, head, 2, dtype=np.float64) / head)


def loop_first_negative(theta: np.ndarray, limit: int) -> int | None:
    for m in range(1, limit):
        if sum(math.cos(m * t) for t in theta) < 0:
            return m
    return None


def numpy_sums(theta: np.ndarray, limit: int) -> np.ndarray:
    """B(m) for m = 1 .. limit - 1, each cosine taken directly."""
    m = np.arange(1, limit, dtype=np.float64)
    return np.concatenate([np.cos(m[i:i + 8192, None] * theta[None, :]).sum(axis=1) for i in range(0, m.size, 8192)])


def test_base_10000_head_128_first_negative_is_1707():
    assert loop_first_negative(thetas(10000.0, 128), 4000) == 1707
    assert first_negative(thetas(10000.0, 128), 4000) == 1707


@pytest.mark.parametrize(("base", "head"), [(500.0, 16), (10000.0, 64), (1e6, 32)])
def test_first_negative_matches_the_loop(base, head):
    theta = thetas(base, head)
    assert first_negative(theta, 20000) == loop_first_negative(theta, 20000)


def test_none_when_no_distance_below_the_limit_is_negative():
    assert first_negative(thetas(10000.0, 128), 1707) is None
    assert first_negative(thetas(10000.0, 128), 1708) == 1707


@pytest.mark.parametrize("base", [500_000.0, 600_000.0, 700_000.0, 800_000.0, 900_000.0, 1_000_000.0, 1_200_000.0,
                                  1_420_000.0])
def test_coverage_is_not_monotone_in_the_base(base):
    """Width 64, 8,192 distances: 500k, 700k, 900k and 1.2M cover; 600k, 800k, 1M and 1.42M do not (NumPy scan)."""
    theta = thetas(base, 64)
    expected = bool((numpy_sums(theta, 8192) >= 0).all())
    assert expected is (base in (500_000.0, 700_000.0, 900_000.0, 1_200_000.0))
    assert covers(theta, 8192) is expected
    assert stays_non_negative(theta, 8192) is expected


@pytest.mark.parametrize(("base", "head", "limit"), [(1e6, 128, 32768), (10000.0, 128, 4096), (5e5, 64, 20000),
                                                     (3e3, 16, 300)])
def test_dip_is_the_lowest_sum_and_its_first_distance(base, head, limit):
    theta = thetas(base, head)
    sums = numpy_sums(theta, limit)
    found = dip(theta, limit)
    assert found is not None
    assert found.sum == pytest.approx(sums.min(), abs=1e-9)
    assert found.at == 1 + int(np.argmin(sums))
    assert found.depth == pytest.approx(sums.min() / theta.size, abs=1e-11)


def test_dip_of_qwen_style_frequencies():
    """Width 128, base 1e6, 32,768 distances: negative from 27,115, lowest at 28,259 (about -0.78 of 64 pairs)."""
    theta = thetas(1e6, 128)
    assert first_negative(theta, 32768) == 27115
    found = dip(theta, 32768)
    assert found.at == 28259 and -0.80 < found.sum < -0.75


def test_dip_ties_go_to_the_first_distance():
    """A single frequency of exactly pi / 7: cos(m theta) = -1 at m = 7, 21, 35, ... (equal in exact arithmetic)."""
    theta = np.array([math.pi / 7])
    assert dip(theta, 200).at == 7


@pytest.mark.parametrize(("base", "head"), [(1e4, 64), (3e6, 128), (1e9, 32), (50.0, 8)])
def test_a_tile_bound_is_never_above_a_sum_of_its_tile(base, head):
    """covers skips the sums of a tile whose bound is >= 0: the bound must sit below every sum of the tile."""
    theta, limit, tile = thetas(base, head), 20000, 256
    starts = np.arange(0, limit, tile, dtype=np.float64)
    bounds = tile_lower_bounds(theta, starts, tile, limit)
    sums = np.concatenate(([theta.size], numpy_sums(theta, limit)))  # B(0) = F, then m = 1 .. limit - 1
    for start, bound in zip(starts.astype(int), bounds, strict=True):
        assert bound <= sums[start:start + tile].min()


@pytest.mark.parametrize(("low", "high", "head"), [(1e4, 1.2e4, 64), (3e6, 4e6, 128), (40.0, 60.0, 8)])
def test_a_tile_bound_over_several_bases_is_never_above_a_sum_of_any_of_them(low, high, head):
    """covers_each clears a tile for every set at once when the bound over their frequency range is >= 0."""
    limit, tile = 20000, 256  # the last tile is short: 20,000 is no multiple of 256
    sets = np.stack([thetas(base, head) for base in np.geomspace(low, high, 6)])
    starts = np.arange(0, limit, tile, dtype=np.float64)
    bounds = tile_lower_bounds(sets.min(axis=0), starts, tile, limit, sets.max(axis=0))
    for theta in sets:
        sums = np.concatenate(([theta.size], numpy_sums(theta, limit)))
        for start, bound in zip(starts.astype(int), bounds, strict=True):
            assert bound <= sums[start:start + tile].min()


@pytest.mark.parametrize(("first", "last", "head", "limit"), [(3e5, 1.6e6, 64, 8192), (2e4, 6e4, 128, 4096)])
def test_covers_each_answers_as_a_numpy_scan_across_the_edge_of_coverage(first, last, head, limit):
    """Bases on both sides of the edge (and, at width 64, where coverage is not monotone), in batches of 8 as
    the grid walk takes them: each answer equals B(m) >= 0 for every m below limit, summed directly."""
    bases = np.geomspace(first, last, 40)
    sets = [thetas(base, head) for base in bases]
    expected = [bool((numpy_sums(theta, limit) >= 0).all()) for theta in sets]
    assert any(expected) and not all(expected)
    answers = [answer for i in range(0, len(sets), 8) for answer in covers_each(sets[i:i + 8], limit)]
    assert answers == expected
    assert [covers(theta, limit) for theta in sets] == expected
