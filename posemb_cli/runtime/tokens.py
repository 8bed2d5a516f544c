"""The window of L token ids a measurement runs: from UTF-8 text files through the model's tokenizer, or from ids.

- ``--text FILE [FILE ...]``: each file is one document, decoded as UTF-8 (strictly: a byte that
  is not UTF-8 is refused, named with its offset) and encoded by the model's own tokenizer as it
  encodes one document (with the special tokens it adds, such as a beginning-of-sequence token).
  Documents are concatenated with the tokenizer's separator (its end-of-sequence token) between
  them, stated in the window; files after the one that reaches L are not read.
- ``--ids FILE``: one row of token ids, a (1, N) .npy integer array or a JSON ``[[...]]``, read by
  ``sources.batch`` within its bounds; every id must lie in the model's vocabulary.

The first L ids are the window. Fewer than L is refused, saying how many there are.

``write_ids`` (``--save-ids FILE``) writes the ids each forward of a measurement ran, one row per
forward, as a (rows, L) int64 .npy or a JSON ``[[...], ...]`` (by the file's suffix): the form
``--ids`` reads back (one row of it at a time).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from posemb_cli.errors import FileError, ValueRefusal, option
from posemb_cli.runtime.protocol import LanguageModel, Separator
from posemb_cli.sources.batch.ids import read_ids
from posemb_cli.sources.bounds.limits import format_bytes, require_memory

__all__ = ["MAX_TEXT_BYTES", "SAVE_SUFFIXES", "TokenWindow", "check_save_ids", "ids_window", "write_ids",
           "text_window"]

MAX_TEXT_BYTES = 256 << 20  # one text file: a million tokens of English is about 4 MiB
_TOKENIZER_BYTES_PER_BYTE = 16  # the tokenizer's own working set per byte of text (ids, offsets, pieces)
_ANY_ID = 1 << 62  # read_ids' own range check is left open; the model's vocabulary is checked here
SAVE_SUFFIXES = (".npy", ".json")


@dataclass(frozen=True)
class TokenWindow:
    """The ids of one window and where they came from.

    Attributes:
        ids: (L,) int64.
        source: ``"text"`` or ``"ids"``.
        files: the files read, in order.
        documents: how many documents the window spans (files whose tokens it holds).
        separator: the token put between documents; None when there is one document, or ids.
        available: the tokens read, at least L (the text's tokens up to the document reaching L).
    """

    ids: np.ndarray
    source: str
    files: tuple[str, ...]
    documents: int
    separator: Separator | None
    available: int

    @property
    def length(self) -> int:
        return int(self.ids.size)

    def to_dict(self) -> dict:
        return {"source": self.source, "files": list(self.files), "documents": self.documents,
                "separator": None if self.separator is None else self.separator.to_dict(),
                "tokens_read": self.available, "tokens": self.length}


def _check_file(path: str) -> None:
    if not os.path.exists(path):
        raise FileError(path, "no such file; give a UTF-8 text file", key="text")
    if not os.path.isfile(path):
        raise FileError(path, "not a file; give a UTF-8 text file", key="text")


def _read_text(path: str) -> str:
    size = os.path.getsize(path)
    if size > MAX_TEXT_BYTES:
        raise FileError(path, f"{format_bytes(size)} is more text than a window needs (at most "
                              f"{format_bytes(MAX_TEXT_BYTES)}); give its first part", key="text")
    require_memory(path, size * _TOKENIZER_BYTES_PER_BYTE, detail="the text and its tokens", key="text")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise FileError(path, f"cannot be read ({exc.strerror or exc})", key="text") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileError(path, f"not UTF-8 text (byte {exc.start} is 0x{data[exc.start]:02x})", key="text") from None


def _in_vocabulary(model: LanguageModel, window: np.ndarray, key: str, files: str, what: str) -> None:
    """Refuse a window holding an id the model does not embed (a tokenizer's added token past its table too)."""
    vocab = model.vocab_size
    outside = np.flatnonzero((window < 0) | (window >= vocab))
    if outside.size:
        where = int(outside[0])
        raise ValueRefusal(key, files, f"{what}id {int(window[where])} at position {where}, outside "
                                       f"{model.source}'s vocabulary [0, {vocab})")


def text_window(model: LanguageModel, paths: Sequence[str], length: int) -> TokenWindow:
    """The first ``length`` ids of the documents in ``paths``, joined by the model's separator."""
    if not paths:
        raise ValueRefusal("text", None, "give at least one UTF-8 text file")
    for path in paths:  # every file named exists, even those the window will not reach
        _check_file(path)
    ids: list[int] = []
    separator = None
    read: list[str] = []
    for path in paths:
        if read:
            separator = model.separator
            if separator is None:
                raise FileError(path, f"{model.source}'s tokenizer has no end-of-sequence token to put between "
                                      "documents; give one text of the length needed", key="text")
            ids.append(separator.id)
        ids += model.encode(_read_text(path))
        read.append(path)
        if len(ids) >= length:
            break
    if len(ids) < length:
        named = " ".join(read)
        raise ValueRefusal("text", named, f"the text has {len(ids):,} tokens under {model.source}'s tokenizer; a "
                                          f"window of {length:,} needs at least {length:,}: give a longer text or "
                                          "more files")
    window = np.asarray(ids[:length], dtype=np.int64)
    _in_vocabulary(model, window, "text", " ".join(read), "the tokenizer gives ")
    return TokenWindow(window, "text", tuple(read), len(read), separator, len(ids))


def ids_window(model: LanguageModel, path: str, length: int) -> TokenWindow:
    """The first ``length`` ids of one row of ids in ``path`` (.npy or JSON), each in the model's vocabulary."""
    batch = read_ids(path, _ANY_ID)
    if batch.shape[0] != 1:
        raise FileError(path, f"holds {batch.shape[0]} rows; a measurement runs one window: give one row of at "
                              f"least {length:,} ids", key="ids")
    row = batch[0]
    if row.size < length:
        raise FileError(path, f"holds {row.size:,} ids; a window of {length:,} needs at least {length:,}", key="ids")
    window = row[:length]
    _in_vocabulary(model, window, "ids", path, "")
    return TokenWindow(np.ascontiguousarray(window, dtype=np.int64), "ids", (path,), 1, None, int(row.size))


def check_save_ids(path: str) -> None:
    """Refuse (exit 2), before anything runs, a file the ids could not be written to: its suffix, its folder."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in SAVE_SUFFIXES:
        raise FileError(path, f"give a .npy or .json file (the rows of ids, in the form {option('ids')} reads)",
                        key="save_ids")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileError(path, f"no folder {folder} to write it in", key="save_ids")
    if os.path.isdir(path):
        raise FileError(path, "a folder; give a .npy or .json file", key="save_ids")


def write_ids(path: str, rows: np.ndarray) -> None:
    """Write (rows, L) ids to ``path``: .npy as int64, .json as ``[[...], ...]``."""
    check_save_ids(path)
    ids = np.ascontiguousarray(rows, dtype=np.int64)
    if ids.ndim != 2:
        raise ValueError(f"the ids saved are (rows, L), got shape {ids.shape}")
    try:
        if path.lower().endswith(".npy"):
            with open(path, "wb") as handle:
                np.save(handle, ids)
        else:
            import json

            with open(path, "w", encoding="utf-8") as handle:
                json.dump(ids.tolist(), handle, separators=(",", ":"))
                handle.write("\n")
    except OSError as exc:
        raise FileError(path, f"cannot be written ({exc.strerror or exc})", key="save_ids") from None
