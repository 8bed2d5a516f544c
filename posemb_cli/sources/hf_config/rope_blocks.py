"""Where a config keeps its RoPE blocks: one shared block, or one per layer type, as transformers 5 resolves them.

``rope_parameters`` (flat, or one block per layer type as Gemma 3 writes it) or the
older ``rope_scaling`` beside ``rope_theta``. Gemma 3's older files keep the local
base apart (``rope_local_base_freq``) and scale only the global layers
(``rope_scaling``); transformers' ``Gemma3TextConfig`` turns them into one block per
layer type with its own defaults (global base 1,000,000, local 10,000), and so
does this module, saying which rule it used.
"""

from __future__ import annotations

from posemb_cli.sources.hf_config.class_defaults import CLASS_DEFAULTS
from posemb_cli.sources.model.fields import Fields

_GEMMA3 = ("gemma3", "gemma3_text")
_GEMMA3_CLASS = CLASS_DEFAULTS["gemma3_text"]
_GEMMA3_BASE_FIELDS = {"full_attention": "rope_theta", "sliding_attention": "rope_local_base_freq"}

__all__ = ["rope_blocks"]


def _named(model: Fields) -> tuple[str, dict]:
    values = model.values
    parameters, scaling = values.get("rope_parameters"), values.get("rope_scaling")
    for name, value in (("rope_parameters", parameters), ("rope_scaling", scaling)):
        if value is not None and not isinstance(value, dict):
            raise model.fail(name, f"must be an object, got {value!r}")
    if parameters and scaling:
        same = {k: v for k, v in parameters.items() if k != "rope_theta"} == scaling
        if not same:
            raise model.fail("rope_scaling", "and rope_parameters are both given and differ: keep one")
    return ("rope_parameters", parameters) if parameters else ("rope_scaling", scaling or {})


def _per_type(block: dict) -> bool:
    return bool(block) and all(isinstance(v, dict) or v is None for v in block.values())


def _gemma3(model: Fields, name: str, block: dict) -> tuple[list[tuple[str, Fields | None]], list[str]]:
    """Gemma 3's two blocks, each with its base filled as transformers' Gemma3TextConfig fills it."""
    rules: list[str] = []
    per_type = block if _per_type(block) else {"full_attention": block or {"rope_type": "default"}}
    if not _per_type(block):
        rules.append(f"{model.prefix}{name} holds one block: transformers' Gemma3TextConfig applies it to "
                     "full_attention layers only")
    out: list[tuple[str, Fields | None]] = []
    bases = _GEMMA3_CLASS.rope_theta
    assert isinstance(bases, dict)  # one default base per layer type
    for layer_type in dict.fromkeys([*per_type, *_GEMMA3_BASE_FIELDS]):  # the file's order, then what it lacks
        if layer_type not in _GEMMA3_BASE_FIELDS:
            raise model.fail(f"{name}.{layer_type}", "is not a Gemma 3 layer type (full_attention, sliding_attention)")
        legacy, default = _GEMMA3_BASE_FIELDS[layer_type], bases[layer_type]
        sub = dict(per_type.get(layer_type) or {"rope_type": "default"})
        prefix = f"{model.prefix}{name}.{layer_type}." if _per_type(block) else f"{model.prefix}{name}."
        if "rope_theta" not in sub:
            given = model.optional(legacy)
            sub["rope_theta"] = given if given is not None else default
            rules.append(f"{layer_type} base from {model.prefix}{legacy}" if given is not None else
                         f"no {layer_type} base in the file: transformers' {_GEMMA3_CLASS.name} default {default:,.0f}")
        out.append((layer_type, Fields(model.path, sub, prefix)))
    return out, rules


def rope_blocks(model: Fields, model_type: str | None) -> tuple[list[tuple[str | None, Fields | None]], list[str]]:
    """(layer type or None, its rope block; None for a layer type without RoPE), in file order, and the rules used."""
    name, block = _named(model)
    if (model_type or "").lower() in _GEMMA3:
        blocks, rules = _gemma3(model, name, block)
        return list(blocks), rules
    if _per_type(block):  # one block per layer type
        return [(layer, None if sub is None else Fields(model.path, sub, f"{model.prefix}{name}.{layer}."))
                for layer, sub in block.items()], []
    return [(None, Fields(model.path, block, f"{model.prefix}{name}."))], []
