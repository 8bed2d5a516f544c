"""Every rope type transformers 5 knows, through ``inspect --config``, against ``ROPE_INIT_FUNCTIONS``.

Configs are written by transformers' config classes; the reference is
transformers' own ``ROPE_INIT_FUNCTIONS[rope_type](config, device)`` (or the
family's rotary module) on the same config object, to a relative 1e-5.
"""

import math

import numpy as np
import pytest

pytest.importorskip("transformers")

from transformers import (
    DeepseekV3Config,
    GptOssConfig,
    LlamaConfig,
    Phi3Config,
    Qwen2Config,
)

from tests.hf_rope import (
    assert_matches,
    band_values,
    init_reference,
    posemb_doc,
    rotary_reference,
    saved,
)
from tests.position_oracles import plain_inv_freq

SMALL = {"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 64,
         "vocab_size": 100}


def llama(max_ctx=64, **rope):
    return LlamaConfig(**SMALL, max_position_embeddings=max_ctx, rope_parameters={"rope_theta": 10000.0, **rope})


@pytest.mark.parametrize("config", [
    llama(rope_type="linear", factor=4.0),
    llama(rope_type="llama3", factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
          original_max_position_embeddings=16, rope_theta=5e5),
    Qwen2Config(**SMALL, max_position_embeddings=128, rope_parameters={
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32, "rope_theta": 1e6}),
    Qwen2Config(**SMALL, max_position_embeddings=128, rope_parameters={
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32, "attention_factor": 1.0,
        "beta_fast": 16.0, "beta_slow": 2.0}),
    GptOssConfig(**SMALL, head_dim=16, max_position_embeddings=256, num_local_experts=2, rope_parameters={
        "rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 32, "beta_fast": 32.0,
        "beta_slow": 1.0, "truncate": False, "rope_theta": 150000.0}),
], ids=["linear", "llama3", "yarn", "yarn-explicit", "yarn-untruncated"])
def test_scaled_types_match_transformers(tmp_path, config):
    rope_type = config.rope_parameters["rope_type"]
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, init_reference(config, rope_type))
    width = doc["source"]["rotary_dim"]  # the unscaled bands: the NumPy formula of tests/position_oracles.py
    np.testing.assert_allclose(band_values(doc, "inv_freq_unscaled"),
                               plain_inv_freq(width, config.rope_parameters["rope_theta"]), rtol=1e-12)


def test_yarn_truncate_changes_the_figures(tmp_path):
    base = {"rope_type": "yarn", "factor": 8.0, "original_max_position_embeddings": 32, "rope_theta": 150000.0}
    cut = posemb_doc(saved(tmp_path, llama(256, **base, truncate=True), "cut"))
    smooth = posemb_doc(saved(tmp_path, llama(256, **base, truncate=False), "smooth"))
    assert not np.allclose(band_values(cut), band_values(smooth), rtol=1e-3)
    assert smooth["source"]["truncate"] is False


def test_deepseek_yarn_mscale_attention_factor(tmp_path):
    config = DeepseekV3Config(hidden_size=112, num_attention_heads=2, qk_rope_head_dim=16, qk_nope_head_dim=32,
                              v_head_dim=32, num_hidden_layers=2, intermediate_size=64, moe_intermediate_size=32,
                              vocab_size=100, max_position_embeddings=256, kv_lora_rank=16, q_lora_rank=16,
                              rope_parameters={"rope_type": "yarn", "factor": 8.0,
                                               "original_max_position_embeddings": 32, "mscale": 0.707,
                                               "mscale_all_dim": 0.707, "beta_fast": 32, "beta_slow": 1,
                                               "rope_theta": 10000.0})
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, rotary_reference("deepseek_v3.modeling_deepseek_v3", "DeepseekV3RotaryEmbedding", config))
    assert doc["attention_factor"] == pytest.approx(1.0)  # equal mscales cancel


@pytest.mark.parametrize("original", [None, 32], ids=["plain", "with-original"])
def test_dynamic_frequencies_are_for_the_extended_length(tmp_path, original):
    rope = {"rope_type": "dynamic", "factor": 4.0}
    if original is not None:
        rope["original_max_position_embeddings"] = original
    config = llama(64, **rope)
    doc = posemb_doc(saved(tmp_path, config))
    assert doc["config"]["ctx"] == 256 and doc["source"]["frequencies_for_seq_len"] == 256
    assert_matches(doc, init_reference(config, "dynamic", seq_len=256))
    unscaled = init_reference(config, "dynamic")  # at max_position_embeddings: no stretch yet
    np.testing.assert_allclose(band_values(doc, "inv_freq_unscaled"), unscaled[0], rtol=1e-5)
    if original is not None:
        assert "original_max_position_embeddings" in next(iter(doc["source"]["ignored"]))


def phi3_longrope(max_ctx=256, original=32, **extra):
    pairs = 8
    return Phi3Config(**SMALL, max_position_embeddings=max_ctx, original_max_position_embeddings=original,
                      rope_parameters={"rope_type": "longrope", "rope_theta": 10000.0,
                                       "short_factor": [1.0 + 0.1 * i for i in range(pairs)],
                                       "long_factor": [1.0 + 0.7 * i for i in range(pairs)], **extra})


@pytest.mark.parametrize("extra", [{}, {"attention_factor": 1.3}], ids=["default-attention", "explicit"])
def test_longrope_carries_short_and_long(tmp_path, extra):
    config = phi3_longrope(**extra)
    doc = posemb_doc(saved(tmp_path, config))
    short, long = init_reference(config, "longrope"), init_reference(config, "longrope", seq_len=33)
    assert_matches(doc, short, "inv_freq_short")
    assert_matches(doc, long, "inv_freq_long")
    assert_matches(doc, long)  # ctx 256 > 32: the long factors are in use, as transformers switches
    assert doc["source"]["longrope_factors_in_use"] == "long" and doc["config"]["rope_scaling"] == "longrope"
    if not extra:
        assert doc["attention_factor"] == pytest.approx(math.sqrt(1 + math.log(256 / 32) / math.log(32)))


def test_longrope_within_the_original_length_uses_short(tmp_path):
    config = phi3_longrope(max_ctx=32, original=32)
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, init_reference(config, "longrope"))
    assert doc["source"]["longrope_factors_in_use"] == "short"


def test_proportional_rotates_a_share_with_the_whole_head_exponent(tmp_path):
    config = llama(64, rope_type="proportional", partial_rotary_factor=0.5, factor=2.0, rope_theta=1e6)
    doc = posemb_doc(saved(tmp_path, config))
    inv_freq, attention = init_reference(config, "proportional")
    rotated = int(np.count_nonzero(inv_freq))
    assert_matches(doc, (inv_freq[:rotated], attention))
    assert np.all(inv_freq[rotated:] == 0)
    assert doc["source"]["rotary_dim"] == 2 * rotated and doc["source"]["not_rotated_features"] == 16 - 2 * rotated
