"""The critical pair against Liu et al.'s closed form, the high-frequency pairs and labels against plain loops,
and picks whose ties are broken on purpose."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.head_bands import band_shares, bands_of, label, ranked


def _inv_freq(base: float, dim: int) -> np.ndarray:
    return 1.0 / base ** (np.arange(0, dim, 2) / dim)


def test_llama2_critical_dimension_is_92_of_128_features():
    """Liu et al. 2023: d_extra = 2 ceil(d/2 log_base(T / 2π)) = 92 for base 10,000, d 128, T 4,096."""
    bands = bands_of(_inv_freq(10_000.0, 128), 4096)
    assert 2 * bands.critical_pair == 2 * math.ceil(64 * math.log(4096 / (2 * math.pi), 10_000.0)) == 92


@pytest.mark.parametrize(("base", "dim", "context"), [(10_000.0, 64, 512), (500_000.0, 128, 8192), (1e6, 256, 32768),
                                                       (10.0, 16, 1_000_000)])
def test_bands_equal_a_loop_over_the_wavelengths(base, dim, context):
    bands = bands_of(_inv_freq(base, dim), context)
    wavelengths = [2 * math.pi * base ** (2 * f / dim) for f in range(dim // 2)]
    critical = next((f for f, w in enumerate(wavelengths) if w > context), dim // 2)
    assert bands.critical_pair == critical
    assert bands.high_pairs == sum(1 for w in wavelengths[:critical] if w <= math.sqrt(2 * math.pi * context))


def test_band_shares_and_labels():
    shares = np.array([[0.6, 0.2, 0.1, 0.1], [0.1, 0.1, 0.2, 0.6], [0.3, 0.2, 0.2, 0.3]])
    high, beyond = band_shares(shares, bands_of(np.array([1.0, 0.5, 0.01, 0.001]), 100))
    np.testing.assert_allclose(high, [0.8, 0.2, 0.5])  # λ 6.3 and 12.6 at most √(200π) = 25
    np.testing.assert_allclose(beyond, [0.2, 0.8, 0.5])  # λ 628 and 6283 beyond 100
    assert [label(h, b) for h, b in zip(high, beyond, strict=True)] == ["positional", "semantic", "mixed"]
    assert label(0.5, 0.5) == "mixed"  # more than half, strictly


def test_ranked_breaks_ties_by_layer_then_head_and_ignores_rounding_noise():
    entries = [(3, 1, 0.5), (0, 2, 0.5 + 1e-15), (0, 1, 0.5), (1, 0, 0.9), (2, 2, float("nan"))]
    assert ranked(entries, 4) == [(1, 0, 0.9), (0, 1, 0.5), (0, 2, 0.5 + 1e-15), (3, 1, 0.5)]
    assert ranked(entries, 10)[-1] == entries[-1]
