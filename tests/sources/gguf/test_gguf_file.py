"""GGUF files written with gguf.GGUFWriter: --config reads llama.cpp's RoPE metadata, --checkpoint its tables.

Oracles: the equivalent config.json through the same command, transformers'
``ROPE_INIT_FUNCTIONS`` on the equivalent config class, and a Q8_0 decoder
written here from the format (blocks of 32: an f16 scale, then 32 int8).
"""

import json
import sys

import numpy as np
import pytest

gguf = pytest.importorskip("gguf")

from posemb_cli.cli.app import app

from tests.gguf_files import q8_0, write_gguf
from tests.hf_rope import (
    assert_matches,
    init_reference,
    posemb_doc,
    posemb_refusal,
    runner,
)

LLAMA = {"embedding_length": 64, "attention.head_count": 4, "context_length": 128, "rope.freq_base": 500000.0,
         "rope.dimension_count": 16}


def test_gguf_config_equals_the_config_json(tmp_path):
    path = write_gguf(tmp_path / "m.gguf", "llama", {**LLAMA, "rope.scaling.type": "linear",
                                                      "rope.scaling.factor": 2.0}, tokens=100)
    twin = tmp_path / "config.json"
    twin.write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                                "max_position_embeddings": 128, "rope_theta": 500000.0, "vocab_size": 100,
                                "rope_scaling": {"rope_type": "linear", "factor": 2.0}}))
    doc, same = posemb_doc(path), posemb_doc(str(twin))
    for key in ("bands", "neighbour_similarity", "attention_factor", "params", "scorecard", "long_term_decay"):
        assert doc[key] == same[key], key
    assert doc["source"]["format"] == "gguf" and doc["config"]["vocab"] == 100
    from transformers import LlamaConfig  # and both equal transformers' own linear frequencies

    config = LlamaConfig(hidden_size=64, num_attention_heads=4, max_position_embeddings=128,
                         rope_parameters={"rope_type": "linear", "factor": 2.0, "rope_theta": 500000.0})
    assert_matches(doc, init_reference(config, "linear"))


def test_gguf_partial_rotary_and_yarn_match_transformers(tmp_path):
    from transformers import PhiConfig

    meta = {"embedding_length": 64, "attention.head_count": 4, "context_length": 256, "rope.freq_base": 10000.0,
            "rope.dimension_count": 8, "rope.scaling.type": "yarn", "rope.scaling.factor": 4.0,
            "rope.scaling.original_context_length": 64, "vocab_size": 100}
    doc = posemb_doc(write_gguf(tmp_path / "phi2.gguf", "phi2", meta))
    config = PhiConfig(hidden_size=64, num_attention_heads=4, max_position_embeddings=256, partial_rotary_factor=0.5,
                       rope_parameters={"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64,
                                        "rope_theta": 10000.0, "partial_rotary_factor": 0.5})
    assert_matches(doc, init_reference(config, "yarn"))
    assert (doc["source"]["rotary_dim"], doc["source"]["not_rotated_features"]) == (8, 8)


@pytest.mark.parametrize("meta, tensors, needle", [
    ({"rope.scaling.type": "yarn", "rope.scaling.factor": 4.0, "rope.scaling.yarn_log_multiplier": 0.1}, None,
     "llama.rope.scaling.yarn_log_multiplier = "),
    ({"rope.scaling.type": "longrope"}, None, "llama.rope.scaling.type 'longrope' is not supported for GGUF"),
    ({"rope.scaling.type": "linear", "rope.scaling.factor": 2.0}, {"rope_freqs.weight": (np.ones(8, np.float32), None)},
     "tensor rope_freqs.weight together with llama.rope.scaling.type 'linear' is not modelled"),
    ({}, {"rope_freqs.weight": (np.ones(7, np.float32), None)}, "freq_factors has 7 entries"),
    ({"attention.head_count": [4, 2]}, None, "llama.attention.head_count differs between layers"),
])
def test_gguf_metadata_posemb_does_not_model_is_refused(tmp_path, meta, tensors, needle):
    path = write_gguf(tmp_path / "m.gguf", "llama", {**LLAMA, **meta}, tensors, tokens=100)
    assert needle in posemb_refusal(path)


def test_gguf_rope_freqs_tensor_gives_llama31_frequencies(tmp_path):
    """llama.cpp stores Llama 3.1's scaling as per-pair divisors; the frequencies equal transformers' llama3."""
    from transformers import LlamaConfig

    config = LlamaConfig(hidden_size=64, num_attention_heads=4, max_position_embeddings=128, rope_parameters={
        "rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
        "original_max_position_embeddings": 16, "rope_theta": 500000.0})
    llama3, _ = init_reference(config, "llama3")
    plain = 1.0 / 500000.0 ** (np.arange(0, 16, 2) / 16)
    divisors = (plain / llama3).astype(np.float32)  # what llama.cpp's converter writes
    path = write_gguf(tmp_path / "llama31.gguf", "llama", LLAMA, {"rope_freqs.weight": (divisors, None)}, tokens=100)
    doc = posemb_doc(path)
    assert_matches(doc, (llama3, 1.0))
    assert doc["source"]["rope_type"] == "freq_factors" and doc["config"]["rope_scaling"] == "freq_factors"


def q8_0_decode(raw: np.ndarray, rows: int, width: int) -> np.ndarray:
    """Q8_0 by hand: each block of 34 bytes is an f16 scale and 32 signed bytes; value = scale * byte."""
    blocks = raw.reshape(rows, width // 32, 34)
    scale = blocks[..., :2].copy().view(np.float16).astype(np.float64)  # (rows, blocks, 1)
    values = blocks[..., 2:].copy().view(np.int8).astype(np.float64)  # (rows, blocks, 32)
    return (scale * values).reshape(rows, width)


def test_gguf_checkpoint_table_is_dequantised(tmp_path):
    rng = np.random.default_rng(0)
    table = rng.normal(scale=0.02, size=(64, 32)).astype(np.float32)
    raw = q8_0(table)
    path = write_gguf(tmp_path / "gpt2.gguf", "gpt2", {"embedding_length": 32, "attention.head_count": 4,
                                                        "context_length": 64},
                      {"position_embd.weight": (raw, gguf.GGMLQuantizationType.Q8_0),
                       "token_embd.weight": (rng.normal(size=(100, 32)).astype(np.float16), None)})
    result = runner.invoke(app, ["inspect", "--checkpoint", path, "--device", "cpu", "--max-offset", "3", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    decoded = q8_0_decode(raw, 64, 32)
    assert np.abs(decoded - table).max() < 1e-3  # the oracle decodes what was written
    unit = decoded / np.linalg.norm(decoded, axis=1, keepdims=True)
    for row in doc["neighbour_similarity"]:
        k = row["offset"]
        cos = (unit[:-k] * unit[k:]).sum(1)
        assert row["mean"] == pytest.approx(cos.mean(), rel=1e-5)
        assert row["min"] == pytest.approx(cos.min(), rel=1e-5)
    norms = np.linalg.norm(decoded, axis=1)
    assert doc["table"]["norm_max"] == pytest.approx(norms.max(), rel=1e-5)
    assert doc["params"]["token"] == 100 * 32 and doc["source"]["key"] == "position_embd.weight"
    assert doc["source"]["format"] == "gguf"


@pytest.mark.parametrize("flag", ["--config", "--checkpoint"])
def test_without_the_gguf_package_says_what_to_install(tmp_path, monkeypatch, flag):
    path = write_gguf(tmp_path / "m.gguf", "llama", LLAMA, tokens=100)
    monkeypatch.setitem(sys.modules, "gguf", None)  # import gguf now raises ImportError
    result = runner.invoke(app, ["inspect", flag, path, "--device", "cpu", "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "pip install 'posemb[gguf]'" in result.stderr and "Traceback" not in result.output


def test_a_rope_gguf_given_as_checkpoint_is_read_from_its_own_metadata(tmp_path):
    """A .gguf holds its settings: --checkpoint on it reads them, not a config.json beside it (there is none)."""
    path = write_gguf(tmp_path / "m.gguf", "llama", LLAMA, tokens=100)
    result = runner.invoke(app, ["inspect", "--checkpoint", path, "--device", "cpu", "--max-offset", "2", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert_matches(doc, (1.0 / 500000.0 ** (np.arange(0, 16, 2) / 16), 1.0))  # plain RoPE, rope.freq_base
