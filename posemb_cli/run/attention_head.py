"""The seeded attention head that ``order`` and ``padding`` run on one prepared batch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.core.dtypes import rounding_level
from posemb_cli.core.progress import Progress
from posemb_cli.core.settings import EmbeddingConfig

if TYPE_CHECKING:
    import torch

    from posemb_cli.run.preparation import Prepared

WEIGHT_SEED = 4  # offset from --seed of the head's weights


@dataclass(frozen=True)
class HeadRun:
    """A prepared batch, the dtype attention runs in, the head's weights and the rounding level."""

    prepared: Prepared
    compute: torch.dtype
    weights: torch.Tensor  # (3, D, D): Wq, Wk, Wv
    rounding: float


def prepare_head(config: EmbeddingConfig, schemes: tuple[str, ...], progress: Progress, *,
                 extra_bytes: Callable[[EmbeddingConfig], int],
                 check_batch: Callable[[EmbeddingConfig], None] | None = None,
                 origins: dict[str, str] | None = None) -> HeadRun:
    """Prepare the batch (``run.preparation``), then draw the head in float64 or float32 to match the dtype."""
    import torch

    from posemb_cli.core.attention import attention_weights
    from posemb_cli.run.preparation import prepare

    progress.stage("prepare the batch")
    prepared = prepare(config, schemes, extra_bytes=extra_bytes, check_batch=check_batch, origins=origins)
    compute = torch.float64 if prepared.dtype == torch.float64 else torch.float32
    weights = attention_weights(prepared.config.dim, seed=prepared.config.seed + WEIGHT_SEED, dtype=compute,
                                device=prepared.device)
    return HeadRun(prepared, compute, weights, rounding_level(compute))  # of the largest output
