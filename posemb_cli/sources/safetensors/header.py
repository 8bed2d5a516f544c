"""The header of a ``.safetensors`` file, read before anything of the file is mapped.

The format (https://github.com/huggingface/safetensors#format): an 8-byte little-endian
header length N, then N bytes of JSON naming each tensor's ``dtype``, ``shape`` and
``data_offsets`` (begin, end) within the byte buffer that follows the header, and an
optional ``__metadata__`` object of strings. Reading the header first sizes every
tensor (and the file) before a memory map of the whole file is tried.
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass

from posemb_cli.errors import FileError
from posemb_cli.sources.bounds.json_limits import parse_json

__all__ = ["DTYPE_BYTES", "MAX_HEADER", "SafetensorsHeader", "read_safetensors_header"]

DTYPE_BYTES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1, "U8": 1, "U16": 2,
               "U32": 4, "U64": 8, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}
MAX_HEADER = 100 << 20  # the format's own limit on the header (100 MB)


@dataclass(frozen=True)
class SafetensorsHeader:
    """Every tensor's entry (``dtype``, ``shape``, ``data_offsets``) by name, and where the data begins."""

    entries: dict[str, dict]
    data_start: int
    file_size: int

    def shapes(self) -> dict[str, tuple[int, ...]]:
        return {name: tuple(entry["shape"]) for name, entry in self.entries.items()}

    def nbytes(self) -> dict[str, int]:
        """Each tensor's size in bytes as declared (8 bytes per element for a dtype posemb does not know)."""
        return {name: math.prod(entry["shape"]) * DTYPE_BYTES.get(entry["dtype"], 8)
                for name, entry in self.entries.items()}


def _valid_entry(entry: object) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("dtype"), str):
        return False
    shape, offsets = entry.get("shape"), entry.get("data_offsets")
    return (isinstance(shape, list) and all(type(n) is int and n >= 0 for n in shape)
            and isinstance(offsets, list) and len(offsets) == 2 and all(type(n) is int and n >= 0 for n in offsets))


def read_safetensors_header(path: str, what: str) -> SafetensorsHeader:
    """The header of the ``.safetensors`` file at ``path``; ``FileError`` about ``what`` where it is not one."""
    def invalid(reason: str) -> FileError:
        return FileError(what, f"not a valid safetensors file ({reason})")

    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            prefix = handle.read(8)
            if len(prefix) < 8:
                raise invalid("shorter than the 8 bytes of its header length")
            (length,) = struct.unpack("<Q", prefix)
            if length > MAX_HEADER or 8 + length > size:
                raise invalid(f"a header of {length:,} bytes in a file of {size:,}")
            text = handle.read(length)
    except OSError as exc:
        raise FileError(what, f"cannot be read ({exc.strerror or exc})") from None
    header = parse_json(text, what, hint="not a valid safetensors file (its header is not JSON)")
    if not isinstance(header, dict):
        raise invalid("its header is not a JSON object")
    entries = {name: entry for name, entry in header.items() if name != "__metadata__"}
    for name, entry in entries.items():
        if not _valid_entry(entry):
            raise invalid(f"tensor {name!r} has no dtype, shape and data offsets")
    return SafetensorsHeader(entries=entries, data_start=8 + length, file_size=size)
