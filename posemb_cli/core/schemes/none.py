"""NoPE: no positional signal at all, as a null object (x-transformers' ``always(0)``).

The composer adds its zero like any other scheme's part; attention over its
output is then permutation-equivariant.
"""

from __future__ import annotations

import torch
from torch import nn

from posemb_cli.core.schemes.base import InAttention
from posemb_cli.core.settings import EmbeddingConfig


class NoPositionalEncoding(InAttention, nn.Module):
    """A zero (T, D) additive part for any length; no parameters, no buffers of size L."""

    acts_on = "nothing"
    zero: torch.Tensor  # () buffer

    def __init__(self, max_ctx: int, dim: int, *, device: torch.device | str | None = None,
                 dtype: torch.dtype | None = None) -> None:
        super().__init__()
        self.max_ctx, self.dim = max_ctx, dim
        self.register_buffer("zero", torch.zeros((), dtype=dtype or torch.float32, device=device), persistent=False)

    def forward(self, seq_len: int) -> torch.Tensor:
        return self.zero.expand(seq_len, self.dim)  # (T, D) view of one zero

    def table(self) -> torch.Tensor:
        return self.forward(self.max_ctx)  # (L, D) of zeros

    def signal(self, start: int = 0, stop: int | None = None) -> torch.Tensor:
        """Zeros: no position carries anything, (stop - start, D)."""
        stop = self.max_ctx if stop is None else stop
        return self.forward(stop)[start:stop]

    def bands(self) -> None:
        return None

    def pair_scores(self, q: torch.Tensor, k: torch.Tensor, m: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """q . k whatever the positions: (P,)."""
        return (q * k).sum().to(torch.float64).expand(m.shape[0])


def build(config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype) -> NoPositionalEncoding:
    return NoPositionalEncoding(config.ctx, config.dim, device=device, dtype=dtype)
