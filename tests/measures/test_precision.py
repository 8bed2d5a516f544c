"""The precision measure against first principles: integer spacing of each dtype, and NumPy's own rounding."""

from __future__ import annotations

import math

import numpy as np
import pytest
from posemb_cli.measures.precision import log_positions, measure_precision

SIGNIFICANT_BITS = {"bfloat16": 8, "float16": 11}  # stored fraction bits + the implicit leading one


def round_to_bits(n: int, bits: int) -> int:
    """A whole number rounded to ``bits`` significant bits, ties to even (IEEE round-to-nearest)."""
    if n < (1 << bits):
        return n
    spacing = 1 << (n.bit_length() - bits)
    low, rest = divmod(n, spacing)
    if rest * 2 > spacing or (rest * 2 == spacing and low % 2):
        low += 1
    return low * spacing


def first_equal_neighbours(bits: int, ctx: int) -> int | None:
    """The first p whose held value equals that of p + 1: a plain loop over the integer spacing."""
    for p in range(ctx - 1):
        if round_to_bits(p, bits) == round_to_bits(p + 1, bits):
            return p
    return None


def rope_frequencies(head: int = 128, base: float = 10000.0) -> np.ndarray:
    return 1.0 / base ** (np.arange(0, head, 2, dtype=np.float64) / head)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_native_positions_collapse_where_integers_stop_being_exact(dtype):
    expected = first_equal_neighbours(SIGNIFICANT_BITS[dtype], 8192)
    assert expected == {"bfloat16": 256, "float16": 2048}[dtype]  # 2**8 and 2**11, from the spacing alone
    result = measure_precision(rope_frequencies(), 8192, dtype, "native")
    assert result.first_collapse == expected
    assert result.max_phase_error > 1.0  # held positions 16 and 32 apart: whole radians lost at pair 0


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_cast_recipe_never_collapses(dtype):
    result = measure_precision(rope_frequencies(), 8192, dtype, "cast")
    assert result.first_collapse is None
    # float32 angles lose at most ctx * 2**-24 radians; the cast then rounds to half an ulp of |x| <= 1
    half_ulp = {"float32": 2.0 ** -24, "bfloat16": 2.0 ** -9, "float16": 2.0 ** -12}[dtype]
    assert result.max_value_error <= 8192 * 2.0 ** -24 + half_ulp + 1e-12


def test_float16_native_against_numpy_half_arithmetic():
    freq = rope_frequencies(16)
    ctx = 3000
    positions = np.arange(ctx).astype(np.float16)
    angles = positions[:, None] * freq.astype(np.float16)[None, :]  # NumPy rounds each product to float16
    cos, sin = np.cos(angles).astype(np.float64), np.sin(angles).astype(np.float64)
    truth = np.arange(ctx, dtype=np.float64)[:, None] * freq[None, :]
    value = max(np.abs(cos - np.cos(truth)).max(), np.abs(sin - np.sin(truth)).max())
    phase = np.abs(np.remainder(np.arctan2(sin, cos) - truth + math.pi, 2 * math.pi) - math.pi).max()
    result = measure_precision(freq, ctx, "float16", "native")
    assert result.max_value_error == pytest.approx(value, abs=2.0 ** -11)
    assert result.max_phase_error == pytest.approx(phase, abs=2.0 ** -10)
    encoded = np.concatenate((cos, sin), axis=1)
    same = np.flatnonzero((encoded[1:] == encoded[:-1]).all(axis=1))
    assert result.first_collapse == int(same[0])


@pytest.mark.parametrize("block_rows", [256, 257, 1000])
def test_blocks_do_not_change_the_figures(block_rows):
    whole = measure_precision(rope_frequencies(32), 1024, "bfloat16", "native")
    blocked = measure_precision(rope_frequencies(32), 1024, "bfloat16", "native", block_rows=block_rows)
    assert blocked == whole
    assert blocked.first_collapse == 256


def test_by_position_is_log_spaced_and_matches_a_direct_error():
    freq = rope_frequencies(8)
    result = measure_precision(freq, 1000, "float32", "cast")
    assert [row["position"] for row in result.by_position] == [0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 999]
    assert log_positions(1024)[-1] == 1023
    for row in result.by_position:
        p = row["position"]
        angles = np.float32(p) * freq.astype(np.float32)
        expected = max(np.abs(np.cos(angles).astype(np.float64) - np.cos(p * freq)).max(),
                       np.abs(np.sin(angles).astype(np.float64) - np.sin(p * freq)).max())
        assert row["value_error"] == pytest.approx(expected, abs=2.0 ** -24)


def test_lone_sin_leaves_the_missing_cos_out():
    freq = 1.0 / 10000.0 ** (2.0 * np.arange(3) / 5)  # a sinusoidal table of width 5: 3 sin, 2 cos
    result = measure_precision(freq, 64, "float64", "native", lone_sin=True)
    assert result.max_value_error < 1e-12 and result.first_collapse is None
    # Two slow pairs and a fast lone sin, in float16: the fast angle is far off, so a cos (and a phase)
    # for it would dominate; left out, the phase error is the two pairs' alone, while its sin still counts.
    freq = np.array([1e-3, 1e-3, 5.0])
    lone = measure_precision(freq, 4096, "float16", "native", lone_sin=True)
    counted = measure_precision(freq, 4096, "float16", "native", lone_sin=False)
    pairs = measure_precision(freq[:2], 4096, "float16", "native")
    assert lone.max_phase_error == pairs.max_phase_error
    assert counted.max_phase_error > 100 * lone.max_phase_error
    assert lone.max_value_error > 100 * pairs.max_value_error
