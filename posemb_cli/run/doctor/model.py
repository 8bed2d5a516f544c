"""What doctor reads and reports: a config's position fields, one finding, the whole report.

The config is read as raw JSON (``sources.tensor_files.read_json_object``):
doctor looks at fields a loader would ignore or refuse, so it must see them all.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

__all__ = ["ModelFields", "number"]


def number(value) -> float | None:
    """A finite JSON number as float, else None (bools are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


@dataclass(frozen=True)
class ModelFields:
    """The position-related fields of one config.json, with the nesting resolved.

    ``fields`` is the object holding the text model's settings (``text_config`` in multimodal files),
    ``prefix`` its path for messages; ``block`` the rope block (``rope_parameters`` or ``rope_scaling``).
    """

    path: str
    top: dict
    fields: dict
    prefix: str
    block_name: str | None
    block: dict = field(default_factory=dict)

    @classmethod
    def of(cls, path: str, top: dict) -> ModelFields:
        fields, prefix = top, ""
        nested = top.get("text_config")
        if "hidden_size" not in top and "head_dim" not in top and isinstance(nested, dict):
            fields, prefix = nested, "text_config."
        block_name = next((name for name in ("rope_parameters", "rope_scaling") if isinstance(fields.get(name), dict)),
                          None)
        return cls(path=path, top=top, fields=fields, prefix=prefix, block_name=block_name,
                   block=dict(fields[block_name]) if block_name else {})

    def label(self, key: str, *, in_block: bool = False) -> str:
        return f"{self.prefix}{self.block_name}.{key}" if in_block else f"{self.prefix}{key}"

    @property
    def rope_type(self) -> str:
        value = self.block.get("rope_type", self.block.get("type", "default"))
        return value if isinstance(value, str) else repr(value)

    @property
    def max_positions(self) -> int | None:
        value = number(self.fields.get("max_position_embeddings"))
        return int(value) if value is not None and value >= 1 else None

    @property
    def base(self) -> float | None:
        for source in (self.block, self.fields):
            for name in ("rope_theta", "rotary_emb_base"):
                if name in source:
                    return number(source[name])
        return None

    @property
    def has_rope(self) -> bool:
        """True when the config describes RoPE at all (a rope block or a theta)."""
        keys = ("rope_theta", "rotary_emb_base", "rotary_pct", "partial_rotary_factor")
        return self.block_name is not None or any(key in self.fields for key in keys)

    def head_dim(self) -> int | None:
        explicit = number(self.fields.get("head_dim"))
        if explicit is not None:
            return int(explicit)
        hidden, heads = number(self.fields.get("hidden_size")), number(self.fields.get("num_attention_heads"))
        if hidden is None or not heads or hidden % heads:
            return None
        return int(hidden // heads)

    def dtype(self) -> str | None:
        for source in (self.fields, self.top):
            for name in ("torch_dtype", "dtype"):
                if isinstance(source.get(name), str):
                    return source[name]
        return None
