"""Rotary position embedding (RoFormer, Su et al. 2021): rotate query/key pairs by position.

Notation: T sequence length, L max context, D model width, H heads of size
``head_dim`` (D = H * head_dim), h = head_dim / 2 rotated pairs per head,
N probe vectors.

RoPE adds nothing to the input: ``forward`` returns a zero additive part and
the position goes into attention, where ``rotate`` turns each pair i of a
query or key at position m by the angle ``m * inv_freq_i``. Two layouts:
``interleaved`` pairs features (2i, 2i+1) as in the paper; ``half`` pairs
features (i, i + h) as GPT-NeoX and Llama's rotate-half do.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch
from torch import nn

from posemb_cli.core.dtypes import uses_cast_recipe
from posemb_cli.core.schemes.bands import Band, bands_of
from posemb_cli.core.schemes.base import ZeroInput
from posemb_cli.core.schemes.rope_scaling import SEQ_LEN_KINDS, RopeScaling, rope_frequencies
from posemb_cli.core.schemes.rope_signal import ProbeRotation
from posemb_cli.core.settings import EmbeddingConfig

_PROBE_FEATURES = 1024  # N * D of the probe signal: N = clamp(1024 // D, 1, 8)


def _compute_dtype(dtype: torch.dtype) -> torch.dtype:
    return torch.float64 if dtype == torch.float64 else torch.float32


class RotaryPositionalEmbedding(ZeroInput, nn.Module):
    """RoPE over ``dim`` features split into heads of ``head_dim``, with optional context scaling.

    Args:
        max_ctx: L, the context the frequencies are reported (and dynamic NTK sized) for.
        dim: D, the model width; a multiple of ``head_dim``.
        head_dim: size of one head, even (default: D).
        base: the RoPE base (theta).
        layout: ``interleaved`` or ``half``.
        scaling: the context-extension method; ``original_ctx`` must be set for dynamic, yarn, llama3.
        generator: seeds the N random probe vectors that ``signal`` rotates.
    """

    acts_on = "queries and keys"
    inv_freq: torch.Tensor  # (h,) float64 buffers: the frequencies as used, and before scaling
    inv_freq_unscaled: torch.Tensor
    probes: torch.Tensor  # (N, D) unit probe vectors

    def __init__(
        self,
        max_ctx: int,
        dim: int,
        head_dim: int | None = None,
        base: float = 10000.0,
        *,
        layout: str = "interleaved",
        scaling: RopeScaling = RopeScaling(),
        generator: torch.Generator | None = None,
        device: torch.device | str | None = None,
        dtype: torch.dtype | None = None,
    ) -> None:
        super().__init__()
        head_dim = dim if head_dim is None else head_dim
        if head_dim % 2 or dim % head_dim:
            raise ValueError(f"head_dim {head_dim} must be even and divide dim {dim}")
        if layout not in ("interleaved", "half"):
            raise ValueError(f"layout {layout!r} is not interleaved or half")
        self.max_ctx, self.dim, self.head_dim, self.base = max_ctx, dim, head_dim, base
        self.layout, self.scaling = layout, scaling
        self.dtype = dtype or torch.float32
        unscaled, scaled, attention = rope_frequencies(head_dim, base, scaling, seq_len=max_ctx)
        self.attention_factor = attention
        self.register_buffer("inv_freq_unscaled", torch.from_numpy(unscaled).to(device), persistent=False)
        self.register_buffer("inv_freq", torch.from_numpy(scaled).to(device), persistent=False)  # (h,) float64
        count = max(1, min(8, _PROBE_FEATURES // dim))
        probes = torch.randn(count, dim, generator=generator, dtype=torch.float64)
        probes /= torch.linalg.vector_norm(probes, dim=1, keepdim=True) * math.sqrt(count)  # rows of unit norm
        self.register_buffer("probes", probes.to(device=device, dtype=_compute_dtype(self.dtype)), persistent=False)
        self.rotation = ProbeRotation(dim, head_dim, layout, self.dtype)

    def anchor(self) -> torch.Tensor:
        return self.inv_freq  # nothing is added to the input: ZeroInput's zero additive part lives beside it

    def frequencies(self, seq_len: int | None = None) -> torch.Tensor:
        """(h,) float64 frequencies as used for a sequence of ``seq_len`` (dynamic NTK and LongRoPE depend on it)."""
        if self.scaling.kind not in SEQ_LEN_KINDS or seq_len is None or seq_len == self.max_ctx:
            return self.inv_freq
        _, scaled, _ = rope_frequencies(self.head_dim, self.base, self.scaling, seq_len=seq_len)
        return torch.from_numpy(scaled).to(self.inv_freq.device)

    def rotate(self, x: torch.Tensor, positions: torch.Tensor, *, seq_len: int | None = None) -> torch.Tensor:
        """Rotate ``x`` (..., T, D) at ``positions`` (T,) pair by pair; times the attention factor.

        Angles are formed in float64 (float32 and float64); in bfloat16 and float16 the ``cast``
        recipe applies: float32 angles and cos/sin, held in the dtype. The product runs in
        float32 (float64 for float64 input).
        ``seq_len`` (default: the largest position + 1) sizes dynamic NTK.
        """
        if seq_len is None:
            seq_len = int(positions.max()) + 1 if positions.numel() else 1
        frequencies = self.frequencies(seq_len).to(positions.device)  # (h,) float64
        compute = _compute_dtype(x.dtype)
        if uses_cast_recipe(self.dtype):  # the cast recipe: float32 angles and cos/sin, held in the dtype
            angles = positions.to(torch.float32)[:, None] * frequencies.to(torch.float32)  # (T, h)
            cos = (torch.cos(angles) * self.attention_factor).to(self.dtype).to(compute)[:, None, :]  # (T, 1, h)
            sin = (torch.sin(angles) * self.attention_factor).to(self.dtype).to(compute)[:, None, :]
        else:
            angles = positions.to(torch.float64)[:, None] * frequencies  # (T, h)
            cos = (torch.cos(angles) * self.attention_factor).to(compute)[:, None, :]  # (T, 1, h)
            sin = (torch.sin(angles) * self.attention_factor).to(compute)[:, None, :]
        heads = x.to(compute).reshape(*x.shape[:-1], self.dim // self.head_dim, self.head_dim)  # (..., T, H, hd)
        half = self.head_dim // 2
        if self.layout == "interleaved":
            even, odd = heads[..., 0::2], heads[..., 1::2]  # (..., T, H, h)
            out = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
        else:
            first, second = heads[..., :half], heads[..., half:]
            out = torch.cat((first * cos - second * sin, first * sin + second * cos), dim=-1)
        return out.reshape(x.shape).to(x.dtype)  # (..., T, D)

    def signal(self, start: int = 0, stop: int | None = None) -> torch.Tensor:
        """The N probes rotated to positions start..stop-1, side by side: (stop - start, N * D), rows of unit norm.

        The cosine between rows p and p + k is the mean over probes of cos(R_p v, R_{p+k} v).
        Angles are formed in float64 on a fixed grid of positions (``rope_signal.py``): every row
        depends on its position only, so any block equals the same rows of the whole signal, bit
        for bit, and nothing of size L is built or kept.
        """
        stop = self.max_ctx if stop is None else stop
        frequencies = self.frequencies(max(stop, self.max_ctx)).to(self.probes.device)  # (h,) float64
        return self.rotation.rows(self.probes, frequencies, start, stop)

    def exact_neighbour_similarity(self, max_offset: int) -> list[float] | None:
        """cos(signal row p, row p + k) = q^T R_k q / |q|^2 of the probes q side by side, in float64; k = 1..K.

        R_p is orthogonal, so (R_p q) . (R_{p+k} q) = q^T R_k q = sum_i (a_i^2 + b_i^2) cos(k theta_i)
        over the pairs (a_i, b_i) of every probe and head: the same at every p.
        """
        first, second = self.rotation.pairs(self.probes.to(torch.float64))  # (N, H, h) each
        weights = (first ** 2 + second ** 2).sum(dim=(0, 1))  # (h,): |q|^2 on each frequency
        offsets = torch.arange(1, max_offset + 1, dtype=torch.float64, device=weights.device)[:, None]
        cosines = torch.cos(offsets * self.inv_freq.to(weights.device)[None, :])  # (K, h)
        return ((cosines * weights).sum(dim=1) / weights.sum()).tolist()

    def pair_scores(self, q: torch.Tensor, k: torch.Tensor, m: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
        """(R_m q) . (R_n k) for each pair (m_j, n_j): (P,)."""
        rotated_q = self.rotate(q.expand(m.shape[0], -1), m, seq_len=self.max_ctx)  # (P, D)
        rotated_k = self.rotate(k.expand(n.shape[0], -1), n, seq_len=self.max_ctx)
        return (rotated_q * rotated_k).sum(-1)

    def inv_freq_for_base(self, base: float) -> np.ndarray:
        """(h,) float64 frequencies as used (this head size, scaling and context) with another ``base``."""
        return rope_frequencies(self.head_dim, base, self.scaling, seq_len=self.max_ctx)[1]

    def bands(self) -> list[Band]:
        """Per pair of one head: the frequency as used (after scaling), its wavelength, and the unscaled one.

        LongRoPE's bands also carry both of its sets, ``inv_freq_short`` (up to original_ctx) and
        ``inv_freq_long`` (beyond it); ``inv_freq`` is the set used at max_ctx.
        """
        unscaled = self.inv_freq_unscaled.tolist() if self.scaling.kind != "none" else None
        bands = bands_of(self.inv_freq.tolist(), unscaled)
        if self.scaling.kind != "longrope":
            return bands
        original = self.scaling.original_ctx or self.max_ctx  # longrope's switch; always set for longrope
        short, long = (rope_frequencies(self.head_dim, self.base, self.scaling, seq_len=length)[1].tolist()
                       for length in (original, original + 1))
        return [dataclasses.replace(band, inv_freq_short=short[band.pair], inv_freq_long=long[band.pair])
                for band in bands]


def build(
    config: EmbeddingConfig, *, device: torch.device, dtype: torch.dtype, scaling: RopeScaling | None = None
) -> RotaryPositionalEmbedding:
    """The scheme from the settings; ``scaling`` (a model config's, with knobs no flag sets) replaces the flags'."""
    from posemb_cli.core.settings import rope_scaling_of

    return RotaryPositionalEmbedding(
        config.ctx, config.dim, config.head_dim or config.dim, config.base, layout=config.rope_layout,
        scaling=scaling or rope_scaling_of(config), generator=torch.Generator().manual_seed(config.seed + 5),
        device=device, dtype=dtype)
