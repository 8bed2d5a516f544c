"""A position table read from a real model's checkpoint, behind the scheme protocol.

Its rows were parameters of a learned table in the model they came from, so
they count as position parameters here too; every diagnostic that a built
table gets runs on it unchanged.
"""

from __future__ import annotations

import torch
from torch import nn

from posemb_cli.core.schemes.base import AdditiveTable, check_length


class TablePositionalEmbedding(AdditiveTable, nn.Module):
    """A given (L, D) table looked up with positions 0..T-1, like a learned one.

    Args:
        table: (L, D) rows that real positions 0..L-1 use (any reserved rows already dropped).
        device, dtype: where and in which dtype the rows live; by default the table's own.
    """

    stored = True  # table() is the weight itself

    def __init__(
        self,
        table: torch.Tensor,
        *,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        if table.dim() != 2:
            raise ValueError(f"a position table is (L, D), got shape {tuple(table.shape)}")
        self.max_ctx, self.dim = (int(size) for size in table.shape)
        weight = table.detach().to(device=device, dtype=dtype or table.dtype)
        self.weight = nn.Parameter(weight.contiguous(), requires_grad=False)

    def forward(self, seq_len: int) -> torch.Tensor:
        check_length(seq_len, self.max_ctx)
        return self.weight[:seq_len]  # (T, D)

    def table(self) -> torch.Tensor:
        return self.weight.detach()  # (L, D)

    def bands(self) -> None:
        return None
