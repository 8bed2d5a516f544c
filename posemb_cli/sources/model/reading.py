"""One reading of a real model: its hyperparameters, read once, with a record per layer.

Modelled on llama.cpp's ``llama_hparams``: one loader fills it (``sources.read_model``
from a config.json, a GGUF header or the config beside a checkpoint's weights,
with the runtime's own rule wherever the file is silent) and every command only
reads it. Per layer it says what the layer does with position (``rope``,
``none``, ``alibi``, ``relative_bias``, or ``table`` for a table added at the
input), which RoPE set it rotates with, and its attention window.

Layer notation: L layers, indexed from 0; a RoPE set is named after the layer
type that uses it (``full_attention``, ``sliding_attention``) or ``shared`` when
every rotating layer uses the same one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from posemb_cli.core.settings import RopeScaling
from posemb_cli.core.wording import layer_ranges
from posemb_cli.sources.model.fields import Fields
from posemb_cli.sources.model.kind import ModelKind

POSITIONS = ("rope", "none", "alibi", "relative_bias", "table")
SHARED_SET = "shared"

__all__ = ["POSITIONS", "SHARED_SET", "Attends", "LayerGroup", "LayerRecord", "ModelReading", "RopeSet"]


@dataclass(frozen=True)
class RopeSet:
    """One set of RoPE frequencies of a model, as the runtime builds it for the layers that use it.

    Attributes:
        name: ``shared``, or the layer type whose layers use it (``sliding_attention``).
        base: the base (``rope_theta``) as applied. rotary_dim: features of one head that rotate.
        head_dim: one head's size. scaling: the context extension, as applied.
        ctx: the context its frequencies are analysed at (extended for dynamic, yarn, llama3).
        layout: how a head's features pair in Hugging Face's layout, ``half`` (f with f + P) or ``interleaved``
            (a GGUF file's rows that llama.cpp's converter interleaved count as half: ``qk_interleaved_by_converter``).
        rope_type: the type as the file names it. decided_by: the field or rule that gave the base.
        notes: extra entries for JSON ``source`` (as the per-set analysis reports them).
        block: the raw block it was read from (``posemb doctor`` lints its keys), or None.
    """

    name: str
    base: float
    rotary_dim: int
    head_dim: int
    scaling: RopeScaling
    ctx: int
    layout: str = "half"
    rope_type: str = "default"
    decided_by: str = ""
    notes: dict = field(default_factory=dict)
    block: Fields | None = field(default=None, repr=False, compare=False)
    base_defaulted: bool = False  # the file gives no base and no family rule does: the loader's generic default

    def to_dict(self) -> dict:
        return {"name": self.name, "rope_theta": self.base, "rope_type": self.rope_type, "scaling": self.scaling.kind,
                "factor": self.scaling.factor, "rotary_dim": self.rotary_dim, "head_dim": self.head_dim,
                "layout": self.layout, "base_from": self.decided_by}


@dataclass(frozen=True)
class LayerRecord:
    """What one layer does with position.

    Attributes:
        layer: its index. position: one of POSITIONS. rope_set: the RopeSet's name (rope layers only).
        window: the attention window in positions (sliding or chunked attention), None for full attention.
        attention: the layer type as the runtime names it (``full_attention``, ``sliding_attention``,
            ``chunked_attention``).
    """

    layer: int
    position: str
    rope_set: str | None = None
    window: int | None = None
    attention: str = "full_attention"

    def to_dict(self) -> dict:
        return {"layer": self.layer, "position": self.position, "rope_set": self.rope_set, "window": self.window,
                "attention": self.attention}

    def shape(self) -> tuple:
        """Everything but the index: layers of equal shape form one group."""
        return self.position, self.rope_set, self.window, self.attention


@dataclass(frozen=True)
class LayerGroup:
    """Layers that do the same with position, in index order."""

    layers: tuple[int, ...]
    record: LayerRecord  # the first layer's record

    @property
    def label(self) -> str:
        return ("layer " if len(self.layers) == 1 else "layers ") + layer_ranges(self.layers)

    def to_dict(self) -> dict:
        record = self.record.to_dict()
        del record["layer"]
        return {"layers": list(self.layers), **record}


@dataclass(frozen=True)
class Attends:
    """The distances the layers of one RoPE set attend: 0 to ``distance`` - 1, and why.

    Attributes:
        distance: one more than the farthest distance any of its layers attends.
        why: in words: its layers' sliding window (or chunk), or the context the set runs at (no figure).
        windowed: True when a window (or chunk) bounds it below the context.
    """

    distance: int
    why: str
    windowed: bool = False

    def to_dict(self) -> dict:
        return {"distance": self.distance, "why": self.why, "windowed": self.windowed}


@dataclass(frozen=True)
class ModelReading:
    """A real model's hyperparameters, read once, with one record per layer.

    Attributes:
        path: the file that was read (a config.json or a .gguf). format: ``config.json`` or ``gguf``.
        kind: what the model uses for position, and the field or tensor that decided it.
        model_type: the config's ``model_type`` or the GGUF ``general.architecture``.
        hidden_size: the model's width. vocab: its vocabulary size. context: the trained (or extended)
            context the file states (``max_position_embeddings``, ``{arch}.context_length``).
        heads, kv_heads, head_dim: the attention shape (the same in every layer, or None).
        token_table: (rows, width) of the token table where the file holds it, else None.
        rope_sets: the model's RoPE sets, in file order. layers: one record per layer.
        rules: each rule applied where the file is silent, worded with the runtime it follows.
        fields: the text model's fields as read (after any GGUF translation). top: the whole object.
        dtype: the dtype the file states for the weights, or None.
        qk_interleaved_by_converter: a GGUF file whose q/k rows llama.cpp's converter interleaved.
        blocks: the raw rope blocks (layer type or None, block or None for a type without RoPE).
        problems: what a lenient reading (posemb doctor) could not read, each as the refusal's message.
    """

    path: str
    format: str
    kind: ModelKind
    model_type: str | None = None
    hidden_size: int | None = None
    vocab: int | None = None
    context: int | None = None
    heads: int | None = None
    kv_heads: int | None = None
    head_dim: int | None = None
    token_table: tuple[int, int] | None = None
    rope_sets: tuple[RopeSet, ...] = ()
    layers: tuple[LayerRecord, ...] = ()
    rules: tuple[str, ...] = ()
    fields: Fields | None = field(default=None, repr=False)
    top: dict = field(default_factory=dict, repr=False)
    dtype: str | None = None
    qk_interleaved_by_converter: bool = False
    blocks: tuple[tuple[str | None, Fields | None], ...] = field(default=(), repr=False)
    problems: tuple[str, ...] = ()

    @property
    def decided_by(self) -> str:
        """The field that decided the kind, then each rule applied where the file is silent."""
        return "; ".join([self.kind.decided_by, *self.rules])

    @property
    def read_from(self) -> str:
        """How the source is described: ``GGUF metadata`` or ``config.json``."""
        return "GGUF metadata" if self.format == "gguf" else "config.json"

    def rope_set(self, name: str) -> RopeSet:
        return next(one for one in self.rope_sets if one.name == name)

    def groups(self) -> list[LayerGroup]:
        """Layers of equal shape grouped, groups ordered by their first layer."""
        found: dict[tuple, list[int]] = {}
        records: dict[tuple, LayerRecord] = {}
        for record in self.layers:
            found.setdefault(record.shape(), []).append(record.layer)
            records.setdefault(record.shape(), record)
        return [LayerGroup(tuple(layers), records[shape]) for shape, layers in found.items()]

    def layers_of(self, set_name: str) -> list[int]:
        return [record.layer for record in self.layers if record.rope_set == set_name]

    def window_of(self, set_name: str) -> int | None:
        """The window every layer of the set attends within, or None when one of them sees the whole context."""
        windows = [record.window for record in self.layers if record.rope_set == set_name]
        return None if not windows or any(window is None for window in windows) else max(w for w in windows if w)

    def attends_to(self, set_name: str) -> Attends:
        """The distances the set's layers attend: their window (or chunk) where every one of them has one shorter
        than the set's context, else the context the set runs at (extended for dynamic, yarn and llama3)."""
        context = self.rope_set(set_name).ctx
        window = self.window_of(set_name)
        if window is not None and window < context:
            kinds = {record.attention for record in self.layers if record.rope_set == set_name}
            what = "chunk" if kinds == {"chunked_attention"} else "sliding window"
            return Attends(window, f"the {what} of layers {layer_ranges(self.layers_of(set_name))}", windowed=True)
        return Attends(context, "the context it runs at")

    @property
    def token_parameters(self) -> int | None:
        """Parameters of the token table: its stored shape, else vocab x hidden_size."""
        if self.token_table is not None:
            return self.token_table[0] * self.token_table[1]
        if self.vocab is not None and self.hidden_size is not None:
            return self.vocab * self.hidden_size
        return None

    def layer_map(self) -> list[dict]:
        return [record.to_dict() for record in self.layers]

    def model_dict(self) -> dict:
        """The JSON ``model`` object: the model's own shape, as read."""
        return {"read_from": self.read_from, "model_type": self.model_type, "hidden_size": self.hidden_size,
                "vocab_size": self.vocab, "layers": len(self.layers) or None, "heads": self.heads,
                "kv_heads": self.kv_heads, "head_dim": self.head_dim,
                "token_table": list(self.token_table) if self.token_table else
                ([self.vocab, self.hidden_size] if self.vocab and self.hidden_size else None),
                "token_parameters": self.token_parameters,
                "rope_sets": [one.to_dict() for one in self.rope_sets],
                "layer_groups": [group.to_dict() for group in self.groups()],
                "rules": list(self.rules)}
