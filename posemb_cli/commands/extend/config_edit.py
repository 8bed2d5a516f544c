"""A candidate written into the published config.json, so that transformers loads exactly it.

Pasting a ``rope_parameters`` block into a published config.json is not enough: transformers 5 reads
``rope_parameters = rope_scaling or rope_parameters`` (``RotaryEmbeddingConfigMixin.convert_rope_params_to_dict``),
so a file's ``rope_scaling`` block (Llama 3.1's, Qwen2.5's, Phi-3's) silently wins, and transformers 4 reads only
``rope_scaling`` and the top-level ``rope_theta``. The edit therefore writes what both read:

- ``rope_scaling``: the candidate's block without ``rope_theta`` and ``partial_rotary_factor`` (transformers 4
  warns on keys it does not know); ``{"rope_type": "default"}`` for a default block, not removed (gpt-oss's config
  class, among others, defaults to a yarn block); Phi-3's legacy LongRoPE form (``type``, ``short_factor``,
  ``long_factor``), the only one transformers 4's Phi3Config accepts. ``rope_theta`` (and
  ``partial_rotary_factor``) at the top, where transformers 4 reads them and transformers 5 fills a block that lacks
  them; ``rope_parameters``, where the file has one, replaced by the whole transformers-5 block;
- Gemma 3 (per layer type): ``rope_scaling`` is merged into the ``full_attention`` block by transformers 5 and is
  the global layers' block in transformers 4; the sliding layers keep their own set through
  ``rope_local_base_freq``. Another per-layer-type file is written as nested ``rope_parameters`` (transformers 5);
- the length fields validation checks: ``max_position_embeddings`` = factor x original for yarn (transformers 4
  and 5 warn when they disagree) and longrope (transformers 4's Phi-3 takes the factor from them), above the
  original for llama3 (both warn otherwise); a top-level ``original_max_position_embeddings`` (Phi-3's, which
  transformers 5 puts before the block's) set to the block's. Dynamic NTK keeps the file's
  ``max_position_embeddings``: its factor is measured against it. Numbers are written as transformers 4's
  validation types them (``factor`` and the other ratios floats, ``original_max_position_embeddings`` an int).
- the length the engines serve: ``max_position_embeddings`` raised to L where no frequency reads it (default,
  linear and llama3 blocks; yarn and longrope get factor x original above). vLLM and SGLang size their cos/sin
  tables and their length check from it, and ``convert_hf_to_gguf.py`` writes it as the GGUF's ``context_length``,
  at which Ollama caps ``num_ctx`` (docs/engines.md). Where a block reads it (dynamic NTK; a published yarn block
  kept with a factor short of L), it stays, and a note says which engines then stop short of L.

Nothing else is changed. No torch here.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field

TRANSFORMERS_VERSIONS = ("transformers 5.x (rope_scaling read before rope_parameters) and 4.51 or later 4.x "
                         "(rope_scaling with rope_type, the top-level rope_theta); checked by loading every published "
                         "test config on 5.24.0 and 4.57.1. 4.45 to 4.50 warn on a yarn block's "
                         "original_max_position_embeddings, which their validation does not know")

_FLOAT_KEYS = ("factor", "low_freq_factor", "high_freq_factor", "beta_fast", "beta_slow", "mscale",
               "mscale_all_dim", "attention_factor")
_TOP_KEYS = ("rope_theta", "partial_rotary_factor")  # transformers 4 reads them at the top, not in the block
_ORIGINAL_TYPES = ("yarn", "llama3", "longrope")
_GEMMA3 = ("gemma3", "gemma3_text")
_PHI3 = ("phi3",)  # transformers 4's Phi3Config takes exactly type, short_factor and long_factor
_FULL, _SLIDING = "full_attention", "sliding_attention"

__all__ = ["LENGTH_FREE", "TRANSFORMERS_VERSIONS", "ConfigEdit", "apply_ops", "edit_config", "is_per_layer_type",
           "rope_kind", "table_length", "text_prefix"]


@dataclass(frozen=True)
class ConfigEdit:
    """The edited config and the edit.

    Attributes:
        config: the whole edited config.json object.
        ops: the edit, in order: ``{"op": "set", "key": dotted key, "value": ...}`` or ``{"op": "remove", "key"}``.
        notes: in words, what a version loads differently or warns about, and a length field kept on purpose
            (empty when the edit is exact and warning-free in every version named).
        versions: the transformers versions that load ``config`` as the candidate.
    """

    config: dict
    ops: list[dict]
    notes: list[str] = field(default_factory=list)
    versions: str = TRANSFORMERS_VERSIONS

    def to_dict(self) -> dict:
        return {"ops": self.ops, "notes": self.notes, "versions": self.versions}


def text_prefix(config: dict) -> str:
    """``text_config.`` where the file nests its text model (Gemma 3's multimodal config), else empty."""
    nested = config.get("text_config")
    if isinstance(nested, dict) and "hidden_size" not in config and "head_dim" not in config:
        return "text_config."
    return ""


def is_per_layer_type(rope_parameters: dict) -> bool:
    """Whether ``rope_parameters`` is keyed by layer type (each value a block or None) rather than one block."""
    return "rope_type" not in rope_parameters and all(value is None or isinstance(value, dict)
                                                      for value in rope_parameters.values())


def _typed(block: dict) -> dict:
    out = {}
    for key, value in block.items():
        if key in _FLOAT_KEYS and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        elif key == "original_max_position_embeddings" and isinstance(value, float) and value.is_integer():
            value = int(value)
        out[key] = value
    return out


def _legacy(block: dict, model_type: str | None) -> dict | None:
    """The block as transformers 4's ``rope_scaling`` (None for a default block)."""
    legacy = {key: value for key, value in block.items() if key not in _TOP_KEYS}
    if legacy == {"rope_type": "default"}:  # explicit: some config classes default to a scaled block (gpt-oss)
        return None if model_type in _PHI3 else legacy
    if model_type in _PHI3 and legacy["rope_type"] == "longrope":
        return {"type": "longrope", "short_factor": legacy["short_factor"], "long_factor": legacy["long_factor"]}
    return legacy


def _phi3_longrope(text: dict, block: dict, notes: list[str], where: str) -> None:
    """Phi-3's legacy LongRoPE: the factor is max_position_embeddings / original_max_position_embeddings."""
    original, factor = block["original_max_position_embeddings"], block.get("factor")
    text["original_max_position_embeddings"] = original
    if block.get("attention_factor") is not None:
        notes.append(f"{where}rope_scaling: transformers 4's Phi3Config takes no attention_factor; transformers 4 "
                     "uses the factor's default one")
    notes.append(f"{where}rope_scaling is Phi-3's legacy LongRoPE block (type, short_factor, long_factor: "
                 "transformers 4's Phi3Config refuses any other key), the factor given by max_position_embeddings / "
                 "original_max_position_embeddings; transformers 5 loads the same frequencies and logs its warning "
                 "asking for a factor in the block")
    if factor is None:
        return
    scaled = round(factor * original)
    if scaled / original == factor:
        text["max_position_embeddings"] = scaled
    else:
        notes.append(f"{where}max_position_embeddings: no whole number of positions is {factor:g} x {original:,}; "
                     "Phi-3's LongRoPE takes its factor from their ratio")


def _lengths(text: dict, block: dict, notes: list[str], where: str) -> None:
    """Set the length fields transformers validates against the block."""
    rope_type, factor = block.get("rope_type"), block.get("factor")
    original = block.get("original_max_position_embeddings")
    if rope_type not in _ORIGINAL_TYPES or original is None:
        return
    if "original_max_position_embeddings" in text:
        text["original_max_position_embeddings"] = original
    if factor is None:
        return
    context = text.get("max_position_embeddings")
    scaled = round(factor * original)
    if rope_type == "llama3":
        if context is None or context <= original:
            text["max_position_embeddings"] = max(scaled, original + 1)
        return
    if context is not None and context / original == factor:
        return
    if scaled / original == factor:
        text["max_position_embeddings"] = scaled
    else:
        notes.append(f"{where}max_position_embeddings: no whole number of positions is {factor:g} x {original:,}; "
                     f"transformers 4 warns that the {rope_type} factor disagrees with it and, for longrope, uses "
                     "its ratio instead")


LENGTH_FREE = ("default", "linear", "llama3")  # frequencies that do not read max_position_embeddings


def _reach(text: dict, blocks: list[dict], target: int, prefix: str, notes: list[str]) -> None:
    """``max_position_embeddings`` up to L where no block's frequencies read it; else a note on who stops short."""
    context = text.get("max_position_embeddings")
    if context is None or context >= target:
        return
    types = sorted({block["rope_type"] for block in blocks})
    if all(_raisable(block, target) for block in blocks):
        text["max_position_embeddings"] = target
        return
    served = min(table_length(block, context) for block in blocks)
    if served < target:
        reads = "/".join(kind for kind in types if kind not in LENGTH_FREE)
        notes.append(f"{prefix}max_position_embeddings stays {context:,}: the {reads} frequencies read it, so "
                     f"raising it would change them; vLLM and SGLang build a table of {served:,} positions from this "
                     f"file, short of {target:,}")


def _raisable(block: dict, target: int) -> bool:
    """Whether max_position_embeddings = L leaves the block's frequencies, and transformers' validation, as they are:
    a block that does not read it, or yarn whose factor is L / its original length (the ratio validation checks)."""
    if block["rope_type"] in LENGTH_FREE:
        return True
    original = block.get("original_max_position_embeddings")
    if block["rope_type"] != "yarn" or not original:
        return False
    return target / original == float(block["factor"])


def rope_kind(block: dict) -> str:
    """A block's rope type, under its transformers 5 name or its legacy ``type``; ``default`` where it names none."""
    return block.get("rope_type", block.get("type", "default"))


def table_length(block: dict, context: int) -> int:
    """Positions of the cos/sin table vLLM (and SGLang, which copies it) builds for one block, ``context`` being
    max_position_embeddings: that (default, llama3, longrope), times the factor (linear, dynamic), the original
    length times the factor (yarn). docs/engines.md has the source of each."""
    kind, factor = rope_kind(block), float(block.get("factor") or 1.0)
    if kind in ("yarn", "deepseek_yarn"):
        return int(float(block.get("original_max_position_embeddings") or context) * factor)
    if kind in ("linear", "dynamic"):
        return int(context * factor)
    return int(context)


def _top(text: dict, key: str, value) -> None:
    """Set a top-level number unless the file already states it (an int stays an int)."""
    if text.get(key) != value:
        text[key] = value


def _flat(text: dict, block: dict, prefix: str, notes: list[str]) -> None:
    legacy = _legacy(block, text.get("model_type"))
    if legacy is None:
        text.pop("rope_scaling", None)
    else:
        text["rope_scaling"] = legacy
    for key in _TOP_KEYS:
        if key in block:
            _top(text, key, block[key])
    if "rope_parameters" in text:
        text["rope_parameters"] = dict(block)
    if legacy is not None and "type" in legacy:
        _phi3_longrope(text, block, notes, prefix)
    else:
        _lengths(text, block, notes, prefix)


def _per_layer_type(text: dict, blocks: dict, prefix: str, notes: list[str]) -> None:
    full, sliding = blocks.get(_FULL), blocks.get(_SLIDING)
    gemma3 = (text.get("model_type") in _GEMMA3 or "rope_local_base_freq" in text) and set(blocks) == {_FULL, _SLIDING}
    if full is None or sliding is None or not gemma3 or sliding.get("rope_type") != "default":
        text.pop("rope_scaling", None)
        text["rope_parameters"] = {key: None if value is None else dict(value) for key, value in blocks.items()}
        notes.append(f"{prefix}rope_parameters keyed by layer type: transformers 5 reads it; transformers 4 has no "
                     "form for these sets")
        for value in blocks.values():
            if value is not None:
                _lengths(text, value, notes, prefix)
        return
    text["rope_scaling"] = _legacy(full, None)
    _top(text, "rope_theta", full["rope_theta"])
    _top(text, "rope_local_base_freq", sliding["rope_theta"])
    if "partial_rotary_factor" in full:
        _top(text, "partial_rotary_factor", full["partial_rotary_factor"])
    if "rope_parameters" in text:
        text["rope_parameters"] = {key: dict(value) for key, value in blocks.items()}
    _lengths(text, full, notes, prefix)


def _same(one, other) -> bool:
    if one is other:  # a value the edit did not touch (the edit copies only what it changes)
        return True
    if isinstance(one, dict) and isinstance(other, dict):
        return one.keys() == other.keys() and all(_same(one[key], other[key]) for key in one)
    if isinstance(one, list) and isinstance(other, list):
        return len(one) == len(other) and all(_same(a, b) for a, b in zip(one, other, strict=True))
    return type(one) is type(other) and one == other


def _diff(old: dict, new: dict, prefix: str, ops: list[dict]) -> None:
    """Ops turning ``old`` into ``new``: a block that loses a key is set whole, one that keeps them all key by key."""
    for key in old:
        if key not in new:
            ops.append({"op": "remove", "key": prefix + key})
    for key, value in new.items():
        if key not in old:
            ops.append({"op": "set", "key": prefix + key, "value": copy.deepcopy(value)})
        elif isinstance(old[key], dict) and isinstance(value, dict) and (
                key == "text_config" and not prefix or old[key].keys() <= value.keys()):
            _diff(old[key], value, f"{prefix}{key}.", ops)
        elif not _same(old[key], value):
            ops.append({"op": "set", "key": prefix + key, "value": copy.deepcopy(value)})


def apply_ops(config: dict, ops: list[dict]) -> dict:
    """``config`` with the edit ``ops`` applied (dotted keys address nested objects); ``config`` is not modified: the
    objects an op changes are copied, the rest shared (a config may hold far more than its RoPE keys)."""
    out = dict(config)
    for op in ops:
        *parents, last = op["key"].split(".")
        target = out
        for name in parents:
            target[name] = dict(target.get(name, {}))
            target = target[name]
        if op["op"] == "remove":
            target.pop(last, None)
        else:
            target[last] = copy.deepcopy(op["value"])
    return out


def edit_config(config: dict, rope_parameters: dict, target: int) -> ConfigEdit:
    """The published ``config`` (a loaded config.json) edited so that transformers loads ``rope_parameters``.

    Args:
        config: the config.json object as loaded; not modified.
        rope_parameters: the candidate's transformers-5 rope_parameters for the whole model
            (``Candidate.rope_parameters``): one block, or one per layer type (None for a type without RoPE).
        target: the target length L (for the notes; the factors already reach it).

    Returns:
        The edited config, the edit as ordered ops, and notes on anything not exact in both versions.
    """
    prefix = text_prefix(config)
    out = dict(config)  # the edit sets and removes keys of the text model's object only: those two are copied
    if prefix:
        out["text_config"] = dict(config["text_config"])
    text = out["text_config"] if prefix else out
    notes: list[str] = []
    if is_per_layer_type(rope_parameters):
        typed = {key: None if value is None else _typed(value) for key, value in rope_parameters.items()}
        _per_layer_type(text, typed, prefix, notes)
    else:
        _flat(text, _typed(rope_parameters), prefix, notes)
    blocks: list[dict] = [value for value in ([rope_parameters] if not is_per_layer_type(rope_parameters) else
                                              rope_parameters.values()) if value]
    context = text.get("max_position_embeddings")
    dynamic = [value for value in blocks if value.get("rope_type") == "dynamic"]
    _reach(text, blocks, target, prefix, notes)
    if dynamic and context is not None and target > context and not math.isclose(dynamic[0]["factor"], 1.0):
        notes.append(f"dynamic NTK scales from {prefix}max_position_embeddings {context:,}, kept so that its factor "
                     f"gives the candidate's frequencies at {target:,}")
    ops: list[dict] = []
    _diff(config, out, "", ops)
    return ConfigEdit(out, ops, notes)
