"""One head of self-attention, with the position entering where each scheme puts it.

Notation: B batch, T sequence length, D width.

No causal mask: without a positional signal the map is then permutation-
equivariant, ``attn(P x) = P attn(x)``, which is what ``posemb order`` shows.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch


def rms_normalize(x: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """Scale each vector to unit root-mean-square (a pre-norm without weights): (..., D) -> (..., D)."""
    return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + eps)


def attention_weights(dim: int, *, seed: int, dtype: torch.dtype = torch.float32, device=None) -> torch.Tensor:
    """Seeded Wq, Wk, Wv drawn from N(0, 1/D): (3, D, D)."""
    generator = torch.Generator().manual_seed(seed)
    weights = torch.randn(3, dim, dim, generator=generator, dtype=torch.float64) / math.sqrt(dim)
    return weights.to(device=device, dtype=dtype)


def self_attention(
    x: torch.Tensor,
    weights: torch.Tensor,
    *,
    rotate: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
    bias: torch.Tensor | None = None,
) -> torch.Tensor:
    """softmax(q k^T / sqrt(D) + bias) v for one head.

    Args:
        x: (B, T, D) inputs (token vectors plus any additive positional part).
        weights: (3, D, D) Wq, Wk, Wv.
        rotate: applied to q and k with positions 0..T-1 (RoPE).
        bias: (T, T) added to the scores (ALiBi).

    Returns:
        (B, T, D) outputs.
    """
    q, k, v = x @ weights[0], x @ weights[1], x @ weights[2]  # (B, T, D) each
    if rotate is not None:
        positions = torch.arange(x.shape[1], device=x.device)
        q, k = rotate(q, positions), rotate(k, positions)
    scores = q @ k.transpose(-1, -2) / math.sqrt(x.shape[-1])  # (B, T, T)
    if bias is not None:
        scores = scores + bias.to(scores.dtype)
    return torch.softmax(scores, dim=-1) @ v  # (B, T, D)


def permutation_gap(
    compose: Callable[[torch.Tensor], torch.Tensor],
    ids: torch.Tensor,
    permutation: torch.Tensor,
    weights: torch.Tensor,
    **position,
) -> tuple[float, float]:
    """Largest |attn(P x) - P attn(x)|, and the largest |attn(x)| for scale.

    ``compose`` maps (B, T) ids to the attention input (B, T, D), positions
    counted from 0 in the order given, so permuting the ids moves each token to
    a new position.
    """
    plain = self_attention(compose(ids), weights, **position)  # (B, T, D)
    permuted = self_attention(compose(ids[:, permutation]), weights, **position)
    gap = (permuted.to(torch.float64) - plain[:, permutation].to(torch.float64)).abs().max()
    return float(gap), float(plain.abs().max())
