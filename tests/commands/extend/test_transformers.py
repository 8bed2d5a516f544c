"""`posemb extend`'s candidates against transformers itself: each candidate's rope_parameters, put into the model's
own config class, must give through transformers' ``ROPE_INIT_FUNCTIONS`` (or the family's rotary module for a
default block) the frequencies and attention factor posemb classified; the published frequencies likewise on the
file's own config at the trained length.

Configs are written by the families' config classes (``save_pretrained``), shaped like real models: SmolLM2
(default, base 100,000, 64 rotary features), Llama 3.1 (llama3, factor 8, original 8,192, 131,072 positions),
Qwen2.5 with a yarn block added for inference, Gemma 3 (sliding default and a linear global set), Phi-3.5
(LongRoPE), a trained yarn with DeepSeek's mscale, and a dynamic block.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.hf_rope import init_reference, rotary_reference, saved

transformers = pytest.importorskip("transformers")
runner = CliRunner()
RTOL = 1e-5  # transformers computes in float32


def _phi3_factors(pairs: int, seed: int) -> list[float]:
    return [float(1 + v) for v in np.sort(np.random.default_rng(seed).uniform(0, 40, pairs))]


# name -> (config class, module, rotary class, fields, the target L)
CASES = {
    "smollm2": ("LlamaConfig", "llama.modeling_llama", "LlamaRotaryEmbedding",
                {"hidden_size": 64, "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 64,
                 "max_position_embeddings": 8192, "rope_theta": 100_000.0}, 32768),
    "llama31": ("LlamaConfig", "llama.modeling_llama", "LlamaRotaryEmbedding",
                {"hidden_size": 256, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 128,
                 "max_position_embeddings": 131072,
                 "rope_parameters": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                     "high_freq_factor": 4.0, "original_max_position_embeddings": 8192,
                                     "rope_theta": 500_000.0}}, 524288),
    "qwen25_yarn_added": ("Qwen2Config", "qwen2.modeling_qwen2", "Qwen2RotaryEmbedding",
                          {"hidden_size": 128, "num_attention_heads": 1, "num_key_value_heads": 1,
                           "max_position_embeddings": 32768,
                           "rope_parameters": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 1_000_000.0,
                                               "original_max_position_embeddings": 32768}}, 65536),
    "gemma3": ("Gemma3TextConfig", "gemma3.modeling_gemma3", "Gemma3RotaryEmbedding",
               {"hidden_size": 64, "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 64,
                "num_hidden_layers": 6, "sliding_window": 512, "max_position_embeddings": 131072,
                "layer_types": ["sliding_attention"] * 5 + ["full_attention"],
                "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                                    "full_attention": {"rope_type": "linear", "factor": 8.0,
                                                       "rope_theta": 1_000_000.0}}}, 262144),
    "phi35_longrope": ("Phi3Config", "phi3.modeling_phi3", "Phi3RotaryEmbedding",
                       {"hidden_size": 96, "num_attention_heads": 1, "num_key_value_heads": 1, "pad_token_id": 0,
                        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                        "rope_parameters": {"rope_type": "longrope", "rope_theta": 10_000.0,
                                            "short_factor": _phi3_factors(48, 0), "long_factor": _phi3_factors(48, 1),
                                            "original_max_position_embeddings": 4096}}, 262144),
    "yarn_mscale": ("LlamaConfig", "llama.modeling_llama", "LlamaRotaryEmbedding",
                    {"hidden_size": 64, "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 64,
                     "max_position_embeddings": 16384,
                     "rope_parameters": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096,
                                         "mscale": 0.8, "mscale_all_dim": 0.6, "beta_fast": 16.0, "beta_slow": 2.0,
                                         "rope_theta": 10_000.0}}, 65536),
    "dynamic": ("LlamaConfig", "llama.modeling_llama", "LlamaRotaryEmbedding",
                {"hidden_size": 64, "num_attention_heads": 1, "num_key_value_heads": 1, "head_dim": 32,
                 "max_position_embeddings": 4096,
                 "rope_parameters": {"rope_type": "dynamic", "factor": 2.0, "rope_theta": 10_000.0}}, 16384),
}


def _config(name: str, rope_parameters: dict | None = None):
    cls, _module, _rotary, fields, _target = CASES[name]
    fields = copy.deepcopy(fields)
    if rope_parameters is not None:
        fields["rope_parameters"] = copy.deepcopy(rope_parameters)
    return getattr(transformers, cls)(**fields)


def _reference(name: str, config, block: dict, layer_type: str | None, seq_len: int):
    _cls, module, rotary, _fields, _target = CASES[name]
    if block["rope_type"] == "default":
        return rotary_reference(module, rotary, config, layer_type)
    return init_reference(config, block["rope_type"], seq_len=seq_len, layer_type=layer_type)


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("extend_hf")
    out = {}
    for name in CASES:
        path = saved(folder, _config(name), name)
        result = runner.invoke(app, ["extend", path, "--to", str(CASES[name][4]), "--json"])
        assert result.exit_code == 0, result.output
        out[name] = json.loads(result.stdout)
    return out


@pytest.mark.parametrize("name", list(CASES))
def test_every_candidate_gives_transformers_frequencies_on_the_edited_config(documents, name):
    doc = documents[name]
    target = CASES[name][4]
    checked = 0
    for one in doc["sets"]:
        layer_type = None if one["name"] == "shared" else one["name"]
        for candidate in one["candidates"]:
            config = _config(name, candidate["rope_parameters"])
            block = config.rope_parameters if layer_type is None else config.rope_parameters[layer_type]
            inv_freq, attention = _reference(name, config, block, layer_type, target)
            ours = np.array([pair["inv_freq"] for pair in candidate["pairs"]])
            np.testing.assert_allclose(ours, inv_freq, rtol=RTOL, err_msg=f"{name} {candidate['scaling']}")
            assert candidate["attention_factor"] == pytest.approx(attention, rel=RTOL), candidate["scaling"]
            assert candidate["set_parameters"] == candidate["rope_parameters"].get(one["name"],
                                                                                   candidate["rope_parameters"])
            checked += 1
    assert checked == len(doc["scalings"]) * sum(one["needs_extension"] for one in doc["sets"])


@pytest.mark.parametrize("name", list(CASES))
def test_the_published_frequencies_are_transformers_at_the_trained_length(documents, name):
    doc = documents[name]
    for one in doc["sets"]:
        layer_type = None if one["name"] == "shared" else one["name"]
        published = one["published"]["rope_parameters"]
        config = _config(name, published if layer_type is None else
                         {**_config(name).rope_parameters, layer_type: published})
        block = config.rope_parameters if layer_type is None else config.rope_parameters[layer_type]
        inv_freq, attention = _reference(name, config, block, layer_type, one["trained_length"])
        pairs = one["candidates"][0]["pairs"] if one["candidates"] else None
        if pairs is not None:
            np.testing.assert_allclose([pair["inv_freq_trained"] for pair in pairs], inv_freq, rtol=RTOL)
        assert one["published"]["attention_factor"] == pytest.approx(attention, rel=RTOL)


def test_llama31_is_trained_at_131072_and_its_candidates_are_relative_to_8192(documents):
    doc = documents["llama31"]
    one, = doc["sets"]
    assert one["trained_length"] == 131072 and one["reference_length"] == 8192
    assert one["trained_from"].startswith("max_position_embeddings 131,072")
    factors = {c["scaling"]: c["factor"] for c in one["candidates"]}
    assert factors == {"none": None, "linear": 64.0, "ntk": 64.0, "dynamic": pytest.approx(21.0, rel=1e-12),
                       "yarn": 64.0, "llama3": 64.0}
    by = {c["scaling"]: c["rope_parameters"] for c in one["candidates"]}
    assert by["none"] == {"rope_type": "llama3", "rope_theta": 500_000.0, "factor": 8.0, "low_freq_factor": 1.0,
                          "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
    assert by["yarn"] == {"rope_type": "yarn", "factor": 64.0, "original_max_position_embeddings": 8192,
                          "rope_theta": 500_000.0}
    # dynamic: its stretch at L against max_position_embeddings equals L / R, NTK-aware's base at L
    dynamic = next(c for c in one["candidates"] if c["scaling"] == "dynamic")
    ntk = next(c for c in one["candidates"] if c["scaling"] == "ntk")
    np.testing.assert_allclose([p["inv_freq"] for p in dynamic["pairs"]], [p["inv_freq"] for p in ntk["pairs"]],
                               rtol=1e-12)


def test_a_yarn_block_added_for_inference_trains_at_its_original_length_unscaled(documents):
    one, = documents["qwen25_yarn_added"]["sets"]
    assert one["trained_length"] == 32768 and "cannot tell" in one["trained_from"]
    assert one["published"]["rope_parameters"]["rope_type"] == "default"
    none = next(c for c in one["candidates"] if c["scaling"] == "none")
    assert all(p["inv_freq"] == p["inv_freq_trained"] for p in none["pairs"])


def test_gemma3_keeps_its_sliding_set_and_extends_the_global_one(documents):
    doc = documents["gemma3"]
    by = {one["name"]: one for one in doc["sets"]}
    sliding, full = by["sliding_attention"], by["full_attention"]
    assert not sliding["needs_extension"]
    assert sliding["candidates"] == [] and sliding["attends_to"]["distance"] == 512
    assert full["needs_extension"] and full["reference_length"] == 16384  # 131,072 / linear factor 8
    for candidate in full["candidates"]:
        assert candidate["rope_parameters"]["sliding_attention"] == {"rope_type": "default", "rope_theta": 10_000.0}


def test_the_default_set_leaves_out_longrope_without_factors_and_takes_it_with_them(documents):
    assert documents["smollm2"]["left_out"][0]["scaling"] == "longrope"
    assert "longrope" in documents["phi35_longrope"]["scalings"]
