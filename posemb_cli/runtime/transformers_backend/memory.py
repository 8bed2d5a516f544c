"""What one window of L tokens needs through transformers, estimated before any weight is loaded.

Notation: L the window, D the width, I the MLP width, Hq/Hkv the query/key-value heads of head_dim
h, V the vocabulary, e the bytes of the dtype the model runs in.

- **Weights**: the model built on the meta device (no bytes), its parameters and buffers counted
  once each (tied tables once) at e bytes.
- **Loading**, what loading adds for a while on top of the weights: a tensor converted to the dtype
  (the largest, in float32); from a GGUF file, the file's mapped pages and the largest tensor
  dequantised in float32 and its copy. (SmolLM2-135M Q4_1: 239 MiB measured, 326 MiB estimated.)
  Loading is over before the window runs, so a run needs the weights and the larger of the two.
- **Activations** of one forward with no cache and no gradient (PyTorch frees each temporary when
  its last use ends, so a layer's peak is its attention or its MLP, not both): the residual stream,
  the layer's normed input and RMSNorm's float32 square (3 L D e + L D 4), then the larger of the
  attention phase (q, k and v; the rotation's temporaries, three of q's size and two of k's; k and v
  repeated to Hq heads for grouped-query attention; the attention output and its projection: (7 Hq
  + 4 Hkv) h + D per token) and the MLP phase (gate, up and their product: 3 I + D per token), and
  the rotary angles, cos and sin (float32, then e). PyTorch's scaled-dot-product attention on a
  causal window holds no L x L matrix; a model with a sliding window shorter than L gets an L x L
  boolean mask. The losses are taken in chunks of positions from the last hidden state:
  ``CHUNK_BYTES`` of float32 logits and their log-softmax live at once.
- **Margin**: ``MARGIN`` of the sum, for the allocator and the kernels' own buffers.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CHUNK_BYTES", "MARGIN", "activation_bytes", "chunk_positions", "loading_bytes", "weight_bytes"]

CHUNK_BYTES = 64 << 20  # float32 logits of one chunk of positions
MARGIN = 0.25
_FLOAT32 = 4


def chunk_positions(vocab: int) -> int:
    """Positions per loss chunk: their float32 logits take at most ``CHUNK_BYTES``."""
    return max(1, CHUNK_BYTES // (_FLOAT32 * max(vocab, 1)))


def _tensors(model: Any) -> list[Any]:
    """The model's parameters and buffers, each once (a tied table is one tensor)."""
    return list({id(tensor): tensor for tensor in [*model.parameters(), *model.buffers()]}.values())


def weight_bytes(model: Any, element: int) -> int:
    """Bytes of ``model``'s parameters and buffers (built on the meta device), floats at ``element`` bytes each."""
    return sum(tensor.numel() * (element if tensor.is_floating_point() else tensor.element_size())
               for tensor in _tensors(model))


def loading_bytes(model: Any, gguf_file_bytes: int | None) -> int:
    """What loading adds on top of the weights at its peak: see the module docstring."""
    largest = max((tensor.numel() for tensor in _tensors(model)), default=0) * _FLOAT32
    return largest if gguf_file_bytes is None else gguf_file_bytes + 2 * largest


def activation_bytes(config: Any, length: int, element: int) -> int:
    """Peak bytes of one forward over ``length`` tokens and its chunked losses (see the module docstring)."""
    text = config.get_text_config() if hasattr(config, "get_text_config") else config
    width = int(text.hidden_size)
    heads = int(text.num_attention_heads)
    kv_heads = int(getattr(text, "num_key_value_heads", None) or heads)
    head_dim = int(getattr(text, "head_dim", None) or width // heads)
    mlp = int(getattr(text, "intermediate_size", None) or 4 * width)
    vocab = int(text.vocab_size)
    stream = 3 * width * element + width * _FLOAT32
    attention = ((7 * heads + 4 * kv_heads) * head_dim + width) * element
    feed_forward = (3 * mlp + width) * element
    rotary = 4 * head_dim * _FLOAT32 + 2 * head_dim * element
    per_token = stream + max(attention, feed_forward) + rotary
    total = length * per_token + 2 * chunk_positions(vocab) * vocab * _FLOAT32 + 2 * length * 8  # ids, targets
    window = getattr(text, "sliding_window", None)
    if window is not None and int(window) < length:
        total += length * length  # the sliding layers' boolean mask
    return int(total * (1 + MARGIN))
