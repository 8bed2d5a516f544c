"""GGUF files (llama.cpp, Ollama): the reader, the metadata, and tensors read by name for a checkpoint's TensorFile.

Needs the optional ``gguf`` package (``pip install 'posemb[gguf]'``) for its
dequantisation. The header is read by ``sources.gguf_header``; what the metadata
means for the model (width, layers, RoPE sets, llama.cpp's rules) is
``sources.gguf_reading``'s. Tensors are read by name and dequantised with the
package's own ``gguf.quants.dequantize``; shapes are given in NumPy order (rows
first), as the other formats give them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from posemb_cli.errors import PosembError
from posemb_cli.sources.gguf_header import GGUFHeader, TensorInfo, read_header

if TYPE_CHECKING:
    from posemb_cli.sources.model_kind import ModelKind

INSTALL_HINT = "reading .gguf files needs the gguf package: pip install 'posemb[gguf]'"

__all__ = ["INSTALL_HINT", "dequantized", "gguf_reader", "metadata", "open_gguf", "tensor_values"]


def gguf_reader(path: str, flag: str) -> GGUFHeader:
    """The file's header (``sources.gguf_header``), once the ``gguf`` package (for dequantising) is there."""
    try:
        import gguf  # noqa: F401
    except ImportError:
        raise PosembError(f"{flag} {path}: {INSTALL_HINT}") from None
    return read_header(path, flag)


def metadata(reader: GGUFHeader) -> dict:
    """Every metadata key -> its value (numbers, strings, lists; a long array as its length only)."""
    return dict(reader.fields)


def dequantized(reader: GGUFHeader, tensor: TensorInfo):
    """The tensor's values as float32 NumPy, rows first (``gguf.quants.dequantize``)."""
    import numpy as np
    from gguf import GGMLQuantizationType
    from gguf.quants import dequantize

    try:
        values = dequantize(reader.raw(tensor), GGMLQuantizationType(tensor.tensor_type))
    except NotImplementedError as exc:
        raise PosembError(f"{reader.path}: tensor {tensor.name!r}: {exc}") from None
    return np.asarray(values, dtype=np.float32).reshape(tensor.shape)


def tensor_values(reader: GGUFHeader, tensor: TensorInfo) -> list[float]:
    """A small tensor (RoPE factors) as a flat list of floats."""
    return [float(v) for v in dequantized(reader, tensor).reshape(-1)]


def open_gguf(path: str, flag: str) -> tuple[dict, Callable[[str], object], ModelKind]:
    """The GGUF file's tensors for a TensorFile: (shapes, read(name), the model's kind)."""
    from posemb_cli.sources.gguf_rules import gguf_kind

    reader = gguf_reader(path, flag)
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    shapes = {name: tensor.shape for name, tensor in tensors.items()}

    def read(name: str):
        import numpy as np
        import torch

        return torch.from_numpy(np.array(dequantized(reader, tensors[name]), dtype=np.float32, copy=True))

    kind = gguf_kind(reader.fields.get("general.architecture"), tensors, path, flag)
    return shapes, read, kind
