"""What the user names as a model, resolved once into the file posemb reads and how it was found.

A name (``resolve.py``: a path, a Hugging Face id in the local cache, an Ollama name) leads to a
config.json, a model directory (its config.json, and its weights where it holds them), a GGUF file
(by suffix or magic: an Ollama blob has none), or a weights file (.safetensors, .bin, .pt, .pth) with
its config.json beside it, so that the commands taking a model never look at the name themselves.
Nothing here parses a config or a header: ``open_model`` hands the file to the one reading.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError

if TYPE_CHECKING:
    from posemb_cli.sources.model.reading import ModelReading
    from posemb_cli.sources.weights.tensor_files import TensorFile

KINDS = ("config", "gguf", "checkpoint")
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
TABLE_SUFFIXES = (".ckpt", ".npy", ".npz")  # a position table alone (--checkpoint reads it without a config)
DIRECTORY_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")

__all__ = ["DIRECTORY_WEIGHTS", "KINDS", "TABLE_SUFFIXES", "WEIGHT_SUFFIXES", "ModelFile", "model_file", "open_model"]


@dataclass(frozen=True)
class ModelFile:
    """A model, found.

    Attributes:
        name: what the user gave. path: the file or directory to read.
        kind: ``config`` (settings only), ``gguf`` (settings and weights in one file) or ``checkpoint``
            (weights with the config.json beside them).
        config: the config.json read (None for a GGUF file, whose header holds the settings).
        found: how the name was resolved, in words.
    """

    name: str
    path: str
    kind: str
    config: str | None
    found: str

    @property
    def has_weights(self) -> bool:
        return self.kind != "config"


def _directory(name: str, path: str, flag: str, how: str) -> ModelFile:
    config = os.path.join(path, "config.json")
    weights = next((file for file in DIRECTORY_WEIGHTS if os.path.isfile(os.path.join(path, file))), None)
    if not os.path.isfile(config):
        raise PosembError(f"{flag} {name}: the directory holds no config.json" + (f" ({path})" if path != name else ""))
    if weights is None:
        return ModelFile(name, path, "config", config, how + "a model directory: its config.json (no weights in it)")
    return ModelFile(name, path, "checkpoint", config, how + f"a model directory: its config.json and {weights}")


def model_file(name: str, flag: str = "MODEL", *, config_needed: bool = True) -> ModelFile:
    """Resolve a model's name into the file to read; refused (exit 2, naming ``flag``) when there is nothing there,
    or nothing posemb reads, saying where posemb looked.

    Args:
        config_needed: refuse weights without a config.json beside them; False: they are a checkpoint still (a
            position table read as ``--checkpoint`` reads one, .npy and .npz arrays too).
    """
    from posemb_cli.sources.gguf.header import is_gguf
    from posemb_cli.sources.naming.resolve import resolve_model

    found = resolve_model(name, flag)
    path, how = found.path, "" if found.how == "path" else f"{found.how}; "
    if os.path.isdir(path):
        return _directory(name, path, flag, how)
    if not os.path.isfile(path):
        raise PosembError(f"{flag} {name}: no such file or directory")
    if is_gguf(path):
        return ModelFile(name, path, "gguf", None, how + "a GGUF file: its metadata and weights")
    if path.lower().endswith(WEIGHT_SUFFIXES + (() if config_needed else TABLE_SUFFIXES)):
        config = os.path.join(os.path.dirname(os.path.abspath(path)), "config.json")
        if not os.path.isfile(config) and not config_needed:
            return ModelFile(name, path, "checkpoint", None, how + "a weights file (no config.json beside it)")
        if not os.path.isfile(config):
            raise PosembError(f"{flag} {name}: no config.json beside the weights; the model's settings (heads, "
                              "RoPE) are read from there")
        return ModelFile(name, path, "checkpoint", config, how + "a weights file and the config.json beside it")
    return ModelFile(name, path, "config", path, how + "a config.json")


def open_model(model: ModelFile, flag: str = "MODEL") -> tuple[ModelReading, TensorFile | None]:
    """The model's one reading, and its tensors where it has weights (opened, nothing read yet)."""
    from posemb_cli.sources.naming.read import read_checkpoint_model, read_model

    if not model.has_weights:
        return read_model(model.path, flag), None
    from posemb_cli.sources.weights.tensor_files import open_tensor_file

    tensors = open_tensor_file(model.path, flag=flag)
    reading = read_checkpoint_model(tensors, model.path, flag=flag)
    assert reading is not None  # model_file found the config.json beside the weights
    return reading, tensors
