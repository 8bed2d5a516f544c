"""Each layer's window read as transformers reads it, family by family, whatever the file says or leaves out.

Files with and without ``sliding_window``, ``use_sliding_window``, ``max_window_layers`` and
``layer_types`` are read by posemb (``read_model``) and by transformers
(``AutoConfig.from_pretrained`` of the same directory); the oracle is the loaded config's
``layer_types`` and ``sliding_window`` per layer (tests/sources/published_panel.windows).
"""

from __future__ import annotations

import itertools
import json

import pytest

transformers = pytest.importorskip("transformers")

from posemb_cli.sources.naming.read import read_model  # noqa: E402

from tests.sources.published_panel import windows  # noqa: E402

SHAPE = {"hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
         "num_hidden_layers": 6, "max_position_embeddings": 4096, "vocab_size": 100, "rope_theta": 10000.0}
QWEN = ("qwen2", "qwen3", "qwen2_moe", "qwen3_moe", "smollm3")
ABSENT = object()


def _switches():
    """Every combination of the window fields: absent, or a value (null where transformers takes one)."""
    for window, switch, first in itertools.product((ABSENT, None, 16), (ABSENT, False, True), (ABSENT, 0, 4)):
        yield {name: value for name, value in (("sliding_window", window), ("use_sliding_window", switch),
                                               ("max_window_layers", first)) if value is not ABSENT}


def _cases():
    for family in QWEN:
        for fields in _switches():
            yield family, fields
        if family != "qwen2_moe":  # Qwen2-MoE's class then sets sliding_window 0 on its sliding layers: no window
            yield family, {"use_sliding_window": False, "sliding_window": 16,
                           "layer_types": ["sliding_attention", "full_attention"] * 3}
        yield family, {"use_sliding_window": True, "sliding_window": 16,
                       "layer_types": ["sliding_attention", "full_attention"] * 3}
    for family in ("mistral", "mixtral", "phi3", "starcoder2", "llama", "gemma2", "gpt_oss", "cohere2",
                   "gemma3_text", "deepseek_v3"):
        yield family, {}
        yield family, {"sliding_window": 16}
        yield family, {"sliding_window": None}
    for family in ("gemma2", "gemma3_text", "cohere2", "gpt_oss"):
        yield family, {"sliding_window": 16, "sliding_window_pattern": 3}
        yield family, {"sliding_window": 16, "layer_types": ["full_attention"] * 5 + ["sliding_attention"]}
    yield "mistral", {"sliding_window": 16, "layer_types": ["full_attention", "sliding_attention"] * 3}
    yield "gemma3_text", {"sliding_window": 16, "use_bidirectional_attention": True}
    yield "gemma2", {"sliding_window": 16, "use_bidirectional_attention": True}


CASES = list(_cases())


def _shape(family: str) -> dict:
    if family == "deepseek_v3":
        return {**SHAPE, "qk_rope_head_dim": 16, "qk_nope_head_dim": 16, "v_head_dim": 16, "kv_lora_rank": 16,
                "q_lora_rank": 16, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_group": 1, "topk_group": 1}
    return SHAPE


@pytest.mark.parametrize("family, fields", CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CASES)])
def test_windows_equal_transformers_loaded_config(tmp_path, family, fields):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": family, **_shape(family), **fields}))
    config = transformers.AutoConfig.from_pretrained(str(tmp_path))
    reading = read_model(str(tmp_path))
    assert [layer.window for layer in reading.layers] == windows(config, family), reading.rules


def test_qwen25_published_switch_off_says_why(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "qwen2", **SHAPE, "sliding_window": 131072,
                                                      "use_sliding_window": False, "max_window_layers": 28}))
    reading = read_model(str(tmp_path))
    assert [layer.window for layer in reading.layers] == [None] * 6
    assert any("use_sliding_window not true" in rule for rule in reading.rules)
