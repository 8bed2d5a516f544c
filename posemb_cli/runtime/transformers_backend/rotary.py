"""The check that the loaded model runs the scaling named: its rotary module's frequencies against the caller's.

transformers 5 keeps each RoPE set's inverse frequencies in its rotary module (``inv_freq``, or
``{layer_type}_inv_freq`` per layer type) and the factor it multiplies cos and sin by
(``attention_scaling``, or ``{layer_type}_attention_scaling``). Dynamic NTK recomputes them in the
forward from the window's length, so the module is first run once over the window's positions, as
the model's forward runs it; then every pair's θ'_i and the factor must equal the caller's within
``INV_FREQ_RTOL`` (relative), for every RoPE set the module holds. Any difference is refused
(exit 2): the loss measured would be that of another scaling than the report names.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from posemb_cli.errors import PosembError
from posemb_cli.runtime.scaling import INV_FREQ_RTOL, RotaryExpectation, Scaling

__all__ = ["check_rotary", "rotary_modules"]


def rotary_modules(model: Any) -> list[Any]:
    """The model's rotary modules: those with a ``rope_type`` and their own inverse frequencies."""
    return [module for module in model.modules() if hasattr(module, "rope_type") and any(
        name.endswith("inv_freq") and not name.endswith("original_inv_freq")
        for name, _buffer in module.named_buffers(recurse=False))]


def _sets(module: Any) -> list[str | None]:
    """The RoPE sets one module holds: its layer types, or [None] for a module of one set."""
    kinds = module.rope_type
    return sorted(kinds) if isinstance(kinds, dict) else [None]


def _held(module: Any, layer_type: str | None) -> tuple[np.ndarray, float]:
    prefix = "" if layer_type is None else f"{layer_type}_"
    inv_freq = getattr(module, f"{prefix}inv_freq").detach().to("cpu").double().numpy()
    return inv_freq, float(getattr(module, f"{prefix}attention_scaling"))


def _compare(scaling: Scaling, expected: RotaryExpectation, held: np.ndarray, factor: float) -> None:
    where = f"scaling {scaling.name}" + (f", RoPE set {expected.layer_type}" if expected.layer_type else "")
    wanted = np.asarray(expected.inv_freq, dtype=np.float64)
    if held.shape != wanted.shape:
        raise PosembError(f"{where}: transformers' rotary module holds {held.size} frequency pairs, "
                          f"posemb predicts {wanted.size}; refusing to measure another scaling than the one named")
    off = np.abs(held - wanted) > INV_FREQ_RTOL * np.abs(wanted)
    if off.any():
        pair = int(np.argmax(off))
        raise PosembError(f"{where}: transformers' rotary module holds inv_freq {held[pair]:.9g} at pair {pair}, "
                          f"posemb predicts {wanted[pair]:.9g} ({int(off.sum())} of {wanted.size} pairs differ); "
                          "refusing to measure another scaling than the one named")
    if abs(factor - expected.attention_factor) > INV_FREQ_RTOL * abs(expected.attention_factor):
        raise PosembError(f"{where}: transformers' rotary module scales cos and sin by {factor:.9g}, posemb "
                          f"predicts an attention factor of {expected.attention_factor:.9g}; refusing to measure "
                          "another scaling than the one named")


def check_rotary(model: Any, scaling: Scaling, length: int, *, run: bool) -> None:
    """Raise PosembError unless every rotary module holds ``scaling.expected`` at a window of ``length``.

    Args:
        run: first run each module over positions 0..length-1 (as the forward does), so that a
            dynamic scaling holds its frequencies at ``length``; False to read them as they stand.
    """
    import torch

    modules = rotary_modules(model)
    if not modules:
        raise PosembError(f"scaling {scaling.name}: the model transformers loaded has no rotary module "
                          "holding inverse frequencies; posemb measures RoPE scalings only")
    by_set = {expected.layer_type: expected for expected in scaling.expected}
    for module in modules:
        sets = _sets(module)
        missing = [name for name in sets if name not in by_set]
        if missing:
            named = ", ".join("the model's one RoPE set" if name is None else name for name in missing)
            raise PosembError(f"scaling {scaling.name}: no predicted frequencies for {named}; "
                              "each RoPE set the model holds is checked")
        for layer_type in sets:
            if run:
                buffer = getattr(module, "inv_freq" if layer_type is None else f"{layer_type}_inv_freq")
                probe = torch.zeros(1, dtype=torch.float32, device=buffer.device)
                positions = torch.arange(length, device=buffer.device)[None]
                kwargs = {} if layer_type is None else {"layer_type": layer_type}
                with torch.inference_mode():
                    module(probe, positions, **kwargs)
            _compare(scaling, by_set[layer_type], *_held(module, layer_type))
