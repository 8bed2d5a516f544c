"""Read named tensors from real model files without running any code in them.

Formats: ``.safetensors`` (one tensor read at a time; float tensors memory-mapped by
``sources.safetensors.tensor_map``, or located for a reader of its own, ``sources.safetensors.stored``),
PyTorch ``.bin``/``.pt`` state dicts (``weights_only=True``: a pickle that needs code is refused),
``.npy``/``.npz`` (``allow_pickle=False``), ``.gguf`` (``sources.gguf_file``), and a model directory holding
``model.safetensors`` (or its sharded index) or ``pytorch_model.bin`` beside
``config.json``. Every failure is a ``FileError`` naming the file.
"""

from __future__ import annotations

import math
import os
import re
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from posemb_cli.errors import FileError, PosembError, brief
from posemb_cli.sources.bounds.limits import format_bytes, require_mapping, require_memory
from posemb_cli.sources.gguf.header import is_gguf

if TYPE_CHECKING:
    from posemb_cli.sources.model.kind import ModelKind
    from posemb_cli.sources.safetensors.stored import StoredTensor

SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".ckpt", ".npy", ".npz", ".gguf")
_DIRECTORY_FILES = ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")


@dataclass(frozen=True)
class TensorFile:
    """The tensors of one checkpoint, by name and shape; ``read`` loads one of them.

    Attributes:
        path: the file or directory as the user gave it.
        kind: safetensors, torch, npy or npz.
        shapes: every tensor's name and shape, read from metadata where the format allows.
        model_config: the ``config.json`` found beside the weights, or None.
        nbytes: each tensor's size in bytes as its file declares it, read before any data is.
        model_kind: the model's kind where the file itself tells it (a GGUF file's architecture).
        locator: where a tensor's bytes lie in a file, for formats that store them plainly (safetensors).
        array_reader: a tensor's values as NumPy without torch, for formats that decode them in NumPy (GGUF's
            dequantised tensors); None where ``read`` is the only way.
    """

    path: str
    kind: str
    shapes: dict[str, tuple[int, ...]]
    reader: Callable[[str], object] = field(repr=False)
    model_config: dict | None = None
    nbytes: dict[str, int] = field(default_factory=dict)
    model_kind: ModelKind | None = None
    locator: Callable[[str], StoredTensor | None] | None = field(default=None, repr=False)
    array_reader: Callable[[str], object] | None = field(default=None, repr=False)

    def read(self, name: str):
        """The tensor ``name`` as a CPU torch tensor."""
        return self.reader(name)

    def stored(self, name: str) -> StoredTensor | None:
        """Where tensor ``name``'s values lie, to be read into a NumPy buffer without torch; None where the format
        or the tensor's dtype does not allow it (then ``read``)."""
        return self.locator(name) if self.locator is not None else None

    def read_array(self, name: str):
        """The tensor ``name`` as NumPy where the format decodes it without torch, else None (then ``read``)."""
        return self.array_reader(name) if self.array_reader is not None else None


def open_tensor_file(path: str) -> TensorFile:
    """Open a checkpoint file or model directory, reading only its metadata."""
    if os.path.isdir(path):
        return _open_directory(path)
    if not os.path.isfile(path):
        raise FileError(path, "no such file or directory")
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in SUFFIXES and is_gguf(path):  # a GGUF file by its magic (an Ollama blob has no suffix)
        suffix = ".gguf"
    if suffix not in SUFFIXES:
        raise FileError(path, f"unsupported file type {suffix or '(none)'!r}; use {', '.join(SUFFIXES)} or a model "
                              "directory")
    if suffix == ".gguf":  # llama.cpp's format: tensors and metadata in one file (the optional gguf package)
        from posemb_cli.sources.gguf.file import open_gguf

        shapes, read, kind, read_array = open_gguf(path)  # its own metadata is the model's config
        return TensorFile(path, "gguf", shapes, read, model_kind=kind, array_reader=read_array)
    opener = {".safetensors": _open_safetensors, ".npy": _open_npy, ".npz": _open_npz}.get(suffix, _open_torch)
    return opener(path, _config_beside(path))


def read_json_object(path: str) -> dict:
    """The JSON object in ``path``, or ``FileError`` about the file."""
    from posemb_cli.sources.bounds.json_limits import read_json_file

    value = read_json_file(path, path)  # sized and depth-checked before it is parsed
    if not isinstance(value, dict):
        raise FileError(path, "expected a JSON object")
    return value


def _config_beside(path: str) -> dict | None:
    candidate = os.path.join(os.path.dirname(os.path.abspath(path)), "config.json")
    return read_json_object(candidate) if os.path.isfile(candidate) else None


def _open_directory(path: str) -> TensorFile:
    config_path = os.path.join(path, "config.json")
    for name in _DIRECTORY_FILES:
        weights = os.path.join(path, name)
        if not os.path.isfile(weights):
            continue
        model_config = read_json_object(config_path) if os.path.isfile(config_path) else None
        if name.endswith(".index.json"):
            return _open_sharded(weights, model_config, display=path)
        opener = _open_safetensors if name.endswith(".safetensors") else _open_torch
        return opener(weights, model_config)
    raise FileError(path, f"the directory holds none of {', '.join(_DIRECTORY_FILES)}")


def _open_safetensors(path: str, model_config: dict | None) -> TensorFile:
    from posemb_cli.sources.safetensors.header import read_safetensors_header

    header = read_safetensors_header(path, path)  # every tensor sized before anything is mapped
    require_mapping(path, header.file_size)  # safe_open maps the whole file
    from safetensors import SafetensorError, safe_open

    try:
        with safe_open(path, framework="numpy") as handle:  # checks the header against the data (no torch)
            for name in handle.keys():
                handle.get_slice(name)
    except (SafetensorError, OSError, ValueError) as exc:
        raise FileError(path, f"not a valid safetensors file ({brief(exc)})") from None
    except (MemoryError, RuntimeError) as exc:  # the system refused the map: more than it will commit
        if isinstance(exc, RuntimeError) and "mmap" not in str(exc):
            raise
        require_memory(path, header.file_size, detail="the file is mapped whole")
        why = brief(str(exc).split(": ")[-1]) or type(exc).__name__
        raise FileError(path, f"its {format_bytes(header.file_size)} cannot be mapped into memory here ({why}); give "
                              "a smaller file") from None

    def read(name: str):
        from posemb_cli.sources.safetensors.tensor_map import mapped_tensor

        mapped = mapped_tensor(path, name)  # a float tensor: a view of the file's memory map, no copy
        if mapped is not None:
            return mapped
        with safe_open(path, framework="pt", device="cpu") as handle:
            return handle.get_tensor(name)  # only this tensor's bytes are read

    def locate(name: str):
        from posemb_cli.sources.safetensors.stored import stored_tensor

        return stored_tensor(header, path, name)

    return TensorFile(path, "safetensors", header.shapes(), read, model_config, header.nbytes(), locator=locate)


def _open_sharded(index_path: str, model_config: dict | None, *, display: str) -> TensorFile:
    weight_map = read_json_object(index_path).get("weight_map")
    if not isinstance(weight_map, dict):
        raise FileError(index_path, "no 'weight_map' object in the index")
    folder = os.path.dirname(index_path)
    shards = {shard: _open_safetensors(os.path.join(folder, shard), None) for shard in set(weight_map.values())}
    shapes = {name: shards[shard].shapes[name] for name, shard in weight_map.items() if name in shards[shard].shapes}
    nbytes = {name: shards[weight_map[name]].nbytes[name] for name in shapes}
    return TensorFile(display, "safetensors", shapes, lambda name: shards[weight_map[name]].read(name), model_config,
                      nbytes, locator=lambda name: shards[weight_map[name]].stored(name))


def _flatten(state, prefix: str = "") -> dict:
    """Tensors of a (possibly nested) state dict, by dotted name; everything else is skipped."""
    import torch

    out = {}
    for key, value in state.items():
        name = f"{prefix}{key}"
        if isinstance(value, torch.Tensor):
            out[name] = value
        elif isinstance(value, dict):
            out.update(_flatten(value, name + "."))
    return out


def _open_torch(path: str, model_config: dict | None) -> TensorFile:
    import pickle

    try:
        with warnings.catch_warnings():  # e.g. torch's note on pickle protocol 4: never an extra stderr line
            warnings.simplefilter("ignore")
            state = _torch_load(path)
    except PosembError:
        raise
    except pickle.UnpicklingError as exc:
        needed = re.search(r"Unsupported global: GLOBAL (\S+)", str(exc))
        if needed:
            raise FileError(path, f"refused, the pickle needs code ({needed.group(1)}) to load and was not run; "
                                  "only plain tensors load (weights_only=True)") from None
        reason = re.search(r"WeightsUnpickler error:\s*(\S[^\n]*)", str(exc))
        detail = brief(reason.group(1)) if reason else type(exc).__name__
        raise FileError(path, f"not a readable PyTorch state dict ({detail})") from None
    except Exception as exc:  # noqa: BLE001 - garbage bytes fail the unpickler in many ways (IndexError, KeyError...)
        detail = brief(exc) or type(exc).__name__
        raise FileError(path, f"not a readable PyTorch state dict ({detail})") from None
    if not isinstance(state, dict):
        raise FileError(path, f"holds a {type(state).__name__}, not a state dict of named tensors")
    tensors = _flatten(state)
    shapes = {name: tuple(tensor.shape) for name, tensor in tensors.items()}
    nbytes = {name: tensor.numel() * tensor.element_size() for name, tensor in tensors.items()}
    return TensorFile(path, "torch", shapes, tensors.__getitem__, model_config, nbytes)


def _torch_load(path: str):
    """``torch.load`` of plain tensors only, memory-mapped where the file allows."""
    import torch

    try:
        return torch.load(path, weights_only=True, map_location="cpu", mmap=True)
    except RuntimeError as exc:
        if "mmap" not in str(exc):  # an old, non-zip file cannot be memory-mapped
            raise
    require_memory(path, 2 * os.stat(path).st_size, detail="an old-format file is read whole")
    return torch.load(path, weights_only=True, map_location="cpu")


def _numpy_reader(load: Callable[[str], object]) -> Callable[[str], object]:
    def read(name: str):
        import numpy as np
        import torch

        return torch.from_numpy(np.array(load(name), copy=True, order="C"))  # a writable copy of the mapped rows

    return read


def _open_npy(path: str, model_config: dict | None) -> TensorFile:
    import numpy as np

    shape, dtype, offset = _npy_header(path)
    nbytes = math.prod(shape) * dtype.itemsize
    if os.stat(path).st_size - offset < nbytes:
        raise FileError(path, f"truncated: the header declares {list(shape)} {dtype} ({format_bytes(nbytes)}) but "
                              "the file is shorter")
    require_memory(path, 2 * nbytes, detail=f"{list(shape)} {dtype} and a copy")
    try:
        array = np.load(path, allow_pickle=False, mmap_mode="r")
    except (ValueError, OSError) as exc:
        raise FileError(path, f"not a plain .npy array ({brief(exc)})") from None
    name = os.path.splitext(os.path.basename(path))[0]
    return TensorFile(path, "npy", {name: tuple(array.shape)}, _numpy_reader(lambda _name: array), model_config,
                      {name: nbytes})


def _npy_header(path: str):
    """(shape, dtype, data offset) from the header of the .npy file at ``path``, no data read."""
    import numpy as np

    try:
        with open(path, "rb") as handle:
            version = np.lib.format.read_magic(handle)
            header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                      else np.lib.format.read_array_header_2_0)
            shape, _fortran, dtype = header(handle)
            return tuple(shape), dtype, handle.tell()
    except Exception as exc:  # noqa: BLE001 - a bad header fails numpy's parser in many ways (TokenError too)
        raise FileError(path, f"not a plain .npy array ({brief(exc)})") from None


def _open_npz(path: str, model_config: dict | None) -> TensorFile:
    import numpy as np

    try:
        archive = np.load(path, allow_pickle=False)
        shapes, nbytes = {}, {}
        with zipfile.ZipFile(path) as members:
            for member in members.namelist():
                with members.open(member) as handle:
                    version = np.lib.format.read_magic(handle)
                    header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                              else np.lib.format.read_array_header_2_0)
                    shape, _fortran, dtype = header(handle)
                shapes[member.removesuffix(".npy")] = tuple(shape)
                nbytes[member.removesuffix(".npy")] = math.prod(shape) * dtype.itemsize
    except Exception as exc:  # noqa: BLE001 - a bad member header fails numpy's parser in many ways
        raise FileError(path, f"not a plain .npz archive ({brief(exc)})") from None

    def load(name: str):
        try:
            return archive[name]
        except Exception as exc:  # noqa: BLE001 - a damaged member fails zlib, zipfile or numpy in many ways
            raise FileError(path, f"array {name!r} is not plain numbers ({brief(exc)})") from None

    return TensorFile(path, "npz", shapes, _numpy_reader(load), model_config, nbytes)
