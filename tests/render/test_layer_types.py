"""The inspect document shows every layer type of a per-layer-type config, and LongRoPE's two sets."""

import json

from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
GEMMA3 = {"model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16,
          "max_position_embeddings": 128, "vocab_size": 100,
          "rope_parameters": {"full_attention": {"rope_type": "linear", "factor": 8.0, "rope_theta": 1e6},
                              "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}}


def run(tmp_path, fields, *flags):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(fields))
    result = runner.invoke(app, ["inspect", "--config", str(path), "--device", "cpu", *flags],
                           env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    return result.stdout


def test_layer_types_table_lists_each_with_its_measured_figures(tmp_path):
    doc = json.loads(run(tmp_path, GEMMA3, "--json"))
    text = run(tmp_path, GEMMA3, "--no-plot")
    assert "RoPE sets, each over the distances its layers attend" in text
    rows = [line for line in text.splitlines() if "full_attention" in line or "sliding_attention" in line]
    rows = [line for line in rows if "│" in line and "<" in line]
    assert len(rows) == 2
    for row, entry in zip(rows, doc["layer_types"]):
        cells = [cell.strip() for cell in row.strip("│ ").split("│")]
        mean = next(r["mean"] for r in entry["neighbour_similarity"] if r["offset"] == 1)
        assert cells[0] == entry["layer_type"] and cells[-1] == f"{mean:.4f}"
        assert cells[5] == f"{entry['bands'][0]['inv_freq']:.4g}"
    assert "RoPE set full_attention" in text and "RoPE set sliding_attention" in text


def test_longrope_bands_show_short_and_long(tmp_path):
    fields = {**GEMMA3, "max_position_embeddings": 64, "rope_parameters": {
        "rope_type": "longrope", "original_max_position_embeddings": 16, "short_factor": [1.0 + i for i in range(8)],
        "long_factor": [1.0 + 3 * i for i in range(8)]}}
    text = run(tmp_path, fields, "--no-plot")
    header = next(line for line in text.splitlines() if "pair" in line and "short" in line)
    assert "long" in header and "longrope: long factors in use" in text
