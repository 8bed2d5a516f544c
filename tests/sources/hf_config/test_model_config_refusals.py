"""inspect --config refuses what it does not model: exit 2, one line naming the field, nothing on stdout."""

import json

import pytest

from tests.hf_rope import posemb_doc, posemb_refusal

BASE = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 64,
        "vocab_size": 100}
LONGROPE = {"rope_type": "longrope", "original_max_position_embeddings": 32, "short_factor": [1.0] * 8,
            "long_factor": [2.0] * 8}


def write(tmp_path, **change):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**BASE, **change}))
    return str(path)


@pytest.mark.parametrize("change, needle", [
    ({"rope_parameters": {"rope_type": "ntk-by-parts", "factor": 2.0}},
     "rope_parameters.rope_type 'ntk-by-parts' is not supported"),
    ({"rope_scaling": {"type": "su", "short_factor": [1.0] * 8, "long_factor": [2.0] * 8}},
     "rope_scaling.type 'su' is not supported"),
    ({"rope_parameters": {**LONGROPE, "long_factor": [2.0] * 7}},
     "rope_parameters.long_factor has 7 entries; the rotary features make 8 pairs"),
    ({"rope_parameters": {**LONGROPE, "short_factor": [1.0, "x"] * 4}},
     "rope_parameters.short_factor must be a list of numbers above 0"),
    ({"rope_parameters": {"rope_type": "linear", "factor": 2.0, "low_freq_factor": 1.0}},
     "rope_parameters.low_freq_factor is not modelled for rope_type 'linear'"),
    ({"rope_parameters": {"rope_type": "yarn", "factor": 4.0, "finetuned": True}},
     "rope_parameters.finetuned is not modelled for rope_type 'yarn'"),
    ({"rope_parameters": {"rope_type": "yarn", "factor": 4.0, "truncate": "no"}},
     "rope_parameters.truncate must be true or false"),
    ({"rope_parameters": {"rope_type": "default", "mrope_section": [2, 3, 4]}},
     "rope_parameters.mrope_section must be whole numbers summing to the 8 rotary pairs"),
    ({"rope_parameters": {"rope_type": "linear", "factor": 2.0},
      "rope_scaling": {"rope_type": "linear", "factor": 4.0}},
     "rope_scaling and rope_parameters are both given and differ"),
    ({"partial_rotary_factor": 1.5}, "partial_rotary_factor must be in (0, 1]"),
    ({"rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.0625}},
     "rope_parameters.partial_rotary_factor gives 1 rotary features of 16"),
    ({"rotary_dim": 32}, "rotary_dim 32 exceeds the head size 16"),
    ({"rotary_dim": 8, "partial_rotary_factor": 0.25},
     "partial_rotary_factor 0.25 of head_dim 16 disagrees with rotary_dim 8"),
    ({"no_rope_layers": [1, 2]}, "no_rope_layers must be a list of 0 (no RoPE) and 1 (RoPE)"),
    ({"rope_parameters": {"full_attention": None}}, "rope_parameters gives no layer type a RoPE block"),
    ({"rope_parameters": {"rope_type": "yarn", "factor": 0.5}}, "rope_parameters.factor must be 1 or more"),
])
def test_unmodelled_or_bad_fields_exit_2_naming_them(tmp_path, change, needle):
    assert needle in posemb_refusal(write(tmp_path, **change))


def test_a_nested_text_config_is_named(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llava", "text_config": {**BASE, "rope_parameters": {
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 4.0, "high_freq_factor": 1.0}}}))
    assert "text_config.rope_parameters.high_freq_factor 1.0 must be above low_freq_factor 4.0" in posemb_refusal(
        str(path))


def test_a_layer_type_without_rope_is_reported_not_analysed(tmp_path):
    doc = posemb_doc(write(tmp_path, rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 1e4},
                                                      "sliding_attention": None}))
    assert doc["source"]["layer_types_without_rope"] == ["sliding_attention"]
    assert [entry["layer_type"] for entry in doc["layer_types"]] == ["full_attention"]


def test_a_partial_factor_in_text_config_is_named_once(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llava", "text_config": {**BASE, "partial_rotary_factor": 0.0625}}))
    message = posemb_refusal(str(path))
    assert ": text_config.partial_rotary_factor gives 1 rotary features of 16" in message
