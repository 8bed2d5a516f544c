"""Every family of the zoo through ``--config`` and ``--checkpoint``: the right analysis or one clear refusal.

Oracles: the tensors themselves read back with safetensors, cosines in NumPy,
and transformers' own ALiBi and sinusoidal functions.
"""

import json
import os
import shutil

import numpy as np
import pytest
import torch
from posemb_cli.cli.app import app
from typer.testing import CliRunner

from tests.model_zoo import zoo_model, zoo_tensors, zoo_weights_only
from tests.oracles import neighbour_cosines

runner = CliRunner()

# family -> (position table key, rows the family reserves, token table key or None, config-only refusal needle)
LEARNED = {
    "gpt2": ("transformer.wpe.weight", 0, "transformer.wte.weight"),
    "gpt_neo": ("transformer.wpe.weight", 0, "transformer.wte.weight"),
    "opt": ("model.decoder.embed_positions.weight", 2, "model.decoder.embed_tokens.weight"),
    # word_embed_proj_dim 16 != hidden 32: the token table as stored, [99, 16], gives the token parameters
    "opt_proj": ("model.decoder.embed_positions.weight", 2, "model.decoder.embed_tokens.weight"),
    "roberta": ("embeddings.position_embeddings.weight", 2, "embeddings.word_embeddings.weight"),  # pad 1 + 1
    "xlm-roberta": ("embeddings.position_embeddings.weight", 2, "embeddings.word_embeddings.weight"),
    "camembert": ("embeddings.position_embeddings.weight", 4, "embeddings.word_embeddings.weight"),  # pad 3 + 1
    "bert": ("embeddings.position_embeddings.weight", 0, "embeddings.word_embeddings.weight"),
    "distilbert": ("embeddings.position_embeddings.weight", 0, "embeddings.word_embeddings.weight"),
    "electra": ("embeddings.position_embeddings.weight", 0, "embeddings.word_embeddings.weight"),
    "albert": ("embeddings.position_embeddings.weight", 0, "embeddings.word_embeddings.weight"),
    "vit": ("embeddings.position_embeddings", 1, None),  # row 0: the class token
    "clip_vision": ("embeddings.position_embedding.weight", 1, None),
}
# families with two tables: --key picks one; (key, offset)
TWO_TABLES = {
    "bart": [("encoder.embed_positions.weight", 2), ("decoder.embed_positions.weight", 2)],
    "mbart": [("encoder.embed_positions.weight", 2), ("decoder.embed_positions.weight", 2)],
    "whisper": [("encoder.embed_positions.weight", 0), ("decoder.embed_positions.weight", 0)],
    "clip": [("text_model.embeddings.position_embedding.weight", 0),
             ("vision_model.embeddings.position_embedding.weight", 1)],
}


def invoke(*args):
    return runner.invoke(app, [*args, "--device", "cpu"])


def run_json(*args):
    result = invoke(*args, "--json", "-k", "4")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout), result.stderr


def refused(*args) -> str:
    result = invoke(*args, "--json")
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1
    return result.stderr


def assert_table(doc, stored: torch.Tensor, offset: int, token_parameters: int | None):
    """The analysed rows are the stored tensor's rows from ``offset``; the figures are their cosines."""
    table = stored.reshape(-1, stored.shape[-1])[offset:].double().numpy()
    rows, dim = table.shape
    assert doc["table"]["rows"] == rows and doc["table"]["dim"] == dim
    assert doc["source"]["position_offset"] == offset
    norms = np.linalg.norm(table, axis=1)
    assert doc["table"]["norm_mean"] == pytest.approx(norms.mean(), rel=1e-6)
    for got, expected in zip(doc["neighbour_similarity"], neighbour_cosines(table, 4)):
        for key in ("mean", "min", "max"):
            assert got[key] == pytest.approx(expected[key], abs=1e-6)
    if token_parameters is None:
        assert doc["params"] == {"token": None, "position": rows * dim, "total": None, "overhead": None}
        assert "token parameters unknown" in doc["source"]["token_note"]
    else:
        assert doc["params"]["token"] == token_parameters


@pytest.mark.parametrize("family", LEARNED)
@pytest.mark.parametrize("flag", ["--checkpoint", "--config"])
def test_learned_tables_read_right(family, flag):
    key, offset, token_key = LEARNED[family]
    tensors = zoo_tensors(family)
    doc, _ = run_json("inspect", flag, zoo_model(family))
    assert (doc["source"]["kind"], doc["source"]["key"]) == ("learned", key)
    assert doc["source"]["decided_by"].startswith("config.json model_type")
    assert_table(doc, tensors[key], offset, tensors[token_key].numel() if token_key else None)


@pytest.mark.parametrize("family", TWO_TABLES)
def test_two_tables_need_a_key_and_each_reads_right(family):
    assert "--key" in refused("inspect", "--checkpoint", zoo_model(family))
    assert "--checkpoint" in refused("inspect", "--config", zoo_model(family))
    tensors = zoo_tensors(family)
    for key, offset in TWO_TABLES[family]:
        doc, _ = run_json("inspect", "--checkpoint", zoo_model(family), "--key", key)
        dim = tensors[key].shape[-1]
        assert_table(doc, tensors[key], offset, None if family == "clip" and "vision" in key else 99 * dim)


@pytest.mark.parametrize("family", [*LEARNED, *TWO_TABLES])
def test_a_config_alone_of_a_learned_model_asks_for_the_weights(family, tmp_path):
    shutil.copy(os.path.join(zoo_model(family), "config.json"), tmp_path / "config.json")
    message = refused("inspect", "--config", str(tmp_path / "config.json"))
    assert "this model uses a learned position table; pass the weights with --checkpoint" in message


def test_the_vision_class_row_is_kept_apart():
    doc, _ = run_json("inspect", "--checkpoint", zoo_model("vit"))
    stored = zoo_tensors("vit")["embeddings.position_embeddings"][0]
    assert doc["source"]["class_token_row"]["norm"] == pytest.approx(float(stored[0].double().norm()), rel=1e-9)


def test_a_bare_whisper_file_gets_no_guessed_offset(tmp_path):
    path = zoo_weights_only("whisper", tmp_path)
    doc, _ = run_json("inspect", "--checkpoint", path, "--key", "decoder.embed_positions.weight")
    assert_table(doc, zoo_tensors("whisper")["decoder.embed_positions.weight"], 0, 99 * 32)
    assert "no config.json" in doc["source"]["offset_reason"]


def test_a_bare_vit_file_finds_its_class_row_by_name(tmp_path):
    doc, _ = run_json("inspect", "--checkpoint", zoo_weights_only("vit", tmp_path))
    assert_table(doc, zoo_tensors("vit")["embeddings.position_embeddings"], 1, None)


def test_vocab_by_hand_still_counts_tokens():
    doc, _ = run_json("inspect", "--checkpoint", zoo_model("vit"), "--vocab", "50")  # a vision table: no tokens
    assert doc["params"]["token"] == 50 * 32 and "--vocab" in doc["source"]["token_note"]


@pytest.mark.parametrize("command", ["inspect", "compare"])
def test_a_token_table_of_another_width_is_the_models(command):
    """OPT-350m's shape (tokens word_embed_proj_dim wide, projected to hidden_size), here a tiny OPT saved by
    transformers: the token figures are the stored table's [V, word_embed_proj_dim], and V sizes the batch."""
    import transformers

    folder = zoo_model("opt_proj")
    config = transformers.OPTConfig.from_pretrained(folder)
    assert config.word_embed_proj_dim != config.hidden_size
    stored = zoo_tensors("opt_proj")["model.decoder.embed_tokens.weight"]
    assert list(stored.shape) == [config.vocab_size, config.word_embed_proj_dim]
    doc, _ = run_json(command, "--checkpoint", folder)
    entry = doc if command == "inspect" else doc["schemes"][0]
    position = zoo_tensors("opt_proj")["model.decoder.embed_positions.weight"][2:]
    assert entry["params"] == {"token": stored.numel(), "position": position.numel(),
                               "total": stored.numel() + position.numel(),
                               "overhead": position.numel() / stored.numel()}
    assert entry["model"]["token_table"] == list(stored.shape)
    assert entry["model"]["token_parameters"] == stored.numel()
    assert doc["config"]["vocab"] == config.vocab_size and "model_vocab" not in doc["config"]
    assert f"[{config.vocab_size}, {config.word_embed_proj_dim}]" in entry["source"]["token_note"]
    message = refused(command, "--checkpoint", folder, "--vocab", "50")
    assert "--vocab" in message


@pytest.mark.parametrize("command", ["inspect", "compare"])
def test_a_bare_opt_350m_file_reads_its_projected_token_table_and_offset(command, tmp_path):
    """OPT-350m's weights alone: tokens 16 wide beside 32-wide positions, and project_in [32, 16] mapping one to the
    other, which only OPT holds: the stored token table gives the token figures, OPT's offset of 2 the rows."""
    from tests.model_files import save_safetensors

    stored = zoo_tensors("opt_proj")
    tokens, projection = stored["model.decoder.embed_tokens.weight"], stored["model.decoder.project_in.weight"]
    position = stored["model.decoder.embed_positions.weight"]
    assert projection.shape == (position.shape[1], tokens.shape[1]) and tokens.shape[1] != position.shape[1]
    doc, _ = run_json(command, "--checkpoint", zoo_weights_only("opt_proj", tmp_path))
    entry = doc if command == "inspect" else doc["schemes"][0]
    assert entry["params"] == {"token": tokens.numel(), "position": position[2:].numel(),
                               "total": tokens.numel() + position[2:].numel(),
                               "overhead": position[2:].numel() / tokens.numel()}
    assert doc["config"]["vocab"] == tokens.shape[0] and doc["config"]["ctx"] == position.shape[0] - 2
    assert entry["source"]["position_offset"] == 2 and "project_in" in entry["source"]["offset_reason"]
    assert "model.decoder.project_in.weight" in entry["source"]["token_note"]
    # without the projection nothing in the file ties the two widths: the token table stays unknown, rows from 0
    alone = {name: value.numpy() for name, value in stored.items() if "project_in" not in name}
    doc, _ = run_json(command, "--checkpoint", save_safetensors(tmp_path / "no_projection.safetensors", alone))
    entry = doc if command == "inspect" else doc["schemes"][0]
    assert entry["params"]["token"] is None and entry["source"]["position_offset"] == 0


def test_an_unknown_token_table_is_a_dash_in_the_tables():
    result = invoke("inspect", "--checkpoint", zoo_model("vit"), "--no-plot", "-k", "4")
    assert result.exit_code == 0, result.output
    cells = [line.replace("│", " ").split() for line in result.stdout.splitlines()]
    # Parameters: one row per scheme (scheme, token, positional, total, overhead)
    assert ["checkpoint", "-", "512", "-", "-"] in cells
    assert "V=unknown (ids < 32000)" in result.stdout and "V=32000" not in result.stdout


@pytest.mark.parametrize("family, key, needle", [
    ("gpt2", "transformer.wte.weight", "token table"),
    ("bert", "embeddings.word_embeddings.weight", "token table"),
    ("llama", "embed_tokens.weight", "RoPE"),
])
def test_key_refuses_a_token_table(family, key, needle):
    message = refused("inspect", "--checkpoint", zoo_model(family), "--key", key)
    assert needle in message and ("--key" in message if family == "llama" else key in message)


@pytest.mark.parametrize("family, flag", [("t5", "--config"),  # T5 --checkpoint: tests/cli/test_relative_bias_cli.py
                                          ("deberta-v2", "--config"), ("deberta-v2", "--checkpoint")])
def test_relative_kinds_are_named(family, flag):
    message = refused("inspect", flag, zoo_model(family))
    assert ("relative-attention bias" if family == "t5" else "relative position embeddings") in message
    if flag == "--config":
        assert "--checkpoint DIR" in message


def _transformers_slopes(family: str, heads: int) -> list[float]:
    if family == "bloom":
        from transformers.models.bloom.modeling_bloom import build_alibi_tensor

        return build_alibi_tensor(torch.ones(1, 2), heads, torch.float64)[:, 0, 1].tolist()
    from transformers.models.mpt.modeling_mpt import build_mpt_alibi_tensor

    return (-build_mpt_alibi_tensor(heads, 2)[:, 0, 0]).tolist()


@pytest.mark.parametrize("family", ["bloom", "mpt"])
@pytest.mark.parametrize("flag", ["--config", "--checkpoint"])
def test_alibi_models_use_their_head_count_and_slopes(family, flag):
    doc, stderr = run_json("inspect", flag, zoo_model(family))
    assert doc["scheme"] == "alibi" and doc["source"]["kind"] == "alibi" and doc["config"]["heads"] == 4
    assert doc["slopes"] == pytest.approx(_transformers_slopes(family, 4), rel=1e-6)
    assert doc["config"]["dim"] == 32 and doc["params"]["token"] == 99 * 32
    assert doc["config"]["ctx"] == (64 if family == "mpt" else 512)  # BLOOM states no length: --ctx
    assert ("analysed from its config.json" in stderr) == (flag == "--checkpoint")


def test_alibi_with_six_heads_matches_transformers(tmp_path):
    import transformers

    for family, config in (("bloom", transformers.BloomConfig(vocab_size=99, hidden_size=48, n_head=6)),
                           ("mpt", transformers.MptConfig(vocab_size=99, d_model=48, n_heads=6, max_seq_len=64))):
        config.save_pretrained(tmp_path / family)
        doc, _ = run_json("inspect", "--config", str(tmp_path / family))
        assert doc["slopes"] == pytest.approx(_transformers_slopes(family, 6), rel=1e-6)


@pytest.mark.parametrize("family", ["llama", "phi", "gpt_neox"])
def test_rope_checkpoints_are_analysed_from_their_config(family):
    from_checkpoint, stderr = run_json("inspect", "--checkpoint", zoo_model(family))
    from_config, _ = run_json("inspect", "--config", zoo_model(family))
    assert from_checkpoint["scheme"] == "rope" and from_checkpoint["source"]["kind"] == "rope"
    assert from_checkpoint["bands"] == from_config["bands"]
    assert from_checkpoint["source"]["analysed_from"] == "config.json beside the weights"
    assert "RoPE" in stderr and "analysed from its config.json" in stderr


def test_a_fixed_sinusoidal_table_from_its_formula(tmp_path):
    from transformers.models.distilbert.modeling_distilbert import (
        create_sinusoidal_embeddings,
    )

    shutil.copy(os.path.join(zoo_model("distilbert_sinusoidal"), "config.json"), tmp_path / "config.json")
    doc, _ = run_json("inspect", "--config", str(tmp_path))
    assert doc["scheme"] == "sinusoidal" and doc["source"]["kind"] == "sinusoidal"
    table = torch.empty(64, 32)
    create_sinusoidal_embeddings(64, 32, table)
    for got, expected in zip(doc["neighbour_similarity"], neighbour_cosines(table.double().numpy(), 4)):
        assert got["mean"] == pytest.approx(expected["mean"], abs=1e-6)


def test_compare_reads_the_classified_table_and_names_other_kinds():
    doc, _ = run_json("compare", "--checkpoint", zoo_model("vit"), "--schemes", "sinusoidal")
    first = doc["schemes"][0]
    assert first["source"]["kind"] == "learned" and first["params"]["token"] is None
    assert doc["schemes"][1]["params"]["token"] == 32000 * 32  # a built scheme keeps the batch's table
    assert_table(first, zoo_tensors("vit")["embeddings.position_embeddings"], 1, None)
    message = refused("compare", "--checkpoint", zoo_model("llama"))
    assert "RoPE" in message and "posemb inspect --checkpoint" in message


@pytest.mark.parametrize("family, key", [("vit", "embeddings.position_embeddings"),
                                         ("clip_vision", "embeddings.position_embedding.weight")])
def test_vision_patches_are_analysed_as_a_grid(family, key):
    from tests.measures.test_grid import loop_oracle

    doc, _ = run_json("inspect", "--checkpoint", zoo_model(family))
    patches = zoo_tensors(family)[key].reshape(17, 32)[1:].double().numpy()  # 1 class row + 4 x 4 patches
    by_row, by_column = loop_oracle(patches, 4)
    assert doc["grid"]["side"] == 4
    assert [item["mean"] for item in doc["grid"]["by_row_distance"]] == pytest.approx(by_row, abs=1e-9)
    assert [item["mean"] for item in doc["grid"]["by_column_distance"]] == pytest.approx(by_column, abs=1e-9)


def test_the_stderr_note_is_one_line():
    _, stderr = run_json("inspect", "--checkpoint", zoo_model("llama"))
    assert len(stderr.strip().splitlines()) == 1
