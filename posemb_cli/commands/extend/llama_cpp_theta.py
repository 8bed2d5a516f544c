"""llama.cpp's θ′ per pair and its magnitude scale, as its CPU kernel computes them, from its flags.

ggml ``ggml_rope_cache_init``/``rope_yarn``: θ_i = p · powf(base, -2/n_dims)^i multiplied up in float32, divided by
a file's frequency factors, the YaRN ramp between ``ggml_rope_yarn_corr_dims``' floor and ceil, magnitude
1 + 0.1 ln(1/freq_scale) when ext_factor is 1, as llama_context sets it for yarn. Compared pair by pair with
transformers' by ``commands.extend.engines``. No torch here.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from posemb_cli.run.models.scaling_candidates import SetCandidateSpec
    from posemb_cli.run.models.trained_rope import TrainedSet

__all__ = ["llama_cpp_side", "llama_cpp_theta", "parse_flags"]


def parse_flags(flags: list[str]) -> dict[str, str]:
    return {flags[i]: flags[i + 1] for i in range(0, len(flags) - 1) if flags[i].startswith("-")}


def _corr_dims(n_dims: int, n_ctx_orig: int, base: float, beta_fast: float, beta_slow: float) -> tuple[float, float]:
    """ggml_rope_yarn_corr_dims, in float32 as ggml computes it."""
    f32 = np.float32

    def dim(n_rot: float) -> np.float32:
        return f32(f32(n_dims) * f32(math.log(f32(n_ctx_orig) / (f32(n_rot) * f32(2) * f32(math.pi))))
                   / (f32(2) * f32(math.log(f32(base)))))

    return max(0.0, math.floor(dim(beta_fast))), min(float(n_dims - 1), math.ceil(dim(beta_slow)))


def llama_cpp_theta(n_dims: int, base: float, freq_scale: float, *, ext_factor: float = 0.0, n_ctx_orig: int = 0,
                    beta_fast: float = 32.0, beta_slow: float = 1.0, freq_factors=None,
                    attn_factor: float = 1.0) -> tuple[np.ndarray, float]:
    """llama.cpp's θ′ per pair at position 1 and its magnitude scale, emulating ``ggml_rope_cache_init`` in float32.

    Args:
        n_dims: the rotary dimension. base: ``freq_base``. freq_scale: 1 / the ``--rope-scale`` factor (1 for none).
        ext_factor: 1 for YaRN (llama_context's default for ``--rope-scaling yarn``), else 0.
        n_ctx_orig: ``--yarn-orig-ctx``. beta_fast, beta_slow: the YaRN ramp's ends.
        freq_factors: a file's per-pair divisors (``rope_freqs.weight``, LongRoPE's factors), or None.
        attn_factor: the net attention factor before YaRN's own (llama.cpp cancels its own and re-applies
            get_mscale(factor), so the net for yarn is 0.1 ln s + 1).
    """
    f32 = np.float32
    theta_scale = f32(f32(base) ** f32(f32(-2.0) / f32(n_dims)))
    low, high = _corr_dims(n_dims, n_ctx_orig, base, beta_fast, beta_slow) if ext_factor else (0.0, 0.0)
    theta = f32(1.0)
    out = np.empty(n_dims // 2, dtype=np.float32)
    for pair in range(n_dims // 2):
        factor = f32(1.0) if freq_factors is None else f32(freq_factors[pair])
        extrap = f32(theta / factor)
        interp = f32(f32(freq_scale) * extrap)
        value = interp
        if ext_factor:
            y = f32((pair - f32(low)) / max(f32(0.001), f32(high - low)))
            mix = f32(f32(1) - min(f32(1), max(f32(0), y))) * f32(ext_factor)
            value = f32(interp * (f32(1) - mix) + extrap * mix)
        out[pair] = value
        theta = f32(theta * theta_scale)
    mscale = f32(attn_factor)
    if ext_factor:
        mscale = f32(mscale * (f32(1) + f32(0.1) * f32(math.log(f32(1) / f32(freq_scale)))))
    return out.astype(np.float64), float(mscale)


def llama_cpp_side(one: TrainedSet, spec: SetCandidateSpec, flags: list[str]) -> tuple[np.ndarray, float]:
    """llama.cpp's θ′ and magnitude for one set under ``flags`` (on a GGUF converted from the published config)."""
    given = parse_flags(flags)
    rope = one.rope
    base = float(given.get("--rope-freq-base", rope.base))
    kind = given.get("--rope-scaling")
    scale = float(given.get("--rope-scale", 1.0))
    if kind is None and rope.scaling.kind in ("llama3", "longrope"):  # the GGUF's own divisors, stored as float32
        unscaled = 1.0 / rope.base ** (np.arange(0, rope.rotary_dim, 2, dtype=np.float64) / rope.rotary_dim)
        factors = (unscaled / spec.inv_freq).astype(np.float32)
        return llama_cpp_theta(rope.rotary_dim, base, 1.0, freq_factors=factors,
                               attn_factor=spec.attention_factor)[0], float(np.float32(spec.attention_factor))
    if kind == "yarn":
        return llama_cpp_theta(rope.rotary_dim, base, 1.0 / scale, ext_factor=1.0,
                               n_ctx_orig=int(given["--yarn-orig-ctx"]),
                               beta_fast=float(given.get("--yarn-beta-fast", 32.0)),
                               beta_slow=float(given.get("--yarn-beta-slow", 1.0)))
    return llama_cpp_theta(rope.rotary_dim, base, 1.0 / scale if kind == "linear" else 1.0)
