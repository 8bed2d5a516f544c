"""The per-tile floors of the context bound's cosine sum against the sums themselves, in NumPy float64."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.base_grid import grid_base
from posemb_cli.measures.context_bound import covers, stays_non_negative
from posemb_cli.measures.cosine_floor import floors_clear


def thetas(base: float, head: int) -> np.ndarray:
    return base ** (-np.arange(0, head, 2, dtype=np.float64) / head)


def sums(theta: np.ndarray, limit: int) -> np.ndarray:
    """B(m) = sum_i cos(m theta_i) for m = 1 .. limit - 1, each cosine taken directly in float64."""
    m = np.arange(1, limit, dtype=np.float64)
    return np.concatenate([np.cos(m[i:i + 8192, None] * theta[None, :]).sum(axis=1) for i in range(0, m.size, 8192)])


@pytest.mark.parametrize("head", [16, 64, 128])
@pytest.mark.parametrize("limit", [300, 8192, 30000])
def test_a_proof_is_never_given_where_a_sum_is_negative(head, limit):
    """Grid bases from 1e3 to 1e12: wherever the floors prove coverage, every float64 sum is non-negative."""
    proven = 0
    for k in range(600, 2400, 53):
        theta = thetas(grid_base(k), head)
        if floors_clear(theta, limit):
            proven += 1
            assert sums(theta, limit).min() >= 0, (grid_base(k), head, limit)
    assert proven > 0  # the proof is not a mere "no"


@pytest.mark.parametrize(("head", "limit", "low", "high"), [(64, 8192, 1e5, 1e9), (128, 16384, 1e5, 1e7),
                                                            (32, 2048, 1e3, 1e7)])
def test_covers_gives_the_float64_scan_answer_over_the_grid(head, limit, low, high):
    """Every grid base of a range that crosses the edge of coverage: covers, the float64 scan and the direct sums
    agree base by base (coverage is not monotone there, so both answers occur)."""
    answers = set()
    for k in range(round(200 * math.log10(low)), round(200 * math.log10(high)), 5):
        theta = thetas(grid_base(k), head)
        expected = bool(sums(theta, limit).min() >= 0)
        answers.add(expected)
        assert covers(theta, limit) is expected, grid_base(k)
        assert stays_non_negative(theta, limit) is expected, grid_base(k)
    assert answers == {True, False}


def test_a_far_base_is_proven_by_the_floors_alone():
    """Head 128, base 1e12, a million distances: well above zero everywhere; the floors prove it."""
    theta = thetas(1e12, 128)
    assert floors_clear(theta, 1 << 20)


def test_a_sum_that_touches_zero_is_left_to_the_scan():
    """cos(m) + cos(m (1 + pi)) is 0 at m = 1 in exact arithmetic: no proof; covers gives the scan's answer."""
    theta = np.array([1.0, 1.0 + math.pi])
    assert not floors_clear(theta, 64)
    assert covers(theta, 64) is stays_non_negative(theta, 64)
    assert not floors_clear(thetas(10000.0, 128), 1708)  # B(1707) < 0


def test_float32_cosines_stay_within_the_allowance():
    """The proof allows 2^-19 for casting a reduced angle to float32 and taking its cosine there."""
    angles = np.random.default_rng(0).random(1 << 22) * 2 * math.pi
    error = np.abs(np.cos(angles.astype(np.float32)).astype(np.float64) - np.cos(angles))
    assert error.max() <= 2.0 ** -20


def test_short_limits():
    assert floors_clear(thetas(10000.0, 64), 1)
    assert floors_clear(thetas(10000.0, 64), 2)  # B(1) is far above zero
    assert not floors_clear(np.array([math.pi]), 2)  # B(1) = cos(pi) = -1
