"""One head of self-attention over a padded batch: pad keys masked, position ids given per row.

Notation: B batch, T sequence length (pads included), D width.

The same head as ``core.attention.self_attention``, with what generation code
adds for a left-padded batch: a key mask, so no token attends to a pad, and
explicit position ids per row, so RoPE and ALiBi see the ids the caller chose.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

__all__ = ["masked_self_attention"]


def masked_self_attention(
    x: torch.Tensor,
    weights: torch.Tensor,
    key_mask: torch.Tensor,
    positions: torch.Tensor,
    *,
    rotate: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
    bias: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
    window: int | None = None,
) -> torch.Tensor:
    """softmax(q k^T / sqrt(D) + bias, pad keys at -inf) v for one head.

    Args:
        x: (B, T, D) inputs (token vectors plus any additive positional part).
        weights: (3, D, D) Wq, Wk, Wv.
        key_mask: (B, T) bool, True for real tokens; every row needs at least one.
        positions: (B, T) int64 position ids.
        rotate: ``rotate(x (T, D), positions (T,))`` applied to q and k row by row (RoPE).
        bias: ``bias(query_positions (T,), key_positions (T,)) -> (T, T)`` added to the scores (ALiBi).
        window: a sliding window: keys W or more tokens away (in the sequence, pads included, as runtimes
            mask) are masked too.

    Returns:
        (B, T, D) outputs; pad rows are computed too (they attend to real keys) and are the caller's to drop.
    """
    q, k, v = x @ weights[0], x @ weights[1], x @ weights[2]  # (B, T, D) each
    if rotate is not None:
        q = torch.stack([rotate(q[row], positions[row]) for row in range(x.shape[0])])
        k = torch.stack([rotate(k[row], positions[row]) for row in range(x.shape[0])])
    scores = q @ k.transpose(-1, -2) / math.sqrt(x.shape[-1])  # (B, T, T)
    if bias is not None:
        scores = scores + torch.stack([bias(positions[row], positions[row]) for row in range(x.shape[0])]).to(
            scores.dtype)
    scores = scores.masked_fill(~key_mask[:, None, :], float("-inf"))
    if window is not None:
        index = torch.arange(x.shape[1], device=x.device)
        scores = scores.masked_fill((index[:, None] - index[None, :]).abs() >= window, float("-inf"))
    return torch.softmax(scores, dim=-1) @ v  # (B, T, D)
