"""One preparation shared by every command that runs schemes on a batch.

Settle the position settings, read or draw the (B, T) batch, resolve the
device, check that the run fits in memory before anything is allocated, and
build the one token embedding every scheme shares; for ``order`` and ``padding``,
the seeded attention head they run on that batch (``prepare_head``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.core.dtypes import rounding_level
from posemb_cli.core.progress import Progress
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.run.memory import estimate_bytes, require_fits, size_blame
from posemb_cli.sources.batch.ids import random_ids, read_ids

if TYPE_CHECKING:
    import torch

    from posemb_cli.core.embeddings import TokenEmbedding

_IDS_SEED = 2  # offset from --seed of the random batch

# Analytic schemes stream any context in bounded memory, but the time grows with it (about a minute per
# million positions on two cores): past this many positions a run would not end in a working day.
MAX_ANALYSED_POSITIONS = 1 << 27

__all__ = ["MAX_ANALYSED_POSITIONS", "WEIGHT_SEED", "HeadRun", "Prepared", "prepare", "prepare_head", "read_batch",
           "resolve_device", "synchronize"]


@dataclass(frozen=True)
class Prepared:
    """A run ready to measure: the effective config, where it runs, its batch and its token table.

    Attributes:
        config: every effective setting (device resolved, B and T from --ids, RoPE/ALiBi defaults filled).
        device, dtype: where the tensors live, and their dtype.
        ids: (B, T) int64 token ids on the device.
        token: the (V, D) token embedding, seeded by --seed.
    """

    config: EmbeddingConfig
    device: torch.device
    dtype: torch.dtype
    ids: torch.Tensor
    token: TokenEmbedding


def read_batch(config: EmbeddingConfig) -> tuple[EmbeddingConfig, torch.Tensor | None]:
    """The config with B and T taken from --ids and the (B, T) ids on the CPU; without --ids, the config and None."""
    import torch

    if config.ids is None:
        return config, None
    ids = read_ids(config.ids, config.vocab)
    batch, seq_len = ids.shape
    if seq_len > config.ctx:
        raise PosembError(f"--ids {config.ids}: sequence length {seq_len} exceeds --ctx {config.ctx}")
    return dataclasses.replace(config, batch=batch, seq_len=seq_len), torch.from_numpy(ids)


def prepare(
    config: EmbeddingConfig,
    schemes: tuple[str, ...],
    *,
    extra_bytes: Callable[[EmbeddingConfig], int] | None = None,
    check_batch: Callable[[EmbeddingConfig], None] | None = None,
    origins: dict[str, str] | None = None,
) -> Prepared:
    """Everything the schemes share, checked and built once.

    Args:
        config: the validated settings.
        schemes: the schemes the run builds (their memory counts in the estimate).
        extra_bytes: what the command needs beyond the schemes (attention scores, say), given the config
            with B and T settled.
        check_batch: refuses a batch the command cannot run (given the config with B and T settled).
        origins: size setting -> the file (and field) that set it, named when the run does not fit
            (otherwise the flags that drive the estimate are named).
    """
    import torch

    from posemb_cli.core.dtypes import resolve_dtype
    from posemb_cli.core.embeddings import TokenEmbedding
    from posemb_cli.run.config import settle_position_settings

    if config.ctx > MAX_ANALYSED_POSITIONS:
        where = (origins or {}).get("ctx", "--ctx")
        raise PosembError(f"{where}: {config.ctx:,} positions; posemb analyses at most {MAX_ANALYSED_POSITIONS:,} "
                          "(2**27), and its time grows with the context")
    config, ids = read_batch(settle_position_settings(config, schemes=schemes))
    if check_batch is not None:
        check_batch(config)
    device = resolve_device(config.device)
    config = dataclasses.replace(config, device=str(device))
    extra = 0 if extra_bytes is None else extra_bytes(config)
    blame = size_blame(config, schemes, origins, scores=extra_bytes is not None)
    require_fits(estimate_bytes(config, schemes) + extra, device, flags=blame)
    if ids is None:  # drawn only once the estimate says it fits
        ids = random_ids(config.batch, config.seq_len, config.vocab, seed=config.seed + _IDS_SEED)
    dtype = resolve_dtype(config.dtype)
    token = TokenEmbedding(config.vocab, config.dim, config.init_std,
                           generator=torch.Generator().manual_seed(config.seed), device=device, dtype=dtype)
    return Prepared(config=config, device=device, dtype=dtype, ids=ids.to(device), token=token)


def resolve_device(spec: str) -> torch.device:
    """Turn ``auto|cpu|cuda|cuda:N`` into a concrete, available torch device."""
    import torch

    if spec == "cpu" or (spec == "auto" and not torch.cuda.is_available()):
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise PosembError(f"--device {spec}: CUDA is not available on this machine; use --device cpu or auto")
    count = torch.cuda.device_count()
    index = torch.cuda.current_device() if spec in ("auto", "cuda") else int(spec.split(":")[1])
    if index >= count:
        raise PosembError(f"--device {spec}: this machine has {count} CUDA device(s), cuda:0 to cuda:{count - 1}")
    return torch.device("cuda", index)


def synchronize(device: torch.device) -> None:
    """Wait for queued kernels, so that a timer reads finished work."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


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
    """Prepare the batch (``prepare``), then draw the head in float64 or float32 to match the dtype."""
    import torch

    from posemb_cli.core.attention import attention_weights

    progress.stage("prepare the batch")
    prepared = prepare(config, schemes, extra_bytes=extra_bytes, check_batch=check_batch, origins=origins)
    compute = torch.float64 if prepared.dtype == torch.float64 else torch.float32
    weights = attention_weights(prepared.config.dim, seed=prepared.config.seed + WEIGHT_SEED, dtype=compute,
                                device=prepared.device)
    return HeadRun(prepared, compute, weights, rounding_level(compute))  # of the largest output
