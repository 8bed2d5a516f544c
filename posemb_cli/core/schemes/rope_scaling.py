"""RoPE frequencies and their context-extension scalings, in float64 NumPy (no torch).

One function gives, for a head of size ``head_dim`` (or its first ``rotary_dim``
features), the unscaled frequencies ``base ** (-2i / d)``, the frequencies as
used after scaling, and the attention factor that multiplies cos and sin.
The formulas are the published ones, with Hugging Face transformers'
``modeling_rope_utils`` semantics:

- ``linear`` (Position Interpolation): every frequency divided by the factor.
- ``ntk`` (NTK-aware): the base raised to ``base * factor ** (d / (d - 2))``.
- ``dynamic`` (dynamic NTK): the same, with the factor replaced by
  ``factor * T / original_ctx - (factor - 1)`` once the length T passes
  ``original_ctx``; unscaled below it.
- ``yarn``: interpolated and original frequencies blended by a linear ramp
  between the correction dimensions of ``beta_fast`` and ``beta_slow`` rotations
  within ``original_ctx``; attention factor ``0.1 ln(factor) + 1`` unless given.
- ``llama3``: wavelengths above ``original_ctx / low_freq_factor`` divided by
  the factor, below ``original_ctx / high_freq_factor`` kept, smoothed between.

Two more are read from model configs only (no ``--rope-scaling`` flag):

- ``longrope`` (Phi-3): pair i divided by ``short_factor[i]`` up to ``original_ctx``
  and by ``long_factor[i]`` beyond it; attention factor given by the config.
- ``proportional``: the rotated pairs keep the frequencies of the whole head,
  ``base ** (-2i / exponent_dim)``, divided by the factor.

- ``freq_factors`` (llama.cpp's ``rope_freqs.weight`` tensor in a GGUF file): pair i
  divided by ``short_factor[i]`` at every length.

YaRN's ``truncate`` (default true) rounds the ramp's ends to whole pairs; gpt-oss turns it off.
"""

from __future__ import annotations

import math

import numpy as np

from posemb_cli.core.settings import NEEDS_ORIGINAL_CTX, SCALING_KINDS, RopeScaling

MODEL_SCALING_KINDS = (*SCALING_KINDS, "longrope", "proportional", "freq_factors")  # the kinds a model config can give
SEQ_LEN_KINDS = ("dynamic", "longrope")  # whose frequencies depend on the sequence length

__all__ = ["MODEL_SCALING_KINDS", "NEEDS_ORIGINAL_CTX", "SCALING_KINDS", "SEQ_LEN_KINDS", "RopeScaling",
           "rope_frequencies", "yarn_attention_factor"]


def yarn_attention_factor(factor: float) -> float:
    """YaRN's attention temperature: ``0.1 ln(factor) + 1``, and 1 for a factor of 1 or less."""
    return 1.0 if factor <= 1 else 0.1 * math.log(factor) + 1.0


def _inv_freq(dim: int, base: float, exponent_dim: int | None = None) -> np.ndarray:
    return 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / (exponent_dim or dim))  # (dim/2,)


def _yarn(dim: int, base: float, s: RopeScaling, original_ctx: int) -> np.ndarray:
    def correction_dim(rotations: float) -> float:
        return dim * math.log(original_ctx / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low, high = correction_dim(s.beta_fast), correction_dim(s.beta_slow)
    if s.truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001  # the published guard against a zero-width ramp
    ramp = np.clip((np.arange(dim // 2, dtype=np.float64) - low) / (high - low), 0.0, 1.0)
    extrapolation = _inv_freq(dim, base)
    interpolation = extrapolation / s.factor
    keep = 1.0 - ramp  # 1 where the original frequency is kept (fast pairs)
    return interpolation * (1.0 - keep) + extrapolation * keep


def _llama3(inv_freq: np.ndarray, s: RopeScaling, original_ctx: int) -> np.ndarray:
    low_freq_wavelength = original_ctx / s.low_freq_factor
    high_freq_wavelength = original_ctx / s.high_freq_factor
    wavelength = 2 * math.pi / inv_freq
    scaled = np.where(wavelength > low_freq_wavelength, inv_freq / s.factor, inv_freq)
    smooth = (original_ctx / wavelength - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor)
    smoothed = (1.0 - smooth) * scaled / s.factor + smooth * scaled
    medium = (wavelength >= high_freq_wavelength) & (wavelength <= low_freq_wavelength)
    return np.where(medium, smoothed, scaled)


def _longrope_factors(s: RopeScaling, dim: int, *, long: bool) -> np.ndarray:
    factors = s.long_factor if long else s.short_factor
    if factors is None or len(factors) != dim // 2:
        which = "long_factor" if long else "short_factor"
        raise ValueError(f"{s.kind} needs {which} with one entry per pair ({dim // 2}), got {factors!r}")
    return np.asarray(factors, dtype=np.float64)  # (dim/2,)


def rope_frequencies(
    head_dim: int,
    base: float,
    scaling: RopeScaling,
    *,
    seq_len: int | None = None,
    rotary_dim: int | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Frequencies of one RoPE head before and after scaling.

    Args:
        head_dim: size of one attention head.
        base: the RoPE base (theta), above 1.
        scaling: the context-extension method and its knobs.
        seq_len: the current length; ``dynamic`` and ``longrope`` read it (None means original_ctx).
        rotary_dim: how many leading features of the head rotate (default: all); even.

    Returns:
        ``(inv_freq_unscaled, inv_freq_scaled, attention_factor)``: two float64
        arrays of length rotary_dim // 2 and the factor that multiplies cos and sin.
    """
    dim = head_dim if rotary_dim is None else rotary_dim
    if dim < 2 or dim % 2:
        raise ValueError(f"rotary dimension must be even and at least 2, got {dim}")
    kind = scaling.kind
    if kind not in MODEL_SCALING_KINDS:
        raise ValueError(f"unknown RoPE scaling {kind!r}; choose from {', '.join(MODEL_SCALING_KINDS)}")
    if kind in (*NEEDS_ORIGINAL_CTX, "longrope") and scaling.original_ctx is None:
        raise ValueError(f"RoPE scaling {kind!r} needs original_ctx")
    original_ctx: int = scaling.original_ctx or 0  # set wherever a kind reads it (checked above)
    if kind in ("ntk", "dynamic") and dim == 2:
        raise ValueError(f"RoPE scaling {kind!r} raises the base to d / (d - 2): d must be at least 4")
    unscaled = _inv_freq(dim, base, scaling.exponent_dim)
    attention = 1.0
    if kind == "none":
        scaled = unscaled.copy()
    elif kind == "linear":
        scaled = unscaled / scaling.factor
    elif kind == "ntk":
        scaled = _inv_freq(dim, base * scaling.factor ** (dim / (dim - 2)))
    elif kind == "dynamic":
        length = seq_len if seq_len is not None and seq_len > original_ctx else original_ctx
        stretch = scaling.factor * length / original_ctx - (scaling.factor - 1)
        scaled = _inv_freq(dim, base * stretch ** (dim / (dim - 2)))
    elif kind == "yarn":
        scaled = _yarn(dim, base, scaling, original_ctx)
        attention = yarn_attention_factor(scaling.factor)
    elif kind == "llama3":
        scaled = _llama3(unscaled, scaling, original_ctx)
    elif kind == "longrope":
        scaled = unscaled / _longrope_factors(scaling, dim, long=seq_len is not None and seq_len > original_ctx)
    elif kind == "freq_factors":
        scaled = unscaled / _longrope_factors(scaling, dim, long=False)
    else:  # proportional
        scaled = unscaled / scaling.factor
    if scaling.attention_factor is not None:
        attention = float(scaling.attention_factor)
    return unscaled, scaled, attention
