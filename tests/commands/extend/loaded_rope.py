"""transformers as the oracle for an edited config.json: load it, build the family's rotary module, read each RoPE
set's frequencies and attention factor at the target, and the RoPE warnings logged on the way.

Works on transformers 5 (``rope_parameters``, one block or one per layer type) and 4 (``rope_scaling``; Gemma 3's
sliding layers rotate with a copy of the config whose ``rope_theta`` is ``rope_local_base_freq``, as
``Gemma3TextModel`` builds ``rotary_emb_local``).
"""

from __future__ import annotations

import copy
import importlib
import json
import logging

import numpy as np

FIVE = int(importlib.import_module("transformers").__version__.split(".")[0]) >= 5


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def load(config: dict, folder) -> tuple[object, list[str]]:
    """``AutoConfig.from_pretrained`` on ``config`` written to ``folder``; (the config, RoPE warnings logged)."""
    import transformers
    from transformers.utils import logging as hf_logging

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.json").write_text(json.dumps(config))
    hf_logging.warning_once.cache_clear()  # warnings logged once per process must show here too
    handler = _Collect()
    root = logging.getLogger("transformers")
    root.addHandler(handler)
    try:
        loaded = transformers.AutoConfig.from_pretrained(str(folder))
    finally:
        root.removeHandler(handler)
    return loaded, [message for message in handler.messages if "rope" in message.lower()]


def _rotary_class(text):
    module = importlib.import_module(type(text).__module__.replace(".configuration_", ".modeling_"))
    found = [value for name, value in vars(module).items()
             if name.endswith("RotaryEmbedding") and isinstance(value, type) and value.__module__ == module.__name__]
    assert len(found) == 1, found
    return found[0]


def _run(rotary, target: int, layer_type: str | None) -> tuple[np.ndarray, float]:
    import torch

    x = torch.zeros(1, 1, 2)
    position = torch.tensor([[target - 1]])
    if layer_type is None:
        rotary(x, position)
        return rotary.inv_freq.double().numpy(), float(rotary.attention_scaling)
    rotary(x, position, layer_type)
    return (getattr(rotary, f"{layer_type}_inv_freq").double().numpy(),
            float(getattr(rotary, f"{layer_type}_attention_scaling")))


def frequencies(loaded, names: list[str], target: int) -> dict[str, tuple[np.ndarray, float]]:
    """Per RoPE set (posemb's names: ``shared`` or a layer type), transformers' frequencies and attention factor
    at position ``target - 1``, through the family's own rotary module."""
    text = loaded.get_text_config()
    cls = _rotary_class(text)
    if names == ["shared"]:
        return {"shared": _run(cls(config=text), target, None)}
    if FIVE:
        rotary = cls(config=text)
        return {name: _run(rotary, target, name) for name in names}
    out = {}
    for name in names:  # transformers 4: Gemma 3's global and local rotary modules
        config = text
        if name == "sliding_attention":
            config = copy.deepcopy(text)
            config.rope_theta = text.rope_local_base_freq
            config.rope_scaling = {"rope_type": "default"}
        out[name] = _run(cls(config=config), target, None)
    return out


def predicted(report, scaling: str) -> dict[str, tuple[np.ndarray, float]]:
    """Per RoPE set, the frequencies and attention factor posemb predicts for ``scaling`` (the published ones for a
    set that needs no extension)."""
    out = {}
    for one in report.sets:
        if not one.needs_extension:
            out[one.name] = (np.array(one.published["inv_freq"]), float(one.published["attention_factor"]))
            continue
        found = next(candidate for candidate in one.candidates if candidate.scaling == scaling)
        out[one.name] = (np.array([pair.inv_freq for pair in found.pairs]), float(found.attention_factor))
    return out


def assert_same(loaded: dict, expected: dict, what: str, rtol: float = 1e-5) -> None:
    """Each set's frequencies and attention factor equal (transformers computes in float32)."""
    assert loaded.keys() == expected.keys(), what
    for name, (inv_freq, attention) in expected.items():
        np.testing.assert_allclose(loaded[name][0], inv_freq, rtol=rtol, err_msg=f"{what}: {name} inv_freq")
        np.testing.assert_allclose(loaded[name][1], attention, rtol=rtol, err_msg=f"{what}: {name} attention")
