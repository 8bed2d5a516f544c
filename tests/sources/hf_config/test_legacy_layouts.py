"""Legacy layouts of a rope block read as transformers 5.24 reads them, one layout at a time.

Small configs (fast to inspect) in each layout transformers still loads: ``type`` beside
``rope_type``, Qwen2-VL's ``mrope``, Phi-3's "su" and "yarn", a top-level
``original_max_position_embeddings``, ``rope_scaling: null``, DeepSeek's ``mscale`` pair,
the legacy layer type ``attention``. The oracle is transformers' loaded config and its
``ROPE_INIT_FUNCTIONS`` (tests/sources/published_panel.py).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("transformers")

from posemb_cli.cli.app import app  # noqa: E402
from posemb_cli.sources.naming.read import read_model  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tests.hf_rope import posemb_doc  # noqa: E402
from tests.sources.published_panel import reference, transformers_config  # noqa: E402

BASE = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 4, "num_hidden_layers": 2,
        "max_position_embeddings": 256, "vocab_size": 100, "rope_theta": 10000.0}
LONGROPE = {"short_factor": [1.0, 1.1, 1.2, 1.5, 2.0, 2.0, 2.5, 3.0],
            "long_factor": [1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0]}
LAYOUTS = {
    "type-and-rope_type": ("llama", {"rope_scaling": {"type": "linear", "rope_type": "yarn", "factor": 4.0,
                                                      "original_max_position_embeddings": 64}}),
    "type-only": ("llama", {"rope_scaling": {"type": "linear", "factor": 2.0}}),
    "rope_scaling-null": ("llama", {"rope_scaling": None}),
    "mrope-and-default": ("qwen2_vl_text", {"rope_scaling": {"type": "mrope", "rope_type": "default",
                                                             "mrope_section": [2, 3, 3]}}),
    "phi3-su-top-level-length": ("phi3", {"original_max_position_embeddings": 64,
                                          "rope_scaling": {"type": "su", **LONGROPE}}),
    "phi3-longrope-class-length": ("phi3", {"rope_scaling": {"type": "longrope", **LONGROPE},
                                            "max_position_embeddings": 16384}),
    "phi3-yarn-is-longrope": ("phi3", {"original_max_position_embeddings": 64,
                                       "rope_scaling": {"rope_type": "yarn", **LONGROPE}}),
    "llama3-top-level-length": ("llama", {"original_max_position_embeddings": 32, "rope_scaling": {
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 64}}),
    "yarn-mscale-pair": ("deepseek_v3", {"qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16,
                                         "kv_lora_rank": 16, "q_lora_rank": 16, "n_routed_experts": 4,
                                         "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1,
                                         "rope_scaling": {"type": "yarn", "factor": 4, "mscale": 0.707,
                                                          "mscale_all_dim": 1.0,
                                                          "original_max_position_embeddings": 64}}),
}


def _write(tmp_path, family: str, fields: dict) -> str:
    (tmp_path / "config.json").write_text(json.dumps({"model_type": family, **BASE, **fields}))
    return str(tmp_path)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_the_layout_gives_transformers_frequencies(tmp_path, layout):
    family, fields = LAYOUTS[layout]
    folder = _write(tmp_path, family, fields)
    doc = posemb_doc(folder)
    config, loaded_family = transformers_config(folder)
    module = {"qwen2_vl_text": "qwen2_vl"}.get(loaded_family, loaded_family)
    inv_freq, attention = reference(config, module, None, doc["source"].get("frequencies_for_seq_len"))
    np.testing.assert_allclose([band["inv_freq"] for band in doc["bands"]], inv_freq, rtol=1e-6)
    np.testing.assert_allclose(doc["attention_factor"], attention, rtol=1e-6)
    assert doc["source"]["rope_type"] == {"default": "none", "mrope": "none"}.get(
        config.rope_parameters["rope_type"], config.rope_parameters["rope_type"])


def test_the_reading_says_which_type_it_followed(tmp_path):
    reading = read_model(_write(tmp_path, *LAYOUTS["type-and-rope_type"]))
    assert "rope_scaling.type 'linear' ignored: transformers reads rope_type 'yarn' where both are given" in \
        reading.rules
    reading = read_model(_write(tmp_path, *LAYOUTS["phi3-su-top-level-length"]))
    assert "rope_scaling.type 'su': transformers' phi3 config reads it as 'longrope'" in reading.rules


def test_doctor_warns_of_a_type_transformers_ignores_and_not_of_mrope(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, ["doctor", "--config", _write(tmp_path, *LAYOUTS["type-and-rope_type"]), "--json"])
    found = {finding["id"]: finding for finding in json.loads(result.stdout)["findings"]}
    assert found["rope-type-conflict"]["severity"] == "warning"
    assert "rope_scaling.type 'linear' disagrees with rope_scaling.rope_type 'yarn'" in \
        found["rope-type-conflict"]["message"]
    result = runner.invoke(app, ["doctor", "--config", _write(tmp_path, *LAYOUTS["mrope-and-default"]), "--json"])
    assert "rope-type-conflict" not in {finding["id"] for finding in json.loads(result.stdout)["findings"]}


def test_the_legacy_layer_type_attention_is_full_attention(tmp_path):
    import transformers

    folder = _write(tmp_path, "gpt_oss", {"head_dim": 16, "sliding_window": 16,
                                          "layer_types": ["sliding_attention", "attention"]})
    reading = read_model(folder)
    assert [layer.attention for layer in reading.layers] == transformers.AutoConfig.from_pretrained(folder).layer_types
    assert [layer.window for layer in reading.layers] == [16, None]
