"""bfloat16 and float16 in NumPy, without torch: rounding as torch's casts round, and the native recipe's collapse.

Notation: P positions in a block, F frequencies (feature pairs).

Rounding is exact integer arithmetic on float32 bits:

- bfloat16 keeps the top 16 bits of a float32, rounded to nearest, ties to even
  on the bit pattern: add ``0x7FFF`` plus the lowest kept bit, drop the low 16
  bits (c10's ``round_to_nearest_even``). A carry into the exponent rounds the
  largest values up to infinity; infinities stay; NaN becomes the quiet NaN
  ``0x7FC0``. Subnormal float32 values round like any other bit pattern.
- float16 is NumPy's own float32 -> float16 cast: IEEE round to nearest even,
  subnormals below 2**-14, infinity past 65504.

A float64 reaches either dtype through float32, as torch's casts take it (a
``double`` becomes a ``float`` first). Results stay float32 arrays holding the
rounded values, so products and cos/sin of them are computed in float32 as
torch computes 16-bit arithmetic on CPU, then rounded again.
"""

from __future__ import annotations

import numpy as np

HALF_DTYPES = ("bfloat16", "float16")
_BLOCK_ELEMENTS = 1 << 15  # P * F per block: small, since the first collapse ends the scan (bfloat16: 256)
_BFLOAT16_NAN = np.uint32(0x7FC0_0000)

__all__ = ["HALF_DTYPES", "bfloat16_bits", "native_collapse", "round_to"]


def bfloat16_bits(values: np.ndarray) -> np.ndarray:
    """The bfloat16 bit patterns (uint16) of float32 ``values``, rounded to nearest even."""
    single = np.ascontiguousarray(values, dtype=np.float32)
    bits = single.view(np.uint32)
    rounded = bits + (np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1)))  # wraps like uint32_t
    rounded = np.where(np.isnan(single), _BFLOAT16_NAN, rounded)
    return (rounded >> np.uint32(16)).astype(np.uint16)


def round_to(values, dtype: str) -> np.ndarray:
    """``values`` (any float array) rounded to ``dtype`` (bfloat16 or float16), held as float32.

    Raises:
        ValueError: a dtype that is not one of ``HALF_DTYPES``.
    """
    single = np.asarray(values).astype(np.float32)  # a float64 reaches the dtype through float32, as in torch
    if dtype == "bfloat16":
        return (bfloat16_bits(single).astype(np.uint32) << np.uint32(16)).view(np.float32)
    if dtype == "float16":
        with np.errstate(over="ignore"):  # past 65504 is infinity, as the cast defines
            return single.astype(np.float16).astype(np.float32)
    raise ValueError(f"unknown dtype {dtype!r}; choose from {', '.join(HALF_DTYPES)}")


def _native(positions: np.ndarray, inv_freq: np.ndarray, dtype: str) -> np.ndarray:
    """(P, 2F) cos then sin of the positions and frequencies held in ``dtype``, as bit patterns."""
    angles = round_to(round_to(positions, dtype)[:, None] * round_to(inv_freq, dtype)[None, :], dtype)  # (P, F)
    # float32 cos/sin of the 16-bit angle, rounded to the dtype: computed in float64 and rounded to float32
    # first, they are the correctly rounded float32 values torch's float32 kernels give to within their last bit.
    wide = angles.astype(np.float64)
    encoded = np.concatenate((round_to(np.cos(wide), dtype), round_to(np.sin(wide), dtype)), axis=1)  # (P, 2F)
    return encoded.view(np.uint32)


def native_collapse(inv_freq, ctx: int, dtype: str) -> int | None:
    """The first position p below ``ctx - 1`` whose native-recipe vector equals that of p + 1 bit for bit.

    The native recipe holds positions and frequencies in ``dtype``, multiplies them there and takes cos and sin
    there (what a 16-bit buffer or autocast does); ``measures.precision`` measures it with torch.

    Args:
        inv_freq: (F,) float64 frequencies, each giving a cos and a sin feature.
        ctx: positions compared, 0..ctx-1.
        dtype: bfloat16 or float16.

    Returns:
        The position, or None when every pair of neighbours below ctx differs.
    """
    freq = np.asarray(inv_freq, dtype=np.float64)
    rows = max(1, _BLOCK_ELEMENTS // max(freq.shape[0], 1))
    previous = None
    for start in range(0, ctx, rows):
        stop = min(ctx, start + rows)
        encoded = _native(np.arange(start, stop, dtype=np.float64), freq, dtype)  # (P, 2F)
        if previous is not None:
            encoded = np.concatenate((previous[None], encoded))
        same = np.flatnonzero((encoded[1:] == encoded[:-1]).all(axis=1))
        if same.size:
            return int(same[0]) + start - (1 if previous is not None else 0)
        previous = encoded[-1]
    return None
