"""inspect --config: realistic config.json files give the frequencies of the published formulas.

The oracle is tests/position_oracles.py, written from the papers (Position
Interpolation, YaRN, Llama 3.1) in plain loops; it shares no code with posemb_cli.
"""

import json
import math

import numpy as np
import pytest
import torch
from posemb_cli.api import read_rope_config
from posemb_cli.cli.app import app
from posemb_cli.core.schemes import build_scheme
from posemb_cli.run.config import PosembError, make_config
from posemb_cli.run.models.real_models import rope_model_shape, rope_settings
from typer.testing import CliRunner

from tests.position_oracles import llama3_inv_freq, plain_inv_freq, yarn_inv_freq

runner = CliRunner()

LLAMA2_7B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
             "intermediate_size": 11008, "num_attention_heads": 32, "num_hidden_layers": 32,
             "num_key_value_heads": 32, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05,
             "rope_scaling": None, "rope_theta": 10000.0, "vocab_size": 32000, "torch_dtype": "float16"}
LONGCHAT_LINEAR = {**LLAMA2_7B, "max_position_embeddings": 16384, "rope_scaling": {"type": "linear", "factor": 8.0}}
QWEN25_7B_YARN = {"architectures": ["Qwen2ForCausalLM"], "model_type": "qwen2", "hidden_size": 3584,
                  "num_attention_heads": 28, "num_key_value_heads": 4, "max_position_embeddings": 32768,
                  "rope_theta": 1000000.0, "vocab_size": 152064, "sliding_window": 131072,
                  "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"}}
LLAMA31_8B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,
              "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072,
              "rope_theta": 500000.0, "vocab_size": 128256,
              "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                               "original_max_position_embeddings": 8192, "rope_type": "llama3"}}
PHI2_PARTIAL = {"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "partial_rotary_factor": 0.4,
                "max_position_embeddings": 2048, "rope_theta": 10000.0, "rope_scaling": None, "vocab_size": 51200}
GEMMA_HEAD_DIM = {"model_type": "gemma", "hidden_size": 3072, "num_attention_heads": 16, "head_dim": 256,
                  "max_position_embeddings": 8192, "rope_theta": 10000.0, "vocab_size": 256000}


# ---- the oracle of tests/position_oracles.py, as arrays ----

def plain(d, theta):
    return np.array(plain_inv_freq(d, theta))


def yarn(d, theta, s, original, beta_fast=32.0, beta_slow=1.0):
    """YaRN frequencies and its attention factor 0.1 ln(s) + 1."""
    return np.array(yarn_inv_freq(d, theta, s, original, beta_fast, beta_slow)), 0.1 * math.log(s) + 1


def llama3(d, theta, s, original, low_factor, high_factor):
    return np.array(llama3_inv_freq(d, theta, s, original, low_factor, high_factor))


def write(tmp_path, fields, name="config.json"):
    path = tmp_path / name
    path.write_text(json.dumps(fields))
    return str(path)


def bands_of(path):
    """The bands exactly as inspect --config builds its rope scheme."""
    model = read_rope_config(path)
    config = rope_settings(make_config(**rope_model_shape(model, 32000), device="cpu"), model)
    scheme = build_scheme("rope", config, device=torch.device("cpu"), dtype=torch.float32)
    bands = scheme.bands()
    used = np.array([b.inv_freq for b in bands])
    unscaled = np.array([b.inv_freq if b.inv_freq_unscaled is None else b.inv_freq_unscaled for b in bands])
    return model, used, unscaled, scheme.attention_factor


@pytest.mark.parametrize("fields, expected_kind, expected_ctx, oracle", [
    (LLAMA2_7B, "none", 4096, lambda: plain(128, 1e4)),
    (LONGCHAT_LINEAR, "linear", 16384, lambda: plain(128, 1e4) / 8),
    (QWEN25_7B_YARN, "yarn", 131072, lambda: yarn(128, 1e6, 4.0, 32768)[0]),
    (LLAMA31_8B, "llama3", 131072, lambda: llama3(128, 5e5, 8.0, 8192, 1.0, 4.0)),
    (PHI2_PARTIAL, "none", 2048, lambda: plain(32, 1e4)),
    (GEMMA_HEAD_DIM, "none", 8192, lambda: plain(256, 1e4)),
])
def test_realistic_configs_give_the_published_frequencies(tmp_path, fields, expected_kind, expected_ctx, oracle):
    model, used, unscaled, _ = bands_of(write(tmp_path, fields))
    assert (model.scaling.kind, model.ctx) == (expected_kind, expected_ctx)
    np.testing.assert_allclose(used, oracle(), rtol=1e-12)
    np.testing.assert_allclose(unscaled, plain(model.rotary_dim, model.base), rtol=1e-12)


def test_llama31_bands_split_in_three(tmp_path):
    _, used, unscaled, _ = bands_of(write(tmp_path, LLAMA31_8B))  # the code's bands, not the oracle's
    ratio = unscaled / used
    assert ratio[0] == 1.0 and ratio[-1] == pytest.approx(8.0)  # fast pairs kept, slow ones divided by 8
    wavelength = 2 * math.pi / unscaled
    between = (wavelength > 8192 / 4) & (wavelength < 8192 / 1)
    assert between.any() and np.all((ratio[between] > 1) & (ratio[between] < 8))  # and smoothed between
    np.testing.assert_array_equal(ratio[wavelength < 8192 / 4], 1.0)
    np.testing.assert_allclose(ratio[wavelength > 8192], 8.0, rtol=1e-12)


def test_yarn_attention_factor_and_explicit_one(tmp_path):
    assert bands_of(write(tmp_path, QWEN25_7B_YARN))[3] == pytest.approx(0.1 * math.log(4.0) + 1)
    fields = {**QWEN25_7B_YARN, "rope_scaling": {**QWEN25_7B_YARN["rope_scaling"], "attention_factor": 1.0}}
    assert bands_of(write(tmp_path, fields))[3] == 1.0


def test_directory_rope_parameters_and_text_config(tmp_path):
    write(tmp_path, {"model_type": "llava", "text_config": LLAMA31_8B})
    model = read_rope_config(str(tmp_path))
    assert (model.scaling.kind, model.base, model.ctx) == ("llama3", 5e5, 131072)
    v5 = {k: v for k, v in LLAMA2_7B.items() if k not in ("rope_theta", "rope_scaling")}
    v5["rope_parameters"] = {"rope_type": "linear", "factor": 2.0, "rope_theta": 250000.0}
    model = read_rope_config(write(tmp_path, v5, "v5.json"))
    assert (model.scaling.kind, model.scaling.factor, model.base) == ("linear", 2.0, 250000.0)


@pytest.mark.parametrize("change, needle", [
    ({"rope_scaling": {"rope_type": "longrope", "factor": 4.0}}, "rope_scaling.short_factor is missing"),
    ({"rope_scaling": {"rope_type": "axial"}}, "rope_scaling.rope_type 'axial' is not supported"),
    ({"rope_scaling": {"type": "linear"}}, "rope_scaling.factor is missing"),
    ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                       "original_max_position_embeddings": "8k"}},
     "rope_scaling.original_max_position_embeddings must be a number"),
    ({"rope_scaling": {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192}},
     "rope_scaling.low_freq_factor is missing"),
    ({"num_attention_heads": None}, "num_attention_heads is missing"),
    ({"max_position_embeddings": "long"}, "max_position_embeddings must be a number"),
    ({"hidden_size": 4100}, "hidden_size 4100 is not a multiple of num_attention_heads 32"),
    ({"rope_theta": 1.0}, "rope_theta must be above 1"),
    ({"partial_rotary_factor": 0.01}, "partial_rotary_factor gives 1 rotary features"),
])
def test_bad_configs_exit_2_naming_the_field(tmp_path, change, needle):
    path = write(tmp_path, {**LLAMA2_7B, **change})
    with pytest.raises(PosembError, match="--config"):
        read_rope_config(path)
    result = runner.invoke(app, ["inspect", "--config", path, "--json"])
    assert result.exit_code == 2
    assert needle in result.stderr and result.stderr.count("\n") == 1
    assert result.stdout == "" and "Traceback" not in result.output


SMALL_YARN = {"model_type": "qwen2", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 64,
              "rope_theta": 10000.0, "vocab_size": 100,
              "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}}


def test_cli_json_for_a_config(tmp_path):
    result = runner.invoke(app, ["inspect", "--config", write(tmp_path, SMALL_YARN), "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["scheme"] == "rope" and doc["config"]["ctx"] == 256 and doc["config"]["dim"] == 16
    assert doc["source"]["config"].endswith("config.json") and doc["source"]["rope_type"] == "yarn"
    used, factor = yarn(16, 1e4, 4.0, 64)
    np.testing.assert_allclose([b["inv_freq"] for b in doc["bands"]], used, rtol=1e-12)
    np.testing.assert_allclose([b["inv_freq_unscaled"] for b in doc["bands"]], plain(16, 1e4), rtol=1e-12)
    assert doc["attention_factor"] == pytest.approx(factor)
    assert set(doc["scorecard"]) == {"uniqueness", "boundedness", "relative", "extrapolation", "determinism"}
    assert doc["long_term_decay"][0]["distance"] == 1
    shown = runner.invoke(app, ["inspect", "--config", str(tmp_path), "--device", "cpu"], terminal_width=100)
    assert shown.exit_code == 0, shown.output
    assert "Similarity heatmap, rope" in shown.stdout and "RoFormer bound" in shown.stdout


def test_config_flag_conflicts(tmp_path):
    result = runner.invoke(app, ["inspect", "--config", str(tmp_path), "--checkpoint", "x.safetensors"])
    assert result.exit_code == 2 and "cannot be combined" in result.stderr
    result = runner.invoke(app, ["inspect", "--config", str(tmp_path)])
    assert result.exit_code == 2 and "no config.json in the directory" in result.stderr
