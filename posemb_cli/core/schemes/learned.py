"""Learned absolute positions: a second (L, D) lookup table, one row per position."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch

from posemb_cli.core.embeddings import NormalTable, normal_rows
from posemb_cli.core.schemes.base import AdditiveTable, check_length
from posemb_cli.core.settings import EmbeddingConfig


class LearnedPositionalEmbedding(AdditiveTable, NormalTable):
    """``nn.Embedding(L, D)`` looked up with positions 0..T-1.

    Adds L * D parameters and cannot serve position L or beyond: that row does
    not exist, so a longer input is refused.
    """

    stored = True  # table() is the parameter itself

    def __init__(self, max_ctx: int, dim: int, init_std: float = 0.02, **draw: Any) -> None:
        super().__init__(max_ctx, dim, init_std, **draw)  # draw: generator, device, dtype (NormalTable)
        self.max_ctx = max_ctx

    def forward(self, seq_len: int) -> torch.Tensor:
        check_length(seq_len, self.max_ctx)
        # Rows 0..T-1: the same values (and gradients) as looking up arange(T), without a copy.
        return self.embedding.weight[:seq_len]  # (T, D)

    def table(self) -> torch.Tensor:
        return self.embedding.weight.detach()  # (L, D)

    def bands(self) -> None:
        return None


def _generator(config: EmbeddingConfig) -> torch.Generator:
    # Its own stream, derived from the seed, so the table does not depend on what was drawn before.
    return torch.Generator().manual_seed(config.seed + 1)


def drawn_rows(config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype) -> Iterator[torch.Tensor]:
    """The rows ``build`` draws, drawn again block by block (no second whole table): (b, D) each."""
    return normal_rows(config.ctx, config.dim, config.init_std, generator=_generator(config), device=device,
                       dtype=dtype, block_rows=max(16, (1 << 21) // max(config.dim, 1)))


def build(config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype) -> LearnedPositionalEmbedding:
    return LearnedPositionalEmbedding(
        config.ctx, config.dim, config.init_std, generator=_generator(config), device=device, dtype=dtype)
