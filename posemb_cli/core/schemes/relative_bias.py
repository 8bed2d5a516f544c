"""T5's learned relative-attention bias: one learned scalar per (bucket of signed distance, head).

Notation: T sequence length, L max context, D model width, H heads, N buckets.

Nothing is added to the input. Head h adds ``weight[bucket(n - m), h]`` to the
score of query m against key n, where ``bucket`` is Mesh TensorFlow's (as in
transformers' ``T5Attention._relative_position_bucket``): half of the buckets
(per direction, when bidirectional) hold exact small distances, the rest
log-spaced distances up to ``max_distance``; every distance beyond shares the
last bucket, so the bias levels off there.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posemb_cli.core.schemes.base import ZeroInput

__all__ = ["RelativeAttentionBias", "relative_position_bucket"]


def relative_position_bucket(relative_position: torch.Tensor, *, bidirectional: bool, num_buckets: int,
                             max_distance: int) -> torch.Tensor:
    """The bucket of each signed distance ``memory - query`` (any shape, int64 in, int64 out).

    Args:
        relative_position: key position minus query position, any shape.
        bidirectional: the encoder's (both directions, half the buckets each) or the decoder's (keys before
            the query only: every later key falls in bucket 0 with distance 0).
        num_buckets: N, the rows of the bias table.
        max_distance: the distance from which every larger one shares the last bucket.

    Returns:
        Buckets in [0, N), the shape of ``relative_position``.
    """
    relative_position = relative_position.to(torch.long)
    buckets = torch.zeros_like(relative_position)
    if bidirectional:
        num_buckets //= 2
        buckets += (relative_position > 0).to(torch.long) * num_buckets
        relative_position = relative_position.abs()
    else:
        relative_position = -torch.clamp(relative_position, max=0)
    max_exact = num_buckets // 2
    is_small = relative_position < max_exact
    large = max_exact + (torch.log(relative_position.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).to(torch.long)  # float32, as the model computes it
    large = torch.clamp(large, max=num_buckets - 1)
    return buckets + torch.where(is_small, relative_position, large)


class RelativeAttentionBias(ZeroInput, nn.Module):
    """A stored (N, H) bias table, looked up by the bucket of the signed distance between key and query.

    Args:
        weight: (N, H) the model's ``relative_attention_bias.weight``.
        max_ctx: L, the positions measured (the model has no limit of its own).
        dim: D, the model width (the zero additive part's width).
        bidirectional: the encoder's table (True) or the decoder's (False).
        max_distance: the config's ``relative_attention_max_distance``.
    """


    def __init__(self, weight: torch.Tensor, max_ctx: int, dim: int, *, bidirectional: bool, max_distance: int,
                 device: torch.device | str | None = None, dtype: torch.dtype | None = None) -> None:
        super().__init__()
        self.max_ctx, self.dim = max_ctx, dim
        self.buckets, self.heads = int(weight.shape[0]), int(weight.shape[1])
        self.bidirectional, self.max_distance = bidirectional, max_distance
        self.dtype = dtype or torch.float32
        self.weight = nn.Parameter(weight.detach().to(device=device, dtype=torch.float64).clone(),
                                   requires_grad=False)  # (N, H): the buckets x heads the model learned

    def bucket(self, relative_position: torch.Tensor) -> torch.Tensor:
        """The bucket of each signed distance (key minus query), as the model computes it."""
        return relative_position_bucket(relative_position, bidirectional=self.bidirectional,
                                        num_buckets=self.buckets, max_distance=self.max_distance)

    def anchor(self) -> torch.Tensor:
        return self.weight

    def bias(self, query_positions: torch.Tensor, key_positions: torch.Tensor) -> torch.Tensor:
        """``weight[bucket(n - m), h]`` for every query m and key n: (H, Tq, Tk) float64."""
        relative = key_positions[None, :] - query_positions[:, None]  # (Tq, Tk)
        return self.weight[self.bucket(relative)].permute(2, 0, 1)

    def signal(self, start: int = 0, stop: int | None = None) -> torch.Tensor:
        """What position p carries: the bias of query p against key 0 in each head, (stop - start, H)."""
        stop = self.max_ctx if stop is None else stop
        positions = torch.arange(start, stop, device=self.weight.device)
        compute = torch.float64 if self.dtype == torch.float64 else torch.float32
        return self.weight[self.bucket(-positions)].to(compute)

    def pair_scores(self, q: torch.Tensor, k: torch.Tensor, m: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """q . k (the content score, the same in every head) plus each head's bias at n_j - m_j: (P, H)."""
        dot = (q.to(torch.float64) * k.to(torch.float64)).sum()
        return dot + self.weight[self.bucket(n - m)]
