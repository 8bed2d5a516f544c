"""Token embedding and the composer that adds a positional part to it.

Notation: B batch, T sequence length, D model dimension, V vocabulary size,
L max context length (rows of a positional table).
"""

from __future__ import annotations

from collections.abc import Iterator

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


def normal_rows(
    rows: int,
    dim: int,
    std: float,
    *,
    generator: torch.Generator,
    device: torch.device | str | None = None,
    dtype: torch.dtype | None = None,
    block_rows: int = 1 << 12,
) -> Iterator[torch.Tensor]:
    """The rows ``normal_weight`` draws, in consecutive blocks of about ``block_rows``: (b, dim) each.

    torch's CPU normal sampler turns a sequential stream of uniforms into normals 16 at a time, so
    blocks whose sizes are multiples of 16 values (and a last block of at least 16) continue the
    stream exactly where one whole draw would: the blocks are the whole table's rows, bit for bit,
    without the whole table in memory (tests/core/test_embeddings.py checks it).
    """
    step = max(16, block_rows // 16 * 16)
    start = 0
    while start < rows:
        stop = min(start + step, rows)
        if (rows - stop) * dim < 16:  # a short tail would be drawn another way: keep it in this block
            stop = rows
        block = torch.empty(stop - start, dim, dtype=torch.float32).normal_(0.0, std, generator=generator)
        yield block.to(device=device, dtype=dtype or torch.float32)
        start = stop


class NormalTable(nn.Module):
    """A (rows, D) ``nn.Embedding`` whose rows are drawn from N(0, init_std^2) (see ``normal_weight``).

    Args:
        rows: the number of rows (V for tokens, L for learned positions).
        dim: D, the width of each row.
        init_std: standard deviation of the initial rows.
        generator: the seeded source of the initial rows.
    """

    def __init__(
        self,
        rows: int,
        dim: int,
        init_std: float = 0.02,
        *,
        generator: torch.Generator | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        self.dim = dim
        self.embedding = nn.Embedding(rows, dim, _weight=normal_weight(
            rows, dim, init_std, generator=generator, device=device, dtype=dtype))


class TokenEmbedding(NormalTable):
    """A (V, D) lookup table: (B, T) int64 ids -> (B, T, D) vectors."""

    @property
    def weight(self) -> torch.Tensor:
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

    def forward(self, ids: torch.Tensor, *, out: torch.Tensor | None = None) -> torch.Tensor:
        """(B, T) ids -> (B, T, D) token vectors plus the positional part.

        When no gradient is needed (under ``torch.no_grad()`` or with frozen
        tables) the token rows are gathered straight into the output and the
        positions are added in place: one pass over the output instead of three
        and no second (B, T, D) temporary. ``out``, a preallocated contiguous
        (B, T, D) tensor, also skips the fresh allocation (and its page faults
        on CPU); it is refused while autograd is recording.
        """
        seq_len = ids.shape[1]
        position = self.position(seq_len)  # (T, D) or a broadcastable zero
        if self._in_place_ok(ids, position):
            return self._compose_into(ids, position, out)
        if out is not None:
            raise RuntimeError("EmbeddingComposer(out=...) does not record autograd; call it under torch.no_grad()")
        return self.token(ids) + position.unsqueeze(0)  # (B, T, D) + (1, T, D)

    def _in_place_ok(self, ids: torch.Tensor, position: torch.Tensor) -> bool:
        """True when the gather-then-add-in-place path gives exactly ``token(ids) + position``."""
        if not isinstance(self.token, TokenEmbedding) or self.token.embedding.max_norm is not None:
            return False
        weight = self.token.weight
        if torch.is_grad_enabled() and (weight.requires_grad or position.requires_grad):
            return False
        return (position.dtype == weight.dtype and position.device == weight.device == ids.device
                and position.dim() <= 2 and ids.dim() == 2)

    def _compose_into(self, ids: torch.Tensor, position: torch.Tensor, out: torch.Tensor | None) -> torch.Tensor:
        weight = self.token.weight  # (V, D)
        shape = (*ids.shape, weight.shape[1])
        if out is None:
            out = torch.empty(shape, dtype=weight.dtype, device=weight.device)
        elif tuple(out.shape) != shape or out.dtype != weight.dtype or out.device != weight.device \
                or not out.is_contiguous():
            raise ValueError(f"out must be a contiguous {list(shape)} {weight.dtype} tensor on {weight.device}, "
                             f"got {list(out.shape)} {out.dtype} on {out.device}")
        torch.index_select(weight, 0, ids.reshape(-1), out=out.view(-1, shape[-1]))  # (B*T, D)
        return out.add_(position)  # (B, T, D) += (T, D), broadcast over B
