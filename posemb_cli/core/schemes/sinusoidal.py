"""Fixed sinusoidal positions (Vaswani et al., 2017): no parameters, one buffer."""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from posemb_cli.core.dtypes import uses_cast_recipe
from posemb_cli.core.schemes.bands import Band, bands_of
from posemb_cli.core.schemes.base import AdditiveTable, check_length
from posemb_cli.core.settings import EmbeddingConfig


class SinusoidalPositionalEmbedding(AdditiveTable, nn.Module):
    """The (L, D) table ``angle = p / base ** (2 * (i // 2) / D)``; sin on even i, cos on odd i.

    In float32 and float64 the angles are computed in float64 and the table cast
    afterwards, so that positions in the hundreds of thousands stay accurate. In
    bfloat16 and float16 the table follows the ``cast`` recipe (``core.dtypes``):
    positions times frequencies and sin/cos in float32, the result cast. Any D >= 1 works: the
    formula is per feature, so an odd D ends with a lone sin feature.
    """

    def __init__(
        self,
        max_ctx: int,
        dim: int,
        base: float = 10000.0,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.max_ctx = max_ctx
        self.dim = dim
        self.base = base
        pairs = torch.arange((dim + 1) // 2, dtype=torch.float64, device=device)
        # One frequency per feature pair k: 1 / base ** (2k / D).
        self.register_buffer("inv_freq", 1.0 / base ** (2.0 * pairs / dim), persistent=False)
        self.register_buffer("pe", self._build_table(device, dtype or torch.float32), persistent=False)

    def _build_table(self, device, dtype: torch.dtype) -> torch.Tensor:
        table = torch.empty(self.max_ctx, self.dim, device=device, dtype=dtype)
        features = torch.arange(self.dim, device=device)
        denominators = self.base ** (2.0 * (features // 2).to(torch.float64) / self.dim)  # (D,)
        cast = uses_cast_recipe(dtype)
        inv_freq = (1.0 / denominators).to(torch.float32)  # (D,): the cast recipe's frequencies
        # Row blocks keep the float64 angles small even for a (131072, 4096) table.
        step = max(1, (1 << 22) // self.dim)
        for start in range(0, self.max_ctx, step):
            stop = min(start + step, self.max_ctx)
            positions = torch.arange(start, stop, dtype=torch.float64, device=device)
            if cast:
                angles = positions.to(torch.float32)[:, None] * inv_freq[None, :]  # (rows, D), float32
            else:
                angles = positions[:, None] / denominators[None, :]  # (rows, D), float64
            table[start:stop, 0::2] = torch.sin(angles[:, 0::2]).to(dtype)
            table[start:stop, 1::2] = torch.cos(angles[:, 1::2]).to(dtype)
        return table

    def forward(self, seq_len: int) -> torch.Tensor:
        check_length(seq_len, self.max_ctx)
        return self.pe[:seq_len]  # (T, D)

    def table(self) -> torch.Tensor:
        return self.pe  # (L, D)

    def inv_freq_for_base(self, base: float) -> np.ndarray:
        """One frequency per feature pair, 1 / base ** (2k / D), with another ``base``: (ceil(D / 2),) float64."""
        pairs = np.arange((self.dim + 1) // 2, dtype=np.float64)
        return 1.0 / base ** (2.0 * pairs / self.dim)

    def bands(self) -> list[Band]:
        """Per feature pair: its frequency and wavelength, 2 pi / frequency."""
        return bands_of(self.inv_freq.tolist())


def build(config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype) -> SinusoidalPositionalEmbedding:
    return SinusoidalPositionalEmbedding(config.ctx, config.dim, config.base, device=device, dtype=dtype)
