"""How a frequency position signal survives a dtype: two recipes against a float64 truth.

Notation: P positions in a block, F frequencies (feature pairs).

For every position p below ctx the signal is ``cos(p * f)`` and ``sin(p * f)``
for each frequency f, computed two ways:

- ``native``: positions and frequencies held in the dtype, their product and
  cos/sin computed in it (what a 16-bit buffer or autocast does);
- ``cast``: positions, frequencies, product and cos/sin in float32 (float64 for
  float64), the result cast to the dtype (what careful implementations do).

Each is compared with float64: the first position whose encoded vector equals
that of the next position bit for bit, the largest phase error (radians,
wrapped to [0, pi]) and the largest value error. Positions are streamed in
blocks, so working memory stays at a few (P, F) float64 arrays whatever ctx is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

RECIPES = ("native", "cast")
_BLOCK_ELEMENTS = 1 << 18  # P * F per block

__all__ = ["RECIPES", "PrecisionResult", "encode", "log_positions", "measure_precision"]


@dataclass(frozen=True)
class PrecisionResult:
    """One dtype and recipe measured over every position below ctx."""

    dtype: str
    recipe: str
    first_collapse: int | None
    max_phase_error: float
    max_value_error: float
    by_position: list[dict]

    def to_dict(self) -> dict:
        return {"dtype": self.dtype, "recipe": self.recipe, "first_collapse": self.first_collapse,
                "max_phase_error": self.max_phase_error, "max_value_error": self.max_value_error,
                "by_position": self.by_position}


def log_positions(ctx: int) -> list[int]:
    """Positions 0, 1, 2, 4, ... below ctx, and ctx - 1."""
    positions = [0] + [1 << k for k in range(max(ctx - 1, 1).bit_length()) if (1 << k) < ctx]
    if ctx - 1 not in positions:
        positions.append(ctx - 1)
    return positions


def encode(positions, inv_freq, dtype, recipe: str):
    """cos and sin of ``positions * inv_freq`` as the recipe computes them.

    Args:
        positions: (P,) float64 whole numbers.
        inv_freq: (F,) float64 frequencies.
        dtype: the torch dtype the signal ends in.
        recipe: ``native`` or ``cast``.

    Returns:
        ``(cos, sin)``, each (P, F) in ``dtype``.
    """
    import torch

    if recipe == "native":
        angles = positions.to(dtype)[:, None] * inv_freq.to(dtype)[None, :]  # (P, F) in the dtype
        return torch.cos(angles), torch.sin(angles)
    if recipe != "cast":
        raise ValueError(f"unknown recipe {recipe!r}; choose from {', '.join(RECIPES)}")
    compute = torch.float64 if dtype == torch.float64 else torch.float32
    angles = positions.to(compute)[:, None] * inv_freq.to(compute)[None, :]  # (P, F)
    return torch.cos(angles).to(dtype), torch.sin(angles).to(dtype)


def _bits(x):
    """The same tensor read as integers of its width, for a bit-for-bit comparison."""
    import torch

    return x.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[x.element_size()])


def _row_max(x):
    """Largest value of each row of (P, n); zeros when n is 0."""
    return x.amax(dim=1) if x.shape[1] else x.new_zeros(x.shape[0])


def measure_precision(inv_freq: np.ndarray, ctx: int, dtype_name: str, recipe: str, *,
                      lone_sin: bool = False, block_rows: int | None = None) -> PrecisionResult:
    """Measure one dtype and recipe over positions 0..ctx-1.

    Args:
        inv_freq: (F,) float64 frequencies as used (after any scaling).
        ctx: positions measured, 0..ctx-1.
        dtype_name: float32, float64, float16 or bfloat16.
        recipe: ``native`` or ``cast``.
        lone_sin: the last frequency carries only a sin feature (a sinusoidal table of odd width).
        block_rows: positions per block (default: about 2**18 / F).

    Returns:
        The result; ``by_position`` holds ``{"position", "phase_error", "value_error"}`` at log-spaced positions.
    """
    import torch

    from posemb_cli.core.dtypes import resolve_dtype

    dtype = resolve_dtype(dtype_name)
    freq = torch.as_tensor(np.asarray(inv_freq, dtype=np.float64))
    count = freq.shape[0]
    paired = count - 1 if lone_sin else count  # frequencies with both a cos and a sin feature
    rows = block_rows or max(1, _BLOCK_ELEMENTS // max(count, 1))
    wanted = set(log_positions(ctx))
    collapse, previous = None, None
    max_phase, max_value, by_position = 0.0, 0.0, []
    for start in range(0, ctx, rows):
        stop = min(ctx, start + rows)
        positions = torch.arange(start, stop, dtype=torch.float64)  # (P,)
        cos, sin = encode(positions, freq, dtype, recipe)  # (P, F) each
        truth = positions[:, None] * freq[None, :]  # (P, F) float64
        cos64, sin64 = cos.to(torch.float64), sin.to(torch.float64)
        value = torch.maximum(_row_max((cos64[:, :paired] - torch.cos(truth[:, :paired])).abs()),
                              _row_max((sin64 - torch.sin(truth)).abs()))  # (P,)
        phase = torch.remainder(torch.atan2(sin64, cos64)[:, :paired] - truth[:, :paired] + math.pi, 2 * math.pi)
        phase = _row_max((phase - math.pi).abs())  # (P,) radians in [0, pi]
        max_phase, max_value = max(max_phase, float(phase.max())), max(max_value, float(value.max()))
        for p in sorted(wanted.intersection(range(start, stop))):
            by_position.append({"position": p, "phase_error": float(phase[p - start]),
                                "value_error": float(value[p - start])})
        if collapse is None:
            encoded = _bits(torch.cat((cos[:, :paired], sin), dim=1))  # (P, paired + F)
            if previous is not None:
                encoded = torch.cat((previous[None], encoded))
            same = (encoded[1:] == encoded[:-1]).all(dim=1).nonzero()
            if same.numel():
                collapse = int(same[0, 0]) + start - (1 if previous is not None else 0)
            previous = encoded[-1]
    return PrecisionResult(dtype=dtype_name, recipe=recipe, first_collapse=collapse, max_phase_error=max_phase,
                           max_value_error=max_value, by_position=by_position)
