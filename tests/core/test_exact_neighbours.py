"""The exact neighbour similarity of rope and sinusoidal against closed forms written here, and the measured one."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from posemb_cli.core.schemes.protocols import ClosedFormSignal
from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.core.settings import RopeScaling
from posemb_cli.measures.signal_pass import measure_signal


@pytest.mark.parametrize(("dim", "base"), [(64, 10000.0), (6, 10.0), (512, 500000.0)])
def test_sinusoidal_is_the_mean_cosine_of_k_times_each_frequency(dim, base):
    frequencies = 1.0 / base ** (np.arange(0, dim, 2) / dim)  # w_i, one per (sin, cos) pair
    offsets = np.arange(1, 9)
    expected = np.cos(offsets[:, None] * frequencies[None, :]).mean(axis=1)
    found = SinusoidalPositionalEmbedding(64, dim, base).exact_neighbour_similarity(8)
    np.testing.assert_allclose(found, expected, rtol=0, atol=1e-15)


def test_an_odd_sinusoidal_width_has_no_closed_form():
    """A lone sin feature's product sin(p w) sin((p + k) w) depends on p."""
    assert SinusoidalPositionalEmbedding(64, 7).exact_neighbour_similarity(4) is None


def _rotate(vectors: np.ndarray, angles: np.ndarray, head: int, layout: str) -> np.ndarray:
    """Each head's pairs (2i, 2i + 1) or (i, i + head/2) turned by angles[i], with plain NumPy."""
    out = vectors.copy()
    for start in range(0, vectors.shape[-1], head):
        for i, angle in enumerate(angles):
            a, b = (start + 2 * i, start + 2 * i + 1) if layout == "interleaved" else (start + i, start + i + head // 2)
            x, y = vectors[..., a], vectors[..., b]
            out[..., a], out[..., b] = x * np.cos(angle) - y * np.sin(angle), x * np.sin(angle) + y * np.cos(angle)
    return out


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize(("dim", "head"), [(16, 16), (32, 8), (256, 64)])
def test_rope_is_q_dot_r_k_q_over_the_norm_of_the_probes(layout, dim, head):
    scheme = RotaryPositionalEmbedding(1024, dim, head, layout=layout, generator=torch.Generator().manual_seed(2))
    probes = scheme.probes.double().numpy()  # (N, D): the probes the signal rotates
    theta = 10000.0 ** (-np.arange(0, head, 2) / head)
    expected = [float((probes * _rotate(probes, k * theta, head, layout)).sum() / (probes ** 2).sum())
                for k in range(1, 9)]
    np.testing.assert_allclose(scheme.exact_neighbour_similarity(8), expected, rtol=0, atol=1e-14)


@pytest.mark.parametrize("scheme", [
    RotaryPositionalEmbedding(2048, 32, 16, generator=torch.Generator().manual_seed(3), dtype=torch.float64),
    RotaryPositionalEmbedding(2048, 16, layout="half", dtype=torch.float64, generator=torch.Generator().manual_seed(4),
                              scaling=RopeScaling(kind="yarn", factor=4.0, original_ctx=512)),
    SinusoidalPositionalEmbedding(2048, 32, dtype=torch.float64),
], ids=["rope", "rope-yarn", "sinusoidal"])
def test_in_float64_the_measured_cosines_are_the_exact_ones(scheme):
    """Every p gives the same cosine: in float64 the measured mean, min and max sit on the exact value."""
    assert isinstance(scheme, ClosedFormSignal)
    found = measure_signal(scheme, max_offset=6, pair_budget=1000)
    for entry in found.neighbours:
        assert entry["exact"] == pytest.approx(entry["mean"], rel=0, abs=1e-12)
        assert entry["min"] - 1e-12 <= entry["exact"] <= entry["max"] + 1e-12


def test_in_float32_the_gap_to_the_exact_value_is_the_precision_lost():
    scheme = RotaryPositionalEmbedding(1 << 16, 16, generator=torch.Generator().manual_seed(1))
    found = measure_signal(scheme, max_offset=2, pair_budget=1000)
    for entry in found.neighbours:
        assert 0 < abs(entry["mean"] - entry["exact"]) < 1e-5
