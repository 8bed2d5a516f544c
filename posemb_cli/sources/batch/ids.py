"""Token-id batches: seeded random, or read from a JSON or .npy file (or stdin)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from posemb_cli.errors import FileError, option
from posemb_cli.sources.batch.ids_input import FORMAT_HINT, KEY, IdsBytes, read_ids_input
from posemb_cli.sources.bounds.json_limits import parse_json

if TYPE_CHECKING:
    import torch

_FORMAT_HINT = FORMAT_HINT


def read_ids(source: str, vocab: int, *, stdin: BinaryIO | None = None) -> np.ndarray:
    """Read a (B, T) batch of token ids from a file path, or from stdin when ``source`` is '-'.

    The input is sized before it is read (see ``ids_input``).

    Returns:
        int64 array of shape (B, T), every id in [0, vocab).
    """
    read = read_ids_input(source, stdin)
    name = read.name
    ids = _npy_array(name, read) if read.npy is not None else _parse_json(name, read.data)
    if ids.size:
        low, high = int(ids.min()), int(ids.max())
        if low < 0 or high >= vocab:
            bad = low if low < 0 else high
            where = tuple(int(i) for i in np.argwhere(ids == bad)[0])
            raise FileError(name, f"id {bad} at {list(where)} is outside [0, {vocab}) set by {option('vocab')}",
                            key=KEY)
    return ids


def _npy_array(name: str, read: IdsBytes) -> np.ndarray:
    assert read.npy is not None  # the caller checked: an .npy input
    shape, dtype, fortran = read.npy
    array = np.frombuffer(read.data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    if array.ndim == 1:  # one row of ids: a batch of one
        array = array[None, :]
    if array.size == 0:
        raise FileError(name, "the array is empty; a (batch, seq_len) batch needs at least one id", key=KEY)
    if array.dtype.kind == "u" and array.max() > np.iinfo(np.int64).max:
        raise FileError(name, f"id {array.max()} does not fit in int64", key=KEY)
    return array.astype(np.int64)


def _parse_json(name: str, data: bytes) -> np.ndarray:
    rows = parse_json(data, name, hint=f"neither JSON nor .npy; give {_FORMAT_HINT}", key=KEY)
    if not isinstance(rows, list) or not rows or not all(isinstance(row, list) for row in rows):
        raise FileError(name, "JSON must be a non-empty list of lists of integers", key=KEY)
    width = len(rows[0])
    for b, row in enumerate(rows):
        if len(row) != width:
            raise FileError(name, f"ragged batch: row 0 has {width} ids, row {b} has {len(row)}", key=KEY)
        for t, value in enumerate(row):
            if isinstance(value, bool) or not isinstance(value, int):
                raise FileError(name, f"value {json.dumps(value)} at [{b}, {t}] is not an integer id", key=KEY)
    if width == 0:
        raise FileError(name, "rows are empty; a (batch, seq_len) batch needs at least one id", key=KEY)
    try:
        return np.asarray(rows, dtype=np.int64)
    except OverflowError:
        raise FileError(name, "an id does not fit in int64", key=KEY) from None


def random_ids(batch: int, seq_len: int, vocab: int, *, seed: int) -> torch.Tensor:
    """A seeded (B, T) int64 batch drawn uniformly from [0, vocab), on the CPU."""
    import torch

    generator = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab, (batch, seq_len), generator=generator, dtype=torch.int64)
