"""The float32 screen of the context bound's scan against the cosine sums themselves, in NumPy float64."""

from __future__ import annotations

import numpy as np
import pytest
from posemb_cli.measures import context_bound
from posemb_cli.measures.context_bound import covers, first_negative, stays_non_negative
from posemb_cli.measures.cosine_screen import CosineSumScreen


def thetas(base: float, head: int) -> np.ndarray:
    return base ** (-np.arange(0, head, 2, dtype=np.float64) / head)


def sums(theta: np.ndarray, first: int, stop: int) -> np.ndarray:
    """B(m) = sum_i cos(m theta_i) for m in [first, stop), straight from the definition."""
    m = np.arange(first, stop, dtype=np.float64)
    return np.cos(m[:, None] * theta[None, :]).sum(axis=1)


def direct_first_negative(theta: np.ndarray, limit: int) -> int | None:
    for first in range(1, limit, 1 << 16):
        values = sums(theta, first, min(limit, first + (1 << 16)))
        negative = np.flatnonzero(values < 0)
        if negative.size:
            return first + int(negative[0])
    return None


@pytest.mark.parametrize("base", [1e4, 1e6, 1e9, 1e12])
@pytest.mark.parametrize("head", [16, 64, 128])
def test_a_cleared_block_has_no_negative_sum(base, head):
    theta = thetas(base, head)
    screen = CosineSumScreen(theta, 8192)
    generator = np.random.default_rng(int(base) % 1000 + head)
    for first in generator.integers(0, 1 << 26, 12):
        stop = int(first) + int(generator.integers(1, 1 << 15))
        values = sums(theta, int(first), stop)
        if screen.clear(int(first), stop):
            assert values.min() >= 0, (first, stop)
        if values.min() >= 0.05:  # comfortably positive: the screen must see it (it is not a mere "no")
            assert screen.clear(int(first), stop), (first, stop, values.min())


def test_a_large_base_clears_whole_blocks_far_out():
    """Head 128, base 1e12: B stays well above zero around a million; the screen proves it block by block."""
    theta = thetas(1e12, 128)
    screen = CosineSumScreen(theta, 8192)
    assert sums(theta, 1 << 20, (1 << 20) + (1 << 17)).min() > 1
    assert all(screen.clear(first, first + (1 << 14)) for first in range(1 << 20, (1 << 20) + (1 << 17), 1 << 14))


def test_a_block_holding_a_negative_sum_is_never_cleared():
    theta = thetas(10000.0, 128)  # B(1707) < 0
    screen = CosineSumScreen(theta, 8192)
    assert not screen.clear(0, 8192) and not screen.clear(1707, 1708) and not screen.clear(1000, 2000)
    assert screen.clear(0, 1707)


@pytest.fixture
def small_screened_blocks(monkeypatch):
    """Screen blocks from 8,192 distances on, so that short scans go through the screen."""
    monkeypatch.setattr(context_bound, "_SCREENED_BLOCK", 1 << 13)


@pytest.mark.parametrize(("base", "head"), [(1e4, 32), (2e6, 64), (1e9, 16), (3e7, 128)])
def test_screened_scans_give_the_float64_answers(small_screened_blocks, base, head):
    theta = thetas(base, head)
    limit = 1 << 19
    expected = direct_first_negative(theta, limit)
    assert first_negative(theta, limit) == expected
    assert stays_non_negative(theta, limit) is (expected is None)


@pytest.mark.parametrize(("base", "head", "limit"), [(2.4e6, 128, 1 << 15), (2.3e6, 128, 1 << 15), (3e7, 128, 1 << 17),
                                                     (1.93e6, 64, 8192), (1.9e6, 64, 8192), (1e11, 64, 1 << 18)])
def test_covers_gives_the_float64_answer(base, head, limit):
    """Bases at the edge of coverage (min_base and the grid base below it) and far above it."""
    theta = thetas(base, head)
    assert covers(theta, limit) is (direct_first_negative(theta, limit) is None)
