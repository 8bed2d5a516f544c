"""Token-id batches: seeded random, or read from a JSON or .npy file (or stdin)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from posemb_cli.errors import PosembError

if TYPE_CHECKING:
    import torch

_NPY_MAGIC = b"\x93NUMPY"
_FORMAT_HINT = "a JSON list of lists of integers or an .npy integer array"


def read_ids(source: str, vocab: int, *, stdin: io.BufferedIOBase | None = None) -> np.ndarray:
    """Read a (B, T) batch of token ids from a file path, or from stdin when ``source`` is '-'.

    Returns:
        int64 array of shape (B, T), every id in [0, vocab).
    """
    name = "stdin" if source == "-" else source
    data = _read_bytes(source, stdin)
    if data.startswith(_NPY_MAGIC):
        ids = _parse_npy(name, data)
    else:
        ids = _parse_json(name, data)
    if ids.size:
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= vocab:
            bad = low if low < 0 else high
            where = tuple(int(i) for i in np.argwhere(ids == bad)[0])
            raise PosembError(f"--ids {name}: id {bad} at {list(where)} is outside [0, {vocab}) set by --vocab")
    return ids


def _read_bytes(source: str, stdin) -> bytes:
    if source == "-":
        stream = stdin if stdin is not None else sys.stdin.buffer
        return stream.read()
    if not source:
        raise PosembError(f"--ids needs a file path, or '-' for stdin; give {_FORMAT_HINT}")
    path = Path(source)
    if not path.exists():
        raise PosembError(f"--ids {source}: no such file; give {_FORMAT_HINT}, or '-' for stdin")
    if path.is_dir():
        raise PosembError(f"--ids {source}: is a directory; give {_FORMAT_HINT}")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise PosembError(f"--ids {source}: cannot be read ({exc.strerror or exc})") from None


def _parse_npy(name: str, data: bytes) -> np.ndarray:
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as exc:  # numpy raises ValueError, EOFError, OSError
        raise PosembError(f"--ids {name}: not a readable .npy array ({exc})") from None
    if array.dtype.kind not in "iu":
        raise PosembError(f"--ids {name}: .npy dtype {array.dtype} is not an integer type")
    if array.ndim != 2:
        raise PosembError(f"--ids {name}: .npy array has shape {list(array.shape)}; a (batch, seq_len) array is needed")
    if array.size == 0:
        raise PosembError(f"--ids {name}: the array is empty; a (batch, seq_len) batch needs at least one id")
    if array.dtype.kind == "u" and array.max() > np.iinfo(np.int64).max:
        raise PosembError(f"--ids {name}: id {array.max()} does not fit in int64")
    return array.astype(np.int64)


def _parse_json(name: str, data: bytes) -> np.ndarray:
    try:
        rows = json.loads(data.decode("utf-8-sig"))  # a byte-order mark (Windows editors) is not content
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise PosembError(f"--ids {name}: neither JSON nor .npy; give {_FORMAT_HINT}") from None
    if not isinstance(rows, list) or not rows or not all(isinstance(row, list) for row in rows):
        raise PosembError(f"--ids {name}: JSON must be a non-empty list of lists of integers")
    width = len(rows[0])
    for b, row in enumerate(rows):
        if len(row) != width:
            raise PosembError(f"--ids {name}: ragged batch: row 0 has {width} ids, row {b} has {len(row)}")
        for t, value in enumerate(row):
            if isinstance(value, bool) or not isinstance(value, int):
                raise PosembError(f"--ids {name}: value {json.dumps(value)} at [{b}, {t}] is not an integer id")
    if width == 0:
        raise PosembError(f"--ids {name}: rows are empty; a (batch, seq_len) batch needs at least one id")
    try:
        return np.asarray(rows, dtype=np.int64)
    except OverflowError:
        raise PosembError(f"--ids {name}: an id does not fit in int64") from None


def random_ids(batch: int, seq_len: int, vocab: int, *, seed: int) -> torch.Tensor:
    """A seeded (B, T) int64 batch drawn uniformly from [0, vocab), on the CPU."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, seq_len), generator=generator, dtype=torch.int64)
