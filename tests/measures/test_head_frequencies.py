"""Pair shares and kernels against an explicit loop: dense rotation matrices R_p built pair by pair, the trace of
(R_m W_q)^T (R_{m+d} W_k), and Frobenius norms of each pair's rows, for both layouts, partial rotation and a
factor on cos and sin."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.head_frequencies import head_frequencies


def _members(layout: str, pairs: int) -> tuple[np.ndarray, np.ndarray]:
    first = np.arange(pairs) if layout == "half" else 2 * np.arange(pairs)
    return first, (first + pairs if layout == "half" else first + 1)


def _rotation(position: float, inv_freq, features: int, layout: str, factor: float) -> np.ndarray:
    """R_p: pair (a, b) rotated by p θ, both entries scaled by the factor; the other features untouched."""
    matrix = np.eye(features)
    first, second = _members(layout, len(inv_freq))
    for f, (a, b) in enumerate(zip(first, second, strict=True)):
        c, s = factor * math.cos(position * inv_freq[f]), factor * math.sin(position * inv_freq[f])
        matrix[a, a], matrix[a, b], matrix[b, a], matrix[b, b] = c, -s, s, c
    return matrix


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize(("features", "rotary", "factor"), [(12, 12, 1.0), (12, 8, 1.0), (10, 6, 1.37)])
def test_kernel_and_shares_equal_dense_rotations(layout, features, rotary, factor):
    rng = np.random.default_rng(features + rotary)
    groups, per, width = 2, 3, 9
    q = rng.normal(size=(groups, per, features, width))
    k = rng.normal(size=(groups, features, width))
    inv_freq = 1.0 / 7.0 ** (np.arange(rotary // 2) / (rotary // 2))
    distances = np.array([0.0, 1.0, 3.0, 50.0, 1234.0])
    found = head_frequencies(q, k, rotary_dim=rotary, layout=layout, inv_freq=inv_freq, attention_factor=factor,
                             distances=distances)
    first, second = _members(layout, rotary // 2)
    for g in range(groups):
        wk = k[g]
        for j in range(per):
            wq, h = q[g, j], g * per + j
            for column, d in enumerate(distances):
                for m in (0.0, 11.0):  # the kernel does not depend on m
                    expected = np.trace((_rotation(m, inv_freq, features, layout, factor) @ wq).T
                                        @ (_rotation(m + d, inv_freq, features, layout, factor) @ wk))
                    assert found.kernel[h, column] == pytest.approx(expected, rel=1e-10, abs=1e-10)
            energy = np.array([np.linalg.norm(wq[[a, b]]) * np.linalg.norm(wk[[a, b]])
                               for a, b in zip(first, second, strict=True)])
            np.testing.assert_allclose(found.pair_share[h], energy / energy.sum(), rtol=1e-12)


def test_a_head_of_zeros_has_no_shares():
    q = np.zeros((1, 1, 4, 3), dtype=np.float32)
    k = np.ones((1, 4, 3), dtype=np.float32)
    found = head_frequencies(q, k, rotary_dim=4, layout="half", inv_freq=np.array([1.0, 0.1]), attention_factor=1.0,
                             distances=np.array([0.0, 5.0]))
    assert np.isnan(found.pair_share).all() and (found.kernel == 0).all()


def test_an_unknown_layout_is_an_error():
    with pytest.raises(ValueError, match="unknown RoPE layout"):
        head_frequencies(np.zeros((1, 1, 4, 2)), np.zeros((1, 4, 2)),
                         rotary_dim=4, layout="diagonal", inv_freq=np.ones(2), attention_factor=1.0,
                         distances=np.zeros(1))
