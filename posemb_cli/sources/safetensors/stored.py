"""One tensor's bytes in a ``.safetensors`` file, read straight into a NumPy buffer the caller owns: no map, no torch.

The header (``safetensors.header``) says where each tensor's bytes lie. A reader that
converts a tensor anyway (``posemb heads`` widens bfloat16 to float32) reads the rows it
needs with one ``readinto`` into a buffer it reuses: the kernel copies from the page
cache, with none of a memory map's page faults, and nothing of the tensor's size is
allocated. Only the float dtypes posemb analyses are read this way, on a little-endian
machine; anything else gives None and the caller reads the tensor the usual way.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from posemb_cli.errors import FileError
from posemb_cli.sources.safetensors.header import SafetensorsHeader

# The stored element as NumPy holds it: bfloat16 has no NumPy dtype, so its 16 bits are read as uint16.
ELEMENTS: dict[str, np.dtype] = {"BF16": np.dtype("<u2"), "F16": np.dtype("<f2"), "F32": np.dtype("<f4"),
                                 "F64": np.dtype("<f8")}

__all__ = ["ELEMENTS", "StoredTensor", "stored_tensor"]


@dataclass(frozen=True)
class StoredTensor:
    """Where one tensor's values lie in a file, and their type (``dtype``: BF16, F16, F32 or F64)."""

    path: str
    offset: int
    dtype: str
    shape: tuple[int, ...]

    @property
    def element(self) -> np.dtype:
        """How NumPy holds one stored value (bfloat16: its bits, uint16)."""
        return ELEMENTS[self.dtype]

    @property
    def row_size(self) -> int:
        """Values in one row (one index of the first axis)."""
        return math.prod(self.shape[1:])

    def read_rows(self, start: int, stop: int, out: np.ndarray) -> np.ndarray:
        """Rows ``start`` to ``stop`` - 1 read into the front of ``out`` (C-contiguous, of ``element`` dtype, at
        least that many values); returns that part of ``out``, shaped ``(stop - start, *shape[1:])``.

        Raises:
            FileError: the file is shorter than its header says, or cannot be read.
        """
        count = (stop - start) * self.row_size
        target = out.reshape(-1)[:count]
        if out.dtype != self.element or not out.flags.c_contiguous or target.size < count:
            raise ValueError(f"read_rows needs a C-contiguous {self.element} buffer of {count} values")
        view = memoryview(target).cast("B")  # type: ignore[arg-type]  # an ndarray is a buffer
        begin = self.offset + start * self.row_size * self.element.itemsize
        try:
            with open(self.path, "rb", buffering=0) as handle:
                handle.seek(begin)
                done = 0
                while done < len(view):
                    got = handle.readinto(view[done:])
                    if not got:
                        raise FileError(self.path, f"ends inside a tensor's data (byte {begin + done:,}); the "
                                                   "file is truncated")
                    done += got
        except OSError as exc:
            raise FileError(self.path, f"cannot be read ({exc.strerror or exc})") from None
        return target.reshape(stop - start, *self.shape[1:])


def stored_tensor(header: SafetensorsHeader, path: str, name: str) -> StoredTensor | None:
    """Tensor ``name`` of the (already validated) file at ``path`` as a ``StoredTensor``, or None where it is not a
    float tensor read this way (another dtype, a big-endian machine, no values)."""
    entry = header.entries.get(name)
    if sys.byteorder != "little" or entry is None or entry["dtype"] not in ELEMENTS:
        return None
    shape, (begin, end) = tuple(entry["shape"]), entry["data_offsets"]
    if not shape or end - begin != math.prod(shape) * ELEMENTS[entry["dtype"]].itemsize or end == begin:
        return None
    return StoredTensor(path, header.data_start + begin, entry["dtype"], shape)
