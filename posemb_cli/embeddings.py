"""Token embedding and the composer that adds a positional part to it.

Notation: B batch, T sequence length, D model dimension, V vocabulary size,
L max context length (rows of a positional table).
"""

from __future__ import annotations

import torch
from torch import nn


def normal_weight(
    rows: int,
    dim: int,
    std: float,
    *,
    generator: torch.Generator | None = None,
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
) -> nn.Parameter:
    """A (rows, dim) parameter drawn from N(0, std^2).

    The draw happens on the CPU in float32, so one seed gives the same table on
    every device and dtype (up to the cast).
    """
    weight = torch.empty(rows, dim, dtype=torch.float32).normal_(0.0, std, generator=generator)
    return nn.Parameter(weight.to(device=device, dtype=dtype or torch.float32))


class TokenEmbedding(nn.Module):
    """A (V, D) lookup table: (B, T) int64 ids -> (B, T, D) vectors.

    Args:
        vocab: V, the number of rows.
        dim: D, the width of each row.
        init_std: standard deviation of the N(0, std^2) initial rows.
        generator: the seeded source of the initial rows.
    """

    def __init__(
        self,
        vocab: int,
        dim: int,
        init_std: float = 0.02,
        *,
        generator: torch.Generator | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.embedding = nn.Embedding(vocab, dim, _weight=normal_weight(
            vocab, dim, init_std, generator=generator, device=device, dtype=dtype))

    @property
    def weight(self) -> nn.Parameter:
        return self.embedding.weight

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.embedding(ids)  # (B, T) -> (B, T, D)


class EmbeddingComposer(nn.Module):
    """The transformer's input: token vectors plus the positional part, by addition.

    Args:
        token: maps (B, T) ids to (B, T, D).
        position: maps a length T to its additive part, (T, D) or a broadcastable zero.
    """

    def __init__(self, token: TokenEmbedding, position: nn.Module) -> None:
        super().__init__()
        self.token = token
        self.position = position

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        seq_len = ids.shape[1]
        return self.token(ids) + self.position(seq_len).unsqueeze(0)  # (B, T, D) + (1, T, D)
