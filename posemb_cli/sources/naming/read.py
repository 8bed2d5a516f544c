"""The one entry to a real model's reading: a config.json, a model directory, a .gguf file, or a checkpoint.

Every command that takes a real model reads it here (``read_model`` for
``--config``, ``read_checkpoint_model`` for the config beside ``--checkpoint``'s
weights); nothing else parses a config or a GGUF header. Refusals are ``FileError``s about the file
read; the command that named the model says which flag or MODEL named it.
"""

from __future__ import annotations

import os

from posemb_cli.errors import FileError
from posemb_cli.sources.gguf.header import is_gguf
from posemb_cli.sources.hf_config.reading import read_config
from posemb_cli.sources.model.families import TOKEN_NAMES
from posemb_cli.sources.model.reading import ModelReading
from posemb_cli.sources.weights.tensor_files import TensorFile, read_json_object

__all__ = ["config_file", "read_checkpoint_model", "read_model", "stored_token_table"]


def config_file(path: str) -> str:
    """``path`` itself, or ``config.json`` in that directory; refused when it does not exist."""
    file = os.path.join(path, "config.json") if os.path.isdir(path) else path
    if not os.path.isfile(file):
        raise FileError(path, "no such file" + (" (no config.json in the directory)" if os.path.isdir(path) else ""))
    return file


def read_model(path: str, *, lenient: bool = False) -> ModelReading:
    """A config.json (or its directory) or a .gguf file, read once into the model's reading.

    Args:
        lenient: record what cannot be read instead of refusing it (``posemb doctor`` reports it).
    """
    file = config_file(path)
    if is_gguf(file):
        from posemb_cli.sources.gguf.reading import read_gguf

        return read_gguf(file, lenient=lenient)
    return read_config(file, read_json_object(file), lenient=lenient)


def stored_token_table(tensors: TensorFile, width: int | None) -> tuple[int, int] | None:
    """(rows, width) of the checkpoint's token table, by name, as stored: the one of the model's width, else the
    one table of another width (OPT-350m keeps its tokens 512 wide, word_embed_proj_dim, and projects them to
    its hidden size of 1,024); None when there is none, or several to choose from."""
    tables = {tuple(tensors.shapes[name]) for name in tensors.shapes
              if any(name == known or name.endswith("." + known) for known in TOKEN_NAMES)
              and len(tensors.shapes[name]) == 2}
    same = {table for table in tables if width is None or table[1] == width}
    found = same or tables
    if len(found) != 1:
        return None
    rows, columns = next(iter(found))
    return int(rows), int(columns)


def read_checkpoint_model(tensors: TensorFile, path: str, *, lenient: bool = False) -> ModelReading | None:
    """The reading of a checkpoint's model: its own GGUF header, or the config.json beside its weights (None
    when there is none), with the token table's shape from the weights."""
    if tensors.kind == "gguf":
        from posemb_cli.sources.gguf.reading import read_gguf

        return read_gguf(tensors.path, lenient=lenient)
    if tensors.model_config is None:
        return None
    folder = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    reading = read_config(os.path.join(folder, "config.json"), tensors.model_config, lenient=lenient)
    import dataclasses

    return dataclasses.replace(reading, token_table=stored_token_table(tensors, reading.hidden_size))
