"""A Hugging Face config's layers, each with what it does with position, as transformers builds them.

The file decides where it says (``layer_types``, ``no_rope_layers``, ``rope_parameters``
per layer type); where it is silent, each family's rule is the one its config class
and modeling code apply in transformers 5, and the rule is recorded in words:

- ``layer_types`` when absent: Gemma 2 and gpt-oss alternate sliding and full layers
  (every 2nd full), Gemma 3 makes every 6th layer full and Cohere2 every 4th
  (``sliding_window_pattern`` overrides); Qwen2/Qwen3 slide from ``max_window_layers`` on
  when ``use_sliding_window``; Llama 4 chunks its RoPE layers (``attention_chunk_size``,
  8192); any other family with a ``sliding_window`` slides in every layer (unless
  ``use_sliding_window`` is false).
- RoPE per layer: the layer type's own block when ``rope_parameters`` has one per type;
  ``no_rope_layers`` (1 = RoPE), filled every ``no_rope_layer_interval``-th layer (4) for
  SmolLM3 and Llama 4; Cohere2 rotates only its sliding-window layers.

A layer type posemb does not model (``linear_attention``, ...) is refused, naming it.
"""

from __future__ import annotations

from posemb_cli.core.wording import ordinal
from posemb_cli.sources.model.fields import Fields
from posemb_cli.sources.model.reading import SHARED_SET, LayerRecord

ATTENTION_TYPES = ("full_attention", "sliding_attention", "chunked_attention")
_PATTERNS = {"gemma2": 2, "gpt_oss": 2, "gemma3": 6, "gemma3_text": 6, "cohere2": 4}  # every Nth layer is full
_NO_ROPE_INTERVAL = {"smollm3": 4, "llama4": 4, "llama4_text": 4}  # no_rope_layers filled when absent
_ROPE_ONLY_SLIDING = {"cohere2"}
_CHUNKED = {"llama4", "llama4_text"}
_CHUNK_DEFAULT = 8192

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
    if model_type not in _NO_ROPE_INTERVAL and not model.has("no_rope_layer_interval"):
        return None
    step = model.number("no_rope_layer_interval", integer=True, default=_NO_ROPE_INTERVAL.get(model_type))
    given = model.has("no_rope_layer_interval")
    rules.append(f"no_rope_layers {'from no_rope_layer_interval' if given else 'absent'}: transformers' "
                 f"{model_type} config leaves RoPE out of every {ordinal(step)} layer")
    return [int((i + 1) % step != 0) for i in range(count)]


def _default_types(model: Fields, model_type: str, count: int, rotates: list[int] | None,
                   rules: list[str]) -> list[str]:
    values = model.values
    if model_type in _PATTERNS:
        pattern = model.number("sliding_window_pattern", integer=True, default=_PATTERNS[model_type])
        rules.append(f"layer_types absent: transformers' {model_type} config makes every {ordinal(pattern)} layer full "
                     f"attention and the others sliding (sliding_window_pattern {pattern})")
        return ["sliding_attention" if (i + 1) % pattern else "full_attention" for i in range(count)]
    if model_type in _CHUNKED and rotates is not None:
        if values.get("attention_chunk_size", _CHUNK_DEFAULT) is None:
            return ["full_attention"] * count
        rules.append(f"layer_types absent: transformers' {model_type} config chunks the attention of its RoPE "
                     "layers (attention_chunk_size) and gives its layers without RoPE full attention")
        return ["chunked_attention" if uses else "full_attention" for uses in rotates]
    window = values.get("sliding_window")
    if window is None or values.get("use_sliding_window") is False:
        return ["full_attention"] * count
    if "max_window_layers" in values or "use_sliding_window" in values:  # Qwen's switch: off unless set true
        if values.get("use_sliding_window") is not True:
            return ["full_attention"] * count
        first = model.number("max_window_layers", integer=True, positive=False, default=0)
        if model_type == "smollm3" and rotates is not None:
            rules.append("layer_types absent: transformers' smollm3 config slides the layers without RoPE")
            return ["sliding_attention" if not uses else "full_attention" for uses in rotates]
        rules.append(f"layer_types absent: transformers' {model_type} config slides layers {first} and up "
                     "(use_sliding_window, max_window_layers)")
        return ["sliding_attention" if i >= first else "full_attention" for i in range(count)]
    rules.append(f"layer_types absent: transformers' {model_type} attention masks every layer to sliding_window")
    return ["sliding_attention"] * count


def _window(model: Fields, attention: str) -> int | None:
    if attention == "sliding_attention":
        return model.optional("sliding_window", integer=True)
    if attention == "chunked_attention":
        return model.number("attention_chunk_size", integer=True, default=_CHUNK_DEFAULT)
    return None


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
    types = model.values.get("layer_types")
    if types is None:
        types = _default_types(model, family, count, rotates, rules)
    elif not (isinstance(types, list) and len(types) == count and all(isinstance(t, str) for t in types)):
        raise model.fail("layer_types", f"must list one layer type per layer ({count} layers)")
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
        records.append(LayerRecord(index, "rope" if rope_set else "none", rope_set, _window(model, attention),
                                   attention))
    return records, rules
