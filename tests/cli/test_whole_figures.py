"""A number is never cut: every command's terminal output at 40, 80 and 120 columns, checked cell by cell.

Rich cuts a cell that does not fit its column with an ellipsis at its end ("1,0…", "pos…"),
so a cut shows as ``…`` (``...`` where the terminal cannot encode it) right after a character
of the cell and right before the cell's end: spaces, a border, or the end of the line. The
ellipses posemb writes on purpose ("min … max", "1…K") never sit there. Below the width a
table needs, the tables fall back to one figure per line, and never to folding a figure
across lines (``render.fit.folding`` fails the test here).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import posemb_cli.render.fit as fit
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

runner = CliRunner()
ROOT = str(Path(__file__).resolve().parents[2])
WIDTHS = (40, 80, 120)
SMALL = ["--dim", "16", "--ctx", "64", "--vocab", "50", "--batch", "2", "--device", "cpu"]
# A character of the cell, then the ellipsis, then the cell's end (in ASCII, a run of dots is a sparkline of NaN).
CUT = re.compile(r"(\S…|[^\s.]\.\.\.)(?=[\s│┃┆|]|$)", re.MULTILINE)


def _config(tmp_path) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
                                "max_position_embeddings": 512, "rope_theta": 10000.0, "vocab_size": 50,
                                "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                                                 "high_freq_factor": 4.0,
                                                 "original_max_position_embeddings": 64}}))
    return str(path)


def _doctor_config(tmp_path) -> str:
    """Findings whose field names are long words: rope blocks per layer type, bfloat16."""
    path = tmp_path / "doctor" / "config.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({
        "model_type": "gemma3_text", "hidden_size": 64, "num_attention_heads": 4, "head_dim": 16,
        "max_position_embeddings": 4096, "torch_dtype": "bfloat16",
        "layer_types": ["sliding_attention", "full_attention"],
        "rope_parameters": {"full_attention": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 1000000.0,
                                               "orignal_max_position_embeddings": 1024},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}}))
    return str(path)


def _table(tmp_path) -> str:
    path = tmp_path / "wpe.npy"
    np.save(path, np.random.default_rng(0).normal(scale=0.02, size=(96, 12)).astype(np.float32))
    return str(path)


COMMANDS = {
    "compare": lambda d: ["compare", *SMALL],
    "compare-all": lambda d: ["compare", "--schemes", "learned,sinusoidal,rope,alibi,none", "--heads", "4", *SMALL],
    "inspect-learned": lambda d: ["inspect", "--scheme", "learned", *SMALL],
    "inspect-sinusoidal": lambda d: ["inspect", "--scheme", "sinusoidal", *SMALL],
    "inspect-rope": lambda d: ["inspect", "--scheme", "rope", "--rope-scaling", "yarn", "--rope-factor", "4", *SMALL],
    "inspect-alibi": lambda d: ["inspect", "--scheme", "alibi", "--heads", "4", *SMALL],
    "inspect-none": lambda d: ["inspect", "--scheme", "none", *SMALL],
    "inspect-checkpoint": lambda d: ["inspect", "--checkpoint", _table(d), "--vocab", "50", "--batch", "2",
                                     "--device", "cpu"],
    "inspect-config": lambda d: ["inspect", "--config", _config(d), "--vocab", "50", "--batch", "2",
                                 "--device", "cpu"],
    "order": lambda d: ["order", *SMALL],
    "bench": lambda d: ["bench", "--dim", "16", "--ctx", "32", "--vocab", "50", "--batch", "2", "--repeats", "1",
                        "--warmup", "0", "--device", "cpu"],
    "sweep": lambda d: ["sweep", "--schemes", "learned,rope", "--dim", "8,16", "--ctx", "32", "--vocab", "50",
                        "--batch", "2", "--device", "cpu"],
    "precision": lambda d: ["precision"],
    "padding": lambda d: ["padding", "--dim", "16", "--vocab", "50", "--batch", "2", "--device", "cpu"],
    "doctor": lambda d: ["doctor", "--config", _doctor_config(d)],
    "schema": lambda d: ["schema", "inspect"],
}


@pytest.fixture(autouse=True)
def never_fold(monkeypatch):
    def folding(table):
        raise AssertionError(f"a table was folded: {table.title or [c.header for c in table.columns]}")

    monkeypatch.setattr(fit, "folding", folding)


def cuts(text: str) -> list[str]:
    """Every line where a cell ends in an ellipsis."""
    return [line for line in text.splitlines() if CUT.search(line)]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_figure_or_word_is_cut(tmp_path, monkeypatch, name, width):
    monkeypatch.setenv("COLUMNS", str(width))
    monkeypatch.setenv("NO_COLOR", "1")
    result = runner.invoke(app, COMMANDS[name](tmp_path))
    assert result.exit_code in (0, 3), result.output  # doctor exits 3 when it finds an error
    assert result.stdout.strip()
    assert cuts(result.stdout) == []
    if name != "schema":  # JSON text, not a table
        assert [line for line in result.stdout.splitlines() if len(line) > width] == []


def test_the_check_finds_a_cut():
    assert cuts("│ 1,0… │ 2.5 │\n┃ pos… ┃") == ["│ 1,0… │ 2.5 │", "┃ pos… ┃"]
    assert cuts("| 0.05... |") == ["| 0.05... |"]
    assert cuts("| 1...K | ........ |") == []
    assert cuts("│ 1…K │ min … max │ norms 0.5 … 1.2") == []


def test_positions_are_printed_whole_at_80_columns(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = runner.invoke(app, ["precision"]).stdout
    report = json.loads(runner.invoke(app, ["precision", "--json"]).stdout)
    for row in report["results"][0]["by_position"]:
        assert re.search(rf"(?<![\d,]){row['position']:,}(?![\d,])", text), row["position"]


@pytest.mark.parametrize("name", ["precision", "inspect-rope", "compare-all", "order"])
def test_no_figure_is_cut_in_ascii_either(tmp_path, name):
    """A terminal that cannot encode our symbols gets ASCII ("..." for an ellipsis): cut nowhere either."""
    environ = {**os.environ, "PYTHONPATH": ROOT, "PYTHONIOENCODING": "ascii", "COLUMNS": "40", "NO_COLOR": "1"}
    result = subprocess.run([sys.executable, "-m", "posemb_cli", *COMMANDS[name](tmp_path)], env=environ,
                            capture_output=True, text=True, encoding="ascii", timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stdout and cuts(result.stdout) == []
