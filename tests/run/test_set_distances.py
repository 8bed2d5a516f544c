"""Each RoPE set of a model is analysed over the distances its layers attend: a sliding set within its window."""

from __future__ import annotations

import json
import math

import numpy as np
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
# Gemma 3's layout: every 6th layer full attention at base 1e6, the others sliding within 32 positions at base 1e4
GEMMA3 = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16,
          "num_hidden_layers": 12, "max_position_embeddings": 4096, "vocab_size": 100, "sliding_window": 32,
          "rope_theta": 1e6, "rope_local_base_freq": 10.0}


def inspect(tmp_path, fields, *flags):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(fields))
    result = runner.invoke(app, ["inspect", "--config", str(path), "--device", "cpu", *flags], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    return result.stdout


def sums(base: float, limit: int) -> np.ndarray:
    theta = base ** (-np.arange(0, 16, 2) / 16)
    return np.array([sum(math.cos(m * t) for t in theta) for m in range(1, limit)])


def test_the_set_that_attends_farthest_leads_and_each_stops_at_its_window(tmp_path):
    doc = json.loads(inspect(tmp_path, GEMMA3, "--json"))
    sets = [entry["layer_type"] for entry in doc["layer_types"]]
    assert sets == ["full_attention", "sliding_attention"] and doc["source"]["rope_set"] == "full_attention"
    full, sliding = doc["layer_types"]
    assert full["source"]["attends_to"] == {"distance": 4096, "why": "the context it runs at", "windowed": False}
    assert sliding["source"]["attends_to"]["distance"] == 32 and sliding["source"]["attends_to"]["windowed"]
    assert "layers 0-4, 6-10" in sliding["source"]["attends_to"]["why"]
    assert full["context_bound"]["ctx"] == 4096 and sliding["context_bound"]["ctx"] == 32
    low = sums(10.0, 32)  # base 10 over 32 distances: the sum dips below zero inside the window
    assert sliding["context_bound"]["covers"] is bool((low >= 0).all()) is False
    assert sliding["context_bound"]["dip"]["at"] == 1 + int(low.argmin())
    assert max(point["distance"] for point in sliding["long_term_decay"]) <= 32
    assert max(point["distance"] for point in full["long_term_decay"]) > 32
    assert sliding["source"]["max_position_embeddings"] == 4096  # the set's context; the window is attends_to


def test_the_terminal_names_every_set(tmp_path):
    text = " ".join(inspect(tmp_path, GEMMA3, "--no-plot").split())
    assert "RoPE set full_attention (the set that attends farthest; the others follow below)" in text
    assert "distances below 4,096: the context it runs at" in text
    assert "RoPE set sliding_attention: base 10, distances below 32 (the sliding window of layers 0-4, 6-10)" in text
    assert text.count("Context bound (Men et al. 2024)") == 2


def run_json(tmp_path, command, *flags):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(GEMMA3))
    result = runner.invoke(app, [command, "--config", str(path), *flags, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_precision_measures_every_set_with_its_own_frequencies(tmp_path):
    """float32 native: angles p * theta rounded in float32, against float64 (NumPy, every position of the context)."""
    doc = run_json(tmp_path, "precision", "--dtypes", "float32")
    assert [one["rope_set"] for one in doc["config"]["rope_sets"]] == ["full_attention", "sliding_attention"]
    p = np.arange(4096, dtype=np.float64)
    for name, base in (("full_attention", 1e6), ("sliding_attention", 10.0)):
        theta = base ** (-np.arange(0, 16, 2, dtype=np.float64) / 16)
        angles = p.astype(np.float32)[:, None] * theta.astype(np.float32)[None, :]
        error = np.maximum(np.abs(np.cos(angles).astype(np.float64) - np.cos(p[:, None] * theta)),
                           np.abs(np.sin(angles).astype(np.float64) - np.sin(p[:, None] * theta))).max()
        found = next(r for r in doc["results"] if r["rope_set"] == name and r["recipe"] == "native")
        assert math.isclose(found["max_value_error"], error, rel_tol=1e-3, abs_tol=1e-7), name


def test_padding_masks_a_sliding_set_to_its_window(tmp_path):
    doc = run_json(tmp_path, "padding", "--seq-len", "48", "--pad", "8")
    rows = {(row["rope_set"], row["position_ids"]): row for row in doc["results"]}
    assert rows[("sliding_attention", "from_mask")]["window"] == 32
    assert "window" not in rows[("full_attention", "from_mask")]
    assert all(row["invariant"] for row in doc["results"])  # RoPE shifts cancel, with and without the window


def test_masked_attention_window_against_a_loop():
    import torch
    from posemb_cli.core.masked_attention import masked_self_attention

    torch.manual_seed(0)
    x, weights = torch.randn(1, 10, 4, dtype=torch.float64), torch.randn(3, 4, 4, dtype=torch.float64)
    mask = torch.ones(1, 10, dtype=torch.bool)
    out = masked_self_attention(x, weights, mask, torch.arange(10)[None], window=3)
    q, k, v = x[0] @ weights[0], x[0] @ weights[1], x[0] @ weights[2]
    for i in range(10):
        keys = [j for j in range(10) if abs(i - j) < 3]
        scores = torch.stack([q[i] @ k[j] / 2.0 for j in keys])
        expected = (torch.softmax(scores, 0)[:, None] * v[keys]).sum(0)
        torch.testing.assert_close(out[0, i], expected)
