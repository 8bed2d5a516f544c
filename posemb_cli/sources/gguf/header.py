"""A GGUF file's header in one pass: every metadata value and tensor description, the tensors' bytes memory-mapped.

The layout (ggml's ``docs/gguf.md``): the magic ``GGUF``, the version (2 or 3), the tensor and
metadata counts (uint64), each metadata pair (key: uint64 length and UTF-8 bytes; value type:
uint32; the value), each tensor's description (name, dimension count, dimensions fastest first,
ggml type, offset), then the tensors' bytes from the next multiple of ``general.alignment`` (32).
Type codes and block sizes are the gguf package's own (``GGUFValueType``, ``GGML_QUANT_SIZES``).

``gguf.GGUFReader`` builds a NumPy view per array item, which costs seconds to minutes for the
262,144-entry vocabularies of recent models; here an array of numbers is one read and an array of
strings one loop. Only little-endian files (every file llama.cpp writes by default) are read.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GGUFHeader", "HeaderTensor", "is_gguf", "read_header"]

_VERSIONS = (2, 3)
_SCALARS = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "?", 10: "<u8", 11: "<i8",
            12: "<f8"}  # GGUFValueType codes of numbers and bool -> NumPy dtype
_STRING, _ARRAY = 8, 9
_BAD = object()  # a string that is not UTF-8: reported as None, as the package's reader leaves it undecodable


def is_gguf(path: str) -> bool:
    """A ``.gguf`` file, or a file of another name that starts with GGUF's magic (an Ollama blob)."""
    if path.lower().endswith(".gguf"):
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"GGUF"
    except OSError:
        return False


@dataclass(frozen=True)
class HeaderTensor:
    """One tensor: ``shape`` fastest dimension first (as GGUF lists it), ``data`` its raw bytes, memory-mapped."""

    name: str
    shape: np.ndarray
    tensor_type: Any  # gguf.GGMLQuantizationType
    data: np.ndarray


@dataclass(frozen=True)
class GGUFHeader:
    metadata: dict[str, Any]
    tensors: list[HeaderTensor]


_LENGTH = struct.Struct("<Q")


class _Cursor:
    """Reads little-endian values from the file's bytes, refusing any read past the end."""

    def __init__(self, data: np.ndarray) -> None:
        self.data, self.view, self.at = data, memoryview(data), 0  # type: ignore[arg-type]

    def take(self, size: int) -> int:
        start = self.at
        if size < 0 or start + size > len(self.view):
            raise ValueError(f"truncated: a field at byte {start} runs past the end of the file")
        self.at += size
        return start

    def unpack(self, fmt: str):
        return struct.unpack_from(fmt, self.view, self.take(struct.calcsize(fmt)))[0]

    def string(self):
        return self.strings(1)[0]

    def strings(self, count: int) -> list:
        """``count`` strings in a row, in one tight loop (a vocabulary holds hundreds of thousands)."""
        view, at, end = self.view, self.at, len(self.view)
        out: list = []
        append, length_at = out.append, _LENGTH.unpack_from
        for _ in range(count):
            if at + 8 > end:
                raise ValueError(f"truncated: a string at byte {at} runs past the end of the file")
            (size,) = length_at(view, at)
            at += 8
            if at + size > end:
                raise ValueError(f"truncated: a string at byte {at} runs past the end of the file")
            try:
                append(str(view[at:at + size], "utf-8"))
            except UnicodeDecodeError:
                append(_BAD)
            at += size
        self.at = at
        return out

    def value(self, kind: int):
        if kind == _STRING:
            return self.string()
        if kind in _SCALARS:
            return self.numbers(kind, 1)[0]
        if kind == _ARRAY:
            item, count = self.unpack("<I"), self.unpack("<Q")
            if item in _SCALARS:
                return self.numbers(item, count)
            if item == _STRING:
                return self.strings(count)
            return [self.value(item) for _ in range(count)]
        raise ValueError(f"unknown metadata value type {kind}")

    def numbers(self, kind: int, count: int) -> list:
        dtype = np.dtype(_SCALARS[kind])
        start = self.take(count * dtype.itemsize)
        return np.frombuffer(self.view, dtype=dtype, count=count, offset=start).tolist()


def _tensor(cursor: _Cursor, data_start: int, described: tuple, sizes: dict, types) -> HeaderTensor:
    name, dims, code, offset = described
    kind = types(code)
    block, type_size = sizes[kind]
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    if dims and dims[0] % block:
        raise ValueError(f"tensor {name!r}: {dims[0]} values per row is not a multiple of the block of {block}")
    start = data_start + offset
    nbytes = count // block * type_size
    if start + nbytes > len(cursor.view):
        raise ValueError(f"tensor {name!r} runs past the end of the file")
    rows = [int(n) for n in reversed(dims[1:])]
    raw = cursor.data[start:start + nbytes].reshape(*rows, (dims[0] if dims else 1) // block * type_size)
    return HeaderTensor(name, np.array(dims, dtype=np.uint64), kind, raw)


def read_header(path: str) -> GGUFHeader:
    """The metadata (numbers, strings, lists; None where a string is not UTF-8) and tensors of a GGUF file.

    Raises:
        ValueError: the file is not a GGUF file this reads (magic, version, byte order, a truncated field).
    """
    import gguf

    data = np.memmap(path, mode="r")
    cursor = _Cursor(data)
    if len(data) < 24 or bytes(cursor.view[:4]) != b"GGUF":
        raise ValueError("GGUF magic invalid")
    cursor.take(4)
    version = cursor.unpack("<I")
    if version not in _VERSIONS:
        raise ValueError(f"GGUF version {version} (byte-swapped or unsupported); readable: 2, 3")
    tensor_count, kv_count = cursor.unpack("<Q"), cursor.unpack("<Q")
    metadata: dict[str, Any] = {}
    for _ in range(kv_count):
        key = cursor.string()
        value = cursor.value(cursor.unpack("<I"))
        if key in metadata:
            raise ValueError(f"duplicate metadata key {key!r}")
        metadata[key] = None if value is _BAD or (isinstance(value, list) and _BAD in value) else value
    described = []
    for _ in range(tensor_count):
        name = cursor.string()
        dims = [cursor.unpack("<Q") for _ in range(cursor.unpack("<I"))]
        described.append((name, dims, cursor.unpack("<I"), cursor.unpack("<Q")))
    alignment = metadata.get("general.alignment", 32)
    if not isinstance(alignment, int) or alignment <= 0 or alignment & (alignment - 1):
        raise ValueError("general.alignment must be a power of two")
    data_start = -(-cursor.at // alignment) * alignment
    tensors = [_tensor(cursor, data_start, one, gguf.GGML_QUANT_SIZES, gguf.GGMLQuantizationType)
               for one in described]
    if len({tensor.name for tensor in tensors}) != len(tensors):
        raise ValueError("a tensor name appears twice")
    return GGUFHeader(metadata, tensors)
