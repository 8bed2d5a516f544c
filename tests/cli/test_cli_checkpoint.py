"""inspect/compare --checkpoint through the CLI: the real table's figures equal those of the table analysed directly."""

import json

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from posemb_cli.measures.neighbours import neighbour_similarity
from typer.testing import CliRunner

from tests.model_files import gpt2_tensors, opt_tensors, roberta_tensors, save_safetensors, save_torch, write_config
from tests.oracles import neighbour_cosines, sinusoidal_table

runner = CliRunner()


def run_json(*args):
    result = runner.invoke(app, [*args, "--device", "cpu", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return json.loads(result.stdout)


def assert_figures_of(doc, table: np.ndarray, vocab: int, max_offset: int = 8):
    rows, dim = table.shape
    assert doc["table"]["rows"] == rows and doc["table"]["dim"] == dim
    norms = np.linalg.norm(table.astype(np.float64), axis=1)
    for key, value in (("norm_min", norms.min()), ("norm_mean", norms.mean()), ("norm_max", norms.max())):
        assert doc["table"][key] == pytest.approx(value, rel=1e-6)
    assert doc["params"] == {"token": vocab * dim, "position": rows * dim, "total": (vocab + rows) * dim,
                             "overhead": rows / vocab}
    direct = neighbour_similarity(torch.from_numpy(table), max_offset)  # the same table analysed directly
    oracle = neighbour_cosines(table, max_offset)
    for got, same, expected in zip(doc["neighbour_similarity"], direct, oracle):
        assert got == same
        for key in ("mean", "min", "max"):
            assert got[key] == pytest.approx(expected[key], abs=1e-6)


def test_inspect_gpt2_safetensors(tmp_path):
    tensors = gpt2_tensors(rows=40, dim=16, vocab=50)
    doc = run_json("inspect", "--checkpoint", save_safetensors(tmp_path / "model.safetensors", tensors))
    assert doc["schema"] == "posemb.inspect/1"
    assert doc["scheme"] == "checkpoint" and doc["config"]["scheme"] == "checkpoint"
    assert (doc["config"]["dim"], doc["config"]["ctx"], doc["config"]["vocab"]) == (16, 40, 50)
    assert doc["source"]["checkpoint"].endswith("model.safetensors")
    assert (doc["source"]["key"], doc["source"]["position_offset"]) == ("transformer.wpe.weight", 0)
    assert doc["shapes"] == {"ids": [4, 40], "token": [4, 40, 16], "position": [40, 16], "output": [4, 40, 16]}
    assert_figures_of(doc, tensors["transformer.wpe.weight"], vocab=50)


def test_inspect_roberta_directory_uses_rows_after_padding(tmp_path):
    tensors = roberta_tensors(rows=42, dim=16, vocab=60)
    save_safetensors(tmp_path / "model.safetensors", tensors)
    write_config(tmp_path, model_type="roberta", pad_token_id=1, max_position_embeddings=42)
    doc = run_json("inspect", "--checkpoint", str(tmp_path))
    assert doc["source"]["position_offset"] == 2 and "padding_idx 1" in doc["source"]["offset_reason"]
    table = tensors["roberta.embeddings.position_embeddings.weight"]
    assert_figures_of(doc, table[2:], vocab=60)
    override = run_json("inspect", "--checkpoint", str(tmp_path), "--position-offset", "0")
    assert override["source"]["position_offset"] == 0
    assert_figures_of(override, table, vocab=60)


def test_inspect_opt_bin_and_npy_and_key(tmp_path):
    tensors = opt_tensors(rows=34, dim=16, vocab=70)
    (tmp_path / "opt").mkdir()
    save_torch(tmp_path / "opt" / "pytorch_model.bin", tensors)
    write_config(tmp_path / "opt", model_type="opt")  # the family, not the key name, sets the offset
    doc = run_json("inspect", "--checkpoint", str(tmp_path / "opt" / "pytorch_model.bin"), "-k", "4")
    assert doc["source"]["position_offset"] == 2
    assert_figures_of(doc, tensors["model.decoder.embed_positions.weight"][2:], vocab=70, max_offset=4)
    table = sinusoidal_table(48, 8).astype(np.float32)
    np.save(tmp_path / "table.npy", table)
    doc = run_json("inspect", "--checkpoint", str(tmp_path / "table.npy"), "--vocab", "100")
    assert doc["source"]["key"] == "table"
    assert_figures_of(doc, table, vocab=100)
    np.savez(tmp_path / "two.npz", first=table, second=table[:20])
    doc = run_json("inspect", "--checkpoint", str(tmp_path / "two.npz"), "--key", "second", "--vocab", "100")
    assert_figures_of(doc, table[:20], vocab=100)


def test_compare_checkpoint_beside_formula_tables(tmp_path):
    tensors = gpt2_tensors(rows=40, dim=16, vocab=50)
    doc = run_json("compare", "--checkpoint", save_safetensors(tmp_path / "m.safetensors", tensors),
                   "--schemes", "sinusoidal")
    assert doc["config"]["schemes"] == ["checkpoint", "sinusoidal"]
    real, formula = doc["schemes"]
    assert real["source"]["key"] == "transformer.wpe.weight" and "source" not in formula
    assert real["table"]["rows"] == formula["table"]["rows"] == 40
    assert real["table"]["dim"] == formula["table"]["dim"] == 16
    assert_figures_of(real, tensors["transformer.wpe.weight"], vocab=50)
    expected = neighbour_cosines(sinusoidal_table(40, 16), 8)
    for got, want in zip(formula["neighbour_similarity"], expected, strict=True):
        for key in ("mean", "min", "max"):
            assert got[key] == pytest.approx(want[key], abs=1e-6), (got["offset"], key)


def test_pictures_in_the_terminal_and_never_under_json(tmp_path):
    model = save_safetensors(tmp_path / "m.safetensors", gpt2_tensors(rows=40, dim=16))
    shown = runner.invoke(app, ["inspect", "--checkpoint", model, "--device", "cpu"], terminal_width=100)
    assert shown.exit_code == 0, shown.output
    assert "Similarity heatmap, checkpoint" in shown.stdout and "Decay of similarity" in shown.stdout
    hidden = runner.invoke(app, ["inspect", "--checkpoint", model, "--device", "cpu", "--no-plot"])
    assert hidden.exit_code == 0 and "Similarity heatmap" not in hidden.stdout
    assert "Row norms" in hidden.stdout
    as_json = runner.invoke(app, ["inspect", "--checkpoint", model, "--device", "cpu", "--json"])
    json.loads(as_json.stdout)
    assert "heatmap" not in as_json.stdout.lower()


def test_pickle_with_code_refused_through_the_cli(tmp_path):
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    torch.save({"wpe.weight": torch.zeros(16, 4), "x": Payload()}, tmp_path / "pytorch_model.bin")
    result = runner.invoke(app, ["inspect", "--checkpoint", str(tmp_path / "pytorch_model.bin"), "--json"])
    assert result.exit_code == 2
    assert result.stdout == "" and "Traceback" not in result.output
    assert "refused" in result.stderr and result.stderr.count("\n") == 1
    assert not marker.exists()


@pytest.mark.parametrize("args, needle", [
    (["--key", "wpe.weight"], "--key needs --checkpoint"),
    (["--position-offset", "2"], "--position-offset needs --checkpoint"),
    (["--checkpoint", "nowhere.safetensors"], "no such file"),
])
def test_bad_checkpoint_flags(args, needle):
    result = runner.invoke(app, ["inspect", *args, "--json"])
    assert result.exit_code == 2
    assert needle in result.stderr and result.stdout == ""


def test_several_candidates_listed(tmp_path):
    model = save_safetensors(tmp_path / "m.safetensors", {
        "encoder.embed_positions.weight": np.zeros((16, 4), np.float32),
        "decoder.embed_positions.weight": np.zeros((16, 4), np.float32)})
    result = runner.invoke(app, ["compare", "--checkpoint", model])
    assert result.exit_code == 2
    assert "several position tables: decoder.embed_positions.weight, encoder.embed_positions.weight" in result.stderr
    assert "--key" in result.stderr


def test_help_mentions_the_new_flags():
    result = runner.invoke(app, ["inspect", "--help"], terminal_width=200)
    for flag in ("--checkpoint", "--key", "--position-offset", "--no-plot", "--plot"):
        assert flag in result.stdout


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA")
def test_checkpoint_on_cuda_matches_cpu(tmp_path):
    model = save_safetensors(tmp_path / "m.safetensors", gpt2_tensors(rows=40, dim=16))
    on_cuda = runner.invoke(app, ["inspect", "--checkpoint", model, "--device", "cuda", "--plot",
                                  str(tmp_path / "f.png"), "--json"])
    assert on_cuda.exit_code == 0, on_cuda.output
    on_cpu = run_json("inspect", "--checkpoint", model)
    for got, expected in zip(json.loads(on_cuda.stdout)["neighbour_similarity"], on_cpu["neighbour_similarity"]):
        assert got["mean"] == pytest.approx(expected["mean"], abs=1e-5)
    shown = runner.invoke(app, ["inspect", "--checkpoint", model, "--device", "cuda"], terminal_width=100)
    assert shown.exit_code == 0 and "Similarity heatmap" in shown.stdout


def test_a_typed_flag_that_the_file_contradicts_is_refused(tmp_path):
    path = save_safetensors(tmp_path / "model.safetensors", gpt2_tensors(rows=40, dim=16, vocab=50))
    for flag, value in (("--dim", "64"), ("--ctx", "512"), ("--vocab", "32000")):
        result = runner.invoke(app, ["inspect", "--checkpoint", path, flag, value, "--json"])
        assert result.exit_code == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and f"{flag} {value} conflicts with --checkpoint" in result.stderr
    agreeing = runner.invoke(app, ["compare", "--checkpoint", path, "--dim", "16", "--json"])
    assert agreeing.exit_code == 0, agreeing.output


def test_a_typed_scheme_that_a_config_contradicts_is_refused(tmp_path):
    write_config(tmp_path, model_type="llama", hidden_size=64, num_attention_heads=4, max_position_embeddings=256,
                 rope_theta=10000.0)
    result = runner.invoke(app, ["inspect", "--config", str(tmp_path), "--scheme", "learned", "--json"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "--scheme learned conflicts with --config" in result.stderr
