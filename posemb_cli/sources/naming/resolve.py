"""What the user names a model by, resolved once, at the edge, into a path and how it was found.

A MODEL is, in this order: ``ollama:NAME`` (the Ollama store, ``ollama.py``); a
path that exists (a config.json, a model directory, a .safetensors, .bin, .pt or
.gguf file); a Hugging Face id ``org/name[@revision][:QUANT]`` in the local cache
(``hf_cache.py``). Anything else is refused, saying where posemb looked.
``model_file.py`` then tells what the path holds (a config, a GGUF file, weights).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from posemb_cli.errors import FileError
from posemb_cli.sources.naming import hf_cache, ollama

__all__ = ["ResolvedModel", "resolve_model"]


@dataclass(frozen=True)
class ResolvedModel:
    """A model as named and as found.

    Attributes:
        name: as the user typed it. path: the file or directory to read. how: how it was found, in words
        (``path``, or the cache or store and the revision).
    """

    name: str
    path: str
    how: str


def resolve_model(name: str) -> ResolvedModel:
    """The model ``name`` names; ``FileError`` about ``name`` (exit 2), saying where posemb looked, when none."""
    if not name:
        raise FileError(name, "give a path, a Hugging Face id (org/name) or ollama:NAME")
    if name.startswith(ollama.PREFIX):
        blob, how = ollama.find_in_store(name[len(ollama.PREFIX):])
        return ResolvedModel(name, blob, how)
    if os.path.exists(name):
        return ResolvedModel(name, name, "path")
    hub = hf_cache.parse_hub_name(name)
    if hub is None:
        raise FileError(name, f"no such file or directory (looked for {os.path.abspath(name)}); a Hugging Face id "
                              "(org/name) is looked up in the local cache, an Ollama model as ollama:NAME")
    path, how = hf_cache.find_in_cache(name, hub)
    return ResolvedModel(name, path, how)
