"""`posemb doctor` over configs that transformers' own config classes write: no false finding.

Every tiny model of the test zoo, and the RoPE families with per-layer structure, saved
by ``save_pretrained``: no ``unknown-field`` (a key no loader reads), no
``rope-theta-missing``, no error, exit 0. A Gemma 3 config is checked per RoPE set: its
sliding layers' base bound is measured against their window, not the whole context.
"""

from __future__ import annotations

import json

import pytest

transformers = pytest.importorskip("transformers")

from posemb_cli.cli.app import app  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tests.model_zoo import FAMILIES, zoo_model  # noqa: E402

runner = CliRunner()
SMALL = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 64,
         "vocab_size": 100, "max_position_embeddings": 128}


def _rope_configs() -> dict:
    t = transformers
    return {
        "gemma3_text": lambda: t.Gemma3TextConfig(**SMALL, head_dim=16, num_hidden_layers=6),
        "gemma3": lambda: t.Gemma3Config(text_config=t.Gemma3TextConfig(**SMALL, head_dim=16,
                                                                        num_hidden_layers=6).to_dict()),
        "smollm3": lambda: t.SmolLM3Config(**SMALL, num_hidden_layers=8),
        "llama4_text": lambda: t.Llama4TextConfig(**SMALL, num_hidden_layers=4, head_dim=16),
        "cohere2": lambda: t.Cohere2Config(**SMALL, num_hidden_layers=4),
        "qwen2_vl": lambda: t.Qwen2VLTextConfig(**SMALL, num_hidden_layers=2, rope_parameters={
            "rope_type": "default", "rope_theta": 1e6, "mrope_section": [2, 3, 3]}),
        "llama": lambda: t.LlamaConfig(**SMALL, num_hidden_layers=2),
        "phi3": lambda: t.Phi3Config(**SMALL, num_hidden_layers=2),
        "deepseek_v3": lambda: t.DeepseekV3Config(hidden_size=64, num_attention_heads=2, qk_rope_head_dim=16,
                                                  qk_nope_head_dim=16, v_head_dim=16, num_hidden_layers=2,
                                                  vocab_size=100, max_position_embeddings=128, kv_lora_rank=16,
                                                  q_lora_rank=16),
        # gpt-oss's default yarn block stretches 4,096 positions 32-fold: keep its own context
        "gpt_oss": lambda: t.GptOssConfig(**{**SMALL, "max_position_embeddings": 131072}, num_hidden_layers=2,
                                          head_dim=16),
        "qwen2": lambda: t.Qwen2Config(**SMALL, num_hidden_layers=2),
        "mistral": lambda: t.MistralConfig(**SMALL, num_hidden_layers=2),
        "gpt_neox": lambda: t.GPTNeoXConfig(**SMALL, num_hidden_layers=2, rotary_pct=0.5),
        "glm4": lambda: t.Glm4Config(**SMALL, num_hidden_layers=2, head_dim=16),
    }


def _doctor(folder: str) -> tuple[int, dict]:
    result = runner.invoke(app, ["doctor", "--config", folder, "--json"])
    assert result.exit_code in (0, 3), result.output
    return result.exit_code, json.loads(result.stdout)


def _no_false_finding(folder: str) -> dict:
    code, doc = _doctor(folder)
    wrong = [f for f in doc["findings"] if f["id"] in ("unknown-field", "rope-theta-missing")
             or f["severity"] == "error"]
    assert wrong == [] and code == 0, wrong
    return doc


@pytest.mark.parametrize("family", FAMILIES)
def test_the_zoo_has_no_false_finding(family):
    _no_false_finding(zoo_model(family))


@pytest.mark.parametrize("family", tuple(_rope_configs()))
def test_rope_families_written_by_transformers_have_no_false_finding(tmp_path, family):
    _rope_configs()[family]().save_pretrained(tmp_path)
    _no_false_finding(str(tmp_path))


def test_gemma3_base_bound_runs_per_set_against_the_window(tmp_path):
    config = transformers.Gemma3TextConfig(hidden_size=1024, num_attention_heads=4, head_dim=256, num_hidden_layers=6,
                                           intermediate_size=64, vocab_size=100, max_position_embeddings=32768,
                                           sliding_window=512)
    config.save_pretrained(tmp_path)
    doc = _no_false_finding(str(tmp_path))
    bounds = [f["message"] for f in doc["findings"] if f["id"] == "rope-base-bound"]
    assert not any("sliding_attention" in message for message in bounds)  # base 10,000 covers a window of 512
    assert [g["layers"] for g in doc["source"]["layer_groups"]] == [[0, 1, 2, 3, 4], [5]]
