"""One layer's query and key weights as the runtime applies them, read from a checkpoint one layer at a time.

Notation: H query heads, G key/value heads, J = H / G query heads per key head, E features per head
(head_dim), N the model's width. A layer is opened without converting anything (a memory-mapped
file's rows are views; a GGUF tensor is dequantised with the gguf package); ``QKLayer.block(g, g')`` then
gives key/value groups g to g' - 1, their queries (B, J, E, N) and keys (B, E, N) in float32 (a bfloat16
or float16 file's values exactly; float64 where the file stores float64), with

- a fused projection split (rows [q; k; v], or GPT-NeoX's [q_h; k_h; v_h] per head);
- the rows of a GGUF file whose q and k llama.cpp's converter permuted put back in Hugging Face's
  order (the inverse of ``LlamaModel.permute``, as transformers' GGUF loader does it);
- the input norm's gain folded into the columns (``W diag(g)``; a LayerNorm's centring too,
  ``W diag(g) (I - 11^T / N)``) and any q/k norm's gain into the rows (a per-head LayerNorm's centring
  too). The norms' division by the root mean square is one scalar per token (and head) and is left out.

Biases (projections, LayerNorms) are left out and named in ``QKLayer.biases``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds.limits import format_bytes, require_memory
from posemb_cli.sources.weights.qk_names import FUSED_PER_HEAD, QKNames

if TYPE_CHECKING:
    import torch

    from posemb_cli.sources.weights.attention_inputs import AttentionInput
    from posemb_cli.sources.weights.tensor_files import TensorFile

__all__ = ["BLOCK_BYTES", "AttentionShape", "QKLayer", "as_float", "block_bytes", "groups_per_block", "layer_bytes",
           "read_qk_layer", "unpermute_rows"]


@dataclass(frozen=True)
class AttentionShape:
    heads: int
    kv_heads: int
    head_dim: int
    hidden: int

    def expected(self) -> dict[str, tuple[int, ...]]:
        """Each projection's stored shape (rows first): separate q and k, or fused q, k, v."""
        e, n = self.head_dim, self.hidden
        return {"q": (self.heads * e, n), "k": (self.kv_heads * e, n), "qkv": ((self.heads + 2 * self.kv_heads) * e, n)}


def as_float(rows: torch.Tensor) -> np.ndarray:
    """Stored rows as a fresh NumPy array: float32 (bfloat16 widened by its bits, float16 cast), float64 kept."""
    import torch

    if rows.dtype == torch.bfloat16:  # a bfloat16 is the upper half of a float32
        bits = rows.contiguous().view(torch.int16).numpy().view(np.uint16)
        return np.left_shift(bits, 16, dtype=np.uint32).view(np.float32)
    return rows.numpy().astype(np.float64 if rows.dtype == torch.float64 else np.float32)


@dataclass(frozen=True)
class QKLayer:
    """One layer's stored rows and the gains around them; ``block(g, g')`` gives key/value groups as applied.

    Attributes:
        q_rows: (H, E, N) and k_rows: (G, E, N), the stored values (any float dtype; views where the file allows).
        gain: the input norm's gain as applied (N,) float64, or None; centre: whether that norm centres (LayerNorm).
        q_gain, k_gain: the q/k norms' gains as applied, one per row ((H E,), (G E,)) float64, or None;
        qk_centre: whether those norms centre within each head. unpermute: the rows are llama.cpp's order.
        biases: the biases present and left out, by name.
    """

    layer: int
    q_rows: torch.Tensor
    k_rows: torch.Tensor
    gain: np.ndarray | None
    centre: bool
    q_gain: np.ndarray | None
    k_gain: np.ndarray | None
    qk_centre: bool
    unpermute: bool
    biases: tuple[str, ...]

    @property
    def groups(self) -> int:
        return self.k_rows.shape[0]

    def _applied(self, rows, row_gain, heads: int) -> np.ndarray:
        features = rows.shape[-2]
        w = as_float(rows.reshape(heads * features, -1))  # a fresh array: the file's rows stay untouched
        if self.unpermute:
            w = unpermute_rows(w, heads)
        if self.gain is not None:
            w *= self.gain.astype(w.dtype)  # a gain as applied is exact in float32 (bfloat16, float32, 1 + w)
            if self.centre:
                w -= w.mean(axis=1, dtype=np.float64, keepdims=True)
        if row_gain is not None:
            if self.qk_centre:
                per_head = w.reshape(heads, features, -1)
                per_head -= per_head.mean(axis=1, dtype=np.float64, keepdims=True)
            w *= row_gain.astype(w.dtype)[:, None]
        return w

    def block(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Key/value heads ``start`` to ``stop`` - 1 as the runtime applies them: their query heads (B, J, E, N)
        and keys (B, E, N), B = stop - start, float32 (float64 where the file stores float64)."""
        per, features = self.q_rows.shape[0] // self.groups, self.q_rows.shape[1]
        q_gain = None if self.q_gain is None else self.q_gain[start * per * features:stop * per * features]
        k_gain = None if self.k_gain is None else self.k_gain[start * features:stop * features]
        q = self._applied(self.q_rows[start * per:stop * per], q_gain, (stop - start) * per)
        k = self._applied(self.k_rows[start:stop], k_gain, stop - start)
        return q.reshape(stop - start, per, features, -1), k.reshape(stop - start, features, -1)


BLOCK_BYTES = 16 << 20  # key/value groups are converted about this many bytes at a time (at least one group)


def _group_bytes(shape: AttentionShape) -> int:
    return (shape.heads // shape.kv_heads + 1) * shape.head_dim * shape.hidden * 4


def groups_per_block(shape: AttentionShape, workers: int = 1) -> int:
    """Key/value groups per block: as many as fit BLOCK_BYTES in float32 (at least one), and few enough that
    ``workers`` blocks run side by side where the model has that many groups."""
    fit = max(1, BLOCK_BYTES // _group_bytes(shape))
    return max(1, min(shape.kv_heads, fit, -(-shape.kv_heads // workers)))


def block_bytes(shape: AttentionShape, workers: int = 1) -> int:
    """Memory the blocks in flight take as applied: each block's rows in float32, twice (a permuted copy)."""
    return workers * groups_per_block(shape, workers) * _group_bytes(shape) * 2


def layer_bytes(shape: AttentionShape, file_format: str, workers: int = 1) -> int:
    """Memory one layer's reading takes at most: a GGUF layer's q, k (and fused v) dequantised to float32 and
    copied once; a memory-mapped layer only its pages and the blocks in flight."""
    rows = (shape.heads + 2 * shape.kv_heads) * shape.head_dim
    stored = rows * shape.hidden * 4 * 2 if file_format == "gguf" else 0
    return stored + block_bytes(shape, workers)


def unpermute_rows(w: np.ndarray, heads: int) -> np.ndarray:
    """Inverse of llama.cpp's ``LlamaModel.permute(w, n_head, n_head)``: each head's rows (2, E/2) interleaved
    back into its two halves (transformers' ``_reverse_permute_weights``)."""
    rows = w.shape[0]
    return w.reshape(heads, rows // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _float64(tensors: TensorFile, name: str) -> np.ndarray:
    import torch

    return tensors.read(name).to(torch.float64).numpy()


def _projections(tensors: TensorFile, names, fused: str | None, shape: AttentionShape):
    """(q rows (H, E, N), k rows (G, E, N)) as stored, in Hugging Face's order of heads (views where possible)."""
    e, h, g = shape.head_dim, shape.heads, shape.kv_heads
    if fused is None:
        return (tensors.read(names.get("q")).reshape(h, e, -1), tensors.read(names.get("k")).reshape(g, e, -1))
    qkv = tensors.read(names.get("qkv"))
    if fused == FUSED_PER_HEAD:
        per_head = qkv.reshape(h, 3, e, shape.hidden)
        return per_head[:, 0], per_head[:, 1]
    return qkv[: h * e].reshape(h, e, -1), qkv[h * e:(h + g) * e].reshape(g, e, -1)


def _row_gain(tensors: TensorFile, name: str | None, heads: int, head_dim: int, offset: float, what: str):
    if name is None:
        return None
    gain = _float64(tensors, name).reshape(-1) + offset
    if gain.size == head_dim:
        return np.tile(gain, heads)
    if gain.size == heads * head_dim:
        return gain
    raise PosembError(f"{what}: {name} has {gain.size} values; a norm on {heads} heads of {head_dim} features "
                      f"needs {head_dim} or {heads * head_dim}")


def read_qk_layer(tensors: TensorFile, names: QKNames, layer: int, shape: AttentionShape, rule: AttentionInput, *,
                  unpermute: bool, what: str, workers: int = 1) -> QKLayer:
    """One layer's stored q and k rows and gains (see the module's notes); nothing is converted until ``block``."""
    roles = names.layers[layer]
    need = layer_bytes(shape, tensors.kind, workers)
    require_memory(f"{what}: layer {layer}'s query and key weights", need,
                   detail=f"{format_bytes(need)} at most per layer")
    q_rows, k_rows = _projections(tensors, roles, names.fused, shape)
    norm = roles.get("norm")  # present exactly where the family's runtime applies one (open_qk_source checks)
    gain = None if norm is None else _float64(tensors, norm).reshape(-1) + rule.offset
    return QKLayer(layer, q_rows, k_rows, gain, rule.norm == "layer",
                   _row_gain(tensors, roles.get("q_norm"), shape.heads, shape.head_dim, rule.offset, what),
                   _row_gain(tensors, roles.get("k_norm"), shape.kv_heads, shape.head_dim, rule.offset, what),
                   rule.qk_norm == "layer", unpermute, tuple(roles.biases))
