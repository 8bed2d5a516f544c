"""`posemb padding --config/--checkpoint`: the model's own position signal under left padding.

Oracles: the same run built from flags (`--schemes rope --base ... --head-dim ...`) gives the
same figures as the model's RoPE set; a stored table shifts under arange ids and not under
from_mask ids (exactly zero: the real tokens read the same rows); ALiBi cancels exactly.
"""

from __future__ import annotations

import json

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.model_zoo import zoo_model
from tests.schema_coverage import undescribed_keys
from tests.schema_files import validate

runner = CliRunner()
transformers = pytest.importorskip("transformers")


def _padding(*args: str) -> dict:
    result = runner.invoke(app, ["padding", "--pad", "4", "--seq-len", "8", "--device", "cpu", "--json", *args])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    validate(doc, "padding")
    from posemb_cli.schemas import load_schema

    assert undescribed_keys(doc, load_schema("padding")) == []
    return doc


def test_each_rope_set_runs_with_its_own_frequencies(tmp_path):
    config = transformers.Gemma3TextConfig(hidden_size=64, num_attention_heads=4, head_dim=16, num_hidden_layers=6,
                                           intermediate_size=64, vocab_size=100, max_position_embeddings=128,
                                           sliding_window=16)
    config.save_pretrained(tmp_path)
    doc = _padding("--config", str(tmp_path))
    assert sorted((row["rope_set"], row["position_ids"]) for row in doc["results"]) == [
        (name, ids) for name in ("full_attention", "sliding_attention") for ids in ("arange", "from_mask")]
    assert doc["model"]["layers"] == 6 and doc["source"]["kind"] == "rope"
    for rope_set, base in (("sliding_attention", "10000"), ("full_attention", "1000000")):
        same = _padding("--schemes", "rope", "--dim", "16", "--head-dim", "16", "--base", base, "--ctx", "128",
                        "--rope-layout", "half", "--vocab", "100")
        ours = [row for row in doc["results"] if row["rope_set"] == rope_set]
        assert [row["max_abs_diff"] for row in ours] == [row["max_abs_diff"] for row in same["results"]]
        assert all(row["invariant"] for row in ours)


def test_a_stored_table_shifts_with_arange_ids_only():
    doc = _padding("--checkpoint", zoo_model("gpt2"))
    by_ids = {row["position_ids"]: row for row in doc["results"]}
    assert by_ids["arange"]["max_abs_diff"] > 0 and not by_ids["arange"]["invariant"]
    assert by_ids["from_mask"]["invariant"]  # the same rows: rounding of the longer padded sums only
    assert doc["config"]["checkpoint"] == zoo_model("gpt2") and doc["config"]["dim"] == 32


def test_alibi_from_a_config_cancels_exactly():
    doc = _padding("--config", zoo_model("bloom"), "--ctx", "64")
    assert {row["scheme"] for row in doc["results"]} == {"alibi"}
    assert all(row["invariant"] for row in doc["results"])


@pytest.mark.parametrize("args, needle", [
    (["--config", "MODEL", "--schemes", "rope"], "--schemes: --config runs the model's own position signal"),
    (["--checkpoint", "T5"], "padding runs on position tables, RoPE and ALiBi"),
])
def test_refusals(args, needle):
    args = [zoo_model("llama") if a == "MODEL" else zoo_model("t5") if a == "T5" else a for a in args]
    result = runner.invoke(app, ["padding", "--json", *args])
    assert result.exit_code == 2 and needle in result.stderr and result.stdout == ""
