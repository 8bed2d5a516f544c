"""Validated settings: the batch's and the table's, then the RoPE and ALiBi flags.

Everything here is plain Python: no torch, so validation runs before any
heavy import and a bad flag costs nothing. A position value is refused only where
it matters: the RoPE flags when ``rope`` is one of the schemes, ``--heads`` when
``alibi`` is. Every refusal is one line that names the flag and what is allowed
(exit status 2).
"""

from __future__ import annotations

import dataclasses
import math
import re
import sys
from typing import Any

from posemb_cli.core.dtypes import DTYPES
from posemb_cli.core.schemes.rope_scaling import NEEDS_ORIGINAL_CTX, SCALING_KINDS
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT

ROPE_LAYOUTS = ("interleaved", "half")
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



def _choice(flag: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise PosembError(f"{flag} {shown(value)} is not one of {', '.join(allowed)}")


def _positive(flag: str, value: float) -> None:
    require_finite(flag, value)
    if value <= 0:
        raise PosembError(f"{flag} must be above 0, got {value!r}")


def _check_rope(dim: int, ctx: int, s: dict, *, head_dim_given: bool) -> None:
    head_dim = s["head_dim"]
    # A head size left to its default is --dim: name the flag the user typed.
    flag = (f"--head-dim {head_dim}" if head_dim_given
            else f"--dim {dim} (the RoPE head size unless --head-dim is given)")
    if head_dim % 2:
        raise PosembError(f"{flag} is odd: RoPE rotates feature pairs, so the head size must be even")
    if dim % head_dim:
        raise PosembError(f"--head-dim {head_dim} does not divide --dim {dim}: RoPE rotates whole heads")
    kind = s["rope_scaling"]
    if kind in ("ntk", "dynamic") and head_dim < 4:
        raise PosembError(f"{flag}: --rope-scaling {kind} raises the base to d / (d - 2), so d >= 4")
    if kind in ("ntk", "dynamic"):
        # The stretched base, base * stretch ** (d / (d - 2)), must stay a finite float64; dynamic stretches
        # most at twice ctx (the scorecard's extrapolation check).
        factor = s["rope_factor"]
        stretch = factor if kind == "ntk" else max(1.0, factor * 2 * ctx / s["original_ctx"] - (factor - 1))
        if math.log(s["base"]) + head_dim / (head_dim - 2) * math.log(stretch) >= math.log(sys.float_info.max):
            raise PosembError(f"--rope-factor {factor!r} with --base {s['base']!r}: --rope-scaling {kind} raises "
                              f"the base past the largest float64; give a smaller factor or base")
    if kind in NEEDS_ORIGINAL_CTX and s["original_ctx"] > ctx:
        raise PosembError(f"--original-ctx {s['original_ctx']} exceeds --ctx {ctx}: "
                          f"{kind} extends a shorter training context up to ctx")
    if kind == "none" and s["rope_factor"] != 1.0:
        raise PosembError(f"--rope-factor {s['rope_factor']!r} needs a --rope-scaling other than none")


def with_position_settings(config: EmbeddingConfig, *, schemes: tuple[str, ...], **settings: Any) -> EmbeddingConfig:
    """Put RoPE/ALiBi settings (EmbeddingConfig field names) into the config, check them, fill in their defaults.

    Settings not given keep the config's values (EmbeddingConfig's defaults, for a fresh config).
    """
    return settle_position_settings(dataclasses.replace(config, **settings), schemes=schemes)


def settle_position_settings(config: EmbeddingConfig, *, schemes: tuple[str, ...]) -> EmbeddingConfig:
    """Check a config's RoPE/ALiBi settings and return it with their effective values (idempotent).

    Defaults resolved here: ``head_dim`` is ``dim``; ``original_ctx`` is
    ``ctx / rope_factor`` (rounded, at least 1), the length the model was
    trained on before it was stretched to ``ctx``.
    """
    c = config
    _choice("--rope-layout", c.rope_layout, ROPE_LAYOUTS)
    _choice("--rope-scaling", c.rope_scaling, SCALING_KINDS)
    require_finite("--rope-factor", c.rope_factor)
    if c.rope_factor < 1:
        raise PosembError(f"--rope-factor must be 1 or more (it stretches the context), got {c.rope_factor!r}")
    for flag, value in (("--beta-fast", c.beta_fast), ("--beta-slow", c.beta_slow),
                        ("--low-freq-factor", c.low_freq_factor), ("--high-freq-factor", c.high_freq_factor)):
        _positive(flag, value)
    if c.beta_fast <= c.beta_slow:
        raise PosembError(f"--beta-fast {c.beta_fast!r} must be above --beta-slow {c.beta_slow!r} (YaRN: 32 and 1)")
    if c.high_freq_factor <= c.low_freq_factor:
        raise PosembError(f"--high-freq-factor {c.high_freq_factor!r} must be above --low-freq-factor "
                          f"{c.low_freq_factor!r} (Llama 3: 4 and 1)")
    if c.attention_factor is not None:
        _positive("--attention-factor", c.attention_factor)
    original_ctx = max(1, round(c.ctx / c.rope_factor)) if c.original_ctx is None else c.original_ctx
    require_positive_int("--original-ctx", original_ctx)
    require_positive_int("--heads", c.heads)
    if c.head_dim is not None:  # refused whatever the schemes: no head size is zero or negative
        require_positive_int("--head-dim", c.head_dim)
    settings: dict[str, Any] = {
        "head_dim": c.dim if c.head_dim is None else c.head_dim, "rope_factor": float(c.rope_factor),
        "original_ctx": original_ctx, "beta_fast": float(c.beta_fast), "beta_slow": float(c.beta_slow),
        "low_freq_factor": float(c.low_freq_factor), "high_freq_factor": float(c.high_freq_factor),
        "attention_factor": None if c.attention_factor is None else float(c.attention_factor),
    }
    if "rope" in schemes:
        _check_rope(c.dim, c.ctx, {**settings, "rope_scaling": c.rope_scaling, "base": c.base},
                    head_dim_given=c.head_dim is not None)
    if "alibi" in schemes and c.dim % c.heads:
        raise PosembError(f"--heads {c.heads} does not divide --dim {c.dim}: "
                          "each ALiBi head needs dim / heads features")
    return dataclasses.replace(config, **settings)


def check_default_position_settings(config: EmbeddingConfig, schemes: tuple[str, ...]) -> EmbeddingConfig:
    """For commands without the RoPE/ALiBi flags (bench, sweep): refuse a --dim that the schemes'
    default head settings cannot split, naming --dim, then settle the config as usual."""
    if "rope" in schemes and config.dim % 2:
        raise PosembError(f"--dim {config.dim}: rope rotates feature pairs, so every --dim must be even")
    if "alibi" in schemes and config.dim % config.heads:
        raise PosembError(f"--dim {config.dim}: alibi splits the dim over its {config.heads} heads, "
                          f"so every --dim must be a multiple of {config.heads}")
    return settle_position_settings(config, schemes=schemes)
