"""GGUF files (llama.cpp, Ollama): the reader, the metadata, and tensors read by name for a checkpoint's TensorFile.

Needs the optional ``gguf`` package (``pip install 'posemb[gguf]'``). What the
metadata means for the model (width, layers, RoPE sets, llama.cpp's rules) is
``sources.gguf_reading``'s; this module only opens the file (its header read once per
file by ``sources.gguf_header``, shared by the reading and the tensors). Tensors are read by
name and dequantised with the package's own ``gguf.quants.dequantize``; shapes are
given in NumPy order (rows first), as the other formats give them.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from posemb_cli.errors import FileError

if TYPE_CHECKING:
    from posemb_cli.sources.gguf.header import GGUFHeader
    from posemb_cli.sources.model.kind import ModelKind

INSTALL_HINT = "reading .gguf files needs the gguf package: pip install 'posemb[gguf]'"

__all__ = ["INSTALL_HINT", "gguf_reader", "metadata", "open_gguf", "tensor_shape", "tensor_values"]


def gguf_reader(path: str) -> GGUFHeader:
    """The file's header (``sources.gguf_header``; tensors memory-mapped, read only when touched)."""
    try:
        import gguf  # noqa: F401 - the package's type codes and dequantisers
    except ImportError:
        raise FileError(path, INSTALL_HINT) from None
    try:
        stat = os.stat(path)
        return _header(os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
    except (ValueError, OSError, IndexError, KeyError, OverflowError) as exc:
        raise FileError(path, f"not a readable GGUF file ({exc})") from None


@functools.lru_cache(maxsize=2)
def _header(path: str, _mtime_ns: int, _size: int) -> GGUFHeader:
    """One reading of the header per file and version of it: the model's reading and its tensors share it."""
    from posemb_cli.sources.gguf.header import read_header

    return read_header(path)


def metadata(reader: GGUFHeader) -> dict:
    """Every metadata key -> its value (numbers, strings, lists; None for a string that is not UTF-8)."""
    return dict(reader.metadata)


def tensor_shape(tensor) -> tuple[int, ...]:
    """A GGUF tensor's shape in NumPy order (rows first); GGUF lists the fastest dimension first."""
    return tuple(int(n) for n in reversed(tensor.shape.tolist()))


def dequantized(tensor):
    """The tensor's values as float32 NumPy, rows first (``gguf.quants.dequantize``)."""
    import numpy as np
    from gguf.quants import dequantize

    values = dequantize(np.asarray(tensor.data), tensor.tensor_type)
    return np.asarray(values, dtype=np.float32).reshape(tensor_shape(tensor))


def tensor_values(tensor) -> list[float]:
    """A small tensor (RoPE factors) as a flat list of floats."""
    return [float(v) for v in dequantized(tensor).reshape(-1)]


def open_gguf(path: str) -> tuple[dict, Callable[[str], object], ModelKind, Callable[[str], object]]:
    """The GGUF file's tensors for a TensorFile: (shapes, read(name) as torch, the model's kind, read(name) as
    NumPy: the same float32 values without torch)."""
    from posemb_cli.sources.gguf.rules import gguf_kind

    reader = gguf_reader(path)
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    shapes = {name: tensor_shape(tensor) for name, tensor in tensors.items()}

    def read_array(name: str):
        import numpy as np

        return np.array(dequantized(tensors[name]), dtype=np.float32, copy=True)

    def read(name: str):
        import torch

        return torch.from_numpy(read_array(name))

    kind = gguf_kind(metadata(reader).get("general.architecture"), tensors, path)
    return shapes, read, kind, read_array
