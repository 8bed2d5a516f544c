"""The bytes of an ``--ids`` input, sized before they are read: a file, or stdin when the path is '-'.

An ``.npy`` input is sized from its header (shape x item size), checked
against the file's length and the free memory, then read exactly; a JSON
input is sized with ``os.stat`` (or read up to the limit from a stream)
before it is parsed. Stdin that is closed, a terminal or empty is refused.
"""

from __future__ import annotations

import ast
import math
import os
import struct
import sys
from dataclasses import dataclass
from typing import BinaryIO

from posemb_cli.errors import PosembError, brief
from posemb_cli.sources.bounds.json_limits import refuse_large_json
from posemb_cli.sources.bounds.limits import (
    MAX_COUNT,
    MAX_JSON_BYTES,
    format_bytes,
    require_memory,
)

__all__ = ["FORMAT_HINT", "NPY_MAGIC", "IdsBytes", "read_ids_input"]

NPY_MAGIC = b"\x93NUMPY"
FORMAT_HINT = "a JSON list of lists of integers or an .npy integer array"
_MAX_NPY_HEADER = 2**16
_INT64 = 8


@dataclass(frozen=True)
class IdsBytes:
    """An input's name (the path, or 'stdin') and its bytes; ``npy`` holds (shape, dtype, fortran) for .npy."""

    name: str
    data: bytes
    npy: tuple | None = None


def read_ids_input(source: str, stdin: BinaryIO | None = None) -> IdsBytes:
    """Open ``source`` ('-' for stdin), size it, and read it within the limits."""
    if source == "-":
        return _read_stream("stdin", _stdin_stream(stdin), size=None)
    if not source:
        raise PosembError(f"--ids needs a file path, or '-' for stdin; give {FORMAT_HINT}")
    if not os.path.exists(source):
        raise PosembError(f"--ids {source}: no such file; give {FORMAT_HINT}, or '-' for stdin")
    if os.path.isdir(source):
        raise PosembError(f"--ids {source}: is a directory; give {FORMAT_HINT}")
    try:
        with open(source, "rb") as stream:
            stat = os.fstat(stream.fileno())
            regular = stat.st_mode & 0o170000 == 0o100000
            return _read_stream(source, stream, size=stat.st_size if regular else None)
    except OSError as exc:
        raise PosembError(f"--ids {source}: cannot be read ({exc.strerror or exc})") from None


def _stdin_stream(stdin: BinaryIO | None) -> BinaryIO:
    if stdin is not None:
        return stdin
    stream = sys.stdin
    if stream is None or getattr(stream, "closed", False) or not hasattr(stream, "buffer"):
        raise PosembError("--ids -: stdin is closed; pipe a batch in, e.g. posemb compare --ids - < ids.json")
    try:
        terminal = stream.isatty()
    except (OSError, ValueError):
        terminal = False
    if terminal:
        raise PosembError("--ids -: stdin is a terminal; pipe a batch in, e.g. posemb compare --ids - < ids.json")
    return stream.buffer


def _read_exact(stream: BinaryIO, count: int) -> bytes:
    """Up to ``count`` bytes: fewer only at the end of the input (pipes return short reads)."""
    chunks, left = [], count
    while left > 0:
        chunk = stream.read(min(left, 2**24))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_stream(name: str, stream: BinaryIO, *, size: int | None) -> IdsBytes:
    what = f"--ids {name}"
    try:
        head = _read_exact(stream, len(NPY_MAGIC))
    except (OSError, ValueError) as exc:
        raise PosembError(f"{what}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if not head:
        raise PosembError(f"{what}: is empty; give {FORMAT_HINT}")
    if head == NPY_MAGIC:
        return _read_npy(name, stream, size=size)
    if size is not None and size > MAX_JSON_BYTES:
        raise refuse_large_json(what, size)
    data = head + _read_exact(stream, MAX_JSON_BYTES + 1 - len(head))
    if len(data) > MAX_JSON_BYTES:
        raise refuse_large_json(what, None)
    return IdsBytes(name, data)


def _read_npy(name: str, stream: BinaryIO, *, size: int | None) -> IdsBytes:
    what = f"--ids {name}"
    version = _read_exact(stream, 2)
    if len(version) < 2 or version[0] not in (1, 2, 3):
        raise PosembError(f"{what}: not a readable .npy array (unknown format version)")
    expected = 2 if version[0] == 1 else 4
    length_bytes = _read_exact(stream, expected)
    if len(length_bytes) != expected:
        raise PosembError(f"{what}: not a readable .npy array (truncated header)")
    header_len = struct.unpack("<H" if len(length_bytes) == 2 else "<I", length_bytes)[0]
    if header_len > _MAX_NPY_HEADER:
        raise PosembError(f"{what}: not a readable .npy array (header of {header_len} bytes)")
    header = _read_exact(stream, header_len)
    shape, dtype, fortran = _parse_npy_header(what, header)
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    offset = len(NPY_MAGIC) + 2 + len(length_bytes) + header_len
    if size is not None and size - offset < nbytes:
        raise PosembError(f"{what}: truncated: the header declares {list(shape)} {dtype} ({format_bytes(nbytes)}) "
                          f"but the file holds {format_bytes(max(0, size - offset))} of data")
    require_memory(what, nbytes + count * _INT64, detail=f"{list(shape)} {dtype} and its int64 copy")
    data = _read_exact(stream, nbytes)
    if len(data) < nbytes:
        raise PosembError(f"{what}: truncated: the header declares {format_bytes(nbytes)} of data, "
                          f"the input holds {format_bytes(len(data))}")
    return IdsBytes(name, data, npy=(shape, dtype, fortran))


def _parse_npy_header(what: str, header: bytes):
    import numpy as np

    try:
        fields = ast.literal_eval(header.decode("latin-1"))
        shape, fortran = tuple(fields["shape"]), bool(fields["fortran_order"])
        dtype = np.dtype(fields["descr"])
    except Exception as exc:  # noqa: BLE001 - a malformed header fails literal_eval and np.dtype in many ways
        raise PosembError(f"{what}: not a readable .npy array (bad header: {brief(exc)})") from None
    if dtype.kind not in "iu" or dtype.hasobject:
        raise PosembError(f"{what}: .npy dtype {dtype} is not an integer type")
    if len(shape) not in (1, 2) or not all(isinstance(n, int) and 0 <= n <= MAX_COUNT for n in shape):
        raise PosembError(f"{what}: .npy array has shape {list(shape)}; a (batch, seq_len) array, or one row of "
                          "ids (seq_len,), is needed")
    return shape, dtype, fortran
