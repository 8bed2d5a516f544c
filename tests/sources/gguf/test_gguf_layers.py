"""A GGUF file's layers: llama.cpp's per-architecture rules where the file is silent, and transformers' GGUF loader.

The files are written with ``gguf.GGUFWriter``. Each expected layer map is llama.cpp's
rule written out here as a plain loop (``llama_hparams::set_swa_pattern``: layer il
slides when ``il % N < N - 1``; SmolLM3 and Llama 4 leave RoPE out where
``(il + 1) % 4 == 0``; Cohere2 rotates its sliding layers only); where transformers'
own GGUF loader supports the architecture, the config it builds is a second oracle.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

pytest.importorskip("gguf")

from posemb_cli.cli.app import app  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from tests.gguf_files import write_gguf  # noqa: E402
from tests.hf_rope import posemb_doc  # noqa: E402

runner = CliRunner()
BASE = {"context_length": 128, "embedding_length": 64, "feed_forward_length": 64, "attention.head_count": 4,
        "attention.head_count_kv": 1, "attention.key_length": 16, "attention.value_length": 16,
        "attention.layer_norm_rms_epsilon": 1e-6}
TOKENS = {"token_embd.weight": (np.zeros((100, 64), np.float32), None)}


def _write(tmp_path, arch: str, layers: int, **meta) -> str:
    return write_gguf(tmp_path / f"{arch}.gguf", arch, {**BASE, "block_count": layers, **meta}, TOKENS, tokens=100)


def _sets(doc: dict) -> dict[str, dict]:
    return {entry["source"]["rope_set"]: entry["source"] for entry in (doc.get("layer_types") or [doc])}


def test_gemma3_every_sixth_layer_global_local_base_ten_thousand(tmp_path):
    path = _write(tmp_path, "gemma3", 12, **{"rope.freq_base": 1e6, "attention.sliding_window": 16})
    doc = posemb_doc(path)
    sliding = [il % 6 < 5 for il in range(12)]
    assert [entry["rope_set"] for entry in doc["layer_map"]] == [
        "sliding_attention" if s else "full_attention" for s in sliding]
    assert [entry["window"] for entry in doc["layer_map"]] == [16 if s else None for s in sliding]
    sets = _sets(doc)
    assert sets["sliding_attention"]["rope_theta"] == 10_000.0 and sets["full_attention"]["rope_theta"] == 1e6
    assert "llama.cpp's rule for gemma3: every 6th layer global, local base 10,000" in doc["source"]["decided_by"]
    assert doc["source"]["read_from"] == "GGUF metadata" and doc["model"]["read_from"] == "GGUF metadata"
    assert doc["params"]["token"] == 100 * 64

    from transformers import AutoConfig  # transformers' own GGUF loader builds the same model

    config = AutoConfig.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))
    assert [entry["attention"] for entry in doc["layer_map"]] == config.layer_types
    for layer_type, block in config.rope_parameters.items():
        assert sets[layer_type]["rope_theta"] == block["rope_theta"]
    assert config.sliding_window == 16


def test_gemma3_local_base_from_the_file_and_pattern_key(tmp_path):
    path = _write(tmp_path, "gemma3", 8, **{"rope.freq_base": 1e6, "attention.sliding_window": 16,
                                             "rope.freq_base_swa": 5e4, "attention.sliding_window_pattern": 4})
    doc = posemb_doc(path)
    assert [entry["attention"] == "sliding_attention" for entry in doc["layer_map"]] == [il % 4 < 3 for il in range(8)]
    assert _sets(doc)["sliding_attention"]["rope_theta"] == 5e4


def test_smollm3_no_rope_every_fourth_layer(tmp_path):
    doc = posemb_doc(_write(tmp_path, "smollm3", 8, **{"rope.freq_base": 2e6}))
    assert [entry["position"] for entry in doc["layer_map"]] == [
        "none" if (il + 1) % 4 == 0 else "rope" for il in range(8)]
    assert doc["source"]["layers_without_rope"] == [3, 7]


def test_cohere2_rotates_sliding_layers_only(tmp_path):
    doc = posemb_doc(_write(tmp_path, "cohere2", 8, **{"rope.freq_base": 5e4, "attention.sliding_window": 16}))
    sliding = [il % 4 < 3 for il in range(8)]
    assert [entry["position"] for entry in doc["layer_map"]] == ["rope" if s else "none" for s in sliding]
    assert doc["source"]["layout"] == "interleaved"  # llama.cpp NORM, not permuted: Cohere's own pairing


def test_llama4_chunks_its_rope_layers(tmp_path):
    doc = posemb_doc(_write(tmp_path, "llama4", 8, **{"rope.freq_base": 5e5}))
    rotates = [(il + 1) % 4 != 0 for il in range(8)]
    assert [entry["position"] for entry in doc["layer_map"]] == ["rope" if r else "none" for r in rotates]
    assert [entry["window"] for entry in doc["layer_map"]] == [8192 if r else None for r in rotates]


def test_llama4_without_chunks_leaves_rope_out_of_its_last_layer_only(tmp_path):
    doc = posemb_doc(_write(tmp_path, "llama4", 8, **{"rope.freq_base": 5e5, "attention.sliding_window": 0}))
    step = 8  # llama.cpp: n_no_rope_layer_step = n_layer when the file sets no window
    assert [entry["position"] for entry in doc["layer_map"]] == [
        "none" if (il + 1) % step == 0 else "rope" for il in range(8)]
    assert [entry["window"] for entry in doc["layer_map"]] == [None] * 8
    assert not any("applies no window" in rule for rule in doc["model"]["rules"])


def test_llama_with_rope_freqs_keeps_every_layer_and_matches_transformers(tmp_path):
    divisors = np.linspace(1.0, 8.0, 8).astype(np.float32)
    path = write_gguf(tmp_path / "llama.gguf", "llama", {**BASE, "block_count": 3, "rope.freq_base": 5e5,
                                                          "attention.head_count_kv": 4},
                      {**TOKENS, "rope_freqs.weight": (divisors, None)}, tokens=100)
    doc = posemb_doc(path)
    assert [entry["position"] for entry in doc["layer_map"]] == ["rope"] * 3
    assert doc["source"]["rope_type"] == "freq_factors" and doc["source"]["layout"] == "half"
    expected = 1.0 / (5e5 ** (np.arange(0, 16, 2) / 16) * divisors)
    np.testing.assert_allclose([band["inv_freq"] for band in doc["bands"]], expected, rtol=1e-6)

    from transformers import AutoConfig

    config = AutoConfig.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path))
    assert (config.num_hidden_layers, config.num_key_value_heads) == (doc["model"]["layers"], doc["model"]["kv_heads"])
    assert config.rope_parameters["rope_theta"] == doc["source"]["rope_theta"]


def test_doctor_reads_a_gguf_like_every_command(tmp_path):
    path = _write(tmp_path, "gemma3", 12, **{"rope.freq_base": 1e6, "attention.sliding_window": 16})
    result = runner.invoke(app, ["doctor", "--config", path, "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["source"]["read_from"] == "GGUF metadata"
    assert not [f for f in doc["findings"] if f["id"] in ("unknown-field", "rope-theta-missing")]


def test_a_window_key_llama_cpp_ignores_is_said(tmp_path):
    doc = posemb_doc(_write(tmp_path, "phi3", 2, **{"rope.freq_base": 1e4, "attention.sliding_window": 16}))
    assert [entry["window"] for entry in doc["layer_map"]] == [None, None]
    assert any("applies no window" in rule for rule in doc["model"]["rules"])


def test_an_architecture_llama_cpp_positions_unknown_to_posemb_is_refused(tmp_path):
    path = _write(tmp_path, "mamba", 2)
    result = runner.invoke(app, ["inspect", "--config", path, "--json"])
    assert result.exit_code == 2 and "GGUF architecture 'mamba'" in result.stderr and result.stdout == ""
