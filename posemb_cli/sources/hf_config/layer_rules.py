"""A Hugging Face config's layers, each with what it does with position, as transformers builds them.

The file decides where it says (``layer_types``, ``no_rope_layers``, ``rope_parameters``
per layer type); where it is silent, each family's rule is the one its config class
and modeling code apply in transformers 5, and the rule is recorded in words:

- attention per layer and its window: ``window_rules`` (``layer_types``, ``sliding_window``,
  the Qwen switches, chunked attention); the legacy type ``attention`` reads as
  ``full_attention``, as transformers remaps it.
- RoPE per layer: the layer type's own block when ``rope_parameters`` has one per type;
  ``no_rope_layers`` (1 = RoPE), filled every ``no_rope_layer_interval``-th layer (its class
  default, 4) for SmolLM3 and Llama 4; Cohere2 rotates only its sliding-window layers.

A layer type posemb does not model (``linear_attention``, ...) is refused, naming it.
"""

from __future__ import annotations

from posemb_cli.core.wording import ordinal
from posemb_cli.sources.hf_config.window_rules import attention_types, window
from posemb_cli.sources.model.fields import Fields
from posemb_cli.sources.model.reading import SHARED_SET, LayerRecord

ATTENTION_TYPES = ("full_attention", "sliding_attention", "chunked_attention")
_NO_ROPE_FROM_INTERVAL = frozenset({"smollm3", "llama4", "llama4_text"})  # no_rope_layers filled when absent
_ROPE_ONLY_SLIDING = {"cohere2"}
_LEGACY_TYPES = {"attention": "full_attention"}  # transformers' remap_legacy_layer_types

__all__ = ["ATTENTION_TYPES", "layer_count", "layer_records"]


def layer_count(model: Fields) -> int | None:
    """The number of layers the config states (``num_hidden_layers`` and its family names), or None."""
    for name in ("num_hidden_layers", "n_layer", "num_layers", "n_layers"):
        if model.has(name):
            return model.number(name, integer=True)
    for name in ("layer_types", "no_rope_layers"):
        listed = model.values.get(name)
        if isinstance(listed, list) and listed:
            return len(listed)
    return None


def _no_rope(model: Fields, model_type: str, count: int, rules: list[str]) -> list[int] | None:
    """1 for a layer that rotates, 0 for one that does not; None when every layer rotates."""
    listed = model.values.get("no_rope_layers")
    if listed:
        if not (isinstance(listed, list) and len(listed) == count and all(v in (0, 1) for v in listed)):
            raise model.fail("no_rope_layers", f"must be a list of 0 (no RoPE) and 1 (RoPE), one per layer "
                                               f"({count} layers)")
        return [int(v) for v in listed]
    if model_type not in _NO_ROPE_FROM_INTERVAL and not model.has("no_rope_layer_interval"):
        return None
    step = model.number("no_rope_layer_interval", integer=True)
    rules.append(f"no_rope_layers absent: transformers' {model_type or 'the'} config leaves RoPE out of every "
                 f"{ordinal(step)} layer (no_rope_layer_interval {step})")
    return [int((i + 1) % step != 0) for i in range(count)]


def layer_records(model: Fields, model_type: str | None, count: int, set_names: list[str],
                  without: list[str], *, family_rules: bool = True) -> tuple[list[LayerRecord], list[str]]:
    """One record per layer of a RoPE model, and the rules applied where the file is silent.

    Args:
        model: the text model's fields. count: its number of layers.
        set_names: the RoPE sets read, ``[SHARED_SET]`` or one per layer type.
        without: layer types whose rope block is null (no RoPE).
        family_rules: False where the caller made every per-layer fact explicit (a GGUF file's translation).
    """
    rules: list[str] = []
    family = (model_type or "").lower() if family_rules else ""
    rotates = _no_rope(model, family, count, rules)
    listed = attention_types(model, family, count, rotates, rules)
    if not (isinstance(listed, list) and len(listed) == count and all(isinstance(t, str) for t in listed)):
        raise model.fail("layer_types", f"must list one layer type per layer ({count} layers)")
    legacy = sorted({t for t in listed if t in _LEGACY_TYPES})
    if legacy:
        rules.append(f"layer_types {', '.join(map(repr, legacy))}: transformers reads "
                     f"{', '.join(repr(_LEGACY_TYPES[t]) for t in legacy)}")
    types = [str(_LEGACY_TYPES.get(t, t)) for t in listed]
    unknown = sorted({t for t in types if t not in ATTENTION_TYPES})
    if unknown:
        raise model.fail("layer_types", f"holds {unknown[0]!r}, a layer type posemb does not model "
                                        f"(known: {', '.join(ATTENTION_TYPES)})")
    if family in _ROPE_ONLY_SLIDING:
        rules.append(f"transformers' {family} attention rotates queries and keys in sliding-window layers only")
        rotates = [int(t == "sliding_attention") for t in types]
    per_type = set_names != [SHARED_SET]
    records = []
    for index, attention in enumerate(types):
        if per_type and attention in without:
            rope_set = None
        elif per_type:
            if attention not in set_names:
                raise model.fail("rope_parameters", f"has no block for layer type {attention!r} (layer {index})")
            rope_set = attention
        else:
            rope_set = SHARED_SET
        if rotates is not None and not rotates[index]:
            rope_set = None
        records.append(LayerRecord(index, "rope" if rope_set else "none", rope_set, window(model, family, attention),
                                   attention))
    return records, rules
