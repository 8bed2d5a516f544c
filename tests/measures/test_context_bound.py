"""The base's context bound against a plain NumPy loop over distances."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.context_bound import first_negative, min_base


def thetas(base: float, head: int) -> np.ndarray:
    return base ** (-np.arange(0, head, 2, dtype=np.float64) / head)


def loop_first_negative(theta: np.ndarray, limit: int) -> int | None:
    for m in range(1, limit):
        if sum(math.cos(m * t) for t in theta) < 0:
            return m
    return None


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


@pytest.mark.parametrize("ctx", [512, 4096])
def test_min_base_is_the_edge_of_coverage(ctx):
    found = min_base(lambda base: thetas(base, 128), ctx)
    assert loop_first_negative(thetas(found, 128), ctx) is None
    below = found * (1 - 3e-4)
    assert loop_first_negative(thetas(below, 128), ctx) is not None
