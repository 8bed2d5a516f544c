"""A GGUF file's header read directly: metadata and tensor infos in well under a second, tensors mapped lazily.

The format (llama.cpp's ``gguf.md``): magic ``GGUF``, a uint32 version (2 or 3), uint64
counts of tensors and of metadata pairs; each pair a string key, a uint32 value type
and the value (arrays: element type, uint64 count, elements; strings: uint64 length and
UTF-8 bytes); then per tensor its name, uint32 dimension count, uint64 dimensions
(fastest first), uint32 ggml type and uint64 offset into the data section, which starts
at the next multiple of ``general.alignment`` (32).

Why not ``gguf.GGUFReader``: it builds a NumPy view per array element, so a header with
a 262,144-token vocabulary takes about 25 s to open (Gemma 3 270M); here a large array
is skipped over (its strings' lengths walked once) and kept as its length only. The
``gguf`` package still gives the type sizes and the dequantisation.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass

from posemb_cli.errors import PosembError

_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_KEEP = 4096  # arrays up to this many elements are read into lists; longer ones are kept as their length
_MAX_DIMS = 4

__all__ = ["GGUFHeader", "SkippedArray", "TensorInfo", "read_header"]


@dataclass(frozen=True)
class SkippedArray:
    """A long metadata array (a tokenizer's vocabulary) kept as its length: ``len()`` works, the items are not read."""

    count: int

    def __len__(self) -> int:
        return self.count


@dataclass(frozen=True)
class TensorInfo:
    """One tensor's name, shape (rows first, as NumPy orders it), ggml type and where its bytes lie."""

    name: str
    shape: tuple[int, ...]
    tensor_type: int
    start: int
    nbytes: int


class _Cursor:
    def __init__(self, view: memoryview, path: str):
        self.view, self.at, self.path = view, 0, path

    def need(self, size: int) -> None:
        if size < 0 or self.at + size > len(self.view):
            raise ValueError(f"truncated at byte {self.at} (needs {size} more)")

    def scalar(self, code: int):
        fmt = _SCALARS[code]
        size = struct.calcsize(fmt)
        self.need(size)
        (value,) = struct.unpack_from(fmt, self.view, self.at)
        self.at += size
        return value

    def string(self) -> str:
        length = self.scalar(10)
        self.need(length)
        text = bytes(self.view[self.at:self.at + length]).decode("utf-8", errors="replace")
        self.at += length
        return text

    def skip_strings(self, count: int) -> None:
        for _ in range(count):
            self.need(8)
            (length,) = struct.unpack_from("<Q", self.view, self.at)
            self.at += 8
            self.need(length)
            self.at += length

    def value(self, code: int):
        if code == _STRING:
            return self.string()
        if code == _ARRAY:
            kind, count = self.scalar(4), self.scalar(10)
            if kind == _STRING:
                if count > _KEEP:
                    self.skip_strings(count)
                    return SkippedArray(count)
                return [self.string() for _ in range(count)]
            if kind not in _SCALARS:
                raise ValueError(f"array of value type {kind}")
            size = struct.calcsize(_SCALARS[kind])
            self.need(size * count)
            if count > _KEEP:
                self.at += size * count
                return SkippedArray(count)
            items = list(struct.unpack_from(f"<{count}{_SCALARS[kind][1]}", self.view, self.at))
            self.at += size * count
            return items
        if code not in _SCALARS:
            raise ValueError(f"value type {code}")
        return self.scalar(code)


@dataclass(frozen=True)
class GGUFHeader:
    """A GGUF file's metadata (key -> value) and tensors, with the file mapped for reading tensor bytes."""

    path: str
    fields: dict
    tensors: list[TensorInfo]
    mapped: mmap.mmap

    def raw(self, tensor: TensorInfo):
        """The tensor's bytes as a uint8 NumPy view of the mapped file, rows first (no copy)."""
        import numpy as np

        data = np.frombuffer(self.mapped, dtype=np.uint8, count=tensor.nbytes, offset=tensor.start)
        rows = int(np.prod(tensor.shape[:-1])) if len(tensor.shape) > 1 else 1
        return data.reshape(rows, -1)


def _tensor_bytes(shape: tuple[int, ...], kind: int) -> int:
    from gguf import GGML_QUANT_SIZES, GGMLQuantizationType

    block, size = GGML_QUANT_SIZES[GGMLQuantizationType(kind)]
    count = 1
    for n in shape:
        count *= n
    if shape and shape[-1] % block:
        raise ValueError(f"a row of {shape[-1]} values is not whole blocks of {block}")
    return count // block * size


def read_header(path: str, flag: str) -> GGUFHeader:
    """Read the header of the GGUF file at ``path``; a damaged or truncated one is refused naming ``flag``."""
    try:
        with open(path, "rb") as handle:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        cursor = _Cursor(memoryview(mapped), path)
        cursor.need(4)
        if bytes(cursor.view[:4]) != b"GGUF":
            raise ValueError("no GGUF magic")
        cursor.at = 4
        version, tensor_count, field_count = cursor.scalar(4), cursor.scalar(10), cursor.scalar(10)
        if version not in (2, 3):
            raise ValueError(f"version {version}")
        fields = {}
        for _ in range(field_count):
            key = cursor.string()
            fields[key] = cursor.value(cursor.scalar(4))
        infos = []
        for _ in range(tensor_count):
            name, dims = cursor.string(), cursor.scalar(4)
            if dims > _MAX_DIMS:
                raise ValueError(f"tensor {name!r} has {dims} dimensions")
            shape = tuple(reversed([cursor.scalar(10) for _ in range(dims)]))
            infos.append((name, shape, cursor.scalar(4), cursor.scalar(10)))
        alignment = fields.get("general.alignment", 32)
        start = -(-cursor.at // alignment) * alignment
        tensors = []
        for name, shape, kind, offset in infos:
            nbytes = _tensor_bytes(shape, kind)
            if start + offset + nbytes > len(mapped):
                raise ValueError(f"tensor {name!r} runs past the end of the file")
            tensors.append(TensorInfo(name, shape, kind, start + offset, nbytes))
    except (OSError, ValueError, KeyError, struct.error, OverflowError) as exc:
        raise PosembError(f"{flag} {path}: not a readable GGUF file ({exc})") from None
    return GGUFHeader(path, fields, tensors, mapped)
