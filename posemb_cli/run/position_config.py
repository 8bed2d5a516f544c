"""Validation of the RoPE and ALiBi flags: plain Python, no torch, before any tensor work.

A value is refused only where it matters: the RoPE flags when ``rope`` is one
of the schemes, ``--heads`` when ``alibi`` is. Every refusal is one line that
names the flag and what is allowed (exit status 2).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from typing import Any

from posemb_cli.core.schemes.rope_scaling import (
    NEEDS_ORIGINAL_CTX,
    SCALING_KINDS,
)
from posemb_cli.core.settings import EmbeddingConfig
from posemb_cli.errors import PosembError
from posemb_cli.run.config import require_finite, require_positive_int, shown

ROPE_LAYOUTS = ("interleaved", "half")

__all__ = ["ROPE_LAYOUTS", "SCALING_KINDS", "check_default_position_settings",
           "settle_position_settings", "with_position_settings"]


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
