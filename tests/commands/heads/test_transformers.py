"""`posemb heads` against transformers' own modules, family by family, on tiny random models saved by save_pretrained.

The oracle (``tests/heads_oracle``) runs each layer's own norms, projections, rotary embedding and
``apply_rotary_pos_emb`` on the basis vectors of the input: its sum of q(e_i at m) . k(e_i at m + d)
is the kernel, and the columns of its queries and keys at position 0 give the pair shares (a NumPy
loop over the pairs of the family's layout, written in the oracle). Every parameter is drawn at random
(norm gains too, so that ``w`` and ``1 + w`` differ) before the model is saved.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.heads_oracle import oracle_kernel, oracle_pair_share, prepare

transformers = pytest.importorskip("transformers")
runner = CliRunner()
DISTANCES = [0, 1, 2, 5, 17, 40, 63]
SMALL = {"vocab_size": 50, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 32, "max_position_embeddings": 64}
RTOL = 1e-4  # of the largest score: the modules hold their norms in float32


def _gemma3(t):
    return t.Gemma3TextConfig(**{**SMALL, "num_hidden_layers": 3}, num_key_value_heads=2, head_dim=16,
                              sliding_window=8, layer_types=["sliding_attention", "sliding_attention",
                                                             "full_attention"],
                              rope_parameters={"sliding_attention": {"rope_type": "default", "rope_theta": 10_000.0},
                                               "full_attention": {"rope_type": "linear", "factor": 2.0,
                                                                  "rope_theta": 1_000_000.0}})


# family -> (config from the transformers module, model class, the modeling code's pair layout, rotary features)
FAMILIES = {
    "llama_gqa": (lambda t: t.LlamaConfig(**SMALL, num_key_value_heads=2), "LlamaForCausalLM", "half", 16),
    "llama_yarn": (lambda t: t.LlamaConfig(**SMALL, num_key_value_heads=1, rope_parameters={
        "rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 16, "rope_theta": 10_000.0}),
        "LlamaForCausalLM", "half", 16),
    "gemma3": (_gemma3, "Gemma3ForCausalLM", "half", 16),
    "qwen2_biases": (lambda t: t.Qwen2Config(**SMALL, num_key_value_heads=2), "Qwen2ForCausalLM", "half", 16),
    "qwen3": (lambda t: t.Qwen3Config(**SMALL, num_key_value_heads=2, head_dim=16), "Qwen3ForCausalLM", "half", 16),
    "olmo2": (lambda t: t.Olmo2Config(**SMALL, num_key_value_heads=4), "Olmo2ForCausalLM", "half", 16),
    "mistral": (lambda t: t.MistralConfig(**SMALL, num_key_value_heads=2, sliding_window=None),
                "MistralForCausalLM", "half", 16),
    "phi3_fused": (lambda t: t.Phi3Config(**SMALL, num_key_value_heads=2, pad_token_id=0,
                                          partial_rotary_factor=0.5), "Phi3ForCausalLM", "half", 8),
    "phi_layernorm": (lambda t: t.PhiConfig(**SMALL, partial_rotary_factor=0.5, qk_layernorm=True),
                      "PhiForCausalLM", "half", 8),
    "gpt_neox_fused": (lambda t: t.GPTNeoXConfig(**SMALL, rotary_pct=0.5), "GPTNeoXForCausalLM", "half", 8),
    "cohere_interleaved": (lambda t: t.CohereConfig(**SMALL, num_key_value_heads=2, use_qk_norm=True),
                           "CohereForCausalLM", "interleaved", 16),
    "starcoder2": (lambda t: t.Starcoder2Config(**SMALL, num_key_value_heads=2, use_bias=True),
                   "Starcoder2ForCausalLM", "half", 16),
    "nemotron": (lambda t: t.NemotronConfig(**SMALL, num_key_value_heads=2, partial_rotary_factor=0.5),
                 "NemotronForCausalLM", "half", 8),
    "smollm3_nope": (lambda t: t.SmolLM3Config(**{**SMALL, "num_hidden_layers": 4}, num_key_value_heads=2,
                                               pad_token_id=0), "SmolLM3ForCausalLM", "half", 16),
    "glm4_interleaved": (lambda t: t.Glm4Config(**SMALL, num_key_value_heads=2, head_dim=16, pad_token_id=0),
                         "Glm4ForCausalLM", "interleaved", 8),
}


def saved_model(name: str, folder):
    """The family's tiny model, every parameter drawn at random, saved into ``folder``; the model itself."""
    make, cls, _layout, _rotary = FAMILIES[name]
    torch.manual_seed(sum(map(ord, name)))
    model = getattr(transformers, cls)(make(transformers))
    for parameter in model.parameters():
        parameter.data.normal_(0.0, 0.3)
    model.save_pretrained(folder)
    return model


def heads_json(path: str, *extra: str) -> dict:
    result = runner.invoke(app, ["heads", "--checkpoint", path, "--json",
                                 "--distances", ",".join(map(str, DISTANCES)), *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def layer_distances(config, index: int) -> list[int]:
    """DISTANCES within the layer's window, as transformers' config gives it (a sliding layer attends no farther)."""
    text = getattr(config, "get_text_config", lambda: config)()
    types = getattr(text, "layer_types", None)
    window = getattr(text, "sliding_window", None)
    if types is not None and types[index] == "sliding_attention" and window:
        return [d for d in DISTANCES if d < window]
    return DISTANCES


@pytest.mark.parametrize("name", FAMILIES)
def test_kernel_and_pair_shares_equal_the_models_own_modules(tmp_path, name):
    model = saved_model(name, tmp_path / name)
    doc = heads_json(str(tmp_path / name))
    prepare(model)
    _make, _cls, layout, rotary = FAMILIES[name]
    assert doc["rotary_pairs"] == rotary // 2
    rotates = getattr(model.config, "no_rope_layers", None) or [1] * model.config.num_hidden_layers
    assert [layer["rope"] for layer in doc["layers"]] == [bool(flag) for flag in rotates]
    for layer in doc["layers"]:
        index = layer["layer"]
        if not layer["rope"]:  # a layer without RoPE reports no pairs
            assert layer["heads"] == [] and layer["rope_set"] is None and layer["critical_pair"] is None
            continue
        distances = layer_distances(model.config, index)
        assert [point["distance"] for point in layer["heads"][0]["kernel"]] == distances
        kernel = oracle_kernel(model, index, distances)
        mine = np.array([[point["score"] for point in head["kernel"]] for head in layer["heads"]])
        np.testing.assert_allclose(mine, kernel, atol=RTOL * np.abs(kernel).max(), rtol=0)
        shares = np.array([head["pair_share"] for head in layer["heads"]])
        np.testing.assert_allclose(shares, oracle_pair_share(model, index, layout, rotary), rtol=1e-5, atol=1e-7)
        assert [head["kv_head"] for head in layer["heads"]] == [
            h // (model.config.num_attention_heads // getattr(model.config, "num_key_value_heads", None)
                  if getattr(model.config, "num_key_value_heads", None) else 1)
            for h in range(model.config.num_attention_heads)]
