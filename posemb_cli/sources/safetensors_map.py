"""One tensor of a ``.safetensors`` file as a view of the file's memory map: no copy of its bytes.

The format (https://github.com/huggingface/safetensors#format): an 8-byte little-endian
header length N, N bytes of JSON naming each tensor's ``dtype``, ``shape`` and
``data_offsets`` (begin, end) within the byte buffer that follows the header. The file
is mapped copy-on-write (``ACCESS_COPY``): its pages are read on first touch and
shared with the page cache, and nothing ever writes back to the file.

Only the float dtypes posemb analyses are mapped, on a little-endian machine, at an
offset aligned to the element size; anything else returns None and the caller reads
the tensor the usual way (``safe_open(...).get_tensor``).
"""

from __future__ import annotations

import json
import math
import mmap
import struct
import sys

import torch

_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}
_MAX_HEADER = 100 << 20  # the format's own limit on the header (100 MB)

__all__ = ["mapped_tensor"]


def mapped_tensor(path: str, name: str) -> torch.Tensor | None:
    """Tensor ``name`` of the (already validated) file at ``path`` as a view of its memory map, or None."""
    if sys.byteorder != "little":
        return None
    with open(path, "rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        if length > _MAX_HEADER:
            return None
        entry = json.loads(handle.read(length)).get(name)
        if not isinstance(entry, dict) or entry.get("dtype") not in _DTYPES:
            return None
        dtype = _DTYPES[entry["dtype"]]
        shape, (begin, end) = tuple(entry["shape"]), entry["data_offsets"]
        element = torch.empty((), dtype=dtype).element_size()
        start = 8 + length + begin
        if end - begin != math.prod(shape) * element or start % element or end == begin:
            return None
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_COPY)
    # The tensor holds the map (its buffer) alive; the file descriptor is not needed for that.
    return torch.frombuffer(mapped, dtype=dtype, count=math.prod(shape), offset=start).view(shape)
