"""Estimate the bytes a run needs before anything is allocated, and refuse what will not fit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from posemb_cli.core.dtypes import dtype_size
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds.limits import cpu_available_bytes, format_bytes

__all__ = ["available_bytes", "estimate_bench_bytes", "estimate_bytes", "format_bytes", "require_fits"]

if TYPE_CHECKING:
    import torch

_FLOAT32 = 4
_INT64 = 8


# Schemes whose rows come from a formula, block by block: no (L, D) table is ever held.
_ANALYTIC = frozenset({"sinusoidal", "rope", "alibi", "none"})
# The measures' working tensors: a few blocks of the signal (measures/block_reader.py) and their temporaries.
STREAM_BYTES = 256 << 20


def estimate_bytes(config: EmbeddingConfig, schemes: tuple[str, ...]) -> int:
    """Peak bytes of a compare/inspect run: stored tables, the batch and outputs, and the streamed blocks.

    Analytic schemes (sinusoidal, rope, alibi, none) generate their rows block by block and hold no
    table; a learned table is held once (its determinism rebuild is drawn again block by block).
    """
    element = dtype_size(config.dtype)
    vocab, dim, ctx = config.vocab, config.dim, config.ctx
    tokens = config.batch * config.seq_len
    total = vocab * dim * (element + _FLOAT32)  # token table, drawn in float32 then cast
    total += tokens * (_INT64 + dim * element)  # ids and the token vectors
    for name in schemes:
        if name not in _ANALYTIC:
            total += ctx * dim * element  # the positional table
        if name == "learned" and config.dtype != "float32":
            total += ctx * dim * _FLOAT32  # its float32 draw, cast afterwards
        total += tokens * dim * element  # the composer's output
    return total + STREAM_BYTES


def available_bytes(device: torch.device) -> int | None:
    """Free memory on the device that will hold the tensors, or None when unknown."""
    if device.type == "cuda":
        import torch

        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    return cpu_available_bytes()


def require_fits(needed: int, device: torch.device, *, flags: str) -> None:
    """Raise PosembError, with the estimate, when ``needed`` bytes exceed what is free."""
    free = available_bytes(device)
    if free is not None and needed > free:
        raise PosembError(
            f"{flags}: this run needs about {format_bytes(needed)} but {format_bytes(free)} "
            f"is free on {device}; lower them")


def estimate_bench_bytes(configs: tuple[EmbeddingConfig, ...], schemes: tuple[str, ...]) -> int:
    """Peak bytes of a bench run: the largest dim's compare-sized run plus the reused output and
    the copy's source and target, each (B, T, D)."""
    return max(
        estimate_bytes(config, schemes) + 3 * config.batch * config.seq_len * config.dim * dtype_size(config.dtype)
        for config in configs)
