"""A model named as people name it: a path, a Hugging Face id in the local cache, an Ollama name."""

from __future__ import annotations

from pathlib import Path

import pytest
from posemb_cli.errors import FileError, PosembError
from posemb_cli.sources.naming.model_file import model_file
from posemb_cli.sources.naming.read import read_model
from posemb_cli.sources.naming.resolve import resolve_model

from tests.gguf_files import write_gguf
from tests.model_zoo import zoo_model
from tests.naming_stores import add_to_hf_cache, add_to_ollama_store, hf_cache_is_valid

COMMIT, OLD = "a" * 40, "b" * 40


@pytest.fixture
def hf_cache(tmp_path, monkeypatch):
    """A cache holding a tiny Llama (main and tag v1 at one commit, an older commit), a sharded copy and a GGUF repo."""
    cache = tmp_path / "hub"
    llama = Path(zoo_model("llama"))
    add_to_hf_cache(cache, "tiny/llama", {"config.json": llama / "config.json",
                                          "model.safetensors": llama / "model.safetensors"},
                    commit=COMMIT, refs=("main", "v1"))
    old = tmp_path / "old-config.json"
    old.write_text((llama / "config.json").read_text().replace('"rope_theta": 10000.0', '"rope_theta": 500.0'))
    add_to_hf_cache(cache, "tiny/llama", {"config.json": old}, commit=OLD, refs=())
    add_to_hf_cache(cache, "tiny/llama-sharded", {"config.json": llama / "config.json",
                                                  "model-00001-of-00002.safetensors": llama / "model.safetensors",
                                                  "model.safetensors.index.json": llama / "config.json"},
                    commit=COMMIT)
    gguf = write_gguf(tmp_path / "m.gguf", "llama", {"context_length": 256, "embedding_length": 64,
                                                    "block_count": 2, "attention.head_count": 4,
                                                    "rope.freq_base": 50000.0}, tokens=10)
    add_to_hf_cache(cache, "tiny/llama-GGUF", {"tiny-Q4_K_M.gguf": Path(gguf), "tiny-Q8_0.gguf": Path(gguf)},
                    commit=COMMIT)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    assert hf_cache_is_valid(cache)
    return cache


def test_a_path_is_itself(tmp_path):
    found = resolve_model(zoo_model("llama"))
    assert found.path == zoo_model("llama") and found.how == "path" and model_file(found.name).has_weights
    (tmp_path / "config.json").write_text("{}")
    assert model_file(str(tmp_path)).kind == "config" and model_file(str(tmp_path / "config.json")).kind == "config"


def test_a_hugging_face_id_reads_as_its_snapshot(hf_cache):
    found = resolve_model("tiny/llama")
    assert found.path == str(hf_cache / "models--tiny--llama" / "snapshots" / COMMIT)
    assert model_file("tiny/llama").kind == "checkpoint" and "Hugging Face cache" in model_file("tiny/llama").found
    assert "Hugging Face cache" in found.how and "revision main" in found.how
    assert read_model(found.path).rope_sets == read_model(zoo_model("llama")).rope_sets
    assert resolve_model("tiny/llama@v1").path == found.path
    older = resolve_model(f"tiny/llama@{OLD}")
    assert older.path.endswith(OLD) and read_model(older.path).rope_sets[0].base == 500.0
    assert model_file(f"tiny/llama@{OLD}").kind == "config" and model_file("tiny/llama-sharded").kind == "checkpoint"


def test_a_gguf_repository_needs_its_quant(hf_cache):
    with pytest.raises(PosembError, match="holds 2 .gguf files .* name one as tiny/llama-GGUF:QUANT"):
        resolve_model("tiny/llama-GGUF")
    found = resolve_model("tiny/llama-GGUF:Q8_0")
    assert found.path.endswith("tiny-Q8_0.gguf") and read_model(found.path).rope_sets[0].base == 50000.0


def test_a_model_not_cached_says_where_posemb_looked_and_that_it_does_not_download(hf_cache):
    with pytest.raises(PosembError) as caught:
        resolve_model("nobody/nothing")
    message = str(caught.value)
    assert message.startswith("nobody/nothing: not a file or directory")
    assert str(hf_cache) in message and "does not download" in message
    with pytest.raises(PosembError, match="revision nope is not in the Hugging Face cache"):
        resolve_model("tiny/llama@nope")


def test_an_ollama_name_reads_its_gguf_blob(tmp_path, monkeypatch):
    gguf = Path(write_gguf(tmp_path / "m.gguf", "llama", {"context_length": 256, "embedding_length": 64,
                                                          "block_count": 2, "attention.head_count": 4,
                                                          "rope.freq_base": 50000.0}, tokens=10))
    store = tmp_path / "ollama"
    blob = add_to_ollama_store(store, "tiny:8b", gguf)
    add_to_ollama_store(store, "someone/other", gguf)
    monkeypatch.setenv("OLLAMA_MODELS", str(store))
    found = resolve_model("ollama:tiny:8b")
    assert found.path == str(blob) and "registry.ollama.ai/library/tiny:8b" in found.how
    assert model_file("ollama:tiny:8b").kind == "gguf"
    assert read_model(found.path).rope_sets == read_model(str(gguf)).rope_sets
    assert resolve_model("ollama:someone/other").path == str(blob)  # tag latest
    with pytest.raises(PosembError, match=r"no Ollama manifest .*library/tiny/latest"):
        resolve_model("ollama:tiny")


@pytest.mark.parametrize("name", ["no/such/thing/here", "./missing", "nothing-at-all"])
def test_anything_else_is_refused_naming_it(name, hf_cache):
    with pytest.raises(FileError, match="no such file or directory") as caught:
        resolve_model(name)
    assert caught.value.path == name
