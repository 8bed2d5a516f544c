"""One tensor of a ``.safetensors`` file as a view of a memory map of its bytes: no copy of them.

The header (``safetensors_header``) gives the tensor's ``dtype``, ``shape`` and
``data_offsets``; only the pages that hold the tensor are mapped, copy-on-write
(``ACCESS_COPY``): they are read on first touch and shared with the page cache,
and nothing ever writes back to the file.

Only the float dtypes posemb analyses are mapped, on a little-endian machine, at an
offset aligned to the element size; anything else returns None and the caller reads
the tensor the usual way (``safe_open(...).get_tensor``).
"""

from __future__ import annotations

import math
import mmap
import sys

import torch

from posemb_cli.sources.safetensors.header import read_safetensors_header

_DTYPES = {"F64": torch.float64, "F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}

__all__ = ["mapped_tensor"]


def mapped_tensor(path: str, name: str) -> torch.Tensor | None:
    """Tensor ``name`` of the (already validated) file at ``path`` as a view of a memory map, or None."""
    if sys.byteorder != "little":
        return None
    header = read_safetensors_header(path, path)
    entry, header_end = header.entries.get(name), header.data_start
    if entry is None or entry["dtype"] not in _DTYPES:
        return None
    dtype = _DTYPES[entry["dtype"]]
    shape, (begin, end) = tuple(entry["shape"]), entry["data_offsets"]
    element = torch.empty((), dtype=dtype).element_size()
    start = header_end + begin
    if end - begin != math.prod(shape) * element or start % element or end == begin:
        return None
    first_page = start // mmap.ALLOCATIONGRANULARITY * mmap.ALLOCATIONGRANULARITY
    with open(path, "rb") as handle:
        mapped = mmap.mmap(handle.fileno(), header_end + end - first_page, access=mmap.ACCESS_COPY,
                           offset=first_page)
    # The tensor holds the map (its buffer) alive; the file descriptor is not needed for that.
    return torch.frombuffer(mapped, dtype=dtype, count=math.prod(shape), offset=start - first_page).view(shape)
