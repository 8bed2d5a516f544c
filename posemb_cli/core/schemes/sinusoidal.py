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

    No (L, D) buffer is kept: ``signal(start, stop)`` computes any block of rows from the
    formula, so a table of millions of positions costs nothing until its rows are read.

    In float32 and float64 the angles are computed in float64 and the table cast
    afterwards, so that positions in the hundreds of thousands stay accurate. In
    bfloat16 and float16 the table follows the ``cast`` recipe (``core.dtypes``):
    positions times frequencies and sin/cos in float32, the result cast. Any D >= 1 works: the
    formula is per feature, so an odd D ends with a lone sin feature.
    """

    inv_freq: torch.Tensor  # (ceil(D/2),) float64 buffer: one frequency per feature pair
    denominators: torch.Tensor  # (D,) float64 buffer: base ** (2 (i // 2) / D)

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
        self.dtype = dtype or torch.float32
        pairs = torch.arange((dim + 1) // 2, dtype=torch.float64, device=device)
        # One frequency per feature pair k: 1 / base ** (2k / D).
        self.register_buffer("inv_freq", 1.0 / base ** (2.0 * pairs / dim), persistent=False)
        features = torch.arange(dim, device=device)
        # (D,) float64 denominators base ** (2 (i // 2) / D), one per feature.
        self.register_buffer("denominators", base ** (2.0 * (features // 2).to(torch.float64) / dim),
                             persistent=False)
        self._prefix = self.denominators.new_empty(0, dim, dtype=self.dtype)  # rows 0..T-1 that forward served

    def rows(self, start: int, stop: int) -> torch.Tensor:
        """Rows start..stop-1 of the table, from the formula: (stop - start, D) in the scheme's dtype.

        Every element depends on its own position and feature only, so any block of rows equals
        the same rows of the whole table, bit for bit; nothing of size L is built.
        """
        device, dtype = self.denominators.device, self.dtype
        out = torch.empty(max(stop - start, 0), self.dim, device=device, dtype=dtype)
        cast = uses_cast_recipe(dtype)
        inv_freq = (1.0 / self.denominators).to(torch.float32)  # (D,): the cast recipe's frequencies
        # Row blocks keep the float64 angles small even for a (131072, 4096) table.
        step = max(1, (1 << 22) // self.dim)
        for first in range(start, stop, step):
            last = min(first + step, stop)
            positions = torch.arange(first, last, dtype=torch.float64, device=device)
            if cast:
                angles = positions.to(torch.float32)[:, None] * inv_freq[None, :]  # (rows, D), float32
            else:
                angles = positions[:, None] / self.denominators[None, :]  # (rows, D), float64
            out[first - start:last - start, 0::2] = torch.sin(angles[:, 0::2]).to(dtype)
            out[first - start:last - start, 1::2] = torch.cos(angles[:, 1::2]).to(dtype)
        return out

    def forward(self, seq_len: int) -> torch.Tensor:
        check_length(seq_len, self.max_ctx)
        if self._prefix.shape[0] < seq_len:  # the rows a batch needs, built once per length
            self._prefix = self.rows(0, seq_len)
        return self._prefix[:seq_len]  # (T, D)

    def table(self) -> torch.Tensor:
        """The whole (L, D) table, built on request: the measures read ``signal`` blocks instead."""
        return self.rows(0, self.max_ctx)  # (L, D)

    def signal(self, start: int = 0, stop: int | None = None) -> torch.Tensor:
        """Rows start..stop-1 of the table, computed from the formula: (stop - start, D)."""
        stop = self.max_ctx if stop is None else stop
        check_length(stop, self.max_ctx)
        return self.rows(start, stop)

    def exact_neighbour_similarity(self, max_offset: int) -> list[float] | None:
        """cos(row p, row p + k) = mean_i cos(k w_i) over the D/2 frequencies, in float64; k = 1..K.

        Rows p and p + k hold (sin, cos) of p w_i and (p + k) w_i, so their dot product is
        sum_i cos(k w_i) and each norm is sqrt(D/2). An odd D ends with a lone sin feature whose
        product depends on p: None.
        """
        if self.dim % 2:
            return None
        offsets = torch.arange(1, max_offset + 1, dtype=torch.float64, device=self.inv_freq.device)[:, None]
        return torch.cos(offsets * self.inv_freq[None, :]).mean(dim=1).tolist()  # (K,)

    def inv_freq_for_base(self, base: float) -> np.ndarray:
        """One frequency per feature pair, 1 / base ** (2k / D), with another ``base``: (ceil(D / 2),) float64."""
        pairs = np.arange((self.dim + 1) // 2, dtype=np.float64)
        return 1.0 / base ** (2.0 * pairs / self.dim)

    def bands(self) -> list[Band]:
        """Per feature pair: its frequency and wavelength, 2 pi / frequency."""
        return bands_of(self.inv_freq.tolist())


def build(config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype) -> SinusoidalPositionalEmbedding:
    return SinusoidalPositionalEmbedding(config.ctx, config.dim, config.base, device=device, dtype=dtype)
