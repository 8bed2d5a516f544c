"""A checkpoint's query and key projections found for the model's reading, checked before any weight is read.

``open_qk_source`` takes the model's reading (its attention shape, family and layer map), looks up
how the family's runtime normalises around q and k (``sources.attention_inputs``), finds every
rotating layer's tensors by name (``sources.qk_names``) and checks that each norm the runtime applies
is there (and none it does not); ``QKSource.read(layer)`` then opens one layer (``sources.qk_weights``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from posemb_cli.errors import FileError
from posemb_cli.sources.weights.qk_weights import AttentionShape, LayerBuffers, QKLayer, read_qk_layer

if TYPE_CHECKING:
    from posemb_cli.sources.model.reading import ModelReading
    from posemb_cli.sources.weights.attention_inputs import AttentionInput
    from posemb_cli.sources.weights.qk_names import QKNames
    from posemb_cli.sources.weights.tensor_files import TensorFile

__all__ = ["QKSource", "open_qk_source"]


@dataclass(frozen=True)
class QKSource:
    """A checkpoint's rotating layers, ready to be read one at a time (``read``)."""

    tensors: TensorFile
    names: QKNames
    shape: AttentionShape
    rule: AttentionInput
    unpermute: bool
    path: str

    @property
    def layers(self) -> list[int]:
        return sorted(self.names.layers)

    def read(self, layer: int, buffers: LayerBuffers | None = None, per_block: int = 1) -> QKLayer:
        return read_qk_layer(self.tensors, self.names, layer, self.shape, self.rule, unpermute=self.unpermute,
                             path=self.path, buffers=buffers, per_block=per_block)


def _shape(reading: ModelReading, path: str) -> AttentionShape:
    values = {"heads": reading.heads, "kv_heads": reading.kv_heads, "head_dim": reading.head_dim,
              "hidden": reading.hidden_size}
    missing = [name for name, value in values.items() if value is None]
    if missing:
        raise FileError(path, f"the model's {' and '.join(missing)} could not be read from its "
                          f"{reading.read_from}")
    shape = AttentionShape(**values)  # type: ignore[arg-type]
    if shape.heads % shape.kv_heads:
        raise FileError(path, f"{shape.heads} query heads do not share {shape.kv_heads} key/value heads evenly")
    return shape


def open_qk_source(tensors: TensorFile, reading: ModelReading, path: str) -> QKSource:
    """Find every rotating layer's q/k projections and norms by name, checking shapes before any weight is read.

    Refused (``FileError`` about ``path``, the checkpoint): a family whose norms posemb does not know, projections
    not found or of another shape, a norm that the family's runtime applies but the checkpoint lacks (or the reverse).
    """
    from posemb_cli.sources.weights.attention_inputs import attention_input
    from posemb_cli.sources.weights.qk_names import find_qk_names

    shape = _shape(reading, path)
    rule = attention_input(reading.model_type, tensors.kind, path)
    rope_layers = [record.layer for record in reading.layers if record.position == "rope"]
    if not rope_layers:
        raise FileError(path, f"no layer of the model rotates its queries and keys (layer map from its "
                          f"{reading.read_from})")
    names = find_qk_names(tensors.shapes, tensors.kind, rope_layers, expected=shape.expected(), path=path)
    norm_name = "attn_norm.weight" if tensors.kind == "gguf" else "input_layernorm.weight"
    for layer in names.layers.values():
        has_norm = layer.get("norm") is not None
        if has_norm != (rule.norm != "none"):
            raise FileError(path, f"layer {layer.layer} " + (
                f"has no {norm_name}, the norm {rule.family}'s runtime applies before attention" if not has_norm
                else f"holds {layer.get('norm')}, but {rule.family}'s runtime applies no norm before attention"))
        if reading.qk_interleaved_by_converter and (layer.get("q_norm") or layer.get("k_norm")):
            raise FileError(path, "q/k norms in a file whose q/k rows llama.cpp's converter permuted "
                              "are not modelled")
    return QKSource(tensors, names, shape, rule, reading.qk_interleaved_by_converter, path)
