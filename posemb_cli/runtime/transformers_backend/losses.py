"""One window through the model, and the next-token loss and top-1 hit at every position, in chunks of hidden states.

The body of the model (``model.base_model``) runs the L ids as one window from position 0, with
no cache (``use_cache=False``) and no gradient; each decoder layer reports its step to the progress.
The losses are then taken from the last hidden state (already normed by the body) a chunk of
positions at a time: the output head on the chunk, float32 logits (capped where the config sets
``final_logit_softcapping``, as transformers' forward does), their cross-entropy against the
next ids, and whether their argmax is the next id (a top-1 hit). No (L, V) logits are ever held:
at L = 16,384 and V = 49,152 they would be 3 GiB.

Before the window runs, ``check_logits_path`` holds this path to the model's own forward on a
short prefix: the logits it takes from the hidden states must equal ``model(ids).logits``. A family
that does more between its last hidden state and its logits than posemb applies is refused.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from posemb_cli.errors import PosembError
from posemb_cli.runtime.transformers_backend.memory import chunk_positions

if TYPE_CHECKING:
    import torch

    from posemb_cli.core.progress import Progress

__all__ = ["PREFIX", "check_logits_path", "decoder_layers", "loss_steps", "window_losses"]

PREFIX = 16  # tokens of the logits-path check
_LOGITS_RTOL = 1e-3  # of the largest logit: the same matrix product, whatever kernel order


def decoder_layers(model: Any) -> list[Any]:
    """The body's decoder layers, in order (each reports a progress step); empty where the body keeps none."""
    layers = getattr(model.base_model, "layers", None)
    return list(layers) if layers is not None else []


def _logits(model: Any, hidden: torch.Tensor) -> torch.Tensor:
    """float32 logits of (positions, D) hidden states, as the model's forward takes them."""
    import torch

    head = model.get_output_embeddings()
    logits = head(hidden.to(head.weight.device)).float()
    cap = getattr(model.config, "final_logit_softcapping", None)
    if cap is not None:
        logits = torch.tanh(logits / cap) * cap
    return logits


def _input_device(model: Any) -> Any:
    return model.get_input_embeddings().weight.device


def check_logits_path(model: Any, ids: np.ndarray, source: str) -> None:
    """Refuse (exit 2) when the logits taken from the hidden states differ from the model's own on a prefix."""
    import torch

    prefix = torch.as_tensor(ids[:PREFIX], dtype=torch.long, device=_input_device(model))[None]
    with torch.inference_mode():
        own = model(input_ids=prefix, use_cache=False).logits[0].float()
        mine = _logits(model, model.base_model(input_ids=prefix, use_cache=False).last_hidden_state[0])
    scale = float(own.abs().max()) or 1.0
    gap = float((mine.to(own.device) - own).abs().max())
    if not math.isfinite(gap) or gap > _LOGITS_RTOL * scale:
        raise PosembError(f"{source}: the model's logits are not its output head on its last hidden state (they "
                          f"differ by {gap:.3g} on the first {prefix.shape[1]} tokens); posemb does not model what "
                          f"{type(model).__name__} does between them")


def window_losses(model: Any, ids: np.ndarray, progress: Progress | None) -> tuple[np.ndarray, np.ndarray]:
    """(L - 1,) float64 losses and (L - 1,) bool top-1 hits: predicting ``ids[p + 1]`` at each position p of one window.

    ``progress`` gets one step per decoder layer and per chunk of losses (its stage is the caller's).
    """
    import torch

    tokens = torch.as_tensor(ids, dtype=torch.long, device=_input_device(model))[None]  # (1, L)
    hooks = [layer.register_forward_hook(lambda *_: progress.advance(1)) for layer in decoder_layers(model)
             if progress is not None]
    try:
        with torch.inference_mode():
            hidden = model.base_model(input_ids=tokens, use_cache=False).last_hidden_state[0]  # (L, D)
            targets = tokens[0, 1:]
            chunk = chunk_positions(int(model.get_output_embeddings().weight.shape[0]))
            losses = torch.empty(targets.shape[0], dtype=torch.float64)
            hits = torch.empty(targets.shape[0], dtype=torch.bool)
            for start in range(0, targets.shape[0], chunk):
                stop = min(start + chunk, targets.shape[0])
                logits = _logits(model, hidden[start:stop])  # (chunk, V) float32
                target = targets[start:stop].to(logits.device)
                step = torch.nn.functional.cross_entropy(logits, target, reduction="none")
                losses[start:stop] = step.double().cpu()
                hits[start:stop] = (logits.argmax(-1) == target).cpu()
                if progress is not None:
                    progress.advance(1)
    finally:
        for hook in hooks:
            hook.remove()
    return losses.numpy(), hits.numpy()


def loss_steps(model: Any, length: int) -> int:
    """The progress steps of one window: a step per decoder layer and per chunk of losses."""
    chunk = chunk_positions(int(model.get_output_embeddings().weight.shape[0]))
    return len(decoder_layers(model)) + -(-(length - 1) // chunk)
