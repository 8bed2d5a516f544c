"""A model's config (``config.json``, a model directory, or a ``.gguf`` file) -> the model's RoPE.

No weights are needed: RoPE's position signal is fully given by the config.
Read as transformers 5 reads it: ``rope_parameters`` (flat, or one block per
layer type as Gemma 3 writes it) or the older ``rope_scaling`` beside
``rope_theta``; the head from ``head_dim`` or ``hidden_size /
num_attention_heads``; the rotary part from ``qk_rope_head_dim`` (DeepSeek),
``rotary_dim``, or ``partial_rotary_factor``/``rotary_pct`` times the head;
multimodal files' ``text_config``. Qwen2-VL's ``mrope_section`` and layers
without RoPE (``no_rope_layers``, ``no_rope_layer_interval``) are reported in
``source``. A GGUF file's llama.cpp metadata is first turned into the same
fields (``sources.gguf_file``). A missing, bad or unmodelled field exits 2
naming it.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field

from posemb_cli.core.schemes.rope_scaling import RopeScaling
from posemb_cli.errors import PosembError
from posemb_cli.sources.config_fields import Fields
from posemb_cli.sources.limits import MAX_COUNT, MAX_COUNT_TEXT
from posemb_cli.sources.rope_parameters import ROPE_TYPES, RopeBlock, read_rope_block
from posemb_cli.sources.tensor_files import read_json_object

__all__ = ["ROPE_TYPES", "RopeModel", "read_json_config", "read_rope_config"]


@dataclass(frozen=True)
class RopeModel:
    """What RoPE does in one real model (one layer type of it), as its config states it.

    ``layer_type`` names the layer type for per-layer-type configs; ``others`` holds the
    further layer types, each a RopeModel of its own; ``notes`` are extra ``source`` entries.
    """

    path: str
    model_type: str | None
    heads: int
    head_dim: int
    rotary_dim: int
    base: float
    ctx: int
    vocab: int | None
    scaling: RopeScaling
    layer_type: str | None = None
    others: tuple[RopeModel, ...] = ()
    notes: dict = field(default_factory=dict)
    layout: str = "half"

    def layer_types(self) -> tuple[RopeModel, ...]:
        """This model's layer types, the first (this one) first."""
        return (self, *self.others)

    def source(self) -> dict:
        """The JSON ``source`` object."""
        out = {"config": self.path, "model_type": self.model_type, "rope_type": self.scaling.kind,
               "rope_theta": self.base, "head_dim": self.head_dim, "rotary_dim": self.rotary_dim,
               "heads": self.heads, "max_position_embeddings": self.ctx}  # the analysed context, as before
        out.update(self.notes)
        out.update(not_rotated_features=self.head_dim - self.rotary_dim, layout=self.layout)
        if self.layer_type is not None:
            out["layer_type"] = self.layer_type
        return out


def read_json_config(path: str) -> tuple[str, dict]:
    """The config file (``path`` itself, or ``config.json`` in that directory) and its JSON object."""
    file = os.path.join(path, "config.json") if os.path.isdir(path) else path
    if not os.path.isfile(file):
        raise PosembError(f"--config {path}: no such file" + (" (no config.json in the directory)"
                                                                  if os.path.isdir(path) else ""))
    if file.lower().endswith(".gguf"):
        from posemb_cli.sources.gguf_file import gguf_config_fields

        return file, gguf_config_fields(file)
    return file, read_json_object(file, "--config")


def _text_fields(path: str, top: dict) -> Fields:
    nested = top.get("text_config")
    if "hidden_size" not in top and "head_dim" not in top and isinstance(nested, dict):
        return Fields(path, nested, "text_config.")
    return Fields(path, top)


def _head(model: Fields) -> tuple[int, int, tuple[str, int] | None]:
    """(heads, head_dim, the rotary width where a field gives it outright)."""
    heads = model.number("num_attention_heads", integer=True)
    if model.has("qk_rope_head_dim"):  # DeepSeek: the rotary part of each query/key head
        rotary = model.number("qk_rope_head_dim", integer=True)
        nope = model.number("qk_nope_head_dim", integer=True, positive=False, default=0)
        return heads, rotary + nope, (model.prefix + "qk_rope_head_dim", rotary)
    if model.has("head_dim"):
        head_dim = model.number("head_dim", integer=True)
    else:
        hidden = model.number("hidden_size", integer=True)
        if hidden % heads:
            raise model.fail("hidden_size", f"{hidden} is not a multiple of num_attention_heads {heads}")
        head_dim = hidden // heads
    if model.has("rotary_dim"):  # GPT-J, CodeGen; GGUF's rope.dimension_count
        rotary = model.number("rotary_dim", integer=True)
        if rotary > head_dim:
            raise model.fail("rotary_dim", f"{rotary} exceeds the head size {head_dim}")
        return heads, head_dim, (model.prefix + "rotary_dim", rotary)
    return heads, head_dim, None


def _blocks(model: Fields) -> list[tuple[str | None, Fields | None]]:
    """(layer type or None, its rope block; None for a layer type without RoPE), in file order."""
    values = model.values
    parameters, scaling = values.get("rope_parameters"), values.get("rope_scaling")
    for name, value in (("rope_parameters", parameters), ("rope_scaling", scaling)):
        if value is not None and not isinstance(value, dict):
            raise model.fail(name, f"must be an object, got {value!r}")
    if parameters and scaling:
        same = {k: v for k, v in parameters.items() if k != "rope_theta"} == scaling
        if not same:
            raise model.fail("rope_scaling", "and rope_parameters are both given and differ: keep one")
    name, block = ("rope_parameters", parameters) if parameters else ("rope_scaling", scaling or {})
    if block and all(isinstance(v, dict) or v is None for v in block.values()):  # one block per layer type
        return [(layer, None if sub is None else Fields(model.path, sub, f"{model.prefix}{name}.{layer}."))
                for layer, sub in block.items()]
    return [(None, Fields(model.path, block, f"{model.prefix}{name}."))]


def _layer_notes(model: Fields) -> dict:
    """mrope_section and layers without RoPE, as the config states them."""
    notes: dict[str, object] = {}
    values = model.values
    if isinstance(values.get("layer_types"), list):
        types = values["layer_types"]
        notes["layer_type_counts"] = {t: types.count(t) for t in dict.fromkeys(types) if isinstance(t, str)}
    interval = values.get("no_rope_layer_interval")
    listed = values.get("no_rope_layers")
    if listed or interval:
        if listed and not (isinstance(listed, list) and all(v in (0, 1) for v in listed)):
            raise model.fail("no_rope_layers", "must be a list of 0 (no RoPE) and 1 (RoPE), one per layer")
        if not listed:  # Llama 4: every interval-th layer goes without RoPE
            step = model.number("no_rope_layer_interval", integer=True)
            layers = model.number("num_hidden_layers", integer=True)
            listed = [int((i + 1) % step != 0) for i in range(layers)]
        notes["layers_without_rope"] = [i for i, uses in enumerate(listed) if not uses]
        notes["layers_with_rope"] = sum(listed)
    return notes


def _mrope(block: Fields, rotary_dim: int) -> dict:
    section = block.values.get("mrope_section")
    if section is None:
        return {}
    if not (isinstance(section, list) and all(isinstance(v, int) and v > 0 for v in section)) \
            or sum(section) != rotary_dim // 2:
        raise block.fail("mrope_section", f"must be whole numbers summing to the {rotary_dim // 2} rotary pairs, "
                                          f"got {section!r}")
    return {"mrope_section": section,
            "mrope_note": "text positions: every axis carries the same position, so the 1-D analysis holds"}


def read_rope_config(path: str) -> RopeModel:
    """Read a config.json, a model directory or a .gguf file into the model's RoPE, one per layer type."""
    file, top = read_json_config(path)
    model = _text_fields(file, top)
    heads, head_dim, fixed = _head(model)
    max_ctx = model.number("max_position_embeddings", integer=True)
    top_original = model.optional("original_max_position_embeddings", integer=True)
    vocab = model.values.get("vocab_size", top.get("vocab_size"))
    vocab = vocab if isinstance(vocab, int) and not isinstance(vocab, bool) and vocab > 0 else None
    if vocab is not None and vocab > MAX_COUNT:
        raise model.fail("vocab_size", f"must be at most {MAX_COUNT_TEXT}, got {vocab!r}")
    model_type = top.get("model_type") if isinstance(top.get("model_type"), str) else None
    layout = "interleaved" if model.values.get("rope_interleave") is True else "half"
    file_format = "gguf" if file.lower().endswith(".gguf") else "config.json"
    found: list[RopeModel] = []
    without = []
    for layer_type, block in _blocks(model):
        if block is None:
            without.append(layer_type)
            continue
        read: RopeBlock = read_rope_block(
            model, block, head_dim=head_dim, max_ctx=max_ctx, fixed_rotary=fixed,
            top_original=top_original if layer_type is None else None,
            head_field="head_dim" if model.has("head_dim") else "hidden_size / num_attention_heads")
        notes = {"format": file_format, "max_position_embeddings_in_file": max_ctx, **read.notes,
                 **_mrope(block, read.rotary_dim), **_layer_notes(model)}
        found.append(RopeModel(path=file, model_type=model_type, heads=heads, head_dim=head_dim,
                               rotary_dim=read.rotary_dim, base=read.base, ctx=read.ctx, vocab=vocab,
                               scaling=read.scaling, layer_type=layer_type, notes=notes, layout=layout))
    if not found:
        raise model.fail("rope_parameters", "gives no layer type a RoPE block: nothing to analyse")
    if without:
        found = [dataclasses.replace(m, notes={**m.notes, "layer_types_without_rope": without}) for m in found]
    return dataclasses.replace(found[0], others=tuple(found[1:]))
