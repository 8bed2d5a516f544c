"""transformers' own modules as the oracle of ``posemb heads``: the queries and keys of the input's basis vectors.

``runtime_qk`` runs one decoder layer of a model on the N basis vectors e_i of its width (N
sequences of one token, at one position) and takes the queries and keys its attention hands to
``eager_attention_forward``: after the layer's own input norm, projections, q/k norms, fused
split, rotary embedding (``rotary_emb``) and ``apply_rotary_pos_emb``, partial rotary and all.
Two things are taken out so that the result is the linear map posemb describes:

- every norm's division by the root mean square (or standard deviation) of its input: a forward
  hook multiplies the module's own output back by it (and removes a LayerNorm's bias, the module's
  output for a zero input), so the gain stays as the module applies it (w, or 1 + w for Gemma);
- the projections' biases (set to zero).

Then q(e_i at m) . k(e_i at m + d) summed over i is the kernel at distance d, and the queries at
position 0 (cos = the attention factor, sin = 0) are the columns of the weights as applied.
"""

from __future__ import annotations

import inspect
import math
import sys

import numpy as np
import torch


class _Captured(Exception):
    def __init__(self, query, key):
        super().__init__()
        self.query, self.key = query, key


def _capture(module, query, key, *args, **kwargs):
    raise _Captured(query.detach().clone(), key.detach().clone())


def _epsilon(norm) -> float:
    for name in ("eps", "variance_epsilon", "epsilon"):
        value = getattr(norm, name, None)
        if isinstance(value, float):
            return value
    raise AssertionError(f"no epsilon on {type(norm).__name__}")


def _linearise(norm) -> None:
    """Make ``norm`` linear: its output times its input's rms (or std), minus its output for a zero input."""
    state = {"busy": False}

    def hook(module, inputs, output):
        if state["busy"]:
            return None
        state["busy"] = True
        try:
            x = inputs[0].double()
            ones = torch.ones_like(x)
            centres = bool(torch.allclose(module(ones).double(), module(torch.zeros_like(x)).double()))
            spread = (x - x.mean(-1, keepdim=True)) if centres else x
            scale = torch.sqrt(spread.pow(2).mean(-1, keepdim=True) + _epsilon(module))
            return (output.double() - module(torch.zeros_like(x)).double()) * scale
        finally:
            state["busy"] = False

    norm.register_forward_hook(hook)


def _norms(layer) -> list:
    names = ("input_layernorm", "q_norm", "k_norm", "q_layernorm", "k_layernorm")
    return [module for name, module in layer.named_modules() if name.rsplit(".", 1)[-1] in names]


def prepare(model) -> None:
    """float64, eager attention, projection biases zero, every norm linear (see the module's notes)."""
    model.double()
    model.config._attn_implementation = "eager"
    for name, parameter in model.named_parameters():
        if name.endswith(("q_proj.bias", "k_proj.bias", "qkv_proj.bias", "query_key_value.bias")):
            parameter.data.zero_()
    for layer in model.base_model.layers:
        for norm in _norms(layer):
            _linearise(norm)


def runtime_qk(model, layer: int, position: int) -> tuple[np.ndarray, np.ndarray]:
    """Queries (N, H, E) and keys (N, G, E) of the N basis vectors at ``position``, as the layer's attention gets
    them (``prepare`` the model first)."""
    base = model.base_model
    decoder = base.layers[layer]
    attention = next(module for module in decoder.children() if type(module).__name__.endswith("Attention"))
    modeling = sys.modules[type(attention).__module__]
    width = model.config.hidden_size
    x = torch.eye(width, dtype=torch.float64)[:, None, :]  # (N, 1, N): N sequences of one token
    positions = torch.full((width, 1), position, dtype=torch.long)
    per_type = "layer_type" in inspect.signature(type(base.rotary_emb).forward).parameters  # Gemma 3: a set per type
    rotary = (base.rotary_emb(x, positions, model.config.layer_types[layer]) if per_type
              else base.rotary_emb(x, positions))
    original = modeling.eager_attention_forward
    modeling.eager_attention_forward = _capture
    try:
        with torch.no_grad():
            decoder(x, position_embeddings=rotary, attention_mask=None, position_ids=positions)
    except _Captured as done:
        return done.query[:, :, 0].numpy(), done.key[:, :, 0].numpy()
    finally:
        modeling.eager_attention_forward = original
    raise AssertionError("the attention never called eager_attention_forward")


def oracle_kernel(model, layer: int, distances: list[int], start: int = 5) -> np.ndarray:
    """(H, D): sum over the basis of q(e_i at start) . k(e_i at start + d), with the layer's own modules."""
    q, _ = runtime_qk(model, layer, start)
    heads, groups = q.shape[1], None
    out = np.zeros((heads, len(distances)))
    for column, distance in enumerate(distances):
        _, k = runtime_qk(model, layer, start + distance)
        groups = k.shape[1]
        for h in range(heads):
            out[h, column] = float((q[:, h, :] * k[:, h // (heads // groups), :]).sum())
    return out


def oracle_pair_share(model, layer: int, layout: str, rotary_dim: int) -> np.ndarray:
    """(H, P) pair shares from the weights as applied (the queries and keys of the basis at position 0)."""
    q, k = runtime_qk(model, layer, 0)
    heads, groups, pairs = q.shape[1], k.shape[1], rotary_dim // 2
    first = np.arange(pairs) if layout == "half" else 2 * np.arange(pairs)
    second = first + pairs if layout == "half" else first + 1
    out = np.zeros((heads, pairs))
    for h in range(heads):
        wq, wk = q[:, h, :].T, k[:, h // (heads // groups), :].T  # (E, N) each
        for f in range(pairs):
            out[h, f] = (math.sqrt((wq[[first[f], second[f]]] ** 2).sum())
                         * math.sqrt((wk[[first[f], second[f]]] ** 2).sum()))
    return out / out.sum(1, keepdims=True)
