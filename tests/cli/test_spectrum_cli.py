"""inspect's ``spectrum`` on a real BERT-family checkpoint (a tiny one saved by transformers), against NumPy."""

from __future__ import annotations

import json

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    transformers = pytest.importorskip("transformers")
    import torch

    torch.manual_seed(0)
    config = transformers.BertConfig(vocab_size=50, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                     intermediate_size=32, max_position_embeddings=96)
    model = transformers.BertModel(config)
    folder = tmp_path_factory.mktemp("bert")
    model.save_pretrained(folder)
    return folder, model.embeddings.position_embeddings.weight.detach().double().numpy()


def test_bert_spectrum_matches_numpy(bert_dir):
    folder, table = bert_dir
    result = runner.invoke(app, ["inspect", "--checkpoint", str(folder), "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    spectrum = doc["spectrum"]
    centred = table - table.mean(axis=0)
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    scores = u[:, :8] * s[:8]
    np.testing.assert_allclose(spectrum["explained_variance"], s[:8] ** 2 / (s ** 2).sum(), rtol=1e-6)
    bins = np.abs(np.fft.rfft(scores, axis=0))[1:].argmax(axis=0) + 1
    assert spectrum["frequency_bins"] == bins.tolist()
    np.testing.assert_allclose(spectrum["periods"], 96 / bins)
    assert spectrum["rows"] == 96 and spectrum["method"] == "exact"


def test_spectrum_table_and_figure(bert_dir, tmp_path):
    folder, _ = bert_dir
    result = runner.invoke(app, ["inspect", "--checkpoint", str(folder), "--device", "cpu"], env={"COLUMNS": "140"})
    assert result.exit_code == 0, result.output
    assert "principal components" in result.stdout and "PC1" in result.stdout and "PC8" in result.stdout
    pytest.importorskip("matplotlib")
    figure = tmp_path / "bert.svg"
    result = runner.invoke(app, ["inspect", "--checkpoint", str(folder), "--device", "cpu", "--json",
                                 "--plot", str(figure)])
    assert result.exit_code == 0, result.output
    assert "principal components of the table" in figure.read_text()


def test_formula_schemes_have_no_spectrum():
    result = runner.invoke(app, ["compare", "--schemes", "learned,sinusoidal,rope", "--dim", "16", "--ctx", "64",
                                 "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    schemes = {entry["scheme"]: entry for entry in json.loads(result.stdout)["schemes"]}
    assert "spectrum" in schemes["learned"] and "spectrum" not in schemes["sinusoidal"]
    assert "context_bound" in schemes["sinusoidal"] and "context_bound" in schemes["rope"]


@pytest.mark.parametrize("columns", [80, 120])
def test_spectrum_table_never_cuts_a_figure(columns):
    """With terminal pictures the curves take the room they need; below it the table drops them, not figures."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    done = subprocess.run([sys.executable, "-m", "posemb_cli", "inspect", "--scheme", "learned", "--dim", "64",
                           "--ctx", "512", "--pictures", "screen"], capture_output=True, text=True, env=env,
                          timeout=120, check=True)
    section = done.stdout[done.stdout.index("What the table learned"):]
    rows = [line for line in section.splitlines() if "PC" in line][:8]
    assert len(rows) == 8 and all("…" not in row and "%" in row for row in rows), rows
    assert max(len(line) for line in done.stdout.splitlines()) <= columns
    assert ("▁" in section or "▅" in section) == (columns >= 120)  # the curves, where they fit
