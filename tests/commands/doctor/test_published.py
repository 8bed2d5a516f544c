"""posemb doctor on configs as published (tests/sources/published/): nothing that transformers' loader contradicts.

Every file of the panel loads in transformers (Phi-3's "su" in 4.x; 5.24 renames it
after its own check, see tests/sources/published_panel.py), so no finding may call a
key unknown or missing, a type unknown, or the lengths contradictory where transformers
resolves them without a word. The one warning left alone is ``rope-base-bound``: it
is about the Σcos context bound of the base the file gives, not about reading the file.
"""

from __future__ import annotations

import json

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.sources.published_panel import FILES, folder_of

runner = CliRunner()
NOT_ABOUT_READING = {"rope-base-bound"}


def _doctor(folder: str) -> dict:
    result = runner.invoke(app, ["doctor", "--config", folder, "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


@pytest.mark.parametrize("name", FILES)
def test_no_error_and_no_warning_transformers_contradicts(tmp_path, name):
    doc = _doctor(folder_of(tmp_path, name))
    errors = [finding for finding in doc["findings"] if finding["severity"] == "error"]
    warnings = [finding for finding in doc["findings"]
                if finding["severity"] == "warning" and finding["id"] not in NOT_ABOUT_READING]
    assert errors == [] and warnings == [], doc["findings"]


def test_phi3_su_is_longrope_with_its_top_level_length(tmp_path):
    doc = _doctor(folder_of(tmp_path, "phi-3-mini-128k-instruct-su.json"))
    assert {finding["id"] for finding in doc["findings"]}.isdisjoint({"unknown-rope-type", "missing-field"})
    assert "rope_scaling.type 'su': transformers' phi3 config reads it as 'longrope'" in doc["source"]["rules"]


def test_gemma3_4b_reads_its_heads_from_the_class(tmp_path):
    doc = _doctor(folder_of(tmp_path, "gemma-3-4b-it.json"))
    assert "head-size" not in {finding["id"] for finding in doc["findings"]}
    windows = {group["rope_set"]: group["window"] for group in doc["source"]["layer_groups"]}
    assert windows == {"sliding_attention": 1024, "full_attention": None}


def test_a_longrope_block_without_any_length_is_still_an_error(tmp_path):
    """Outside the panel: no length in the block, the config or its class; transformers takes the maximum, and the
    long factors never apply."""
    fields = {"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4, "max_position_embeddings": 256,
              "rope_scaling": {"rope_type": "longrope", "short_factor": [1.0] * 8, "long_factor": [2.0] * 8}}
    (tmp_path / "config.json").write_text(json.dumps(fields))
    result = runner.invoke(app, ["doctor", "--config", str(tmp_path), "--json"])
    assert result.exit_code == 3
    found = json.loads(result.stdout)["findings"]
    assert any(f["id"] == "missing-field" and "original_max_position_embeddings" in f["message"] for f in found)
