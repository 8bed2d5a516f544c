"""``inspect --checkpoint`` on a tiny T5 saved by transformers: the bias against distance is the model's own.

Oracle: transformers' ``T5Attention.compute_bias`` of the loaded model (the
bias it adds to the scores), read at the reported distances; shapes from the
saved tensors.
"""

import json

import pytest
import torch
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.model_zoo import zoo_model, zoo_tensors, zoo_weights_only

runner = CliRunner()
ENCODER = "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"
DECODER = "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"


def inspect_json(*args):
    result = runner.invoke(app, ["inspect", *args, "--device", "cpu", "-b", "2", "-t", "8", "-k", "3", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def transformers_bias(stack: str, length: int) -> torch.Tensor:
    """(H, T, T) bias of the model's first self-attention layer, as transformers computes it."""
    from transformers import T5Model

    model = T5Model.from_pretrained(zoo_model("t5"))
    attention = getattr(model, stack).block[0].layer[0].SelfAttention
    with torch.no_grad():
        return attention.compute_bias(length, length)[0]


@pytest.mark.parametrize("stack, key", [("encoder", None), ("decoder", DECODER)])
def test_bias_by_distance_is_the_models(stack, key):
    doc = inspect_json("--checkpoint", zoo_model("t5"), *(["--key", key] if key else []))
    profile = doc["relative_bias"]
    assert (profile["buckets"], profile["max_distance"], profile["heads"]) == (8, 20, 4)
    assert profile["bidirectional"] is (stack == "encoder")
    span = max(abs(row["distance"]) for row in profile["by_distance"])
    assert span >= 20  # past max_distance: the levelling off is shown
    bias = transformers_bias(stack, span + 1)  # (H, T, T): query m, key n, distance n - m
    for row in profile["by_distance"]:
        d = row["distance"]
        query, key_position = (0, d) if d >= 0 else (-d, 0)
        torch.testing.assert_close(torch.tensor(row["bias"]), bias[:, query, key_position], rtol=0, atol=0)
    if stack == "decoder":
        assert all(row["distance"] <= 0 for row in profile["by_distance"])
    far = [row for row in profile["by_distance"] if abs(row["distance"]) >= -profile["levels_off_at"]["before"]]
    assert all(row["bucket"] == far[0]["bucket"] for row in far if row["distance"] < 0)


def test_shapes_params_and_what_does_not_apply():
    tensors = zoo_tensors("t5")
    doc = inspect_json("--checkpoint", zoo_model("t5"), "--ctx", "64")
    buckets, heads = tensors[ENCODER].shape
    vocab, width = tensors["shared.weight"].shape
    assert doc["scheme"] == doc["config"]["scheme"] == "relative_bias"
    assert doc["params"] == {"token": vocab * width, "position": buckets * heads,
                             "total": vocab * width + buckets * heads, "overhead": buckets * heads / (vocab * width)}
    assert doc["shapes"] == {"ids": [2, 8], "token": [2, 8, width], "position": [heads, 8, 8],
                             "output": [2, 8, width]}
    assert doc["neighbour_similarity"] is None and doc["table"] is None
    assert doc["source"]["neighbour_note"] and doc["source"]["table_note"]
    assert doc["source"]["kind"] == "relative_bias" and doc["source"]["key"] == ENCODER
    assert doc["source"]["other_bias_keys"] == [DECODER]
    assert doc["relative_deviation"] < 1e-12  # the bias is a function of n - m alone
    assert doc["config"]["heads"] == heads and doc["config"]["ctx"] == 64


def test_rich_output_names_the_bias():
    result = runner.invoke(app, ["inspect", "--checkpoint", zoo_model("t5"), "--device", "cpu", "-t", "8",
                                 "--no-plot"])
    assert result.exit_code == 0, result.output
    assert "Relative-attention bias: 8 buckets x 4 heads, bidirectional (encoder)" in result.stdout
    assert "Row norms" not in result.stdout and "Neighbour similarity" not in result.stdout


@pytest.mark.parametrize("args, needle", [
    (["--key", "shared.weight"], "--key 'shared.weight': not a relative-attention bias"),
    (["--position-offset", "1"], "--position-offset"),
])
def test_bad_flags_are_refused(args, needle):
    result = runner.invoke(app, ["inspect", "--checkpoint", zoo_model("t5"), *args, "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    line, = result.stderr.strip().splitlines()
    assert needle in line


def test_weights_without_config_are_refused(tmp_path):
    result = runner.invoke(app, ["inspect", "--checkpoint", zoo_weights_only("t5", tmp_path), "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "relative_attention_max_distance" in result.stderr and "Traceback" not in result.output


def test_compare_refuses_the_bias_by_kind():
    result = runner.invoke(app, ["compare", "--checkpoint", zoo_model("t5"), "--json"])
    assert result.exit_code == 2 and "relative-attention bias" in result.stderr
