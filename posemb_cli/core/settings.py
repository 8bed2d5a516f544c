"""The settings of one run as a frozen dataclass: every effective value, flags and defaults alike.

Plain Python, no torch: commands build and validate it (``posemb_cli.run.config``)
before any tensor work; schemes read it to build themselves.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from posemb_cli.core.dtypes import SIGNAL_RECIPES

SCALING_KINDS = ("none", "linear", "ntk", "dynamic", "yarn", "llama3")
NEEDS_ORIGINAL_CTX = ("dynamic", "yarn", "llama3")

__all__ = ["NEEDS_ORIGINAL_CTX", "SCALING_KINDS", "EmbeddingConfig", "RopeScaling", "rope_scaling_of"]


@dataclass(frozen=True)
class RopeScaling:
    """How RoPE frequencies are stretched past the training length."""

    kind: str = "none"  # none|linear|ntk|dynamic|yarn|llama3
    factor: float = 1.0
    original_ctx: int | None = None
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    attention_factor: float | None = None
    # Model-config knobs (read from a config.json or GGUF file; no flags): YaRN's ``truncate``,
    # LongRoPE's per-pair divisors, and the width the frequency exponent divides by (proportional).
    truncate: bool = True
    short_factor: tuple[float, ...] | None = None
    long_factor: tuple[float, ...] | None = None
    exponent_dim: int | None = None


@dataclass(frozen=True)
class EmbeddingConfig:
    """Every effective setting of one run: flags and defaults alike."""

    dim: int = 64
    ctx: int = 512
    vocab: int = 32000
    batch: int = 4
    seq_len: int = 128
    seed: int = 0
    device: str = "auto"
    dtype: str = "float32"
    base: float = 10000.0
    init_std: float = 0.02
    max_offset: int = 8
    ids: str | None = None
    # RoPE and ALiBi settings (checked by posemb_cli.run.config).
    head_dim: int | None = None  # None: dim
    rope_layout: str = "interleaved"
    rope_scaling: str = "none"
    rope_factor: float = 1.0
    original_ctx: int | None = None  # None: ctx / rope_factor
    beta_fast: float = 32.0
    beta_slow: float = 1.0
    low_freq_factor: float = 1.0
    high_freq_factor: float = 4.0
    attention_factor: float | None = None  # None: the method's own (YaRN: 0.1 ln(factor) + 1)
    heads: int = 8
    full: bool = False  # measure every position of a long computed signal (no sample above 1,048,576)

    def to_dict(self) -> dict:
        return {**asdict(self), "signal_recipe": SIGNAL_RECIPES.get(self.dtype)}


def rope_scaling_of(config: EmbeddingConfig) -> RopeScaling:
    """The RopeScaling that a config's flags describe (defaults filled as in with_position_settings)."""
    original = config.original_ctx
    if original is None:
        original = max(1, round(config.ctx / config.rope_factor)) if math.isfinite(config.rope_factor) else config.ctx
    return RopeScaling(
        kind=config.rope_scaling, factor=config.rope_factor, original_ctx=original,
        beta_fast=config.beta_fast, beta_slow=config.beta_slow, low_freq_factor=config.low_freq_factor,
        high_freq_factor=config.high_freq_factor, attention_factor=config.attention_factor,
    )
