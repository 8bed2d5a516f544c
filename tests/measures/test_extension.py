"""The classes of a context extension's pairs and the heads' shares on them, against plain loops written here."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.extension import classify_pairs, equal_weights, weighted_shares


def loop_classes(trained, candidate, T, D) -> list[str]:
    """The issue's order, one pair at a time."""
    out = []
    for theta, theta_new in zip(trained, candidate, strict=True):
        if T * theta < 2 * math.pi and D * theta_new > T * theta * (1 + 1e-9):
            out.append("extrapolated")
        elif theta_new < theta * (1 - 1e-9):
            out.append("compressed")
        elif theta_new > theta * (1 + 1e-9):
            out.append("sped_up")
        else:
            out.append("unchanged")
    return out


def _frequencies(base: float, pairs: int) -> np.ndarray:
    return np.array([base ** (-i / pairs) for i in range(pairs)])


@pytest.mark.parametrize("seed", range(6))
def test_classes_follow_the_loop_on_random_frequencies(seed):
    rng = np.random.default_rng(seed)
    pairs = int(rng.integers(4, 40))
    trained = _frequencies(float(rng.uniform(1e3, 1e6)), pairs)
    candidate = trained * rng.choice([0.25, 0.5, 1.0, 1.5], size=pairs) * rng.uniform(0.9, 1.1, size=pairs)
    T = int(rng.integers(64, 10_000))
    D = int(T * rng.uniform(1.01, 8))
    found = classify_pairs(trained, candidate, trained_length=T, distance=D)
    assert found.names() == loop_classes(trained, candidate, T, D)
    speed = [(w, b / a) for w, a, b in zip(np.full(pairs, 1 / pairs), trained, candidate, strict=True)]
    faster = [name == "sped_up" for name in loop_classes(trained, candidate, T, D)]
    shares = weighted_shares(equal_weights(pairs), found)
    assert shares.sped_up[0] == pytest.approx(sum(w for (w, _), f in zip(speed, faster) if f))
    assert shares.speed_cost[0] == pytest.approx(sum(w * math.log2(r) for (w, r), f in zip(speed, faster) if f))
    np.testing.assert_array_equal(found.compression, trained / candidate)
    np.testing.assert_array_equal(found.trained_span, T * trained)
    assert sum(found.counts().values()) == pairs


def test_a_scaling_that_maps_onto_the_trained_span_exactly_is_not_extrapolated():
    """Linear by L / T: D theta / s equals T theta in exact arithmetic; float64 rounding must not class it."""
    trained = _frequencies(100_000.0, 32)
    for T, D in ((8192, 32768), (4096, 12288), (1000, 3000)):
        scaled = trained / (D / T)
        found = classify_pairs(trained, scaled, trained_length=T, distance=D)
        assert found.names() == ["compressed"] * 32
        none = classify_pairs(trained, trained, trained_length=T, distance=D)
        critical = next(i for i, theta in enumerate(trained) if T * theta < 2 * math.pi)
        assert none.names() == ["unchanged"] * critical + ["extrapolated"] * (32 - critical)


def test_weighted_shares_are_sums_over_each_class():
    rng = np.random.default_rng(3)
    trained = _frequencies(10_000.0, 16)
    candidate = trained * rng.choice([0.3, 1.0, 2.0], size=16)
    found = classify_pairs(trained, candidate, trained_length=100, distance=900)
    share = rng.uniform(size=(5, 16))
    share /= share.sum(1, keepdims=True)
    share[4] = np.nan  # a head whose weights are all zero
    got = weighted_shares(share, found)
    names = loop_classes(trained, candidate, 100, 900)
    for h in range(4):
        extrapolated = sum(share[h, i] for i in range(16) if names[i] == "extrapolated")
        compressed = sum(share[h, i] for i in range(16) if names[i] == "compressed")
        weighted = sum(share[h, i] * trained[i] / candidate[i] for i in range(16) if names[i] == "compressed")
        cost = sum(share[h, i] * math.log2(trained[i] / candidate[i]) for i in range(16) if names[i] == "compressed")
        assert got.extrapolated[h] == pytest.approx(extrapolated, rel=1e-12, abs=1e-15)
        assert got.compressed[h] == pytest.approx(compressed, rel=1e-12, abs=1e-15)
        assert got.cost[h] == pytest.approx(cost, rel=1e-12, abs=1e-15)
        if compressed > 0:
            assert got.mean_compression[h] == pytest.approx(weighted / compressed, rel=1e-12)
        else:
            assert math.isnan(got.mean_compression[h])
    assert all(math.isnan(value) for value in (got.extrapolated[4], got.compressed[4], got.mean_compression[4]))


def test_equal_weights_give_the_fraction_of_pairs():
    trained = _frequencies(10_000.0, 8)
    found = classify_pairs(trained, trained / 2, trained_length=10, distance=30)
    got = weighted_shares(equal_weights(8), found)
    assert got.compressed[0] == pytest.approx(found.counts()["compressed"] / 8, rel=1e-12)
    assert got.extrapolated[0] == pytest.approx(found.counts()["extrapolated"] / 8, rel=1e-12)
