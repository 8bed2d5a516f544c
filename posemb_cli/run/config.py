"""Validated settings, and the one error type for bad input.

Everything here is plain Python: no torch, so validation runs before any
heavy import and a bad flag costs nothing.
"""

from __future__ import annotations

import math
import re

from posemb_cli.core.dtypes import DTYPES
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT

_DEVICE_RE = re.compile(r"^(auto|cpu|cuda|cuda:\d+)$")
_MAX_SEED = 2**63 - 1
# The largest finite value a table can hold: rows are drawn in float32, then cast to the dtype.
_LARGEST = {"float32": 3.4028234663852886e38, "float64": 3.4028234663852886e38, "float16": 65504.0,
            "bfloat16": 3.3895313892515355e38}
_DRAW_SIGMAS = 10  # no N(0, std^2) draw of a realistic table reaches 10 standard deviations


def require_positive_int(flag: str, value: int, *, most: int = MAX_COUNT, most_text: str | None = None) -> None:
    """Refuse anything but an integer in [1, most], naming ``flag`` (a flag, or a file and its field)."""
    require_int_in(flag, value, 1, most, most_text=most_text)


def require_int_in(flag: str, value: int, least: int, most: int, *, most_text: str | None = None) -> None:
    """Refuse anything but an integer in [least, most]; the message gives the range allowed."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        kind = "a positive integer" if least == 1 else f"an integer of at least {least}"
        raise PosembError(f"{flag} must be {kind}, got {shown(value)}")
    if value > most:
        limit = most_text or (MAX_COUNT_TEXT if most == MAX_COUNT else str(most))
        raise PosembError(f"{flag} must be at most {limit}, got {shown(value)}")


def shown(value: object, *, width: int = 40) -> str:
    """``repr(value)`` for a one-line message, a long one cut to its head and its length."""
    text = repr(value)
    return text if len(text) <= width else f"{text[:width // 2]}... ({len(text)} characters)"


def require_finite(flag: str, value: float) -> None:
    if not math.isfinite(value):
        raise PosembError(f"{flag} must be a finite number, got {value!r}")


def default_seq_len(ctx: int) -> int:
    return min(ctx, 128)


def make_config(
    *,
    dim: int = 64,
    ctx: int = 512,
    vocab: int = 32000,
    batch: int = 4,
    seq_len: int | None = None,
    seed: int = 0,
    device: str = "auto",
    dtype: str = "float32",
    base: float = 10000.0,
    init_std: float = 0.02,
    max_offset: int = 8,
    ids: str | None = None,
    full: bool = False,
) -> EmbeddingConfig:
    """Check every setting and return the frozen config, or raise PosembError."""
    for flag, value in (("--dim", dim), ("--ctx", ctx), ("--vocab", vocab), ("--batch", batch)):
        require_positive_int(flag, value)
    if seq_len is None:
        seq_len = default_seq_len(ctx)
    require_positive_int("--seq-len", seq_len)
    require_positive_int("--max-offset", max_offset)
    if seq_len > ctx:
        raise PosembError(f"--seq-len {seq_len} exceeds --ctx {ctx}: a position table has only ctx rows")
    if max_offset >= ctx:
        raise PosembError(f"--max-offset {max_offset} must be below --ctx {ctx}")
    if not 0 <= seed <= _MAX_SEED:
        raise PosembError(f"--seed must be an integer in [0, 2**63), got {shown(seed)}")
    if dtype not in DTYPES:
        raise PosembError(f"--dtype {shown(dtype)} is not one of {', '.join(DTYPES)}")
    if not _DEVICE_RE.match(device):
        raise PosembError(f"--device {shown(device)} is not one of auto, cpu, cuda, cuda:N")
    require_finite("--base", base)
    if base <= 1:
        raise PosembError(f"--base must be above 1, got {base!r}")
    require_finite("--init-std", init_std)
    if init_std < 0:
        raise PosembError(f"--init-std must be zero or positive, got {init_std!r}")
    if init_std * _DRAW_SIGMAS > _LARGEST[dtype]:  # the draws would overflow to inf: no figure is defined
        raise PosembError(f"--init-std {init_std!r} overflows {dtype} (largest {_LARGEST[dtype]:.4g}); "
                          f"give at most {_LARGEST[dtype] / _DRAW_SIGMAS:.4g}")
    return EmbeddingConfig(
        dim=dim, ctx=ctx, vocab=vocab, batch=batch, seq_len=seq_len, seed=seed,
        device=device, dtype=dtype, base=float(base), init_std=float(init_std),
        max_offset=max_offset, ids=ids, full=bool(full),
    )


def parse_scheme_list(flag: str, text: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """Split a comma list of scheme names, refusing unknown, empty or repeated names."""
    names = tuple(part.strip() for part in text.split(","))
    if not names or any(not name for name in names):
        raise PosembError(f"{flag} needs a comma list of schemes from {', '.join(known)}, got {shown(text)}")
    for name in names:
        if name not in known:
            raise PosembError(f"{flag}: unknown scheme {shown(name)}; choose from {', '.join(known)}")
    if len(set(names)) != len(names):
        raise PosembError(f"{flag}: each scheme may be named once, got {shown(text)}")
    return names
