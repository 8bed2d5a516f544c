"""A GGUF file's metadata -> the model's reading, with llama.cpp's rules where the file is silent.

llama.cpp's keys become the Hugging Face fields ``sources.config_reading`` reads, and
every per-layer fact is made explicit here (``layer_types``, ``rope_parameters`` per
layer type, ``no_rope_layers``) from ``sources.gguf_rules``, each rule recorded:

    {arch}.embedding_length -> hidden_size        {arch}.attention.head_count(_kv) -> num_(key_value_)heads
    {arch}.attention.key_length -> head_dim       {arch}.rope.dimension_count -> rotary_dim
    {arch}.rope.freq_base -> rope_theta           {arch}.context_length -> max_position_embeddings
    {arch}.block_count -> num_hidden_layers       {arch}.vocab_size, the tokenizer, or token_embd.weight -> vocab
    {arch}.rope.scaling.type/.factor/.original_context_length/.yarn_beta_* -> the global RoPE set's scaling
    rope_freqs.weight (Llama 3.1's per-pair divisors), rope_factors_long/short.weight (LongRoPE) -> likewise
    {arch}.attention.sliding_window(_pattern), {arch}.rope.freq_base_swa -> sliding layers and their base

A key that changes the position signal and that posemb does not model is refused, naming it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from posemb_cli.core.wording import ordinal
from posemb_cli.errors import FileError
from posemb_cli.sources.gguf import rules as rules_of
from posemb_cli.sources.gguf.file import gguf_reader, metadata, tensor_shape, tensor_values
from posemb_cli.sources.gguf.header import GGUFHeader
from posemb_cli.sources.hf_config.reading import read_config
from posemb_cli.sources.model.kind import ModelKind
from posemb_cli.sources.model.reading import ModelReading

# Keys that change RoPE and that posemb does not model: refused unless neutral (None: any value is refused).
_UNMODELLED = {"rope.scaling.yarn_attn_factor": 1.0, "rope.scaling.yarn_log_multiplier": 0.0,
               "rope.scaling.yarn_ext_factor": None, "rope.scaling.alpha": None}
_SCALING_TYPES = ("none", "linear", "yarn")

__all__ = ["read_gguf"]


class _Meta:
    """The metadata of one architecture, read with messages that name the file and key."""

    def __init__(self, path: str, arch: str, values: dict, reader: GGUFHeader):
        self.path, self.arch, self.values, self.reader = path, arch, values, reader
        self.said = {"global": f"{arch}.rope.freq_base"}  # what gave each RoPE set its base

    def fail(self, key: str, why: str) -> FileError:
        return FileError(self.path, f"{self.arch}.{key} {why}")

    def get(self, key: str):
        return self.values.get(f"{self.arch}.{key}")

    def one(self, key: str):
        """A per-layer list of equal values read as one number; differing values are refused."""
        value = self.get(key)
        if isinstance(value, list):
            if not value or any(item != value[0] for item in value):
                raise self.fail(key, f"differs between layers ({value[:8]}...): posemb reads one attention shape "
                                     "for every layer")
            return value[0]
        return value


def _scaling(meta: _Meta, tensors: dict, rules: list[str]) -> dict:
    """The global RoPE set's scaling block, Hugging Face style."""
    divisors, long, short = (tensors.get(name) for name in ("rope_freqs.weight", "rope_factors_long.weight",
                                                            "rope_factors_short.weight"))
    kind, factor = meta.get("rope.scaling.type"), meta.get("rope.scaling.factor") or meta.get("rope.scale_linear")
    attention = meta.get("rope.scaling.attn_factor")
    if kind is not None and kind not in _SCALING_TYPES:
        raise meta.fail("rope.scaling.type", f"{kind!r} is not supported for GGUF; known: {', '.join(_SCALING_TYPES)}")
    if (divisors is not None or long is not None) and kind not in (None, "none"):
        tensor = "rope_freqs.weight" if divisors is not None else "rope_factors_long.weight"
        raise FileError(meta.path, f"tensor {tensor} together with {meta.arch}.rope.scaling.type {kind!r} is not "
                                   "modelled")
    if long is not None or short is not None:
        if long is None or short is None:
            raise FileError(meta.path, "only one of rope_factors_long/short.weight: LongRoPE needs both")
        if attention is None:
            rules.append(f"no {meta.arch}.rope.scaling.attn_factor: llama.cpp scales cos/sin by 1")
        return {"rope_type": "longrope", "short_factor": tensor_values(short),
                "long_factor": tensor_values(long),
                "original_max_position_embeddings": meta.get("rope.scaling.original_context_length")
                or meta.get("context_length"), "attention_factor": 1.0 if attention is None else attention}
    if attention not in (None, 1.0):
        raise meta.fail("rope.scaling.attn_factor", f"= {attention!r} changes the RoPE signal and is not modelled "
                                                    "(only with LongRoPE factor tensors)")
    if divisors is not None:  # llama.cpp's per-pair divisors (Llama 3.1's scaling, baked into a tensor)
        return {"rope_type": "freq_factors", "freq_factors": tensor_values(divisors)}
    if kind is None and factor not in (None, 1.0):
        kind = "linear"
        rules.append(f"{meta.arch}.rope.scaling.factor without a type: llama.cpp's default type linear")
    if kind in ("linear", "yarn"):
        block = {"rope_type": kind, "factor": factor}
        if kind == "yarn":
            block.update(original_max_position_embeddings=meta.get("rope.scaling.original_context_length"),
                         beta_fast=meta.get("rope.scaling.yarn_beta_fast"),
                         beta_slow=meta.get("rope.scaling.yarn_beta_slow"))
        return {key: value for key, value in block.items() if value is not None}
    return {"rope_type": "default"}


def _layers(meta: _Meta, count: int, global_block: dict, base: float, rules: list[str]) -> dict:
    """The fields that make each layer explicit: layer_types, rope_parameters per type, no_rope_layers."""
    arch = meta.arch
    out: dict[str, Any] = {}
    window = meta.get("attention.sliding_window")
    rule = rules_of.SLIDING_RULES.get(arch)
    if arch == "llama4":
        step = count if window == 0 else rules_of.NO_ROPE_STEP["llama4"]
        rotates = [int((i + 1) % step != 0) for i in range(count)]
        chunk = None if window == 0 else rules_of.LLAMA4_CHUNK  # llama.cpp sets the chunk itself
        out.update(no_rope_layers=rotates, attention_chunk_size=chunk,
                   layer_types=["chunked_attention" if uses and chunk else "full_attention" for uses in rotates])
        rules.append(f"llama.cpp's rule for llama4: no RoPE in every {ordinal(step)} layer, the others attend "
                     f"in chunks of {chunk}" if chunk else
                     f"llama.cpp's rule for llama4 with {arch}.attention.sliding_window 0: no chunks, and no RoPE in "
                     "the last layer")
        return out
    if arch in rules_of.NO_ROPE_STEP:
        step = rules_of.NO_ROPE_STEP[arch]
        out["no_rope_layers"] = [int((i + 1) % step != 0) for i in range(count)]
        rules.append(f"llama.cpp's rule for {arch}: no RoPE in every {ordinal(step)} layer")
    if rule is None:
        if window:
            rules.append(f"{arch}.attention.sliding_window {window}: llama.cpp's {arch} graph applies no window")
        if meta.get("rope.freq_base_swa") is not None:
            raise meta.fail("rope.freq_base_swa", f"is given, but llama.cpp's {arch} graph has no sliding layers "
                                                  "that posemb knows of: not modelled")
        return out
    window = window or rule.window
    if rule.needs_window and not window:
        rules.append(f"llama.cpp's rule for {arch}: no sliding window in the file, every layer attends fully")
        return out
    pattern = meta.get("attention.sliding_window_pattern") or rule.pattern
    sliding = rules_of.sliding_layers(count, pattern)
    out.update(sliding_window=window, layer_types=["sliding_attention" if s else "full_attention" for s in sliding])
    local = meta.get("rope.freq_base_swa")
    local_base = local if local is not None else rule.local_base or base
    said = (f"every {ordinal(pattern)} layer global" if not isinstance(pattern, list) else
            f"{arch}.attention.sliding_window_pattern per layer")
    where = (f"local base {local_base:,.6g} ({arch}.rope.freq_base_swa)" if local is not None else
             f"local base {local_base:,.6g}" + ("" if rule.local_base else " (the global one)"))
    rules.append(f"llama.cpp's rule for {arch}: {said}, {where}")
    meta.said["sliding_attention"] = rules[-1]
    local_block = {**(global_block if rule.local_scaling else {"rope_type": "default"}), "rope_theta": local_base}
    if local_block != {**global_block, "rope_theta": base}:
        order = ("sliding_attention", "full_attention") if sliding and sliding[0] else \
            ("full_attention", "sliding_attention")
        blocks = {"sliding_attention": local_block, "full_attention": {**global_block, "rope_theta": base}}
        out["rope_parameters"] = {name: blocks[name] for name in order}
    if rule.rope_only_sliding:
        out["no_rope_layers"] = [int(s) for s in sliding]
        rules.append(f"llama.cpp's rule for {arch}: RoPE in sliding-window layers only")
    return out


def _fields(meta: _Meta, tensors: dict, kind: ModelKind, rules: list[str]) -> dict:
    tokens = meta.values.get("tokenizer.ggml.tokens")
    counted = len(tokens) if isinstance(tokens, list) else None
    fields = {"model_type": meta.arch, "gguf_architecture": meta.arch, "hidden_size": meta.one("embedding_length"),
              "num_attention_heads": meta.one("attention.head_count"),
              "num_key_value_heads": meta.one("attention.head_count_kv"), "head_dim": meta.one("attention.key_length"),
              "max_position_embeddings": meta.get("context_length"), "num_hidden_layers": meta.get("block_count"),
              "vocab_size": meta.get("vocab_size") or counted}
    if kind.kind != "rope":
        return {key: value for key, value in fields.items() if value is not None}
    for key, neutral in _UNMODELLED.items():
        value = meta.get(key)
        if value is not None and value != neutral:
            raise meta.fail(key, f"= {value!r} changes the RoPE signal and is not modelled")
    rotary = meta.one("rope.dimension_count")
    swa_rotary = meta.get("rope.dimension_count_swa")
    if swa_rotary is not None and swa_rotary != rotary:
        raise meta.fail("rope.dimension_count_swa", f"= {swa_rotary!r} differs from rope.dimension_count: not modelled")
    base = meta.get("rope.freq_base")
    if base is None:
        base = 10_000.0
        meta.said["global"] = f"no {meta.arch}.rope.freq_base: llama.cpp's default 10,000"
        rules.append(meta.said["global"])
    block = _scaling(meta, tensors, rules)
    sections = meta.get("rope.dimension_sections")
    if sections is not None:
        if meta.arch not in rules_of.MROPE_ARCHS:
            raise meta.fail("rope.dimension_sections", "(multimodal RoPE sections) is not modelled for this "
                                                       "architecture")
        block["mrope_section"] = [int(s) for s in sections if s]
    fields.update(rotary_dim=rotary, rope_theta=base, rope_parameters={**block, "rope_theta": base},
                  # the pairs in Hugging Face's layout: NORM rotation of rows the converter interleaved is half
                  rope_interleave=meta.arch in rules_of.NORM_ARCHS - rules_of.PERMUTED_ARCHS)
    if fields["num_hidden_layers"]:
        fields.update(_layers(meta, int(fields["num_hidden_layers"]), block, float(base), rules))
    return {key: value for key, value in fields.items() if value is not None}


def read_gguf(path: str, *, lenient: bool = False) -> ModelReading:
    """Read a GGUF file's header (and its small RoPE factor tensors) into the model's reading."""
    reader = gguf_reader(path)
    values = metadata(reader)
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    arch = values.get("general.architecture")
    kind = rules_of.gguf_kind(arch, tensors, path)
    assert isinstance(arch, str)  # gguf_kind refused a file without one
    meta, rules = _Meta(path, arch, values, reader), list[str]()
    fields = _fields(meta, tensors, kind, rules)
    kind = dataclasses.replace(kind, fields=fields)
    token = tensors.get("token_embd.weight")
    shape = tensor_shape(token) if token is not None else ()
    token_table = (shape[0], shape[1]) if len(shape) == 2 else None
    if token_table is not None and "vocab_size" not in fields:
        fields["vocab_size"] = token_table[0]
    reading = read_config(path, fields, file_format="gguf", lenient=lenient, family_rules=False,
                          rules=tuple(rules), token_table=token_table,
                          qk_interleaved=kind.kind == "rope" and arch in rules_of.PERMUTED_ARCHS, kind=kind)
    defaulted = meta.said["global"].startswith("no ")
    sets = tuple(dataclasses.replace(one, decided_by=meta.said.get(one.name, meta.said["global"]),
                                     base_defaulted=defaulted and one.name not in meta.said)
                 for one in reading.rope_sets)
    return dataclasses.replace(reading, rope_sets=sets)
