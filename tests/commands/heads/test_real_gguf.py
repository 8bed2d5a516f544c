"""`posemb heads` on real quantised GGUF models (SmolLM2-135M Q4_1, Gemma 3 270M Q4_K_M), when present here.

Skipped when the files are absent (``POSEMB_REAL_MODELS`` names their folder). Always: the report's shape
against the file's own metadata (read here with the gguf package) and llama.cpp's Gemma 3 rule, and the same
bytes from two runs. With ``POSEMB_REAL_ORACLE=1`` (minutes: transformers parses the whole vocabulary and
dequantises every tensor): transformers' own GGUF loader (it dequantises with the gguf package, un-permutes
SmolLM2's q/k rows and subtracts the 1 that llama.cpp's Gemma converter adds to norm gains) run through
``tests/heads_oracle``, on two layers of each model (one of each RoPE set for Gemma 3).
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
import torch

pytest.importorskip("gguf")
pytest.importorskip("accelerate")

from tests.commands.heads.test_gguf import assert_matches_loaded  # noqa: E402
from tests.commands.heads.test_transformers import heads_json  # noqa: E402
from tests.sources.gguf.test_real_gguf import GEMMA, SMOL, _file, _header  # noqa: E402


@pytest.mark.parametrize("path", [SMOL, GEMMA], ids=["smollm2", "gemma3"])
def test_real_gguf_report_has_the_files_shape_and_the_same_bytes_twice(path):
    from posemb_cli.cli.app import app
    from typer.testing import CliRunner

    path = _file(path)
    meta, shapes = _header(path)
    arch = meta["general.architecture"]
    first = CliRunner().invoke(app, ["heads", "--checkpoint", path, "--json"])
    assert first.exit_code == 0, first.output
    assert CliRunner().invoke(app, ["heads", "--checkpoint", path, "--json"]).stdout == first.stdout
    doc = json.loads(first.stdout)
    count, heads = meta[f"{arch}.block_count"], meta[f"{arch}.attention.head_count"]
    kv = meta[f"{arch}.attention.head_count_kv"]
    assert len(doc["layers"]) == count and all(len(layer["heads"]) == heads for layer in doc["layers"])
    assert [head["kv_head"] for head in doc["layers"][0]["heads"]] == [h // (heads // kv) for h in range(heads)]
    head_dim = meta[f"{arch}.attention.key_length"] if f"{arch}.attention.key_length" in meta else \
        meta[f"{arch}.embedding_length"] // heads
    assert doc["rotary_pairs"] == meta.get(f"{arch}.rope.dimension_count", head_dim) // 2  # llama.cpp: n_rot
    assert shapes["blk.0.attn_q.weight"] == (heads * head_dim, meta[f"{arch}.embedding_length"])
    expected_sets = (["sliding_attention" if il % 6 < 5 else "full_attention" for il in range(count)]
                     if arch == "gemma3" else ["shared"] * count)  # llama.cpp: set_swa_pattern(6) for gemma3
    assert [layer["rope_set"] for layer in doc["layers"]] == expected_sets
    shares = np.array([head["pair_share"] for layer in doc["layers"] for head in layer["heads"]])
    np.testing.assert_allclose(shares.sum(1), 1.0, rtol=1e-12)
    assert doc["source"]["qk_rows_unpermuted"] is (arch == "llama")
    context = meta[f"{arch}.context_length"]
    window = meta.get(f"{arch}.attention.sliding_window")  # gemma3's sliding layers attend below it
    for layer in doc["layers"]:
        reach = window if layer["rope_set"] == "sliding_attention" else context
        assert [point["distance"] for point in layer["heads"][0]["kernel"]][-1] == reach - 1


@pytest.mark.skipif(os.environ.get("POSEMB_REAL_ORACLE") != "1", reason="set POSEMB_REAL_ORACLE=1 (minutes)")
@pytest.mark.parametrize(("path", "layers", "rotary"), [(SMOL, (0, 17), 64), (GEMMA, (4, 5), 256)],
                         ids=["smollm2", "gemma3"])
def test_real_gguf_equals_transformers_gguf_loader(path, layers, rotary):
    from transformers import AutoModelForCausalLM

    path = _file(path)
    loaded = AutoModelForCausalLM.from_pretrained(os.path.dirname(path), gguf_file=os.path.basename(path),
                                                  torch_dtype=torch.float32)
    assert_matches_loaded(heads_json(path), loaded, rotary=rotary, layers=layers, share_rtol=1e-4)
