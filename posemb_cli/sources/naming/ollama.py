"""An Ollama model name (``ollama:llama3.1:8b``) found in the local Ollama store, as ``ollama run`` finds it.

The store: ``OLLAMA_MODELS`` when set, else ~/.ollama/models, then the Linux
service's /usr/share/ollama/.ollama/models. A name ``[host/][namespace/]model[:tag]``
(host ``registry.ollama.ai``, namespace ``library`` and tag ``latest`` when left
out) has a manifest at ``manifests/HOST/NAMESPACE/MODEL/TAG``: JSON whose layer of
media type ``application/vnd.ollama.image.model`` is the GGUF file, kept as
``blobs/sha256-<hex>``. Nothing is downloaded.
"""

from __future__ import annotations

import json
import os

from posemb_cli.errors import FileError

PREFIX = "ollama:"
_MODEL_LAYER = "application/vnd.ollama.image.model"
_REGISTRY, _NAMESPACE, _TAG = "registry.ollama.ai", "library", "latest"
_MANIFEST_LIMIT = 1 << 20  # a manifest is a few hundred bytes; anything past a MiB is not one

__all__ = ["PREFIX", "find_in_store", "stores"]


def stores() -> list[str]:
    """The model stores looked in, in order."""
    if os.environ.get("OLLAMA_MODELS"):
        return [os.path.expanduser(os.environ["OLLAMA_MODELS"])]
    return [os.path.expanduser("~/.ollama/models"), "/usr/share/ollama/.ollama/models"]


def _manifest_path(name: str) -> tuple[str, ...]:
    """(host, namespace, model, tag) of an Ollama name, with Ollama's defaults."""
    model, _, tag = name.rpartition(":") if ":" in name.split("/")[-1] else (name, "", _TAG)
    parts = model.split("/")
    if not model or len(parts) > 3 or not all(parts) or any(part in (".", "..") for part in (*parts, tag)):
        raise FileError(PREFIX + name, "not an Ollama model name ([host/][namespace/]model[:tag])")
    host, namespace = (_REGISTRY, _NAMESPACE) if len(parts) == 1 else (_REGISTRY, parts[0]) if len(parts) == 2 \
        else (parts[0], parts[1])
    return host, namespace, parts[-1], tag or _TAG


def _model_blob(manifest: str, store: str, shown: str) -> str:
    if os.path.getsize(manifest) > _MANIFEST_LIMIT:
        raise FileError(shown, f"{manifest} is not an Ollama manifest (over 1 MiB)")
    try:
        with open(manifest, encoding="utf-8") as handle:
            layers = json.load(handle).get("layers", [])
    except (OSError, ValueError, AttributeError) as exc:
        raise FileError(shown, f"{manifest} is not an Ollama manifest (JSON with layers)") from exc
    digests = [layer.get("digest") for layer in layers if isinstance(layer, dict)
               and layer.get("mediaType") == _MODEL_LAYER]
    if len(digests) != 1 or not isinstance(digests[0], str) or not digests[0].startswith("sha256:"):
        raise FileError(shown, f"{manifest} names {len(digests)} model layers; posemb reads one GGUF blob")
    blob = os.path.join(store, "blobs", digests[0].replace(":", "-"))
    if not os.path.isfile(blob):
        raise FileError(shown, f"the manifest {manifest} names the blob {blob}, which is missing")
    return blob


def find_in_store(name: str) -> tuple[str, str]:
    """(the GGUF blob, how it was found) for ``name`` without its ``ollama:`` prefix; ``FileError`` about the name
    as typed, saying where posemb looked, when no store has it."""
    shown = PREFIX + name
    parts = _manifest_path(name)
    looked = []
    for store in stores():
        manifest = os.path.join(store, "manifests", *parts)
        looked.append(manifest)
        if os.path.isfile(manifest):
            blob = _model_blob(manifest, store, shown)
            return blob, f"Ollama store {store}: {'/'.join(parts[:3])}:{parts[3]}"
    raise FileError(shown, f"no Ollama manifest for it (looked for {' and '.join(looked)}; OLLAMA_MODELS moves the "
                           f"store); posemb does not download: fetch it first (ollama pull {name})")
