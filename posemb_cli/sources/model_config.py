"""A Hugging Face style ``config.json`` -> the model's RoPE: head size, base, context and scaling.

No weights are needed: RoPE's position signal is fully given by the config.
Fields read (transformers' names): ``rope_theta`` (or GPT-NeoX's
``rotary_emb_base``; 10000 when absent, as transformers assumes),
``rope_scaling`` (``type`` or ``rope_type``, ``factor``,
``original_max_position_embeddings``, ``low_freq_factor``,
``high_freq_factor``, ``beta_fast``, ``beta_slow``, ``attention_factor``,
``mscale``/``mscale_all_dim``), ``head_dim`` or ``hidden_size /
num_attention_heads``, ``partial_rotary_factor`` (or ``rotary_pct``),
``max_position_embeddings``, ``vocab_size``. Newer files that keep these in
``rope_parameters``, and multimodal files that keep them in ``text_config``,
are read too. A missing or bad field exits 2 naming it.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass

from posemb_cli.core.schemes.rope_scaling import RopeScaling, yarn_attention_factor
from posemb_cli.errors import PosembError
from posemb_cli.sources.limits import MAX_COUNT, MAX_COUNT_TEXT
from posemb_cli.sources.tensor_files import read_json_object

# rope_type in the file -> the scaling kind of schemes/rope_scaling.py
ROPE_TYPES = {"default": "none", "linear": "linear", "ntk": "ntk", "dynamic": "dynamic", "yarn": "yarn",
              "llama3": "llama3"}
_EXTENDING = ("dynamic", "yarn", "llama3")  # the context reaches original x factor


@dataclass(frozen=True)
class RopeModel:
    """What RoPE does in one real model, as its config states it."""

    path: str
    model_type: str | None
    heads: int
    head_dim: int
    rotary_dim: int
    base: float
    ctx: int
    vocab: int | None
    scaling: RopeScaling

    def source(self) -> dict:
        """The JSON ``source`` object."""
        return {"config": self.path, "model_type": self.model_type, "rope_type": self.scaling.kind,
                "rope_theta": self.base, "head_dim": self.head_dim, "rotary_dim": self.rotary_dim,
                "heads": self.heads, "max_position_embeddings": self.ctx}


def _fail(path: str, field: str, why: str) -> PosembError:
    return PosembError(f"--config {path}: {field} {why}")


def _number(path: str, fields: dict, name: str, *, prefix: str = "", default=None, integer=False, positive=True):
    value = fields.get(name, default)
    label = prefix + name
    if value is None:
        raise _fail(path, label, "is missing")
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise _fail(path, label, f"must be a number, got {value!r}")
    if integer and value != int(value):
        raise _fail(path, label, f"must be a whole number, got {value!r}")
    if integer and value > MAX_COUNT:
        raise _fail(path, label, f"must be at most {MAX_COUNT_TEXT}, got {value!r}")
    if positive and value <= 0:
        raise _fail(path, label, f"must be above 0, got {value!r}")
    return int(value) if integer else float(value)


def read_json_config(path: str) -> tuple[str, dict]:
    """The config file (``path`` itself, or ``config.json`` in that directory) and its JSON object."""
    file = os.path.join(path, "config.json") if os.path.isdir(path) else path
    if not os.path.isfile(file):
        raise PosembError(f"--config {path}: no such file" + (" (no config.json in the directory)"
                                                                  if os.path.isdir(path) else ""))
    return file, read_json_object(file, "--config")


def _text_fields(fields: dict) -> tuple[dict, str]:
    nested = fields.get("text_config")
    if "hidden_size" not in fields and "head_dim" not in fields and isinstance(nested, dict):
        return nested, "text_config."
    return fields, ""


def _scaling(path: str, fields: dict, prefix: str, max_ctx: int) -> tuple[RopeScaling, int]:
    """The RopeScaling and the context length it reaches."""
    block_name = "rope_parameters" if isinstance(fields.get("rope_parameters"), dict) else "rope_scaling"
    block = fields.get(block_name)
    if block is None:
        return RopeScaling(), max_ctx
    label = f"{prefix}{block_name}."
    if not isinstance(block, dict):
        raise _fail(path, prefix + block_name, f"must be an object, got {block!r}")
    rope_type = block.get("rope_type", block.get("type", "default"))
    if rope_type not in ROPE_TYPES:
        raise _fail(path, f"{label}rope_type", f"{rope_type!r} is not supported; known: {', '.join(ROPE_TYPES)}")
    kind = ROPE_TYPES[rope_type]
    if kind == "none":
        return RopeScaling(), max_ctx
    factor = _number(path, block, "factor", prefix=label)
    if factor < 1:
        raise _fail(path, f"{label}factor", f"must be 1 or more (it stretches the context), got {factor!r}")
    get = block.get
    original = get("original_max_position_embeddings")
    if original is None and kind in ("dynamic", "yarn"):
        original = max_ctx  # transformers: the config's own length is the trained one
    if original is not None or kind == "llama3":
        original = _number(path, block, "original_max_position_embeddings", prefix=label, default=original,
                           integer=True)
    attention = get("attention_factor")
    if attention is not None:
        attention = _number(path, block, "attention_factor", prefix=label)
    elif kind == "yarn" and get("mscale") and get("mscale_all_dim"):  # DeepSeek's variant of the default
        attention = (_mscale(factor, _number(path, block, "mscale", prefix=label))
                     / _mscale(factor, _number(path, block, "mscale_all_dim", prefix=label)))
    scaling = RopeScaling(
        kind=kind, factor=factor, original_ctx=original,
        beta_fast=_number(path, block, "beta_fast", prefix=label, default=32.0),
        beta_slow=_number(path, block, "beta_slow", prefix=label, default=1.0),
        low_freq_factor=_number(path, block, "low_freq_factor", prefix=label,
                                default=None if kind == "llama3" else 1.0),
        high_freq_factor=_number(path, block, "high_freq_factor", prefix=label,
                                 default=None if kind == "llama3" else 4.0),
        attention_factor=attention)
    if scaling.beta_fast <= scaling.beta_slow:
        raise _fail(path, f"{label}beta_fast", f"{scaling.beta_fast!r} must be above beta_slow {scaling.beta_slow!r}")
    if scaling.high_freq_factor <= scaling.low_freq_factor:
        raise _fail(path, f"{label}high_freq_factor", f"{scaling.high_freq_factor!r} must be above "
                                                      f"low_freq_factor {scaling.low_freq_factor!r}")
    ctx = max(max_ctx, round(original * factor)) if kind in _EXTENDING else max_ctx
    if ctx > MAX_COUNT:
        raise _fail(path, f"{label}factor", f"{factor!r} stretches original_max_position_embeddings {original} to "
                                            f"{ctx} positions; at most {MAX_COUNT_TEXT} are allowed")
    return scaling, ctx


def _mscale(factor: float, mscale: float) -> float:
    return 1.0 if factor <= 1 else (yarn_attention_factor(factor) - 1.0) * mscale + 1.0


def read_rope_config(path: str) -> RopeModel:
    """Read a config.json (or a directory holding one) into the model's RoPE settings."""
    file, top = read_json_config(path)
    fields, prefix = _text_fields(top)
    heads = _number(file, fields, "num_attention_heads", prefix=prefix, integer=True)
    if fields.get("head_dim") is not None:
        head_dim = _number(file, fields, "head_dim", prefix=prefix, integer=True)
    else:
        hidden = _number(file, fields, "hidden_size", prefix=prefix, integer=True)
        if hidden % heads:
            raise _fail(file, f"{prefix}hidden_size", f"{hidden} is not a multiple of num_attention_heads {heads}")
        head_dim = hidden // heads
    partial_name = "partial_rotary_factor"
    if "rotary_pct" in fields and partial_name not in fields:  # GPT-NeoX's name
        partial_name = "rotary_pct"
    partial = _number(file, fields, partial_name, prefix=prefix, default=1.0)
    if partial > 1:
        raise _fail(file, prefix + partial_name, f"must be in (0, 1], got {partial!r}")
    rotary_dim = int(head_dim * partial)
    if rotary_dim < 2 or rotary_dim % 2:
        if partial_name not in fields:  # the head size itself is odd: name the field that set it
            source = "head_dim" if fields.get("head_dim") is not None else "hidden_size / num_attention_heads"
            raise _fail(file, prefix + source, f"is {head_dim}: RoPE rotates feature pairs, so the head size "
                                               "must be even, at least 2")
        raise _fail(file, prefix + partial_name, f"gives {rotary_dim} rotary features of {head_dim}: need an even "
                                                 "number, at least 2")
    parameters = fields.get("rope_parameters") if isinstance(fields.get("rope_parameters"), dict) else {}
    theta_name = next((name for name in ("rope_theta", "rotary_emb_base") if name in fields), "rope_theta")
    base = _number(file, {**fields, **parameters}, theta_name, prefix=prefix, default=10000.0)
    if base <= 1:
        raise _fail(file, prefix + theta_name, f"must be above 1, got {base!r}")
    max_ctx = _number(file, fields, "max_position_embeddings", prefix=prefix, integer=True)
    scaling, ctx = _scaling(file, fields, prefix, max_ctx)
    vocab = fields.get("vocab_size", top.get("vocab_size"))
    vocab = vocab if isinstance(vocab, int) and not isinstance(vocab, bool) and vocab > 0 else None
    if vocab is not None and vocab > MAX_COUNT:
        raise _fail(file, "vocab_size", f"must be at most {MAX_COUNT_TEXT}, got {vocab!r}")
    model_type = top.get("model_type") if isinstance(top.get("model_type"), str) else None
    return RopeModel(path=file, model_type=model_type, heads=heads, head_dim=head_dim, rotary_dim=rotary_dim,
                     base=base, ctx=ctx, vocab=vocab, scaling=scaling)
