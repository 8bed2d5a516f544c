"""Reading a real model's position table: formats, names, family offsets, the token table."""

import json

import numpy as np
import pytest
import torch
from posemb_cli.core.schemes.table import TablePositionalEmbedding
from posemb_cli.request.words import worded
from posemb_cli.run.config import PosembError
from posemb_cli.sources.weights.position_table import load_checkpoint

from tests.model_files import gpt2_tensors, opt_tensors, roberta_tensors, save_safetensors, save_torch, write_config


def test_gpt2_safetensors_reads_wpe_and_wte(tmp_path):
    tensors = gpt2_tensors(rows=40, dim=16, vocab=50)
    loaded = load_checkpoint(save_safetensors(tmp_path / "model.safetensors", tensors))
    assert loaded.key == "transformer.wpe.weight"
    assert loaded.token_key == "transformer.wte.weight"
    assert (loaded.rows, loaded.dim, loaded.vocab, loaded.position_offset) == (40, 16, 50, 0)
    torch.testing.assert_close(loaded.table, torch.from_numpy(tensors["transformer.wpe.weight"]), rtol=0, atol=0)
    assert loaded.source()["checkpoint"].endswith("model.safetensors")


def test_safetensors_reads_only_the_position_tensor(tmp_path, monkeypatch):
    from safetensors import safe_open

    read = []
    original = type(safe_open(save_safetensors(tmp_path / "m.safetensors", gpt2_tensors()), framework="pt"))

    class Spy:
        def __init__(self, *args, **kwargs):
            self.inner = original(*args, **kwargs)

        def __enter__(self):
            self.inner.__enter__()
            return self

        def __exit__(self, *exc):
            return self.inner.__exit__(*exc)

        def keys(self):
            return self.inner.keys()

        def get_slice(self, name):
            return self.inner.get_slice(name)

        def get_tensor(self, name):
            read.append(name)
            return self.inner.get_tensor(name)

    from posemb_cli.sources.safetensors import tensor_map as safetensors_map

    mapped = safetensors_map.mapped_tensor

    def mapped_spy(path, name):  # float tensors are read as views of the file's map
        read.append(name)
        return mapped(path, name)

    monkeypatch.setattr("safetensors.safe_open", Spy)
    monkeypatch.setattr(safetensors_map, "mapped_tensor", mapped_spy)
    load_checkpoint(str(tmp_path / "m.safetensors"))
    assert read == ["transformer.wpe.weight"]


def test_roberta_directory_offset_from_config(tmp_path):
    tensors = roberta_tensors(rows=42)
    save_safetensors(tmp_path / "model.safetensors", tensors)
    write_config(tmp_path, model_type="roberta", pad_token_id=1, max_position_embeddings=42)
    loaded = load_checkpoint(str(tmp_path))
    assert loaded.key == "roberta.embeddings.position_embeddings.weight"
    assert loaded.token_key == "roberta.embeddings.word_embeddings.weight"
    assert (loaded.position_offset, loaded.rows, loaded.stored_rows, loaded.vocab) == (2, 40, 42, 60)
    assert "padding_idx 1" in loaded.offset_reason
    expected = tensors["roberta.embeddings.position_embeddings.weight"][2:]
    np.testing.assert_array_equal(loaded.table.numpy(), expected)


def test_roberta_offset_follows_pad_token_id_and_override(tmp_path):
    save_safetensors(tmp_path / "model.safetensors", roberta_tensors(rows=42))
    write_config(tmp_path, model_type="xlm-roberta", pad_token_id=3)
    assert load_checkpoint(str(tmp_path)).position_offset == 4
    assert load_checkpoint(str(tmp_path), position_offset=0).position_offset == 0
    assert load_checkpoint(str(tmp_path), position_offset=5).rows == 37


def test_opt_bin_in_directory_offset_two(tmp_path):
    tensors = opt_tensors(rows=34)
    save_torch(tmp_path / "pytorch_model.bin", tensors)
    write_config(tmp_path, model_type="opt", max_position_embeddings=32)
    loaded = load_checkpoint(str(tmp_path))
    assert (loaded.key, loaded.position_offset, loaded.rows, loaded.vocab, loaded.kind) == (
        "model.decoder.embed_positions.weight", 2, 32, 70, "torch")
    np.testing.assert_array_equal(loaded.table.numpy(), tensors["model.decoder.embed_positions.weight"][2:])


def test_name_hints_without_config(tmp_path):
    # embed_positions is OPT's and BART's (offset 2) but also Whisper's (offset 0): no guess, a note instead.
    opt = load_checkpoint(save_torch(tmp_path / "opt.pt", opt_tensors()))
    assert opt.position_offset == 0 and "give a position offset 2 for OPT or BART" in opt.offset_reason
    said = load_checkpoint(str(tmp_path / "opt.pt"), offset_given_as="--position-offset")  # as the CLI names it
    assert said.position_offset == 0 and "give --position-offset 2 for OPT or BART" in said.offset_reason
    assert load_checkpoint(save_safetensors(tmp_path / "r.safetensors", roberta_tensors())).position_offset == 2


def test_nested_state_dict_and_bert_names(tmp_path):
    table = np.random.default_rng(0).normal(size=(20, 8)).astype(np.float32)
    state = {"state_dict": {"bert.embeddings.position_embeddings.weight": torch.from_numpy(table),
                            "bert.embeddings.word_embeddings.weight": torch.zeros(30, 8)}}
    torch.save(state, tmp_path / "ckpt.pt")
    loaded = load_checkpoint(str(tmp_path / "ckpt.pt"))
    assert loaded.key == "state_dict.bert.embeddings.position_embeddings.weight"
    assert (loaded.position_offset, loaded.vocab) == (0, 30)
    np.testing.assert_array_equal(loaded.table.numpy(), table)


def test_npy_and_npz(tmp_path):
    table = np.random.default_rng(1).normal(size=(24, 8)).astype(np.float32)
    np.save(tmp_path / "positions.npy", table)
    loaded = load_checkpoint(str(tmp_path / "positions.npy"))
    assert (loaded.key, loaded.rows, loaded.vocab) == ("positions", 24, None)
    np.savez(tmp_path / "weights.npz", wpe=table, wte=np.zeros((40, 8), np.float32))
    loaded = load_checkpoint(str(tmp_path / "weights.npz"))
    assert (loaded.key, loaded.vocab) == ("wpe", 40)
    np.testing.assert_array_equal(loaded.table.numpy(), table)


def test_bfloat16_table_is_read(tmp_path):
    from safetensors.torch import save_file

    table = torch.randn(16, 8).to(torch.bfloat16)
    save_file({"wpe.weight": table}, str(tmp_path / "m.safetensors"))
    loaded = load_checkpoint(str(tmp_path / "m.safetensors"))
    assert loaded.stored_dtype == "bfloat16"
    assert torch.equal(loaded.table, table)


def test_pickle_with_code_is_refused_and_never_runs(tmp_path):
    marker = tmp_path / "pwned"

    class Payload:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    torch.save({"wpe.weight": torch.zeros(8, 4), "payload": Payload()}, tmp_path / "evil.bin")
    with pytest.raises(PosembError, match="refused"):
        load_checkpoint(str(tmp_path / "evil.bin"))
    assert not marker.exists()


def test_npy_with_objects_is_refused(tmp_path):
    np.save(tmp_path / "objects.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(PosembError, match="not a plain .npy"):
        load_checkpoint(str(tmp_path / "objects.npy"))


@pytest.mark.parametrize("tensors, key, needle", [
    ({"encoder.embed_positions.weight": np.zeros((8, 4), np.float32),
      "decoder.embed_positions.weight": np.zeros((8, 4), np.float32)}, None, "several position tables"),
    ({"lm_head.weight": np.zeros((8, 4), np.float32)}, None, "no position table found"),
    ({"wpe.weight": np.zeros((8, 4), np.float32)}, "missing.weight", "--key 'missing.weight'"),
    ({"wpe.weight": np.zeros((8, 4), np.float32), "bias": np.zeros(4, np.float32)}, "bias", "not a (rows, dim)"),
])
def test_ambiguous_missing_or_bad_keys(tmp_path, tensors, key, needle):
    path = save_safetensors(tmp_path / "m.safetensors", tensors)
    with pytest.raises(PosembError) as info:
        load_checkpoint(path, key=key)
    assert needle in worded(info.value)  # as the command line names the option
    if "several" in needle:
        assert "decoder.embed_positions.weight" in str(info.value)
        assert "encoder.embed_positions.weight" in str(info.value)
    assert len(load_checkpoint(path, key=next(iter(tensors)), position_offset=0).table) == 8


def test_key_picks_by_hand(tmp_path):
    tensors = {"encoder.embed_positions.weight": np.ones((8, 4), np.float32),
               "decoder.embed_positions.weight": np.zeros((10, 4), np.float32)}
    path = save_safetensors(tmp_path / "m.safetensors", tensors)
    loaded = load_checkpoint(path, key="decoder.embed_positions.weight", position_offset=0)
    assert (loaded.key, loaded.rows) == ("decoder.embed_positions.weight", 10)


@pytest.mark.parametrize("make, needle", [
    (lambda d: str(d / "absent.safetensors"), "no such file"),
    (lambda d: (d / "w.txt").write_text("x") and str(d / "w.txt"), "unsupported file type"),
    (lambda d: (d / "bad.safetensors").write_bytes(b"\x05\x00garbage") and str(d / "bad.safetensors"),
     "not a valid safetensors"),
    (lambda d: (d / "bad.bin").write_bytes(b"not a pickle") and str(d / "bad.bin"), "not a readable PyTorch"),
    (lambda d: str(d), "holds none of model.safetensors"),
])
def test_unreadable_files(tmp_path, make, needle):
    with pytest.raises(PosembError, match=needle):
        load_checkpoint(make(tmp_path))


def test_offset_out_of_range(tmp_path):
    path = save_safetensors(tmp_path / "m.safetensors", {"wpe.weight": np.zeros((8, 4), np.float32)})
    with pytest.raises(PosembError) as info:
        load_checkpoint(path, position_offset=7)
    assert worded(info.value).startswith("--position-offset 7: must be in [0, 6]")


def test_table_scheme_follows_the_protocol():
    table = torch.randn(12, 6)
    scheme = TablePositionalEmbedding(table, dtype=torch.float64)
    assert (scheme.max_ctx, scheme.dim, scheme.bands()) == (12, 6, None)
    assert sum(p.numel() for p in scheme.parameters()) == 72
    torch.testing.assert_close(scheme(5), table[:5].double())
    assert scheme.table().shape == (12, 6)
    with pytest.raises(PosembError, match="sequence length 13 exceeds max context 12"):
        scheme(13)


def test_sharded_safetensors_directory(tmp_path):
    tensors = gpt2_tensors(rows=40, dim=16, vocab=50)
    for shard, name in (("model-00001-of-00002", "transformer.wte.weight"),
                        ("model-00002-of-00002", "transformer.wpe.weight")):
        save_safetensors(tmp_path / f"{shard}.safetensors", {name: tensors[name]})
    index = {"metadata": {}, "weight_map": {"transformer.wte.weight": "model-00001-of-00002.safetensors",
                                            "transformer.wpe.weight": "model-00002-of-00002.safetensors"}}
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))
    write_config(tmp_path, model_type="gpt2")
    loaded = load_checkpoint(str(tmp_path))
    assert (loaded.key, loaded.vocab, loaded.rows, loaded.kind) == ("transformer.wpe.weight", 50, 40, "safetensors")
    np.testing.assert_array_equal(loaded.table.numpy(), tensors["transformer.wpe.weight"])
