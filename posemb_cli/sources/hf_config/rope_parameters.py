"""One RoPE block of a model config -> its base, rotary width, scaling and analysed context.

A block is transformers 5's ``rope_parameters`` (or one layer type's entry in it)
or the older ``rope_scaling`` beside a top-level ``rope_theta``. Values are
resolved as transformers resolves them: the block's own ``rope_theta`` and
``partial_rotary_factor`` first, then the top level's (``rotary_emb_base`` and
``rotary_pct`` are GPT-NeoX's names), then 10000 and 1. ``rope_type`` (or the
older ``type``; ``rope_type`` wins where both are given, and Phi-3's config class
reads "su" and "yarn" as "longrope") picks the formula of ``core.schemes.rope_scaling``;
every key the block holds must be one posemb models, or the run is refused naming it.
A base the file does not give is the family's config-class default (``class_defaults``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from posemb_cli.core.schemes.rope_scaling import RopeScaling
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT
from posemb_cli.sources.hf_config.class_defaults import class_defaults
from posemb_cli.sources.model.fields import Fields, config_error

# rope_type in the file -> the scaling kind of core/schemes/rope_scaling.py
ROPE_TYPES = {"default": "none", "linear": "linear", "dynamic": "dynamic", "yarn": "yarn", "longrope": "longrope",
              "llama3": "llama3", "proportional": "proportional", "mrope": "none",
              "freq_factors": "freq_factors"}  # the last: a GGUF file's rope_freqs.weight (sources.gguf_file)
_KEYS = {
    "none": set(), "linear": {"factor"}, "dynamic": {"factor", "original_max_position_embeddings"},
    "yarn": {"factor", "original_max_position_embeddings", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
             "attention_factor", "truncate"},
    "longrope": {"factor", "original_max_position_embeddings", "short_factor", "long_factor", "attention_factor"},
    "llama3": {"factor", "original_max_position_embeddings", "low_freq_factor", "high_freq_factor"},
    "proportional": {"factor"},
    "freq_factors": {"freq_factors"},
}
_COMMON = {"rope_type", "type", "rope_theta", "partial_rotary_factor", "mrope_section", "mrope_interleaved"}
# Types a family's config class renames after reading the block: transformers' Phi3Config (and Phi4MultimodalConfig)
# read the names its first Phi-3 files used ("su", then "yarn") as "longrope".
FAMILY_TYPE_ALIASES = {family: {"su": "longrope", "yarn": "longrope"} for family in ("phi3", "phi4_multimodal")}
_GENERIC_BASE = 10000.0  # RotaryEmbeddingConfigMixin.default_theta
_SAME_TYPE = (("mrope", "default"), ("default", "mrope"))  # (type, rope_type) transformers computes alike

__all__ = ["FAMILY_TYPE_ALIASES", "ROPE_TYPES", "RopeBlock", "read_rope_block", "resolved_rope_type"]


def resolved_rope_type(values: dict, family: str | None, label: str = "") -> tuple[object, list[str]]:
    """The rope type transformers computes a block with, and the rules that made it differ from the file's words.

    transformers sets ``rope_type`` from the older ``type`` only where ``rope_type`` is absent, then lets a family's
    config class rename it (``FAMILY_TYPE_ALIASES``).

    Args:
        values: the block's raw keys. family: the config's ``model_type``. label: the block's prefix, for the rules.
    """
    rules: list[str] = []
    if "rope_type" in values:
        named = values["rope_type"]
        legacy = values.get("type")
        if "type" in values and legacy != named and (legacy, named) not in _SAME_TYPE:
            rules.append(f"{label}type {legacy!r} ignored: transformers reads rope_type {named!r} where both are given")
    else:
        named = values.get("type", "default")
    alias = FAMILY_TYPE_ALIASES.get((family or "").lower(), {}).get(named) if isinstance(named, str) else None
    if alias is not None:
        rules.append(f"{label}{'rope_type' if 'rope_type' in values else 'type'} {named!r}: transformers' "
                     f"{family} config reads it as {alias!r}")
        return alias, rules
    return named, rules


@dataclass(frozen=True)
class RopeBlock:
    """What one RoPE block makes of one head.

    Attributes:
        rope_type: the type as the file names it (``mrope`` reads as ``default``).
        rotary_dim: features of one head that rotate (even); the rest of ``head_dim`` do not.
        ctx: the context analysed: the extended one for dynamic, yarn and llama3.
        notes: extra entries for the JSON ``source`` object.
        base_from: the field that gave the base, or the default that did.
        base_defaulted: no field gave the base and no family default did: transformers' generic 10000.
        rules: how the type was resolved where the file's words differ from what transformers computes.
    """

    rope_type: str
    base: float
    rotary_dim: int
    scaling: RopeScaling
    ctx: int
    notes: dict = field(default_factory=dict)
    base_from: str = ""
    base_defaulted: bool = False
    rules: tuple[str, ...] = ()


def _rotary_dim(model: Fields, block: Fields, head_dim: int, fixed: tuple[str, int] | None, kind: str) -> tuple:
    """(rotary_dim, exponent_dim or None, the field that set it)."""
    name = next((n for n in ("partial_rotary_factor", "rotary_pct") if block.has(n) or model.has(n)), None)
    source = block if name and block.has(name) else model
    partial = 1.0 if name is None else source.number(name)
    if partial > 1:
        raise source.fail(name or "partial_rotary_factor", f"must be in (0, 1], got {partial!r}")
    if fixed is not None:
        if name is not None and partial != 1.0 and int(head_dim * partial) != fixed[1]:
            raise source.fail(name, f"{partial!r} of head_dim {head_dim} disagrees with {fixed[0]} {fixed[1]}")
        return fixed[1], None, fixed[0]
    if kind == "proportional":  # transformers: int(partial * head_dim // 2) pairs, exponent over the whole head
        return 2 * int(partial * head_dim // 2), head_dim, source.prefix + (name or "head_dim")
    return int(head_dim * partial), None, source.prefix + name if name else "head_dim"


def read_rope_block(
    model: Fields, block: Fields, *, head_dim: int, max_ctx: int, fixed_rotary: tuple[str, int] | None = None,
    top_original: int | None = None, head_field: str = "head_dim", family: str | None = None,
) -> RopeBlock:
    """Read one block.

    Args:
        model: the model's fields (top level or text_config): rope_theta, partial_rotary_factor live there too.
        block: the rope block (empty values for a model without one).
        head_dim: one attention head's size.
        max_ctx: ``max_position_embeddings``.
        fixed_rotary: (field, width) where the rotary width is given outright (qk_rope_head_dim, rotary_dim).
        top_original: a top-level ``original_max_position_embeddings`` (Phi-3 keeps it there; it wins).
        head_field: the field that set ``head_dim``, named when an odd head cannot rotate.
        family: the config's ``model_type``: its class's type aliases and default base apply.
    """
    values = block.values
    rope_type, type_rules = resolved_rope_type(values, family, block.prefix)
    if not isinstance(rope_type, str) or rope_type not in ROPE_TYPES:
        named = "rope_type" if "rope_type" in values or "type" not in values else "type"
        raise block.fail(named, f"{rope_type!r} is not supported; known: {', '.join(ROPE_TYPES)}")
    kind = ROPE_TYPES[rope_type]
    unknown = sorted(set(values) - _COMMON - _KEYS[kind])
    if unknown:
        raise block.fail(unknown[0], f"is not modelled for rope_type {rope_type!r} (posemb reads: "
                                     f"{', '.join(sorted(_KEYS[kind] | {'rope_theta', 'partial_rotary_factor'}))})")
    theta_name = next((n for n in ("rope_theta", "rotary_emb_base") if model.has(n)), "rope_theta")
    theta_source = block if block.has("rope_theta") else model
    defaults = class_defaults(family)
    default = defaults.rope_theta if defaults is not None and isinstance(defaults.rope_theta, float) else _GENERIC_BASE
    base = theta_source.number(theta_name if theta_source is model else "rope_theta", default=default)
    if base <= 1:
        raise theta_source.fail(theta_name if theta_source is model else "rope_theta", f"must be above 1, got {base!r}")
    given = block.has("rope_theta") or model.has(theta_name)
    base_from = (block.prefix + "rope_theta" if block.has("rope_theta") else model.prefix + theta_name
                 if model.has(theta_name) else f"no rope_theta: transformers' {defaults.name if defaults else ''}"
                 f"{' ' if defaults else ''}default {default:g}")
    rotary_dim, exponent_dim, rotary_field = _rotary_dim(model, block, head_dim, fixed_rotary, kind)
    if rotary_dim < 2 or rotary_dim % 2:
        if rotary_field == "head_dim":  # the whole head rotates: name the field that set its size
            raise model.fail(head_field, f"is {head_dim}: RoPE rotates feature pairs, so the head size must be even, "
                                         "at least 2")
        raise config_error(model.path, rotary_field, f"gives {rotary_dim} rotary features of {head_dim}: "
                                                      "RoPE rotates feature pairs, so need an even number, at least 2")
    notes: dict = {"rope_type_in_file": values.get("rope_type", values.get("type", "default"))}
    defaulted = not given and default == _GENERIC_BASE
    if kind == "none":
        return RopeBlock(rope_type, base, rotary_dim, RopeScaling(), max_ctx, notes, base_from, defaulted,
                         tuple(type_rules))
    scaling, ctx = _scaling(block, kind, rotary_dim, exponent_dim, max_ctx, top_original, notes)
    if top_original is not None and kind in ("yarn", "longrope", "llama3"):
        type_rules.append(f"original_max_position_embeddings {top_original} from {model.prefix}"
                          "original_max_position_embeddings: transformers puts the config's own value in the rope "
                          "block, ahead of the block's")
    if ctx > MAX_COUNT:  # the factor stretches the context past any count posemb takes
        raise block.fail("factor", f"{scaling.factor!r} stretches the context to {ctx} positions; "
                                   f"at most {MAX_COUNT_TEXT} are allowed")
    return RopeBlock(rope_type, base, rotary_dim, scaling, ctx, notes, base_from, defaulted, tuple(type_rules))


def _scaling(block: Fields, kind: str, rotary_dim: int, exponent_dim, max_ctx: int, top_original, notes: dict):
    """(RopeScaling, analysed context) for a scaled type, with transformers' defaults."""
    if kind == "freq_factors":
        return RopeScaling(kind=kind, short_factor=block.numbers("freq_factors", rotary_dim // 2)), max_ctx
    original: int = max_ctx
    if kind in ("yarn", "longrope", "llama3"):  # transformers: the top-level value wins, then the block's, then max
        if top_original is not None:
            original = top_original
        else:
            original = block.number("original_max_position_embeddings", default=max_ctx, integer=True)
    factor_default = max_ctx / original if kind in ("yarn", "longrope") else None
    factor = block.number("factor", default=1.0 if kind == "proportional" else factor_default)
    if factor < 1:
        raise block.fail("factor", f"must be 1 or more (it stretches the context), got {factor!r}")
    if kind == "dynamic":
        if block.has("original_max_position_embeddings"):
            notes["ignored"] = {block.prefix + "original_max_position_embeddings":
                                "transformers' dynamic NTK measures length against max_position_embeddings"}
        ctx = max(max_ctx, round(max_ctx * factor))
        notes.update(frequencies_for_seq_len=ctx, dynamic_reference_length=max_ctx)
        return RopeScaling(kind="dynamic", factor=factor, original_ctx=max_ctx), ctx
    if kind in ("linear", "proportional"):
        return RopeScaling(kind=kind, factor=factor, exponent_dim=exponent_dim), max_ctx
    notes["original_max_position_embeddings"] = original
    if kind == "llama3":
        low, high = block.number("low_freq_factor"), block.number("high_freq_factor")
        if high <= low:
            raise block.fail("high_freq_factor", f"{high!r} must be above low_freq_factor {low!r}")
        scaling = RopeScaling(kind="llama3", factor=factor, original_ctx=original, low_freq_factor=low,
                              high_freq_factor=high)
        return scaling, max(max_ctx, round(original * factor))
    attention = block.optional("attention_factor")
    if kind == "longrope":
        if attention is None:  # transformers' default: sqrt(1 + ln(factor) / ln(original)), 1 without stretch
            attention = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original))
        scaling = RopeScaling(kind="longrope", factor=factor, original_ctx=original, attention_factor=attention,
                              short_factor=block.numbers("short_factor", rotary_dim // 2),
                              long_factor=block.numbers("long_factor", rotary_dim // 2))
        notes["frequencies_for_seq_len"] = max_ctx
        notes["longrope_factors_in_use"] = "long" if max_ctx > original else "short"
        return scaling, max_ctx
    # yarn; transformers reads beta_fast/beta_slow with `or`, so 0 or null is the default too
    beta_fast = block.number("beta_fast") if block.values.get("beta_fast") else 32.0
    beta_slow = block.number("beta_slow") if block.values.get("beta_slow") else 1.0
    if beta_fast <= beta_slow:
        raise block.fail("beta_fast", f"{beta_fast!r} must be above beta_slow {beta_slow!r}")
    mscale, mscale_all = block.optional("mscale"), block.optional("mscale_all_dim")
    if attention is None and mscale and mscale_all:  # DeepSeek's variant; otherwise 0.1 ln(factor) + 1 is the default
        attention = _mscale(factor, mscale) / _mscale(factor, mscale_all)
    scaling = RopeScaling(kind="yarn", factor=factor, original_ctx=original, beta_fast=beta_fast, beta_slow=beta_slow,
                          attention_factor=attention, truncate=block.flag("truncate", default=True))
    notes["truncate"] = scaling.truncate
    return scaling, max(max_ctx, round(original * factor))


def _mscale(factor: float, mscale: float) -> float:
    return 1.0 if factor <= 1 else 0.1 * mscale * math.log(factor) + 1.0
