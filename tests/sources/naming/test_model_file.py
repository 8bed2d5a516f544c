"""The one resolver of a model's name: a config.json, a model directory with or without weights, a .gguf file, a
weights file with its config.json beside it; refusals name MODEL and what is missing."""

from __future__ import annotations

import pytest
from posemb_cli.errors import FileError
from posemb_cli.sources.naming.model_file import model_file


def test_each_kind_of_path_is_resolved(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    assert (model_file(str(tmp_path)).kind, model_file(str(tmp_path)).config) == ("config",
                                                                                  str(tmp_path / "config.json"))
    assert model_file(str(tmp_path / "config.json")).kind == "config"
    (tmp_path / "model.safetensors").write_bytes(b"")
    found = model_file(str(tmp_path))
    assert found.kind == "checkpoint" and found.has_weights and "model.safetensors" in found.found
    assert model_file(str(tmp_path / "model.safetensors")).kind == "checkpoint"
    (tmp_path / "m.gguf").write_bytes(b"")
    gguf = model_file(str(tmp_path / "m.gguf"))
    assert (gguf.kind, gguf.config, gguf.path) == ("gguf", None, str(tmp_path / "m.gguf"))


@pytest.mark.parametrize(("layout", "needle"), [
    ({}, "no such file or directory"),
    ({"folder/": None}, "the directory holds no config.json"),
    ({"folder/model.bin": b""}, "no config.json beside the weights"),
])
def test_refusals_name_the_argument(tmp_path, layout, needle):
    target = tmp_path / "missing"
    for name, content in layout.items():
        target = tmp_path / name
        if name.endswith("/"):
            target.mkdir()
        else:
            target.parent.mkdir(exist_ok=True)
            target.write_bytes(content)
    with pytest.raises(FileError, match=needle) as raised:
        model_file(str(target))
    assert raised.value.path == str(target) and str(raised.value).startswith(f"{target}: ")
