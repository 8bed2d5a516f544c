"""``posemb precision --checkpoint``: a RoPE model's directory is measured from its config, other kinds refused.

The figures themselves are checked against their oracles in tests/measures/test_precision.py; here the
checkpoint path must measure exactly what the model's config gives, and name every kind it refuses.
"""

import json

import numpy as np
import pytest
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.model_zoo import zoo_model
from tests.refusals import check_refused
from tests.schema_files import validate

runner = CliRunner()


def run_json(*args: str) -> dict:
    result = runner.invoke(app, ["precision", *args, "--dtypes", "bfloat16,float16", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_rope_checkpoint_is_measured_from_its_config():
    folder = zoo_model("llama")
    with open(f"{folder}/config.json") as handle:
        fields = json.load(handle)
    by_checkpoint, by_config = run_json("--checkpoint", folder), run_json("--config", folder)
    validate(by_checkpoint, "precision")
    assert by_checkpoint["results"] == by_config["results"]
    head = fields["hidden_size"] // fields["num_attention_heads"]
    assert by_checkpoint["config"]["dim"] == head
    assert by_checkpoint["config"]["ctx"] == fields["max_position_embeddings"]
    inv_freq = 1.0 / fields.get("rope_theta", 10000.0) ** (np.arange(0, head, 2) / head)  # the RoPE formula
    assert by_checkpoint["config"]["frequencies"] == inv_freq.size
    source = by_checkpoint["config"]["source"]
    assert source["checkpoint"] == folder and source["kind"] == "rope"
    assert source["analysed_from"] == "config.json beside the weights"


@pytest.mark.parametrize("family, needle", [
    ("gpt2", "learned position table"),
    ("t5", "relative-attention bias"),
    ("bloom", "ALiBi"),
])
@pytest.mark.parametrize("flag", ["--checkpoint", "--config"])
def test_other_kinds_are_refused_by_name(family, needle, flag):
    folder = zoo_model(family)
    check_refused(["precision", flag, folder], needle)
    result = runner.invoke(app, ["precision", flag, folder])
    if family == "bloom":
        assert "precision measures the rope and sinusoidal formulas" in result.stderr
    else:
        assert "stored in the weights, not computed" in result.stderr
        assert f"posemb inspect --checkpoint {folder}" in result.stderr


def test_checkpoint_and_config_together_are_refused():
    folder = zoo_model("llama")
    check_refused(["precision", "--checkpoint", folder, "--config", folder], "cannot be combined")
    check_refused(["precision", "--checkpoint", folder, "--dim", "16"], "--dim")
