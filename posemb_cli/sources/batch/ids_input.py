"""The bytes of an ids input (``--ids``), sized before they are read: a file, or stdin when the path is '-'.

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

from posemb_cli.errors import FileError, ValueRefusal, brief, option
from posemb_cli.sources.bounds.json_limits import refuse_large_json
from posemb_cli.sources.bounds.limits import (
    MAX_COUNT,
    MAX_JSON_BYTES,
    format_bytes,
    require_memory,
)

__all__ = ["FORMAT_HINT", "KEY", "NPY_MAGIC", "IdsBytes", "read_ids_input"]

KEY = "ids"  # the request's key an ids input is given under (a refusal names it as the user gave it)
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
        raise ValueRefusal(KEY, None, f"needs a file path, or '-' for stdin; give {FORMAT_HINT}", lead=" ")
    if not os.path.exists(source):
        raise FileError(source, f"no such file; give {FORMAT_HINT}, or '-' for stdin", key=KEY)
    if os.path.isdir(source):
        raise FileError(source, f"is a directory; give {FORMAT_HINT}", key=KEY)
    try:
        with open(source, "rb") as stream:
            stat = os.fstat(stream.fileno())
            regular = stat.st_mode & 0o170000 == 0o100000
            return _read_stream(source, stream, size=stat.st_size if regular else None)
    except OSError as exc:
        raise FileError(source, f"cannot be read ({exc.strerror or exc})", key=KEY) from None


def _stdin_stream(stdin: BinaryIO | None) -> BinaryIO:
    if stdin is not None:
        return stdin
    stream = sys.stdin
    if stream is None or getattr(stream, "closed", False) or not hasattr(stream, "buffer"):
        raise FileError("-", f"stdin is closed; pipe a batch in, e.g. posemb compare {option(KEY)} - < ids.json",
                        key=KEY)
    try:
        terminal = stream.isatty()
    except (OSError, ValueError):
        terminal = False
    if terminal:
        raise FileError("-", f"stdin is a terminal; pipe a batch in, e.g. posemb compare {option(KEY)} - < ids.json",
                        key=KEY)
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
    try:
        head = _read_exact(stream, len(NPY_MAGIC))
    except (OSError, ValueError) as exc:
        raise FileError(name, f"cannot be read ({getattr(exc, 'strerror', None) or exc})", key=KEY) from None
    if not head:
        raise FileError(name, f"is empty; give {FORMAT_HINT}", key=KEY)
    if head == NPY_MAGIC:
        return _read_npy(name, stream, size=size)
    if size is not None and size > MAX_JSON_BYTES:
        raise refuse_large_json(name, size, key=KEY)
    data = head + _read_exact(stream, MAX_JSON_BYTES + 1 - len(head))
    if len(data) > MAX_JSON_BYTES:
        raise refuse_large_json(name, None, key=KEY)
    return IdsBytes(name, data)


def _read_npy(name: str, stream: BinaryIO, *, size: int | None) -> IdsBytes:
    version = _read_exact(stream, 2)
    if len(version) < 2 or version[0] not in (1, 2, 3):
        raise FileError(name, "not a readable .npy array (unknown format version)", key=KEY)
    expected = 2 if version[0] == 1 else 4
    length_bytes = _read_exact(stream, expected)
    if len(length_bytes) != expected:
        raise FileError(name, "not a readable .npy array (truncated header)", key=KEY)
    header_len = struct.unpack("<H" if len(length_bytes) == 2 else "<I", length_bytes)[0]
    if header_len > _MAX_NPY_HEADER:
        raise FileError(name, f"not a readable .npy array (header of {header_len} bytes)", key=KEY)
    header = _read_exact(stream, header_len)
    shape, dtype, fortran = _parse_npy_header(name, header)
    count = math.prod(shape)
    nbytes = count * dtype.itemsize
    offset = len(NPY_MAGIC) + 2 + len(length_bytes) + header_len
    if size is not None and size - offset < nbytes:
        raise FileError(name, f"truncated: the header declares {list(shape)} {dtype} ({format_bytes(nbytes)}) but the "
                              f"file holds {format_bytes(max(0, size - offset))} of data", key=KEY)
    require_memory(name, nbytes + count * _INT64, detail=f"{list(shape)} {dtype} and its int64 copy", key=KEY)
    data = _read_exact(stream, nbytes)
    if len(data) < nbytes:
        raise FileError(name, f"truncated: the header declares {format_bytes(nbytes)} of data, the input holds "
                              f"{format_bytes(len(data))}", key=KEY)
    return IdsBytes(name, data, npy=(shape, dtype, fortran))


def _parse_npy_header(name: str, header: bytes):
    import numpy as np

    try:
        fields = ast.literal_eval(header.decode("latin-1"))
        shape, fortran = tuple(fields["shape"]), bool(fields["fortran_order"])
        dtype = np.dtype(fields["descr"])
    except Exception as exc:  # noqa: BLE001 - a malformed header fails literal_eval and np.dtype in many ways
        raise FileError(name, f"not a readable .npy array (bad header: {brief(exc)})", key=KEY) from None
    if dtype.kind not in "iu" or dtype.hasobject:
        raise FileError(name, f".npy dtype {dtype} is not an integer type", key=KEY)
    if len(shape) not in (1, 2) or not all(isinstance(n, int) and 0 <= n <= MAX_COUNT for n in shape):
        raise FileError(name, f".npy array has shape {list(shape)}; a (batch, seq_len) array, or one row of ids "
                              "(seq_len,), is needed", key=KEY)
    return shape, dtype, fortran
