"""What the user names a model by, resolved once, at the edge, into a path and how it was found.

A MODEL is, in this order: ``ollama:NAME`` (the Ollama store, ``ollama.py``); a
path that exists (a config.json, a model directory, a .safetensors, .bin, .pt or
.gguf file); a Hugging Face id ``org/name[@revision][:QUANT]`` in the local cache
(``hf_cache.py``). Anything else is refused, saying where posemb looked. Whether
the result holds weights decides how commands read it: as a checkpoint (its
weights, with the config.json beside them or a GGUF header) or as a config.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from posemb_cli.errors import PosembError
from posemb_cli.sources.gguf.header import is_gguf
from posemb_cli.sources.naming import hf_cache, ollama

WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".npy", ".npz")

__all__ = ["WEIGHT_SUFFIXES", "ResolvedModel", "holds_weights", "resolve_model"]


@dataclass(frozen=True)
class ResolvedModel:
    """A model as named and as found.

    Attributes:
        name: as the user typed it. path: the file or directory to read. how: how it was found, in words
        (``path``, or the cache or store and the revision). weights: whether it holds weights (else a config only).
    """

    name: str
    path: str
    how: str
    weights: bool

    def to_dict(self) -> dict:
        return {"name": self.name, "path": self.path, "found_by": self.how, "weights": self.weights}


def holds_weights(path: str) -> bool:
    """A weight file, or a directory with one (a model directory, sharded or not)."""
    if os.path.isdir(path):
        return any(entry.lower().endswith(WEIGHT_SUFFIXES) for entry in os.listdir(path))
    return path.lower().endswith(WEIGHT_SUFFIXES) or is_gguf(path)


def resolve_model(name: str, flag: str = "MODEL") -> ResolvedModel:
    """The model ``name`` names; PosembError (exit 2) naming the flag and where posemb looked when none."""
    if not name:
        raise PosembError(f"{flag}: give a path, a Hugging Face id (org/name) or ollama:NAME")
    if name.startswith(ollama.PREFIX):
        blob, how = ollama.find_in_store(name[len(ollama.PREFIX):], flag)
        return ResolvedModel(name, blob, how, weights=True)
    if os.path.exists(name):
        return ResolvedModel(name, name, "path", weights=holds_weights(name))
    hub = hf_cache.parse_hub_name(name)
    if hub is None:
        raise PosembError(f"{flag} {name}: no such file or directory (and not shaped like a Hugging Face id "
                          "org/name, nor ollama:NAME)")
    path, how = hf_cache.find_in_cache(name, hub, flag)
    return ResolvedModel(name, path, how, weights=holds_weights(path))
