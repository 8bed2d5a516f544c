"""What query and key weights put on each RoPE frequency: pair shares and the positional kernel of each head.

Notation: B key/value heads, J query heads per key head (query head j of key head g), E features
per head, N the model's width, P rotary pairs, D distances. Pair f is features (a_f, b_f):
(f, f + P) in the half layout, (2f, 2f + 1) interleaved; features 2P to E - 1 do not rotate.

    pair_share[h, f] = ||W_q[h][(a_f, b_f)]||_F ||W_k[g][(a_f, b_f)]||_F, normalised to sum 1 over f
    kernel[h, d]     = sum over the input's basis vectors e_i of q(e_i at m) . k(e_i at m + d)
                     = tr(W_q[h]^T R_d W_k[g])
                     = s^2 sum_f [cos(d θ_f) (M_aa + M_bb) + sin(d θ_f) (M_ba - M_ab)] + sum_{j >= 2P} M_jj

with M = W_q[h] W_k[g]^T, of which only the pairs' 2 x 2 blocks are formed (never R_d or M whole),
θ_f the frequencies as applied and s the factor the runtime multiplies cos and sin by (YaRN,
LongRoPE), which scales both the query and the key. The kernel does not depend on m.

Every product of two weights is formed in float64 (exact for float32 weights) and summed in float64,
so the figures do not depend on a library's blocking or vector width beyond float64 rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["HeadFrequencies", "head_frequencies"]

# The 2 x 2 block of every pair, Z[b, j, f, s, t] = row (f, s) of the query . row (f, t) of the key, where
# member s of pair f is feature s P + f (half) or 2 f + s (interleaved).
_BLOCKS = {"half": ("bjsfn,btfn->bjfst", lambda w, p: w.reshape(*w.shape[:-2], 2, p, w.shape[-1])),
           "interleaved": ("bjfsn,bftn->bjfst", lambda w, p: w.reshape(*w.shape[:-2], p, 2, w.shape[-1]))}


@dataclass(frozen=True)
class HeadFrequencies:
    """The heads' figures, query heads in order (key head by key head): ``pair_share`` (H, P), ``kernel`` (H, D)."""

    pair_share: np.ndarray
    kernel: np.ndarray


def _pair_sums(values: np.ndarray, pairs: int, layout: str) -> np.ndarray:
    """(..., P) sums of each pair's two members from (..., 2P) per-feature values."""
    if layout == "half":
        return values[..., :pairs] + values[..., pairs:]
    return values[..., 0::2] + values[..., 1::2]


def head_frequencies(q: np.ndarray, k: np.ndarray, *, rotary_dim: int, layout: str, inv_freq: np.ndarray,
                     attention_factor: float, distances: np.ndarray) -> HeadFrequencies:
    """Pair shares and kernels of the query heads of B key heads.

    Args:
        q: (B, J, E, N) float32 or float64, the query weights as applied. k: (B, E, N), the key weights.
        rotary_dim: features that rotate (2P). layout: ``half`` or ``interleaved``.
        inv_freq: (P,) the frequencies θ_f as applied. attention_factor: s, the factor on cos and sin.
        distances: (D,) the distances d of the kernel.
    """
    if layout not in _BLOCKS:
        raise ValueError(f"unknown RoPE layout {layout!r}; known: {', '.join(_BLOCKS)}")
    pairs = rotary_dim // 2
    equation, split = _BLOCKS[layout]
    rotating_q, rotating_k = q[:, :, :rotary_dim], k[:, None, :rotary_dim]
    exact = np.float64  # products and sums in float64
    blocks = np.einsum(equation, split(rotating_q, pairs), split(k[:, :rotary_dim], pairs), dtype=exact)  # (B,J,P,2,2)
    q_norms = np.einsum("bjen,bjen->bje", rotating_q, rotating_q, dtype=exact)  # (B, J, 2P) squared row norms
    k_norms = np.einsum("bjen,bjen->bje", rotating_k, rotating_k, dtype=exact)  # (B, 1, 2P)
    still = np.einsum("bjen,ben->bj", q[:, :, rotary_dim:], k[:, rotary_dim:], dtype=exact)  # (B, J)
    heads = q.shape[0] * q.shape[1]
    same = (blocks[..., 0, 0] + blocks[..., 1, 1]).reshape(heads, pairs)
    cross = (blocks[..., 1, 0] - blocks[..., 0, 1]).reshape(heads, pairs)
    energy = (np.sqrt(_pair_sums(q_norms, pairs, layout)) * np.sqrt(_pair_sums(k_norms, pairs, layout)))
    energy = energy.reshape(heads, pairs)  # (H, P)
    with np.errstate(invalid="ignore"):  # an all-zero head has no shares: NaN, written null
        share = energy / energy.sum(1, keepdims=True)
    angles = np.asarray(distances, dtype=np.float64)[:, None] * np.asarray(inv_freq, dtype=np.float64)[None, :]
    kernel = attention_factor ** 2 * (same @ np.cos(angles).T + cross @ np.sin(angles).T)
    return HeadFrequencies(pair_share=share, kernel=kernel + still.reshape(heads, 1))
