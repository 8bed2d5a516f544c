"""A Hugging Face ``config.json`` object -> the model's reading (``ModelReading``), as transformers 5 reads it.

Width, vocabulary, layers and attention shape from the text model's fields (a
multimodal file's ``text_config``), each field the file leaves out taken from the
family's config class as transformers takes it (``sources.hf_config.class_defaults``);
for RoPE, each set's base, rotary width and scaling (``sources.rope_parameters``, one
set per layer type where the file gives one) and each layer's record
(``sources.layer_rules``). A GGUF file comes here too,
after ``sources.gguf_reading`` has turned its metadata into these fields and made
every per-layer fact explicit with llama.cpp's rules.

Strict by default: a missing, bad or unmodelled field exits 2 naming it. ``lenient``
(for ``posemb doctor``, which reports such fields instead) records each refusal in
``problems`` and reads what remains.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from posemb_cli.errors import PosembError
from posemb_cli.sources.bounds.limits import MAX_COUNT, MAX_COUNT_TEXT
from posemb_cli.sources.hf_config.class_defaults import with_class_defaults
from posemb_cli.sources.hf_config.layer_rules import layer_count, layer_records
from posemb_cli.sources.hf_config.rope_blocks import rope_blocks
from posemb_cli.sources.hf_config.rope_parameters import read_rope_block
from posemb_cli.sources.model.families import HEAD_FIELDS, INTERLEAVED_FAMILIES, WIDTH_FIELDS
from posemb_cli.sources.model.fields import Fields
from posemb_cli.sources.model.kind import ModelKind, classify_config, first_field
from posemb_cli.sources.model.reading import SHARED_SET, LayerRecord, ModelReading, RopeSet

_POSITION_OF_KIND = {"learned": "table", "sinusoidal": "table", "alibi": "alibi", "relative_bias": "relative_bias",
                     "relative_embeddings": "relative_embeddings", "none": "none"}
_KV_FIELDS = ("num_key_value_heads", "num_kv_heads", "n_head_kv")

__all__ = ["read_config", "text_family", "text_fields"]


def text_fields(path: str, top: dict) -> Fields:
    """The object holding the text model's settings: ``text_config`` in a multimodal file, else the top."""
    nested = top.get("text_config")
    if "hidden_size" not in top and "head_dim" not in top and isinstance(nested, dict):
        return Fields(path, nested, "text_config.")
    return Fields(path, top)


def text_family(top: dict, model: Fields) -> str | None:
    """The text model's family: ``text_config``'s own ``model_type`` where it names one, else the file's."""
    for source in (model.values, top) if model.prefix else (top,):
        if isinstance(source.get("model_type"), str):
            return source["model_type"]
    return None


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


def _positive(model: Fields, names: tuple[str, ...]) -> int | None:
    name, value = first_field(model.values, names)
    if name is not None and value is not None and value > MAX_COUNT:
        raise model.fail(name, f"must be at most {MAX_COUNT_TEXT}, got {value!r}")
    return value


def _kv_heads(model: Fields, heads: int | None) -> int | None:
    if model.values.get("multi_query") is True:  # Falcon's older form: one key/value head
        return 1
    return _positive(model, _KV_FIELDS) or heads


def _layer_notes(records: list[LayerRecord], model: Fields) -> dict:
    """The per-layer facts older documents reported in ``source``: layer type counts, layers without RoPE."""
    notes: dict[str, object] = {}
    types = [record.attention for record in records]
    if isinstance(model.values.get("layer_types"), list) or len(set(types)) > 1:
        notes["layer_type_counts"] = {t: types.count(t) for t in dict.fromkeys(types)}
    without = [record.layer for record in records if record.position == "none"]
    if without:
        notes["layers_without_rope"] = without
        notes["layers_with_rope"] = len(records) - len(without)
    return notes


def _layout(model: Fields, model_type: str | None, rules: list[str]) -> str:
    """How a head's features pair: ``rope_interleave`` (the file's or its class default), else the family's modeling
    code."""
    family = (model_type or "").lower()
    interleave = model.values.get("rope_interleave")
    if interleave is None and family in INTERLEAVED_FAMILIES:
        rules.append(f"transformers' {family} modeling pairs feature 2i with 2i + 1 (interleaved)")
        return "interleaved"
    return "interleaved" if interleave is True else "half"


def _rope(model: Fields, file_format: str, model_type: str | None, count: int | None, blocks: list, *,
          family_rules: bool, lenient: bool, problems: list[str]):
    """(heads, head_dim, rope sets, layer records, rules) of a RoPE model with these raw blocks."""
    heads, head_dim, fixed = _head(model)
    max_ctx = model.number("max_position_embeddings", integer=True)
    top_original = model.optional("original_max_position_embeddings", integer=True)
    rules: list[str] = []
    layout = _layout(model, model_type if family_rules else None, rules)
    sets: list[RopeSet] = []
    for layer_type, block in blocks:
        if block is None:
            continue
        try:
            read = read_rope_block(
                model, block, head_dim=head_dim, max_ctx=max_ctx, fixed_rotary=fixed,
                top_original=top_original if layer_type is None else None,
                head_field="head_dim" if model.has("head_dim") else "hidden_size / num_attention_heads",
                family=model_type if family_rules else None)
            rules += [rule for rule in read.rules if rule not in rules]
            notes = {"format": file_format, "max_position_embeddings_in_file": max_ctx, **read.notes,
                     **_mrope(block, read.rotary_dim)}
        except PosembError as exc:
            if not lenient:
                raise
            problems.append(str(exc))
            continue
        sets.append(RopeSet(name=layer_type or SHARED_SET, base=read.base, rotary_dim=read.rotary_dim,
                            head_dim=head_dim, scaling=read.scaling, ctx=read.ctx, layout=layout,
                            rope_type=read.rope_type, decided_by=read.base_from, notes=notes, block=block,
                            base_defaulted=read.base_defaulted))
    if not sets and not lenient:
        raise model.fail("rope_parameters", "gives no layer type a RoPE block: nothing to analyse")
    records: list[LayerRecord] = []
    if count is not None:
        names = [layer_type or SHARED_SET for layer_type, block in blocks if block is not None]
        without = [str(layer_type) for layer_type, block in blocks if block is None]
        records, layer_rules = layer_records(model, model_type, count, names, without, family_rules=family_rules)
        rules += layer_rules
    return heads, head_dim, sets, records, rules


def read_config(file: str, top: dict, *, file_format: str = "config.json",
                lenient: bool = False, family_rules: bool = True, rules: tuple[str, ...] = (),
                token_table: tuple[int, int] | None = None, qk_interleaved: bool = False,
                kind: ModelKind | None = None) -> ModelReading:
    """Read one config object into the model's reading.

    Args:
        file: the file read, for messages. top: its whole JSON object (or a GGUF file's translated fields).
        file_format: ``config.json`` or ``gguf``.
        lenient: record refusals in ``problems`` instead of raising (posemb doctor).
        family_rules: apply transformers' per-family defaults where the file is silent (False for GGUF).
        rules: rules the caller already applied (a GGUF file's llama.cpp rules).
        token_table: (rows, width) of the token table where the caller saw it in the weights.
    """
    kind = kind or classify_config(top, file)
    model = text_fields(file, top)
    model_type = top.get("model_type") if isinstance(top.get("model_type"), str) else None
    model, defaulted = with_class_defaults(model, text_family(top, model)) if family_rules else (model, [])
    rules = (*rules, *defaulted)
    problems: list[str] = []
    hidden = _positive(model, WIDTH_FIELDS)
    vocab = model.values.get("vocab_size", top.get("vocab_size"))
    vocab = vocab if isinstance(vocab, int) and not isinstance(vocab, bool) and vocab > 0 else None
    if vocab is not None and vocab > MAX_COUNT:
        raise model.fail("vocab_size", f"must be at most {MAX_COUNT_TEXT}, got {vocab!r}")
    count = layer_count(model)
    heads = _positive(model, HEAD_FIELDS)
    dtype = next((v for v in (model.values.get("torch_dtype"), model.values.get("dtype"), top.get("torch_dtype"),
                              top.get("dtype")) if isinstance(v, str)), None)
    common: dict[str, Any] = {
        "path": file, "format": file_format, "kind": kind, "model_type": model_type, "hidden_size": hidden,
        "vocab": vocab, "context": _positive(model, ("max_position_embeddings",)), "token_table": token_table,
        "fields": model, "top": top, "dtype": dtype, "qk_interleaved_by_converter": qk_interleaved}
    if kind.kind != "rope":
        records = tuple(LayerRecord(i, _POSITION_OF_KIND[kind.kind]) for i in range(count or 0))
        return ModelReading(**common, heads=heads, kv_heads=_kv_heads(model, heads), layers=records,
                            rules=tuple(rules))
    blocks: list = []
    try:  # a GGUF file's translation is explicit: no family rule (model type None)
        blocks, block_rules = rope_blocks(model, model_type if family_rules else None)
        heads, head_dim, sets, records, found = _rope(model, file_format, model_type, count, blocks,
                                                      family_rules=family_rules, lenient=lenient, problems=problems)
    except PosembError as exc:
        if not lenient:
            raise
        return ModelReading(**common, heads=heads, kv_heads=_kv_heads(model, heads), rules=tuple(rules),
                            blocks=tuple(blocks), problems=(*problems, str(exc)))
    found = [*block_rules, *found]
    notes = _layer_notes(records, model)
    without = [str(layer_type) for layer_type, block in blocks if block is None]
    if without:
        notes["layer_types_without_rope"] = without
    sets = [dataclasses.replace(one, notes={**one.notes, **notes}) for one in sets]
    return ModelReading(**common, heads=heads, kv_heads=_kv_heads(model, heads), head_dim=head_dim,
                        rope_sets=tuple(sets), layers=tuple(records), rules=(*rules, *found),
                        blocks=tuple(blocks), problems=tuple(problems))
