"""A RoPE model's sets as the analysis takes them: one ``RopeModel`` per RoPE set of the model's reading.

No weights are needed: RoPE's position signal is fully given by the config. The
reading (``sources.read_model``) holds every set and every layer; a ``RopeModel``
is one set of it, with the model's heads and vocabulary and the ``source`` keys
each analysed set reports. A config with one set per layer type gives one
``RopeModel`` per type, the first carrying the others: the set whose layers
attend farthest leads (a global set before a sliding one), then file order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from posemb_cli.core.schemes.rope_scaling import RopeScaling
from posemb_cli.errors import ConfigError
from posemb_cli.sources.model.reading import SHARED_SET, Attends, ModelReading, RopeSet

__all__ = ["RopeModel", "rope_model_of"]


@dataclass(frozen=True)
class RopeModel:
    """What RoPE does in one real model (one layer type of it), as its config states it.

    ``layer_type`` names the layer type for per-layer-type configs; ``others`` holds the
    further layer types, each a RopeModel of its own; ``notes`` are extra ``source`` entries;
    ``reading`` is the whole model's reading (its layers, width and token table).
    """

    path: str
    model_type: str | None
    heads: int
    head_dim: int
    rotary_dim: int
    base: float
    ctx: int
    vocab: int | None
    scaling: RopeScaling
    layer_type: str | None = None
    others: tuple[RopeModel, ...] = ()
    notes: dict = field(default_factory=dict)
    layout: str = "half"
    reading: ModelReading | None = field(default=None, repr=False, compare=False)
    base_from: str = ""

    @property
    def attends(self) -> Attends:
        """The distances this set's layers attend (``ModelReading.attends_to``): its window, or its context."""
        if self.reading is None or not self.reading.rope_sets:
            return Attends(self.ctx, "the context it runs at")
        return self.reading.attends_to(self.layer_type or SHARED_SET)

    def layer_types(self) -> tuple[RopeModel, ...]:
        """This model's layer types, the first (this one) first."""
        return (self, *self.others)

    def source(self) -> dict:
        """The JSON ``source`` object."""
        out: dict[str, object] = {"config": self.path, "model_type": self.model_type, "rope_type": self.scaling.kind,
               "rope_theta": self.base, "head_dim": self.head_dim, "rotary_dim": self.rotary_dim,
               "heads": self.heads, "max_position_embeddings": self.ctx}  # the analysed context, as before
        out.update(self.notes)
        out.update(not_rotated_features=self.head_dim - self.rotary_dim, layout=self.layout)
        if self.layer_type is not None:
            out["layer_type"] = self.layer_type
        if self.reading is not None:
            out["read_from"] = self.reading.read_from
            out["rope_set"] = self.layer_type or SHARED_SET
            out["base_from"] = self.base_from
            out["attends_to"] = self.attends.to_dict()
            if self.reading.layers:
                out["rope_set_layers"] = self.reading.layers_of(self.layer_type or SHARED_SET)
        return out


def _one(reading: ModelReading, rope_set: RopeSet) -> RopeModel:
    if reading.heads is None:
        raise ConfigError(reading.path, "num_attention_heads is missing")
    return RopeModel(path=reading.path, model_type=reading.model_type, heads=reading.heads,
                     head_dim=rope_set.head_dim, rotary_dim=rope_set.rotary_dim, base=rope_set.base, ctx=rope_set.ctx,
                     vocab=reading.vocab, scaling=rope_set.scaling,
                     layer_type=None if rope_set.name == SHARED_SET else rope_set.name, notes=dict(rope_set.notes),
                     layout=rope_set.layout, reading=reading, base_from=rope_set.decided_by)


def rope_model_of(reading: ModelReading) -> RopeModel:
    """The reading's RoPE sets as RopeModels: the set that attends farthest, carrying the others."""
    if not reading.rope_sets:
        raise ConfigError(reading.path, f"this model uses {reading.kind.label} ({reading.kind.decided_by}), no RoPE to "
                                        "analyse")
    ordered = sorted(reading.rope_sets, key=lambda one: -reading.attends_to(one.name).distance)  # stable: file order
    first, *others = (_one(reading, one) for one in ordered)
    from dataclasses import replace

    return replace(first, others=tuple(others))
