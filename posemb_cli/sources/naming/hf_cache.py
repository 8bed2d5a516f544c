"""A Hugging Face model id found in the local cache, as transformers' ``from_pretrained`` would find it offline.

``org/name``, optionally ``@revision`` (a branch, a tag or a commit) and, for a
repository of GGUF files, ``:QUANT`` picking one file as llama.cpp's ``-hf``
does (``org/name-GGUF:Q4_K_M``). The cache is found as huggingface_hub finds it:
``HF_HUB_CACHE``, else ``HF_HOME``/hub, else ~/.cache/huggingface/hub, read at
the time of the call; the snapshot is resolved with huggingface_hub itself
(``snapshot_download(..., local_files_only=True)``). Nothing is downloaded.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from posemb_cli.errors import FileError

_ID = re.compile(r"^(?P<repo>[A-Za-z0-9][\w.\-]*/[\w.\-]+)(?:@(?P<revision>[\w.\-/]+?))?(?::(?P<quant>[\w.\-]+))?$")

__all__ = ["HubName", "cache_dir", "find_in_cache", "parse_hub_name"]


@dataclass(frozen=True)
class HubName:
    """A Hugging Face model id as typed: the repository, the revision (None: main) and a GGUF quant tag."""

    repo: str
    revision: str | None = None
    quant: str | None = None


def parse_hub_name(name: str) -> HubName | None:
    """The id's parts, or None when ``name`` is not shaped like ``org/name[@revision][:QUANT]``."""
    found = _ID.match(name)
    if found is None or name.startswith(("/", ".", "~")):
        return None
    return HubName(found["repo"], found["revision"], found["quant"])


def cache_dir() -> str:
    """Where huggingface_hub keeps its cache, from the environment as it is now."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.path.expanduser(os.environ["HF_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(os.environ.get("XDG_CACHE_HOME", "~/.cache"), "huggingface")
    return os.path.join(os.path.expanduser(home), "hub")


def _pick_gguf(folder: str, name: str, hub: HubName) -> str:
    files = sorted(entry for entry in os.listdir(folder) if entry.lower().endswith(".gguf"))
    if hub.quant is not None:
        files = [entry for entry in files if hub.quant.lower() in entry.lower()]
    if len(files) == 1:
        return os.path.join(folder, files[0])
    if not files:
        raise FileError(name, f"no .gguf file of the cached snapshot {folder} matches {hub.quant!r}")
    raise FileError(name, f"the cached snapshot holds {len(files)} .gguf files ({', '.join(files)}); name one as "
                          f"{hub.repo}:QUANT, QUANT a part of its file name (as llama.cpp's -hf takes it)")


def find_in_cache(name: str, hub: HubName) -> tuple[str, str]:
    """(the snapshot folder or its one .gguf file, how it was found); ``FileError`` about ``name`` saying where
    posemb looked."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    where = cache_dir()
    revision = hub.revision or "main"
    try:
        folder = str(snapshot_download(hub.repo, revision=revision, cache_dir=where, local_files_only=True))
    except (LocalEntryNotFoundError, FileNotFoundError, OSError, ValueError) as exc:
        raise FileError(name, f"not a file or directory, and {hub.repo} at revision {revision} is not in the Hugging "
                              f"Face cache ({where}; HF_HUB_CACHE or HF_HOME moves it); posemb does not download: "
                              f"fetch it first (hf download {hub.repo}"
                              f"{'' if hub.revision is None else ' --revision ' + hub.revision})") from exc
    if not os.path.isabs(where):  # a cache named relative to here: its files named so too
        folder = os.path.relpath(folder)
    commit = os.path.basename(folder)
    how = (f"Hugging Face cache {where}: {hub.repo}, revision {revision}"
           + ("" if commit == revision else f" (commit {commit[:12]})"))
    if hub.quant is not None or (not os.path.isfile(os.path.join(folder, "config.json"))
                                 and any(entry.lower().endswith(".gguf") for entry in os.listdir(folder))):
        return _pick_gguf(folder, name, hub), how
    return folder, how
