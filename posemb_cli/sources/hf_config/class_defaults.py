"""transformers' config-class defaults for the fields posemb reads, per model family (plain data).

A published config.json keeps only what its writer chose to write: Gemma 3 4B-it's
``text_config`` holds six fields and leaves heads, head size, context and bases to
``Gemma3TextConfig``'s defaults. transformers fills every absent field from its config
class; posemb does the same from this table, and names each value it took (a field
written as ``null`` is not absent: it stays null, as transformers keeps it).

Only fields posemb reads are listed, each with the default its class declares (before
the class's ``__post_init__``, whose rules ``layer_rules`` applies). ``rope_theta`` is
the class's ``default_theta``: the base of a file that states none (per layer type for
Gemma 3). tests/sources/hf_config/test_class_defaults.py holds every entry equal to transformers'
own classes, so the table cannot drift from them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from posemb_cli.sources.model.fields import Fields

__all__ = ["CLASS_DEFAULTS", "ClassDefaults", "class_defaults", "with_class_defaults"]

_SHAPE = ("hidden_size", "num_attention_heads", "num_key_value_heads", "head_dim", "num_hidden_layers",
          "max_position_embeddings", "vocab_size")


@dataclass(frozen=True)
class ClassDefaults:
    """One transformers config class: its name, the defaults of the fields posemb reads, and its default base.

    Attributes:
        name: the class, e.g. ``Gemma3TextConfig``.
        fields: field -> default, for the fields posemb reads whose default is not None.
        rope_theta: ``default_theta``: one base, or one per layer type.
    """

    name: str
    fields: dict[str, object] = field(default_factory=dict)
    rope_theta: float | dict[str, float] = 10000.0


def _shape(*values: int | None) -> dict[str, object]:
    """hidden_size, num_attention_heads, num_key_value_heads, head_dim, num_hidden_layers, max_position_embeddings
    and vocab_size in that order; None where the class derives the field instead of defaulting it."""
    return {name: value for name, value in zip(_SHAPE, values, strict=True) if value is not None}


_QWEN_WINDOW = {"use_sliding_window": False, "sliding_window": 4096, "max_window_layers": 28}

CLASS_DEFAULTS: dict[str, ClassDefaults] = {
    "llama": ClassDefaults("LlamaConfig", _shape(4096, 32, None, None, 32, 2048, 32000)),
    "mistral": ClassDefaults("MistralConfig", {**_shape(4096, 32, 8, None, 32, 131072, 32000), "sliding_window": 4096}),
    "mixtral": ClassDefaults("MixtralConfig", _shape(4096, 32, 8, None, 32, 131072, 32000), 1_000_000.0),
    "qwen2": ClassDefaults("Qwen2Config", {**_shape(4096, 32, 32, None, 32, 32768, 151936), **_QWEN_WINDOW}),
    "qwen3": ClassDefaults("Qwen3Config", {**_shape(4096, 32, 32, 128, 32, 32768, 151936), **_QWEN_WINDOW}),
    "qwen2_moe": ClassDefaults("Qwen2MoeConfig", {**_shape(2048, 16, 16, None, 24, 32768, 151936), **_QWEN_WINDOW}),
    "qwen2_vl_text": ClassDefaults("Qwen2VLTextConfig", {**_shape(8192, 64, 8, None, 80, 32768, 152064),
                                                         **_QWEN_WINDOW, "max_window_layers": 80}, 1_000_000.0),
    "qwen2_5_vl_text": ClassDefaults("Qwen2_5_VLTextConfig", {**_shape(8192, 64, 8, None, 80, 32768, 152064),
                                                             **_QWEN_WINDOW, "max_window_layers": 80}, 1_000_000.0),
    "qwen3_moe": ClassDefaults("Qwen3MoeConfig", {**_shape(2048, 32, 4, None, 24, 32768, 151936),
                                                  "use_sliding_window": False, "sliding_window": 4096}),
    "phi3": ClassDefaults("Phi3Config", {**_shape(3072, 32, None, None, 32, 4096, 32064),
                                         "original_max_position_embeddings": 4096}),
    "phimoe": ClassDefaults("PhimoeConfig", _shape(4096, 32, 8, None, 32, 131072, 32064), 1_000_000.0),
    "starcoder2": ClassDefaults("Starcoder2Config", _shape(3072, 24, 2, None, 30, 4096, 49152)),
    "deepseek_v3": ClassDefaults("DeepseekV3Config", {**_shape(7168, 128, 128, None, 61, 4096, 129280),
                                                      "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
                                                      "rope_interleave": True}),
    "gemma2": ClassDefaults("Gemma2Config", {**_shape(2304, 8, 4, 256, 26, 8192, 256000), "sliding_window": 4096}),
    "gemma3_text": ClassDefaults("Gemma3TextConfig", {**_shape(2304, 8, 4, 256, 26, 131072, 262208),
                                                      "sliding_window": 4096},
                                 {"full_attention": 1_000_000.0, "sliding_attention": 10_000.0}),
    "cohere2": ClassDefaults("Cohere2Config", {**_shape(8192, 64, None, None, 40, 8192, 256000),
                                               "sliding_window": 4096}),
    "gpt_oss": ClassDefaults("GptOssConfig", {**_shape(2880, 64, 8, 64, 36, 131072, 201088), "sliding_window": 128},
                             150_000.0),
    "smollm3": ClassDefaults("SmolLM3Config", {**_shape(2048, 16, 4, None, 36, 32768, 128256),
                                               "use_sliding_window": False, "no_rope_layer_interval": 4},
                             2_000_000.0),
    "llama4_text": ClassDefaults("Llama4TextConfig", {**_shape(5120, 40, 8, 128, 48, 131072, 202048),
                                                      "attention_chunk_size": 8192, "no_rope_layer_interval": 4},
                                 500_000.0),
}
# A multimodal family whose text model is another class's: its text_config (or its text fields) read as that class.
_TEXT_CLASS = {"gemma3": "gemma3_text", "llama4": "llama4_text", "qwen2_vl": "qwen2_vl_text",
               "qwen2_5_vl": "qwen2_5_vl_text"}


def class_defaults(model_type: str | None) -> ClassDefaults | None:
    """The defaults of the config class transformers reads this family's text model with, or None if not listed."""
    family = (model_type or "").lower()
    return CLASS_DEFAULTS.get(_TEXT_CLASS.get(family, family))


def with_class_defaults(model: Fields, model_type: str | None) -> tuple[Fields, list[str]]:
    """``model`` with every field its class defaults and the file leaves out filled in, and one rule per field filled.

    Args:
        model: the text model's fields (the top level, or ``text_config``).
        model_type: the family: ``text_config``'s own ``model_type``, else the file's.
    """
    defaults = class_defaults(model_type)
    if defaults is None:
        return model, []
    absent = {name: value for name, value in defaults.fields.items() if name not in model.values}
    rules = [f"{model.prefix}{name} absent: transformers' {defaults.name} default {value}"
             for name, value in absent.items()]
    return (replace(model, values={**model.values, **absent}) if absent else model), rules
