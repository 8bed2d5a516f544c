"""Which layers of a Hugging Face config attend within a window, and how far, as transformers' families decide.

transformers' families read ``sliding_window`` in four ways, each rule recorded in words:

- every layer (Mistral, Mixtral, Phi-3, PhiMoE, Starcoder2, Qwen3-MoE): the modeling code masks
  each layer to ``config.sliding_window``, and ignores ``layer_types``;
- through ``layer_types`` (Gemma 2/3, Cohere2, gpt-oss, Qwen2/Qwen3, SmolLM3, Llama 4): a layer
  called ``sliding_attention`` attends within ``sliding_window``; where the file lists no types,
  the config class builds them: Gemma 2 and gpt-oss make every 2nd layer full, Gemma 3 every 6th
  and Cohere2 every 4th (``sliding_window_pattern`` overrides, for those two only); Qwen2/Qwen3
  slide from ``max_window_layers`` on, Qwen2-MoE every other layer below it; SmolLM3 slides its
  layers without RoPE; Llama 4 chunks its RoPE layers (``attention_chunk_size``);
- switched (the Qwen families, SmolLM3): ``use_sliding_window`` false (their class default)
  drops ``sliding_window``, so no layer slides whatever the file's window or types say;
  Gemma 3 with ``use_bidirectional_attention`` attends both ways within ``sliding_window // 2 + 1``;
- not at all (Llama, Gemma, DeepSeek, ...): their modeling code reads no window.

A family transformers does not know keeps the generic reading: a ``sliding_window`` slides every
layer unless ``use_sliding_window`` is false, and ``max_window_layers`` switches as Qwen2's does.
"""

from __future__ import annotations

from posemb_cli.core.wording import ordinal
from posemb_cli.sources.model.fields import Fields

_PATTERNS = {"gemma2": 2, "gpt_oss": 2, "gemma3": 6, "gemma3_text": 6, "cohere2": 4}  # every Nth layer is full
_PATTERN_FIELD = frozenset({"gemma3", "gemma3_text", "cohere2"})  # read sliding_window_pattern (older files)
_EVERY_LAYER = frozenset({"mistral", "mixtral", "phi3", "phimoe", "starcoder2", "qwen3_moe"})
_SWITCHED = frozenset({"qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "qwen2_vl", "qwen2_vl_text", "qwen2_5_vl",
                       "qwen2_5_vl_text", "smollm3"})
_FROM_LAYER = frozenset({"qwen2", "qwen3", "qwen2_vl", "qwen2_vl_text", "qwen2_5_vl", "qwen2_5_vl_text"})
_NO_WINDOW = frozenset({"llama", "phi", "gpt_neox", "gptj", "gemma", "stablelm", "falcon", "olmo", "olmo2", "cohere",
                        "deepseek_v2", "deepseek_v3", "glm", "glm4", "granite", "persimmon"})
_CHUNKED = frozenset({"llama4", "llama4_text"})
_HALVED_WHEN_BIDIRECTIONAL = frozenset({"gemma3", "gemma3_text"})  # Gemma3TextConfig: window // 2 + 1, both ways
_CHUNK_DEFAULT = 8192
_SLIDING, _FULL = "sliding_attention", "full_attention"

__all__ = ["attention_types", "window"]


def _switched_off(model: Fields, family: str) -> bool:
    return family in _SWITCHED and model.values.get("use_sliding_window") is not True


def attention_types(model: Fields, family: str, count: int, rotates: list[int] | None,
                    rules: list[str]) -> object:
    """Each layer's attention type: the file's ``layer_types`` where the family reads them, else the family's rule.

    Args:
        family: the config's ``model_type``, lower case ("" where no family rule applies, as for GGUF).
        rotates: 1 for a layer with RoPE, 0 without; None when every layer rotates.
    """
    values = model.values
    if _bidirectional(model, family) and values.get("sliding_window") is not None:
        rules.append(f"use_bidirectional_attention true: transformers' {family} config attends both ways, within "
                     f"sliding_window // 2 + 1 = {window(model, family, _SLIDING)} positions")
    if family in _EVERY_LAYER:
        if values.get("layer_types") is not None:
            rules.append(f"layer_types ignored: transformers' {family} modeling masks every layer alike")
        if _switched_off(model, family) or values.get("sliding_window") is None:
            return [_FULL] * count
        rules.append(f"transformers' {family} modeling masks every layer to sliding_window")
        return [_SLIDING] * count
    if family in _NO_WINDOW:
        if values.get("sliding_window") is not None or values.get("layer_types") is not None:
            rules.append(f"transformers' {family} modeling reads no sliding_window: every layer attends to the whole "
                         "context")
        return [_FULL] * count
    if values.get("layer_types") is not None:
        if _switched_off(model, family) and values.get("sliding_window") is not None:
            rules.append(f"use_sliding_window not true: transformers' {family} config drops sliding_window, so no "
                         "layer slides")
        return values["layer_types"]
    return _default_types(model, family, count, rotates, rules)


def _default_types(model: Fields, family: str, count: int, rotates: list[int] | None, rules: list[str]) -> list[str]:
    values = model.values
    if family in _PATTERNS:
        pattern = _PATTERNS[family]
        if family in _PATTERN_FIELD:
            pattern = model.number("sliding_window_pattern", integer=True, default=pattern)
        rules.append(f"layer_types absent: transformers' {family} config makes every {ordinal(pattern)} layer full "
                     "attention and the others sliding"
                     + (f" (sliding_window_pattern {pattern})" if family in _PATTERN_FIELD else ""))
        return [_FULL if (i + 1) % pattern == 0 else _SLIDING for i in range(count)]
    if family in _CHUNKED and rotates is not None:
        if values.get("attention_chunk_size", _CHUNK_DEFAULT) is None:
            return [_FULL] * count
        rules.append(f"layer_types absent: transformers' {family} config chunks the attention of its RoPE "
                     "layers (attention_chunk_size) and gives its layers without RoPE full attention")
        return ["chunked_attention" if uses else _FULL for uses in rotates]
    if values.get("sliding_window") is None:
        return [_FULL] * count
    if family in _SWITCHED:
        if _switched_off(model, family):
            rules.append(f"use_sliding_window not true: transformers' {family} config drops sliding_window, so no "
                         "layer slides")
            return [_FULL] * count
        if family == "smollm3" and rotates is not None:
            rules.append("layer_types absent: transformers' smollm3 config slides the layers without RoPE")
            return [_SLIDING if not uses else _FULL for uses in rotates]
        first = model.number("max_window_layers", integer=True, positive=False, default=0)
        if family == "qwen2_moe":
            rules.append(f"layer_types absent: transformers' qwen2_moe config slides every other layer below "
                         f"max_window_layers {first}")
            return [_SLIDING if (i + 1) % 2 and i < first else _FULL for i in range(count)]
        rules.append(f"layer_types absent: transformers' {family} config slides layers {first} and up "
                     "(use_sliding_window, max_window_layers)")
        return [_SLIDING if i >= first else _FULL for i in range(count)]
    return _generic(model, family, count, rules)


def _generic(model: Fields, family: str, count: int, rules: list[str]) -> list[str]:
    """A family transformers' rules above do not name: the reading older posemb and most runtimes share."""
    values = model.values
    if values.get("use_sliding_window") is False:
        return [_FULL] * count
    if "max_window_layers" in values or "use_sliding_window" in values:  # Qwen's switch: off unless set true
        if values.get("use_sliding_window") is not True:
            return [_FULL] * count
        first = model.number("max_window_layers", integer=True, positive=False, default=0)
        rules.append(f"layer_types absent: {family or 'the'} config slides layers {first} and up, as transformers' "
                     "Qwen2 does (use_sliding_window, max_window_layers)")
        return [_SLIDING if i >= first else _FULL for i in range(count)]
    rules.append(f"layer_types absent: {family or 'the'} attention masks every layer to sliding_window")
    return [_SLIDING] * count


def window(model: Fields, family: str, attention: str) -> int | None:
    """The positions one layer of type ``attention`` attends within; None for the whole context."""
    if attention == "chunked_attention":
        return model.number("attention_chunk_size", integer=True, default=_CHUNK_DEFAULT)
    if attention != _SLIDING or _switched_off(model, family):
        return None
    width = model.optional("sliding_window", integer=True)
    return width // 2 + 1 if width is not None and _bidirectional(model, family) else width


def _bidirectional(model: Fields, family: str) -> bool:
    return family in _HALVED_WHEN_BIDIRECTIONAL and model.values.get("use_bidirectional_attention") is True
