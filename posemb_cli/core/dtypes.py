"""Dtype rules: the four dtypes a table may take, by name, and their sizes (no torch at import)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

DTYPES = ("float32", "float64", "float16", "bfloat16")
_SIZES = {"float32": 4, "float64": 8, "float16": 2, "bfloat16": 2}

__all__ = ["DTYPES", "dtype_size", "resolve_dtype"]


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
