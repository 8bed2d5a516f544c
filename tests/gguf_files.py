"""Tiny real GGUF files for the tests, written with the gguf package's own GGUFWriter."""

from __future__ import annotations

import numpy as np


def write_gguf(path, arch: str, metadata: dict, tensors: dict | None = None, *, tokens: int | None = None) -> str:
    """Write ``path`` with ``general.architecture = arch``, ``{arch}.KEY`` metadata and named tensors.

    ``metadata`` values: int -> uint32, float -> float32, str -> string, list -> array.
    ``tensors`` values: (array, raw_dtype or None); raw_dtype is a GGMLQuantizationType for quantised bytes.
    """
    import gguf

    writer = gguf.GGUFWriter(str(path), arch)
    for key, value in metadata.items():
        name = f"{arch}.{key}"
        if isinstance(value, bool):
            writer.add_bool(name, value)
        elif isinstance(value, int):
            writer.add_uint32(name, value)
        elif isinstance(value, float):
            writer.add_float32(name, value)
        elif isinstance(value, str):
            writer.add_string(name, value)
        else:
            writer.add_array(name, value)
    if tokens is not None:
        writer.add_token_list([f"t{i}" for i in range(tokens)])
    for name, (array, raw_dtype) in (tensors or {}).items():
        if raw_dtype is None:
            writer.add_tensor(name, array)
        else:
            writer.add_tensor(name, array, raw_dtype=raw_dtype)
    return close_writer(writer, path)


def close_writer(writer, path) -> str:
    """Write the header, metadata and tensors a GGUFWriter holds, close it, and give the path."""
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return str(path)


def q8_0(table: np.ndarray) -> np.ndarray:
    """``table`` (rows, D) quantised to Q8_0 bytes by the package's own quantiser."""
    import gguf

    return gguf.quants.quantize(table.astype(np.float32), gguf.GGMLQuantizationType.Q8_0)
