"""What the user names as a model, resolved once into the file posemb reads and how it was found.

A name (``resolve.py``: a path, a Hugging Face id in the local cache, an Ollama name) leads to a
config.json, a model directory (its config.json, and its weights where it holds them), a GGUF file
(by suffix or magic: an Ollama blob has none), or a weights file (.safetensors, .bin, .pt, .pth) with
its config.json beside it, so that the commands taking a model never look at the name themselves.
A path given for the request's ``model_config`` or ``checkpoint`` gives the same object (``option_model``), taken as
given: their readers refuse what is not there. Nothing here parses a config or a header: ``open_model`` hands the
file to the one reading. Refusals are ``FileError``s about the name as given; the caller words how the user gave it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import FileError

if TYPE_CHECKING:
    from posemb_cli.sources.model.reading import ModelReading
    from posemb_cli.sources.weights.tensor_files import TensorFile

KINDS = ("config", "gguf", "checkpoint")
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
TABLE_SUFFIXES = (".ckpt", ".npy", ".npz")  # a position table alone (a checkpoint read without a config)
DIRECTORY_WEIGHTS = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")
MODEL = "model"  # the request's key of a model named by its name (resolved here), not by the file to read
OPTION_KEYS = ("model_config", "checkpoint")  # the request's keys of a file read as given: settings, or weights

__all__ = ["DIRECTORY_WEIGHTS", "KINDS", "MODEL", "OPTION_KEYS", "TABLE_SUFFIXES", "WEIGHT_SUFFIXES", "ModelFile",
           "model_file", "open_model", "option_model"]


@dataclass(frozen=True)
class ModelFile:
    """A model, found: its identity from the name as typed to the files read.

    Attributes:
        name: what the user gave. path: the file or directory to read.
        kind: ``config`` (settings only), ``gguf`` (settings and weights in one file) or ``checkpoint``
            (weights with the config.json beside them).
        config: the config.json read (None for a GGUF file, whose header holds the settings, and for a file given
            as is).
        found: how the name was resolved, in words (a file given as is: the request's key that gave it).
        via: the request's key that named it: ``model`` (resolved by name), ``model_config`` or ``checkpoint``.
    """

    name: str
    path: str
    kind: str
    config: str | None
    found: str
    via: str = MODEL

    @property
    def has_weights(self) -> bool:
        return self.kind != "config"

    @property
    def key(self) -> str:
        """The request's key whose reading reads it: ``checkpoint`` (weights) or ``model_config`` (settings alone);
        for a model named by its name, the one a file of its kind stands for."""
        return "checkpoint" if self.has_weights else "model_config"

    @property
    def paths(self) -> frozenset[str]:
        """The paths that are this model as named: the path (as given and absolute), its config.json."""
        found = {self.path, os.path.abspath(self.path), *(p for p in (self.config,) if p)}
        if os.path.isdir(self.path):
            found.add(os.path.join(self.path, "config.json"))
        return frozenset(found)

    def holds(self, path: str) -> bool:
        """Whether ``path`` is one of the model's files: a path of it, its folder, or a file in its directory or
        beside it."""
        if path == self.name or path in self.paths:
            return True
        folders = {self.path if os.path.isdir(self.path) else os.path.dirname(self.path),
                   os.path.dirname(os.path.abspath(self.path))}
        return any(folder and (path == folder or path.startswith(folder.rstrip(os.sep) + os.sep))
                   for folder in folders)

    def resolved(self) -> dict:
        """The JSON ``source.resolved`` object."""
        return {"name": self.name, "path": self.path, "found": self.found}


def option_model(key: str, path: str) -> ModelFile:
    """The model a file given as is names (the request's ``model_config`` or ``checkpoint``): the path as given, its
    kind by the key."""
    if key not in OPTION_KEYS:
        raise ValueError(f"a file given as is is a {' or a '.join(OPTION_KEYS)}, not {key}")
    return ModelFile(path, path, "config" if key == "model_config" else "checkpoint", None, key, key)


def _directory(name: str, path: str, how: str) -> ModelFile:
    config = os.path.join(path, "config.json")
    weights = next((file for file in DIRECTORY_WEIGHTS if os.path.isfile(os.path.join(path, file))), None)
    if not os.path.isfile(config):
        raise FileError(name, "the directory holds no config.json" + (f" ({path})" if path != name else ""))
    if weights is None:
        return ModelFile(name, path, "config", config, how + "a model directory: its config.json (no weights in it)")
    return ModelFile(name, path, "checkpoint", config, how + f"a model directory: its config.json and {weights}")


def model_file(name: str, *, config_needed: bool = True) -> ModelFile:
    """Resolve a model's name into the file to read; refused (``FileError`` about ``name``) when there is nothing
    there, or nothing posemb reads, saying where posemb looked.

    Args:
        config_needed: refuse weights without a config.json beside them; False: they are a checkpoint still (a
            position table read as a checkpoint is, .npy and .npz arrays too).
    """
    from posemb_cli.sources.gguf.header import is_gguf
    from posemb_cli.sources.naming.resolve import resolve_model

    found = resolve_model(name)
    path, how = found.path, "" if found.how == "path" else f"{found.how}; "
    if os.path.isdir(path):
        return _directory(name, path, how)
    if not os.path.isfile(path):
        raise FileError(name, "no such file or directory")
    if is_gguf(path):
        return ModelFile(name, path, "gguf", None, how + "a GGUF file: its metadata and weights")
    if path.lower().endswith(WEIGHT_SUFFIXES + (() if config_needed else TABLE_SUFFIXES)):
        config = os.path.join(os.path.dirname(os.path.abspath(path)), "config.json")
        if not os.path.isfile(config) and not config_needed:
            return ModelFile(name, path, "checkpoint", None, how + "a weights file (no config.json beside it)")
        if not os.path.isfile(config):
            raise FileError(name, "no config.json beside the weights; the model's settings (heads, RoPE) are read "
                                  "from there")
        return ModelFile(name, path, "checkpoint", config, how + "a weights file and the config.json beside it")
    return ModelFile(name, path, "config", path, how + "a config.json")


def open_model(model: ModelFile) -> tuple[ModelReading, TensorFile | None]:
    """The model's one reading, and its tensors where it has weights (opened, nothing read yet)."""
    from posemb_cli.sources.naming.read import read_checkpoint_model, read_model

    if not model.has_weights:
        return read_model(model.path), None
    from posemb_cli.sources.weights.tensor_files import open_tensor_file

    tensors = open_tensor_file(model.path)
    reading = read_checkpoint_model(tensors, model.path)
    assert reading is not None  # model_file found the config.json beside the weights
    return reading, tensors
