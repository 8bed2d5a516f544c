"""One layer's query and key weights as the runtime applies them, read from a checkpoint one layer at a time.

Notation: H query heads, G key/value heads, J = H / G query heads per key head, E features per head
(head_dim), N the model's width. ``read_qk_layer`` reads a layer's q and k rows once, into buffers the
caller keeps for the next layer (``LayerBuffers``): float32 (float64 where the file stores float64),
a bfloat16 or float16 file's values exactly. A safetensors file's rows are read straight into them
(``sources.safetensors.stored``: float32 as is; bfloat16 into a reused buffer of its bits, then
widened by a 16-bit shift; float16 cast), with no torch and nothing of the layer's size allocated;
other formats' tensors (a state dict, a GGUF tensor dequantised with the gguf package) are copied
in. On the way in, and then in place:

- a fused projection split (rows [q; k; v], or GPT-NeoX's [q_h; k_h; v_h] per head);
- the rows of a GGUF file whose q and k llama.cpp's converter permuted put back in Hugging Face's
  order (the inverse of ``LlamaModel.permute``, as transformers' GGUF loader does it);
- the input norm's gain folded into the columns (``W diag(g)``; a LayerNorm's centring too,
  ``W diag(g) (I - 11^T / N)``) and any q/k norm's gain into the rows (a per-head LayerNorm's centring
  too). The norms' division by the root mean square is one scalar per token (and head) and is left out.

The centring and the q/k norms are applied a block of key/value groups at a time
(``groups_per_block``), the blocks ``QKLayer.block`` then gives as views: queries (B, J, E, N),
keys (B, E, N). Biases (projections, LayerNorms) are left out and named in ``QKLayer.biases``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.errors import FileError
from posemb_cli.sources.bounds.limits import format_bytes, require_memory
from posemb_cli.sources.weights.qk_names import FUSED_PER_HEAD, QKNames

if TYPE_CHECKING:
    from posemb_cli.sources.weights.attention_inputs import AttentionInput
    from posemb_cli.sources.weights.tensor_files import TensorFile

__all__ = ["BLOCK_BYTES", "AttentionShape", "LayerBuffers", "QKLayer", "groups_per_block", "layer_bytes",
           "read_qk_layer", "unpermute_rows", "unpermuted_view"]


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


@dataclass
class LayerBuffers:
    """The memory one layer's reading fills: q and k as applied, and stored rows on their way in. Kept and reused
    layer after layer (two of them: one layer is measured while the next is read)."""

    arrays: dict[str, np.ndarray] = field(default_factory=dict)

    def take(self, role: str, dtype, count: int) -> np.ndarray:
        """A flat array of ``count`` values of ``dtype`` for ``role``: the one held since an earlier layer where
        it is large enough, else a new one kept for the next."""
        held = self.arrays.get(role)
        if held is None or held.dtype != np.dtype(dtype) or held.size < count:
            held = self.arrays[role] = np.empty(count, dtype=dtype)
        return held[:count]


@dataclass(frozen=True)
class QKLayer:
    """One layer's queries (G, J, E, N) and keys (G, E, N) as the runtime applies them (views of a
    ``LayerBuffers``: valid until that buffer reads another layer), and the biases left out, by name."""

    layer: int
    q: np.ndarray
    k: np.ndarray
    biases: tuple[str, ...]

    @property
    def groups(self) -> int:
        return self.k.shape[0]

    def block(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """Key/value heads ``start`` to ``stop`` - 1: their query heads (B, J, E, N) and keys (B, E, N), views."""
        return self.q[start:stop], self.k[start:stop]


BLOCK_BYTES = 16 << 20  # key/value groups are measured about this many bytes at a time (at least one group)
_CHUNK_BYTES = 1 << 20  # heads widened and scaled at a time, in cache (at least one head)


def _group_bytes(shape: AttentionShape) -> int:
    return (shape.heads // shape.kv_heads + 1) * shape.head_dim * shape.hidden * 4


def groups_per_block(shape: AttentionShape, workers: int = 1) -> int:
    """Key/value groups per block: as many as fit BLOCK_BYTES in float32 (at least one), and few enough that
    ``workers`` blocks run side by side where the model has that many groups."""
    fit = max(1, BLOCK_BYTES // _group_bytes(shape))
    return max(1, min(shape.kv_heads, fit, -(-shape.kv_heads // workers)))


def layer_bytes(shape: AttentionShape, file_format: str) -> int:
    """Memory the reading takes at most: two layers' q and k in float32 (one measured while the next is read),
    a fused q, k and v's stored 16-bit rows on their way in, and a GGUF layer's q, k (and fused v)
    dequantised to float32 and copied once."""
    rows = (shape.heads + 2 * shape.kv_heads) * shape.head_dim
    applied = 2 * (shape.heads + shape.kv_heads) * shape.head_dim * shape.hidden * 4
    stored = rows * shape.hidden * 4 * 2 if file_format == "gguf" else rows * shape.hidden * 2
    return applied + stored


def unpermute_rows(w, heads: int):
    """Inverse of llama.cpp's ``LlamaModel.permute(w, n_head, n_head)``: each head's rows (2, E/2) interleaved
    back into its two halves (transformers' ``_reverse_permute_weights``); a copy (NumPy or torch)."""
    return unpermuted_view(w, heads).reshape(w.shape)


def unpermuted_view(w, heads: int):
    """``w`` (heads * E, ...) in llama.cpp's order seen as (heads, 2, E/2, ...) in Hugging Face's: no copy."""
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2)


@dataclass(frozen=True)
class _Rows:
    """One projection as stored: rows ``start`` to ``stop`` - 1 of tensor ``name``, or with ``part`` (0 q, 1 k)
    that part of each head's [q_h; k_h; v_h] (GPT-NeoX)."""

    name: str
    start: int
    stop: int
    part: int | None = None


def _rows(roles, fused: str | None, shape: AttentionShape) -> tuple[_Rows, _Rows]:
    """Where q's rows (H E) and k's rows (G E) are stored, in Hugging Face's order of heads."""
    e, h, g = shape.head_dim, shape.heads, shape.kv_heads
    if fused is None:
        return _Rows(roles.get("q"), 0, h * e), _Rows(roles.get("k"), 0, g * e)
    qkv = roles.get("qkv")
    if fused == FUSED_PER_HEAD:
        return _Rows(qkv, 0, 3 * h * e, 0), _Rows(qkv, 0, 3 * h * e, 1)
    return _Rows(qkv, 0, h * e), _Rows(qkv, h * e, (h + g) * e)


class _LayerReading:
    """One layer's tensors as they are read: located ones into the buffers' stored rows, others once each through
    the format's reader (torch; a fused tensor is read once for q and k)."""

    def __init__(self, tensors: TensorFile, buffers: LayerBuffers) -> None:
        self.tensors, self.buffers = tensors, buffers
        self.read: dict[str, object] = {}

    def _tensor(self, name: str):
        """The tensor as read: NumPy where the format decodes it without torch (GGUF), else a torch tensor."""
        if name not in self.read:
            array = self.tensors.read_array(name)
            self.read[name] = self.tensors.read(name) if array is None else array
        return self.read[name]

    def dtype(self, name: str) -> type:
        """float64 where the file stores float64, else float32: the dtype of q and k as applied."""
        located = self.tensors.stored(name)
        if located is not None:
            return np.float64 if located.dtype == "F64" else np.float32
        read = self._tensor(name)
        if isinstance(read, np.ndarray):
            return np.float64 if read.dtype == np.float64 else np.float32
        import torch

        return np.float64 if read.dtype == torch.float64 else np.float32

    def stored(self, rows: _Rows) -> tuple[np.ndarray, bool]:
        """The rows as stored, (rows, N), and whether they are bfloat16 bits."""
        located = self.tensors.stored(rows.name)
        if located is not None:
            staging = self.buffers.take("stored", located.element, (rows.stop - rows.start) * located.row_size)
            return located.read_rows(rows.start, rows.stop, staging), located.dtype == "BF16"
        stored = self._tensor(rows.name)[rows.start:rows.stop]
        if isinstance(stored, np.ndarray):  # decoded without torch: float32 or float64
            return stored, False
        import torch

        if stored.dtype == torch.bfloat16:  # a bfloat16 is the upper half of a float32: its bits, as uint16
            return stored.contiguous().view(torch.int16).numpy().view(np.uint16), True
        return stored.numpy(), False

    def fill(self, rows: _Rows, heads: int, out: np.ndarray, gain: np.ndarray | None, *, unpermute: bool,
             stored: tuple[np.ndarray, bool] | None = None) -> None:
        """``out`` (heads E, N) = the projection's rows, exactly, in Hugging Face's order, times the input norm's
        ``gain`` (N,) where given: a few heads at a time, each widened and scaled while it is in cache."""
        features = out.shape[0] // heads
        step = max(1, _CHUNK_BYTES // (features * out.shape[1] * out.itemsize))
        located = self.tensors.stored(rows.name) if stored is None else None
        direct = located is not None and located.element == out.dtype and rows.part is None and not unpermute
        values: np.ndarray | None = None
        target, bfloat16 = out, False
        if not direct:
            values, bfloat16 = stored if stored is not None else self.stored(rows)
            if rows.part is None:
                values = values.reshape(heads, features, -1)
            else:
                values = values.reshape(heads, 3, features, -1)[:, rows.part]  # (heads, E, N), a view
            target = out.reshape(heads, features, -1)
            if unpermute:  # llama.cpp's rows (E/2, 2) of each head go back to (2, E/2)
                values = unpermuted_view(values.reshape(heads * features, -1), heads)
                target = out.reshape(heads, 2, features // 2, -1)
        for first in range(0, heads, step):
            last = min(heads, first + step)
            chunk = out[first * features:last * features]
            if values is None:  # stored as used (float32, float64): straight in
                assert located is not None
                located.read_rows(rows.start + first * features, rows.start + last * features, chunk)
            else:
                _widen(values[first:last], bfloat16, target[first:last])
            if gain is not None:
                chunk *= gain


def _widen(stored: np.ndarray, bfloat16: bool, out: np.ndarray) -> None:
    """``out`` = the stored values, exactly: bfloat16 bits shifted into the upper half of each float32."""
    if bfloat16:
        np.left_shift(stored, 16, out=out.view(np.uint32), dtype=np.uint32)
    else:
        np.copyto(out, stored, casting="unsafe")


def _float64(tensors: TensorFile, name: str) -> np.ndarray:
    """A small tensor (a norm's gain) in float64, exactly."""
    located = tensors.stored(name)
    if located is None:
        array = tensors.read_array(name)
        if array is not None:
            return array.astype(np.float64)
        import torch

        return tensors.read(name).to(torch.float64).numpy()
    values = located.read_rows(0, located.shape[0], np.empty(math.prod(located.shape), located.element))
    if located.dtype == "BF16":
        values = np.left_shift(values, 16, dtype=np.uint32).view(np.float32)
    return values.astype(np.float64)


def _row_gain(tensors: TensorFile, name: str | None, heads: int, head_dim: int, offset: float, path: str):
    if name is None:
        return None
    gain = _float64(tensors, name).reshape(-1) + offset
    if gain.size == head_dim:
        return np.tile(gain, heads)
    if gain.size == heads * head_dim:
        return gain
    raise FileError(path, f"{name} has {gain.size} values; a norm on {heads} heads of {head_dim} features "
                      f"needs {head_dim} or {heads * head_dim}")


def _by_rows(w: np.ndarray, heads: int, *, centre: bool, row_gain: np.ndarray | None, qk_centre: bool) -> None:
    """The per-row steps, in place on one block's rows (heads E, N): the input LayerNorm's centring, then a q/k
    norm's (its centring within each head, its gain)."""
    if centre:
        w -= w.mean(axis=1, dtype=np.float64, keepdims=True)
    if row_gain is not None:
        if qk_centre:
            per_head = w.reshape(heads, w.shape[0] // heads, -1)
            per_head -= per_head.mean(axis=1, dtype=np.float64, keepdims=True)
        w *= row_gain.astype(w.dtype)[:, None]


def read_qk_layer(tensors: TensorFile, names: QKNames, layer: int, shape: AttentionShape, rule: AttentionInput, *,
                  unpermute: bool, path: str, buffers: LayerBuffers | None = None,
                  per_block: int = 1) -> QKLayer:
    """One layer's q and k as applied (see the module's notes), read once into ``buffers`` (fresh ones if None);
    the per-row steps go a block of ``per_block`` key/value groups at a time."""
    roles = names.layers[layer]
    need = layer_bytes(shape, tensors.kind)
    require_memory(path, need, about=f"layer {layer}'s query and key weights",
                   detail=f"{format_bytes(need)} at most per layer")
    buffers = buffers if buffers is not None else LayerBuffers()
    e, h, g, n = shape.head_dim, shape.heads, shape.kv_heads, shape.hidden
    q_rows, k_rows = _rows(roles, names.fused, shape)
    reading = _LayerReading(tensors, buffers)
    dtype = reading.dtype(q_rows.name)
    q = buffers.take("q", dtype, h * e * n).reshape(h * e, n)
    k = buffers.take("k", dtype, g * e * n).reshape(g * e, n)
    norm = roles.get("norm")  # present exactly where the family's runtime applies one (open_qk_source checks)
    # the input norm's gain as applied is exact in float32 (bfloat16, float32, 1 + w)
    gain: np.ndarray | None = None
    if norm is not None:
        gain = (_float64(tensors, norm).reshape(-1) + rule.offset).astype(dtype)
    shared = reading.stored(q_rows) if q_rows.part is not None else None  # GPT-NeoX: one read for both parts
    reading.fill(q_rows, h, q, gain, unpermute=unpermute, stored=shared)
    reading.fill(k_rows, g, k, gain, unpermute=unpermute, stored=shared)
    del reading  # a tensor read through torch (a dequantised GGUF tensor) is not kept past the layer
    q_gain = _row_gain(tensors, roles.get("q_norm"), h, e, rule.offset, path)
    k_gain = _row_gain(tensors, roles.get("k_norm"), g, e, rule.offset, path)
    per, centre, qk_centre = h // g, gain is not None and rule.norm == "layer", rule.qk_norm == "layer"
    for start in range(0, g, per_block):
        stop = min(g, start + per_block)
        _by_rows(q[start * per * e:stop * per * e], (stop - start) * per, centre=centre,
                 row_gain=None if q_gain is None else q_gain[start * per * e:stop * per * e], qk_centre=qk_centre)
        _by_rows(k[start * e:stop * e], stop - start, centre=centre,
                 row_gain=None if k_gain is None else k_gain[start * e:stop * e], qk_centre=qk_centre)
    return QKLayer(layer, q.reshape(g, per, e, n), k.reshape(g, e, n), tuple(roles.biases))
