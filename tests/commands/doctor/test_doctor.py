"""`posemb doctor` on hand-written configs: each id found where it was planted, none on a clean Llama-3.1."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.model_files import gpt2_tensors, save_safetensors, write_config
from tests.refusals import check_refused
from tests.schema_files import validate
from tests.sources.published_panel import published

runner = CliRunner()

LLAMA_31 = published("llama-3.1-8b.json")  # the published Llama-3.1-8B config.json, bfloat16
SMALL = {"hidden_size": 256, "num_attention_heads": 4, "max_position_embeddings": 1024, "rope_theta": 1e6,
         "torch_dtype": "float32"}


def doctor(tmp_path, config: dict, *, code: int | None = None) -> dict:
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = runner.invoke(app, ["doctor", "--config", str(path), "--json"])
    assert result.exit_code in (0, 3), result.output
    doc = json.loads(result.stdout)
    validate(doc, "doctor")
    has_error = any(f["severity"] == "error" for f in doc["findings"])
    assert result.exit_code == (3 if has_error else 0)
    if code is not None:
        assert result.exit_code == code
    return doc


def ids(doc: dict) -> dict:
    return {f["id"]: f for f in doc["findings"]}


def test_clean_llama_31_has_no_error(tmp_path):
    doc = doctor(tmp_path, LLAMA_31, code=0)
    assert not [f for f in doc["findings"] if f["severity"] == "error"]
    assert ids(doc)["low-precision-positions"]["severity"] == "info"
    table = runner.invoke(app, ["doctor", "--config", str(tmp_path / "config.json")], env={"COLUMNS": "160"})
    assert table.exit_code == 0 and "0 errors" in table.stdout


def test_small_clean_config_has_no_finding(tmp_path):
    assert doctor(tmp_path, SMALL, code=0)["findings"] == []


def test_misspelt_field_is_an_error_naming_it(tmp_path):
    config = {**SMALL, "max_position_embeddings": 4096, "rope_scaling": {
        "rope_type": "yarn", "factor": 4.0, "orignal_max_position_embeddings": 1024}}
    found = ids(doctor(tmp_path, config, code=3))
    assert found["unknown-field"]["severity"] == "error"
    assert "orignal_max_position_embeddings" in found["unknown-field"]["message"]
    assert "'original_max_position_embeddings'" in found["unknown-field"]["fix"]
    assert found["missing-field"]["severity"] == "warning"  # loaders infer it from max_position_embeddings
    found = ids(doctor(tmp_path, {**SMALL, "rope_scaling": {"rope_type": "llama3", "factor": 8.0,
                                                             "original_max_position_embeddings": 256}}, code=3))
    assert found["missing-field"]["severity"] == "error" and "low_freq_factor" in found["missing-field"]["message"]


def test_unrelated_extra_key_is_a_warning(tmp_path):
    config = {**SMALL, "rope_scaling": {"rope_type": "linear", "factor": 2.0, "comment": "x"}}
    found = ids(doctor(tmp_path, config, code=0))
    assert found["unknown-field"]["severity"] == "warning" and "comment" in found["unknown-field"]["message"]


def test_factor_below_one(tmp_path):
    found = ids(doctor(tmp_path, {**SMALL, "rope_scaling": {"rope_type": "linear", "factor": 0.5}}, code=3))
    assert found["factor-below-one"]["severity"] == "error" and "0.5" in found["factor-below-one"]["message"]


@pytest.mark.parametrize(("block", "maximum", "severity"), [
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 4096}, 32768, "warning"),
    ({"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 65536}, 32768, "error"),
    ({"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192, "low_freq_factor": 1.0,
      "high_freq_factor": 4.0}, 8192, "warning"),
    ({"rope_type": "longrope", "factor": 2.0, "short_factor": [1.0], "long_factor": [1.0],
      "original_max_position_embeddings": 4096}, 32768, "warning"),
])
def test_scaling_lengths(tmp_path, block, maximum, severity):
    found = ids(doctor(tmp_path, {**SMALL, "max_position_embeddings": maximum, "rope_scaling": block}))
    assert found["scaling-lengths"]["severity"] == severity


def test_consistent_yarn_lengths_pass(tmp_path):
    block = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 8192}
    assert "scaling-lengths" not in ids(doctor(tmp_path, {**SMALL, "max_position_embeddings": 32768,
                                                          "rope_scaling": block}))


def test_rope_base_bound_against_a_loop(tmp_path):
    config = {**SMALL, "hidden_size": 512, "num_attention_heads": 4, "rope_theta": 10000.0,
              "max_position_embeddings": 4096}
    theta = 10000.0 ** (-np.arange(0, 128, 2) / 128)
    first = next(m for m in range(1, 4096) if sum(math.cos(m * t) for t in theta) < 0)
    found = ids(doctor(tmp_path, config, code=0))
    assert first == 1707 and f"from m = {first:,}" in found["rope-base-bound"]["message"]
    assert found["rope-base-bound"]["severity"] == "info"  # a risk to far retrieval, measured not to be a fault
    assert "changing rope_theta moves every pair and needs training" in found["rope-base-bound"]["fix"]
    assert "posemb extend MODEL --to L" in found["rope-base-bound"]["fix"]
    assert "rope-base-bound" not in ids(doctor(tmp_path, {**config, "max_position_embeddings": 1700}))


def test_rope_base_bound_advice_holds(tmp_path):
    """Llama 2's shape (width 128, base 10,000, 4,096 positions): the base the fix names covers, by a plain loop,
    and so does every grid base above it that the fix vouches for (a sample) and the proof's base; the dip named
    is the loop's lowest sum."""
    import re

    config = {**SMALL, "hidden_size": 512, "num_attention_heads": 4, "rope_theta": 10000.0,
              "max_position_embeddings": 4096}
    found = ids(doctor(tmp_path, config, code=0))["rope-base-bound"]

    def sums(base: float) -> np.ndarray:
        theta = base ** (-np.arange(0, 128, 2) / 128)
        return np.cos(np.arange(1, 4096)[:, None] * theta[None, :]).sum(axis=1)

    pattern = r"For a model not trained yet, rope_theta ([\d,]+) covers these distances \(.*? up to ([\d,]+);"
    advised, proof = (float(x.replace(",", "")) for x in re.findall(pattern, found["fix"])[0])
    assert advised == 58200 and (sums(advised) >= 0).all() and (sums(proof) >= 0).all()
    for k in range(round(200 * math.log10(advised)), round(200 * math.log10(proof)) + 1, 37):
        exponent = math.floor(math.log10(10 ** (k / 200))) - 2
        assert (sums(round(10 ** (k / 200) / 10 ** exponent) * 10.0 ** exponent) >= 0).all()
    low = sums(10000.0)
    assert f"lowest at m = {1 + int(low.argmin()):,}" in found["message"] and "or more" not in found["fix"]


@pytest.mark.parametrize(("dtype", "collapse"), [("float16", 2048), ("bfloat16", 256)])
def test_low_precision_positions(tmp_path, dtype, collapse):
    found = ids(doctor(tmp_path, {**SMALL, "max_position_embeddings": 4096, "torch_dtype": dtype}))
    assert found["low-precision-positions"]["severity"] == "info"
    assert f"position {collapse} and {collapse + 1}" in found["low-precision-positions"]["message"]
    short = ids(doctor(tmp_path, {**SMALL, "max_position_embeddings": collapse, "torch_dtype": dtype}))
    assert "low-precision-positions" not in short


@pytest.mark.parametrize(("fields", "why"), [
    ({"partial_rotary_factor": 0.3}, "not a whole number"),  # 64 * 0.3 = 19.2
    ({"head_dim": 66, "partial_rotary_factor": 0.5}, "is odd"),  # 33 features
    ({"rotary_pct": 1.5}, "(0, 1]"),
])
def test_partial_rotary(tmp_path, fields, why):
    found = ids(doctor(tmp_path, {**SMALL, **fields}, code=3))
    assert found["partial-rotary"]["severity"] == "error" and why in found["partial-rotary"]["message"]


def test_more_ids(tmp_path):
    found = ids(doctor(tmp_path, {**SMALL, "rope_scaling": {"rope_type": "su_v2", "factor": 2.0}}, code=3))
    assert found["unknown-rope-type"]["severity"] == "error"
    no_theta = {key: value for key, value in SMALL.items() if key != "rope_theta"}
    found = ids(doctor(tmp_path, {**no_theta, "max_position_embeddings": 32768,
                                  "rope_scaling": {"rope_type": "linear", "factor": 2.0}}))
    assert found["rope-theta-missing"]["severity"] == "warning"
    block = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 1024, "attention_factor": 1.5}
    found = ids(doctor(tmp_path, {**SMALL, "max_position_embeddings": 4096, "rope_scaling": block}))
    assert found["yarn-attention-factor"]["severity"] == "info"
    assert "1.13863" in found["yarn-attention-factor"]["message"]
    found = ids(doctor(tmp_path, {**SMALL, "hidden_size": 250, "num_attention_heads": 4}, code=3))
    assert found["head-size"]["severity"] == "error"


def test_table_short_on_a_checkpoint(tmp_path):
    save_safetensors(tmp_path / "model.safetensors", gpt2_tensors(rows=40))
    write_config(tmp_path, model_type="gpt2", n_positions=40, max_position_embeddings=64)
    result = runner.invoke(app, ["doctor", "--checkpoint", str(tmp_path), "--json"])
    assert result.exit_code == 3, result.output
    doc = json.loads(result.stdout)
    validate(doc, "doctor")
    found = ids(doc)
    assert found["table-short"]["severity"] == "error" and "40 positions" in found["table-short"]["message"]
    assert doc["source"]["rows"] == 40 and doc["source"]["key"] == "transformer.wpe.weight"
    write_config(tmp_path, model_type="gpt2", max_position_embeddings=40)
    assert runner.invoke(app, ["doctor", "--checkpoint", str(tmp_path), "--json"]).exit_code == 0


def test_bad_input_exits_2(tmp_path):
    check_refused(["doctor"], "--config")
    check_refused(["doctor", "--config", "a.json", "--checkpoint", "b"], "--checkpoint")
    check_refused(["doctor", "--config", str(tmp_path / "missing.json")], "--config")
    (tmp_path / "bad.json").write_text("{not json")
    check_refused(["doctor", "--config", str(tmp_path / "bad.json"), "--json"], "--config")
    check_refused(["doctor", "--checkpoint", str(tmp_path / "none.safetensors")], "--checkpoint")
