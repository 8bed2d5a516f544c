"""A panel of config.json files in the layout in which they are published, and transformers' reading of each.

The files in ``published/`` keep every field of the published config.json that
concerns position, attention shape, layers and windows, in the published layout:
``rope_scaling`` with the older ``type``, Phi-3's "su", top-level
``original_max_position_embeddings``, ``rope_scaling: null``, Gemma 3 4B-it's sparse
``text_config`` that leaves most fields to ``Gemma3TextConfig``'s defaults.

The oracle is transformers itself: ``AutoConfig.from_pretrained`` of a directory
holding the file, then ``ROPE_INIT_FUNCTIONS[rope_type]`` (the family's
``compute_default_rope_parameters`` for the unscaled type) per RoPE set, and the
loaded config's ``layer_types`` and ``sliding_window`` per layer.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import shutil
from pathlib import Path

import numpy as np

PANEL = Path(__file__).parent / "published"
FILES = sorted(path.name for path in PANEL.glob("*.json"))
# Families whose modeling code masks every layer to config.sliding_window (no layer_types); the others read
# sliding_window only in the layers layer_types calls sliding, or not at all.
EVERY_LAYER = {"mistral", "mixtral", "phi3", "phimoe", "starcoder2", "qwen3_moe"}


def folder_of(tmp_path: Path, name: str) -> str:
    """A model directory holding the panel file ``name`` as its config.json."""
    folder = tmp_path / name.removesuffix(".json")
    folder.mkdir()
    shutil.copy(PANEL / name, folder / "config.json")
    return str(folder)


def published(name: str) -> dict:
    return json.loads((PANEL / name).read_text())


@contextlib.contextmanager
def _phi3_su_loads():
    """transformers 5.24's Phi3Config standardises a block before renaming "su" to "longrope", so its validator then
    finds no original_max_position_embeddings in the block and refuses the file that transformers 4.x loads; the
    computation that follows standardises again and fills it from the config. Skip that one validator, nothing else."""
    from transformers import Phi3Config

    kept = Phi3Config.__class_validators__
    Phi3Config.__class_validators__ = [check for check in kept if check.__name__ != "validate_rope"]
    try:
        yield
    finally:
        Phi3Config.__class_validators__ = kept


def transformers_config(folder: str):
    """The text model's config as transformers loads it from ``folder``, and its family's modeling module name."""
    from transformers import AutoConfig

    su = published_type(folder) == "su"
    with _phi3_su_loads() if su else contextlib.nullcontext():
        config = AutoConfig.from_pretrained(folder)
    text = config.get_text_config()
    return text, config.model_type


def published_type(folder: str) -> object:
    scaling = json.loads((Path(folder) / "config.json").read_text()).get("rope_scaling") or {}
    return scaling.get("rope_type", scaling.get("type"))


def reference(config, family: str, layer_type: str | None, seq_len: int | None) -> tuple[np.ndarray, float]:
    """transformers' inv_freq and attention factor of one RoPE set (``layer_type`` None: the model's one set)."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    params = config.rope_parameters if layer_type is None else config.rope_parameters[layer_type]
    kwargs: dict = {"layer_type": layer_type} if layer_type is not None else {}
    if seq_len is not None:
        kwargs["seq_len"] = seq_len
    if params["rope_type"] == "default":
        module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
        rotary = next(value for name, value in vars(module).items()
                      if name.endswith("RotaryEmbedding") and "Vision" not in name)
        inv_freq, attention = rotary.compute_default_rope_parameters(config, device="cpu", **kwargs)
    else:
        inv_freq, attention = ROPE_INIT_FUNCTIONS[params["rope_type"]](config, device="cpu", **kwargs)
    return inv_freq.double().numpy(), float(attention)


def windows(config, family: str) -> list[int | None]:
    """Each layer's attention window as the loaded config gives it (None: the whole context)."""
    window = getattr(config, "sliding_window", None)
    if family == "smollm3" and not config.use_sliding_window:  # its attention reads the window only when switched on
        window = None
    types = getattr(config, "layer_types", None)
    if family in EVERY_LAYER or types is None:
        return [window if family in EVERY_LAYER else None] * config.num_hidden_layers
    return [window if kind == "sliding_attention" else None for kind in types]
