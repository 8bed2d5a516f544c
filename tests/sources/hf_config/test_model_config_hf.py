"""inspect --config against transformers' own rotary code: every layout of the RoPE fields.

Each config is written by transformers' own config class (``save_pretrained``),
read back by ``posemb inspect --config DIR --json``, and compared with the
family's rotary embedding module built from the same config object.
"""

import pytest

pytest.importorskip("transformers")

from transformers import (
    DeepseekV3Config,
    Gemma3Config,
    Gemma3TextConfig,
    Glm4Config,
    GPTNeoXConfig,
    LlamaConfig,
    PhiConfig,
    Qwen2Config,
    SmolLM3Config,
    StableLmConfig,
)

from tests.hf_rope import assert_matches, posemb_doc, rotary_reference, saved

SMALL = {"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 64,
         "vocab_size": 100,
             "max_position_embeddings": 64}

PARTIAL = [  # (config, module, rotary class, rotary features of the head)
    (PhiConfig(**SMALL, partial_rotary_factor=0.5), "phi.modeling_phi", "PhiRotaryEmbedding", 8),
    (GPTNeoXConfig(**SMALL, rotary_pct=0.25), "gpt_neox.modeling_gpt_neox", "GPTNeoXRotaryEmbedding", 4),
    (StableLmConfig(**SMALL, partial_rotary_factor=0.25), "stablelm.modeling_stablelm", "StableLmRotaryEmbedding", 4),
    (Glm4Config(**SMALL, head_dim=32, partial_rotary_factor=0.5), "glm4.modeling_glm4", "Glm4RotaryEmbedding", 16),
    (Qwen2Config(**SMALL), "qwen2.modeling_qwen2", "Qwen2RotaryEmbedding", 16),
]


@pytest.mark.parametrize("config, module, cls, rotary", PARTIAL, ids=lambda v: getattr(v, "model_type", None))
def test_partial_rotary_rotates_only_its_features(tmp_path, config, module, cls, rotary):
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, rotary_reference(module, cls, config))
    head = doc["source"]["head_dim"]
    assert (doc["source"]["rotary_dim"], doc["source"]["not_rotated_features"]) == (rotary, head - rotary)
    assert len(doc["bands"]) == rotary // 2 and doc["config"]["dim"] == rotary  # the analysis uses the rotated width
    assert doc["shapes"]["position"] == [doc["config"]["seq_len"], rotary]


def test_partial_rotary_in_the_old_layout_too(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4, "rotary_pct": 0.25, '
                    '"rotary_emb_base": 20000, "max_position_embeddings": 64, "vocab_size": 100}')
    config = GPTNeoXConfig.from_pretrained(str(tmp_path))  # transformers reads the same file
    doc = posemb_doc(str(path))
    assert_matches(doc, rotary_reference("gpt_neox.modeling_gpt_neox", "GPTNeoXRotaryEmbedding", config))
    assert doc["source"]["rope_theta"] == 20000.0


def test_deepseek_v3_rotates_qk_rope_head_dim(tmp_path):
    config = DeepseekV3Config(hidden_size=112, num_attention_heads=2, qk_rope_head_dim=16, qk_nope_head_dim=32,
                              v_head_dim=32, num_hidden_layers=2, intermediate_size=64, moe_intermediate_size=32,
                              vocab_size=100, max_position_embeddings=64, kv_lora_rank=16, q_lora_rank=16)
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, rotary_reference("deepseek_v3.modeling_deepseek_v3", "DeepseekV3RotaryEmbedding", config))
    assert doc["source"]["rotary_dim"] == 16 and doc["source"]["layout"] == "interleaved"
    assert len(doc["bands"]) == 16 // 2  # qk_rope_head_dim's pairs; hidden / heads (56) would give 28


GEMMA3 = {"hidden_size": 64, "num_attention_heads": 4, "head_dim": 16, "num_hidden_layers": 6, "intermediate_size": 64,
              "vocab_size": 100, "max_position_embeddings": 128,
              "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
                               "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}}


@pytest.mark.parametrize("nested", [False, True], ids=["text", "multimodal"])
def test_gemma3_gives_one_result_per_layer_type(tmp_path, nested):
    text = Gemma3TextConfig(**GEMMA3)
    doc = posemb_doc(saved(tmp_path, Gemma3Config(text_config=text.to_dict()) if nested else text))
    listed = doc["layer_types"]
    assert [entry["layer_type"] for entry in listed] == ["full_attention", "sliding_attention"]
    for entry in listed:
        assert_matches(entry, rotary_reference("gemma3.modeling_gemma3", "Gemma3RotaryEmbedding", text,
                                               entry["layer_type"]))
    assert doc["bands"] == listed[0]["bands"] and doc["source"]["layer_type"] == "full_attention"
    assert listed[1]["source"]["rope_theta"] == 1e4 and doc["source"]["layer_type_counts"] == {
        "sliding_attention": 5, "full_attention": 1}


def test_layers_without_rope_are_reported(tmp_path):
    config = SmolLM3Config(**SMALL, no_rope_layer_interval=2, rope_theta=2e6)
    config.no_rope_layers = [1, 0]
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, rotary_reference("smollm3.modeling_smollm3", "SmolLM3RotaryEmbedding", config))
    assert doc["source"]["layers_without_rope"] == [1] and doc["source"]["layers_with_rope"] == 1


def test_qwen2_vl_mrope_section_is_reported(tmp_path):
    from transformers import Qwen2VLTextConfig

    config = Qwen2VLTextConfig(**SMALL, rope_parameters={"rope_type": "default", "rope_theta": 1e6,
                                                          "mrope_section": [2, 3, 3]})
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, rotary_reference("qwen2_vl.modeling_qwen2_vl", "Qwen2VLRotaryEmbedding", config))
    assert doc["source"]["mrope_section"] == [2, 3, 3]


def test_llama_default_matches(tmp_path):
    config = LlamaConfig(**SMALL, rope_theta=5e5)
    doc = posemb_doc(saved(tmp_path, config))
    assert_matches(doc, rotary_reference("llama.modeling_llama", "LlamaRotaryEmbedding", config))
    assert doc["source"]["not_rotated_features"] == 0 and "layer_types" not in doc
