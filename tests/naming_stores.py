"""Model stores as the field's tools leave them on disk: a Hugging Face cache and an Ollama store.

The Hugging Face cache is laid out as huggingface_hub writes it (``models--org--name/{blobs,refs,snapshots}``,
files in a snapshot linked to content-addressed blobs, a ref per branch or tag), named with huggingface_hub's own
``repo_folder_name`` and checked by its own ``scan_cache_dir``. The Ollama store has a manifest per
``host/namespace/model/tag`` pointing, by digest, at a GGUF blob.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path


def add_to_hf_cache(cache: Path, repo: str, files: dict[str, Path], *, commit: str, refs: tuple[str, ...] = ("main",)) \
        -> Path:
    """One snapshot of ``repo`` at ``commit`` holding ``files`` (name in the repo -> file to copy), with ``refs``
    pointing at it; returns the snapshot folder."""
    from huggingface_hub.file_download import repo_folder_name

    root = cache / repo_folder_name(repo_id=repo, repo_type="model")
    snapshot = root / "snapshots" / commit
    (root / "blobs").mkdir(parents=True, exist_ok=True)
    (root / "refs").mkdir(exist_ok=True)
    for name, source in files.items():
        data = Path(source).read_bytes()
        blob = root / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        target = snapshot / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(os.path.relpath(blob, target.parent))
    for ref in refs:
        (root / "refs" / ref).parent.mkdir(parents=True, exist_ok=True)
        (root / "refs" / ref).write_text(commit)
    return snapshot


def hf_cache_is_valid(cache: Path) -> bool:
    """huggingface_hub's own scan of the cache finds every repository and no warning."""
    from huggingface_hub import scan_cache_dir

    info = scan_cache_dir(cache)
    return not info.warnings and len(info.repos) > 0


def add_to_ollama_store(store: Path, name: str, gguf: Path) -> Path:
    """A manifest for ``name`` (``model:tag`` or ``namespace/model:tag``) pointing at a copy of ``gguf``."""
    model, _, tag = name.partition(":")
    parts = model.split("/")
    host, namespace = ("registry.ollama.ai", "library") if len(parts) == 1 else ("registry.ollama.ai", parts[0])
    data = gguf.read_bytes()
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    (store / "blobs").mkdir(parents=True, exist_ok=True)
    blob = store / "blobs" / digest.replace(":", "-")
    shutil.copyfile(gguf, blob)
    manifest = store / "manifests" / host / namespace / parts[-1] / (tag or "latest")
    manifest.parent.mkdir(parents=True, exist_ok=True)
    config = {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": "sha256:" + "0" * 64,
              "size": 2}
    manifest.write_text(json.dumps({"schemaVersion": 2, "mediaType":
                                    "application/vnd.docker.distribution.manifest.v2+json", "config": config,
                                    "layers": [{"mediaType": "application/vnd.ollama.image.model", "digest": digest,
                                                "size": len(data)},
                                               {"mediaType": "application/vnd.ollama.image.template",
                                                "digest": "sha256:" + "1" * 64, "size": 10}]}))
    return blob
