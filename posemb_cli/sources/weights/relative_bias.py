"""Read T5's learned relative-attention bias (buckets x heads) and its bucket edges from a model directory.

T5 keeps one ``relative_attention_bias.weight`` (N buckets x H heads) in the
first self-attention layer of the encoder and one in the decoder (UMT5: one
per layer). The bucket edges come from config.json
(``relative_attention_num_buckets``, ``relative_attention_max_distance``);
the encoder's bias is bidirectional, the decoder's looks back only. Without a
config the edges are unknown, and the file is refused, never defaulted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import FileError, ValueRefusal
from posemb_cli.sources.model.families import RELATIVE_BIAS_NAMES
from posemb_cli.sources.model.kind import ModelKind, first_field
from posemb_cli.sources.weights.position_table import token_table
from posemb_cli.sources.weights.tensor_files import TensorFile

if TYPE_CHECKING:
    import torch

_REFUSED_FAMILIES = {"longt5": "LongT5's local and transient-global attention (a window, global buckets)"}


@dataclass(frozen=True)
class RelativeBiasTable:
    """One relative-attention bias table and what it needs to be read as a bias against distance.

    Attributes:
        weight: (N, H) float tensor, as stored. key: its tensor name.
        bidirectional: the encoder's (True) or the decoder's (False).
        max_distance: from this distance on every distance shares the last bucket.
        dim: D, the model width (d_model). vocab: V of the token table (None: unknown).
        others: the other bias tables of the file (``--key`` picks one).
    """

    path: str
    key: str
    weight: torch.Tensor  # (buckets, heads)
    bidirectional: bool
    max_distance: int
    dim: int
    vocab: int | None
    token_key: str | None
    token_note: str | None
    stored_dtype: str
    kind: ModelKind
    others: tuple[str, ...] = ()

    @property
    def buckets(self) -> int:
        return int(self.weight.shape[0])

    @property
    def heads(self) -> int:
        return int(self.weight.shape[1])

    def source(self) -> dict:
        """The JSON ``source`` object."""
        return {"checkpoint": self.path, "key": self.key, "model_type": self.kind.model_type,
                "stored_dtype": self.stored_dtype, "token_key": self.token_key,
                "side": "encoder" if self.bidirectional else "decoder",
                "relative_attention_num_buckets": self.buckets, "relative_attention_max_distance": self.max_distance,
                "other_bias_keys": list(self.others),
                "table_note": "no additive position table: the bias is added to attention scores",
                "neighbour_note": "neighbour similarity compares position vectors; a bias per distance has none",
                **self.kind.source(), **({"token_note": self.token_note} if self.token_note else {})}


def _block(name: str) -> int:
    found = re.search(r"block\.(\d+)\.", name)
    return int(found.group(1)) if found else 0


def _is_decoder(name: str) -> bool:
    return re.search(r"(^|\.)decoder\.", name) is not None


def bias_keys(tensors: TensorFile) -> list[str]:
    """The bias tables of the file: the encoder's first, each side by layer."""
    found = [n for n in tensors.shapes if any(n == s or n.endswith("." + s) for s in RELATIVE_BIAS_NAMES)]
    return sorted(found, key=lambda n: (_is_decoder(n), _block(n), n))


def _config_int(kind: ModelKind, name: str, origin: str) -> int:
    value = kind.fields.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise FileError(origin, f"config.json {name} is {value!r}; the bucket edges need a "
                                f"positive whole number")
    return value


def read_relative_bias(path: str, tensors: TensorFile, kind: ModelKind, *, key: str | None) -> RelativeBiasTable:
    """The bias table ``--key`` names, or the encoder's first; exit 2 for what cannot be read exactly.

    Args:
        path: the file or directory as the user gave it. tensors: its tensors, opened.
        kind: the model's kind, classified from the config.json beside the weights.
        key: ``--key``, or None for the encoder's (first) table.
    """
    if kind.model_type in _REFUSED_FAMILIES:
        raise FileError(path, f"model_type {kind.model_type!r} uses "
                              f"{_REFUSED_FAMILIES[kind.model_type]}: not modelled")
    if tensors.model_config is None:
        raise FileError(path, "a relative-attention bias needs its bucket edges "
                              "(relative_attention_num_buckets, relative_attention_max_distance) from config.json; "
                              "pass the model directory")
    keys = bias_keys(tensors)
    if key is not None and key not in keys:
        raise ValueRefusal("key", repr(key), f"not a relative-attention bias of {path}; choose from {', '.join(keys)}")
    if not keys:
        raise FileError(path, "no relative_attention_bias.weight in the weights")
    name = key or keys[0]
    shape = tensors.shapes[name]
    buckets = _config_int(kind, "relative_attention_num_buckets", path)
    max_distance = _config_int(kind, "relative_attention_max_distance", path)
    _, heads = first_field(kind.fields, ("num_heads", "num_attention_heads"))
    if len(shape) != 2 or shape[0] != buckets or (heads is not None and shape[1] != heads):
        raise FileError(path, f"{name} has shape {list(shape)}, not [buckets, heads] = "
                              f"[{buckets}, {heads}] (relative_attention_num_buckets, num_heads)")
    bidirectional = not _is_decoder(name)
    exact = buckets // (2 if bidirectional else 1) // 2
    if exact < 1 or max_distance <= exact:
        raise FileError(path, f"relative_attention_max_distance {max_distance} must exceed the "
                              f"{exact} exact buckets per direction (relative_attention_num_buckets {buckets})")
    _, dim = kind.width()
    if dim is None:
        raise FileError(path, "no model width (d_model) in config.json")
    weight = tensors.read(name)
    if not weight.is_floating_point() or not bool(weight.isfinite().all()):
        raise FileError(path, f"{name} must hold finite floating-point numbers")
    token_key, vocab, token_note = token_table(tensors, name, dim, kind)
    return RelativeBiasTable(path=path, key=name, weight=weight, bidirectional=bidirectional,
                             max_distance=max_distance, dim=dim, vocab=vocab, token_key=token_key,
                             token_note=token_note, stored_dtype=str(weight.dtype).removeprefix("torch."),
                             kind=kind, others=tuple(k for k in keys if k != name))
