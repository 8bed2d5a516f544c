"""--dtype follows a stated recipe: float32 keeps float64 angles; the 16-bit dtypes cast float32 signals."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from posemb_cli.core.dtypes import signal_recipe
from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
from posemb_cli.core.schemes.sinusoidal import SinusoidalPositionalEmbedding
from posemb_cli.core.settings import EmbeddingConfig


def float32_angles(ctx: int, dim: int, base: float = 10000.0) -> np.ndarray:
    inv_freq = (1.0 / base ** (2.0 * (np.arange(dim) // 2) / dim)).astype(np.float32)
    return np.arange(ctx, dtype=np.float32)[:, None] * inv_freq[None, :]  # (L, D) float32 products


def test_recipes_are_stated_in_every_config():
    assert EmbeddingConfig(dtype="bfloat16").to_dict()["signal_recipe"] == "cast"
    assert EmbeddingConfig().to_dict()["signal_recipe"] == "float64-angles"
    assert signal_recipe("float64") == "float64"


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_sixteen_bit_sinusoidal_is_float32_then_cast(dtype):
    angles = float32_angles(300, 12)
    expected = np.where(np.arange(12) % 2 == 0, np.sin(angles), np.cos(angles)).astype(np.float32)
    table = SinusoidalPositionalEmbedding(300, 12, dtype=dtype).table()
    torch.testing.assert_close(table, torch.from_numpy(expected).to(dtype), atol=0, rtol=0)


def test_float32_sinusoidal_keeps_float64_angles():
    positions = np.arange(5000, dtype=np.float64)[:, None]
    denominators = 10000.0 ** (2.0 * (np.arange(8) // 2) / 8)
    angles = positions / denominators
    expected = np.where(np.arange(8) % 2 == 0, np.sin(angles), np.cos(angles)).astype(np.float32)
    table = SinusoidalPositionalEmbedding(5000, 8, dtype=torch.float32).table()
    torch.testing.assert_close(table, torch.from_numpy(expected), atol=0, rtol=0)


def test_bfloat16_rope_rotates_with_bfloat16_cos_and_sin():
    rope = RotaryPositionalEmbedding(1024, 8, dtype=torch.bfloat16)
    positions = torch.arange(1024)
    x = torch.zeros(1024, 8, dtype=torch.bfloat16)
    x[:, 0] = 1.0  # the first pair's (1, 0) turns into (cos, sin) of its angle
    out = rope.rotate(x, positions)
    angles = np.arange(1024, dtype=np.float32) * np.float32(1.0)
    expected = torch.from_numpy(np.cos(angles)).to(torch.bfloat16)
    torch.testing.assert_close(out[:, 0], expected, atol=0, rtol=0)
    # held positions 256 and 257 are distinct under the cast recipe
    assert not torch.equal(out[256], out[257])
