"""RoPE's probe signal, block by block, against the pair-by-pair formula written here, bit for bit."""

from __future__ import annotations

import math

import pytest
import torch
from posemb_cli.core.schemes.rope import RotaryPositionalEmbedding
from posemb_cli.core.schemes.rope_scaling import RopeScaling


def pair_by_pair(rope: RotaryPositionalEmbedding, start: int, stop: int) -> torch.Tensor:
    """Each probe's pair (a, b) at position p turned to (cos a - sin b, sin a + cos b), one product at a time.

    float32 and float64: the angle is (j theta mod 2 pi) + (g theta mod 2 pi) in float64, g the position's
    grid row (G = 2^22 / (N D) rows) and j = p - g, cast to the compute dtype; bfloat16 and float16: float32
    positions times float32 frequencies, cos and sin rounded to the dtype.
    """
    probes, dim, head = rope.probes, rope.dim, rope.head_dim
    count, compute = probes.shape[0], probes.dtype
    frequencies = rope.frequencies(max(stop, rope.max_ctx))
    positions = torch.arange(start, stop)
    if rope.dtype in (torch.bfloat16, torch.float16):
        angles = positions.to(torch.float32)[:, None] * frequencies.to(torch.float32)
        cos = torch.cos(angles).to(rope.dtype).to(compute)
        sin = torch.sin(angles).to(rope.dtype).to(compute)
    else:
        grid = max(1, (1 << 22) // (count * dim))
        anchor = (positions - positions % grid).to(torch.float64)[:, None]
        within = (positions % grid).to(torch.float64)[:, None]
        angles = (torch.remainder(within * frequencies, 2 * math.pi)
                  + torch.remainder(anchor * frequencies, 2 * math.pi)).to(compute)
        cos, sin = torch.cos(angles), torch.sin(angles)
    heads = probes.view(count, dim // head, head)
    if rope.layout == "interleaved":
        a, b = heads[..., 0::2], heads[..., 1::2]
    else:
        a, b = heads[..., :head // 2], heads[..., head // 2:]
    cos, sin = cos[:, None, None, :], sin[:, None, None, :]  # (T, 1, 1, h)
    first, second = cos * a - sin * b, sin * a + cos * b  # (T, N, H, h): each product rounded on its own
    if rope.layout == "interleaved":
        rotated = torch.stack((first, second), dim=-1).flatten(-2)
    else:
        rotated = torch.cat((first, second), dim=-1)
    return rotated.reshape(stop - start, count * dim)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize(("dim", "head"), [(64, 64), (96, 32), (16, 4), (1024, 128)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16])
def test_blocks_equal_the_pair_by_pair_formula(layout, dim, head, dtype):
    rope = RotaryPositionalEmbedding(50000, dim, head, 10000.0, layout=layout, dtype=dtype,
                                     generator=torch.Generator().manual_seed(3))
    grid = max(1, (1 << 22) // (rope.probes.shape[0] * dim))
    for start, stop in [(0, 300), (grid - 7, grid + 9), (3 * grid + 5, 3 * grid + 6), (49990, 50000),
                        (50000, 50100)]:
        assert torch.equal(rope.signal(start, stop), pair_by_pair(rope, start, stop)), (start, stop)


@pytest.mark.parametrize("kind", ["yarn", "dynamic", "llama3"])
def test_scaled_frequencies_and_positions_beyond_ctx(kind):
    scaling = RopeScaling(kind=kind, factor=4.0, original_ctx=2048)
    rope = RotaryPositionalEmbedding(8192, 128, 64, 500000.0, layout="half", scaling=scaling,
                                     generator=torch.Generator().manual_seed(4))
    for start, stop in [(0, 100), (8000, 8300), (16000, 16100)]:  # dynamic NTK changes its frequencies past 8,192
        assert torch.equal(rope.signal(start, stop), pair_by_pair(rope, start, stop)), (kind, start)


def test_a_block_equals_the_same_rows_of_a_longer_block():
    rope = RotaryPositionalEmbedding(1 << 16, 64, 32, generator=torch.Generator().manual_seed(5))
    whole = rope.signal(1000, 20000)
    assert torch.equal(rope.signal(5000, 5100), whole[4000:4100])
    assert torch.equal(rope.signal(8190, 8194), whole[7190:7194])  # across a grid row of 8,192
