"""Estimate the bytes a run needs before anything is allocated, and refuse what will not fit, naming what drives it.

The blame (``size_blame``): which settings drive a run's memory estimate, named where they came from (a flag, or a
file's field). A refusal for memory must point at what the user can change: the flags that make the biggest
terms of the estimate, or the file and field that set them (``--config config.json: max_position_embeddings``),
never a flag the user did not give and that barely counts.

Notation: V vocabulary, D model dimension, L max context, B batch, T sequence length.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from posemb_cli.core.dtypes import dtype_size
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds.limits import cpu_available_bytes, format_bytes

__all__ = ["FLAGS", "available_bytes", "estimate_bench_bytes", "estimate_bytes", "format_bytes", "require_fits",
           "size_blame", "size_terms"]

if TYPE_CHECKING:
    import torch

_FLOAT32 = 4
_INT64 = 8


# Schemes whose rows come from a formula, block by block: no (L, D) table is ever held.
_ANALYTIC = frozenset({"sinusoidal", "rope", "alibi", "none"})
# The measures' working tensors: a few blocks of the signal (measures/block_reader.py) and their temporaries.
STREAM_BYTES = 256 << 20


def estimate_bytes(config: EmbeddingConfig, schemes: tuple[str, ...]) -> int:
    """Peak bytes of a compare/inspect run: stored tables, the batch and outputs, and the streamed blocks.

    Analytic schemes (sinusoidal, rope, alibi, none) generate their rows block by block and hold no
    table; a learned table is held once (its determinism rebuild is drawn again block by block).
    """
    element = dtype_size(config.dtype)
    vocab, dim, ctx = config.vocab, config.dim, config.ctx
    tokens = config.batch * config.seq_len
    total = vocab * dim * (element + _FLOAT32)  # token table, drawn in float32 then cast
    total += tokens * (_INT64 + dim * element)  # ids and the token vectors
    for name in schemes:
        if name not in _ANALYTIC:
            total += ctx * dim * element  # the positional table
        if name == "learned" and config.dtype != "float32":
            total += ctx * dim * _FLOAT32  # its float32 draw, cast afterwards
        total += tokens * dim * element  # the composer's output
    return total + STREAM_BYTES


def available_bytes(device: torch.device) -> int | None:
    """Free memory on the device that will hold the tensors, or None when unknown."""
    if device.type == "cuda":
        import torch

        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    return cpu_available_bytes()


def require_fits(needed: int, device: torch.device, *, flags: str) -> None:
    """Raise PosembError, with the estimate, when ``needed`` bytes exceed what is free."""
    free = available_bytes(device)
    if free is not None and needed > free:
        raise PosembError(
            f"{flags}: this run needs about {format_bytes(needed)} but {format_bytes(free)} "
            f"is free on {device}; lower them")


def estimate_bench_bytes(configs: tuple[EmbeddingConfig, ...], schemes: tuple[str, ...]) -> int:
    """Peak bytes of a bench run: the largest dim's compare-sized run plus the reused output and
    the copy's source and target, each (B, T, D)."""
    return max(
        estimate_bytes(config, schemes) + 3 * config.batch * config.seq_len * config.dim * dtype_size(config.dtype)
        for config in configs)


# Each size setting and the flag that sets it when no file does.
FLAGS = {"vocab": "--vocab", "dim": "--dim", "ctx": "--ctx", "batch": "--batch", "seq_len": "--seq-len"}
_ORDER = tuple(FLAGS)
_DEFAULTS = {"vocab": 32000, "dim": 64, "ctx": 512, "batch": 4}
_SHARE = 4  # a term counts as a driver when it is at least 1/_SHARE of the largest one


def size_terms(config: EmbeddingConfig, schemes: tuple[str, ...], *, scores: bool = False,
               copies: int = 0) -> dict[tuple[str, ...], int]:
    """The estimate's main terms in bytes, keyed by the settings each one grows with.

    Args:
        scores: add order's (B, T, T) attention scores.
        copies: extra (B, T, D) tensors (bench's output, copy source and target).
    """
    element = dtype_size(config.dtype)
    tokens = config.batch * config.seq_len
    terms = {
        ("vocab", "dim"): config.vocab * config.dim * (element + 4),  # the token table and its float32 draw
        ("batch", "seq_len", "dim"): tokens * config.dim * element * (1 + len(schemes) + copies),
        ("ctx", "dim"): config.ctx * config.dim * element * max(1, len(schemes)) * 3,  # tables, draws, signals
    }
    if scores:
        terms[("batch", "seq_len")] = 6 * tokens * config.seq_len * 8
    return terms


def size_blame(config: EmbeddingConfig, schemes: tuple[str, ...], origins: dict[str, str] | None = None, *,
               defaults: dict[str, int] | None = None, **terms_options) -> str:
    """The flags (or file fields) behind the largest terms of the estimate, e.g. ``--vocab/--dim``.

    Args:
        origins: size setting -> where a file set it, e.g. ``{"ctx": "--config c.json: max_position_embeddings"}``.
            B and T read from ``--ids`` are blamed on that file without being listed here.
        defaults: the command's defaults of the size flags (compare's when None): a flag left at its
            default is named only when no other setting drives the estimate.

    Returns:
        One label: the flags joined by '/', then each file's fields.
    """
    origins = dict(origins or {})
    if config.ids is not None:
        origins.setdefault("batch", f"--ids {config.ids}")
        origins.setdefault("seq_len", f"--ids {config.ids}")
    follows_ctx = config.ids is None and config.seq_len in (config.ctx, min(config.ctx, 128))
    if follows_ctx:  # T left to its default follows the context: blame what set the context
        origins.setdefault("seq_len", origins.get("ctx", FLAGS["ctx"]))
    terms = size_terms(config, schemes, **terms_options)
    largest = max(terms.values())
    drivers = [field for field in _ORDER
               if any(field in fields and size * _SHARE >= largest for fields, size in terms.items())]

    # A flag left at its default is not what the user can blame; name it only when nothing else drives.
    def moved(field: str) -> bool:
        if field == "seq_len" and follows_ctx:
            field = "ctx"
        return field in origins or getattr(config, field) != (defaults or _DEFAULTS).get(field)

    named = [field for field in drivers if moved(field)]
    labels: list[str] = []
    for field in named or drivers:
        label = origins.get(field, FLAGS[field])
        if label not in labels:
            labels.append(label)
    flags = [label for label in labels if label in FLAGS.values()]
    files: dict[str, list[str]] = {}
    for label in labels:
        if label not in flags:
            source, _, field = label.partition(": ")
            files.setdefault(source, []).extend([field] if field else [])
    parts = ["/".join(flags)] * bool(flags)
    parts += [f"{source}: {', '.join(fields)}" if fields else source for source, fields in files.items()]
    return "; ".join(parts)
