"""GGUF files (llama.cpp, Ollama): metadata -> config fields, tensors -> a checkpoint's TensorFile.

Needs the optional ``gguf`` package (``pip install 'posemb[gguf]'``). The
metadata keys of llama.cpp become the Hugging Face config fields that
``sources.model_config`` reads, so a GGUF file gives the same analysis as the
equivalent ``config.json``:

    {arch}.embedding_length -> hidden_size        {arch}.attention.head_count -> num_attention_heads
    {arch}.attention.key_length -> head_dim       {arch}.rope.dimension_count -> rotary_dim
    {arch}.rope.freq_base -> rope_theta           {arch}.context_length -> max_position_embeddings
    {arch}.vocab_size (or the tokenizer's token count) -> vocab_size
    {arch}.rope.scaling.type/.factor/.original_context_length/.yarn_beta_fast/.yarn_beta_slow -> rope_scaling

The ``rope_freqs.weight`` tensor (llama.cpp's per-pair frequency divisors, how
Llama 3.1's scaling is stored) is read as the ``freq_factors`` kind. A key that
changes the position signal and has no such translation is refused, naming it. Tensors are read by name and
dequantised with the package's own ``gguf.quants.dequantize``; shapes are given
in NumPy order (rows first), as the other formats give them.
"""

from __future__ import annotations

from collections.abc import Callable

from posemb_cli.errors import PosembError

INSTALL_HINT = "reading .gguf files needs the gguf package: pip install 'posemb[gguf]'"
# Keys that change RoPE and have no config.json counterpart posemb models: refused when present (and not neutral).
_UNMODELLED = {
    "rope.scaling.attn_factor": 1.0, "rope.scaling.yarn_attn_factor": 1.0, "rope.scaling.yarn_log_multiplier": 0.0,
    "rope.scaling.yarn_ext_factor": None, "rope.scaling.alpha": None, "rope.freq_base_swa": None,
    "rope.dimension_count_swa": None, "rope.dimension_sections": None,
}
_SCALING_TYPES = ("none", "linear", "yarn")

__all__ = ["INSTALL_HINT", "gguf_config_fields", "open_gguf"]


def _reader(path: str, flag: str):
    try:
        import gguf
    except ImportError:
        raise PosembError(f"{flag} {path}: {INSTALL_HINT}") from None
    try:
        return gguf.GGUFReader(path, "r")
    except (ValueError, OSError, IndexError, KeyError) as exc:
        raise PosembError(f"{flag} {path}: not a readable GGUF file ({exc})") from None


def _metadata(reader) -> dict:
    """Every metadata key -> its value (numbers, strings, lists)."""
    out = {}
    for name, field in reader.fields.items():
        if name.startswith("GGUF."):
            continue
        try:
            out[name] = field.contents()
        except (ValueError, IndexError):  # a value the package cannot decode: kept out, named if it matters
            out[name] = None
    return out


def _one(path: str, key: str, value):
    """A per-layer list of equal values read as one number; differing values are refused."""
    if isinstance(value, list):
        if not value or any(item != value[0] for item in value):
            raise PosembError(f"--config {path}: {key} differs between layers ({value[:8]}...): "
                              "posemb analyses one head size for every layer")
        return value[0]
    return value


def gguf_config_fields(path: str) -> dict:
    """The config fields (Hugging Face names) that a GGUF file's llama.cpp metadata states."""
    reader = _reader(path, "--config")
    meta = _metadata(reader)
    arch = meta.get("general.architecture")
    if not isinstance(arch, str):
        raise PosembError(f"--config {path}: general.architecture is missing from the GGUF metadata")

    def get(key: str):
        return _one(path, f"{arch}.{key}", meta.get(f"{arch}.{key}"))

    for key, neutral in _UNMODELLED.items():
        value = meta.get(f"{arch}.{key}")
        if value is not None and value != neutral:
            raise PosembError(f"--config {path}: {arch}.{key} = {value!r} changes the RoPE signal and is not modelled")
    divisors = next((tensor for tensor in reader.tensors if tensor.name == "rope_freqs.weight"), None)
    tokens = meta.get("tokenizer.ggml.tokens")
    fields = {"model_type": arch, "gguf_architecture": arch, "hidden_size": get("embedding_length"),
              "num_attention_heads": get("attention.head_count"), "head_dim": get("attention.key_length"),
              "rotary_dim": get("rope.dimension_count"), "rope_theta": get("rope.freq_base"),
              "max_position_embeddings": get("context_length"),
              "vocab_size": get("vocab_size") or (len(tokens) if isinstance(tokens, list) else None)}
    kind = get("rope.scaling.type")
    if kind is not None and kind not in _SCALING_TYPES:
        raise PosembError(f"--config {path}: {arch}.rope.scaling.type {kind!r} is not supported for GGUF; "
                          f"known: {', '.join(_SCALING_TYPES)}")
    if divisors is not None:  # llama.cpp's per-pair divisors (Llama 3.1's scaling, baked into a tensor)
        if kind not in (None, "none"):
            raise PosembError(f"--config {path}: tensor rope_freqs.weight together with {arch}.rope.scaling.type "
                              f"{kind!r} is not modelled")
        from gguf.quants import dequantize

        values = dequantize(divisors.data, divisors.tensor_type).reshape(-1)
        fields["rope_scaling"] = {"rope_type": "freq_factors", "freq_factors": [float(v) for v in values]}
    elif kind in ("linear", "yarn"):
        scaling = {"rope_type": kind, "factor": get("rope.scaling.factor")}
        if kind == "yarn":
            scaling.update(original_max_position_embeddings=get("rope.scaling.original_context_length"),
                           beta_fast=get("rope.scaling.yarn_beta_fast"), beta_slow=get("rope.scaling.yarn_beta_slow"))
        fields["rope_scaling"] = {key: value for key, value in scaling.items() if value is not None}
    return {key: value for key, value in fields.items() if value is not None}


def open_gguf(path: str, flag: str, model_config: dict | None) -> tuple[dict, Callable[[str], object], dict]:
    """The GGUF file's tensors for a TensorFile: (shapes, read(name), model config).

    Its metadata fields stand in for the model config when none is beside the file.
    """
    reader = _reader(path, flag)
    tensors = {tensor.name: tensor for tensor in reader.tensors}
    shapes = {name: tuple(int(n) for n in reversed(tensor.shape.tolist())) for name, tensor in tensors.items()}

    def read(name: str):
        import numpy as np
        import torch
        from gguf.quants import dequantize

        tensor = tensors[name]
        values = dequantize(np.asarray(tensor.data), tensor.tensor_type)  # float32, rows first
        return torch.from_numpy(np.array(values, dtype=np.float32, copy=True).reshape(shapes[name]))

    if model_config is None:
        try:
            model_config = gguf_config_fields(path)
        except PosembError:
            model_config = {"model_type": _metadata(reader).get("general.architecture")}
    return shapes, read, model_config
