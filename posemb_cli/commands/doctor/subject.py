"""What doctor's rules look at: one RoPE set of a model's reading, with the raw block it was read from.

The reading (``sources.read_model``, lenient) holds every set and every layer; a
``Subject`` is one set of it: the block's raw keys (the rules report keys a loader
would ignore, so they must see them all), and the set as read when it could be (the reading says
which distances its layers attend: ``ModelReading.attends_to``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from posemb_cli.sources.hf_config.rope_parameters import resolved_rope_type
from posemb_cli.sources.model.fields import Fields
from posemb_cli.sources.model.reading import ModelReading, RopeSet

__all__ = ["Subject", "number", "subjects"]


def number(value) -> float | None:
    """A finite JSON number as float, else None (bools are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


@dataclass(frozen=True)
class Subject:
    """One RoPE set of a model as doctor checks it.

    Attributes:
        reading: the whole model's reading. block: the raw rope block (its prefix names its keys), or None.
        rope_set: the set as read, or None where the reading refused it (the rules say why).
        layer_type: the layer type the set serves, or None for a shared set.
    """

    reading: ModelReading
    block: Fields | None
    rope_set: RopeSet | None = None
    layer_type: str | None = None

    @property
    def fields(self) -> dict:
        return self.reading.fields.values if self.reading.fields is not None else {}

    @property
    def block_values(self) -> dict:
        return self.block.values if self.block is not None else {}

    @property
    def block_name(self) -> str | None:
        return self.block.prefix.rstrip(".") if self.block is not None else None

    def label(self, key: str, *, in_block: bool = False) -> str:
        if in_block and self.block is not None:
            return self.block.prefix + key
        return (self.reading.fields.prefix if self.reading.fields is not None else "") + key

    @property
    def rope_type(self) -> str:
        """The type transformers computes the block with (``rope_type`` over ``type``, the family's renames)."""
        family = self.reading.model_type if self.reading.format == "config.json" else None
        value = resolved_rope_type(self.block_values, family)[0]
        return value if isinstance(value, str) else repr(value)

    def original(self) -> tuple[float | None, str]:
        """The trained length a scaled type starts from, and its label: transformers puts the config's own
        ``original_max_position_embeddings`` (the file's, or its class default) in a shared block, ahead of the
        block's."""
        name = "original_max_position_embeddings"
        if self.layer_type is None and number(self.fields.get(name)) is not None:
            return number(self.fields[name]), self.label(name)
        return number(self.block_values.get(name)), self.label(name, in_block=True)

    @property
    def max_positions(self) -> int | None:
        value = number(self.fields.get("max_position_embeddings"))
        return int(value) if value is not None and value >= 1 else None

    def written(self, key: str) -> bool:
        """Whether the file itself writes ``key`` among the text model's fields (not a family default)."""
        raw: object = self.reading.top
        prefix = self.reading.fields.prefix if self.reading.fields is not None else ""
        for part in filter(None, prefix.split(".")):
            raw = raw.get(part) if isinstance(raw, dict) else None
        return isinstance(raw, dict) and key in raw

    def head_dim(self) -> int | None:
        if self.reading.head_dim is not None:
            return self.reading.head_dim
        explicit = number(self.fields.get("head_dim"))
        if explicit is not None:
            return int(explicit)
        hidden, heads = number(self.fields.get("hidden_size")), number(self.fields.get("num_attention_heads"))
        if hidden is None or not heads or hidden % heads:
            return None
        return int(hidden // heads)


def subjects(reading: ModelReading) -> list[Subject]:
    """One subject per rope block of the model (a block the reading refused included), in file order."""
    found = []
    for layer_type, block in reading.blocks:
        if block is None:
            continue
        name = layer_type or "shared"
        rope_set = next((one for one in reading.rope_sets if one.name == name), None)
        found.append(Subject(reading, block, rope_set, layer_type))
    return found
