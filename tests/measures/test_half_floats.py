"""bfloat16 and float16 rounding in NumPy against torch's own casts, and the native collapse against torch's recipe.

The oracle is torch: ``torch.tensor(x, dtype=torch.float32).to(torch.bfloat16)`` (and float16) over a
large sample of float32 bit patterns: every sign and exponent with every pattern of the bits next to
the rounding point (ties to even and odd, one above and below), every float16 subnormal rounding
point, the overflow boundaries, infinities and NaNs, and two million random patterns. Then over the
grids the doctor rule uses: positions 0..4095, frequencies of widths 2..256 and bases 10..1e8, their
products, and the first collapse of ``measures.precision`` (torch) for both dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from posemb_cli.measures.half_floats import bfloat16_bits, native_collapse, round_to
from posemb_cli.measures.precision import encode, measure_precision

TORCH = {"bfloat16": torch.bfloat16, "float16": torch.float16}
# the low 16 bits: bfloat16 rounds at bit 16, float16 at bit 13 (normal) and up to bit 23 (subnormal)
_LOW = [0x0000, 0x0001, 0x0FFF, 0x1000, 0x1001, 0x1FFF, 0x2000, 0x2001, 0x3000, 0x3FFF, 0x4000, 0x4001, 0x6000,
        0x7FFF, 0x8000, 0x8001, 0xA000, 0xBFFF, 0xC000, 0xE000, 0xFFFF]
# bfloat16's largest finite value and its rounding edge, infinity, NaNs; float16's 65504, its midpoint to 65536;
# float16's subnormal range and its edges; float32 subnormals and its smallest normal
_EDGES = [0x7F7F_7FFF, 0x7F7F_8000, 0x7F7F_FFFF, 0x7F80_0000, 0x7F80_0001, 0x7FC0_0000, 0x7FFF_FFFF,
          0x477F_E000, 0x477F_EFFF, 0x477F_F000, 0x477F_FFFF, 0x4780_0000,
          0x3380_0000, 0x3300_0000, 0x3300_0001, 0x32FF_FFFF, 0x3880_0000, 0x387F_E000, 0x387F_F000,
          0x0000_0001, 0x007F_FFFF, 0x0080_0000, 0x0000_8000, 0x0001_8000]


def bit_patterns() -> np.ndarray:
    high = np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)  # every sign, exponent and top 7 mantissa bits
    planted = (high[:, None] | np.array(_LOW, dtype=np.uint32)[None, :]).ravel()
    edges = np.array(_EDGES, dtype=np.uint32)
    random = np.random.default_rng(29).integers(0, 1 << 32, size=2_000_000, dtype=np.uint64).astype(np.uint32)
    return np.concatenate((planted, edges, edges | np.uint32(0x8000_0000), random))


def torch_rounded(values: np.ndarray, dtype: str) -> np.ndarray:
    return torch.tensor(values, dtype=torch.float32).to(TORCH[dtype]).to(torch.float32).numpy()


def assert_same_rounding(mine: np.ndarray, theirs: np.ndarray) -> None:
    nan = np.isnan(theirs)
    np.testing.assert_array_equal(np.isnan(mine), nan)  # NaN bits differ between torch's own kernels
    different = np.flatnonzero(mine[~nan].view(np.uint32) != theirs[~nan].view(np.uint32))
    assert different.size == 0, [hex(int(x)) for x in mine[~nan].view(np.uint32)[different[:5]]]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_rounding_of_every_kind_of_float32_matches_torch(dtype):
    values = bit_patterns().view(np.float32)
    assert np.isinf(values).any() and np.isnan(values).any() and (np.abs(values) < np.finfo(np.float32).tiny).any()
    assert_same_rounding(round_to(values, dtype), torch_rounded(values, dtype))


def test_bfloat16_bits_are_torchs_bits_and_nan_stays_nan():
    values = bit_patterns().view(np.float32)
    theirs = torch.tensor(values, dtype=torch.float32).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    mine = bfloat16_bits(values)
    finite_or_inf = ~np.isnan(values)
    np.testing.assert_array_equal(mine[finite_or_inf], theirs[finite_or_inf])
    assert set(mine[~finite_or_inf].tolist()) == {0x7FC0}


def test_hand_worked_ties():
    # 257 lies halfway between bfloat16's 256 and 258: to even, 256; 259 halfway between 258 and 260: to 260
    np.testing.assert_array_equal(round_to(np.array([255.0, 256.0, 257.0, 259.0]), "bfloat16"), [255, 256, 256, 260])
    np.testing.assert_array_equal(round_to(np.array([2049.0, 2051.0, 65519.0, 65520.0]), "float16"),
                                  [2048, 2052, 65504, np.inf])
    assert round_to(np.array([2.0 ** -25]), "float16")[0] == 0.0  # halfway to the smallest subnormal: to even, 0
    assert round_to(np.array([3 * 2.0 ** -25]), "float16")[0] == 2.0 ** -23


def test_float64_goes_through_float32_as_torch_casts_do():
    # 1 + 2**-8 + 2**-30: directly it rounds up in bfloat16; through float32 it is the tie 1 + 2**-8, to even: 1
    value = np.array([1 + 2.0 ** -8 + 2.0 ** -30])
    theirs = torch.tensor(value, dtype=torch.float64).to(torch.bfloat16).to(torch.float64).numpy()
    assert round_to(value, "bfloat16")[0] == theirs[0] == 1.0


def grid_frequencies():
    for width in (2, 8, 64, 96, 128, 256):
        for base in (10.0, 1e4, 5e5, 1e6, 1e8):
            yield width, base, 1.0 / base ** (np.arange(0, width, 2, dtype=np.float64) / width)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_positions_frequencies_and_products_of_the_rule_match_torch(dtype):
    positions = np.arange(4096, dtype=np.float64)
    theirs_positions = torch.from_numpy(positions).to(TORCH[dtype])
    assert_same_rounding(round_to(positions, dtype), theirs_positions.to(torch.float32).numpy())
    for _, _, frequencies in grid_frequencies():
        theirs_frequencies = torch.from_numpy(frequencies).to(TORCH[dtype])
        assert_same_rounding(round_to(frequencies, dtype), theirs_frequencies.to(torch.float32).numpy())
        products = round_to(round_to(positions, dtype)[:, None] * round_to(frequencies, dtype)[None, :], dtype)
        theirs = (theirs_positions[:, None] * theirs_frequencies[None, :]).to(torch.float32).numpy()
        assert_same_rounding(products, theirs)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_native_collapse_is_torchs_first_collapse(dtype):
    for width, base, frequencies in grid_frequencies():
        for ctx in (200, 256, 257, 258, 2048, 2049, 2050, 4096):
            expected = measure_precision(frequencies, ctx, dtype, "native").first_collapse
            assert native_collapse(frequencies, ctx, dtype) == expected, (width, base, ctx)
    assert native_collapse(np.array([1.0]), 4096, dtype) == {"bfloat16": 256, "float16": 2048}[dtype]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_native_vectors_differ_from_torchs_only_at_a_float32_tie(dtype):
    """cos/sin are the only values not rounded bit for bit as torch does: torch's float32 kernels are within a
    float32 ulp of the correctly rounded value, so where that value lies a float32 ulp from a 16-bit midpoint the
    two may round apart by one 16-bit step. Everything else is equal."""
    from posemb_cli.measures.half_floats import _native

    positions = np.arange(4096, dtype=np.float64)
    for _, _, frequencies in grid_frequencies():
        cos, sin = encode(torch.from_numpy(positions), torch.from_numpy(frequencies), TORCH[dtype], "native")
        theirs = torch.cat((cos, sin), dim=1).to(torch.float32).numpy()
        mine = _native(positions, frequencies, dtype).view(np.float32)
        apart = mine != theirs
        assert apart.mean() < 1e-3
        angles = round_to(round_to(positions, dtype)[:, None] * round_to(frequencies, dtype)[None, :], dtype)
        exact = np.concatenate((np.cos(angles.astype(np.float64)), np.sin(angles.astype(np.float64))), axis=1)
        single = exact.astype(np.float32)
        step = np.abs(mine - theirs)[apart]
        ulp16 = np.spacing(round_to(np.abs(single[apart]), dtype)) * (2.0 ** 13 if dtype == "float16" else 2.0 ** 16)
        assert (step <= ulp16 * 1.0000001).all()  # one 16-bit step at most
        midpoint = (mine[apart].astype(np.float64) + theirs[apart]) / 2
        assert (np.abs(single[apart] - midpoint) <= np.spacing(np.abs(single[apart]))).all()  # at a tie
