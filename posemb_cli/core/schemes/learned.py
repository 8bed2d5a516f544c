"""Learned absolute positions: a second (L, D) lookup table, one row per position."""

from __future__ import annotations

import torch
from torch import nn

from posemb_cli.core.embeddings import normal_weight
from posemb_cli.core.schemes.base import AdditiveTable, check_length
from posemb_cli.core.settings import EmbeddingConfig


class LearnedPositionalEmbedding(AdditiveTable, nn.Module):
    """``nn.Embedding(L, D)`` looked up with positions 0..T-1.

    Adds L * D parameters and cannot serve position L or beyond: that row does
    not exist, so a longer input is refused.
    """

    def __init__(
        self,
        max_ctx: int,
        dim: int,
        init_std: float = 0.02,
        *,
        generator: torch.Generator | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.max_ctx = max_ctx
        self.dim = dim
        self.embedding = nn.Embedding(max_ctx, dim, _weight=normal_weight(
            max_ctx, dim, init_std, generator=generator, device=device, dtype=dtype))

    def forward(self, seq_len: int) -> torch.Tensor:
        check_length(seq_len, self.max_ctx)
        # Rows 0..T-1: the same values (and gradients) as looking up arange(T), without a copy.
        return self.embedding.weight[:seq_len]  # (T, D)

    def table(self) -> torch.Tensor:
        return self.embedding.weight.detach()  # (L, D)

    def bands(self) -> None:
        return None


def build(config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype) -> LearnedPositionalEmbedding:
    # Its own stream, derived from the seed, so the table does not depend on what was drawn before.
    generator = torch.Generator().manual_seed(config.seed + 1)
    return LearnedPositionalEmbedding(
        config.ctx, config.dim, config.init_std, generator=generator, device=device, dtype=dtype)
