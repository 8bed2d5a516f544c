"""Dtype rules: the four dtypes a table may take, by name, their sizes, and how a signal is computed in each.

A frequency signal (sinusoidal table, RoPE cos/sin) follows one recipe per dtype,
stated in every JSON ``config`` as ``signal_recipe``:

- ``float64``: positions, frequencies, angles and cos/sin in float64.
- ``float64-angles`` (float32): angles formed in float64 (RoPE reduces them mod 2 pi there),
  cos/sin then taken or cast to float32.
- ``cast`` (bfloat16, float16): positions, frequencies, their product and cos/sin in float32,
  the result cast to the dtype, as careful implementations do; ``posemb precision``
  measures this recipe and the ``native`` one (everything held in the dtype) per dtype.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

DTYPES = ("float32", "float64", "float16", "bfloat16")
_SIZES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}

SIGNAL_RECIPES = {"float64": "float64", "float32": "float64-angles", "bfloat16": "cast", "float16": "cast"}

ROUNDING_EPS = 1000  # a figure zero by construction is within rounding up to this many epsilons of its compute dtype

__all__ = ["DTYPES", "ROUNDING_EPS", "SIGNAL_RECIPES", "dtype_size", "resolve_dtype", "rounding_level", "signal_recipe",
           "uses_cast_recipe"]


def resolve_dtype(name: str) -> torch.dtype:
    """The torch dtype of a name in ``DTYPES``."""
    import torch

    return {
        "float32": torch.float32,
        "float64": torch.float64,
        "float16": torch.float16,
        "bfloat16": torch.bfloat16,
    }[name]


def dtype_size(name: str) -> int:
    """Bytes per element of a dtype name, without importing torch."""
    return _SIZES[name]


def signal_recipe(name: str) -> str:
    """The recipe a frequency signal follows in dtype ``name`` (see the module docstring)."""
    return SIGNAL_RECIPES[name]


def uses_cast_recipe(dtype: torch.dtype) -> bool:
    """True for the 16-bit dtypes, whose signal is computed in float32 and cast."""
    import torch

    return dtype in (torch.bfloat16, torch.float16)


def rounding_level(dtype: torch.dtype) -> float:
    """The relative rounding level of a figure computed from data of ``dtype``: ``ROUNDING_EPS`` epsilons of the
    dtype the arithmetic runs in (float64 for float64 data, float32 for the others, as the measures compute).

    A relative figure at or below it (a residual, a gap, a spread that is zero by construction) is rounding.
    """
    import torch

    compute = torch.float64 if dtype == torch.float64 else torch.float32
    return ROUNDING_EPS * torch.finfo(compute).eps
