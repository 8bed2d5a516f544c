"""ALiBi (Press et al., 2022): a per-head linear distance penalty added to attention scores.

Notation: T sequence length, L max context, D model width, H heads.

Nothing is added to the input (``forward`` is a zero additive part). Head h
adds ``-slope_h * |m - n|`` to the score of query m against key n; in the
paper's causal setting only n <= m is seen, so the bias is ``-slope_h * (m - n)``.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posemb_cli.core.schemes.base import ZeroInput
from posemb_cli.core.settings import EmbeddingConfig


def alibi_slopes(heads: int) -> list[float]:
    """The paper's slopes: for H a power of two, the geometric sequence from 2^(-8/H) with ratio 2^(-8/H).

    Otherwise the slopes of the closest power of two below H, then every other
    slope of twice that power, as many as are still missing.
    """
    def power_of_two(n: int) -> list[float]:
        start = 2.0 ** (-8.0 / n)
        return [start ** (i + 1) for i in range(n)]

    if heads & (heads - 1) == 0:
        return power_of_two(heads)
    closest = 1 << (heads.bit_length() - 1)
    return power_of_two(closest) + alibi_slopes(2 * closest)[0::2][: heads - closest]


class AlibiPositionalBias(ZeroInput, nn.Module):
    """ALiBi with ``heads`` heads over ``dim`` features: no parameters, one (H,) slope buffer."""

    slopes: torch.Tensor  # (H,) float64 buffer

    def __init__(
        self,
        max_ctx: int,
        dim: int,
        heads: int = 8,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if heads < 1 or dim % heads:
            raise ValueError(f"heads {heads} must divide dim {dim}")
        self.max_ctx, self.dim, self.heads = max_ctx, dim, heads
        self.dtype = dtype or torch.float32
        self.register_buffer("slopes", torch.tensor(alibi_slopes(heads), dtype=torch.float64, device=device),
                             persistent=False)

    def anchor(self) -> torch.Tensor:
        return self.slopes

    def bias(self, query_positions: torch.Tensor, key_positions: torch.Tensor) -> torch.Tensor:
        """``-slope_h * |m - n|`` for every query m and key n: (H, Tq, Tk) float64."""
        distance = (query_positions[:, None] - key_positions[None, :]).abs().to(torch.float64)  # (Tq, Tk)
        return -self.slopes[:, None, None] * distance

    def bias_at_offsets(self, max_offset: int) -> list[dict]:
        """The bias each head adds at offsets k = 0..K: ``[{"offset": k, "bias": [per head]}]``."""
        offsets = torch.arange(max_offset + 1, dtype=torch.float64, device=self.slopes.device)
        values = -offsets[:, None] * self.slopes[None, :]  # (K+1, H)
        return [{"offset": k, "bias": row} for k, row in enumerate(values.tolist())]

    def signal(self, start: int = 0, stop: int | None = None) -> torch.Tensor:
        """What position p carries: its bias against position 0 in each head, (stop - start, H)."""
        stop = self.max_ctx if stop is None else stop
        positions = torch.arange(start, stop, dtype=torch.float64, device=self.slopes.device)
        compute = torch.float64 if self.dtype == torch.float64 else torch.float32
        return (-positions[:, None] * self.slopes[None, :]).to(compute)

    def pair_scores(self, q: torch.Tensor, k: torch.Tensor, m: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """Per head, q_h . k_h / sqrt(head) plus the bias between m_j and n_j: (P, H)."""
        head = self.dim // self.heads
        dots = (q.reshape(self.heads, head) * k.reshape(self.heads, head)).sum(-1) / math.sqrt(head)  # (H,)
        distance = (m - n).abs().to(torch.float64)[:, None]  # (P, 1)
        return dots.to(torch.float64)[None, :] - self.slopes[None, :] * distance


def build(config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype) -> AlibiPositionalBias:
    return AlibiPositionalBias(config.ctx, config.dim, config.heads, device=device, dtype=dtype)
