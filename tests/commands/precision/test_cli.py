"""`posemb precision` end to end: the issue's figures, the schema, the tables and every refusal."""

from __future__ import annotations

import json

import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.refusals import check_refused
from tests.schema_files import validate

runner = CliRunner()


def run_json(*args: str) -> dict:
    result = runner.invoke(app, ["precision", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def rope_8192() -> dict:
    return run_json("--scheme", "rope", "--dim", "128", "--ctx", "8192")


def test_bf16_collapses_at_256_fp16_at_2048_cast_never(rope_8192):
    validate(rope_8192, "precision")
    found = {(r["dtype"], r["recipe"]): r["first_collapse"] for r in rope_8192["results"]}
    # integers are exact up to 2**bits (bf16 8 significant bits, fp16 11): 2**bits + 1 rounds down to 2**bits
    assert found == {("float32", "native"): None, ("float32", "cast"): None, ("bfloat16", "native"): 2 ** 8,
                     ("bfloat16", "cast"): None, ("float16", "native"): 2 ** 11, ("float16", "cast"): None}
    assert rope_8192["config"]["signal_recipe"] == {"float32": "float64-angles", "bfloat16": "cast",
                                                    "float16": "cast"}
    assert rope_8192["config"]["frequencies"] == 64


def test_tables_name_the_collapse():
    result = runner.invoke(app, ["precision", "--dim", "16", "--ctx", "600", "--dtypes", "bfloat16"],
                           env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    assert "256" in result.stdout and "never" in result.stdout and "bf16" in result.stdout


def test_sinusoidal_and_a_model_config(tmp_path):
    doc = run_json("--scheme", "sinusoidal", "--dim", "7", "--ctx", "300", "--dtypes", "bfloat16,float64")
    validate(doc, "precision")
    assert doc["config"]["frequencies"] == 4 and "head_dim" not in doc["config"]
    assert [r["first_collapse"] for r in doc["results"]] == [256, None, None, None]
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 4096,
                                  "rope_theta": 500000.0}))
    doc = run_json("--config", str(config), "--dtypes", "float16")
    validate(doc, "precision")
    assert doc["config"]["ctx"] == 4096 and doc["config"]["base"] == 500000.0 and doc["config"]["dim"] == 64
    assert doc["results"][0]["first_collapse"] == 2048 and doc["config"]["source"]["config"] == str(config)


@pytest.mark.parametrize(("args", "needle"), [
    (["--dtypes", "float8"], "--dtypes"),
    (["--dtypes", "float16,float16"], "--dtypes"),
    (["--scheme", "alibi"], "--scheme"),
    (["--ctx", "1"], "--ctx"),
    (["--dim", "0"], "--dim"),
    (["--base", "1"], "--base"),
    (["--dim", "7"], "--dim 7"),
    (["--scheme", "sinusoidal", "--rope-factor", "2"], "--rope-factor"),
    (["--rope-scaling", "linear", "--rope-factor", "0.5"], "--rope-factor"),
])
def test_bad_input_is_refused(args, needle):
    check_refused(["precision", *args], needle)


def test_config_conflicts_and_missing_file(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"hidden_size": 64, "num_attention_heads": 1, "max_position_embeddings": 64}))
    check_refused(["precision", "--config", str(config), "--ctx", "100"], "--ctx")
    check_refused(["precision", "--config", str(tmp_path / "nope.json")], "--config")
